import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDocuments } from '../../src/io/documents.js';
import { formatPlanJson, plan } from '../../src/store/plan.js';

const root = join(import.meta.dirname, '..', '..');
const examples = join(root, 'examples');
const AT = '2024-01-01T00:00:00Z';
const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), 'plan', ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });

describe('plan (CLI)', () => {
  it('YAML prints each dispatched manifest once and leaves the server stamps out unless --show-managed-fields', () => {
    const plain = cli(['-f', examples, '--at', AT]);
    expect(plain.status).toBe(0);
    expect(plain.stdout).toContain('manifest: "Deployment default/nginx: as in members.member1"');
    expect(plain.stdout).not.toMatch(/^\s+(resourceVersion|creationTimestamp|uid): /m);
    // stderr is a pipe here: no progress bar, no escape sequences.
    expect(plain.stderr).not.toContain('\x1b[');

    const full = cli(['-f', examples, '--at', AT, '--show-managed-fields']);
    expect(full.status).toBe(0);
    expect(full.stdout).toMatch(/^\s+resourceVersion: "\d+"$/m);
    expect(full.stdout).toMatch(/^\s+creationTimestamp: 2024-01-01T00:00:00Z$/m);
  });

  it('--diff-against a saved plan -o json, with --exit-code: 1 and the changes when something changes, 0 when nothing does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kl-plan-diff-'));
    const out = plan(readDocuments([examples]), { at: new Date(AT) });
    if (!out.ok) throw new Error(out.problems.join('\n'));
    writeFileSync(join(dir, 'before.json'), formatPlanJson(out.result));
    cpSync(examples, join(dir, 'edited'), { recursive: true });
    const nginx = join(dir, 'edited', 'apps', 'nginx.yaml');
    writeFileSync(nginx, readFileSync(nginx, 'utf8').replace('image: docker.io/library/nginx:1.25', 'image: docker.io/library/nginx:1.27'));

    const changed = cli(['-f', join(dir, 'edited'), '--diff-against', join(dir, 'before.json'), '--exit-code']);
    expect(changed.stderr).toBe('');
    expect(changed.status).toBe(1);
    expect(changed.stdout).toBe(
      [
        '~ Deployment/default/nginx on member1',
        '    spec.template.spec.containers[0].image: "mirror.eu-west.example.com/library/nginx:1.25" -> "mirror.eu-west.example.com/library/nginx:1.27"',
        '1 change(s) in 1 template(s)',
        '',
      ].join('\n'),
    );
    // Another folder of inputs is planned the same way; the time defaults to now on both sides.
    const same = cli(['-f', examples, '--diff-against', examples, '--exit-code']);
    expect([same.status, same.stdout]).toEqual([0, 'no changes\n']);
  });

  it('--exit-code without --diff-against is a usage error', () => {
    const r = cli(['-f', examples, '--exit-code']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--exit-code needs --diff-against OLD');
  });
});

describe('plan -o wide and -o custom-columns', () => {
  it('wide adds the binding and the Work of each row; custom-columns reads the bindings and Works the plan makes', () => {
    const wide = cli(['-f', examples, '--at', AT, '-o', 'wide']);
    expect(wide.status, wide.stderr).toBe(0);
    const [header, ...rows] = wide.stdout.split('\n');
    expect(header).toMatch(/\bOVERRIDES\s+BINDING\s+WORK$/);
    expect(rows.find((r) => r.startsWith('Deployment/default/nginx') && r.includes(' member1 '))).toMatch(/default\/nginx-deployment\s+karmada-es-member1\/nginx-[0-9a-f]+$/);
    // the narrow table keeps its columns
    expect(cli(['-f', examples, '--at', AT, '-o', 'table']).stdout.split('\n')[0]).toMatch(/OVERRIDES$/);

    const cols = cli(['-f', examples, '--at', AT, '-o', 'custom-columns=KIND:.kind,NAME:.metadata.name,CLUSTERS:.spec.clusters[*].name,SUSPENDED:.spec.suspendDispatching']);
    expect(cols.status, cols.stderr).toBe(0);
    const lines = cols.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^KIND\s+NAME\s+CLUSTERS\s+SUSPENDED$/);
    expect(lines).toContainEqual(expect.stringMatching(/^ResourceBinding\s+web-deployment\s+member1,member3\s+<none>$/));
    expect(lines).toContainEqual(expect.stringMatching(/^Work\s+frontend-[0-9a-f]+\s+<none>\s+true$/));
  });
});
