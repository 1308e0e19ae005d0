// `plan` calls interpreter webhooks (src/store/plan.ts planWithWebhooks over src/interpreter/webhook-interpreter.ts):
// a ResourceInterpreterWebhookConfiguration in the input whose URL answers on loopback (HTTPS, a generated CA)
// gives a custom kind its replicas and their revision per member; an unreachable hook is a failure of that
// template's reconcile, reported with Karmada's text, and the other templates are planned as usual.
import { createServer } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocuments } from '../../src/io/documents.js';
import { plan, planWithWebhooks } from '../../src/store/plan.js';
import { AT, configMap, fleet, propagationPolicy } from '../store/plan-fixtures.js';
import { startLoopbackWebhook, type LoopbackWebhook } from './loopback-webhook.js';

let hook: LoopbackWebhook;

beforeAll(async () => {
  hook = await startLoopbackWebhook((r) => {
    const base = { successful: true, status: { code: 200 } };
    return r.operation === 'InterpretReplica'
      ? { ...base, replicas: r.object.spec.replicas }
      : r.operation === 'ReviseReplica'
        ? { ...base, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify([{ op: 'replace', path: '/spec/replicas', value: r.replicas }])).toString('base64') }
        : { ...base, healthy: true, rawStatus: {}, dependencies: [] };
  });
});

afterAll(() => hook.close());

const input = (url: string) => [
  ...fleet(['member1', 'member2']),
  ...parseDocuments(
    [
      `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterWebhookConfiguration
metadata: {name: examples}
webhooks:
- name: workloads.example.com
  rules: [{operations: ["InterpretReplica", "ReviseReplica"], apiGroups: [workload.example.io], apiVersions: [v1alpha1], kinds: [Workload]}]
  clientConfig: {url: "${url}", caBundle: ${hook.caBundle}}
  interpreterContextVersions: [v1alpha1]
  timeoutSeconds: 3
`,
      'apiVersion: workload.example.io/v1alpha1\nkind: Workload\nmetadata: {name: wl, namespace: default}\nspec: {replicas: 6}\n',
      propagationPolicy(
        'wl',
        '[{apiVersion: workload.example.io/v1alpha1, kind: Workload, name: wl}]',
        '{clusterAffinity: {clusterNames: [member1, member2]}, replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted, weightPreference: {staticWeightList: [{targetCluster: {clusterNames: [member1]}, weight: 2}, {targetCluster: {clusterNames: [member2]}, weight: 1}]}}}',
      ),
      configMap('plain'),
      propagationPolicy('plain', '[{apiVersion: v1, kind: ConfigMap, name: plain}]', '{clusterAffinity: {clusterNames: [member1, member2]}}'),
    ].join('---\n'),
    'in.yaml',
  ),
];

const replicasOn = (r: { works: Array<{ cluster: string; manifest?: { kind?: string; spec?: { replicas?: number } } }> }) =>
  Object.fromEntries(r.works.filter((w) => w.manifest?.kind === 'Workload').map((w) => [w.cluster, w.manifest?.spec?.replicas]));

describe('plan with interpreter webhooks', () => {
  it('the webhook answers InterpretReplica and revises each member\'s replicas', async () => {
    const out = await planWithWebhooks(input(`${hook.base}/interpreter-workload`), { at: AT });
    if (!out.ok) throw new Error(out.problems.join('\n'));
    expect(out.result.failures).toEqual([]);
    const rb = out.result.bindings.find((b) => b.metadata.name === 'wl-workload')!;
    expect((rb.spec as { replicas?: number }).replicas).toBe(6);
    expect(replicasOn(out.result)).toEqual({ member1: 4, member2: 2 });
    expect(hook.operations).toContain('InterpretReplica');
    expect(hook.operations).toContain('ReviseReplica');
    // The synchronous plan does not call webhooks: the kind has no replicas there.
    const sync = plan(input(`${hook.base}/interpreter-workload`), { at: AT });
    expect(sync.ok && (sync.result.bindings.find((b) => b.metadata.name === 'wl-workload')!.spec as { replicas?: number }).replicas).toBeFalsy();
  });

  it('an unreachable hook fails that template with Karmada\'s text; the other templates are planned', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const deadPort = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const out = await planWithWebhooks(input(`https://127.0.0.1:${deadPort}/x`), { at: AT });
    if (!out.ok) throw new Error(out.problems.join('\n'));
    const failure = out.result.failures.find((f) => f.key.includes('wl'));
    expect(failure?.error).toMatch(/^Internal error occurred: failed calling webhook "examples\/workloads.example.com": failed to call webhook: .*ECONNREFUSED/);
    expect(out.result.works.filter((w) => w.manifest?.kind === 'ConfigMap').map((w) => w.cluster).sort()).toEqual(['member1', 'member2']);
    expect(out.result.events.some((e) => e.reason === 'GetReplicasFailed' && /failed calling webhook/.test(e.message))).toBe(true);
  });
});
