// scripts/lint-manifests.mjs against the test host apiserver: deploy/ passes kubeconform, the strict
// server-side dry run and the restricted Pod Security Standard; fixtures that break each one are refused.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cluster, repoRoot } from './env.js';

const lint = (...targets: string[]) =>
  spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'lint-manifests.mjs'), '--kubeconfig', cluster('host').kubeconfig, ...targets], { cwd: repoRoot, encoding: 'utf8', timeout: 900_000 });

describe('scripts/lint-manifests.mjs', () => {
  it('passes deploy/, the Helm chart among it (helm lint --strict, then its rendering through the same checks)', () => {
    const r = lint();
    expect(r.stderr).toContain('kubeconform -strict: ok');
    expect(r.stderr).toContain('server-side apply dry run (fieldValidation=Strict): ok');
    // the controller's Deployment and the aggregated API server's (each in deploy/ and as the chart renders it),
    // the interpreter webhook's (deploy/interpreter-webhook/) and the agent's (deploy/agent/)
    expect(r.stderr).toContain('pod security (restricted, 6 pod template(s)): ok');
    expect(r.stderr).toContain('[helm lint] 1 chart(s) linted, 0 chart(s) failed');
    expect(r.stderr).toMatch(/Summary: \d+ resources found in \d+ files - Valid: \d+, Invalid: 0/);
    expect(r.status, r.stderr).toBe(0);
  });

  it('refuses a pod template below the restricted standard, an unknown field and a wrong type', () => {
    const r = lint('test/integration/fixtures/lint');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("additional properties 'selectr' not allowed");
    expect(r.stderr).toContain("'/spec/ports/0/port': got string, want integer");
    expect(r.stderr).toContain('dry run: test/integration/fixtures/lint/schema-errors.yaml[0] Service schema-errors: ');
    expect(r.stderr).toContain('.spec.selectr: field not declared in schema');
    expect(r.stderr).toContain('seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")');
    expect(r.stderr).toContain('ERROR: 3 problem(s) in the manifests');
  });
});
