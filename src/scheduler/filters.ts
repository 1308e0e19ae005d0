/**
 * Filter plugins (spec §1.3). Karmada builds its plugin list from a Go map, so the order in which
 * plugins run, and therefore which reason is recorded for a cluster that several plugins reject, is
 * unspecified there. karmada-lite runs them in plugin-name order (APIEnablement, ClusterAffinity,
 * ClusterEviction, SpreadConstraint, TaintToleration, WorkloadAffinity, WorkloadAntiAffinity): one fixed
 * order, so FitError messages are stable. The last two run only under the WorkloadAffinity gate, when the
 * caller passes the binding's group peers (workload-affinity.ts).
 */
import {
  DEFAULT_BLOCK_PREDECESSOR_SECONDS,
  PLUGIN_API_ENABLEMENT,
  PLUGIN_CLUSTER_AFFINITY,
  PLUGIN_CLUSTER_EVICTION,
  PLUGIN_SPREAD_CONSTRAINT,
  PLUGIN_TAINT_TOLERATION,
  PLUGIN_WORKLOAD_AFFINITY,
  PLUGIN_WORKLOAD_ANTI_AFFINITY,
  REASON_AFFINITY_MISMATCH,
  REASON_API_DISABLED,
  REASON_IN_EVICTION,
  REASON_NO_PROVIDER,
  REASON_NO_REGION,
  REASON_NO_ZONES,
  REASON_RECENTLY_EVICTED,
  untoleratedTaintReason,
} from './messages.js';
import { compileClusterAffinity, type ClusterMatcher } from './selector.js';
import type { ClusterInfo, ClusterSnapshot } from './snapshot.js';
import { compileWorkloadAffinity, type WorkloadGroupPeers } from './workload-affinity.js';
import type { ClusterAffinityTerm, Placement, ResourceBindingSpec, ResourceBindingStatus, Taint, Toleration } from './types.js';

/** Plugin names in the order karmada-lite runs them. */
export const FILTER_PLUGIN_ORDER = [
  PLUGIN_API_ENABLEMENT,
  PLUGIN_CLUSTER_AFFINITY,
  PLUGIN_CLUSTER_EVICTION,
  PLUGIN_SPREAD_CONSTRAINT,
  PLUGIN_TAINT_TOLERATION,
  PLUGIN_WORKLOAD_AFFINITY,
  PLUGIN_WORKLOAD_ANTI_AFFINITY,
] as const;

export interface FilterFailure {
  plugin: string;
  reason: string;
}

/** `IsWorkload()`: overflow affinities only widen the choice for workloads. */
export function isWorkload(spec: ResourceBindingSpec): boolean {
  return (spec.replicas ?? 0) > 0 || spec.replicaRequirements != null || (spec.components?.length ?? 0) > 0;
}

/** Kubernetes `Toleration.ToleratesTaint`, with Lt/Gt (a disabled feature gate) tolerating nothing. */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** The first NoSchedule/NoExecute taint, in `spec.taints` order, that no toleration covers. */
export function findUntoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint | null {
  for (const taint of taints) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!tolerations.some((t) => toleratesTaint(t, taint))) return taint;
  }
  return null;
}

/** The clusterAffinities term named by the status, if any. */
export function observedTerm(placement: Placement, status: ResourceBindingStatus | null | undefined): ClusterAffinityTerm | undefined {
  const name = status?.schedulerObservingAffinityName ?? '';
  return placement.clusterAffinities?.find((t) => t.affinityName === name);
}

const parseTime = (s: string | null | undefined): number => (s ? Date.parse(s) : NaN);

export interface EvictionBlock {
  cluster: string;
  /** Epoch ms when the block ends; Infinity when it never does. */
  until: number;
}

/**
 * Clusters blocked by `spec.activeEvictionHistory` at `now` (karmada-lite extension). An entry's own
 * `blockPredecessorSeconds` wins over the binding's failover setting, which defaults to 600; 0 means
 * the cluster stays blocked for good. An entry without a usable time is taken as still blocking.
 */
export function activeEvictionBlocks(spec: ResourceBindingSpec, now: number): EvictionBlock[] {
  const out: EvictionBlock[] = [];
  const policySeconds = spec.failover?.application?.blockPredecessorSeconds;
  for (const e of spec.activeEvictionHistory ?? []) {
    const seconds = e.blockPredecessorSeconds ?? policySeconds ?? DEFAULT_BLOCK_PREDECESSOR_SECONDS;
    if (seconds === 0) {
      out.push({ cluster: e.clusterName, until: Infinity });
      continue;
    }
    const at = parseTime(e.evictedAt ?? e.creationTimestamp);
    const until = Number.isNaN(at) ? Infinity : at + seconds * 1000;
    if (now < until) out.push({ cluster: e.clusterName, until });
  }
  return out;
}

