import { describe, expect, it } from 'vitest';
import type { ClusterResourceBinding, Cluster as GeneratedCluster, ResourceBinding } from '../../src/api/generated/types.js';
import {
  bindingEventFilter,
  bindingsAffectedByClusterEvent,
  createSnapshot,
  deschedule,
  FILTER_PLUGIN_ORDER,
  placementChanged,
  schedule,
  type PreviousSchedule,
} from '../../src/scheduler/index.js';
import { compileLabelSelector, clusterMatches, isQualifiedName, labelsOf } from '../../src/scheduler/selector.js';
import { clusterInfo } from '../../src/scheduler/snapshot.js';
import { mergeTargetClusters, sortByReplicasDesc, divideReplicas } from '../../src/scheduler/division.js';
import { jsonEqual } from '../../src/scheduler/triggers.js';
import { allocateWebsterSeats, tieBreakerFor } from '../../src/scheduler/webster.js';
import type { Binding, Cluster } from '../../src/scheduler/types.js';
import { binding, cluster } from './fixtures.js';

const NOW = new Date('2024-06-01T12:00:00Z');
const DYN = {
  replicaScheduling: {
    replicaSchedulingType: 'Divided',
    replicaDivisionPreference: 'Weighted',
    weightPreference: { dynamicWeight: 'AvailableReplicas' },
  },
} as const;
const AGG = { replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' } } as const;

describe('types', () => {
  it('accepts the generated API types', () => {
    // Compile-time check: the generated objects are assignable to the scheduler's narrow views.
    const takesBinding = (_b: Binding): void => {};
    const takesCluster = (_c: Cluster): void => {};
    const rb = undefined as unknown as ResourceBinding;
    const crb = undefined as unknown as ClusterResourceBinding;
    const c = undefined as unknown as GeneratedCluster;
    if (rb) takesBinding(rb);
    if (crb) takesBinding(crb);
    if (c) takesCluster(c);
    expect(true).toBe(true);
  });
});

describe('label selectors', () => {
  const labels = labelsOf({ env: 'prod', size: '10' });
  it('follows Kubernetes operator semantics', () => {
    expect(compileLabelSelector({ matchExpressions: [{ key: 'env', operator: 'Exists' }] })(labels)).toBe(true);
    expect(compileLabelSelector({ matchExpressions: [{ key: 'team', operator: 'DoesNotExist' }] })(labels)).toBe(true);
    expect(compileLabelSelector({ matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] })(labels)).toBe(false);
    expect(compileLabelSelector({ matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['a'] }] })(labels)).toBe(true);
  });
  it('matches nothing when Kubernetes would refuse to build the selector', () => {
    expect(compileLabelSelector({ matchExpressions: [{ key: 'env', operator: 'Exists', values: ['x'] }] })(labels)).toBe(false);
    expect(compileLabelSelector({ matchExpressions: [{ key: 'env', operator: 'Gt', values: ['1'] }] })(labels)).toBe(false);
    expect(compileLabelSelector({ matchExpressions: [{ key: 'bad key', operator: 'Exists' }] })(labels)).toBe(false);
    expect(compileLabelSelector({ matchLabels: { env: 'not a value!' } })(labels)).toBe(false);
  });
  it('checks qualified names', () => {
    expect(isQualifiedName('karmada.io/region')).toBe(true);
    expect(isQualifiedName('a/b/c')).toBe(false);
    expect(isQualifiedName('-x')).toBe(false);
  });
  it('supports Gt and Lt in field selectors only', () => {
    const c = clusterInfo(cluster({ name: 'm1', region: '12' }));
    expect(clusterMatches(c, { fieldSelector: { matchExpressions: [{ key: 'region', operator: 'Gt', values: ['5'] }] } })).toBe(true);
    expect(clusterMatches(c, { fieldSelector: { matchExpressions: [{ key: 'region', operator: 'Lt', values: ['5'] }] } })).toBe(false);
    expect(clusterMatches(c, { fieldSelector: { matchExpressions: [] } })).toBe(true);
  });
});

