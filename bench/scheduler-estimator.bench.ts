/**
 * The scheduler with and without the accurate estimator (issue 36): `npx tsx bench/scheduler-estimator.bench.ts`
 * (plain script; figures in bench/README.md). 100 clusters × 100 Nodes with 20 Pods each, in process as the
 * controller's lean informers hold them; 2,000 Divided bindings with dynamic weights (AvailableReplicas) and
 * replica requirements. Three ways, alternated round by round in one run so the ratios stand on a shared machine:
 *
 * - `summary`: the general estimator only (each Cluster's resourceSummary), as without member data;
 * - `accurate`: plus the accurate estimator, its answers remembered per shape of requirements until the
 *   member's Nodes or Pods change (what a steady fleet sees);
 * - `accurate, cold`: the same, each binding with requirements of its own shape, so that every estimate is
 *   computed over every Node (the bound when nothing can be remembered).
 */
import { NodeCapacity, accurateEstimator, type MemberCapacity } from '../src/core/node-estimator.js';
import type { KObject } from '../src/core/object.js';
import { createSnapshot, schedule } from '../src/scheduler/index.js';
import type { Binding, Cluster } from '../src/scheduler/types.js';

const NOW = new Date('2024-06-01T12:00:00Z');
const CLUSTERS = 100;
const NODES = 100;
const PODS_PER_NODE = 20;
const BINDINGS = 2_000;
const ROUNDS = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 3);

/** Deterministic pseudo-random numbers, so runs are comparable. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const r = rng(36);
const names = Array.from({ length: CLUSTERS }, (_, i) => `member-${String(i).padStart(3, '0')}`);
const nodesOf = new Map<string, KObject[]>();
const podsOf = new Map<string, KObject[]>();
for (const name of names) {
  const cpu = 16 + Math.floor(r() * 48);
  const nodes = Array.from({ length: NODES }, (_, n): KObject => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: `${name}-n${n}`, labels: { zone: `z${n % 3}` } },
    spec: n % 23 === 0 ? { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } : {},
    status: { allocatable: { cpu: String(cpu), memory: `${cpu * 4}Gi`, pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
  }));
  const pods = nodes.flatMap((node, n) =>
    Array.from({ length: PODS_PER_NODE }, (_, p): KObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `p${n}-${p}`, namespace: 'default' },
      spec: { nodeName: node.metadata.name, containers: [{ name: 'c', resources: { requests: { cpu: `${100 + Math.floor(r() * 400)}m`, memory: `${128 + Math.floor(r() * 512)}Mi` } } }] },
      status: { phase: 'Running' },
    })),
  );
  nodesOf.set(name, nodes);
  podsOf.set(name, pods);
}

const clusters: Cluster[] = names.map((name) => {
  const nodes = nodesOf.get(name)!;
  const cpu = Number(nodes[0]!.status.allocatable.cpu) * NODES;
  return {
    metadata: { name },
    spec: {},
    status: {
      apiEnablements: [{ groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] }],
      resourceSummary: { allocatable: { cpu: String(cpu), memory: `${cpu * 4}Gi`, pods: String(110 * NODES) }, allocated: { cpu: `${Math.floor(cpu * 300)}m`, memory: `${cpu}Gi`, pods: String(PODS_PER_NODE * NODES) } },
    },
  } satisfies Cluster;
});
const snapshot = createSnapshot(clusters);

const bindings: Binding[] = Array.from({ length: BINDINGS }, (_, i) => ({
  kind: 'ResourceBinding',
  metadata: { name: `b-${i}`, namespace: 'default', generation: 1 },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: `d-${i}`, namespace: 'default', uid: `uid-${i}` },
    replicas: 1 + Math.floor(r() * 40),
    // Twelve shapes of requirements, as a fleet's Deployments share a few sizes.
    replicaRequirements: { resourceRequest: { cpu: `${250 * (1 + (i % 4))}m`, memory: `${512 * (1 + (i % 3))}Mi` } },
    placement: { replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted', weightPreference: { dynamicWeight: 'AvailableReplicas' } } },
  },
}));

/** The members as the controller's informers hold them: one NodeCapacity per member while nothing changes. */
const steady = new Map(names.map((n) => [n, new NodeCapacity(nodesOf.get(n)!, podsOf.get(n)!)]));
const capacity: MemberCapacity = {
  nodeCapacity: (c) => steady.get(c),
  pods: (c, ns) => podsOf.get(c)!.filter((p) => p.metadata.namespace === ns),
  resourceQuotas: () => [],
};
/** The same bindings, each with requirements no other binding has. */
const unique: Binding[] = bindings.map((b, i) => ({ ...b, spec: { ...b.spec, replicaRequirements: { resourceRequest: { cpu: `${101 + i}m`, memory: `${513 + i}Mi` } } } }));

type Way = 'summary' | 'accurate' | 'accurate, cold';
/** Where the next round starts: a cold round never meets a shape an earlier round left remembered (until it wraps). */
let offset = 0;
function run(way: Way, count: number): { perSecond: number; failed: number } {
  const estimators = way === 'summary' ? undefined : [accurateEstimator(capacity)];
  const list = way === 'accurate, cold' ? unique : bindings;
  let failed = 0;
  const t0 = performance.now();
  for (let i = 0; i < count; i++) if (schedule(list[(offset + i) % list.length]!, snapshot, null, NOW, estimators ? { estimators } : undefined).action === 'Failed') failed++;
  offset += count;
  return { perSecond: (count / (performance.now() - t0)) * 1000, failed };
}

const ways: Way[] = ['summary', 'accurate', 'accurate, cold'];
// Warm-up: JIT, the snapshot's caches, the steady members' remembered answers.
for (const w of ways) run(w, w === 'accurate, cold' ? 50 : 500);
const rates = new Map<Way, number[]>(ways.map((w) => [w, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const w of ways) {
    // A cold estimate goes over every Node of every cluster: fewer bindings keep a round short.
    const { perSecond, failed } = run(w, w === 'accurate, cold' ? 200 : BINDINGS);
    rates.get(w)!.push(perSecond);
    if (failed) console.error(`${w}: ${failed} bindings failed to schedule`);
  }
}
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]!;
const base = median(rates.get('summary')!);
const out = ways.map((w) => ({ way: w, bindingsPerSecond: Math.round(median(rates.get(w)!)), ofSummaryOnly: Number((median(rates.get(w)!) / base).toFixed(3)) }));
console.log(JSON.stringify({ clusters: CLUSTERS, nodesPerCluster: NODES, podsPerNode: PODS_PER_NODE, bindings: BINDINGS, rounds: ROUNDS, results: out, date: new Date().toISOString(), load: (await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ') }, null, 1));
