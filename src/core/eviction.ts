/**
 * The graceful eviction controller (spec §7): stamps new eviction tasks, and removes a task once the
 * user confirmed it (suppressDeletion false), its grace period ran out, or the binding's new placement
 * is healthy everywhere. Removing a task lets the binding controller delete the old cluster's Work.
 */
import {
  CRBGracefulEvictionControllerName,
  EventReasonEvictWorkloadFromClusterSucceed,
  PurgeModeDirectly,
  RBGracefulEvictionControllerName,
} from '../api/constants.js';
import type { ResourceBindingSpec, Work } from '../api/generated/types.js';
import { clusterOfWork, evictionTasksOf, isClusterBinding, normalizePurgeMode } from './binding.js';
import { isClusterReady } from './execution.js';
import { bindingType, CLUSTER, type Binding } from './kinds.js';
import { withMetaAndSpec, isTerminating, parseRefKey, parseTime, refOf, rfc3339 } from './object.js';
import { emptyResult, type CoreEvent, type ObjectReader, type ReconcileContext, type ReconcileResult } from './ports.js';

export const EVICTION = 'graceful-eviction';

/** A graceful-eviction task; its purge mode as the policy spelt it, normalized but not checked. */
export type EvictionTask = Omit<NonNullable<ResourceBindingSpec['gracefulEvictionTasks']>[number], 'purgeMode'> & { purgeMode?: string };

export function reconcileGracefulEviction(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const b = ctx.reader.get(bindingType(ref), ref.namespace, ref.name);
  if (!b || isTerminating(b)) return emptyResult();
  const tasks = b.spec?.gracefulEvictionTasks ?? [];
  if (!tasks.length) return emptyResult();
  const now = ctx.now.getTime();
  const scheduledForSpec = b.status?.schedulerObservedGeneration === b.metadata.generation;
  const items = b.status?.aggregatedStatus ?? [];
  const healthy = new Set(items.filter((i) => i.health === 'Healthy').map((i) => i.clusterName));
  const placementHealthy = (b.spec?.clusters ?? []).every((c) => healthy.has(c.name));

  const kept: EvictionTask[] = [];
  const removed: EvictionTask[] = [];
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
  const tref = b.spec?.resource;
  for (const t of removed) {
    for (const o of tref ? [refOf(b), tref] : [refOf(b)]) {
      events.push({ involvedObject: o, type: 'Normal', reason: EventReasonEvictWorkloadFromClusterSucceed, message: `Evict from cluster ${t.fromCluster} succeed.`, source });
    }
  }
  return { writes: [{ op: 'update', object: next }], events, requeueAfterSeconds: requeue };
}

/**
 * Whether a Directly eviction still holds the binding's rendering (spec §3 step 3): one of its Works is left
 * in a cluster a Directly task evicts, and that cluster is Ready, so the Work's deletion can go through.
 * karmada-lite differs from Karmada here (README): a cluster that is not Ready deletes nothing (the execution
 * controller keeps its Works until it is back), so Karmada's hold would keep the healthy clusters from the
 * replicas the scheduler gave them for as long as the dead one stays down. Its Work, deleted already, goes
 * (with the member copy) when it is Ready again.
 */
export function directlyPurgePending(reader: ObjectReader, b: Binding, works: readonly Work[]): boolean {
  const directly = new Set(evictionTasksOf(b).filter((t) => normalizePurgeMode(t.purgeMode) === PurgeModeDirectly).map((t) => t.fromCluster));
  if (!directly.size) return false;
  for (const w of works) {
    let cluster: string;
    try {
      cluster = clusterOfWork(w);
    } catch {
      continue;
    }
    if (directly.has(cluster) && isClusterReady(reader.get(CLUSTER, undefined, cluster))) return true;
  }
  return false;
}