describe('deterministic choices where Karmada depends on Go map or sort order', () => {
  it('runs filter plugins in plugin-name order', () => {
    expect([...FILTER_PLUGIN_ORDER]).toEqual([...FILTER_PLUGIN_ORDER].sort());
  });
  it('keeps equal replicas in input order beyond 12 entries (stable sort)', () => {
    const list = Array.from({ length: 30 }, (_, i) => ({ name: `c${String(i).padStart(2, '0')}`, replicas: i % 3 }));
    const sorted = sortByReplicasDesc(list.slice());
    for (const r of [2, 1, 0]) {
      const group = sorted.filter((x) => x.replicas === r).map((x) => x.name);
      expect(group).toEqual(list.filter((x) => x.replicas === r).map((x) => x.name));
    }
  });
  it('appends unmatched old entries in spec.clusters order', () => {
    const merged = mergeTargetClusters(
      [
        { name: 'z', replicas: 1 },
        { name: 'b', replicas: 2 },
        { name: 'a', replicas: 3 },
        { name: 'm', replicas: 4 },
      ],
      [{ name: 'a', replicas: 1 }],
    );
    expect(merged).toEqual([
      { name: 'a', replicas: 4 },
      { name: 'z', replicas: 1 },
      { name: 'b', replicas: 2 },
      { name: 'm', replicas: 4 },
    ]);
  });
  it('gives Aggregated over 15 equal clusters to the first ones in selection order', () => {
    const clusters = Array.from({ length: 15 }, (_, i) => cluster({ name: `m${String(i).padStart(2, '0')}`, available: 4 }));
    const r = schedule(binding({ replicas: 10, placement: AGG }), clusters.slice().reverse(), undefined, NOW);
    expect(r.clusters).toEqual([
      { name: 'm00', replicas: 4 },
      { name: 'm01', replicas: 3 },
      { name: 'm02', replicas: 3 },
    ]);
  });
  it('gives the same result for any order of the cluster list', () => {
    const clusters = ['m3', 'm1', 'm2', 'm5', 'm4'].map((n, i) => cluster({ name: n, available: 5 + (i % 2) }));
    const a = schedule(binding({ replicas: 13, placement: DYN }), clusters, undefined, NOW, { explain: true });
    const b = schedule(binding({ replicas: 13, placement: DYN }), clusters.slice().reverse(), undefined, NOW, { explain: true });
    expect(b.clusters).toEqual(a.clusters);
    expect(b.feasible).toEqual(a.feasible);
  });
});

describe('webster', () => {
  it('hands out many seats quickly and exactly', () => {
    const parties = Array.from({ length: 50 }, (_, i) => ({ name: `p${i}`, votes: (i * 37) % 101 }));
    const big = allocateWebsterSeats(100_000, parties, null, tieBreakerFor('u'));
    expect(big.reduce((s, p) => s + p.seats, 0)).toBe(100_000);
    // The same parties with a no-op initial map take the unoptimised path.
    const plain = allocateWebsterSeats(100_000, parties, new Map([['none', 0]]), tieBreakerFor('u')).filter((p) => p.name !== 'none');
    expect(big).toEqual(plain);
  });
  it('divides nothing when all weights are zero', () => {
    expect(divideReplicas('DynamicWeight', 0, [{ name: 'a', replicas: 0 }], [], undefined)).toEqual([]);
  });
});

