/**
 * Cluster ordering, grouping and spread-constraint selection (spec §1.5, Karmada's
 * pkg/scheduler/core/spreadconstraint). Zone and provider groups are never used for selection in
 * Karmada, so they are not built here: only region groups influence a result.
 */
import {
  ERR_CLUSTERS_LESS_THAN_CLUSTER_MIN,
  ERR_CLUSTERS_LESS_THAN_MIN,
  ERR_REGIONS_LESS_THAN_MIN,
  ERR_UNSUPPORTED_SPREAD,
  errNoEnoughResource,
} from './messages.js';
import { replicaSchedulingType, type Placement, type SpreadConstraint } from './types.js';

/** `ClusterDetailInfo`. */
export interface ClusterDetail {
  name: string;
  /** Summed plugin score (0 or 100 with the in-tree plugins). */
  score: number;
  /** Estimator result: spare capacity. */
  allocatable: number;
  /** `allocatable` plus the replicas the binding already has there. */
  available: number;
  /** 0 for the inline affinity, i+1 for overflow affinity i, 1000 for none. */
  overflowOrder: number;
  region: string;
  /** Position of the name in the snapshot's sorted names: compares like the name, faster. */
  nameRank?: number;
}

/** The global total order: overflow tier, then score, then available replicas (both descending), then name. */
export function compareClusters(a: ClusterDetail, b: ClusterDetail): number {
  if (a.overflowOrder !== b.overflowOrder) return a.overflowOrder - b.overflowOrder;
  if (a.score !== b.score) return b.score - a.score;
  if (a.available !== b.available) return b.available - a.available;
  if (a.nameRank !== undefined && b.nameRank !== undefined) return a.nameRank - b.nameRank;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function sortClusters(list: ClusterDetail[]): ClusterDetail[] {
  return list.sort(compareClusters);
}

const AVAIL_LIMIT = 2 ** 32;
// Scratch space reused across calls (the scheduler is synchronous, so calls never overlap). The rank
// table maps a name rank to the detail's index in the list, so it holds no cluster beyond the call.
let scratchKeys = new Float64Array(256);
let scratchIndexOfRank = new Int32Array(256);

/**
 * The same order as `sortClusters` for details whose `nameRank` values are distinct integers below
 * `rankCount`: within each (overflowOrder, score) bucket, one float key per cluster,
 * `(2^32 - available) * rankCount + rank`, exact below 2^53, sorted natively. Scheduling thousands of
 * bindings sorts every feasible cluster each time, so this is on the hot path.
 */
export function sortByRank<T extends ClusterDetail>(list: T[], rankCount: number): T[] {
  const n = list.length;
  if (n < 2) return list;
  if (rankCount > 2 ** 20) return list.sort(compareClusters);
  // Buckets of equal (overflowOrder, score): usually one or two, so a small list beats a map.
  const bucketOrder: number[] = [];
  const bucketScore: number[] = [];
  const bucketOf = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const d = list[i]!;
    const a = d.available;
    if (d.nameRank === undefined || !(a >= 0 && a < AVAIL_LIMIT) || a !== Math.floor(a)) return list.sort(compareClusters);
    let b = 0;
    while (b < bucketOrder.length && (bucketOrder[b] !== d.overflowOrder || bucketScore[b] !== d.score)) b++;
    if (b === bucketOrder.length) {
      bucketOrder.push(d.overflowOrder);
      bucketScore.push(d.score);
    }
    bucketOf[i] = b;
  }
  if (scratchIndexOfRank.length < rankCount) scratchIndexOfRank = new Int32Array(rankCount);
  const indexOfRank = scratchIndexOfRank;
  if (scratchKeys.length < n) scratchKeys = new Float64Array(Math.max(n, 2 * scratchKeys.length));
  const keys = scratchKeys.subarray(0, n);
  for (let i = 0; i < n; i++) {
    const d = list[i]!;
    indexOfRank[d.nameRank!] = i;
    keys[i] = (AVAIL_LIMIT - d.available) * rankCount + d.nameRank!;
  }
  // The list is rewritten in place, so the details are read from a copy.
  const byIndex = list.slice();
  if (bucketOrder.length === 1) {
    keys.sort();
    for (let i = 0; i < n; i++) list[i] = byIndex[indexOfRank[keys[i]! % rankCount]!]!;
    return list;
  }
  const buckets = bucketOrder.map((_, b) => b).sort((x, y) => bucketOrder[x]! - bucketOrder[y]! || bucketScore[y]! - bucketScore[x]!);
  const all = keys.slice();
  let out = 0;
  for (const b of buckets) {
    let m = 0;
    for (let i = 0; i < n; i++) if (bucketOf[i] === b) keys[m++] = all[i]!;
    const part = keys.subarray(0, m).sort();
    for (let i = 0; i < m; i++) list[out++] = byIndex[indexOfRank[part[i]! % rankCount]!]!;
  }
  return list;
}

