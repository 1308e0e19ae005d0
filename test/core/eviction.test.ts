import { describe, expect, it } from 'vitest';
import { directlyPurgePending } from '../../src/core/binding.js';
import { reconcileGracefulEviction } from '../../src/core/eviction.js';
import type { Binding } from '../../src/core/kinds.js';
import type { Work } from '../../src/api/generated/types.js';
import { ScenarioRun } from '../../src/simulate/scenario.js';
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

describe('cluster failover purgeMode Directly with a cluster that is down (issue 33)', () => {
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } }, spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } } } };
  const policy = (purgeMode: string) => ({
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
      failover: { cluster: { purgeMode } },
      placement: {
        clusterAffinity: { clusterNames: ['member1', 'member2'] },
        replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted', weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ['member1'] }, weight: 1 }, { targetCluster: { clusterNames: ['member2'] }, weight: 1 }] } },
      },
    },
  });
  const onMember = (replicas: number) => [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas } }];
  const web1 = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web', cluster: 'member1' };

  it('the healthy cluster gets every replica while the evicted one stays down; its copy goes when it is back', () => {
    new ScenarioRun({
      name: 'Directly, member1 down',
      options: { clusterFailureThresholdSeconds: 30 },
      clusters: ['member1', 'member2'],
      objects: [deployment, policy('Directly')],
      expect: { members: { member1: onMember(2), member2: onMember(2) } },
      steps: [
        {
          // member2 not healthy yet (its new Pods starting): the task stays, as on a real fleet for the whole grace period.
          name: 'member1 down past the threshold: evicted Directly, and member2 renders 4 while member1 is still down',
          clusterReady: { name: 'member1', ready: false },
          memberStatus: { cluster: 'member2', apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web', health: 'Unhealthy' },
          advance: 31,
          expect: {
            bindings: [{ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', metadata: { name: 'web-deployment', namespace: 'default' }, spec: { clusters: [{ name: 'member2', replicas: 4 }], gracefulEvictionTasks: [{ fromCluster: 'member1', purgeMode: 'Directly' }] } }],
            members: { member2: onMember(4), member1: onMember(2) },
          },
        },
        { name: 'still down a minute on: nothing changes', advance: 60, expect: { members: { member2: onMember(4), member1: onMember(2) } } },
        { name: 'member1 back: its copy is deleted, member2 keeps 4', clusterReady: { name: 'member1', ready: true }, advance: 10, expect: { absent: [web1], members: { member2: onMember(4) } } },
      ],
    }).run();
  });

  it('while the evicted cluster is Ready (a NoExecute taint on a live cluster), rendering still waits for its Work to go, as Karmada does', () => {
    const b = {
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ResourceBinding',
      metadata: { name: 'web-deployment', namespace: 'default' },
      spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' }, gracefulEvictionTasks: [{ fromCluster: 'member1', purgeMode: 'Directly', reason: 'TaintUntolerated' }] },
    } as Binding;
    const work = { apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work', metadata: { name: 'web-1', namespace: 'karmada-es-member1' }, spec: {} } as Work;
    const readyCluster = (status: string) => {
      const store = new EmbeddedStore();
      store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'member1' }, spec: {}, status: { conditions: [{ type: 'Ready', status, reason: 'x', message: 'x', lastTransitionTime: '2024-01-01T00:00:00Z' }] } });
      return store;
    };
    expect(directlyPurgePending(readyCluster('True'), b, [work])).toBe(true);
    expect(directlyPurgePending(readyCluster('False'), b, [work])).toBe(false);
    expect(directlyPurgePending(readyCluster('True'), { ...b, spec: { ...b.spec, gracefulEvictionTasks: [{ fromCluster: 'member1', purgeMode: 'Gracefully', reason: 'TaintUntolerated' }] } } as Binding, [work])).toBe(false);
    expect(directlyPurgePending(readyCluster('True'), b, [])).toBe(false);
  });
});
