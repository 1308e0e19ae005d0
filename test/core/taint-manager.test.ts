import { describe, expect, it } from 'vitest';
import { evictionVerdict, reconcileTaintManager } from '../../src/core/taint-manager.js';
import type { KObject } from '../../src/core/object.js';
import type { ReconcileContext } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';

const NOW = Date.parse('2024-01-01T00:10:00Z');
const notReady = { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: '2024-01-01T00:09:00Z' };
const unreachable = { key: 'cluster.karmada.io/unreachable', effect: 'NoExecute', timeAdded: '2024-01-01T00:08:00Z' };

describe('eviction verdict (tolerations against NoExecute taints)', () => {
  it('an untolerated NoExecute taint evicts now; NoSchedule taints do not count', () => {
    expect(evictionVerdict([{ key: 'a', effect: 'NoSchedule' }], [], NOW)).toEqual({ evict: 'never' });
    expect(evictionVerdict([notReady], [{ key: 'other', operator: 'Exists' }], NOW)).toEqual({ evict: 'now', taint: notReady, tolerated: false });
  });
  it('the first matching toleration decides, even when a later one would tolerate longer', () => {
    const tolerations = [
      { key: 'cluster.karmada.io/not-ready', operator: 'Exists', tolerationSeconds: 30 },
      { operator: 'Exists' },
    ];
    expect(evictionVerdict([notReady], tolerations, NOW)).toMatchObject({ evict: 'now', tolerated: true });
    expect(evictionVerdict([notReady], [...tolerations].reverse(), NOW)).toEqual({ evict: 'never' });
  });
  it('the earliest timeAdded + tolerationSeconds over all taints', () => {
    const v = evictionVerdict([notReady, unreachable], [{ operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }], NOW);
    expect(v).toEqual({ evict: 'at', at: Date.parse('2024-01-01T00:13:00Z') });
  });
  it('tolerationSeconds 0 or negative evicts now; a taint without timeAdded waits for it', () => {
    expect(evictionVerdict([notReady], [{ operator: 'Exists', tolerationSeconds: 0 }], NOW)).toMatchObject({ evict: 'now' });
    expect(evictionVerdict([{ ...notReady, timeAdded: undefined }], [{ operator: 'Exists', tolerationSeconds: 10 }], NOW)).toEqual({ evict: 'never' });
  });
  it('Equal compares the value; an empty toleration effect matches every effect', () => {
    const t = { key: 'k', value: 'v', effect: 'NoExecute', timeAdded: '2024-01-01T00:00:00Z' };
    expect(evictionVerdict([t], [{ key: 'k', operator: 'Equal', value: 'w' }], NOW)).toMatchObject({ evict: 'now', tolerated: false });
    expect(evictionVerdict([t], [{ key: 'k', operator: 'Equal', value: 'v' }], NOW)).toEqual({ evict: 'never' });
  });
});

function setup(binding: Partial<KObject['spec']>, annotations?: Record<string, string>, kind = 'ResourceBinding') {
  const store = new EmbeddedStore();
  store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm1' }, spec: {} });
  store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm2' }, spec: { taints: [{ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' }, notReady] } });
  store.create({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind,
    metadata: { name: 'web-deployment', ...(kind === 'ResourceBinding' ? { namespace: 'default' } : {}), ...(annotations ? { annotations } : {}) },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
      clusters: [{ name: 'm1', replicas: 1 }, { name: 'm2', replicas: 3 }],
      failover: { cluster: { purgeMode: 'Directly' } },
      ...binding,
    },
  });
  const ctx: ReconcileContext = {
    reader: store,
    now: new Date(NOW),
    interpreter: {} as never,
    schedule: (() => ({})) as never,
    options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [] },
  };
  const key = kind === 'ResourceBinding' ? 'work.karmada.io/v1alpha2|ResourceBinding|default|web-deployment' : 'work.karmada.io/v1alpha2|ClusterResourceBinding||web-deployment';
  return { ctx, key };
}

const written = (r: ReturnType<typeof reconcileTaintManager>) => (r.writes[0] as { object: KObject } | undefined)?.object;

