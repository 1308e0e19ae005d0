/**
 * The scheduler's write-back: runs one scheduling pass (the ScheduleFn port, src/scheduler) for a
 * binding and turns its outcome into the spec patch (clusters + applied-placement annotation), the
 * status patch (Scheduled condition, observed generation) and events. Only bindings claimed by a
 * policy, or managed by a third party, are scheduled.
 */
import {
  AppliedPlacementAnnotation,
  BindingScheduled,
  BindingManagedByLabel,
  ClusterPropagationPolicyPermanentIDLabel,
  PropagationPolicyPermanentIDLabel,
  SchedulerName,
} from '../api/constants.js';
import { bindingType, CLUSTER, is, RB, type Binding } from './kinds.js';
import { groupPeers, sharedGroups } from '../scheduler/workload-affinity.js';
import { chargeScheduledBinding } from './federated-resource-quota.js';
import { errorMessage } from '../json/error.js';
import { deepClone, deepEqual } from '../json/value.js';
import { findCondition, getLabel, isTerminating, parseRefKey, parseTime, refOf, type KObject } from './object.js';
import { intern } from '../json/strings.js';
import { accurateEstimator } from './node-estimator.js';
import { emptyResult, type CoreEvent, type ObjectReader, type ReconcileContext, type ReconcileResult, type ScheduleExtras, type SchedulePass, type Write } from './ports.js';

export const SCHEDULER = 'scheduler';

export function isSchedulable(b: KObject): boolean {
  return !!(getLabel(b, PropagationPolicyPermanentIDLabel) || getLabel(b, ClusterPropagationPolicyPermanentIDLabel) || getLabel(b, BindingManagedByLabel));
}

/** What the scheduler reads beside the binding and the clusters: the accurate estimator, the workload groups' peers. */
function scheduleExtras(ctx: ReconcileContext, b: Binding): ScheduleExtras | undefined {
  const extras: ScheduleExtras = {};
  if (ctx.capacity && ctx.options.schedulerEstimator !== false) extras.estimators = [accurateEstimator(ctx.capacity, { resourceQuotaEstimate: ctx.options.resourceQuotaEstimate })];
  const groups = b.spec?.workloadAffinityGroups;
  if (ctx.options.workloadAffinity && is(b, RB) && (groups?.affinityGroup || groups?.antiAffinityGroup)) {
    const peers = groupPeers(b, ctx.reader.list(RB, { namespace: b.metadata.namespace }));
    if (peers) extras.workloadGroups = peers;
  }
  return extras.estimators || extras.workloadGroups ? extras : undefined;
}

/**
 * A binding the scheduler has still to place: its current generation not yet seen, or not Scheduled. What a
 * Cluster's capacity change (src/core/controllers.ts) and a workload-group peer's move wake again.
 */
export function awaitingPlacement(b: Binding): boolean {
  return b.status?.schedulerObservedGeneration !== b.metadata.generation || findCondition(b.status?.conditions, BindingScheduled)?.status !== 'True';
}

/**
 * A binding of a workload group whose targets changed (or that went away) can make room for, or pin, the other
 * bindings of its groups: those not scheduled yet are looked at again now rather than at their next retry.
 */
export function workloadGroupPeerKeys(b: Binding, reader: ObjectReader): Binding[] {
  const groups = b.spec?.workloadAffinityGroups;
  if (!is(b, RB) || !(groups?.affinityGroup || groups?.antiAffinityGroup)) return [];
  return reader.list(RB, { namespace: b.metadata.namespace }).filter((o) => {
    const shared = sharedGroups(b, o);
    return (shared.affinity || shared.antiAffinity) && awaitingPlacement(o);
  });
}

export function reconcileSchedule(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const b = ctx.reader.get(bindingType(ref), ref.namespace, ref.name);
  if (!b || isTerminating(b) || !isSchedulable(b)) return emptyResult();
  const clusters = ctx.reader.list(CLUSTER).filter((c) => !isTerminating(c));
  let pass: SchedulePass;
  try {
    pass = ctx.schedule(b, clusters, ctx.now, scheduleExtras(ctx, b));
  } catch (e) {
    return { ...emptyResult(), error: `scheduling ${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name} failed: ${errorMessage(e)}` };
  }
  const events: CoreEvent[] = [];
  const bref = refOf(b);
  const tref = b.spec?.resource;
  for (const ev of pass.events) {
    const involved = ev.object === 'binding' ? bref : tref;
    if (involved) events.push({ involvedObject: involved, type: ev.type, reason: ev.reason, message: ev.message, source: SchedulerName });
  }

  // Only spec.clusters and one annotation change: copy those paths, share the rest.
  const next: Binding = { ...b, metadata: { ...b.metadata }, spec: { ...b.spec } };
  let specChanged = false;
  if (pass.clusters !== undefined) {
    const clustersNow = pass.clusters === null || pass.clusters.length === 0 ? undefined : pass.clusters;
    if (!deepEqual(clustersNow, b.spec?.clusters)) {
      if (clustersNow) next.spec.clusters = deepClone(clustersNow);
      else delete next.spec.clusters;
      specChanged = true;
    }
  }
  if (pass.appliedPlacement !== undefined && b.metadata.annotations?.[AppliedPlacementAnnotation] !== pass.appliedPlacement) {
    next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [AppliedPlacementAnnotation]: intern(pass.appliedPlacement) };
    specChanged = true;
  }
  // The continuation gets the binding as stored (a KObject to the port): its status is copied as a record.
  const statusOf = (base: KObject): Write[] => {
    const status: Record<string, unknown> = { ...(base.status ?? {}) };
    for (const [k, v] of Object.entries(pass.status)) {
      if (v === undefined) delete status[k];
      else status[k] = v;
    }
    return deepEqual(status, base.status ?? {}) ? [] : [{ op: 'updateStatus', object: { ...base, status } }];
  };
  const writes: Write[] = [];
  if (specChanged) {
    // FederatedQuotaEnforcement: Karmada's ResourceBinding webhook refuses or charges this very update.
    const quota = chargeScheduledBinding(ctx, b, next);
    if (quota.refused) return quota.refused;
    writes.push(...quota.writes);
    writes.push({ op: 'update', object: next, then: (written) => ({ writes: statusOf(written) }) });
  } else if (pass.statusChanged) {
    writes.push(...statusOf(b));
  }
  const result: ReconcileResult = { writes, events };
  if (pass.error && pass.retry) result.error = pass.error.message;
  const until = parseTime(pass.evictionBlockExpiresAt);
  if (pass.error && until !== undefined) result.requeueAfterSeconds = Math.max(1, Math.ceil((until - ctx.now.getTime()) / 1000));
  return result;
}
