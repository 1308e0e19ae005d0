import { describe, expect, it } from 'vitest';
import { ClusterControllerFinalizer } from '../../src/api/constants.js';
import { desiredClusterTaints } from '../../src/core/taint.js';
import { reconcileCluster } from '../../src/core/cluster.js';
import type { KObject } from '../../src/core/object.js';
import type { ReconcileContext } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';

/** m1 as the cluster controller leaves it (its finalizer on), unless `finalizers` says otherwise. */
function cluster(ready: { status: string; lastTransitionTime?: string } | undefined, taints?: unknown[], finalizers: string[] = [ClusterControllerFinalizer]): KObject {
  return {
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name: 'm1', finalizers },
    spec: { syncMode: 'Push', ...(taints ? { taints } : {}) },
    status: ready ? { conditions: [{ type: 'Ready', reason: 'x', message: '', ...ready }] } : {},
  };
}

const at = (s: string) => new Date(`2024-01-01T00:${s}Z`);

describe('cluster taints from the Ready condition', () => {
  it('Ready Unknown: the unreachable key, NoExecute once the threshold has passed', () => {
    const c = cluster({ status: 'Unknown', lastTransitionTime: '2024-01-01T00:00:00Z' });
    expect(desiredClusterTaints(c, at('00:10'), 30)).toMatchObject({
      taints: [{ key: 'cluster.karmada.io/unreachable', effect: 'NoSchedule' }],
      requeueAfterSeconds: 20,
    });
    expect(desiredClusterTaints(c, at('00:30'), 30).taints).toEqual([
      { key: 'cluster.karmada.io/unreachable', effect: 'NoSchedule' },
      { key: 'cluster.karmada.io/unreachable', effect: 'NoExecute', timeAdded: '2024-01-01T00:00:30Z' },
    ]);
  });

  it('False after Unknown swaps the key and keeps nothing of the other', () => {
    const c = cluster({ status: 'False', lastTransitionTime: '2024-01-01T00:01:00Z' }, [
      { key: 'cluster.karmada.io/unreachable', effect: 'NoSchedule' },
      { key: 'cluster.karmada.io/unreachable', effect: 'NoExecute', timeAdded: '2024-01-01T00:00:30Z' },
    ]);
    const d = desiredClusterTaints(c, at('01:05'), 30);
    expect(d.taints).toEqual([{ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' }]);
    expect(d.removed.map((t) => t.effect)).toEqual(['NoSchedule', 'NoExecute']);
    expect(d.requeueAfterSeconds).toBe(25);
  });

  it('no Ready condition yet: not-ready NoSchedule, but no NoExecute however long it lasts', () => {
    const d = desiredClusterTaints(cluster(undefined), at('59:00'), 30);
    expect(d.taints).toEqual([{ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' }]);
    expect(d.requeueAfterSeconds).toBeUndefined();
  });

  it('an unreadable transition time gives no NoExecute taint', () => {
    const d = desiredClusterTaints(cluster({ status: 'False', lastTransitionTime: 'yesterday' }), at('59:00'), 30);
    expect(d.taints).toEqual([{ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' }]);
  });

  it('an existing NoExecute taint keeps its timeAdded', () => {
    const existing = { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: '2024-01-01T00:00:31Z' };
    const c = cluster({ status: 'False', lastTransitionTime: '2024-01-01T00:00:00Z' }, [existing, { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' }]);
    const d = desiredClusterTaints(c, at('05:00'), 30);
    expect(d.taints[0]).toBe(existing);
    expect(d.added).toEqual([]);
    expect(d.removed).toEqual([]);
  });
});

describe('cluster controller', () => {
  const ctx = (store: EmbeddedStore, now: Date, threshold?: number): ReconcileContext => ({
    reader: store,
    now,
    interpreter: {} as never,
    schedule: (() => ({})) as never,
    options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [], clusterFailureThresholdSeconds: threshold },
  });
  const KEY = 'cluster.karmada.io/v1alpha1|Cluster||m1';

  it('honours the failure threshold option and asks to be woken when it runs out', () => {
    const store = new EmbeddedStore();
    store.create(cluster({ status: 'False', lastTransitionTime: '2024-01-01T00:00:00Z' }, [{ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' }]));
    const early = reconcileCluster(ctx(store, at('00:02'), 3), KEY);
    expect(early.writes).toEqual([]);
    expect(early.requeueAfterSeconds).toBe(1);
    const due = reconcileCluster(ctx(store, at('00:03'), 3), KEY);
    const w = due.writes[0] as { op: string; object: KObject; then?: (o: KObject) => { events?: unknown[] } };
    expect(w.op).toBe('update');
    expect(w.object.spec.taints).toEqual([
      { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' },
      { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: '2024-01-01T00:00:03Z' },
    ]);
    // The event is reported once the update went through.
    expect(due.events).toEqual([]);
    expect(w.then!(w.object).events).toMatchObject([{ reason: 'TaintClusterSucceed', involvedObject: { kind: 'Cluster', name: 'm1' } }]);
  });

  it('defaults to 30 s', () => {
    const store = new EmbeddedStore();
    store.create(cluster({ status: 'False', lastTransitionTime: '2024-01-01T00:00:00Z' }, [{ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' }]));
    expect(reconcileCluster(ctx(store, at('00:29')), KEY)).toMatchObject({ writes: [], requeueAfterSeconds: 1 });
    expect(reconcileCluster(ctx(store, at('00:30')), KEY).writes).toHaveLength(1);
  });

  it('a Ready cluster without taints is left alone', () => {
    const store = new EmbeddedStore();
    store.create(cluster({ status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }));
    expect(reconcileCluster(ctx(store, at('10:00')), KEY)).toEqual({ writes: [], events: [], requeueAfterSeconds: undefined });
  });

  it('adds its finalizer to a Cluster joined without it (kubectl apply), other finalizers kept, taints in the same update, no event', () => {
    const store = new EmbeddedStore();
    store.create(cluster({ status: 'False', lastTransitionTime: '2024-01-01T00:00:00Z' }, undefined, ['example.com/keep']));
    const r = reconcileCluster(ctx(store, at('00:01')), KEY);
    expect(r.writes).toHaveLength(1);
    const w = r.writes[0] as { op: string; object: KObject; then?: (o: KObject) => { events?: unknown[] } };
    expect(w.op).toBe('update');
    expect(w.object.metadata.finalizers).toEqual(['example.com/keep', ClusterControllerFinalizer]);
    expect(w.object.spec.taints).toEqual([{ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' }]);
    store.update(w.object);
    // once on, nothing more to write while the taints stay right
    expect(reconcileCluster(ctx(store, at('00:02')), KEY).writes).toEqual([]);

    const bare = new EmbeddedStore();
    bare.create(cluster({ status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }, undefined, []));
    const only = reconcileCluster(ctx(bare, at('00:01')), KEY);
    const u = only.writes[0] as { object: KObject; then?: (o: KObject) => { events?: unknown[] } };
    expect(u.object.metadata.finalizers).toEqual([ClusterControllerFinalizer]);
    expect(u.object.spec.taints).toBeUndefined();
    expect(u.then?.(u.object).events ?? []).toEqual([]);
  });
});