describe('taint manager', () => {
  it('evicts from the tainted cluster with a TaintUntolerated task carrying the policy purge mode and the replicas', () => {
    const { ctx, key } = setup({});
    const b = written(reconcileTaintManager(ctx, key))!;
    expect(b.spec.clusters).toEqual([{ name: 'm1', replicas: 1 }]);
    expect(b.spec.gracefulEvictionTasks).toEqual([{ fromCluster: 'm2', purgeMode: 'Directly', replicas: 3, reason: 'TaintUntolerated', producer: 'TaintManager' }]);
  });
  it('an empty purgeMode is Gracefully, and a proposal alias is read as its new name', () => {
    const purgeModeWith = (cluster: Record<string, unknown>) => {
      const { ctx, key } = setup({ failover: { cluster } });
      return written(reconcileTaintManager(ctx, key))!.spec.gracefulEvictionTasks[0].purgeMode;
    };
    expect(purgeModeWith({})).toBe('Gracefully');
    expect(purgeModeWith({ purgeMode: 'Immediately' })).toBe('Directly');
  });
  it('does nothing without failover.cluster (the policy does not enable cluster failover)', () => {
    const { ctx, key } = setup({ failover: { application: { decisionConditions: { tolerationSeconds: 10 } } } });
    expect(reconcileTaintManager(ctx, key)).toEqual({ writes: [], events: [] });
  });
  it('reads the tolerations of the applied placement first', () => {
    const applied = JSON.stringify({ clusterTolerations: [{ key: 'cluster.karmada.io/not-ready', operator: 'Exists', tolerationSeconds: 120 }] });
    const { ctx, key } = setup({ placement: { clusterTolerations: [] } }, { 'policy.karmada.io/applied-placement': applied });
    const r = reconcileTaintManager(ctx, key);
    expect(r.writes).toEqual([]);
    // A millisecond past timeAdded + tolerationSeconds: the eviction is strictly after it, as in Karmada.
    expect(r.requeueAfterSeconds).toBe(60.001);
  });
  it('falls back to spec.placement when there is no applied placement', () => {
    const { ctx, key } = setup({ placement: { clusterTolerations: [{ key: 'cluster.karmada.io/not-ready', operator: 'Exists' }] } });
    expect(reconcileTaintManager(ctx, key)).toEqual({ writes: [], events: [], requeueAfterSeconds: undefined });
  });
  it('keeps an existing task for the cluster instead of adding a second one', () => {
    const existing = { fromCluster: 'm2', purgeMode: 'Never', reason: 'ApplicationFailure', producer: 'x', suppressDeletion: true };
    const { ctx, key } = setup({ gracefulEvictionTasks: [existing] });
    const b = written(reconcileTaintManager(ctx, key))!;
    expect(b.spec.gracefulEvictionTasks).toEqual([existing]);
    expect(b.spec.clusters).toEqual([{ name: 'm1', replicas: 1 }]);
  });
  it('evicts a ClusterResourceBinding too; success events go out once the update is stored', () => {
    const { ctx, key } = setup({}, undefined, 'ClusterResourceBinding');
    const r = reconcileTaintManager(ctx, key);
    expect(r.events).toEqual([]);
    const w = r.writes[0] as { object: KObject; then: (o: KObject) => { events: unknown[] } };
    expect(w.then(w.object).events).toMatchObject([
      { reason: 'EvictWorkloadFromClusterSucceed', message: 'Evict from cluster m2 succeed.', involvedObject: { kind: 'ClusterResourceBinding' } },
      { reason: 'EvictWorkloadFromClusterSucceed', message: 'Evict from cluster m2 succeed.', involvedObject: { kind: 'Deployment', name: 'web' } },
    ]);
  });
  it('waits while dispatching to the cluster is suspended, with an event saying so', () => {
    const { ctx, key } = setup({ suspension: { dispatching: true } });
    const r = reconcileTaintManager(ctx, key);
    expect(r.writes).toEqual([]);
    expect(r.events).toMatchObject([{ reason: 'FailoverPausedBySuspension', involvedObject: { kind: 'ResourceBinding' } }]);
  });
});
