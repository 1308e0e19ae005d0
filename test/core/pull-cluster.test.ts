import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../src/api/generated/types.js';
import { decidePullClusterHealth, executesWorkOf, forExecutedClusters, isPullCluster, pullClusterHealthKeys, reconcilePullClusterHealth, withReadyCondition } from '../../src/core/pull-cluster.js';
import type { CoreOptions, ObjectReader, ReconcileContext } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';
import { desiredClusterTaints } from '../../src/core/taint.js';

function cluster(syncMode: 'Push' | 'Pull', ready?: { status: 'True' | 'False' | 'Unknown'; lastTransitionTime: string }): Cluster {
  return {
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name: 'member2', creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { syncMode },
    status: ready ? { conditions: [{ type: 'Ready', reason: 'ClusterReady', message: 'cluster is healthy and ready to accept workloads', ...ready }] } : {},
  } as Cluster;
}

const at = (mmss: string) => new Date(`2024-01-01T00:${mmss}Z`);

describe('Pull cluster readiness from the agent heartbeat', () => {
  it('leaves a Push cluster to the probe', () => {
    const c = cluster('Push', { status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' });
    expect(isPullCluster(c)).toBe(false);
    expect(decidePullClusterHealth(c, undefined, at('59:00'))).toEqual({});
  });

  it('a renewed lease keeps Ready as it is and says when to look again', () => {
    const c = cluster('Pull', { status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' });
    expect(decidePullClusterHealth(c, '2024-01-01T00:05:00Z', at('05:10'), { monitorGracePeriodSeconds: 40 })).toEqual({ requeueAfterSeconds: 30 });
  });

  it('no renewal for the grace period: Ready Unknown with Karmada reason and message', () => {
    const c = cluster('Pull', { status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' });
    const d = decidePullClusterHealth(c, '2024-01-01T00:05:00Z', at('05:41'), { monitorGracePeriodSeconds: 40 });
    expect(d.ready).toEqual({
      type: 'Ready',
      status: 'Unknown',
      reason: 'ClusterStatusUnknown',
      message: 'Cluster status controller stopped posting cluster status.',
      lastTransitionTime: '2024-01-01T00:05:41Z',
    });
    // Already Unknown: nothing more to write (the transition time must not move, the taint timer counts from it).
    const unknown = withReadyCondition(c, d.ready!);
    expect(decidePullClusterHealth(unknown, '2024-01-01T00:05:00Z', at('07:00'), { monitorGracePeriodSeconds: 40 })).toEqual({});
    // Then the taint rules act as for Push: unreachable NoSchedule at once, NoExecute after the threshold.
    expect(desiredClusterTaints(unknown, at('05:42'), 30).taints).toEqual([{ key: 'cluster.karmada.io/unreachable', effect: 'NoSchedule' }]);
    expect(desiredClusterTaints(unknown, at('06:11'), 30).taints.map((t) => t.effect)).toEqual(['NoSchedule', 'NoExecute']);
  });

  it('an agent that never posted status gets the startup grace, then ClusterStatusNeverUpdated', () => {
    const c = cluster('Pull');
    expect(decidePullClusterHealth(c, undefined, at('00:59'), { startupGracePeriodSeconds: 60 }).ready).toBeUndefined();
    const d = decidePullClusterHealth(c, undefined, at('01:01'), { startupGracePeriodSeconds: 60 });
    expect(d.ready).toMatchObject({ status: 'Unknown', reason: 'ClusterStatusNeverUpdated' });
  });

  it('a lease renewed after the condition went stale is a sign of life', () => {
    const c = cluster('Pull', { status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' });
    expect(decidePullClusterHealth(c, undefined, at('01:00')).ready?.status).toBe('Unknown');
    expect(decidePullClusterHealth(c, '2024-01-01T00:00:50Z', at('01:00')).ready).toBeUndefined();
  });
});

describe('who executes a Work', () => {
  function context(executionSyncMode: 'Push' | 'Pull' | undefined): ReconcileContext {
    const store = new EmbeddedStore();
    const ready = { conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' }] };
    store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm1' }, spec: { syncMode: 'Push' }, status: ready });
    store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm2' }, spec: { syncMode: 'Pull' }, status: ready });
    const reader: ObjectReader = { get: (t, ns, name, cluster) => store.get(t, ns, name, cluster), list: (t, o, cluster) => store.list(t, o, cluster), types: (cluster) => store.types(cluster) };
    return { reader, now: new Date('2024-01-01T00:01:00Z'), interpreter: {} as never, schedule: (() => ({})) as never, options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [], executionSyncMode } };
  }
  const keyIn = (c: string) => `work.karmada.io/v1alpha1|Work|karmada-es-${c}|web-687f7fb96f`;

  it('the control plane takes Push clusters only, the agent Pull ones, plan every cluster', () => {
    expect([executesWorkOf(context('Push'), keyIn('m1')), executesWorkOf(context('Push'), keyIn('m2'))]).toEqual([true, false]);
    expect([executesWorkOf(context('Pull'), keyIn('m1')), executesWorkOf(context('Pull'), keyIn('m2'))]).toEqual([false, true]);
    expect([executesWorkOf(context(undefined), keyIn('m1')), executesWorkOf(context(undefined), keyIn('m2'))]).toEqual([true, true]);
  });

  it('a reconciler wrapped for Push is not called for a Pull cluster\'s Work', () => {
    const calls: string[] = [];
    const r = forExecutedClusters((_ctx, key) => {
      calls.push(key);
      return { writes: [], events: [], error: 'called' };
    });
    expect(r(context('Push'), keyIn('m2')).error).toBeUndefined();
    expect(r(context('Push'), keyIn('m1')).error).toBe('called');
    expect(calls).toEqual([keyIn('m1')]);
  });
});

describe('the control plane reconciling a Pull cluster heartbeat', () => {
  function context(now: string, renewTime: string | undefined, options: Partial<CoreOptions> = { executionSyncMode: 'Push' }): ReconcileContext {
    const store = new EmbeddedStore();
    store.create(cluster('Pull', { status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }));
    if (renewTime) store.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'member2', namespace: 'karmada-cluster' }, spec: { holderIdentity: 'member2', leaseDurationSeconds: 40, renewTime } });
    const reader: ObjectReader = { get: (t, ns, name, c) => store.get(t, ns, name, c), list: (t, o, c) => store.list(t, o, c), types: (c) => store.types(c) };
    return { reader, now: new Date(now), interpreter: {} as never, schedule: (() => ({})) as never, options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [], ...options } };
  }
  const key = 'cluster.karmada.io/v1alpha1|Cluster||member2';

  it('reads the Lease karmada-cluster/<name>: renewed, a requeue; stale, a status write to Ready Unknown', () => {
    const fresh = reconcilePullClusterHealth(context('2024-01-01T00:10:20Z', '2024-01-01T00:10:00Z'), key);
    expect(fresh.writes).toEqual([]);
    expect(fresh.requeueAfterSeconds).toBe(20);
    const stale = reconcilePullClusterHealth(context('2024-01-01T00:11:00Z', '2024-01-01T00:10:00Z'), key);
    expect(stale.writes).toHaveLength(1);
    expect(stale.writes[0]).toMatchObject({ op: 'updateStatus', object: { status: { conditions: [{ type: 'Ready', status: 'Unknown', reason: 'ClusterStatusUnknown' }] } } });
  });

  it('takes --cluster-monitor-grace-period from the core options', () => {
    const short = reconcilePullClusterHealth(context('2024-01-01T00:10:06Z', '2024-01-01T00:10:00Z', { executionSyncMode: 'Push', clusterMonitorGracePeriodSeconds: 5 }), key);
    expect(short.writes).toHaveLength(1);
    const long = reconcilePullClusterHealth(context('2024-01-01T00:10:06Z', '2024-01-01T00:10:00Z', { executionSyncMode: 'Push', clusterMonitorGracePeriodSeconds: 7 }), key);
    expect(long).toMatchObject({ writes: [], requeueAfterSeconds: 1 });
  });

  it('does nothing where no agent executes the cluster: plan and the embedded store (mode unset), and an agent itself (Pull)', () => {
    for (const executionSyncMode of [undefined, 'Pull'] as const) {
      const r = reconcilePullClusterHealth(context('2024-01-01T01:00:00Z', undefined, { executionSyncMode }), key);
      expect(r).toEqual({ writes: [], events: [] });
    }
  });
});

describe('which Clusters a change wakes for the Pull health check', () => {
  const store = new EmbeddedStore();
  store.create(cluster('Pull', { status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }));
  const push = cluster('Push', { status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' });
  push.metadata.name = 'member1';
  store.create(push);
  const reader: ObjectReader = { get: (t, ns, name, c) => store.get(t, ns, name, c), list: (t, o, c) => store.list(t, o, c), types: (c) => store.types(c) };
  const lease = (name: string, namespace = 'karmada-cluster') => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: { renewTime: '2024-01-01T00:00:10.000000Z' } });
  const pullKey = 'cluster.karmada.io/v1alpha1|Cluster||member2';

  it('a heartbeat of a Pull cluster wakes it; one of a Push cluster, one elsewhere or a member object does not', () => {
    expect(pullClusterHealthKeys({ type: 'MODIFIED', object: lease('member2'), old: lease('member2') }, reader)).toEqual([pullKey]);
    expect(pullClusterHealthKeys({ type: 'DELETED', object: lease('member2') }, reader)).toEqual([pullKey]);
    expect(pullClusterHealthKeys({ type: 'MODIFIED', object: lease('member1') }, reader)).toEqual([]);
    expect(pullClusterHealthKeys({ type: 'MODIFIED', object: lease('member2', 'kube-node-lease') }, reader)).toEqual([]);
    expect(pullClusterHealthKeys({ type: 'MODIFIED', object: lease('member2'), cluster: 'member2' }, reader)).toEqual([]);
  });

  it('a Pull Cluster added, turned Pull or with a moved Ready condition wakes it; other updates and Push clusters do not', () => {
    const pull = cluster('Pull', { status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' });
    const unknown = cluster('Pull', { status: 'Unknown', lastTransitionTime: '2024-01-01T00:01:00Z' });
    const labelled = { ...pull, metadata: { ...pull.metadata, labels: { a: 'b' } } };
    expect(pullClusterHealthKeys({ type: 'ADDED', object: pull }, reader)).toEqual([pullKey]);
    expect(pullClusterHealthKeys({ type: 'MODIFIED', object: unknown, old: pull }, reader)).toEqual([pullKey]);
    expect(pullClusterHealthKeys({ type: 'MODIFIED', object: pull, old: cluster('Push', { status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }) }, reader)).toEqual([pullKey]);
    expect(pullClusterHealthKeys({ type: 'MODIFIED', object: labelled, old: pull }, reader)).toEqual([]);
    const deleting = { ...pull, metadata: { ...pull.metadata, deletionTimestamp: '2024-01-01T00:02:00Z' } };
    expect(pullClusterHealthKeys({ type: 'MODIFIED', object: deleting, old: pull }, reader)).toEqual([pullKey]);
    expect(pullClusterHealthKeys({ type: 'DELETED', object: pull }, reader)).toEqual([]);
    expect(pullClusterHealthKeys({ type: 'ADDED', object: push }, reader)).toEqual([]);
  });
});

describe('a Pull cluster deleted while its agent is silent', () => {
  function context(ready: 'True' | 'Unknown'): { ctx: ReconcileContext; store: EmbeddedStore } {
    const store = new EmbeddedStore();
    const c = cluster('Pull', { status: ready, lastTransitionTime: '2024-01-01T00:00:00Z' });
    c.metadata.finalizers = ['karmada.io/cluster-controller'];
    store.create(c);
    store.delete({ apiVersion: c.apiVersion, kind: c.kind, name: 'member2' });
    for (const [name, finalizers] of [['w1', ['karmada.io/execution-controller']], ['w2', []]] as const) {
      store.create({ apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work', metadata: { name, namespace: 'karmada-es-member2', finalizers: [...finalizers] }, spec: {} });
    }
    const reader: ObjectReader = { get: (t, ns, name, cl) => store.get(t, ns, name, cl), list: (t, o, cl) => store.list(t, o, cl), types: (cl) => store.types(cl) };
    return { store, ctx: { reader, now: new Date('2024-01-01T01:00:00Z'), interpreter: {} as never, schedule: (() => ({})) as never, options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [], executionSyncMode: 'Push' } } };
  }
  const key = 'cluster.karmada.io/v1alpha1|Cluster||member2';

  it('not Ready: its Works lose the execution finalizer (Karmada removeExecutionSpace), so that the deletion completes', () => {
    const { ctx, store } = context('Unknown');
    expect(store.get({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster' }, undefined, 'member2')?.metadata.deletionTimestamp).toBeTruthy();
    const r = reconcilePullClusterHealth(ctx, key);
    expect(r.writes).toHaveLength(1);
    expect(r.writes[0]).toMatchObject({ op: 'update', object: { metadata: { name: 'w1' } } });
    expect((r.writes[0] as { object: { metadata: { finalizers?: string[] } } }).object.metadata.finalizers).toBeUndefined();
  });

  it('Ready: left to its agent, which cleans the member first', () => {
    expect(reconcilePullClusterHealth(context('True').ctx, key).writes).toEqual([]);
  });
});
