/**
 * Karmada's WorkloadRebalancer controller (apps.karmada.io/v1alpha1): a user names workloads, and each
 * one's binding gets `spec.rescheduleTriggeredAt` set to the rebalancer's creationTimestamp, which makes
 * the scheduler place it afresh (Fresh mode) instead of keeping the current placement.
 *
 * status.observedWorkloads follows the spec: a workload added is handled; one removed stays listed only
 * if it already succeeded; the list is sorted by "apiVersion kind namespace name". A workload whose
 * binding does not exist is Failed with reason ReferencedBindingNotFound and not tried again (Karmada
 * does the same; editing the spec entry makes it a new workload). finishTime is stamped when the status
 * changes and every workload has a result; with ttlSecondsAfterFinished the rebalancer is deleted that
 * long after finishTime.
 */
import { generateBindingName, RebalanceFailed, RebalanceObjectNotFound, RebalanceSuccessful, WorkloadRebalancerControllerName } from '../api/constants.js';
import { CRB, is, RB, WORKLOAD_REBALANCER } from './kinds.js';
import { deepEqual } from '../json/value.js';
import type { WorkloadRebalancer, WorkloadReference } from '../api/generated/types.js';
import { isTerminating, parseRefKey, parseTime, refKey, refOf, rfc3339, withMetaAndSpec } from './object.js';
import { emptyResult, type ObjectChange, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';

export const WORKLOAD_REBALANCER_CONTROLLER = WorkloadRebalancerControllerName;

export type RebalancerStatus = NonNullable<WorkloadRebalancer['status']>;
export type ObservedWorkload = NonNullable<RebalancerStatus['observedWorkloads']>[number];

/** Karmada compares workloads as Go structs: an absent namespace equals an empty one. */
const workloadKey = (w: WorkloadReference) => `${w.apiVersion} ${w.kind} ${w.namespace ?? ''} ${w.name}`;

/** Karmada's syncWorkloadsFromSpecToStatus. */
export function syncObservedWorkloads(spec: readonly WorkloadReference[], observed: readonly ObservedWorkload[]): ObservedWorkload[] {
  const wanted = new Map(spec.map((w) => [workloadKey(w), w]));
  const out: ObservedWorkload[] = [];
  for (const item of observed) {
    const k = workloadKey(item.workload);
    if (wanted.has(k)) {
      out.push({ ...item });
      wanted.delete(k);
    } else if (item.result === RebalanceSuccessful) out.push({ ...item });
  }
  for (const w of wanted.values()) out.push({ workload: { ...w } });
  const sortKey = (o: ObservedWorkload) => workloadKey(o.workload);
  return out.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
}

/** A trigger older than the rebalancer (or none) is renewed; a newer one is left as it is. */
function needsTrigger(created: string | undefined, triggeredAt: string | undefined): boolean {
  const c = parseTime(created);
  const t = parseTime(triggeredAt);
  return t === undefined || (c !== undefined && c > t);
}

export function reconcileWorkloadRebalancer(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const wr = ctx.reader.get(WORKLOAD_REBALANCER, undefined, ref.name);
  if (!wr || isTerminating(wr)) return emptyResult();
  const old: RebalancerStatus = wr.status ?? {};
  const spec: readonly WorkloadReference[] = wr.spec?.workloads ?? [];
  const observed = syncObservedWorkloads(spec, old.observedWorkloads ?? []);
  const writes: Write[] = [];
  const created = wr.metadata.creationTimestamp ?? undefined;
  for (const item of observed) {
    if (item.result === RebalanceSuccessful || item.result === RebalanceFailed) continue;
    const w = item.workload;
    const name = generateBindingName(w.kind, w.name);
    const binding = w.namespace ? ctx.reader.get(RB, w.namespace, name) : ctx.reader.get(CRB, undefined, name);
    if (!binding) {
      item.result = RebalanceFailed;
      item.reason = RebalanceObjectNotFound;
      continue;
    }
    if (needsTrigger(created, binding.spec?.rescheduleTriggeredAt)) {
      const next = withMetaAndSpec(binding);
      next.spec.rescheduleTriggeredAt = created ?? rfc3339(ctx.now);
      // Before the status write: a failed binding update leaves the status alone and the reconcile is retried.
      writes.push({ op: 'update', object: next });
    }
    item.result = RebalanceSuccessful;
  }
  const next: RebalancerStatus = { observedWorkloads: observed, observedGeneration: wr.metadata.generation ?? 0 };
  const same = deepEqual(old.observedWorkloads ?? [], observed) && (old.observedGeneration ?? 0) === next.observedGeneration;
  // Every workload has a result here: the status is final for this generation once it changes.
  const finishTime = same ? old.finishTime : rfc3339(ctx.now);
  if (finishTime) next.finishTime = finishTime;
  if (!same) writes.push({ op: 'updateStatus', object: { ...wr, status: next } });
  const ttl = wr.spec?.ttlSecondsAfterFinished;
  if (typeof ttl !== 'number' || !finishTime) return { writes, events: [] };
  const left = (parseTime(finishTime)! + ttl * 1000 - ctx.now.getTime()) / 1000;
  if (left > 0) return { writes, events: [], requeueAfterSeconds: Math.ceil(left) };
  writes.push({ op: 'delete', ref: refOf(wr) });
  return { writes, events: [] };
}

/** Karmada's predicate: a rebalancer created, or its spec changed; deletions and status writes are ignored. */
export function workloadRebalancerKeys(c: ObjectChange): string[] {
  if (c.cluster !== undefined || c.type === 'DELETED' || !is(c.object, WORKLOAD_REBALANCER)) return [];
  if (c.type === 'MODIFIED' && c.old && deepEqual(c.old.spec, c.object.spec)) return [];
  return [refKey(refOf(c.object))];
}
