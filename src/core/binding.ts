/**
 * The binding controller (spec §3): from a scheduled ResourceBinding / ClusterResourceBinding, one
 * Work per target cluster in `karmada-es-<cluster>`, with replicas revised per cluster, overrides
 * applied, suspension and preservation flags, and the labels and annotations Karmada puts on Works
 * and manifests. Works of clusters that left the binding are deleted (orphans).
 */
import {
  AppliedClusterOverridesAnnotation,
  AppliedOverridesAnnotation,
  BindingControllerFinalizer,
  BindingControllerName,
  ClusterResourceBindingAnnotation,
  ClusterResourceBindingControllerFinalizer,
  ClusterResourceBindingControllerName,
  ConflictResolutionAbort,
  ConflictResolutionAnnotation,
  ConflictResolutionOverwrite,
  DirectlyPurgeRequeueSeconds,
  EventReasonApplyOverridePolicyFailed,
  EventReasonApplyOverridePolicySucceed,
  EventReasonCleanupWorkFailed,
  EventReasonSyncWorkFailed,
  EventReasonSyncWorkSucceed,
  ExecutionControllerFinalizer,
  fnv32a,
  generateExecutionSpaceName,
  generateWorkName,
  getClusterName,
  ManagedAnnotationsAnnotation,
  ManagedLabel,
  ManagedLabelsAnnotation,
  ManagedLabelValue,
  PurgeModeDirectly,
  ResourceBindingNameAnnotation,
  ResourceBindingNamespaceAnnotation,
  ResourceTemplateGenerationAnnotation,
  ResourceTemplateUIDAnnotation,
  WorkGroupVersion,
  WorkNameAnnotation,
  WorkNamespaceAnnotation,
  WorkPermanentIDLabel,
} from '../api/constants.js';
import { bindingId, bindingIdLabel } from './claim.js';
import { bindingType, CLUSTER, WORK, type Binding, type BindingTarget, type GracefulEvictionTask } from './kinds.js';
import { deepClone, deepEqual } from '../json/value.js';
import { withMeta, getLabel, lastOf, isTerminating, nsName, parseRefKey, refOf, removeFinalizer, type KObject } from './object.js';
import { errorMessage } from '../json/error.js';
import type { ResourceBindingSpec, Work } from '../api/generated/types.js';
import { flat, intern, uuidShaped } from '../json/strings.js';
import { applyOverridePolicies, type AppliedOverrideItem } from './override.js';
import { DETECTOR, detectorKey } from './detector.js';
import { emptyResult, ReaderNotReadyError, type CoreEvent, type EnqueueRequest, type ObjectReader, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';
import { pruneInPlace } from './prune.js';
import { isClusterReady } from './execution.js';
import { rolloutRender } from './rollout.js';
import { takeByWeight } from '../scheduler/webster.js';

export const BINDING = 'binding';
/** Karmada's Work path drops a Job's ttlSecondsAfterFinished too (native-interpreters spec §8). */
const PRUNE_FOR_WORK = { jobTTL: true } as const;

export function isClusterBinding(b: { kind: string }): boolean {
  return b.kind === 'ClusterResourceBinding';
}

function controllerName(b: { kind: string }): string {
  return isClusterBinding(b) ? ClusterResourceBindingControllerName : BindingControllerName;
}

/** Purge modes accepted under their proposal names too (spec README point 3). */
export function normalizePurgeMode(mode: string | undefined): string | undefined {
  if (mode === 'Immediately') return 'Directly';
  if (mode === 'Graciously') return 'Gracefully';
  return mode;
}

export function evictionTasksOf(b: Binding): GracefulEvictionTask[] {
  return b.spec?.gracefulEvictionTasks ?? [];
}

/** Clusters whose Works the binding keeps: scheduled, required by dependents, or evicted but not purged yet. */
export function expectedClusters(b: Binding): Set<string> {
  const out = new Set<string>();
  for (const c of b.spec?.clusters ?? []) out.add(c.name);
  for (const r of b.spec?.requiredBy ?? []) for (const c of r.clusters ?? []) out.add(c.name);
  for (const t of evictionTasksOf(b)) if (normalizePurgeMode(t.purgeMode) !== PurgeModeDirectly) out.add(t.fromCluster);
  return out;
}

/** The Works of a binding, found by its permanent id. */
export function worksOf(ctx: ReconcileContext, b: Binding): Work[] {
  return ctx.reader.list(WORK, { labels: { [bindingIdLabel(b)]: bindingId(b) } });
}

export function clusterOfWork(w: { metadata: { namespace?: string } }): string {
  return getClusterName(w.metadata.namespace ?? '');
}

export function reconcileBinding(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const b = ctx.reader.get(bindingType(ref), ref.namespace, ref.name);
  if (!b) return emptyResult();
  const works = worksOf(ctx, b);
  const writes: Write[] = [];
  const events: CoreEvent[] = [];
  const bref = refOf(b);
  const source = controllerName(b);

  if (isTerminating(b)) {
    for (const w of works) writes.push({ op: 'delete', ref: refOf(w) });
    const fin = isClusterBinding(b) ? ClusterResourceBindingControllerFinalizer : BindingControllerFinalizer;
    if (b.metadata.finalizers?.includes(fin)) {
      const done = withMeta(b);
      removeFinalizer(done, fin);
      writes.push({ op: 'update', object: done });
      const enqueue = successorKeys(ctx, b);
      if (enqueue.length) return { writes, events, enqueue };
    }
    return { writes, events };
  }

  // The template is gone: the binding goes, as the garbage collector would take it (templateGone).
  if (templateGone(ctx, b)) return { writes: [{ op: 'delete', ref: refOf(b) }], events };

  // Orphans: Works in clusters the binding no longer expects.
  const expected = expectedClusters(b);
  const live: Work[] = [];
  for (const w of works) {
    let cluster: string;
    try {
      cluster = clusterOfWork(w);
    } catch (e) {
      events.push({ involvedObject: bref, type: 'Warning', reason: EventReasonCleanupWorkFailed, message: errorMessage(e), source });
      continue;
    }
    if (!expected.has(cluster)) {
      if (!isTerminating(w)) writes.push({ op: 'delete', ref: refOf(w) });
    } else live.push(w);
  }

  // A Directly eviction holds every render until the evicted cluster's Work is gone (while that cluster can delete it).
  if (directlyPurgePending(ctx.reader, b, works)) return { writes, events, requeueAfterSeconds: DirectlyPurgeRequeueSeconds };

  const r = b.spec?.resource;
  if (!r) return { writes, events };
  const tpl = ctx.reader.get(r, r.namespace, r.name);
  if (!tpl) return { writes, events };

  const targets: BindingTarget[] = [...(b.spec?.clusters ?? [])];
  const seen = new Set(targets.map((t) => t.name));
  for (const req of b.spec?.requiredBy ?? []) {
    for (const c of req.clusters ?? []) {
      if (!seen.has(c.name)) {
        seen.add(c.name);
        targets.push(c);
      }
    }
  }

  // A staged rollout (src/core/rollout.ts) says which template each cluster renders from; until the rollout
  // controller first wrote the binding's status, nothing is rendered.
  const rollout = rolloutRender(ctx.reader, b, tpl);
  if (rollout === 'pending') return { writes, events };
  const byCluster = new Map(live.map((w) => [safeCluster(w), w]));
  const errors: string[] = [];
  const revisions = new Map<number, KObject>();
  const decorated = new Map<KObject, KObject>();
  const stableRevisions = new Map<number, KObject>();
  const stableDecorated = new Map<KObject, KObject>();
  const completions = jobCompletions(b, tpl, targets);
  for (const target of targets) {
    try {
      const choice = rollout?.(target.name);
      const stable = choice !== undefined && choice.template !== tpl;
      const from = stable ? choice.template : tpl;
      const rendered = renderWork(ctx, b, from, target, byCluster.get(target.name), events, stable ? stableRevisions : revisions, stable ? stableDecorated : decorated, completions?.get(target.name), choice?.hold === true);
      if (rendered) writes.push(rendered);
    } catch (e) {
      errors.push(errorMessage(e));
    }
  }
  const tref = refOf(tpl);
  const what = isClusterBinding(b) ? `ClusterResourceBinding(${b.metadata.name})` : `ResourceBinding(${nsName(b.metadata.namespace, b.metadata.name!)})`;
  const changed = writes.length > 0;
  if (errors.length) {
    const msg = errors.join('; ');
    for (const o of [bref, tref]) events.push({ involvedObject: o, type: 'Warning', reason: EventReasonSyncWorkFailed, message: msg, source });
    return { writes, events, error: msg };
  }
  if (changed) {
    for (const o of [bref, tref]) events.push({ involvedObject: o, type: 'Normal', reason: EventReasonSyncWorkSucceed, message: `Sync work of ${what} successful.`, source });
  }
  return { writes, events };
}

/**
 * Whether the binding outlived the template it was built from: the object its controller owner reference
 * names is gone, or that name now holds another object (deleted and created again: another uid). This is
 * the garbage collector's rule for a dependent, which Karmada relies on; the binding controller applies it
 * as well, on every pass, so that a host without a garbage collector, or a controller that was down when
 * the template went (no watch event ever comes for it), still deletes the binding, whose deletion then
 * takes its Works and their member copies (preserveResourcesOnDeletion and the managed-label check
 * apply as for any deletion). A binding without such an owner (written by hand) is nobody's dependent;
 * a terminating template is still there, as it is for the collector. A template kind whose cache is still
 * filling throws ReaderNotReadyError: absent means absent.
 */
export function templateGone(ctx: ReconcileContext, b: Binding): boolean {
  const owner = ownerTemplate(ctx, b);
  return owner !== undefined && (owner.template === undefined || isReplaced(owner));
}

interface OwnerTemplate {
  /** What holds the owner's name now, if anything. */
  template: KObject | undefined;
  /** The owner's uid, from the owner reference (the binding's spec.resource.uid where it has none). */
  uid: string | undefined;
}

/** The template the binding's controller owner reference names (undefined: nobody owns the binding). */
function ownerTemplate(ctx: ReconcileContext, b: Binding): OwnerTemplate | undefined {
  const r = b.spec?.resource;
  const owner = b.metadata.ownerReferences?.find((o) => o.controller === true);
  if (!r || !owner || owner.kind !== r.kind || owner.name !== r.name) return undefined;
  return { template: ctx.reader.get(r, r.namespace, r.name), uid: (typeof owner.uid === 'string' && owner.uid) || r.uid };
}

/** The owner's name holds another object: the template was deleted and created again. */
function isReplaced(o: OwnerTemplate): o is OwnerTemplate & { template: KObject } {
  const now = o.template?.metadata.uid;
  return !!o.uid && !!now && now !== o.uid;
}

/**
 * The detector key of the template created again under the name of a binding being deleted: the detector
 * refuses to take over a binding another uid owns, and is told to look again as soon as this one is let go
 * instead of after its back-off. A template kind still being cached is left to that back-off.
 */
function successorKeys(ctx: ReconcileContext, b: Binding): EnqueueRequest[] {
  let owner: OwnerTemplate | undefined;
  try {
    owner = ownerTemplate(ctx, b);
  } catch (e) {
    if (e instanceof ReaderNotReadyError) return [];
    throw e;
  }
  return owner && isReplaced(owner) ? [{ controller: DETECTOR, key: detectorKey(refOf(owner.template)) }] : [];
}

function safeCluster(w: Work): string {
  try {
    return clusterOfWork(w);
  } catch {
    return '';
  }
}

/**
 * A Divided Job's completions, split across its clusters in proportion to their replicas (Webster's
 * method, ties broken by the template's uid), as Karmada re-splits them per cluster.
 */
export function jobCompletions(b: Binding, tpl: KObject, targets: readonly BindingTarget[]): Map<string, number> | undefined {
  if (tpl.apiVersion !== 'batch/v1' || tpl.kind !== 'Job') return undefined;
  const completions = tpl.spec?.completions;
  if (typeof completions !== 'number' || (b.spec?.replicas ?? 0) <= 0) return undefined;
  const rs = b.spec?.placement?.replicaScheduling;
  if (!rs || (rs.replicaSchedulingType ?? 'Divided') !== 'Divided') return undefined;
  const seats = takeByWeight(completions, targets.map((t) => ({ name: t.name, votes: t.replicas ?? 0 })), tpl.metadata.uid);
  return new Map(seats.map((x) => [x.name, x.seats]));
}

function isWorkloadBinding(b: Binding): boolean {
  return (b.spec?.replicas ?? 0) > 0 || !!b.spec?.replicaRequirements || (b.spec?.components?.length ?? 0) > 0;
}

/** The conflict-resolution annotation a Work gets: the template's valid annotation, else the binding's policy. */
export function conflictResolutionFor(tpl: KObject, b: Binding): string {
  const a = tpl.metadata.annotations?.[ConflictResolutionAnnotation];
  if (a === ConflictResolutionOverwrite || a === ConflictResolutionAbort) return a;
  return b.spec?.conflictResolution === 'Overwrite' ? ConflictResolutionOverwrite : ConflictResolutionAbort;
}

export function isSuspendedFor(b: { spec?: ResourceBindingSpec }, cluster: string): boolean {
  const s = b.spec?.suspension;
  if (!s) return false;
  return s.dispatching === true || (s.dispatchingOnClusters?.clusterNames ?? []).includes(cluster);
}

/**
 * The template's Work name, one string for all its clusters (they render one after the other). Not
 * interned: every template has its own, and a map of 100,000 names costs more per lookup than it saves.
 */
const workNameOf = lastOf((tpl: KObject) => flat(generateWorkName(tpl.kind, tpl.metadata.name!, tpl.metadata.namespace)));

/** Builds the Work for one target cluster and returns the write that brings the store to it, if any. */
function renderWork(
  ctx: ReconcileContext,
  b: Binding,
  tpl: KObject,
  target: BindingTarget,
  existing: Work | undefined,
  events: CoreEvent[],
  revisions: Map<number, KObject>,
  decorated: Map<KObject, KObject>,
  completions: number | undefined,
  hold = false,
): Write | undefined {
  // Clusters with the same replica count share one revised, pruned base (the interpreter is asked once
  // per count); each Work then gets its own metadata over the shared, never-mutated body.
  const revise = isWorkloadBinding(b) && ctx.interpreter.hookEnabled(tpl, 'ReviseReplica');
  const n = revise ? (target.replicas ?? 0) : -1;
  let base = revisions.get(n);
  if (!base) {
    base = revise ? ctx.interpreter.reviseReplica(deepClone(tpl), n) : deepClone(tpl);
    pruneInPlace(base, PRUNE_FOR_WORK);
    revisions.set(n, base);
  }
  let manifest: KObject = completions === undefined ? base : { ...base, spec: { ...base.spec, completions } };
  const cluster = ctx.reader.get(CLUSTER, undefined, target.name);
  if (!cluster) throw new Error(`cluster ${target.name} not found: the binding targets a cluster the control plane does not know`);
  let clusterOverrides: AppliedOverrideItem[];
  let namespacedOverrides: AppliedOverrideItem[];
  // Set when no override patched the shared base: its decorated form can be reused by other clusters.
  let unpatched: KObject | undefined;
  try {
    // The manifest is this render's own copy, and overrides patch copies of it: no clone needed.
    const out = applyOverridePolicies(ctx.reader, manifest, cluster);
    // A patched manifest is a fresh copy and may have regained what pruning removes.
    if (out.manifest !== manifest) pruneInPlace(out.manifest, PRUNE_FOR_WORK);
    else if (completions === undefined) unpatched = base;
    // A manifest of its own to decorate, unless an earlier cluster's decorated copy of the same base is reused.
    manifest = unpatched && decorated.has(unpatched) ? out.manifest : { ...out.manifest, metadata: { ...out.manifest.metadata } };
    clusterOverrides = out.clusterOverrides;
    namespacedOverrides = out.namespacedOverrides;
  } catch (e) {
    events.push({ involvedObject: refOf(tpl), type: 'Warning', reason: EventReasonApplyOverridePolicyFailed, message: errorMessage(e), source: controllerName(b) });
    throw e;
  }
  if (clusterOverrides.length || namespacedOverrides.length) {
    const names = [...clusterOverrides, ...namespacedOverrides].map((o) => o.policyName);
    events.push({
      involvedObject: refOf(tpl),
      type: 'Normal',
      reason: EventReasonApplyOverridePolicySucceed,
      message: `Apply override policy(${[...new Set(names)].join(', ')}) for cluster(${target.name}) succeed.`,
      source: controllerName(b),
    });
  }

  const crb = isClusterBinding(b);
  const idLabel = bindingIdLabel(b);
  const id = bindingId(b);
  const proto = unpatched && decorated.get(unpatched);
  // The Work permanent id is the only label, and the Work namespace the only annotation, that differ between
  // the clusters sharing one unpatched base; the rest of the decoration (and the managed-key lists, which
  // depend on key sets only) is the same, so later clusters copy the first one's and set those two values.
  const workName = workNameOf(tpl);
  const workNs = intern(generateExecutionSpaceName(target.name));
  const workId = (existing && getLabel(existing, WorkPermanentIDLabel)) || workPermanentId(id, target.name);
  if (proto) {
    manifest = {
      ...proto,
      metadata: {
        ...proto.metadata,
        labels: { ...proto.metadata.labels, [WorkPermanentIDLabel]: workId },
        annotations: { ...proto.metadata.annotations, [WorkNamespaceAnnotation]: workNs },
      },
    };
  } else {
    const injected = ctx.options.statefulFailoverInjection ? injectedLabels(b, target.name) : undefined;
    if (injected) manifest.metadata.labels = { ...(manifest.metadata.labels ?? {}), ...injected };
    decorateManifest(manifest, b, tpl, crb, idLabel, id, workName, workNs, workId);
    // A manifest with injected state is this cluster's alone.
    if (unpatched && !injected) decorated.set(unpatched, manifest);
  }
  const conflict = conflictResolutionFor(tpl, b);
  const workAnn: Record<string, string> = {};
  if (crb) workAnn[ClusterResourceBindingAnnotation] = b.metadata.name!;
  else {
    workAnn[ResourceBindingNamespaceAnnotation] = b.metadata.namespace!;
    workAnn[ResourceBindingNameAnnotation] = b.metadata.name!;
  }
  workAnn[ConflictResolutionAnnotation] = conflict;
  if (namespacedOverrides.length) workAnn[AppliedOverridesAnnotation] = intern(JSON.stringify(namespacedOverrides));
  if (clusterOverrides.length) workAnn[AppliedClusterOverridesAnnotation] = intern(JSON.stringify(clusterOverrides));
  if (existing && isTerminating(existing)) throw new Error(`work ${workNs}/${workName} is being deleted`);
  const spec = {
    workload: { manifests: [manifest] },
    suspendDispatching: hold || isSuspendedFor(b, target.name),
    preserveResourcesOnDeletion: b.spec?.preserveResourcesOnDeletion === true,
  };
  if (!existing) {
    return {
      op: 'create',
      object: {
        apiVersion: WorkGroupVersion,
        kind: 'Work',
        metadata: { name: workName, namespace: workNs, finalizers: [ExecutionControllerFinalizer], labels: { [idLabel]: id, [WorkPermanentIDLabel]: workId }, annotations: workAnn },
        spec,
      },
    };
  }
  const w = withMeta(existing);
  w.metadata.labels = { ...(w.metadata.labels ?? {}), [idLabel]: id };
  w.metadata.annotations = { ...(w.metadata.annotations ?? {}), ...workAnn };
  if (!namespacedOverrides.length) delete w.metadata.annotations[AppliedOverridesAnnotation];
  if (!clusterOverrides.length) delete w.metadata.annotations[AppliedClusterOverridesAnnotation];
  if (!w.metadata.finalizers?.includes(ExecutionControllerFinalizer)) w.metadata.finalizers = [...(w.metadata.finalizers ?? []), ExecutionControllerFinalizer];
  w.spec = spec;
  if (deepEqual(w, existing)) return undefined;
  return { op: 'update', object: w };
}

/**
 * Gate StatefulFailoverInjection: the state preserved by the last eviction goes, as labels, to the one
 * cluster the application moved to, when that eviction was Directly and the cluster is a new one.
 */
function injectedLabels(b: Binding, cluster: string): Record<string, string> | undefined {
  if ((b.spec?.clusters ?? []).length !== 1) return undefined;
  const tasks = b.spec?.gracefulEvictionTasks ?? [];
  const last = tasks[tasks.length - 1];
  if (!last?.preservedLabelState || normalizePurgeMode(last.purgeMode) !== PurgeModeDirectly) return undefined;
  if ((last.clustersBeforeFailover ?? []).includes(cluster)) return undefined;
  return last.preservedLabelState;
}

/** The labels and annotations Karmada puts on a Work's manifest (BuildWork and CreateOrUpdateWork), in place. */
function decorateManifest(manifest: KObject, b: Binding, tpl: KObject, crb: boolean, idLabel: string, id: string, workName: string, workNs: string, workId: string): void {
  manifest.metadata.labels = { ...(manifest.metadata.labels ?? {}), [idLabel]: id };
  const mAnn: Record<string, string> = { ...(manifest.metadata.annotations ?? {}) };
  const gen = tpl.metadata.generation ?? 0;
  if (gen > 0) mAnn[ResourceTemplateGenerationAnnotation] = intern(String(gen));
  if (crb) mAnn[ClusterResourceBindingAnnotation] = b.metadata.name!;
  else {
    mAnn[ResourceBindingNamespaceAnnotation] = b.metadata.namespace!;
    mAnn[ResourceBindingNameAnnotation] = b.metadata.name!;
  }
  const conflict = conflictResolutionFor(tpl, b);

  // CreateOrUpdateWork's decoration of the manifest.
  mAnn[ResourceTemplateUIDAnnotation] = tpl.metadata.uid ?? '';
  mAnn[WorkNameAnnotation] = workName;
  mAnn[WorkNamespaceAnnotation] = workNs;
  mAnn[ConflictResolutionAnnotation] = conflict;
  manifest.metadata.annotations = mAnn;
  manifest.metadata.labels[ManagedLabel] = ManagedLabelValue;
  delete manifest.metadata.annotations['deployment.kubernetes.io/revision'];
  // The Work webhook stamps a permanent id on create; a stable one derived from the binding's id and
  // the cluster serves the same purpose and lets the manifest carry it from the first render.
  manifest.metadata.labels[WorkPermanentIDLabel] = workId;
  setManagedKeys(manifest);
}

/** A uuid-shaped id, stable for a (binding, cluster) pair. */
export function workPermanentId(bindingId: string, cluster: string): string {
  // One per new Work: the four salted hashes are computed over the pieces, without building the strings.
  const ascii = isAscii(bindingId) && isAscii(cluster);
  const a = saltedHash('a', bindingId, cluster, ascii);
  const b = saltedHash('b', bindingId, cluster, ascii);
  const c = saltedHash('c', bindingId, cluster, ascii);
  const d = saltedHash('d', bindingId, cluster, ascii);
  return uuidShaped(a, b, c, d, '8');
}

/** fnv32a(`${salt}/${bindingId}/${cluster}`); FNV-1a runs over UTF-8 bytes, which are the characters for ASCII. */
function saltedHash(salt: string, bindingId: string, cluster: string, ascii: boolean): number {
  if (!ascii) return fnv32a(`${salt}/${bindingId}/${cluster}`);
  let h = fnvAscii(0x811c9dc5, salt);
  h = Math.imul(h ^ 0x2f, 0x01000193) >>> 0;
  h = fnvAscii(h, bindingId);
  h = Math.imul(h ^ 0x2f, 0x01000193) >>> 0;
  return fnvAscii(h, cluster);
}

function fnvAscii(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * Records which labels and annotations Karmada manages on the member object, so that a key dropped
 * from the template is dropped from the member too (instead of being kept as member-owned).
 */
export function setManagedKeys(manifest: KObject): void {
  const ann = { ...(manifest.metadata.annotations ?? {}) };
  ann[ManagedAnnotationsAnnotation] = '';
  ann[ManagedLabelsAnnotation] = '';
  ann[ManagedAnnotationsAnnotation] = intern(Object.keys(ann).sort().join(','));
  ann[ManagedLabelsAnnotation] = intern(Object.keys(manifest.metadata.labels ?? {}).sort().join(','));
  manifest.metadata.annotations = ann;
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
