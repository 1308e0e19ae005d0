/**
 * The descheduler (spec: scheduler §6) as a controller: a ResourceBinding of a Deployment divided by
 * available replicas whose replicas on some cluster are not all ready asks each such member how many
 * replicas cannot be scheduled there (estimator.ts); replicas unschedulable for longer than
 * `--unschedulable-threshold` are taken out of spec.clusters (src/scheduler's `deschedule`), and the
 * scheduler, seeing the sum fall short, places them in Steady mode on clusters that have room.
 *
 * Karmada's descheduler lists every binding once per `--descheduling-interval`. Here a binding is looked
 * at when it changes and then again every interval for as long as some cluster is short of ready
 * replicas: the same bound (threshold + interval) without a loop over every binding.
 */
import { AppliedPlacementAnnotation, DeschedulerComponentName, EventReasonDescheduleBindingFailed, EventReasonDescheduleBindingSucceed } from '../api/constants.js';
import { deschedule, qualifiesForDescheduling, undesiredClusters } from '../scheduler/index.js';
import type { ResourceBinding } from '../api/generated/types.js';
import { estimateUnschedulable } from './estimator.js';
import { CLUSTER, isOf, RB } from './kinds.js';
import { deepEqual } from '../json/value.js';
import { isTerminating, parseRefKey, refKey, refOf, withMetaAndSpec, type ObjectRef } from './object.js';
import { emptyResult, type CoreEvent, type ObjectChange, type ReconcileContext, type ReconcileResult } from './ports.js';

export const DESCHEDULER = 'descheduler';

/** The wait before a binding short of ready replicas is looked at again; 0 (Karmada: run continuously) is one second. */
export function deschedulingRequeueSeconds(ctx: ReconcileContext): number {
  return Math.max(1, ctx.options.deschedulingIntervalSeconds ?? 0);
}

/** Whether the descheduler has anything to look at in this binding (its watch predicate and the reconcile's first test). */
export function deschedulable(b: ResourceBinding): boolean {
  return !isTerminating(b) && b.kind === RB.kind && qualifiesForDescheduling(b);
}

export function reconcileDeschedule(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const b = ctx.reader.get(RB, ref.namespace, ref.name);
  if (!b || !deschedulable(b)) return emptyResult();
  const undesired = undesiredClusters(b);
  if (undesired.length === 0) return emptyResult();
  const requeueAfterSeconds = deschedulingRequeueSeconds(ctx);
  const clusters = ctx.reader.list(CLUSTER);
  const byName = new Map(clusters.map((c) => [c.metadata.name!, c]));
  const estimates = undesired.flatMap((name) => {
    const c = byName.get(name);
    return c ? [estimateUnschedulable(ctx.reader, b, c, ctx.capacity)] : [];
  });
  const res = deschedule([b], clusters, estimates, ctx.now, {
    unschedulableThresholdSeconds: ctx.options.unschedulableThresholdSeconds,
    deschedulingIntervalSeconds: ctx.options.deschedulingIntervalSeconds,
  });
  const out = res.bindings[0];
  if (!out) return { ...emptyResult(), requeueAfterSeconds };
  const next = withMetaAndSpec(b);
  next.spec.clusters = out.clusters;
  // Karmada records the outcome on the binding and on its template.
  const involved: ObjectRef[] = [refOf(b)];
  const resource = b.spec?.resource;
  if (resource?.kind && resource.name) {
    involved.push({ apiVersion: resource.apiVersion, kind: resource.kind, namespace: resource.namespace, name: resource.name, ...(resource.uid ? { uid: resource.uid } : {}) });
  }
  const eventsOf = (type: CoreEvent['type'], reason: string, message: string): CoreEvent[] =>
    involved.map((o) => ({ involvedObject: o, type, reason, message, source: DeschedulerComponentName }));
  return {
    writes: [
      {
        op: 'update',
        object: next,
        // Recorded once the update is stored, as Karmada records it after a successful Update.
        then: () => ({ writes: [], events: eventsOf('Normal', EventReasonDescheduleBindingSucceed, out.event.message) }),
        failureEvents: eventsOf('Warning', EventReasonDescheduleBindingFailed, `Failed to update binding ${b.metadata.namespace}/${b.metadata.name} with ${out.total} descheduled replica(s).`),
      },
    ],
    events: [],
    requeueAfterSeconds,
  };
}

/** The descheduler's watch: a binding it may act on was added, or its placement, clusters or collected status changed. */
export function deschedulerKeys(c: ObjectChange): string[] {
  if (c.cluster !== undefined || c.type === 'DELETED' || !isOf(c.object, RB) || !deschedulable(c.object)) return [];
  const o = c.old;
  if (
    c.type === 'MODIFIED' &&
    o &&
    deepEqual(o.spec?.clusters, c.object.spec?.clusters) &&
    deepEqual(o.status?.aggregatedStatus, c.object.status?.aggregatedStatus) &&
    o.metadata.annotations?.[AppliedPlacementAnnotation] === c.object.metadata.annotations?.[AppliedPlacementAnnotation]
  ) {
    return [];
  }
  return [refKey(refOf(c.object))];
}
