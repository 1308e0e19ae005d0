// The scheduler with more than the general estimator (Karmada's calAvailableReplicas): each cluster's available
// replicas are the smallest answer of the general estimator (its resource summary) and every other estimator
// (the accurate one, node-estimator.ts), where an answer of -1 (UnauthenticReplica) is ignored.
import { describe, expect, it } from 'vitest';
import { PropagationPolicyPermanentIDLabel } from '../../src/api/constants.js';
import { leanPod } from '../../src/core/cluster-resource-summary.js';
import { estimateUnschedulable } from '../../src/core/estimator.js';
import { NodeCapacity, accurateEstimator, type MemberCapacity } from '../../src/core/node-estimator.js';
import type { KObject } from '../../src/core/object.js';
import { reconcileSchedule } from '../../src/core/scheduling.js';
import { withCoreDefaults, type ReconcileContext, type ScheduleExtras } from '../../src/core/ports.js';
import { calAvailableReplicas } from '../../src/scheduler/available.js';
import { createSnapshot, schedule } from '../../src/scheduler/index.js';
import { realScheduler } from '../../src/store/control-plane.js';
import { EmbeddedStore } from '../../src/store/embedded.js';
import { binding, cluster } from './fixtures.js';

const NOW = new Date('2024-06-01T12:00:00Z');
const DYN = { replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted', weightPreference: { dynamicWeight: 'AvailableReplicas' } } } as const;
const AGG = { replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' } } as const;

/** An estimator answering from a table; clusters it does not list: -1. */
const table = (answers: Record<string, number>) => (c: string) => answers[c] ?? -1;

describe('calAvailableReplicas with other estimators', () => {
  const clusters = createSnapshot([cluster({ name: 'm1', available: 10 }), cluster({ name: 'm2', available: 10 }), cluster({ name: 'm3', available: 10 })]).clusters;
  const spec = { replicas: 6 };

  it('the smallest answer per cluster; -1 leaves the general estimate standing', () => {
    expect(calAvailableReplicas(clusters, spec, { estimators: [table({ m1: 2, m2: -1, m3: 20 })] })).toEqual([2, 10, 10]);
  });

  it('several estimators: the minimum over all of them', () => {
    expect(calAvailableReplicas(clusters, spec, { estimators: [table({ m1: 4, m2: 7 }), table({ m1: 3, m2: 8 })] })).toEqual([3, 7, 10]);
  });

  it('an estimator answering 0 makes the cluster full', () => {
    expect(calAvailableReplicas(clusters, spec, { estimators: [table({ m3: 0 })] })).toEqual([10, 10, 0]);
  });

  it('the requirements reach the estimator', () => {
    const seen: unknown[] = [];
    calAvailableReplicas(clusters, { replicas: 1, replicaRequirements: { resourceRequest: { cpu: '250m' } } }, { estimators: [(c, r) => (seen.push([c, r?.resourceRequest]), -1)] });
    expect(seen).toEqual([
      ['m1', { cpu: '250m' }],
      ['m2', { cpu: '250m' }],
      ['m3', { cpu: '250m' }],
    ]);
  });
});

describe('division by what the clusters can hold', () => {
  const two = () => [cluster({ name: 'm1', available: 10 }), cluster({ name: 'm2', available: 10 })];

  it('dynamic weight: the accurate estimate of m1 (2) is its weight, m2 keeps its summary (10, the accurate one unknown)', () => {
    const r = schedule(binding({ replicas: 6, placement: DYN }), two(), null, NOW, { estimators: [table({ m1: 2, m2: -1 })] });
    expect(r.clusters).toEqual([
      { name: 'm1', replicas: 1 },
      { name: 'm2', replicas: 5 },
    ]);
    // Without it, the summaries alone: an even split.
    expect(schedule(binding({ replicas: 6, placement: DYN }), two(), null, NOW).clusters).toEqual([
      { name: 'm1', replicas: 3 },
      { name: 'm2', replicas: 3 },
    ]);
  });

  it('dynamic weight: more replicas than the estimators allow in all is unschedulable', () => {
    const r = schedule(binding({ replicas: 6, placement: DYN }), two(), null, NOW, { estimators: [table({ m1: 2, m2: 3 })] });
    expect(r.error?.kind).toBe('Unschedulable');
  });

  it('Aggregated: the cluster the accurate estimator still has room in takes them all', () => {
    const r = schedule(binding({ replicas: 6, placement: AGG }), two(), null, NOW, { estimators: [table({ m1: 3, m2: 8 })] });
    expect(r.clusters).toEqual([{ name: 'm2', replicas: 6 }]);
    const s = schedule(binding({ replicas: 6, placement: AGG }), two(), null, NOW, { estimators: [table({ m1: -1, m2: 3 })] });
    expect(s.clusters).toEqual([{ name: 'm1', replicas: 6 }]);
  });

  it('Aggregated: spread over the fewest clusters when none holds all', () => {
    // Karmada then divides among the clusters it took by their available replicas (4:3 of 6 by Webster: 3, 3).
    const r = schedule(binding({ replicas: 6, placement: AGG }), two(), null, NOW, { estimators: [table({ m1: 4, m2: 3 })] });
    expect(r.clusters).toEqual([
      { name: 'm1', replicas: 3 },
      { name: 'm2', replicas: 3 },
    ]);
    // The biggest answers first until they hold all (5 + 2): the smallest cluster is left out, the rest divided 5:2.
    const three = [...two(), cluster({ name: 'm3', available: 10 })];
    expect(schedule(binding({ replicas: 6, placement: AGG }), three, null, NOW, { estimators: [table({ m1: 5, m2: 1, m3: 2 })] }).clusters).toEqual([
      { name: 'm1', replicas: 4 },
      { name: 'm3', replicas: 2 },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// The hookup: the core's scheduler port and the accurate estimator over member Nodes and Pods

const node = (name: string, cpu: string): KObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {}, status: { allocatable: { cpu, memory: '64Gi', pods: '110' } } });

describe('the accurate estimator behind the scheduler port', () => {
  // m1's Nodes have room for 2 replicas of 1 CPU (its summary says 100); m2's informers have not filled (-1: its
  // summary decides, 4 CPUs free).
  const capacity: MemberCapacity = {
    nodeCapacity: (c) => (c === 'm1' ? new NodeCapacity([node('a', '1500m'), node('b', '1')], []) : undefined),
    pods: () => undefined,
    resourceQuotas: () => undefined,
  };
  const b = () => binding({ replicas: 6, placement: DYN, resourceRequest: { cpu: '1' } });
  const clusters = () => [
    cluster({ name: 'm1', allocatable: { cpu: '100', memory: '1Ti', pods: '100' } }),
    cluster({ name: 'm2', allocatable: { cpu: '4', memory: '1Ti', pods: '100' } }),
  ];

  it('realScheduler passes the estimators on: dynamic weight 2:4', () => {
    const port = realScheduler();
    const extras: ScheduleExtras = { estimators: [accurateEstimator(capacity)] };
    const pass = port(b() as never, clusters() as never, NOW, extras) as unknown as { clusters?: unknown };
    expect(pass.clusters).toEqual([
      { name: 'm1', replicas: 2 },
      { name: 'm2', replicas: 4 },
    ]);
  });

  it('reconcileSchedule hands the accurate estimator to the port when the runner has member capacity, unless --enable-scheduler-estimator=false', () => {
    const store = new EmbeddedStore();
    for (const c of clusters()) store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', ...c } as KObject);
    const rb = store.create({ ...(b() as KObject), metadata: { name: 'web-deployment', namespace: 'default', labels: { [PropagationPolicyPermanentIDLabel]: 'pp-id' } } });
    const calls: Array<ScheduleExtras | undefined> = [];
    const ctx = (options: Parameters<typeof withCoreDefaults>[0], cap?: MemberCapacity): ReconcileContext => ({
      reader: store,
      now: NOW,
      interpreter: {} as never,
      schedule: (_b, _c, _n, extras) => {
        calls.push(extras);
        return { action: 'Unchanged', status: {}, statusChanged: false, retry: false, events: [] };
      },
      options: withCoreDefaults(options),
      ...(cap ? { capacity: cap } : {}),
    });
    const key = `work.karmada.io/v1alpha2|ResourceBinding|default|${rb.metadata.name}`;
    reconcileSchedule(ctx({}, capacity), key);
    expect(calls.at(-1)?.estimators?.[0]?.('m1', { resourceRequest: { cpu: '1' } })).toBe(2);
    expect(calls.at(-1)?.estimators?.[0]?.('m2', { resourceRequest: { cpu: '1' } })).toBe(-1);
    reconcileSchedule(ctx({ schedulerEstimator: false }, capacity), key);
    expect(calls.at(-1)).toBeUndefined();
    reconcileSchedule(ctx({}), key);
    expect(calls.at(-1)).toBeUndefined();
  });
});

describe("the descheduler's unschedulable estimate reads the member's lean Pod informer", () => {
  const store = new EmbeddedStore();
  store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm1' }, spec: {}, status: {} });
  const rb = store.create({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: 'web-deployment', namespace: 'default' },
    spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' }, replicas: 3, clusters: [{ name: 'm1', replicas: 3 }] },
  });
  store.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } } } }, 'm1');
  const pod = (name: string, since?: string): KObject =>
    leanPod({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', labels: { app: 'web' }, annotations: { a: 'b' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: 'rs', controller: true }] },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
      status: since ? { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastTransitionTime: since }] } : { phase: 'Running' },
    });
  const capacity = (pods: KObject[] | undefined): MemberCapacity => ({ nodeCapacity: () => undefined, pods: (c, ns) => (c === 'm1' && ns === 'default' ? pods : undefined), resourceQuotas: () => undefined });
  const m1 = store.get({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster' }, undefined, 'm1')!;

  it('the Pending, Unschedulable Pods of the Deployment, from the informer (the reader holds none)', () => {
    const e = estimateUnschedulable(store, rb, m1, capacity([pod('web-abc-1'), pod('web-abc-2', '2024-06-01T11:00:00Z'), pod('web-abc-3', '2024-06-01T11:30:00Z')]));
    expect(e).toMatchObject({ source: 'pods', pendingSince: ['2024-06-01T11:00:00Z', '2024-06-01T11:30:00Z'] });
  });

  it('an informer not filled yet: not from Pods (the status, or unknown)', () => {
    expect(estimateUnschedulable(store, rb, m1, capacity(undefined)).source).not.toBe('pods');
  });
});

describe('the estimator flags, as the controller and plan take them', () => {
  it('--enable-scheduler-estimator is on unless =false; the ResourceQuotaEstimate gate turns the quota bound on', async () => {
    const { Command } = await import('commander');
    const { addCoreFlags, coreOptionsFromFlags } = await import('../../src/cli/core-flags.js');
    const parse = (...argv: string[]) => {
      const cmd = addCoreFlags(new Command()).exitOverride();
      cmd.parse(argv, { from: 'user' });
      return coreOptionsFromFlags(cmd.opts() as never, () => undefined);
    };
    expect(parse().schedulerEstimator).toBeUndefined();
    expect(withCoreDefaults(parse()).schedulerEstimator).not.toBe(false);
    expect(parse('--enable-scheduler-estimator=false').schedulerEstimator).toBe(false);
    expect(parse('--enable-scheduler-estimator').schedulerEstimator).toBe(true);
    expect(() => parse('--enable-scheduler-estimator=maybe')).toThrow('--enable-scheduler-estimator must be true or false, got maybe');
    expect(parse().resourceQuotaEstimate).toBe(false);
    expect(parse('--feature-gates', 'ResourceQuotaEstimate=true').resourceQuotaEstimate).toBe(true);
  });
});
