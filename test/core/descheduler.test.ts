import { describe, expect, it } from 'vitest';
import { coreOptionsFromFlags } from '../../src/cli/core-flags.js';
import { deschedulerKeys, reconcileDeschedule } from '../../src/core/descheduler.js';
import { estimateUnschedulable } from '../../src/core/estimator.js';
import type { KObject } from '../../src/core/object.js';
import { ReaderNotReadyError, withCoreDefaults, type CoreOptions, type ObjectReader, type ReconcileContext } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';

const NOW = Date.parse('2024-01-01T00:10:00Z');
const KEY = 'work.karmada.io/v1alpha2|ResourceBinding|default|web-deployment';
const DYNAMIC = { replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted', weightPreference: { dynamicWeight: 'AvailableReplicas' } } };
const ready = { type: 'Ready', status: 'True', reason: 'ClusterReady', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' };
const FULL = { allocatable: { pods: '10' }, allocated: { pods: '10' } };
/** Member1 reports 2 of 3 replicas unavailable since 00:00 (10 minutes before NOW). */
const UNAVAILABLE_SINCE_0000 = {
  observedGeneration: 1,
  replicas: 3,
  readyReplicas: 1,
  availableReplicas: 1,
  unavailableReplicas: 2,
  conditions: [{ type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', lastTransitionTime: '2024-01-01T00:00:00Z' }],
};

interface Setup {
  placement?: Record<string, unknown>;
  kind?: string;
  summary?: Record<string, unknown> | null;
  memberStatus?: Record<string, unknown>;
  memberReplicas?: number;
  pods?: KObject[];
  options?: Partial<CoreOptions>;
}

function setup(o: Setup = {}) {
  const store = new EmbeddedStore();
  const summary = o.summary === undefined ? FULL : o.summary;
  store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm1' }, spec: {}, status: { conditions: [ready], ...(summary ? { resourceSummary: summary } : {}) } });
  store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm2' }, spec: {}, status: { conditions: [ready], resourceSummary: { allocatable: { pods: '10' } } } });
  const kind = o.kind ?? 'ResourceBinding';
  const b = store.create({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind,
    metadata: {
      name: 'web-deployment',
      ...(kind === 'ResourceBinding' ? { namespace: 'default' } : {}),
      annotations: { 'policy.karmada.io/applied-placement': JSON.stringify(o.placement ?? DYNAMIC) },
    },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
      replicas: 6,
      clusters: [
        { name: 'm1', replicas: 3 },
        { name: 'm2', replicas: 3 },
      ],
    },
  });
  store.updateStatus({ ...b, status: { aggregatedStatus: [{ clusterName: 'm1', status: { readyReplicas: 1 } }, { clusterName: 'm2', status: { readyReplicas: 3 } }] } });
  const d = store.create(
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: o.memberReplicas ?? 3, selector: { matchLabels: { app: 'web' } } } },
    'm1',
  );
  store.updateStatus({ ...d, status: o.memberStatus ?? UNAVAILABLE_SINCE_0000 }, 'm1');
  for (const p of o.pods ?? []) {
    const created = store.create({ ...p, status: undefined }, 'm1');
    if (p.status) store.updateStatus({ ...created, status: p.status }, 'm1');
  }
  const ctx: ReconcileContext = { reader: store, now: new Date(NOW), interpreter: {} as never, schedule: (() => ({})) as never, options: withCoreDefaults(o.options) };
  return { store, ctx };
}

function pod(name: string, owner: string, since?: string, labels: Record<string, string> = { app: 'web' }): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: `uid-${owner}`, controller: true }] },
    spec: {},
    status: since ? { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastTransitionTime: since }] } : { phase: 'Running' },
  };
}

const written = (r: ReturnType<typeof reconcileDeschedule>) => (r.writes[0] as { object: KObject } | undefined)?.object;
const estimate = (store: EmbeddedStore) => estimateUnschedulable(store, store.get({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding' }, 'default', 'web-deployment')!, store.get({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster' }, undefined, 'm1')!);