export interface RegionGroup<T extends ClusterDetail = ClusterDetail> {
  name: string;
  /** Clusters of the region in the global order. */
  clusters: T[];
  score: number;
}

export interface GroupInfo<T extends ClusterDetail = ClusterDetail> {
  /** All feasible clusters in the global order. */
  clusters: T[];
  /** Region groups; only built when a region constraint is in force. */
  regions: Map<string, RegionGroup<T>> | null;
}

const WEIGHT_UNIT = 1000;

/** Karmada indexes constraints by field in a map, so a (webhook-rejected) repeated field means the last one. */
export function findConstraint(cs: readonly SpreadConstraint[] | null | undefined, field: string): SpreadConstraint | undefined {
  let found: SpreadConstraint | undefined;
  for (const c of cs ?? []) if (c.spreadByField === field) found = c;
  return found;
}

/**
 * `calcGroupScore`. For Duplicated (or no strategy) a group is worth more the more of its clusters
 * can hold every replica; for Divided, the more of its share of the replicas it can hold.
 */
export function calcGroupScore(
  clusters: readonly ClusterDetail[],
  placement: Placement | null | undefined,
  replicas: number,
  groupMinGroups: number,
  clusterMinGroups: number,
): number {
  const rs = placement?.replicaScheduling;
  if (!placement || !rs || replicaSchedulingType(placement) === 'Duplicated') {
    let valid = 0;
    let sum = 0;
    for (const c of clusters) {
      if (c.available >= replicas) {
        valid++;
        sum += c.score;
      }
    }
    return valid === 0 ? 0 : valid * WEIGHT_UNIT + Math.trunc(sum / valid);
  }
  // A minGroups of 0 is never stored (the webhook defaults it to 1); treating it as 1 avoids Go's
  // float-to-int conversion of +Inf, whose value is platform-specific.
  const min = groupMinGroups > 0 ? groupMinGroups : 1;
  const target = Math.ceil(replicas / min);
  const need = Math.max(clusterMinGroups, min);
  let sumAvail = 0;
  let sumScore = 0;
  let count = 0;
  for (const c of clusters) {
    sumAvail += c.available;
    sumScore += c.score;
    count++;
    if (count >= need && sumAvail >= target) break;
  }
  if (sumAvail < target) return sumAvail * WEIGHT_UNIT + Math.trunc(sumScore / clusters.length);
  return target * WEIGHT_UNIT + Math.trunc(sumScore / count);
}

/** Whether the placement's constraints shape the result at all (spec §1.5 "Spread constraints are ignored"). */
export function shouldIgnoreSpreadConstraint(placement: Placement): boolean {
  const s = placement.replicaScheduling;
  if (!s || replicaSchedulingType(placement) !== 'Divided' || s.replicaDivisionPreference !== 'Weighted') return false;
  const wp = s.weightPreference;
  return !wp || ((wp.staticWeightList?.length ?? 0) !== 0 && !wp.dynamicWeight);
}

/** Sorts details in place (unless already sorted) and builds region groups when the region constraint will be used. */
export function groupClusters<T extends ClusterDetail>(details: T[], placement: Placement, replicas: number, sorted = false): GroupInfo<T> {
  if (!sorted) sortClusters(details);
  const cs = placement.spreadConstraints ?? [];
  const region = findConstraint(cs, 'region');
  if (!region || shouldIgnoreSpreadConstraint(placement)) return { clusters: details, regions: null };
  const regions = new Map<string, RegionGroup<T>>();
  for (const d of details) {
    if (d.region === '') continue;
    let g = regions.get(d.region);
    if (!g) regions.set(d.region, (g = { name: d.region, clusters: [], score: 0 }));
    g.clusters.push(d);
  }
  const clusterMin = findConstraint(cs, 'cluster')?.minGroups ?? 0;
  for (const g of regions.values()) g.score = calcGroupScore(g.clusters, placement, replicas, region.minGroups ?? 0, clusterMin);
  return { clusters: details, regions };
}

export class SelectionError extends Error {}

export interface GroupCandidate {
  name: string;
  value: number;
  weight: number;
}

/**
 * `selectGroups`: the best combination of groups whose values reach `target` with between `min` and
 * `max` groups, by total weight then total value; a shorter recorded path that is a prefix of the
 * choice is preferred.
 */
