/**
 * Cluster removal: a Cluster being deleted takes its execution namespace's Works with it (the member
 * objects are left alone once the cluster is not ready), then its finalizer goes.
 */
import { ClusterControllerFinalizer, generateExecutionSpaceName } from '../api/constants.js';
import { WORK } from './kinds.js';
import { withMeta, isTerminating, parseRefKey, refOf, removeFinalizer } from './object.js';
import { emptyResult, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';

export const CLUSTER_CONTROLLER = 'cluster';

export function reconcileCluster(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const c = ctx.reader.get(ref, undefined, ref.name);
  if (!c || !isTerminating(c) || !c.metadata.finalizers?.includes(ClusterControllerFinalizer)) return emptyResult();
  const works = ctx.reader.list(WORK, { namespace: generateExecutionSpaceName(ref.name) });
  const writes: Write[] = works.filter((w) => !isTerminating(w)).map((w) => ({ op: 'delete' as const, ref: refOf(w) }));
  if (works.length === 0) {
    const done = withMeta(c);
    removeFinalizer(done, ClusterControllerFinalizer);
    writes.push({ op: 'update', object: done });
  }
  return { writes, events: [] };
}
