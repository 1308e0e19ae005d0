import { describe, expect, it } from 'vitest';
import type { KObject } from '../../src/core/object.js';
import { withCoreDefaults, type ReconcileContext, type Write } from '../../src/core/ports.js';
import { reconcileWorkloadRebalancer, syncObservedWorkloads, workloadRebalancerKeys } from '../../src/core/workload-rebalancer.js';
import { EmbeddedStore } from '../../src/store/embedded.js';

const WR = { apiVersion: 'apps.karmada.io/v1alpha1', kind: 'WorkloadRebalancer' };
const KEY = 'apps.karmada.io/v1alpha1|WorkloadRebalancer||rb';
const web = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' };
const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'reader' };
const missing = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'missing' };

function setup(now: string, triggeredAt?: string) {
  let clock = new Date('2024-01-01T00:05:00Z');
  const store = new EmbeddedStore({ clock: () => clock });
  store.create({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', metadata: { name: 'web-deployment', namespace: 'default' }, spec: { resource: web, ...(triggeredAt ? { rescheduleTriggeredAt: triggeredAt } : {}) } });
  store.create({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ClusterResourceBinding', metadata: { name: 'reader-clusterrole' }, spec: { resource: role } });
  const ctx = (): ReconcileContext => ({ reader: store, now: new Date(now), interpreter: {} as never, schedule: (() => ({})) as never, options: withCoreDefaults() });
  const create = (spec: Record<string, unknown>) => store.create({ ...WR, metadata: { name: 'rb' }, spec });
  return { store, ctx, create, setClock: (t: string) => (clock = new Date(t)) };
}

/** Applies a reconcile's writes to the store, as the runner would. */
function apply(store: EmbeddedStore, writes: Write[]): void {
  for (const w of writes) {
    if (w.op === 'update') store.update(w.object);
    else if (w.op === 'updateStatus') store.updateStatus(w.object);
    else if (w.op === 'delete') store.delete(w.ref);
  }
}

const updates = (writes: Write[]) => writes.filter((w): w is Extract<Write, { op: 'update' }> => w.op === 'update').map((w) => w.object);
const statusOf = (writes: Write[]) => writes.find((w): w is Extract<Write, { op: 'updateStatus' }> => w.op === 'updateStatus')?.object.status;

describe('WorkloadRebalancer controller', () => {
  it("sets each binding's rescheduleTriggeredAt to the rebalancer's creationTimestamp and reports the results sorted", () => {
    const { ctx, create } = setup('2024-01-01T00:05:03Z');
    create({ workloads: [web, missing, role] });
    const r = reconcileWorkloadRebalancer(ctx(), KEY);
    expect(updates(r.writes).map((b) => [b.kind, b.spec.rescheduleTriggeredAt])).toEqual([
      ['ResourceBinding', '2024-01-01T00:05:00Z'],
      ['ClusterResourceBinding', '2024-01-01T00:05:00Z'],
    ]);
    // The binding updates come first: a failed one leaves the status unwritten and the reconcile is retried.
    expect(r.writes.map((w) => w.op)).toEqual(['update', 'update', 'updateStatus']);
    expect(statusOf(r.writes)).toEqual({
      observedGeneration: 1,
      finishTime: '2024-01-01T00:05:03Z',
      observedWorkloads: [
        { workload: missing, result: 'Failed', reason: 'ReferencedBindingNotFound' },
        { workload: web, result: 'Successful' },
        { workload: role, result: 'Successful' },
      ],
    });
    expect(r.requeueAfterSeconds).toBeUndefined();
  });
  it('a binding triggered after the rebalancer was created keeps its newer trigger, and still counts as Successful', () => {
    const { ctx, create } = setup('2024-01-01T00:05:03Z', '2024-01-01T00:06:00Z');
    create({ workloads: [web] });
    const r = reconcileWorkloadRebalancer(ctx(), KEY);
    expect(updates(r.writes)).toEqual([]);
    expect(statusOf(r.writes)!.observedWorkloads).toEqual([{ workload: web, result: 'Successful' }]);
  });
  it('once finished, a second look changes nothing: no binding writes, finishTime kept', () => {
    const { store, ctx, create } = setup('2024-01-01T00:05:03Z');
    create({ workloads: [web] });
    apply(store, reconcileWorkloadRebalancer(ctx(), KEY).writes);
    expect(reconcileWorkloadRebalancer(ctx(), KEY)).toEqual({ writes: [], events: [] });
  });
  it('ttlSecondsAfterFinished: requeued until finishTime + ttl, then deleted; 0 deletes right after finishing', () => {
    const a = setup('2024-01-01T00:05:03Z');
    a.create({ workloads: [web], ttlSecondsAfterFinished: 30 });
    const first = reconcileWorkloadRebalancer(a.ctx(), KEY);
    expect(first.requeueAfterSeconds).toBe(30);
    apply(a.store, first.writes);
    const later = reconcileWorkloadRebalancer({ ...a.ctx(), now: new Date('2024-01-01T00:05:33Z') }, KEY);
    expect(later.writes).toEqual([{ op: 'delete', ref: expect.objectContaining({ kind: 'WorkloadRebalancer', name: 'rb' }) }]);
    const b = setup('2024-01-01T00:05:03Z');
    b.create({ workloads: [web], ttlSecondsAfterFinished: 0 });
    expect(reconcileWorkloadRebalancer(b.ctx(), KEY).writes.map((w) => w.op)).toEqual(['update', 'updateStatus', 'delete']);
  });
  it('a spec edit: new workloads are handled, removed ones stay only if they succeeded, and finishTime moves', () => {
    const { store, ctx, create, setClock } = setup('2024-01-01T00:05:03Z');
    create({ workloads: [web, missing] });
    apply(store, reconcileWorkloadRebalancer(ctx(), KEY).writes);
    setClock('2024-01-01T00:06:00Z');
    const cur = store.get(WR, undefined, 'rb')!;
    store.update({ ...cur, spec: { workloads: [role] } });
    const r = reconcileWorkloadRebalancer({ ...ctx(), now: new Date('2024-01-01T00:06:01Z') }, KEY);
    expect(statusOf(r.writes)).toEqual({
      observedGeneration: 2,
      finishTime: '2024-01-01T00:06:01Z',
      observedWorkloads: [
        { workload: web, result: 'Successful' },
        { workload: role, result: 'Successful' },
      ],
    });
  });
  it('syncObservedWorkloads: an absent namespace equals an empty one; order does not matter', () => {
    const clusterScoped = { apiVersion: 'v1', kind: 'Namespace', name: 'a' };
    expect(syncObservedWorkloads([web, { ...clusterScoped, namespace: '' }], [{ workload: clusterScoped, result: 'Failed', reason: 'ReferencedBindingNotFound' }])).toEqual([
      { workload: web },
      { workload: clusterScoped, result: 'Failed', reason: 'ReferencedBindingNotFound' },
    ]);
  });
  it('wakes on creation and spec edits only (Karmada ignores deletions and status writes)', () => {
    const obj = { ...WR, metadata: { name: 'rb', generation: 1 }, spec: { workloads: [web] } } as KObject;
    expect(workloadRebalancerKeys({ type: 'ADDED', object: obj })).toEqual([KEY]);
    expect(workloadRebalancerKeys({ type: 'MODIFIED', object: { ...obj, status: { finishTime: 'x' } }, old: obj })).toEqual([]);
    expect(workloadRebalancerKeys({ type: 'MODIFIED', object: { ...obj, spec: { workloads: [role] } }, old: obj })).toEqual([KEY]);
    expect(workloadRebalancerKeys({ type: 'DELETED', object: obj })).toEqual([]);
  });
});
