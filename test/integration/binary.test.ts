// The standalone executable as users start it: no Node.js warning on any start, one-shot commands and the
// controller alike (client-node, which the controller and webhook load, has optional dependencies that made Node's embedder
// require() print its four-line single-executable warning), and --context picks a kubeconfig context.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { binary, ensureBinary, ignoreConflict, installCrds, rest, startController, stopController, type Proc } from './harness.js';
import { cluster, kubeConfig, waitFor } from './env.js';

const ns = `binary-${randomBytes(3).toString('hex')}`;
const NODE_WARNING = /\(node:\d+\)|Warning:|ExperimentalWarning/;

const run = (args: string[]) => spawnSync(binary, args, { encoding: 'utf8', timeout: 60_000 });

describe('the standalone binary', () => {
  let controller: Proc | undefined;

  beforeAll(async () => {
    ensureBinary();
    await installCrds(rest('host'));
  });

  afterAll(async () => {
    await stopController(controller);
    await rest('host').request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
  });

  it.each([['--version'], ['version', '-o', 'json'], ['crds', '-o', 'name'], ['interpret', '--help']])('prints no warning: %s', (...args) => {
    const r = run(args);
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(NODE_WARNING);
  });

  it('prints no warning when a command loads the Kubernetes client (webhook --kubeconfig, a file that is not there)', () => {
    const r = run(['webhook', '--cert-file', 'tls.crt', '--key-file', 'tls.key', '--kubeconfig', '/nonexistent/kubeconfig']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('/nonexistent/kubeconfig');
    expect(r.stderr).not.toMatch(NODE_WARNING);
  });

  it('refuses a --context the kubeconfig does not have, naming the ones it has (exit 2)', () => {
    const r = run(['controller', '--kubeconfig', cluster('host').kubeconfig, '--context', 'no-such-context']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--context: no context "no-such-context"');
    expect(r.stderr).toContain(kubeConfig('host').getCurrentContext());
  });

  it('runs the controller with --context and -v 4 (debug logs over --log-level info) and no warning on standard error', async () => {
    const p = await startController(['--context', kubeConfig('host').getCurrentContext(), '-v', '4', '--log-level', 'info']);
    controller = p;
    // Something to reconcile: the binding the detector writes is logged at debug level.
    const host = rest('host');
    await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }));
    await host.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } } },
    });
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${ns}/propagationpolicies`, {
      body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: 'web' }, spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }], placement: { clusterAffinity: { clusterNames: ['member1'] } } } },
    });
    await waitFor('a debug line from the controller', async () => (p.logs.some((l) => l.includes('"level":"debug"')) ? true : undefined));
    expect(await stopController(controller)).toBe(0);
    expect(controller.logs.filter((l) => NODE_WARNING.test(l))).toEqual([]);
  });
});
