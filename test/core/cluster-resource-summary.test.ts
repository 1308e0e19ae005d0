// The Cluster's status.nodeSummary and status.resourceSummary (src/core/cluster-resource-summary.ts), with the
// numbers Karmada's cluster status controller (getNodeSummary, getResourceSummary, getAllocatableModelings)
// would post for the same Nodes and Pods.
import { describe, expect, it } from 'vitest';
import { allocatableModelings, clusterResourceSummary, leanNode, leanPod, nodeSummary } from '../../src/core/cluster-resource-summary.js';
import type { KObject } from '../../src/core/object.js';
import { defaultResourceModels, effectiveResourceModels } from '../../src/scheduler/resource-models.js';

const node = (name: string, allocatable: Record<string, string>, ready = true, extra: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name } },
  spec: { ...extra },
  status: { allocatable, capacity: allocatable, conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: ready ? 'True' : 'False' }], images: [{ names: ['nginx'] }] },
});

const container = (requests: Record<string, string>) => ({ name: 'c', image: 'nginx', resources: { requests, limits: requests } });

const pod = (name: string, nodeName: string | undefined, phase: string, requests: Array<Record<string, string>>, more: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: { app: 'a' }, annotations: { big: 'x'.repeat(100) }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true }] },
  spec: { ...(nodeName ? { nodeName } : {}), containers: requests.map(container), volumes: [{ name: 'v', emptyDir: {} }], ...more },
  status: { phase, conditions: [{ type: 'PodScheduled', status: nodeName ? 'True' : 'False', ...(nodeName ? {} : { reason: 'Unschedulable' }), lastTransitionTime: '2024-01-01T00:00:00Z' }] },
});

// n1: 4 CPUs, 8Gi; n2: 2 CPUs, 2Gi, not Ready.
const NODES = [node('n1', { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '100Gi' }), node('n2', { cpu: '2', memory: '2Gi', pods: '110' }, false)];
const PODS = [
  // Running on n1, two containers: 250m + 250m, 512Mi + 512Mi.
  pod('running', 'n1', 'Running', [{ cpu: '250m', memory: '512Mi' }, { cpu: '250m', memory: '512Mi' }]),
  // Bound to n1 but its containers have not started yet: Pending with a node is allocated, not allocating.
  pod('bound-pending', 'n1', 'Pending', [{ cpu: '1', memory: '2Gi' }]),
  // No node yet: allocating.
  pod('unbound', undefined, 'Pending', [{ cpu: '100m', memory: '128Mi' }]),
  // Terminated on n2: kube-scheduler no longer counts them, nor does Karmada.
  pod('done', 'n2', 'Succeeded', [{ cpu: '2', memory: '1Gi' }]),
  pod('failed', 'n2', 'Failed', [{ cpu: '2', memory: '1Gi' }]),
];

describe('nodeSummary', () => {
  it('counts every Node and the Ready ones', () => {
    expect(nodeSummary(NODES)).toEqual({ totalNum: 2, readyNum: 1 });
    expect(nodeSummary([])).toEqual({ totalNum: 0, readyNum: 0 });
  });
});

describe('clusterResourceSummary', () => {
  it("allocatable adds every Node's, Ready or not", () => {
    expect(clusterResourceSummary(NODES, [], null).allocatable).toEqual({ cpu: '6', 'ephemeral-storage': '100Gi', memory: '10Gi', pods: '220' });
  });

  it('allocated: Pods bound to a Node that have not terminated (a Pending one with a node included), in millicores and binary units', () => {
    expect(clusterResourceSummary(NODES, PODS, null).allocated).toEqual({ cpu: '1500m', memory: '3Gi', pods: '2' });
  });

  it('allocating: Pods without a Node, whatever their phase', () => {
    expect(clusterResourceSummary(NODES, PODS, null).allocating).toEqual({ cpu: '100m', memory: '128Mi', pods: '1' });
  });

  it('a summary of nothing has no lists: Go leaves empty ResourceLists out', () => {
    const s = clusterResourceSummary([], [], null);
    expect(s.allocatable).toBeUndefined();
    expect(s.allocating).toBeUndefined();
    expect(s.allocated).toBeUndefined();
  });

  it("a Pod's requests: containers added, init containers as a maximum of the running total, overhead added (Karmada's AddPodRequest)", () => {
    const p = pod('init', 'n1', 'Running', [{ cpu: '100m' }, { cpu: '200m', memory: '1Mi' }], {
      initContainers: [container({ cpu: '500m', memory: '1Mi' })],
      overhead: { cpu: '50m', memory: '10Mi' },
    });
    // cpu: 300m raised to 500m by the init container, + 50m; memory: 1Mi stays (init 1Mi is not larger), + 10Mi.
    expect(clusterResourceSummary(NODES, [p], null).allocated).toEqual({ cpu: '550m', memory: '11Mi', pods: '1' });
  });

  it('extended resources and hugepages are kept; names Karmada does not count are dropped', () => {
    const p = pod('gpu', 'n1', 'Running', [{ cpu: '1', 'nvidia.com/gpu': '2', 'hugepages-2Mi': '4Mi', 'unknown-thing': '5' }]);
    expect(clusterResourceSummary(NODES, [p], null).allocated).toEqual({ cpu: '1', 'hugepages-2Mi': '4Mi', 'nvidia.com/gpu': '2', pods: '1' });
  });

  it('reads the lean copies the member informers keep exactly as the full objects', () => {
    const full = clusterResourceSummary(NODES, PODS, null);
    expect(clusterResourceSummary(NODES.map(leanNode), PODS.map(leanPod), null)).toEqual(full);
  });

  it('allocatableModelings: with the feature gate off, none', () => {
    expect(clusterResourceSummary(NODES, PODS, null, { customizedClusterResourceModeling: false }).allocatableModelings).toBeUndefined();
  });
});

