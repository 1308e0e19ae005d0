/**
 * The graceful eviction controller (spec §7): stamps new eviction tasks, and removes a task once the
 * user confirmed it (suppressDeletion false), its grace period ran out, or the binding's new placement
 * is healthy everywhere. Removing a task lets the binding controller delete the old cluster's Work.
 */
import {
  CRBGracefulEvictionControllerName,
  EventReasonEvictWorkloadFromClusterSucceed,
  RBGracefulEvictionControllerName,
} from '../api/constants.js';
import { isClusterBinding } from './binding.js';
import { withMetaAndSpec, isTerminating, parseRefKey, parseTime, refOf, rfc3339, type ObjectRef } from './object.js';
import { emptyResult, type AggregatedStatusItem, type CoreEvent, type ReconcileContext, type ReconcileResult } from './ports.js';

export const EVICTION = 'graceful-eviction';

interface Task {
  fromCluster: string;
  creationTimestamp?: string;
  gracePeriodSeconds?: number;
  suppressDeletion?: boolean;
}

export function reconcileGracefulEviction(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const b = ctx.reader.get(ref, ref.namespace, ref.name);
  if (!b || isTerminating(b)) return emptyResult();
  const tasks = (b.spec?.gracefulEvictionTasks ?? []) as Task[];
  if (!tasks.length) return emptyResult();
  const now = ctx.now.getTime();
  const scheduledForSpec = b.status?.schedulerObservedGeneration === b.metadata.generation;
  const items = (b.status?.aggregatedStatus ?? []) as AggregatedStatusItem[];
  const healthy = new Set(items.filter((i) => i.health === 'Healthy').map((i) => i.clusterName));
  const placementHealthy = ((b.spec?.clusters ?? []) as Array<{ name: string }>).every((c) => healthy.has(c.name));

  const kept: Task[] = [];
  const removed: Task[] = [];
  let requeue: number | undefined;
  const candidate = (seconds: number) => {
    const s = Math.max(1, Math.ceil(seconds));
    requeue = requeue === undefined ? s : Math.min(requeue, s);
  };
  let changed = false;
  for (const t of tasks) {
    const timeout = t.gracePeriodSeconds ?? ctx.options.gracefulEvictionTimeoutSeconds;
    const created = parseTime(t.creationTimestamp);
    if (created === undefined) {
      kept.push({ ...t, creationTimestamp: rfc3339(ctx.now) });
      changed = true;
      if (t.suppressDeletion === undefined) candidate(timeout);
      continue;
    }
    if (t.suppressDeletion === true) {
      kept.push(t);
      continue;
    }
    if (t.suppressDeletion === false) {
      removed.push(t);
      continue;
    }
    // Karmada compares with Before(now); at second resolution, "reached" is what a user expects.
    if (now >= created + timeout * 1000) {
      removed.push(t);
      continue;
    }
    if (scheduledForSpec && placementHealthy) {
      removed.push(t);
      continue;
    }
    kept.push(t);
    candidate((created + timeout * 1000 - now) / 1000);
  }
  if (!changed && !removed.length) return { ...emptyResult(), requeueAfterSeconds: requeue };
  const next = withMetaAndSpec(b);
  if (kept.length) next.spec.gracefulEvictionTasks = kept;
  else delete next.spec.gracefulEvictionTasks;
  const events: CoreEvent[] = [];
  const source = isClusterBinding(b) ? CRBGracefulEvictionControllerName : RBGracefulEvictionControllerName;
  const tref = b.spec?.resource as ObjectRef | undefined;
  for (const t of removed) {
    for (const o of tref ? [refOf(b), tref] : [refOf(b)]) {
      events.push({ involvedObject: o, type: 'Normal', reason: EventReasonEvictWorkloadFromClusterSucceed, message: `Evict from cluster ${t.fromCluster} succeed.`, source });
    }
  }
  return { writes: [{ op: 'update', object: next }], events, requeueAfterSeconds: requeue };
}