export function selectGroups(groups: readonly GroupCandidate[], min: number, max: number, target: number): GroupCandidate[] {
  const sorted = groups.slice().sort((a, b) => {
    if (a.value !== b.value) return a.value - b.value;
    if (a.weight !== b.weight) return b.weight - a.weight;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
  interface Path {
    id: number;
    weight: number;
    value: number;
    groups: GroupCandidate[];
    key: string[];
  }
  const paths: Path[] = [];
  const path: GroupCandidate[] = [];
  let sum = 0;
  const firstChildOnly = sorted.length === min;
  const record = (): void => {
    const gs = path.slice().sort((a, b) => (a.weight !== b.weight ? b.weight - a.weight : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let w = 0;
    for (const g of gs) w += g.weight;
    paths.push({ id: paths.length, weight: w, value: sum, groups: gs, key: gs.map((g) => g.name) });
  };
  const dfs = (start: number): void => {
    if (sum >= target && path.length >= min && path.length <= max) {
      record();
      return;
    }
    if (path.length >= max) return;
    for (let i = start; i < sorted.length; i++) {
      path.push(sorted[i]!);
      sum += sorted[i]!.value;
      dfs(i + 1);
      sum -= sorted[i]!.value;
      path.pop();
      if (firstChildOnly) break;
    }
  };
  dfs(0);
  if (paths.length === 0) return [];
  paths.sort((a, b) => (a.weight !== b.weight ? b.weight - a.weight : a.value !== b.value ? b.value - a.value : a.id - b.id));
  let choice = paths[0]!;
  const isStrictPrefix = (p: string[], of: string[]): boolean => p.length < of.length && p.every((n, i) => of[i] === n);
  for (let i = 1; i < paths.length; i++) {
    if (isStrictPrefix(paths[i]!.key, choice.key)) choice = paths[i]!;
  }
  return choice.groups;
}

function selectByCluster<T extends ClusterDetail>(c: SpreadConstraint, clusters: readonly T[], needReplicas: number): T[] {
  const min = c.minGroups ?? 0;
  if (clusters.length < min) throw new SelectionError(ERR_CLUSTERS_LESS_THAN_MIN);
  const needCnt = Math.min(c.maxGroups ?? 0, clusters.length);
  if (needReplicas < 0) return clusters.slice(0, needCnt);
  const ret = clusters.slice(0, needCnt);
  const rest = clusters.slice(needCnt);
  let total = 0;
  for (const d of ret) total += d.available;
  for (let slot = ret.length - 1; total < needReplicas && slot >= 0; slot--) {
    let best = -1;
    let bestAvail = ret[slot]!.available;
    for (let j = 0; j < rest.length; j++) {
      if (rest[j]!.available > bestAvail) {
        best = j;
        bestAvail = rest[j]!.available;
      }
    }
    if (best < 0) continue;
    const out = ret[slot]!;
    total += rest[best]!.available - out.available;
    ret[slot] = rest[best]!;
    rest[best] = out;
  }
  if (total < needReplicas || ret.length === 0) throw new SelectionError(errNoEnoughResource(needCnt));
  return ret;
}

function selectByRegion<T extends ClusterDetail>(region: SpreadConstraint, cluster: SpreadConstraint | undefined, info: GroupInfo<T>): T[] {
  const regions = info.regions ?? new Map<string, RegionGroup<T>>();
  if (regions.size < (region.minGroups ?? 0)) throw new SelectionError(ERR_REGIONS_LESS_THAN_MIN);
  const candidates = [...regions.values()].map((g) => ({ name: g.name, value: g.clusters.length, weight: g.score }));
  const chosen = selectGroups(candidates, region.minGroups ?? 0, region.maxGroups ?? 0, cluster?.minGroups ?? 0);
  if (chosen.length === 0) throw new SelectionError(ERR_CLUSTERS_LESS_THAN_CLUSTER_MIN);
  const out: T[] = [];
  const pool: T[] = [];
  for (const g of chosen) {
    const cl = regions.get(g.name)!.clusters;
    out.push(cl[0]!);
    for (let i = 1; i < cl.length; i++) pool.push(cl[i]!);
  }
  const needCnt = Math.min(out.length + pool.length, cluster?.maxGroups ?? 0);
  const rest = needCnt - out.length;
  if (rest > 0) {
    sortClusters(pool);
    for (let i = 0; i < rest; i++) out.push(pool[i]!);
  }
  return out;
}

/**
 * `SelectBestClusters`. `needReplicas` is ignored (resources unchecked) for Duplicated and for no
 * strategy; only the cluster path checks resources.
 */
export function selectBestClusters<T extends ClusterDetail>(placement: Placement, info: GroupInfo<T>, needReplicas: number): T[] {
  const cs = placement.spreadConstraints ?? [];
  if (cs.length === 0 || shouldIgnoreSpreadConstraint(placement)) return info.clusters;
  const rs = placement.replicaScheduling;
  if (replicaSchedulingType(placement) === 'Duplicated') needReplicas = -1;
  const region = findConstraint(cs, 'region');
  const cluster = findConstraint(cs, 'cluster');
  if (region) return selectByRegion(region, cluster, info);
  if (cluster) return selectByCluster(cluster, info.clusters, needReplicas);
  throw new SelectionError(ERR_UNSUPPORTED_SPREAD);
}