describe('schedule', () => {
  it('uses the previous result instead of the binding fields', () => {
    const clusters = ['m1', 'm2'].map((n) => cluster({ name: n, available: 10 }));
    const b = binding({ replicas: 4, placement: DYN });
    const first = schedule(b, clusters, undefined, NOW);
    expect(first.clusters).toEqual([
      { name: 'm1', replicas: 2 },
      { name: 'm2', replicas: 2 },
    ]);
    const previous: PreviousSchedule = { clusters: first.clusters!, appliedPlacement: first.appliedPlacement, ...first.status };
    const again = schedule({ ...b, spec: { ...b.spec, replicas: 6 } }, clusters, previous, NOW);
    expect(again.trigger).toBe('ReplicasChanged');
    expect(again.clusters).toEqual([
      { name: 'm1', replicas: 3 },
      { name: 'm2', replicas: 3 },
    ]);
    const same = schedule(b, clusters, previous, NOW);
    expect(same.action).toBe('Unchanged');
  });
  it('accepts a prepared snapshot', () => {
    const snap = createSnapshot(['m1', 'm2'].map((n) => cluster(n)));
    const r = schedule(binding({ replicas: 2 }), snap, undefined, { now: () => NOW });
    expect(r.clusters).toEqual([
      { name: 'm1', replicas: 2 },
      { name: 'm2', replicas: 2 },
    ]);
  });
  it('re-reads a cluster whose status object was replaced', () => {
    const c = cluster({ name: 'm1', available: 1 });
    const clusters = [c, cluster({ name: 'm2', available: 1 })];
    expect(schedule(binding({ replicas: 4, placement: DYN }), clusters, undefined, NOW).error?.kind).toBe('Unschedulable');
    c.status = { ...c.status, resourceSummary: { allocatable: { pods: 10 } } };
    expect(schedule(binding({ replicas: 4, placement: DYN }), clusters, undefined, NOW).clusters).toEqual([{ name: 'm1', replicas: 4 }]);
  });
  it('notices a replaced cluster object in a freshly listed array', () => {
    const clusters = [cluster({ name: 'm1', available: 1 }), cluster({ name: 'm2', available: 1 })];
    const b = binding({ replicas: 2, placement: DYN });
    expect(schedule(b, clusters.slice(), undefined, NOW).clusters).toEqual([
      { name: 'm1', replicas: 1 },
      { name: 'm2', replicas: 1 },
    ]);
    const bigger = { ...clusters[1]!, status: { ...clusters[1]!.status, resourceSummary: { allocatable: { pods: 50 } } } };
    expect(schedule(b, [clusters[0]!, bigger], undefined, NOW).clusters).toEqual([{ name: 'm2', replicas: 2 }]);
    expect(schedule(b, clusters.slice(), undefined, NOW).clusters).toEqual([
      { name: 'm1', replicas: 1 },
      { name: 'm2', replicas: 1 },
    ]);
  });
  it('reuses what was derived from unchanged clusters when a new list is built, wherever they moved', () => {
    const [a, b, c] = ['m1', 'm2', 'm3'].map((n) => cluster({ name: n, available: 1 }));
    const first = createSnapshot([a!, b!, c!]);
    const b2 = { ...b!, status: { ...b!.status, resourceSummary: { allocatable: { pods: 50 } } } };
    const a2 = { ...a!, metadata: { ...a!.metadata, labels: { moved: 'yes' } } };
    const second = createSnapshot([c!, b2, a!, a2]);
    expect(second.clusters[0]).toBe(first.clusters[2]);
    expect(second.clusters[2]).toBe(first.clusters[0]);
    expect(second.clusters[1]).not.toBe(first.clusters[1]);
    expect(second.clusters[1]!.summary()!.allocatablePods).toBe(50);
    expect(second.clusters[3]!.labels.get('moved')).toBe('yes');
    expect(first.clusters[0]!.labels.get('moved')).toBeUndefined();
    // Replacing a part of a cluster in place makes its derived data stale.
    c!.metadata = { ...c!.metadata, labels: { env: 'x' } };
    const third = createSnapshot([c!]);
    expect(third.clusters[0]).not.toBe(second.clusters[0]);
    expect(third.clusters[0]!.labels.get('env')).toBe('x');
    expect(clusterInfo(c!)).toBe(clusterInfo(c!));
    expect(clusterInfo(c!).labels.get('env')).toBe('x');
  });
  it('reports a missing placement as a scheduler error without touching the binding', () => {
    const b = binding({ replicas: 1 });
    delete b.spec.placement;
    const r = schedule(b, [cluster('m1')], undefined, NOW);
    expect(r.action).toBe('Failed');
    expect(r.error).toEqual({ kind: 'SchedulerError', message: 'failed to get placement from resourceBinding(default/web-deployment)' });
    expect(r.condition).toBeUndefined();
  });
  it('writes the applied placement so that the next pass sees no change', () => {
    const b = binding({ replicas: 2, placement: { ...DYN, clusterAffinity: { clusterNames: ['m1', 'm2'] } } });
    const r = schedule(b, [cluster('m1')], undefined, NOW);
    expect(placementChanged(b.spec.placement!, r.appliedPlacement, '')).toBe(false);
  });
});

describe('triggers', () => {
  it('treats null as absent and an empty list as different from absent', () => {
    expect(jsonEqual({ a: null, b: 1 }, { b: 1 })).toBe(true);
    expect(jsonEqual({ a: [] }, {})).toBe(false);
    expect(jsonEqual([1, { x: 2 }], [1, { x: 2 }])).toBe(true);
  });
  it('filters bindings like the scheduler event filter', () => {
    expect(bindingEventFilter(binding()).accept).toBe(true);
    expect(bindingEventFilter(binding({ labels: {} })).accept).toBe(false);
    expect(bindingEventFilter(binding({ schedulerName: 'other' })).accept).toBe(false);
    expect(bindingEventFilter(binding({ schedulerName: 'other' }), 'other').accept).toBe(true);
    expect(bindingEventFilter(binding({ spec: { suspension: { scheduling: true } } })).accept).toBe(false);
  });
});

