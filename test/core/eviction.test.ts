import { describe, expect, it } from 'vitest';
import { reconcileGracefulEviction } from '../../src/core/eviction.js';
import type { ReconcileContext } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';

const KEY = 'work.karmada.io/v1alpha2|ResourceBinding|default|nginx-deployment';

/** A binding evicted from every cluster: an empty new schedule, two tasks stamped at 00:00:00. */
function everyClusterEvicted(observed: boolean) {
  const store = new EmbeddedStore();
  const b = store.create({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: 'nginx-deployment', namespace: 'default' },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' },
      gracefulEvictionTasks: [
        { fromCluster: 'member1', purgeMode: 'Gracefully', reason: 'TaintUntolerated', producer: 'TaintManager', creationTimestamp: '2024-01-01T00:00:00Z' },
        { fromCluster: 'member2', purgeMode: 'Gracefully', reason: 'TaintUntolerated', producer: 'TaintManager', creationTimestamp: '2024-01-01T00:00:00Z' },
      ],
    },
  });
  store.updateStatus({ ...b, status: { schedulerObservedGeneration: observed ? b.metadata.generation : 0, aggregatedStatus: [{ clusterName: 'member1', health: 'Unhealthy' }] } });
  return store;
}

const ctx = (store: EmbeddedStore, now: string): ReconcileContext => ({
  reader: store,
  now: new Date(now),
  interpreter: {} as never,
  schedule: (() => ({})) as never,
  options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [] },
});

const tasksWritten = (r: ReturnType<typeof reconcileGracefulEviction>) => (r.writes[0] as { object: { spec: { gracefulEvictionTasks?: unknown[] } } } | undefined)?.object.spec.gracefulEvictionTasks;

describe('graceful eviction with an empty new schedule (Karmada assessEvictionTasks)', () => {
  it('keeps every task while the scheduler has not observed the generation (its schedule failed), and asks to be woken at the timeout', () => {
    const r = reconcileGracefulEviction(ctx(everyClusterEvicted(false), '2024-01-01T00:01:00Z'), KEY);
    expect(r.writes).toEqual([]);
    expect(r.requeueAfterSeconds).toBe(540);
  });
  it('ends every task at the timeout, with an EvictWorkloadFromClusterSucceed event per cluster on binding and template', () => {
    const r = reconcileGracefulEviction(ctx(everyClusterEvicted(false), '2024-01-01T00:10:00Z'), KEY);
    expect(r.writes).toHaveLength(1);
    expect(tasksWritten(r)).toBeUndefined();
    expect(r.events.map((e) => `${e.involvedObject.kind} ${e.reason}: ${e.message}`)).toEqual([
      'ResourceBinding EvictWorkloadFromClusterSucceed: Evict from cluster member1 succeed.',
      'Deployment EvictWorkloadFromClusterSucceed: Evict from cluster member1 succeed.',
      'ResourceBinding EvictWorkloadFromClusterSucceed: Evict from cluster member2 succeed.',
      'Deployment EvictWorkloadFromClusterSucceed: Evict from cluster member2 succeed.',
    ]);
  });
  it('counts an observed empty schedule as healthy everywhere and ends the tasks at once, as allScheduledResourceInHealthyState does', () => {
    const r = reconcileGracefulEviction(ctx(everyClusterEvicted(true), '2024-01-01T00:01:00Z'), KEY);
    expect(r.writes).toHaveLength(1);
    expect(tasksWritten(r)).toBeUndefined();
  });
});
