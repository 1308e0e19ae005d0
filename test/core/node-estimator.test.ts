// The in-process accurate estimator (src/core/node-estimator.ts): Karmada's scheduler-estimator server
// (NodeResourceEstimator, ResourceQuotaEstimator) answered from a member's Nodes, Pods and ResourceQuotas.
import { describe, expect, it } from 'vitest';
import { accurateEstimator, NodeCapacity, podRequests, replicasUnderQuota, replicasUnderQuotas, type MemberCapacity } from '../../src/core/node-estimator.js';
import type { KObject } from '../../src/core/object.js';

const node = (name: string, allocatable: Record<string, string>, spec: Record<string, unknown> = {}, labels: Record<string, string> = {}): KObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
  spec,
  status: { allocatable },
});

const pod = (name: string, nodeName: string | undefined, requests: Record<string, string>, phase = 'Running', more: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', resources: { requests } }], ...more },
  status: { phase },
});

const req = (resourceRequest: Record<string, string>, nodeClaim?: unknown, extra: Record<string, unknown> = {}) => ({ resourceRequest, ...(nodeClaim ? { nodeClaim } : {}), ...extra });

describe('NodeCapacity.maxAvailableReplicas (NodeResourceEstimator)', () => {
  // n1: 4 CPUs, 8Gi, 110 Pods, with 1.5 CPUs and 3Gi requested by two Pods; n2: 2 CPUs, 4Gi, 3 Pods.
  const nodes = [node('n1', { cpu: '4', memory: '8Gi', pods: '110' }), node('n2', { cpu: '2', memory: '4Gi', pods: '3' })];
  const pods = [
    pod('a', 'n1', { cpu: '500m', memory: '1Gi' }),
    pod('b', 'n1', { cpu: '1', memory: '2Gi' }, 'Pending'),
    // Not counted: no node yet, or terminated.
    pod('unbound', undefined, { cpu: '4', memory: '8Gi' }, 'Pending'),
    pod('done', 'n2', { cpu: '2', memory: '4Gi' }, 'Succeeded'),
    pod('failed', 'n2', { cpu: '2', memory: '4Gi' }, 'Failed'),
  ];
  const cap = new NodeCapacity(nodes, pods);

  it('sums, per Node, the fewest replicas any requested resource allows (allocatable − requested, integer division)', () => {
    // 500m, 1Gi: n1 has 2500m / 5Gi free → min(5, 5) = 5; n2 2000m / 4Gi → min(4, 4) = 4, capped by 3 Pod slots → 3.
    expect(cap.maxAvailableReplicas(req({ cpu: '500m', memory: '1Gi' }))).toBe(8);
    // 300m only: n1 2500/300 = 8; n2 2000/300 = 6 → 3 slots.
    expect(cap.maxAvailableReplicas(req({ cpu: '300m' }))).toBe(11);
    // 3Gi: n1 5Gi/3Gi = 1; n2 4Gi/3Gi = 1.
    expect(cap.maxAvailableReplicas(req({ memory: '3Gi' }))).toBe(2);
  });

  it("a resource the Node does not have fits none there; no requests at all: the free Pod slots", () => {
    expect(cap.maxAvailableReplicas(req({ cpu: '100m', 'nvidia.com/gpu': '1' }))).toBe(0);
    // n1: 110 − 2 bound Pods; n2: 3 (terminated Pods hold no slot).
    expect(cap.maxAvailableReplicas(null)).toBe(111);
    expect(cap.maxAvailableReplicas(req({}))).toBe(111);
  });

  it('a member without Nodes fits nothing', () => {
    expect(new NodeCapacity([], []).maxAvailableReplicas(req({ cpu: '1m' }))).toBe(0);
  });

  it('an over-committed Node counts 0, not less', () => {
    const c = new NodeCapacity([node('n', { cpu: '1', memory: '1Gi', pods: '10' }), node('m', { cpu: '1', memory: '1Gi', pods: '10' })], [pod('big', 'n', { cpu: '2' })]);
    expect(c.maxAvailableReplicas(req({ cpu: '500m' }))).toBe(2);
  });

  it('extended resources are divided like cpu and memory', () => {
    const c = new NodeCapacity([node('g', { cpu: '8', memory: '32Gi', pods: '110', 'nvidia.com/gpu': '4' })], [pod('p', 'g', { 'nvidia.com/gpu': '1' })]);
    expect(c.maxAvailableReplicas(req({ cpu: '1', 'nvidia.com/gpu': '1' }))).toBe(3);
  });
});

