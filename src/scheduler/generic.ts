/**
 * Karmada's generic scheduler `Schedule` (spec §0): filter, score, select, assign, for one binding and
 * one observed affinity term.
 */
import { errorMessage } from '../json/error.js';
import { assignReplicas, strategyOf, type Candidate } from './assignment.js';
import { estimateReplicas, type AvailabilityOptions } from './available.js';
import { UnschedulableError } from './division.js';
import { compileFilters, isWorkload, observedTerm, type FilterFailure } from './filters.js';
import { MAX_INT32, noClusterAvailable } from './messages.js';
import { clusterLocalityScore } from './score.js';
import { compileClusterAffinity } from './selector.js';
import type { ClusterInfo, ClusterSnapshot } from './snapshot.js';
import { groupClusters, selectBestClusters, SelectionError, shouldIgnoreSpreadConstraint, sortByRank } from './spread.js';
import type { ResourceBindingSpec, ResourceBindingStatus, TargetCluster } from './types.js';
import type { WorkloadGroupPeers } from './workload-affinity.js';

// A module-local copy: read once per feasible cluster, and imported bindings can be getters once transpiled.
const UNBOUNDED = MAX_INT32;

/** No cluster passed the filters. Its message counts the recorded reasons, sorted as strings. */
export class FitError extends Error {
  override name = 'FitError';
  constructor(
    readonly numAllClusters: number,
    readonly diagnosis: ReadonlyMap<string, FilterFailure>,
  ) {
    super(fitErrorMessage(numAllClusters, diagnosis));
  }
}