/**
 * Compiles every filter for one binding and one observed affinity term. Returns the first failure
 * for a cluster, or null when it fits. The plugins are inlined in one function, in
 * FILTER_PLUGIN_ORDER, because it runs once per cluster per binding.
 */
export function compileFilters(
  spec: ResourceBindingSpec,
  status: ResourceBindingStatus | null | undefined,
  now: number,
  snapshot: ClusterSnapshot,
  workloadGroups?: WorkloadGroupPeers,
): (c: ClusterInfo, index: number) => FilterFailure | null {
  const placement = spec.placement ?? {};
  const targetList = spec.clusters ?? [];
  const targets = new Set(targetList.map((t) => t.name));

  const apiOk = snapshot.apiTable(spec.resource.apiVersion, spec.resource.kind);
  const apiFail: FilterFailure = { plugin: PLUGIN_API_ENABLEMENT, reason: REASON_API_DISABLED };

  const affinityFail: FilterFailure = { plugin: PLUGIN_CLUSTER_AFFINITY, reason: REASON_AFFINITY_MISMATCH };
  let matchers: ClusterMatcher[] | null = null;
  if (placement.clusterAffinity) {
    matchers = [compileClusterAffinity(placement.clusterAffinity)];
  } else {
    const term = observedTerm(placement, status);
    if (term) {
      matchers = [compileClusterAffinity(term)];
      if (isWorkload(spec)) for (const o of term.overflowAffinities ?? []) matchers.push(compileClusterAffinity(o));
    }
  }
  const single = matchers?.length === 1 ? matchers[0]! : null;

  const evicting = new Set((spec.gracefulEvictionTasks ?? []).map((t) => t.fromCluster));
  const blocked = new Set(activeEvictionBlocks(spec, now).map((b) => b.cluster));
  const checkEviction = evicting.size > 0 || blocked.size > 0;
  const evictFail: FilterFailure = { plugin: PLUGIN_CLUSTER_EVICTION, reason: REASON_IN_EVICTION };
  const blockedFail: FilterFailure = { plugin: PLUGIN_CLUSTER_EVICTION, reason: REASON_RECENTLY_EVICTED };

  const constraints = placement.spreadConstraints ?? [];
  const providerFail: FilterFailure = { plugin: PLUGIN_SPREAD_CONSTRAINT, reason: REASON_NO_PROVIDER };
  const regionFail: FilterFailure = { plugin: PLUGIN_SPREAD_CONSTRAINT, reason: REASON_NO_REGION };
  const zonesFail: FilterFailure = { plugin: PLUGIN_SPREAD_CONSTRAINT, reason: REASON_NO_ZONES };

  const tolerations = placement.clusterTolerations ?? [];
  const workloadAffinity = compileWorkloadAffinity(workloadGroups);

  return (c, index) => {
    const isTarget = targetList.length > 0 && targets.has(c.name);
    // APIEnablement
    if (apiOk[index] === 0 && !isTarget) return apiFail;
    // ClusterAffinity
    if (single) {
      if (!single(c)) return affinityFail;
    } else if (matchers) {
      let ok = false;
      for (const m of matchers) {
        if (m(c)) {
          ok = true;
          break;
        }
      }
      if (!ok) return affinityFail;
    }
    // ClusterEviction, with karmada-lite's eviction history
    if (checkEviction) {
      if (evicting.has(c.name)) return evictFail;
      if (blocked.has(c.name)) return blockedFail;
    }
    // SpreadConstraint
    for (const sc of constraints) {
      if (sc.spreadByField === 'provider' && c.provider === '') return providerFail;
      if (sc.spreadByField === 'region' && c.region === '') return regionFail;
      if (sc.spreadByField === 'zone' && c.zones.length === 0) return zonesFail;
    }
    // TaintToleration
    if (c.taints.length > 0 && !isTarget) {
      const t = findUntoleratedTaint(c.taints, tolerations);
      if (t) return { plugin: PLUGIN_TAINT_TOLERATION, reason: untoleratedTaintReason(t) };
    }
    // WorkloadAffinity, WorkloadAntiAffinity
    if (workloadAffinity) return workloadAffinity(c.name, isTarget);
    return null;
  };
}
