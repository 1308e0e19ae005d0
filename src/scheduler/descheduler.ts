/**
 * The descheduler (spec §6) as a pure function: for Deployments divided by available replicas, it
 * takes away the replicas that have stayed unschedulable (pending) on a cluster longer than the
 * threshold. The lowered sum makes the scheduler see a replica mismatch and place those replicas, in
 * Steady mode, on clusters that have room.
 */
import { DefaultDeschedulingIntervalSeconds, DefaultUnschedulableThresholdSeconds } from '../api/constants.js';
import { APPLIED_PLACEMENT_ANNOTATION, EVENT_DESCHEDULE_SUCCEED } from './messages.js';
import { formatTime } from './scheduler.js';
import type { Binding, Clock, Cluster, TargetCluster } from './types.js';
import { nowOf, parsePlacement, replicaSchedulingType } from './types.js';

export const DEFAULT_UNSCHEDULABLE_THRESHOLD_SECONDS = DefaultUnschedulableThresholdSeconds;
export const DEFAULT_DESCHEDULING_INTERVAL_SECONDS = DefaultDeschedulingIntervalSeconds;

/**
 * What one unschedulable-replica estimator says about one workload on one cluster. Either the pending
 * pods with the time each became unschedulable (the threshold is applied here), or a count an
 * estimator already judged (-1 when it does not know).
 */
export interface UnschedulableEstimate {
  namespace: string;
  /** The binding's name. */
  name: string;
  cluster: string;
  pendingSince?: string[];
  unschedulableReplicas?: number;
}

export interface DeschedulerOptions {
  /** `--unschedulable-threshold`, default 5 minutes. */
  unschedulableThresholdSeconds?: number;
  /** `--descheduling-interval`, default 2 minutes. */
  deschedulingIntervalSeconds?: number;
  /** When the previous loop ran; a call before the interval has passed does nothing. */
  lastRunTime?: string;
}

export interface DescheduledCluster {
  cluster: string;
  /** Replicas taken away. */
  replicas: number;
}

export interface DescheduledBinding {
  namespace: string;
  name: string;
  /** The new `spec.clusters` to write. */
  clusters: TargetCluster[];
  descheduled: DescheduledCluster[];
  total: number;
  event: { type: 'Normal'; reason: string; message: string };
}

export interface DescheduleResult {
  /** False when called before the interval since `lastRunTime` has passed. */
  ran: boolean;
  nextRunAt: string;
  bindings: DescheduledBinding[];
}

/** Bindings the descheduler looks at: Deployments whose applied placement divides by available replicas. */
export function qualifiesForDescheduling(b: Binding): boolean {
  if (b.kind === 'ClusterResourceBinding' || (b.kind === undefined && !b.metadata.namespace)) return false;
  if (b.spec.resource.apiVersion !== 'apps/v1' || b.spec.resource.kind !== 'Deployment') return false;
  const raw = b.metadata.annotations?.[APPLIED_PLACEMENT_ANNOTATION];
  if (!raw) return false;
  const p = parsePlacement(raw);
  const rs = p?.replicaScheduling;
  if (!rs || replicaSchedulingType(p) !== 'Divided') return false;
  if (rs.replicaDivisionPreference === 'Aggregated') return true;
  return rs.replicaDivisionPreference === 'Weighted' && !!rs.weightPreference?.dynamicWeight;
}

function readyReplicas(b: Binding): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of b.status?.aggregatedStatus ?? []) {
    const r = item.status?.readyReplicas;
    if (typeof r === 'number') out.set(item.clusterName, r);
  }
  return out;
}

/**
 * The target clusters whose ready replicas fall short of their share (a cluster without status counts
 * as -1 ready): the only ones the estimators are asked about.
 */
export function undesiredClusters(b: Binding): string[] {
  const ready = readyReplicas(b);
  return (b.spec.clusters ?? []).filter((t) => (ready.get(t.name) ?? -1) < (t.replicas ?? 0)).map((t) => t.name);
}

/** The reduction for one cluster: `new = spec - unschedulable`, never below what is already ready. */
export function descheduledReplicas(spec: number, ready: number, unschedulable: number): number {
  if (unschedulable <= 0 || spec < unschedulable) return spec;
  let next = spec - unschedulable;
  if (next < ready && ready <= spec) next = ready;
  return next;
}

export function deschedule(
  bindings: readonly Binding[],
  clusters: readonly Cluster[],
  estimates: readonly UnschedulableEstimate[],
  clock: Clock,
  options: DeschedulerOptions = {},
): DescheduleResult {
  const now = nowOf(clock).getTime();
  const interval = (options.deschedulingIntervalSeconds ?? DEFAULT_DESCHEDULING_INTERVAL_SECONDS) * 1000;
  const threshold = (options.unschedulableThresholdSeconds ?? DEFAULT_UNSCHEDULABLE_THRESHOLD_SECONDS) * 1000;
  if (options.lastRunTime) {
    const last = Date.parse(options.lastRunTime);
    if (!Number.isNaN(last) && now < last + interval) return { ran: false, nextRunAt: formatTime(new Date(last + interval)), bindings: [] };
  }
  const known = new Set(clusters.map((c) => c.metadata.name));
  const byKey = new Map<string, UnschedulableEstimate[]>();
  for (const e of estimates) {
    const k = `${e.namespace}/${e.name}/${e.cluster}`;
    const l = byKey.get(k);
    if (l) l.push(e);
    else byKey.set(k, [e]);
  }
  /** Minimum over estimators; unknown (-1 or no estimator) counts as 0. */
  const unschedulableOf = (ns: string, name: string, cluster: string): number => {
    if (!known.has(cluster)) return 0;
    let min = -1;
    for (const e of byKey.get(`${ns}/${name}/${cluster}`) ?? []) {
      let v: number;
      if (e.pendingSince) v = e.pendingSince.filter((s) => Date.parse(s) + threshold < now).length;
      else v = e.unschedulableReplicas ?? -1;
      if (v < 0) continue;
      if (min < 0 || v < min) min = v;
    }
    return min < 0 ? 0 : min;
  };

  const out: DescheduledBinding[] = [];
  for (const b of bindings) {
    if (b.metadata.deletionTimestamp || !qualifiesForDescheduling(b)) continue;
    const ns = b.metadata.namespace ?? '';
    const name = b.metadata.name ?? '';
    const ready = readyReplicas(b);
    const targets = b.spec.clusters ?? [];
    const undesiredNames = new Set(undesiredClusters(b));
    if (undesiredNames.size === 0) continue;
    const descheduled: DescheduledCluster[] = [];
    const next = targets.map((t) => {
      const spec = t.replicas ?? 0;
      if (!undesiredNames.has(t.name)) return { ...t };
      const n = descheduledReplicas(spec, ready.get(t.name) ?? -1, unschedulableOf(ns, name, t.name));
      if (n < spec) descheduled.push({ cluster: t.name, replicas: spec - n });
      return { ...t, replicas: n };
    });
    if (descheduled.length === 0) continue;
    const total = descheduled.reduce((s, d) => s + d.replicas, 0);
    const parts = descheduled.map((d) => `${d.replicas} replica(s) in cluster(${d.cluster})`);
    out.push({
      namespace: ns,
      name,
      clusters: next,
      descheduled,
      total,
      event: {
        type: 'Normal',
        reason: EVENT_DESCHEDULE_SUCCEED,
        message: `Binding has been descheduled, ${parts.join(', ')}, ${total} total descheduled replica(s)`,
      },
    });
  }
  return { ran: true, nextRunAt: formatTime(new Date(now + interval)), bindings: out };
}
