/**
 * The cluster controller: for a live Cluster, its not-ready/unreachable taints follow the Ready
 * condition (taint.ts: NoSchedule at once, NoExecute after the failure threshold); a Cluster being
 * deleted takes its execution namespace's Works with it (the member objects are left alone once the
 * cluster is not ready), then the namespace itself, then its finalizer goes. A live Cluster gets that finalizer on its first
 * reconcile, as Karmada's ensureFinalizer does, so a Cluster joined by hand (kubectl apply) cannot be
 * deleted from under its Works.
 */
import {
  ClusterControllerFinalizer,
  ClusterControllerName,
  DefaultClusterFailureThresholdSeconds,
  EventReasonRemoveExecutionSpaceFailed,
  EventReasonRemoveExecutionSpaceSucceed,
  EventReasonTaintClusterSucceed,
  generateExecutionSpaceName,
} from '../api/constants.js';
import type { Cluster } from '../api/generated/types.js';
import { CLUSTER, NAMESPACE, WORK } from './kinds.js';
import { addFinalizer, hasFinalizer, withMeta, withMetaAndSpec, isTerminating, parseRefKey, refOf, removeFinalizer } from './object.js';
import { emptyResult, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';
import { describeTaint, desiredClusterTaints } from './taint.js';
import { noExecuteEvictionMode } from './taint-manager.js';

export const CLUSTER_CONTROLLER = 'cluster';

export function reconcileCluster(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const c = ctx.reader.get(CLUSTER, undefined, ref.name);
  if (!c) return emptyResult();
  if (!isTerminating(c)) return reconcileLiveCluster(ctx, c);
  if (!hasFinalizer(c, ClusterControllerFinalizer)) return emptyResult();
  const works = ctx.reader.list(WORK, { namespace: generateExecutionSpaceName(ref.name) });
  const writes: Write[] = works.filter((w) => !isTerminating(w)).map((w) => ({ op: 'delete' as const, ref: refOf(w) }));
  if (works.length === 0) {
    // Karmada's removeExecutionSpace: the namespace goes before the finalizer, and a failure keeps the Cluster.
    // Its end is not waited for (a host without the namespace controller would keep the Cluster forever).
    const es = generateExecutionSpaceName(ref.name);
    const about = { involvedObject: refOf(c), source: ClusterControllerName };
    writes.push({
      op: 'delete',
      ref: { apiVersion: NAMESPACE.apiVersion, kind: NAMESPACE.kind, name: es },
      failureEvents: [{ ...about, type: 'Warning', reason: EventReasonRemoveExecutionSpaceFailed, message: `Failed to remove execution space ${es} of cluster(${ref.name}).` }],
    });
    const done = withMeta(c);
    removeFinalizer(done, ClusterControllerFinalizer);
    const removed = { ...about, type: 'Normal' as const, reason: EventReasonRemoveExecutionSpaceSucceed, message: `Removed execution space for cluster(${ref.name}).` };
    writes.push({ op: 'update', object: done, then: () => ({ writes: [], events: [removed] }) });
  }
  return { writes, events: [] };
}

/** The taints that follow the Ready condition, and the finalizer: one update when either is off. */
function reconcileLiveCluster(ctx: ReconcileContext, c: Cluster): ReconcileResult {
  const threshold = ctx.options.clusterFailureThresholdSeconds ?? DefaultClusterFailureThresholdSeconds;
  const d = desiredClusterTaints(c, ctx.now, threshold, noExecuteEvictionMode(ctx.options) === 'failover-policy');
  const requeueAfterSeconds = d.requeueAfterSeconds === undefined ? undefined : Math.max(1, Math.ceil(d.requeueAfterSeconds));
  const stored = c.spec?.taints ?? [];
  const stamped = d.taints.some((t, i) => t !== stored[i]);
  const unguarded = !hasFinalizer(c, ClusterControllerFinalizer);
  if (!d.added.length && !d.removed.length && !stamped && !unguarded) return { ...emptyResult(), requeueAfterSeconds };
  const next = withMetaAndSpec(c);
  if (d.taints.length) next.spec.taints = d.taints;
  else delete next.spec.taints;
  addFinalizer(next, ClusterControllerFinalizer);
  const parts = [
    ...(d.added.length ? [`added ${d.added.map(describeTaint).join(', ')}`] : []),
    ...(d.removed.length ? [`removed ${d.removed.map(describeTaint).join(', ')}`] : []),
  ];
  const events = parts.length
    ? [{ involvedObject: refOf(c), type: 'Normal' as const, reason: EventReasonTaintClusterSucceed, message: `Taints of cluster ${c.metadata.name} changed: ${parts.join('; ')}.`, source: ClusterControllerName }]
    : [];
  return { writes: [{ op: 'update', object: next, then: () => ({ writes: [], events }) }], events: [], requeueAfterSeconds };
}
