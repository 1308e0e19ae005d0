/**
 * The execution controller (spec §4): for one Work, the Dispatching condition, then (unless
 * suspended) the apply of its manifest to the member cluster with conflict resolution and retention,
 * and the Applied condition; on Work deletion, the member object is deleted or preserved.
 */
import {
  ClusterConditionReady,
  ClusterPropagationPolicyAnnotation,
  ClusterPropagationPolicyPermanentIDLabel,
  ConflictResolutionAnnotation,
  ConflictResolutionOverwrite,
  EventReasonPreserveSkippedMissing,
  EventReasonSyncFailed,
  EventReasonSyncSucceed,
  EventReasonWorkDispatching,
  ExecutionControllerFinalizer,
  ExecutionControllerName,
  getClusterName,
  ManagedAnnotationsAnnotation,
  ManagedLabel,
  ManagedLabelValue,
  ManagedLabelsAnnotation,
  ManagedResourceAnnotations,
  ManagedResourceLabels,
  PropagationPolicyNameAnnotation,
  PropagationPolicyNamespaceAnnotation,
  PropagationPolicyPermanentIDLabel,
  ResourceTemplateUIDAnnotation,
  WorkApplied,
  WorkAppliedFailedReason,
  workAppliedFailedMessage,
  WorkAppliedSuccessfulMessage,
  WorkAppliedSuccessfulReason,
  WorkDispatching,
  WorkDispatchingMessage,
  WorkDispatchingReason,
  WorkSuspendDispatchingMessage,
  WorkSuspendDispatchingReason,
} from '../api/constants.js';
import { CLUSTER, WORK } from './kinds.js';
import { errorMessage } from '../json/error.js';
import type { Cluster, Work } from '../api/generated/types.js';
import { deepClone, deepEqual, deepEqualExcept } from '../json/value.js';
import { withMeta, findCondition, isTerminating, parseRefKey, refOf, removeFinalizer, setCondition, type KObject, type ObjectRef } from './object.js';
import { reflectManifests } from './manifest-status.js';
import { emptyResult, ReaderNotReadyError, ReadForbiddenError, type CoreEvent, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';

export const EXECUTION = 'execution';

/** A member object's create or update: the writes reconcileWork chains its Work's status to. */
type MemberWrite = Extract<Write, { op: 'create' | 'update' }>;

export function isClusterReady(cluster: Cluster | undefined): boolean {
  return findCondition(cluster?.status?.conditions ?? [], ClusterConditionReady)?.status === 'True';
}

export function manifestsOf(w: Work): KObject[] {
  return (w.spec?.workload?.manifests ?? []).filter((m) => m && typeof m === 'object');
}

function manifestRef(m: KObject): ObjectRef {
  return { apiVersion: m.apiVersion, kind: m.kind, namespace: m.metadata?.namespace, name: m.metadata?.name ?? '' };
}

/** The template a manifest came from, for events: the manifest's identity plus the uid annotation. */
function templateRefOf(m: KObject): ObjectRef {
  const r = manifestRef(m);
  const uid = m.metadata?.annotations?.[ResourceTemplateUIDAnnotation];
  if (uid) r.uid = uid;
  return r;
}

export function reconcileWork(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const w = ctx.reader.get(WORK, ref.namespace, ref.name);
  if (!w) return emptyResult();
  let clusterName: string;
  try {
    clusterName = getClusterName(w.metadata.namespace ?? '');
  } catch (e) {
    return { ...emptyResult(), error: errorMessage(e) };
  }
  const cluster = ctx.reader.get(CLUSTER, undefined, clusterName);
  if (isTerminating(w)) return deleteWork(ctx, w, clusterName, cluster);
  if (!cluster) return { ...emptyResult(), error: `cluster(${clusterName}) not found: the Work's namespace names no Cluster object` };

  const events: CoreEvent[] = [];
  const writes: MemberWrite[] = [];
  const wref = refOf(w);
  let conditions = w.status?.conditions ?? [];

  // Dispatching: written only when missing or its status flips, each write with an event.
  const suspended = w.spec?.suspendDispatching === true;
  const dispatching = suspended
    ? { type: WorkDispatching, status: 'False' as const, reason: WorkSuspendDispatchingReason, message: WorkSuspendDispatchingMessage }
    : { type: WorkDispatching, status: 'True' as const, reason: WorkDispatchingReason, message: WorkDispatchingMessage };
  const cur = findCondition(conditions, WorkDispatching);
  if (!cur || cur.status !== dispatching.status) {
    conditions = setCondition(conditions, dispatching, ctx.now);
    events.push({ involvedObject: wref, type: 'Normal', reason: EventReasonWorkDispatching, message: dispatching.message, source: ExecutionControllerName });
  }
  const statusWrite = (): Write[] => {
    if (deepEqual(conditions, w.status?.conditions ?? [])) return [];
    return [{ op: 'updateStatus', object: { ...w, status: { ...(w.status ?? {}), conditions } } }];
  };
  if (suspended) return { writes: statusWrite(), events };
  if (!isClusterReady(cluster)) return { writes: statusWrite(), events, error: `cluster(${clusterName}) not ready` };

  const manifests = manifestsOf(w);
  const errors: string[] = [];
  let ok = 0;
  let wrote = false;
  /** Which manifest each member write is for (the first-Applied status below needs the objects they return). */
  const writeOf: number[] = [];
  for (const [i, m] of manifests.entries()) {
    try {
      const write = applyManifest(ctx, m, clusterName);
      if (write) {
        writes.push(write);
        writeOf.push(i);
        wrote = true;
      }
      ok++;
    } catch (e) {
      // A member cache still filling is no apply failure: no Applied=False, no event, just a retry. A kind the
      // member refuses to list is one (deploy/agent/README.md: the agent's member role), reported until it is granted.
      if (e instanceof ReaderNotReadyError && !(e instanceof ReadForbiddenError)) throw e;
      errors.push(errorMessage(e));
    }
  }
  const wname = `${w.metadata.namespace}/${w.metadata.name}`;
  if (errors.length) {
    const msg = errors.join(', ');
    conditions = setCondition(conditions, { type: WorkApplied, status: 'False', reason: WorkAppliedFailedReason, message: workAppliedFailedMessage(ok, manifests.length, msg) }, ctx.now);
    events.push({ involvedObject: wref, type: 'Warning', reason: EventReasonSyncFailed, message: `Failed to sync work(${wname}) to cluster(${clusterName}), err: ${msg}`, source: ExecutionControllerName });
    for (const m of manifests) events.push({ involvedObject: templateRefOf(m), type: 'Warning', reason: EventReasonSyncFailed, message: msg, source: ExecutionControllerName });
    return { writes: [...writes, ...statusWrite()], events, error: msg };
  }
  const before = findCondition(conditions, WorkApplied);
  conditions = setCondition(conditions, { type: WorkApplied, status: 'True', reason: WorkAppliedSuccessfulReason, message: WorkAppliedSuccessfulMessage }, ctx.now);
  if (wrote || before?.status !== 'True') {
    events.push({ involvedObject: wref, type: 'Normal', reason: EventReasonSyncSucceed, message: `Sync work(${wname}) to cluster(${clusterName}) successful.`, source: ExecutionControllerName });
    for (const m of manifests) {
      events.push({
        involvedObject: templateRefOf(m),
        type: 'Normal',
        reason: EventReasonSyncSucceed,
        message: `Successfully applied resource(${m.metadata?.namespace ? `${m.metadata.namespace}/` : ''}${m.metadata?.name}) to cluster ${clusterName}`,
        source: ExecutionControllerName,
      });
    }
  }
  if (before?.status === 'True' || !writes.length) return { writes: [...writes, ...statusWrite()], events };

  // A Work's first Applied=True carries its manifests' reflected status too (README differs 53),
  // from the objects the member writes returned and the member's copy of the rest: the work-status
  // controller, which waits for Applied=True, then finds its list there and writes nothing. When the
  // interpreter cannot answer in the continuation (a webhook or worker-pool call still running),
  // `orElse` writes Applied alone, as Karmada does, and the work-status controller adds the list.
  const stored = manifests.map((m) => ctx.reader.get(m, m.metadata?.namespace, m.metadata?.name ?? '', clusterName));
  const appliedWithStatuses = (): { writes: Write[]; events: CoreEvent[] } => {
    const status: NonNullable<Work['status']> = { ...(w.status ?? {}), conditions };
    const reflected = reflectManifests(ctx, w, manifests, (i) => stored[i]);
    // A failing reflect hook is the work-status controller's to report and retry.
    if (reflected.error) return { writes: statusWrite(), events: [] };
    if (reflected.statuses.length) status.manifestStatuses = reflected.statuses;
    return { writes: [{ op: 'updateStatus', object: { ...w, status } }], events: reflected.events };
  };
  const last = writes.length - 1;
  const chained = writes.map((write, k): MemberWrite => {
    const i = writeOf[k]!;
    if (k < last) return { ...write, then: (written) => ((stored[i] = written), { writes: [] }) };
    return { ...write, then: (written) => ((stored[i] = written), appliedWithStatuses()), orElse: () => ({ writes: statusWrite() }) };
  });
  return { writes: chained, events };
}

/** Creates or updates one member object; undefined when the member already matches. Throws on conflict. */
function applyManifest(ctx: ReconcileContext, manifest: KObject, cluster: string): MemberWrite | undefined {
  const r = manifestRef(manifest);
  const observed = ctx.reader.get(r, r.namespace, r.name, cluster);
  // The store copies what it is given (or, in the bench, keeps it as the immutable value it is).
  if (!observed) return { op: 'create', object: manifest, cluster };
  const desired: KObject = { ...manifest, metadata: { ...manifest.metadata } };
  if (observed.metadata.labels?.[ManagedLabel] !== ManagedLabelValue && desired.metadata.annotations?.[ConflictResolutionAnnotation] !== ConflictResolutionOverwrite) {
    throw new Error(
      `resource(kind=${r.kind}, ${r.namespace ? `${r.namespace}/` : ''}${r.name}) already exists in the cluster ${cluster} and the work.karmada.io/conflict-resolution strategy value is empty, Karmada will not manage this resource`,
    );
  }
  const updated = retain(ctx, desired, observed);
  if (sameObject(updated, observed)) return undefined;
  return { op: 'update', object: updated, cluster };
}

/**
 * Keeps what the member cluster owns: resourceVersion (optimistic lock), finalizers, owner references,
 * labels and annotations Karmada never managed; then the interpreter's Retain for the kind.
 */
export function retain(ctx: ReconcileContext, desired: KObject, observed: KObject): KObject {
  const out = desired;
  out.metadata.resourceVersion = observed.metadata.resourceVersion;
  if (observed.metadata.finalizers) out.metadata.finalizers = [...observed.metadata.finalizers];
  else delete out.metadata.finalizers;
  if (observed.metadata.ownerReferences) out.metadata.ownerReferences = deepClone(observed.metadata.ownerReferences);
  else delete out.metadata.ownerReferences;
  out.metadata.labels = mergeMemberOwned(desired.metadata.labels, observed.metadata.labels, observed.metadata.annotations?.[ManagedLabelsAnnotation]);
  out.metadata.annotations = mergeMemberOwned(desired.metadata.annotations, observed.metadata.annotations, observed.metadata.annotations?.[ManagedAnnotationsAnnotation]);
  if (!out.metadata.labels) delete out.metadata.labels;
  if (!out.metadata.annotations) delete out.metadata.annotations;
  if (ctx.interpreter.hookEnabled(desired, 'Retain')) return ctx.interpreter.retain(out, observed);
  return out;
}

function mergeMemberOwned(desired: Record<string, string> | undefined, observed: Record<string, string> | undefined, managedRecord: string | undefined): Record<string, string> | undefined {
  // The managed-key list is only parsed when the member has a key Karmada did not render (rare).
  let managed: Set<string> | undefined;
  const out: Record<string, string> = { ...(desired ?? {}) };
  for (const [k, v] of Object.entries(observed ?? {})) {
    if (k in out) continue;
    managed ??= new Set((managedRecord ?? '').split(',').filter(Boolean));
    if (managed.has(k)) continue;
    out[k] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

const TOP_SKIP = new Set(['status', 'metadata']);
const SERVER_META = new Set(['generation', 'uid', 'creationTimestamp', 'managedFields', 'deletionTimestamp']);

/** Equal apart from what the member's server owns (status, generation, uid, timestamps). */
function sameObject(desired: KObject, observed: KObject): boolean {
  return deepEqualExcept(desired, observed, TOP_SKIP) && deepEqualExcept(desired.metadata, observed.metadata, SERVER_META);
}

/** Work deletion (spec §4.3): preserve or delete the member object, then release the Work. */
function deleteWork(ctx: ReconcileContext, w: Work, clusterName: string, cluster: Cluster | undefined): ReconcileResult {
  if (!w.metadata.finalizers?.includes(ExecutionControllerFinalizer)) return emptyResult();
  const writes: Write[] = [];
  const events: CoreEvent[] = [];
  const release = () => {
    const done = withMeta(w);
    removeFinalizer(done, ExecutionControllerFinalizer);
    writes.push({ op: 'update', object: done });
  };
  // Without a Cluster object there is no member to clean (the cluster was removed): just let go.
  if (!cluster) {
    release();
    return { writes, events };
  }
  if (w.spec?.preserveResourcesOnDeletion === true) {
    for (const m of manifestsOf(w)) {
      const r = manifestRef(m);
      const observed = ctx.reader.get(r, r.namespace, r.name, clusterName);
      if (!observed) {
        // Karmada retries forever here; an object already gone has nothing left to preserve (README point 8).
        events.push({
          involvedObject: refOf(w),
          type: 'Normal',
          reason: EventReasonPreserveSkippedMissing,
          message: `resource(kind=${r.kind}, ${r.namespace ? `${r.namespace}/` : ''}${r.name}) is already gone from cluster ${clusterName}; nothing to preserve`,
          source: ExecutionControllerName,
        });
        continue;
      }
      const desired = stripKarmadaMetadata(deepClone(m));
      const updated = retain(ctx, desired, observed);
      if (!sameObject(updated, observed)) writes.push({ op: 'update', object: updated, cluster: clusterName });
    }
    release();
    return { writes, events };
  }
  if (!isClusterReady(cluster)) {
    if (!isTerminating(cluster)) return { ...emptyResult(), error: `cluster(${clusterName}) not ready` };
    release();
    return { writes, events };
  }
  for (const m of manifestsOf(w)) {
    const r = manifestRef(m);
    const observed = ctx.reader.get(r, r.namespace, r.name, clusterName);
    if (!observed || observed.metadata.labels?.[ManagedLabel] !== ManagedLabelValue) continue;
    writes.push({ op: 'delete', ref: r, cluster: clusterName });
  }
  release();
  return { writes, events };
}

/** What a preserved member object loses: Karmada's managed labels and annotations and its claim. */
export function stripKarmadaMetadata(m: KObject): KObject {
  const labels = { ...(m.metadata.labels ?? {}) };
  const ann = { ...(m.metadata.annotations ?? {}) };
  if (m.metadata.namespace) {
    delete labels[PropagationPolicyPermanentIDLabel];
    delete ann[PropagationPolicyNamespaceAnnotation];
    delete ann[PropagationPolicyNameAnnotation];
  } else {
    delete labels[ClusterPropagationPolicyPermanentIDLabel];
    delete ann[ClusterPropagationPolicyAnnotation];
  }
  for (const l of ManagedResourceLabels) delete labels[l];
  for (const a of ManagedResourceAnnotations) delete ann[a];
  if (Object.keys(labels).length) m.metadata.labels = labels;
  else delete m.metadata.labels;
  if (Object.keys(ann).length) m.metadata.annotations = ann;
  else delete m.metadata.annotations;
  return m;
}