describe('descheduler controller', () => {
  it('takes the replicas unschedulable past the threshold out of spec.clusters, with the event on the binding and its template once stored', () => {
    const { ctx } = setup();
    const r = reconcileDeschedule(ctx, KEY);
    expect(written(r)!.spec.clusters).toEqual([
      { name: 'm1', replicas: 1 },
      { name: 'm2', replicas: 3 },
    ]);
    expect(r.events).toEqual([]);
    const w = r.writes[0] as { then?: (o: KObject) => { events?: unknown[] }; failureEvents?: unknown[] };
    const message = 'Binding has been descheduled, 2 replica(s) in cluster(m1), 2 total descheduled replica(s)';
    expect(w.then!(written(r)!).events).toMatchObject([
      { involvedObject: { apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', namespace: 'default', name: 'web-deployment' }, type: 'Normal', reason: 'DescheduleBindingSucceed', message, source: 'karmada-descheduler' },
      { involvedObject: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' }, type: 'Normal', reason: 'DescheduleBindingSucceed', message, source: 'karmada-descheduler' },
    ]);
    expect(w.failureEvents).toMatchObject([{ type: 'Warning', reason: 'DescheduleBindingFailed' }, { type: 'Warning', reason: 'DescheduleBindingFailed' }]);
    expect(r.requeueAfterSeconds).toBe(120);
  });
  it('--unschedulable-threshold and --descheduling-interval decide when and how often', () => {
    const late = setup({ options: { unschedulableThresholdSeconds: 900, deschedulingIntervalSeconds: 30 } });
    const r = reconcileDeschedule(late.ctx, KEY);
    expect(r.writes).toEqual([]);
    expect(r.requeueAfterSeconds).toBe(30);
    expect(reconcileDeschedule(setup({ options: { deschedulingIntervalSeconds: 0 } }).ctx, KEY).requeueAfterSeconds).toBe(1);
  });
  it('leaves bindings alone that Karmada does not deschedule: static weights, Duplicated, ClusterResourceBindings', () => {
    const stat = { replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted', weightPreference: { staticWeightList: [] } } };
    expect(reconcileDeschedule(setup({ placement: stat }).ctx, KEY)).toEqual({ writes: [], events: [] });
    expect(reconcileDeschedule(setup({ placement: { replicaScheduling: { replicaSchedulingType: 'Duplicated' } } }).ctx, KEY)).toEqual({ writes: [], events: [] });
    const crb = setup({ kind: 'ClusterResourceBinding' });
    expect(reconcileDeschedule(crb.ctx, 'work.karmada.io/v1alpha2|ClusterResourceBinding||web-deployment')).toEqual({ writes: [], events: [] });
  });
  it('all replicas ready: nothing to ask, no periodic look', () => {
    const { store, ctx } = setup();
    const b = store.get({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding' }, 'default', 'web-deployment')!;
    store.updateStatus({ ...b, status: { aggregatedStatus: [{ clusterName: 'm1', status: { readyReplicas: 3 } }, { clusterName: 'm2', status: { readyReplicas: 3 } }] } });
    expect(reconcileDeschedule(ctx, KEY)).toEqual({ writes: [], events: [] });
  });
  it('wakes on a binding it may act on when its clusters, collected status or placement change, not on other writes', () => {
    const { store } = setup();
    const b = store.get({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding' }, 'default', 'web-deployment')!;
    expect(deschedulerKeys({ type: 'ADDED', object: b })).toEqual([KEY]);
    expect(deschedulerKeys({ type: 'MODIFIED', object: { ...b, metadata: { ...b.metadata, labels: { x: 'y' } } }, old: b })).toEqual([]);
    expect(deschedulerKeys({ type: 'MODIFIED', object: { ...b, status: { aggregatedStatus: [] } }, old: b })).toEqual([KEY]);
    expect(deschedulerKeys({ type: 'DELETED', object: b })).toEqual([]);
    expect(deschedulerKeys({ type: 'ADDED', object: b, cluster: 'm1' })).toEqual([]);
  });
});

describe('unschedulable-replica estimate (member side)', () => {
  it('from the status: unavailable replicas since Available turned False, less the room the resource summary still has', () => {
    expect(estimate(setup().store)).toMatchObject({ source: 'status', pendingSince: ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z'] });
    // Room for one more: one replica is not waiting for room.
    expect(estimate(setup({ summary: { allocatable: { pods: '10' }, allocated: { pods: '9' } } }).store)).toMatchObject({ source: 'status', pendingSince: ['2024-01-01T00:00:00Z'] });
    expect(estimate(setup({ summary: { allocatable: { pods: '10' } } }).store)).toMatchObject({ source: 'status', pendingSince: [] });
  });
  it('unknown (-1) without a resource summary, without an Available condition, or with a status about an older spec', () => {
    expect(estimate(setup({ summary: null }).store)).toMatchObject({ source: 'unknown', unschedulableReplicas: -1 });
    expect(estimate(setup({ memberStatus: { ...UNAVAILABLE_SINCE_0000, conditions: [] } }).store)).toMatchObject({ source: 'unknown' });
    // The member has not yet applied the binding's share (3), or not yet observed its newest spec.
    expect(estimate(setup({ memberReplicas: 5 }).store)).toMatchObject({ source: 'unknown' });
    const { store } = setup();
    const d = store.get({ apiVersion: 'apps/v1', kind: 'Deployment' }, 'default', 'web', 'm1')!;
    store.update({ ...d, spec: { ...d.spec, template: { metadata: { labels: { v: '2' } } } } }, 'm1');
    expect(estimate(store)).toMatchObject({ source: 'unknown' });
  });
  it('Available True (within maxUnavailable) counts nothing as unschedulable', () => {
    const s = { ...UNAVAILABLE_SINCE_0000, conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', lastTransitionTime: '2024-01-01T00:00:00Z' }] };
    expect(estimate(setup({ memberStatus: s }).store)).toMatchObject({ source: 'status', pendingSince: [] });
  });
  it('from the pods when the member shows them: Unschedulable PodScheduled conditions of the Deployment pods only', () => {
    const pods = [pod('web-a-1', 'web-a'), pod('web-a-2', 'web-a', '2024-01-01T00:01:00Z'), pod('web-a-3', 'web-a', '2024-01-01T00:08:00Z'), pod('other-1', 'other-x', '2024-01-01T00:00:00Z', { app: 'other' })];
    const { store, ctx } = setup({ pods, summary: null });
    expect(estimate(store)).toMatchObject({ source: 'pods', pendingSince: ['2024-01-01T00:01:00Z', '2024-01-01T00:08:00Z'] });
    // Only the pod pending since 00:01 is past the 5 minute threshold at 00:10.
    expect(written(reconcileDeschedule(ctx, KEY))!.spec.clusters[0]).toEqual({ name: 'm1', replicas: 2 });
  });
  it('with ReplicaSets visible, only the pods of the newest revision count (Karmada lists the new ReplicaSet)', () => {
    const pods = [pod('web-old-1', 'web-old', '2024-01-01T00:01:00Z'), pod('web-new-1', 'web-new', '2024-01-01T00:02:00Z')];
    const { store } = setup({ pods });
    const deploy = store.get({ apiVersion: 'apps/v1', kind: 'Deployment' }, 'default', 'web', 'm1')!;
    for (const [name, rev] of [['web-old', '1'], ['web-new', '2']] as const) {
      store.create({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name, namespace: 'default', annotations: { 'deployment.kubernetes.io/revision': rev }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: deploy.metadata.uid, controller: true }] }, spec: {} }, 'm1');
    }
    expect(estimate(store)).toMatchObject({ source: 'pods', pendingSince: ['2024-01-01T00:02:00Z'] });
  });
  it('pods the member cannot show yet (cache filling, not allowed) fall back to the status', () => {
    const { store } = setup({ pods: [pod('web-a-1', 'web-a', '2024-01-01T00:01:00Z')] });
    const blind: ObjectReader = {
      get: (t, ns, n, c) => store.get(t, ns, n, c),
      list: (t, o, c) => {
        if (t.kind === 'Pod' && c) throw new ReaderNotReadyError('the cache of Pod in m1 is not synced yet');
        return store.list(t, o, c);
      },
      types: (c) => store.types(c),
    };
    const b = store.get({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding' }, 'default', 'web-deployment')!;
    expect(estimateUnschedulable(blind, b, store.get({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster' }, undefined, 'm1')!)).toMatchObject({ source: 'status' });
  });
});

describe('descheduler flags', () => {
  it('Karmada defaults (2m, 5m), Go durations, negative refused', () => {
    const base = { clusterFailureThreshold: '30s', gracefulEvictionTimeout: '10m' };
    expect(coreOptionsFromFlags({ ...base, deschedulingInterval: '2m', unschedulableThreshold: '5m' })).toMatchObject({ deschedulingIntervalSeconds: 120, unschedulableThresholdSeconds: 300 });
    expect(coreOptionsFromFlags({ ...base, deschedulingInterval: '1m30s', unschedulableThreshold: '0' })).toMatchObject({ deschedulingIntervalSeconds: 90, unschedulableThresholdSeconds: 0 });
    expect(() => coreOptionsFromFlags({ ...base, deschedulingInterval: '-1s' })).toThrow(/--descheduling-interval/);
    expect(withCoreDefaults()).toMatchObject({ deschedulingIntervalSeconds: 120, unschedulableThresholdSeconds: 300 });
  });
});