describe('cluster events', () => {
  const withLabels = (labels: Record<string, string>, extra: Partial<Cluster['metadata']> = {}): Cluster => {
    const c = cluster({ name: 'm1', labels });
    c.metadata = { ...c.metadata, ...extra };
    return c;
  };
  const byLabel = binding({ name: 'prod', placement: { clusterAffinity: { labelSelector: { matchLabels: { env: 'prod' } } } } });
  const byName = binding({ name: 'other', placement: { clusterAffinity: { clusterNames: ['m2'] } } });
  const open = binding({ name: 'open', placement: {} });
  const terms = binding({
    name: 'terms',
    generation: 2,
    observedGeneration: 1,
    placement: { clusterAffinities: [{ affinityName: 'a', clusterNames: ['m9'] }] },
  });
  const all = [byLabel, byName, open, terms];
  const names = (bs: Binding[]) => bs.map((b) => b.metadata.name);

  it('ignores cluster additions', () => {
    expect(bindingsAffectedByClusterEvent('add', null, withLabels({ env: 'prod' }), all)).toEqual([]);
  });
  it('ignores updates that change neither labels, generation nor deletion', () => {
    expect(bindingsAffectedByClusterEvent('update', withLabels({ env: 'prod' }), withLabels({ env: 'prod' }), all)).toEqual([]);
  });
  it('evaluates both the old and the new cluster on a label change', () => {
    expect(names(bindingsAffectedByClusterEvent('update', withLabels({ env: 'prod' }), withLabels({ env: 'dev' }), all))).toEqual([
      'prod',
      'open',
      'terms',
    ]);
  });
  it('evaluates the new cluster when its deletion starts', () => {
    const got = bindingsAffectedByClusterEvent(
      'update',
      withLabels({ env: 'dev' }),
      withLabels({ env: 'dev' }, { deletionTimestamp: '2024-01-01T00:00:00Z' }),
      all,
    );
    expect(names(got)).toEqual(['open', 'terms']);
  });
});

describe('deschedule', () => {
  it('skips bindings being deleted and cluster-scoped bindings', () => {
    const mk = (extra: Parameters<typeof binding>[0]) => {
      const b = binding({ replicas: 5, placement: DYN, clusters: ['m1:5'], appliedPlacement: 'current', ...extra });
      b.status = { aggregatedStatus: [{ clusterName: 'm1', status: { readyReplicas: 0 } }] };
      return b;
    };
    const est = [{ namespace: 'default', name: 'web-deployment', cluster: 'm1', unschedulableReplicas: 5 }];
    expect(deschedule([mk({})], [cluster('m1')], est, NOW).bindings).toHaveLength(1);
    expect(deschedule([mk({ deleting: true })], [cluster('m1')], est, NOW).bindings).toHaveLength(0);
    expect(deschedule([mk({ kind: 'ClusterResourceBinding' })], [cluster('m1')], est, NOW).bindings).toHaveLength(0);
    // An estimate for a cluster the descheduler does not know is unknown, hence 0.
    expect(deschedule([mk({})], [], est, NOW).bindings).toHaveLength(0);
  });
  it('takes the minimum over estimators', () => {
    const b = binding({ replicas: 10, placement: DYN, clusters: ['m1:10'], appliedPlacement: 'current' });
    b.status = { aggregatedStatus: [{ clusterName: 'm1', status: { readyReplicas: 0 } }] };
    const est = [
      { namespace: 'default', name: 'web-deployment', cluster: 'm1', unschedulableReplicas: 6 },
      { namespace: 'default', name: 'web-deployment', cluster: 'm1', unschedulableReplicas: 4 },
      { namespace: 'default', name: 'web-deployment', cluster: 'm1', unschedulableReplicas: -1 },
    ];
    expect(deschedule([b], [cluster('m1')], est, NOW).bindings[0]!.clusters).toEqual([{ name: 'm1', replicas: 6 }]);
  });
  it('feeds a steady scale-up that moves the descheduled replicas to clusters with room', () => {
    const clusters = [cluster({ name: 'm1', available: 0 }), cluster({ name: 'm2', available: 10 })];
    const b = binding({ replicas: 6, placement: DYN, clusters: ['m1:3', 'm2:3'], appliedPlacement: 'current' });
    b.status = {
      aggregatedStatus: [
        { clusterName: 'm1', status: { readyReplicas: 1 } },
        { clusterName: 'm2', status: { readyReplicas: 3 } },
      ],
    };
    const d = deschedule([b], clusters, [{ namespace: 'default', name: 'web-deployment', cluster: 'm1', unschedulableReplicas: 2 }], NOW);
    const after = schedule({ ...b, spec: { ...b.spec, clusters: d.bindings[0]!.clusters } }, clusters, undefined, NOW);
    expect(after.trigger).toBe('ReplicasChanged');
    expect(after.clusters).toEqual([
      { name: 'm1', replicas: 1 },
      { name: 'm2', replicas: 5 },
    ]);
  });
});