describe('node claims: selector, required affinity, tolerations (estimator.MatchNode)', () => {
  const nodes = [
    node('plain', { cpu: '2', pods: '110' }, {}, { zone: 'a' }),
    node('gpu', { cpu: '2', pods: '110' }, { taints: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }] }, { zone: 'b', accel: 'gpu' }),
    node('cordoned', { cpu: '2', pods: '110' }, { unschedulable: true }, { zone: 'a' }),
    node('soft', { cpu: '2', pods: '110' }, { taints: [{ key: 'soft', effect: 'PreferNoSchedule' }] }, { zone: 'c' }),
  ];
  const cap = new NodeCapacity(nodes, []);
  const oneCpu = (nodeClaim?: unknown) => cap.maxAvailableReplicas(req({ cpu: '1' }, nodeClaim));

  it('without a claim: every Node whose taints need no toleration (PreferNoSchedule does not), not an unschedulable one', () => {
    expect(oneCpu()).toBe(4); // plain 2 + soft 2
  });

  it('a toleration of the taint opens the tainted Node; of node.kubernetes.io/unschedulable, the cordoned one', () => {
    expect(oneCpu({ tolerations: [{ key: 'gpu', operator: 'Equal', value: 'true', effect: 'NoSchedule' }] })).toBe(6);
    expect(oneCpu({ tolerations: [{ key: 'gpu', operator: 'Equal', value: 'false', effect: 'NoSchedule' }] })).toBe(4);
    expect(oneCpu({ tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] })).toBe(6);
    expect(oneCpu({ tolerations: [{ operator: 'Exists' }] })).toBe(8);
  });

  it('nodeSelector: only Nodes with those labels', () => {
    expect(oneCpu({ nodeSelector: { zone: 'a' } })).toBe(2); // plain; cordoned excluded
    expect(oneCpu({ nodeSelector: { zone: 'b' }, tolerations: [{ key: 'gpu', operator: 'Exists' }] })).toBe(2);
    expect(oneCpu({ nodeSelector: { zone: 'b' } })).toBe(0);
  });

  it('required node affinity: terms ORed, expressions ANDed, metadata.name fields', () => {
    const terms = (...nodeSelectorTerms: unknown[]) => ({ hardNodeAffinity: { nodeSelectorTerms } });
    expect(oneCpu(terms({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'c'] }] }))).toBe(4); // plain, soft
    expect(oneCpu(terms({ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }))).toBe(2); // soft (gpu tainted)
    expect(oneCpu(terms({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }, { key: 'accel', operator: 'DoesNotExist' }] }, { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['soft'] }] }))).toBe(4);
    // A term that does not parse is left out; the other still matches.
    expect(oneCpu(terms({ matchExpressions: [{ key: 'zone', operator: 'Bogus', values: ['a'] }] }, { matchExpressions: [{ key: 'zone', operator: 'In', values: ['c'] }] }))).toBe(2);
    // An empty term matches nothing.
    expect(oneCpu(terms({}))).toBe(0);
  });

  it('answers for one claim are remembered without mixing claims', () => {
    expect(oneCpu({ nodeSelector: { zone: 'c' } })).toBe(2);
    expect(oneCpu({ nodeSelector: { zone: 'a' } })).toBe(2);
    expect(oneCpu()).toBe(4);
  });
});

describe("a Pod's requests (kube-scheduler's resourcehelper.PodRequests)", () => {
  it('containers added, init containers as a maximum, sidecars (restartPolicy Always) added, overhead added', () => {
    const p = pod('p', 'n', { cpu: '100m', memory: '100Mi' }, 'Running', {
      initContainers: [
        { name: 'sidecar', restartPolicy: 'Always', resources: { requests: { cpu: '50m' } } },
        { name: 'init', resources: { requests: { cpu: '1', memory: '10Mi' } } },
      ],
      overhead: { cpu: '10m' },
    });
    const r = podRequests(p);
    // cpu: containers 100m + sidecar 50m = 150m; the init container runs beside the sidecar: 1000m + 50m = 1050m → max 1050m; + 10m overhead.
    expect(r.get('cpu')).toBe(1060n);
    expect(r.get('memory')).toBe(100n * 1024n * 1024n);
  });
});

