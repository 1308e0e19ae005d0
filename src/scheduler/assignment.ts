/**
 * `AssignReplicas` (spec §2.1, §2.5, §3): picks the strategy, runs it (per overflow tier when the
 * observed affinity term has overflow affinities) and drops clusters left with no replicas.
 */
import { assignDynamic, assignStaticWeight, UnschedulableError, type Replicas } from './division.js';
import { observedTerm } from './filters.js';
import { ERR_NO_CLUSTERS_AVAILABLE, ERR_OVERFLOW_NOT_ENOUGH, errUnsupportedStrategy } from './messages.js';
import type { ClusterInfo } from './snapshot.js';
import type { ClusterDetail } from './spread.js';
import { replicaSchedulingType, type ResourceBindingSpec, type ResourceBindingStatus, type TargetCluster } from './types.js';

export type Strategy = 'Duplicated' | 'Aggregated' | 'DynamicWeight' | 'StaticWeight';

/** `nil` replicaScheduling means Duplicated; Divided needs an explicit preference (the webhook defaults it). */
export function strategyOf(spec: ResourceBindingSpec): Strategy | Error {
  const rs = spec.placement?.replicaScheduling;
  if (!rs) return 'Duplicated';
  const type = replicaSchedulingType(spec.placement);
  const pref = rs.replicaDivisionPreference ?? '';
  if (type === 'Duplicated') return 'Duplicated';
  if (type === 'Divided') {
    if (pref === 'Aggregated') return 'Aggregated';
    if (pref === 'Weighted') return rs.weightPreference?.dynamicWeight ? 'DynamicWeight' : 'StaticWeight';
  }
  return new Error(errUnsupportedStrategy(type, pref));
}

/** A selected cluster as assignment sees it. */
export interface Candidate extends ClusterDetail {
  info: ClusterInfo;
}

export interface AssignContext {
  spec: ResourceBindingSpec;
  status: ResourceBindingStatus | null | undefined;
  /**
   * AllocatableReplicas of `candidates` for a copy of the spec whose replicas field is `replicas` (an
   * overflow tier's share): clusters no estimator could bound get `replicas`.
   */
  estimate(candidates: readonly Candidate[], replicas: number): number[];
}

/** `RescheduleRequired`: both times set and the trigger strictly newer. */
export function rescheduleRequired(triggeredAt: string | null | undefined, lastScheduled: string | null | undefined): boolean {
  if (!triggeredAt || !lastScheduled) return false;
  const t = Date.parse(triggeredAt);
  const l = Date.parse(lastScheduled);
  return !Number.isNaN(t) && !Number.isNaN(l) && t > l;
}

function runStrategy(
  strategy: Strategy,
  candidates: readonly Candidate[],
  replicas: number,
  allocatable: readonly number[],
  ctx: AssignContext,
): Replicas[] {
  const { spec, status } = ctx;
  const uid = spec.resource.uid;
  switch (strategy) {
    case 'Duplicated':
      return candidates.map((c) => ({ name: c.name, replicas }));
    case 'StaticWeight':
      return assignStaticWeight(
        candidates.map((c) => c.info),
        replicas,
        spec.placement?.replicaScheduling?.weightPreference,
        uid,
      );
    case 'Aggregated':
    case 'DynamicWeight':
      return assignDynamic({
        strategy,
        candidates: candidates.map((c, i) => ({ name: c.name, allocatable: allocatable[i]! })),
        replicas,
        previous: spec.clusters ?? [],
        fresh: rescheduleRequired(spec.rescheduleTriggeredAt, status?.lastScheduledTime),
        uid,
      });
  }
}

const positive = (list: Replicas[]): TargetCluster[] =>
  list.filter((r) => r.replicas > 0).map((r) => ({ name: r.name, replicas: r.replicas }));

/**
 * Overflow tiers fill in affinity order: each tier takes what its clusters can hold (their own
 * replicas included) and divides that share with the normal strategy. A tier that can hold nothing
 * is skipped rather than run with zero replicas.
 */
function assignWithOverflow(strategy: Strategy, candidates: readonly Candidate[], ctx: AssignContext): TargetCluster[] {
  const tiers = new Map<number, Candidate[]>();
  for (const c of candidates) {
    const t = tiers.get(c.overflowOrder);
    if (t) t.push(c);
    else tiers.set(c.overflowOrder, [c]);
  }
  const order = [...tiers.keys()].sort((a, b) => a - b);
  let remaining = ctx.spec.replicas ?? 0;
  const out: TargetCluster[] = [];
  for (const o of order) {
    if (remaining <= 0) break;
    const tier = tiers.get(o)!;
    let capacity = 0;
    for (const c of tier) capacity += c.available;
    const share = Math.min(remaining, capacity);
    if (share <= 0) continue;
    out.push(...positive(runStrategy(strategy, tier, share, ctx.estimate(tier, share), ctx)));
    remaining -= share;
  }
  if (remaining > 0) throw new UnschedulableError(ERR_OVERFLOW_NOT_ENOUGH);
  return out;
}

/** Whether the observed clusterAffinities term brings overflow tiers (spec §2.5 "When active"). */
export function overflowActive(spec: ResourceBindingSpec, status: ResourceBindingStatus | null | undefined): boolean {
  const p = spec.placement;
  if (!p || p.clusterAffinity || !p.clusterAffinities || !status?.schedulerObservingAffinityName) return false;
  const term = observedTerm(p, status);
  return term?.overflowAffinities != null;
}

export function assignReplicas(candidates: readonly Candidate[], ctx: AssignContext): TargetCluster[] {
  const { spec, status } = ctx;
  if (candidates.length === 0) throw new Error(ERR_NO_CLUSTERS_AVAILABLE);
  const replicas = spec.replicas ?? 0;
  const workload = (replicas > 0 || spec.replicaRequirements != null) && (spec.components?.length ?? 0) <= 1;
  if (!workload) return candidates.map((c) => ({ name: c.name }));
  const strategy = strategyOf(spec);
  if (strategy instanceof Error) throw strategy;
  if (overflowActive(spec, status)) return assignWithOverflow(strategy, candidates, ctx);
  return positive(
    runStrategy(
      strategy,
      candidates,
      replicas,
      candidates.map((c) => c.allocatable),
      ctx,
    ),
  );
}
