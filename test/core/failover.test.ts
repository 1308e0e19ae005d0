import { describe, expect, it } from 'vitest';
import { FailoverClocksAnnotation } from '../../src/api/constants.js';
import { readClocks, reconcileApplicationFailover } from '../../src/core/failover.js';
import type { Interpreter, ReconcileContext } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';
import { ControlPlane } from '../../src/store/control-plane.js';

const interpreter = { hookEnabled: () => true } as unknown as Interpreter;

function bindingWith(clockAnnotation: string | undefined, extra: Record<string, unknown> = {}) {
  const store = new EmbeddedStore();
  store.create({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: 'nginx-deployment', namespace: 'default', annotations: clockAnnotation ? { [FailoverClocksAnnotation]: clockAnnotation } : undefined },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' },
      propagateDeps: true,
      clusters: [{ name: 'member1', replicas: 2 }],
      failover: { application: { decisionConditions: { tolerationSeconds: 200 }, purgeMode: 'Gracefully', gracePeriodSeconds: 600 } },
      ...extra,
    },
    status: { aggregatedStatus: [{ clusterName: 'member1', applied: true, health: 'Unhealthy' }] },
  });
  return store;
}

const ctx = (store: EmbeddedStore, now: string): ReconcileContext => ({
  reader: store,
  now: new Date(now),
  interpreter,
  schedule: (() => ({})) as never,
  options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [] },
});
const KEY = 'work.karmada.io/v1alpha2|ResourceBinding|default|nginx-deployment';

describe('application failover clocks (karmada-lite point 2)', () => {
  it('records the first unhealthy sighting on the binding and asks to be woken at the toleration', () => {
    const store = bindingWith(undefined);
    const r = reconcileApplicationFailover(ctx(store, '2024-01-01T00:00:00Z'), KEY);
    // Woken a millisecond past the toleration: Karmada evicts strictly after it.
    expect(r.requeueAfterSeconds).toBe(200.001);
    const b = r.writes[0]!;
    expect(b.op).toBe('update');
    expect(readClocks((b as unknown as { object: never }).object)).toEqual({ member1: { unhealthySince: '2024-01-01T00:00:00Z' } });
  });
  it('reads the clock back from the binding, as a restarted controller would, and evicts when it ran out', () => {
    const store = bindingWith(JSON.stringify({ member1: { unhealthySince: '2024-01-01T00:00:00Z' } }));
    const early = reconcileApplicationFailover(ctx(store, '2024-01-01T00:02:00Z'), KEY);
    expect(early.writes).toEqual([]);
    expect(early.requeueAfterSeconds).toBe(80.001);
    // Exactly at the toleration it is still tolerated, as Karmada's After() has it.
    expect(reconcileApplicationFailover(ctx(store, '2024-01-01T00:03:20Z'), KEY).writes).toEqual([]);
    const late = reconcileApplicationFailover(ctx(store, '2024-01-01T00:03:20.001Z'), KEY);
    const spec = (late.writes[0] as { object: { spec: Record<string, unknown>; metadata: { annotations?: Record<string, string> } } }).object;
    expect(spec.spec.clusters).toBeUndefined();
    expect(spec.spec.gracefulEvictionTasks).toEqual([
      { fromCluster: 'member1', purgeMode: 'Gracefully', replicas: 2, reason: 'ApplicationFailure', producer: 'resource-binding-application-failover-controller', gracePeriodSeconds: 600 },
    ]);
    expect(spec.spec.activeEvictionHistory).toEqual([{ clusterName: 'member1', creationTimestamp: '2024-01-01T00:03:20Z', blockPredecessorSeconds: 600, reason: 'ApplicationFailure' }]);
    expect(spec.metadata.annotations?.[FailoverClocksAnnotation]).toBeUndefined();
  });
  it('gives its eviction write the EvictWorkloadFromClusterFailed events a failed update records, on binding and template', () => {
    const store = bindingWith(JSON.stringify({ member1: { unhealthySince: '2024-01-01T00:00:00Z' } }));
    const late = reconcileApplicationFailover(ctx(store, '2024-01-01T00:03:21Z'), KEY);
    expect(late.writes[0]!.failureEvents).toEqual(
      [
        { apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', namespace: 'default', name: 'nginx-deployment' },
        { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' },
      ].map((o) => expect.objectContaining({ involvedObject: expect.objectContaining(o), type: 'Warning', reason: 'EvictWorkloadFromClusterFailed', message: 'Evict from cluster member1 failed.', source: 'resource-binding-application-failover-controller' })),
    );
    // A write that only records the clock evicts nothing, so has nothing to report.
    const first = reconcileApplicationFailover(ctx(bindingWith(undefined), '2024-01-01T00:00:00Z'), KEY);
    expect(first.writes[0]!.failureEvents).toBeUndefined();
  });
  it('keeps the clock to the millisecond, so a persisted clock never fires before tolerationSeconds', () => {
    const store = bindingWith(undefined);
    const first = reconcileApplicationFailover(ctx(store, '2024-01-01T00:00:00.900Z'), KEY);
    const written = (first.writes[0] as unknown as { object: never }).object;
    expect(readClocks(written)).toEqual({ member1: { unhealthySince: '2024-01-01T00:00:00.900Z' } });
    const restarted = bindingWith(JSON.stringify(readClocks(written)));
    // 200 s after the clock's second, but not yet 200 s after the sighting.
    const early = reconcileApplicationFailover(ctx(restarted, '2024-01-01T00:03:20.100Z'), KEY);
    expect(early.writes).toEqual([]);
    expect(early.requeueAfterSeconds).toBe(0.801);
    const due = reconcileApplicationFailover(ctx(restarted, '2024-01-01T00:03:20.901Z'), KEY);
    expect((due.writes[0] as { object: { spec: { gracefulEvictionTasks?: unknown[] } } }).object.spec.gracefulEvictionTasks).toHaveLength(1);
  });
  it('accepts the proposal purge-mode names as aliases', () => {
    const store = bindingWith(JSON.stringify({ member1: { unhealthySince: '2024-01-01T00:00:00Z' } }), {
      failover: { application: { decisionConditions: { tolerationSeconds: 0 }, purgeMode: 'Immediately' } },
    });
    const r = reconcileApplicationFailover(ctx(store, '2024-01-01T00:00:01Z'), KEY);
    const spec = (r.writes[0] as { object: { spec: { gracefulEvictionTasks: Array<{ purgeMode: string }> } } }).object.spec;
    expect(spec.gracefulEvictionTasks[0]!.purgeMode).toBe('Directly');
  });
  it('keeps the clock on the binding in the embedded control plane', () => {
    const cp = new ControlPlane({ start: new Date('2024-01-01T00:00:00Z') });
    cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'member1' }, spec: { syncMode: 'Push' } });
    cp.apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx', namespace: 'default' }, spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } });
    cp.apply({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'p', namespace: 'default' },
      spec: { propagateDeps: true, resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }], placement: { clusterAffinity: { clusterNames: ['member1'] } }, failover: { application: { decisionConditions: { tolerationSeconds: 600 } } } },
    });
    cp.settle();
    cp.setMemberState('member1', { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' }, { health: 'Unhealthy' });
    cp.advance(30);
    const b = cp.get({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', namespace: 'default', name: 'nginx-deployment' })!;
    expect(readClocks(b)).toEqual({ member1: { unhealthySince: '2024-01-01T00:00:00Z' } });
  });
});