describe('resource models', () => {
  it("Karmada's nine default grades, as its registry stores them (CPU cores, memory in binary units)", () => {
    const m = defaultResourceModels();
    expect(m.map((x) => x.grade)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(m[0]).toEqual({ grade: 0, ranges: [{ name: 'cpu', min: '0', max: '1' }, { name: 'memory', min: '0', max: '4Gi' }] });
    expect(m[3]).toEqual({ grade: 3, ranges: [{ name: 'cpu', min: '4', max: '8' }, { name: 'memory', min: '32Gi', max: '64Gi' }] });
    expect(m[7]).toEqual({ grade: 7, ranges: [{ name: 'cpu', min: '64', max: '128' }, { name: 'memory', min: '512Gi', max: '1Ti' }] });
    expect(m[8]).toEqual({ grade: 8, ranges: [{ name: 'cpu', min: '128', max: '9223372036854775807' }, { name: 'memory', min: '1Ti', max: '9223372036854775807' }] });
    // A Cluster that names none has the defaults; an empty list too.
    expect(effectiveResourceModels(undefined)).toEqual(m);
    expect(effectiveResourceModels([])).toEqual(m);
  });
});

describe('allocatableModelings', () => {
  it("Karmada's default models: each Node in the grade its free CPU and memory both reach", () => {
    // n1 free: 4 - 1.5 = 2.5 CPUs (grade 2 by CPU), 8Gi - 3Gi = 5Gi (grade 1 by memory): grade 1.
    // n2 free: its terminated Pods free everything: 2 CPUs (grade 2), 2Gi (grade 0): grade 0.
    const m = clusterResourceSummary(NODES, PODS, undefined).allocatableModelings;
    expect(m).toEqual([
      { grade: 0, count: 1 },
      { grade: 1, count: 1 },
      ...[2, 3, 4, 5, 6, 7, 8].map((grade) => ({ grade, count: 0 })),
    ]);
  });

  it('a big Node lands in the last grade', () => {
    const m = allocatableModelings(defaultResourceModels(), [node('big', { cpu: '256', memory: '2Ti', pods: '110' })], []);
    expect(m?.find((x) => x.count > 0)).toEqual({ grade: 8, count: 1 });
  });

  it('a Node with no Pod slot left ends the count: the Nodes after it are not counted (Karmada breaks there)', () => {
    const nodes = [node('a-full', { cpu: '4', memory: '8Gi', pods: '1' }), node('b', { cpu: '4', memory: '8Gi', pods: '110' })];
    const pods = [pod('only', 'a-full', 'Running', [{ cpu: '100m' }])];
    const m = clusterResourceSummary(nodes, pods, null).allocatableModelings!;
    expect(m.reduce((t, x) => t + x.count, 0)).toBe(0);
    // Without that Pod both count (grade 1: 4 CPUs is grade 3, 8Gi grade 1).
    expect(clusterResourceSummary(nodes, [], null).allocatableModelings!.find((x) => x.grade === 1)).toEqual({ grade: 1, count: 2 });
  });

  it("the Cluster's own models, standardized as Karmada stores them: grades sorted, the first minimums 0, the last maximum unbounded", () => {
    const models = [
      { grade: 5, ranges: [{ name: 'cpu', min: '2', max: '4' }] },
      { grade: 2, ranges: [{ name: 'cpu', min: '1', max: '2' }] },
    ];
    expect(effectiveResourceModels(models)).toEqual([
      { grade: 2, ranges: [{ name: 'cpu', min: '0', max: '2' }] },
      { grade: 5, ranges: [{ name: 'cpu', min: '2', max: '9223372036854775807' }] },
    ]);
    const nodes = [node('small', { cpu: '500m', memory: '1Gi', pods: '10' }), node('mid', { cpu: '3', memory: '1Gi', pods: '10' }), node('large', { cpu: '64', memory: '1Gi', pods: '10' })];
    expect(clusterResourceSummary(nodes, [], models).allocatableModelings).toEqual([
      { grade: 2, count: 1 },
      { grade: 5, count: 2 },
    ]);
  });

  it('models whose grades name different numbers of resources are inconsistent: no modelings (InitSummary fails)', () => {
    const models = [
      { grade: 0, ranges: [{ name: 'cpu', min: '0', max: '1' }, { name: 'memory', min: '0', max: '4Gi' }] },
      { grade: 1, ranges: [{ name: 'cpu', min: '1', max: '2' }] },
    ];
    expect(allocatableModelings(models, NODES, [])).toBeUndefined();
  });
});

describe('the lean informer copies', () => {
  it('a Node keeps its name, labels, taints, unschedulable, allocatable and Ready condition only', () => {
    const n = node('n', { cpu: '4', memory: '8Gi', pods: '110' }, true, { unschedulable: true, taints: [{ key: 'k', effect: 'NoSchedule' }], podCIDR: '10.0.0.0/24' });
    expect(leanNode(n)).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n', labels: { 'kubernetes.io/hostname': 'n' } },
      spec: { unschedulable: true, taints: [{ key: 'k', effect: 'NoSchedule' }] },
      status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
    });
  });

  it('a Pod keeps what the summaries and estimators read, and drops annotations, volumes, limits and images', () => {
    const lean = leanPod(pod('p', 'n1', 'Running', [{ cpu: '1' }]));
    expect(lean).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default', uid: 'uid-p', labels: { app: 'a' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true }] },
      spec: { nodeName: 'n1', containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] },
      status: { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }] },
    });
  });
});