export function fitErrorMessage(numAll: number, diagnosis: ReadonlyMap<string, FilterFailure>): string {
  if (diagnosis.size === 0) return `${noClusterAvailable(numAll)}: no cluster exists.`;
  const counts = new Map<string, number>();
  for (const f of diagnosis.values()) counts.set(f.reason, (counts.get(f.reason) ?? 0) + 1);
  const parts = [...counts].map(([reason, n]) => `${n} ${reason}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `${noClusterAvailable(numAll)}: ${parts.join(', ')}.`;
}

/** Karmada's diagnosis map: one entry per cluster name. */
export function diagnosisOf(trace: AlgorithmTrace): Map<string, FilterFailure> {
  const m = new Map<string, FilterFailure>();
  for (const r of trace.rejected) m.set(r.name, r.failure);
  return m;
}

export interface AlgorithmOptions extends AvailabilityOptions {
  /** `--enable-empty-workload-propagation`: selected clusters that got no replicas are listed with 0. */
  enableEmptyWorkloadPropagation?: boolean;
  /** Always order the feasible clusters (for reporting them); otherwise skipped where order cannot matter. */
  explain?: boolean;
  /** Told how long each step and each cluster's filters took (the controller's metrics). */
  observe?: AlgorithmObserver;
  /** Feature gate WorkloadAffinity: the clusters the binding's group peers target (workload-affinity.ts). */
  workloadGroups?: WorkloadGroupPeers;
}

/** Karmada's schedule steps, as its scheduling_algorithm_duration_seconds names them. */
export type ScheduleStep = 'Filter' | 'Score' | 'Select' | 'AssignReplicas';

/** The algorithm's timings. It brings the clock, so that the algorithm itself reads none. */
export interface AlgorithmObserver {
  /** Milliseconds, from any origin. */
  now(): number;
  step(step: ScheduleStep, ms: number): void;
  /** Every filter plugin for one cluster (Karmada's Filter extension point): whether it fits. */
  filtered(fits: boolean, ms: number): void;
}

export interface AlgorithmTrace {
  /** Rejected clusters and why, in snapshot order. */
  rejected: Array<{ name: string; failure: FilterFailure }>;
  /** Feasible clusters, with score and replicas figures; in the global order when it matters or `explain` is set. */
  feasible: Candidate[];
  selected: Candidate[];
}

export type AlgorithmResult =
  { ok: true; clusters: TargetCluster[]; trace: AlgorithmTrace } | { ok: false; error: Error; trace: AlgorithmTrace };

/**
 * Whether the global cluster order can change the result. Weighted division (static or dynamic) over
 * all feasible clusters is order-independent: Webster breaks ties by name and returns clusters by
 * name. Skipping the sort there is the scheduler's largest saving for such bindings.
 */
function orderMatters(spec: ResourceBindingSpec): boolean {
  const p = spec.placement ?? {};
  if (!isWorkload(spec) || (spec.components?.length ?? 0) > 1) return true;
  const strategy = strategyOf(spec);
  if (strategy !== 'StaticWeight' && strategy !== 'DynamicWeight') return true;
  return (p.spreadConstraints?.length ?? 0) > 0 && !shouldIgnoreSpreadConstraint(p);
}

/** OverflowOrder: which affinity of the observed term admits the cluster (spec §1.5). */
function overflowOrderFn(spec: ResourceBindingSpec, status: ResourceBindingStatus | null | undefined): (c: ClusterInfo) => number {
  const p = spec.placement ?? {};
  if (p.clusterAffinity || !p.clusterAffinities || p.clusterAffinities.length === 0) return () => 0;
  const term = observedTerm(p, status);
  if (!term) return () => 0;
  const inline = compileClusterAffinity(term);
  const overflow = (term.overflowAffinities ?? []).map(compileClusterAffinity);
  return (c) => {
    if (inline(c)) return 0;
    for (let i = 0; i < overflow.length; i++) if (overflow[i]!(c)) return i + 1;
    return 1000;
  };
}

export function runAlgorithm(
  spec: ResourceBindingSpec,
  status: ResourceBindingStatus | null | undefined,
  snapshot: ClusterSnapshot,
  now: number,
  opts: AlgorithmOptions = {},
): AlgorithmResult {
  const trace: AlgorithmTrace = { rejected: [], feasible: [], selected: [] };
  const obs = opts.observe;
  let stepStart = obs?.now() ?? 0;
  const endStep = (step: ScheduleStep) => {
    if (!obs) return;
    const t = obs.now();
    obs.step(step, t - stepStart);
    stepStart = t;
  };
  const compiled = compileFilters(spec, status, now, snapshot, opts.workloadGroups);
  const filter: typeof compiled = obs
    ? (c, i) => {
        const t = obs.now();
        const f = compiled(c, i);
        obs.filtered(f === null, obs.now() - t);
        return f;
      }
    : compiled;
  const feasibleInfos: ClusterInfo[] = [];
  const indices: number[] = [];
  const all = snapshot.clusters;
  for (let i = 0; i < all.length; i++) {
    const c = all[i]!;
    if (c.deleting) continue;
    const f = filter(c, i);
    if (f) trace.rejected.push({ name: c.name, failure: f });
    else {
      feasibleInfos.push(c);
      indices.push(i);
    }
  }
  endStep('Filter');
  if (feasibleInfos.length === 0) {
    return { ok: false, error: new FitError(snapshot.clusters.length, diagnosisOf(trace)), trace };
  }

  const score = clusterLocalityScore(spec);
  const raw = estimateReplicas(feasibleInfos, spec, opts);
  const replicas = spec.replicas ?? 0;
  const nonWorkload = replicas === 0 && (spec.components?.length ?? 0) === 0;
  const unbounded = new Set<string>();
  const assigned = new Map<string, number>();
  for (const t of spec.clusters ?? []) if (!assigned.has(t.name)) assigned.set(t.name, t.replicas ?? 0);
  const order = isWorkload(spec) ? overflowOrderFn(spec, status) : () => 0;
  const details = new Array<Candidate>(feasibleInfos.length);
  for (let i = 0; i < feasibleInfos.length; i++) {
    const info = feasibleInfos[i]!;
    let allocatable = raw[i]!;
    if (!nonWorkload && allocatable === UNBOUNDED) {
      allocatable = replicas;
      unbounded.add(info.name);
    }
    details[i] = {
      name: info.name,
      info,
      score: score(info),
      allocatable,
      available: allocatable + (assigned.size === 0 ? 0 : (assigned.get(info.name) ?? 0)),
      overflowOrder: order(info),
      region: info.region,
      nameRank: undefined,
    };
  }
  const placement = spec.placement ?? {};
  if (opts.explain || opts.enableEmptyWorkloadPropagation || orderMatters(spec)) {
    const ranks = snapshot.nameRank;
    for (let i = 0; i < details.length; i++) details[i]!.nameRank = ranks[indices[i]!]!;
    sortByRank(details, snapshot.clusters.length);
  }
  endStep('Score');
  const groups = groupClusters(details, placement, spec.replicas ?? 0, true);
  trace.feasible = details;

  let selected: Candidate[];
  try {
    selected = selectBestClusters(placement, groups, spec.replicas ?? 0);
  } catch (e) {
    if (!(e instanceof SelectionError)) throw e;
    return { ok: false, error: new Error(`failed to select clusters: ${e.message}`), trace };
  }
  trace.selected = selected;
  endStep('Select');

  let clusters: TargetCluster[];
  try {
    clusters = assignReplicas(selected, {
      spec,
      status,
      estimate: (cands, share) => cands.map((c) => (unbounded.has(c.name) ? share : c.allocatable)),
    });
  } catch (e) {
    const msg = `failed to assign replicas: ${errorMessage(e)}`;
    return { ok: false, error: e instanceof UnschedulableError ? new UnschedulableError(msg) : new Error(msg), trace };
  }
  endStep('AssignReplicas');
  if (opts.enableEmptyWorkloadPropagation) {
    const have = new Set(clusters.map((c) => c.name));
    for (const s of selected) if (!have.has(s.name)) clusters.push({ name: s.name, replicas: 0 });
  }
  return { ok: true, clusters, trace };
}