describe('application failover events in order (issue 33)', () => {
  it('reports the eviction when it is decided, before a later FailoverExhausted on the cluster it moved to', () => {
    const cp = new ControlPlane({ start: new Date('2024-01-01T00:00:00Z') });
    for (const name of ['member1', 'member2']) cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: { syncMode: 'Push' } });
    cp.apply({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'nginx', namespace: 'default' },
      spec: {
        propagateDeps: true,
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }],
        placement: { clusterAffinity: { clusterNames: ['member1', 'member2'] }, spreadConstraints: [{ spreadByField: 'cluster', maxGroups: 1, minGroups: 1 }] },
        failover: { application: { decisionConditions: { tolerationSeconds: 5 }, purgeMode: 'Directly' } },
      },
    });
    cp.apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx' } }, spec: { replicas: 2, selector: { matchLabels: { app: 'nginx' } }, template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } } } });
    cp.settle();
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' };
    for (const m of ['member1', 'member2']) cp.setMemberState(m, ref, { health: 'Unhealthy' });
    for (let i = 0; i < 20; i++) cp.advance(1);
    const onBinding = cp
      .events()
      .filter((e) => e.involvedObject.kind === 'ResourceBinding' && /^(EvictWorkloadFromCluster|FailoverExhausted)/.test(e.reason))
      .map((e) => `${e.lastTimestamp} ${e.reason} ${e.reason === 'FailoverExhausted' ? '' : e.message}`.trim());
    // member1 evicted 5 s after it turned unhealthy; member2, where the workload went, 5 s after that, with no cluster left.
    expect(onBinding).toEqual(['2024-01-01T00:00:05Z EvictWorkloadFromClusterSucceed Evict from cluster member1 succeed.', '2024-01-01T00:00:10Z FailoverExhausted']);
  });
});