describe('ResourceQuotaEstimator', () => {
  const quota = (hard: Record<string, string>, used: Record<string, string>, spec: Record<string, unknown> = {}): KObject => ({
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'q', namespace: 'ns' },
    spec: { hard, ...spec },
    status: { hard, used },
  });

  it('bounds by (hard − used) / request of each resource the quota limits, requests.* read as the plain name', () => {
    const q = quota({ 'requests.cpu': '4', 'requests.memory': '8Gi', pods: '100' }, { 'requests.cpu': '1500m', 'requests.memory': '1Gi', pods: '3' });
    // cpu: 2500m / 500m = 5; memory: 7Gi / 2Gi = 3.
    expect(replicasUnderQuota(q, req({ cpu: '500m', memory: '2Gi' }))).toBe(3);
    expect(replicasUnderQuota(q, req({ cpu: '500m' }))).toBe(5);
  });

  it('a quota that limits none of the requested resources, or only limits.*, bounds nothing (MaxInt32)', () => {
    expect(replicasUnderQuota(quota({ 'requests.memory': '1Gi' }, { 'requests.memory': '0' }), req({ cpu: '1' }))).toBe(2147483647);
    expect(replicasUnderQuota(quota({ 'limits.cpu': '1' }, { 'limits.cpu': '0' }), req({ cpu: '1' }))).toBe(2147483647);
  });

  it('an overspent quota admits none', () => {
    expect(replicasUnderQuota(quota({ cpu: '1' }, { cpu: '2' }), req({ cpu: '100m' }))).toBe(0);
  });

  it('a PriorityClass-scoped quota applies only to requirements of that class', () => {
    const scoped = quota({ cpu: '1' }, { cpu: '0' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } });
    expect(replicasUnderQuota(scoped, req({ cpu: '500m' }, undefined, { priorityClassName: 'high' }))).toBe(2);
    expect(replicasUnderQuota(scoped, req({ cpu: '500m' }, undefined, { priorityClassName: 'low' }))).toBe(2147483647);
    expect(replicasUnderQuota(scoped, req({ cpu: '500m' }))).toBe(2147483647);
  });

  it('the smallest over the namespace’s quotas', () => {
    const qs = [quota({ cpu: '10' }, { cpu: '0' }), quota({ 'requests.cpu': '2' }, { 'requests.cpu': '1' })];
    expect(replicasUnderQuotas(qs, req({ cpu: '250m' }))).toBe(4);
    expect(replicasUnderQuotas([], req({ cpu: '250m' }))).toBe(2147483647);
  });
});

describe('accurateEstimator: the member answer the scheduler combines', () => {
  const cap = new NodeCapacity([node('n', { cpu: '4', memory: '8Gi', pods: '110' })], []);
  const quotas: Record<string, KObject[]> = {
    team: [{ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'team' }, spec: {}, status: { hard: { 'requests.cpu': '1' }, used: { 'requests.cpu': '0' } } }],
  };
  const members: MemberCapacity = {
    nodeCapacity: (c) => (c === 'm1' ? cap : undefined),
    pods: () => [],
    resourceQuotas: (c, ns) => (c === 'm1' ? (quotas[ns] ?? []) : undefined),
  };

  it('-1 (unknown) for a member whose informers have not filled', () => {
    expect(accurateEstimator(members)('m2', req({ cpu: '1' }))).toBe(-1);
  });

  it("the Nodes' answer; with ResourceQuotaEstimate also bounded by the requirements' namespace's quotas", () => {
    const r = req({ cpu: '250m' }, undefined, { namespace: 'team' });
    expect(accurateEstimator(members)('m1', r)).toBe(16);
    expect(accurateEstimator(members, { resourceQuotaEstimate: true })('m1', r)).toBe(4);
    expect(accurateEstimator(members, { resourceQuotaEstimate: true })('m1', { ...r, namespace: 'other' })).toBe(16);
  });
});
