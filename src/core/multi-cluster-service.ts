/**
 * MultiClusterService with types [CrossCluster] (Karmada's pkg/controllers/multiclusterservice), as three
 * pure reconcilers:
 *
 * - `multiclusterservice` (mcs_controller.go): claims the Service of the same name and propagates it to the
 *   provider and consumer clusters through its own ResourceBinding (placement by cluster names; the binding,
 *   scheduler and execution controllers do the rest), and marks each Ready provider with a Work carrying the
 *   MultiClusterService, dispatching suspended: the marker the collector looks for. ServiceApplied condition,
 *   SyncService* events.
 * - `endpointsliceCollect` (endpointslice_collect_controller.go): the EndpointSlices of the Service on a
 *   provider member, as the member's own EndpointSlice controller wrote them, reported into that provider's
 *   execution namespace as suspended Works (never applied back).
 * - `endpointsliceDispatch` (endpointslice_dispatch_controller.go): each reported EndpointSlice sent to every
 *   consumer but its own provider as `<provider>-<name>` with Karmada's managed-by label and provision-cluster
 *   annotation, in a Work the execution controller applies. EndpointSliceDispatched condition,
 *   DispatchEndpointSlice* events.
 *
 * Deleting the MultiClusterService (or dropping CrossCluster) retires the markers, which retires the reported
 * Works, whose dispatch finalizer deletes the consumers' Works, whose execution finalizer deletes the slices.
 */
import {
  BindingControllerFinalizer,
  BindingGroupVersion,
  BindingManagedByLabel,
  EndpointSliceControllerLabelValue,
  EndpointSliceDispatchControllerLabelValue,
  EndpointSliceDispatchedConditionType,
  EndpointSliceDispatchedMessage,
  EndpointSliceDispatchedSucceedReason,
  EndpointSliceManagedByLabel,
  EndpointSliceProvisionClusterAnnotation,
  EndpointSliceServiceNameLabel,
  EndpointSliceWorkManagedByLabel,
  EventReasonAPIIncompatible,
  EventReasonClusterNotFound,
  EventReasonDispatchEndpointSliceSucceed,
  EventReasonSyncServiceFailed,
  EventReasonSyncServiceSucceed,
  ExecutionControllerFinalizer,
  generateBindingName,
  generateExecutionSpaceName,
  generateWorkName,
  getClusterName,
  MCSControllerFinalizer,
  MCSEndpointSliceDispatchControllerFinalizer,
  MCSServiceAppliedConditionType,
  MCSServiceAppliedFailedReason,
  MCSServiceAppliedMessage,
  MCSServiceAppliedSucceedReason,
  MultiClusterServiceKind,
  MultiClusterServiceNameAnnotation,
  MultiClusterServiceNameLabel,
  MultiClusterServiceNamespaceAnnotation,
  MultiClusterServiceNamespaceLabel,
  MultiClusterServicePermanentIDLabel,
  ResourceTemplateClaimedByLabel,
  ClusterPropagationPolicyPermanentIDLabel,
  PropagationPolicyPermanentIDLabel,
  PropagationPolicyNameAnnotation,
  PropagationPolicyNamespaceAnnotation,
  ClusterPropagationPolicyAnnotation,
  ManagedLabel,
  ManagedLabelValue,
  WorkGroupVersion,
  WorkPermanentIDLabel,
  ManagedLabelsAnnotation,
  ManagedAnnotationsAnnotation,
} from '../api/constants.js';
import type { Cluster, MultiClusterService, ResourceBinding, Work } from '../api/generated/types.js';
import { deepEqual } from '../json/value.js';
import { isClusterReady, manifestsOf } from './execution.js';
import { CLUSTER, is, isOf, MCS, RB, WORK } from './kinds.js';
import {
  addFinalizer,
  findCondition,
  getAnnotation,
  getLabel,
  hasFinalizer,
  isTerminating,
  parseRefKey,
  refKey,
  refOf,
  removeFinalizer,
  setAnnotation,
  setCondition,
  setLabel,
  withMeta,
  type KObject,
  type TypeRef,
} from './object.js';
import { emptyResult, isChangeOf, type ControllerSpec, type CoreEvent, type ObjectChange, type ObjectReader, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';

/** Karmada's names for them in --controllers. */
export const MCS_CONTROLLER = 'multiclusterservice';
export const ENDPOINTSLICE_COLLECT = 'endpointsliceCollect';
export const ENDPOINTSLICE_DISPATCH = 'endpointsliceDispatch';
/** The event sources, Karmada's controller names. */
const MCS_SOURCE = 'multiclusterservice-controller';
const DISPATCH_SOURCE = 'endpointslice-dispatch-controller';

export const SERVICE: TypeRef = { apiVersion: 'v1', kind: 'Service' };
export const ENDPOINT_SLICE: TypeRef = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };

export function crossClusterEnabled(mcs: Pick<MultiClusterService, 'spec'> | undefined): boolean {
  return (mcs?.spec?.types ?? []).includes('CrossCluster');
}

/** Karmada's GetProviderClusters / GetConsumerClusters: the names given, or every cluster when none is. */
function clustersOf(reader: ObjectReader, selectors: readonly { name: string }[] | undefined): string[] {
  const named = (selectors ?? []).map((s) => s.name).filter(Boolean);
  const names = named.length ? named : reader.list(CLUSTER).map((c) => c.metadata.name ?? '');
  return [...new Set(names)].sort();
}

export const providerClusters = (reader: ObjectReader, mcs: MultiClusterService): string[] => clustersOf(reader, mcs.spec?.providerClusters);
export const consumerClusters = (reader: ObjectReader, mcs: MultiClusterService): string[] => clustersOf(reader, mcs.spec?.consumerClusters);

/** The MultiClusterService's permanent id (its mutating webhook's label), its uid without one. */
function mcsId(mcs: MultiClusterService): string {
  return getLabel(mcs, MultiClusterServicePermanentIDLabel) || mcs.metadata.uid || '';
}

export function carries(w: Work, t: TypeRef): boolean {
  return manifestsOf(w).some((m) => is(m, t));
}

/** A slice Karmada wrote itself (dispatched here, or by the ServiceExport flow): never collected again. */
export function isManagedByKarmada(slice: KObject): boolean {
  const by = getLabel(slice, EndpointSliceManagedByLabel);
  return by === EndpointSliceDispatchControllerLabelValue || by === EndpointSliceControllerLabelValue;
}

/** Karmada's Cluster.APIEnablement: disabled only when the cluster's API list is complete and lacks EndpointSlice. */
function endpointSliceDisabled(cluster: Cluster): boolean {
  const enabled = (cluster.status?.apiEnablements ?? []).some((e) => e.groupVersion === ENDPOINT_SLICE.apiVersion && (e.resources ?? []).some((r) => r.kind === ENDPOINT_SLICE.kind));
  return !enabled && findCondition(cluster.status?.conditions, 'CompleteAPIEnablements')?.status === 'True';
}

/**
 * A manifest as Karmada's CreateOrUpdateWork puts it into a Work: labelled managed by Karmada, which is what lets
 * the execution controller update the member's copy later.
 */
export function managed(m: KObject): KObject {
  return { ...m, metadata: { ...m.metadata, labels: { ...(m.metadata.labels ?? {}), [ManagedLabel]: ManagedLabelValue } } };
}

function event(involved: KObject, type: 'Normal' | 'Warning', reason: string, message: string, source: string): CoreEvent {
  return { involvedObject: refOf(involved), type, reason, message, source };
}

/**
 * A Work write: create, or update when labels, annotations, finalizers or spec differ. A reported Work kept by both
 * flows (MultiClusterService and ServiceExport) lists both in its managed-by label.
 */
export function ensureWork(reader: ObjectReader, desired: Work): Write[] {
  const existing = reader.get(WORK, desired.metadata.namespace, desired.metadata.name ?? '');
  if (!existing) return [{ op: 'create', object: desired }];
  if (isTerminating(existing)) return [];
  const next = withMeta(existing);
  next.metadata.labels = { ...(existing.metadata.labels ?? {}), ...(desired.metadata.labels ?? {}) };
  const keepers = [getLabel(existing, EndpointSliceWorkManagedByLabel), getLabel(desired, EndpointSliceWorkManagedByLabel)].flatMap((v) => (v ? v.split('.') : []));
  if (keepers.length) next.metadata.labels[EndpointSliceWorkManagedByLabel] = [...new Set(keepers)].sort().join('.');
  next.metadata.annotations = { ...(existing.metadata.annotations ?? {}), ...(desired.metadata.annotations ?? {}) };
  if (!Object.keys(next.metadata.annotations).length) delete next.metadata.annotations;
  for (const f of desired.metadata.finalizers ?? []) addFinalizer(next, f);
  const spec = { ...(existing.spec ?? {}), ...desired.spec };
  if (deepEqual(next.metadata, existing.metadata) && sameWorkSpec(spec, existing.spec)) return [];
  return [{ op: 'update', object: { ...next, spec } }];
}

/** A manifest without what the Work webhook stamps on it (the Work's id, the managed-keys annotations). */
function unstamped(m: KObject): KObject {
  const labels = { ...(m.metadata?.labels ?? {}) };
  delete labels[WorkPermanentIDLabel];
  const annotations = { ...(m.metadata?.annotations ?? {}) };
  delete annotations[ManagedLabelsAnnotation];
  delete annotations[ManagedAnnotationsAnnotation];
  const metadata = { ...m.metadata };
  if (Object.keys(labels).length) metadata.labels = labels;
  else delete metadata.labels;
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  else delete metadata.annotations;
  return { ...m, metadata };
}

/** Equal Work specs, the manifests compared as written (the webhook's stamps on the stored ones ignored). */
function sameWorkSpec(a: Work['spec'], b: Work['spec']): boolean {
  const { workload: wa, ...ra } = a ?? {};
  const { workload: wb, ...rb } = b ?? {};
  if (!deepEqual(ra, rb)) return false;
  const ma = (wa?.manifests ?? []).map(unstamped);
  const mb = (wb?.manifests ?? []).map(unstamped);
  return deepEqual(ma, mb);
}

// ---------------------------------------------------------------------------------------------
// multiclusterservice

function statusWrite(mcs: MultiClusterService, type: string, status: 'True' | 'False', reason: string, message: string, now: Date): Write[] {
  const conditions = setCondition(mcs.status?.conditions, { type, status, reason, message }, now);
  if (deepEqual(conditions, mcs.status?.conditions ?? [])) return [];
  return [{ op: 'updateStatus', object: { ...mcs, status: { ...(mcs.status ?? {}), conditions } } }];
}

/** The marker Works of a MultiClusterService (its object, dispatching suspended), by provider cluster. */
function markerWorks(reader: ObjectReader, mcs: MultiClusterService): Work[] {
  return reader.list(WORK, { labels: { [MultiClusterServiceNameLabel]: mcs.metadata.name ?? '', [MultiClusterServiceNamespaceLabel]: mcs.metadata.namespace ?? '' } }).filter((w) => carries(w, MCS));
}

/** Works of EndpointSlices reported from one provider for a MultiClusterService (not the dispatched ones). */
function reportedWorks(reader: ObjectReader, namespace: string | undefined, mcsNamespace: string, mcsName: string): Work[] {
  return reader
    .list(WORK, { ...(namespace !== undefined ? { namespace } : {}), labels: { [MultiClusterServiceNameLabel]: mcsName, [MultiClusterServiceNamespaceLabel]: mcsNamespace } })
    .filter((w) => carries(w, ENDPOINT_SLICE) && !getAnnotation(w, EndpointSliceProvisionClusterAnnotation));
}

/**
 * Karmada's cleanProviderClustersEndpointSliceWork: a reported Work another flow also keeps loses this flow's labels
 * (`who`: MultiClusterService or ServiceExport); one only this flow kept is deleted.
 */
export function releaseReported(w: Work, who: string = MultiClusterServiceKind, labels: readonly string[] = [MultiClusterServiceNameLabel, MultiClusterServiceNamespaceLabel]): Write {
  const keepers = (getLabel(w, EndpointSliceWorkManagedByLabel) ?? '').split('.').filter((x) => x && x !== who);
  if (!keepers.length) return { op: 'delete', ref: refOf(w) };
  const next = withMeta(w);
  for (const l of labels) setLabel(next, l, undefined);
  setLabel(next, EndpointSliceWorkManagedByLabel, keepers.sort().join('.'));
  return { op: 'update', object: next };
}

/** Karmada's retrieveMultiClusterService: the markers (and what they reported) of clusters no longer providers. */
function retireMarkers(reader: ObjectReader, mcs: MultiClusterService, keep: ReadonlySet<string>): Write[] {
  const writes: Write[] = [];
  for (const w of markerWorks(reader, mcs)) {
    let cluster: string;
    try {
      cluster = getClusterName(w.metadata.namespace ?? '');
    } catch {
      continue;
    }
    if (keep.has(cluster)) continue;
    for (const r of reportedWorks(reader, w.metadata.namespace, mcs.metadata.namespace ?? '', mcs.metadata.name ?? '')) writes.push(releaseReported(r));
    if (!isTerminating(w)) writes.push({ op: 'delete', ref: refOf(w) });
  }
  return writes;
}

/** Karmada's retrieveService: the Service and its binding let go of the MultiClusterService. */
function releaseService(reader: ObjectReader, mcs: MultiClusterService): Write[] {
  const writes: Write[] = [];
  const ns = mcs.metadata.namespace;
  const name = mcs.metadata.name ?? '';
  const svc = reader.get(SERVICE, ns, name);
  if (!svc) return writes;
  if (getLabel(svc, ResourceTemplateClaimedByLabel) !== undefined || getLabel(svc, MultiClusterServicePermanentIDLabel) !== undefined) {
    const next = withMeta(svc);
    setLabel(next, ResourceTemplateClaimedByLabel, undefined);
    setLabel(next, MultiClusterServicePermanentIDLabel, undefined);
    writes.push({ op: 'update', object: next });
  }
  const rb = reader.get(RB, ns, generateBindingName(SERVICE.kind, name));
  if (rb && getLabel(rb, BindingManagedByLabel) === MultiClusterServiceKind) {
    const next = withMeta(rb);
    setAnnotation(next, MultiClusterServiceNameAnnotation, undefined);
    setAnnotation(next, MultiClusterServiceNamespaceAnnotation, undefined);
    setLabel(next, BindingManagedByLabel, undefined);
    setLabel(next, MultiClusterServicePermanentIDLabel, undefined);
    writes.push({ op: 'update', object: next });
  }
  return writes;
}

/** The marker Work of one provider: the MultiClusterService itself, never applied (dispatching suspended). */
export function markerWork(mcs: MultiClusterService, cluster: string): Work {
  const manifest: KObject = {
    apiVersion: mcs.apiVersion,
    kind: mcs.kind,
    metadata: { name: mcs.metadata.name, namespace: mcs.metadata.namespace, ...(mcs.metadata.labels ? { labels: mcs.metadata.labels } : {}) },
    spec: mcs.spec,
  };
  return {
    apiVersion: WorkGroupVersion,
    kind: 'Work',
    metadata: {
      name: generateWorkName(MultiClusterServiceKind, mcs.metadata.name ?? '', mcs.metadata.namespace),
      namespace: generateExecutionSpaceName(cluster),
      labels: {
        [MultiClusterServicePermanentIDLabel]: mcsId(mcs),
        [MultiClusterServiceNamespaceLabel]: mcs.metadata.namespace ?? '',
        [MultiClusterServiceNameLabel]: mcs.metadata.name ?? '',
      },
    },
    spec: { workload: { manifests: [managed(manifest)] }, suspendDispatching: true },
  };
}

/** Karmada's claimMultiClusterServiceForService: the Service is the MultiClusterService's, no policy's. */
function claimedService(svc: KObject, mcs: MultiClusterService): KObject | undefined {
  const next = withMeta(svc);
  for (const l of [PropagationPolicyPermanentIDLabel, ClusterPropagationPolicyPermanentIDLabel]) setLabel(next, l, undefined);
  for (const a of [PropagationPolicyNameAnnotation, PropagationPolicyNamespaceAnnotation, ClusterPropagationPolicyAnnotation]) setAnnotation(next, a, undefined);
  setLabel(next, ResourceTemplateClaimedByLabel, MultiClusterServiceKind);
  setLabel(next, MultiClusterServicePermanentIDLabel, mcsId(mcs));
  setAnnotation(next, MultiClusterServiceNameAnnotation, mcs.metadata.name);
  setAnnotation(next, MultiClusterServiceNamespaceAnnotation, mcs.metadata.namespace);
  return deepEqual(next.metadata, svc.metadata) ? undefined : next;
}

/** Karmada's buildResourceBinding: the Service placed on providers and consumers alike, Overwrite on conflict. */
export function serviceBinding(svc: KObject, mcs: MultiClusterService, clusters: readonly string[], existing: ResourceBinding | undefined): ResourceBinding {
  const name = generateBindingName(SERVICE.kind, svc.metadata.name ?? '');
  const resource = {
    apiVersion: svc.apiVersion,
    kind: svc.kind,
    namespace: svc.metadata.namespace,
    name: svc.metadata.name ?? '',
    ...(svc.metadata.uid ? { uid: svc.metadata.uid } : {}),
    ...(svc.metadata.resourceVersion ? { resourceVersion: svc.metadata.resourceVersion } : {}),
  };
  const b: ResourceBinding = existing
    ? { ...existing, metadata: { ...existing.metadata }, spec: { ...existing.spec } }
    : { apiVersion: BindingGroupVersion, kind: RB.kind, metadata: { name, namespace: svc.metadata.namespace }, spec: { resource } };
  b.metadata.ownerReferences = [{ apiVersion: svc.apiVersion, kind: svc.kind, name: svc.metadata.name, uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }];
  b.metadata.annotations = { ...(b.metadata.annotations ?? {}), [MultiClusterServiceNameAnnotation]: mcs.metadata.name ?? '', [MultiClusterServiceNamespaceAnnotation]: mcs.metadata.namespace ?? '' };
  b.metadata.labels = { ...(b.metadata.labels ?? {}), [BindingManagedByLabel]: MultiClusterServiceKind, [MultiClusterServicePermanentIDLabel]: mcsId(mcs) };
  addFinalizer(b, BindingControllerFinalizer);
  b.spec.resource = resource;
  b.spec.placement = { clusterAffinity: { clusterNames: [...clusters] } };
  b.spec.conflictResolution = 'Overwrite';
  return b;
}

export function reconcileMultiClusterService(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const mcs = ctx.reader.get(MCS, ref.namespace, ref.name);
  if (!mcs) return emptyResult();
  if (isTerminating(mcs) || !crossClusterEnabled(mcs)) {
    if (!hasFinalizer(mcs, MCSControllerFinalizer)) return emptyResult();
    const writes = [...releaseService(ctx.reader, mcs), ...retireMarkers(ctx.reader, mcs, new Set())];
    const done = withMeta(mcs);
    removeFinalizer(done, MCSControllerFinalizer);
    writes.push({ op: 'update', object: done });
    return { writes, events: [] };
  }
  if (!hasFinalizer(mcs, MCSControllerFinalizer)) {
    const next = withMeta(mcs);
    addFinalizer(next, MCSControllerFinalizer);
    return {
      writes: [{ op: 'update', object: next, then: (written) => (isOf(written, MCS) ? syncMultiClusterService(ctx, written) : { writes: [] }) }],
      events: [],
    };
  }
  return syncMultiClusterService(ctx, mcs);
}

/**
 * Why a provider or consumer cluster cannot take part, as the Warning Karmada records on the MultiClusterService
 * (absent, not Ready, or serving no EndpointSlice API); undefined when it can.
 */
function unusableCluster(reader: ReconcileContext['reader'], mcs: MultiClusterService, name: string, role: 'Provider' | 'Consumer', propagating: string, source: string): CoreEvent | undefined {
  const cluster = reader.get(CLUSTER, undefined, name);
  if (!cluster) return event(mcs, 'Warning', EventReasonClusterNotFound, `${role} cluster ${name} is not found`, source);
  if (!isClusterReady(cluster)) return event(mcs, 'Warning', EventReasonSyncServiceFailed, `${role} cluster ${name} is not ready, skip to propagate ${propagating}`, source);
  if (endpointSliceDisabled(cluster)) return event(mcs, 'Warning', EventReasonAPIIncompatible, `${role} cluster ${name} does not support EndpointSlice`, source);
  return undefined;
}

function syncMultiClusterService(ctx: ReconcileContext, mcs: MultiClusterService): ReconcileResult {
  const { reader } = ctx;
  const writes: Write[] = [];
  const events: CoreEvent[] = [];
  const providers = providerClusters(reader, mcs);
  for (const name of providers) {
    const unusable = unusableCluster(reader, mcs, name, 'Provider', 'MultiClusterService', MCS_SOURCE);
    if (unusable) {
      events.push(unusable);
      continue;
    }
    writes.push(...ensureWork(reader, markerWork(mcs, name)));
  }
  writes.push(...retireMarkers(reader, mcs, new Set(providers)));

  const svc = reader.get(SERVICE, mcs.metadata.namespace, mcs.metadata.name ?? '');
  if (!svc) {
    const message = `services "${mcs.metadata.name}" not found`;
    events.push(event(mcs, 'Warning', EventReasonSyncServiceFailed, message, MCS_SOURCE));
    writes.push(...statusWrite(mcs, MCSServiceAppliedConditionType, 'False', MCSServiceAppliedFailedReason, message, ctx.now));
    return { writes, events, error: message };
  }
  const claimed = claimedService(svc, mcs);
  const clusters = [...new Set([...providers, ...consumerClusters(reader, mcs)])].sort();
  const bindingWrite = (template: KObject): Write[] => {
    const existing = reader.get(RB, template.metadata.namespace, generateBindingName(SERVICE.kind, template.metadata.name ?? ''));
    const owner = existing?.metadata.ownerReferences?.find((o) => o.controller === true);
    if (existing && owner && owner.uid !== template.metadata.uid) return [];
    const desired = serviceBinding(template, mcs, clusters, existing);
    if (existing && deepEqual(desired, existing)) return [];
    return [existing ? { op: 'update', object: desired } : { op: 'create', object: desired }];
  };
  const status = statusWrite(mcs, MCSServiceAppliedConditionType, 'True', MCSServiceAppliedSucceedReason, MCSServiceAppliedMessage, ctx.now);
  const changed = writes.length > 0 || status.length > 0 || claimed !== undefined;
  if (claimed) {
    // The binding names the Service's resourceVersion: built from the claimed Service as stored.
    writes.push({ op: 'update', object: claimed, then: (written) => ({ writes: bindingWrite(written) }) });
  } else {
    writes.push(...bindingWrite(svc));
  }
  writes.push(...status);
  // Karmada records the event on every pass; here once per change, so a resync adds none.
  if (changed || writes.length > 0) events.push(event(mcs, 'Normal', EventReasonSyncServiceSucceed, MCSServiceAppliedMessage, MCS_SOURCE));
  return { writes, events };
}

// ---------------------------------------------------------------------------------------------
// endpointsliceCollect

/** What a reported EndpointSlice keeps of the member's: its identity, labels and endpoints, nothing the member stamped. */
export function reportedSlice(slice: KObject): KObject {
  const out: KObject = {
    apiVersion: ENDPOINT_SLICE.apiVersion,
    kind: ENDPOINT_SLICE.kind,
    metadata: { name: slice.metadata.name, namespace: slice.metadata.namespace, ...(slice.metadata.labels ? { labels: slice.metadata.labels } : {}) },
  };
  for (const f of ['addressType', 'endpoints', 'ports'] as const) if (slice[f] !== undefined) out[f] = slice[f];
  return out;
}

export function reportedWork(slice: KObject, cluster: string): Work {
  return {
    apiVersion: WorkGroupVersion,
    kind: 'Work',
    metadata: {
      name: generateWorkName(ENDPOINT_SLICE.kind, slice.metadata.name ?? '', slice.metadata.namespace),
      namespace: generateExecutionSpaceName(cluster),
      labels: {
        [MultiClusterServiceNamespaceLabel]: slice.metadata.namespace ?? '',
        [MultiClusterServiceNameLabel]: getLabel(slice, EndpointSliceServiceNameLabel) ?? '',
        [EndpointSliceWorkManagedByLabel]: MultiClusterServiceKind,
      },
      finalizers: [MCSEndpointSliceDispatchControllerFinalizer],
    },
    spec: { workload: { manifests: [managed(reportedSlice(slice))] }, suspendDispatching: true },
  };
}

/** The marker Work key for a member's EndpointSlice: where its Service's MultiClusterService would mark the member. */
export function markerKeyOf(slice: KObject, cluster: string): string | undefined {
  const svc = getLabel(slice, EndpointSliceServiceNameLabel);
  if (!svc || !slice.metadata.namespace) return undefined;
  return refKey({ apiVersion: WORK.apiVersion, kind: WORK.kind, namespace: generateExecutionSpaceName(cluster), name: generateWorkName(MultiClusterServiceKind, svc, slice.metadata.namespace) });
}

export function reconcileEndpointSliceCollect(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const w = ctx.reader.get(WORK, ref.namespace, ref.name);
  if (!w || isTerminating(w) || !carries(w, MCS)) return emptyResult();
  let cluster: string;
  try {
    cluster = getClusterName(w.metadata.namespace ?? '');
  } catch {
    return emptyResult();
  }
  if (!isClusterReady(ctx.reader.get(CLUSTER, undefined, cluster))) return { ...emptyResult(), error: `cluster(${cluster}) not ready` };
  const svcNamespace = getLabel(w, MultiClusterServiceNamespaceLabel) ?? '';
  const svcName = getLabel(w, MultiClusterServiceNameLabel) ?? '';
  const slices = ctx.reader.list(ENDPOINT_SLICE, { namespace: svcNamespace, labels: { [EndpointSliceServiceNameLabel]: svcName } }, cluster).filter((s) => !isManagedByKarmada(s));
  const writes: Write[] = [];
  const wanted = new Set<string>();
  for (const s of slices) {
    const desired = reportedWork(s, cluster);
    wanted.add(desired.metadata.name ?? '');
    writes.push(...ensureWork(ctx.reader, desired));
  }
  // Slices gone from the member (Karmada's cleanupWorkWithEndpointSliceDelete).
  for (const r of reportedWorks(ctx.reader, w.metadata.namespace, svcNamespace, svcName)) {
    if (!wanted.has(r.metadata.name ?? '') && !isTerminating(r)) writes.push(releaseReported(r));
  }
  return { writes, events: [] };
}

// ---------------------------------------------------------------------------------------------
// endpointsliceDispatch

/** The Work of one reported slice in one consumer cluster: renamed `<provider>-<name>`, Karmada's labels. */
export function dispatchedWork(reported: Work, mcs: MultiClusterService, provider: string, consumer: string): Work | undefined {
  const slice = manifestsOf(reported)[0];
  if (!slice) return undefined;
  const manifest: KObject = {
    ...slice,
    metadata: {
      name: `${provider}-${slice.metadata.name ?? ''}`,
      namespace: slice.metadata.namespace,
      labels: { [EndpointSliceServiceNameLabel]: mcs.metadata.name ?? '', [EndpointSliceManagedByLabel]: EndpointSliceDispatchControllerLabelValue },
      annotations: { [EndpointSliceProvisionClusterAnnotation]: provider },
    },
  };
  return {
    apiVersion: WorkGroupVersion,
    kind: 'Work',
    metadata: {
      name: reported.metadata.name,
      namespace: generateExecutionSpaceName(consumer),
      finalizers: [ExecutionControllerFinalizer],
      annotations: { [EndpointSliceProvisionClusterAnnotation]: provider },
      labels: { [MultiClusterServiceNameLabel]: mcs.metadata.name ?? '', [MultiClusterServiceNamespaceLabel]: mcs.metadata.namespace ?? '' },
    },
    spec: { workload: { manifests: [managed(manifest)] } },
  };
}

export function reconcileEndpointSliceDispatch(ctx: ReconcileContext, key: string): ReconcileResult {
  const { reader } = ctx;
  const ref = parseRefKey(key);
  const w = reader.get(WORK, ref.namespace, ref.name);
  if (!w || !carries(w, ENDPOINT_SLICE) || getAnnotation(w, EndpointSliceProvisionClusterAnnotation)) return emptyResult();
  let provider: string;
  try {
    provider = getClusterName(w.metadata.namespace ?? '');
  } catch {
    return emptyResult();
  }
  const mcsName = getLabel(w, MultiClusterServiceNameLabel);
  if (isTerminating(w) || !mcsName) {
    // Karmada's cleanupEndpointSliceFromConsumerClusters: every consumer's copy of this slice goes, then the finalizer.
    const writes: Write[] = reader
      .list(WORK)
      .filter((x) => x.metadata.name === w.metadata.name && getAnnotation(x, EndpointSliceProvisionClusterAnnotation) === provider && !isTerminating(x))
      .map((x) => ({ op: 'delete', ref: refOf(x) }));
    if (hasFinalizer(w, MCSEndpointSliceDispatchControllerFinalizer)) {
      const done = withMeta(w);
      removeFinalizer(done, MCSEndpointSliceDispatchControllerFinalizer);
      writes.push({ op: 'update', object: done });
    }
    return { writes, events: [] };
  }
  const mcs = reader.get(MCS, getLabel(w, MultiClusterServiceNamespaceLabel), mcsName);
  if (!mcs) return emptyResult();
  const writes: Write[] = [];
  const events: CoreEvent[] = [];
  const consumers = consumerClusters(reader, mcs);
  // Karmada's cleanOrphanDispatchedEndpointSlice: copies in clusters that stopped consuming.
  for (const x of reader.list(WORK, { labels: { [MultiClusterServiceNameLabel]: mcs.metadata.name ?? '', [MultiClusterServiceNamespaceLabel]: mcs.metadata.namespace ?? '' } })) {
    if (!getAnnotation(x, EndpointSliceProvisionClusterAnnotation) || isTerminating(x)) continue;
    let c: string;
    try {
      c = getClusterName(x.metadata.namespace ?? '');
    } catch {
      continue;
    }
    if (!consumers.includes(c)) writes.push({ op: 'delete', ref: refOf(x) });
  }
  for (const consumer of consumers) {
    if (consumer === provider) continue;
    const unusable = unusableCluster(reader, mcs, consumer, 'Consumer', 'EndpointSlice', DISPATCH_SOURCE);
    if (unusable) {
      events.push(unusable);
      continue;
    }
    const desired = dispatchedWork(w, mcs, provider, consumer);
    if (desired) writes.push(...ensureWork(reader, desired));
  }
  const status = statusWrite(mcs, EndpointSliceDispatchedConditionType, 'True', EndpointSliceDispatchedSucceedReason, EndpointSliceDispatchedMessage, ctx.now);
  if (writes.length || status.length) events.push(event(mcs, 'Normal', EventReasonDispatchEndpointSliceSucceed, EndpointSliceDispatchedMessage, DISPATCH_SOURCE));
  writes.push(...status);
  return { writes, events };
}

// ---------------------------------------------------------------------------------------------
// Watches

const mcsKey = (namespace: string | undefined, name: string) => refKey({ apiVersion: MCS.apiVersion, kind: MCS.kind, namespace, name });
const workKey = (w: KObject) => refKey({ apiVersion: WORK.apiVersion, kind: WORK.kind, namespace: w.metadata.namespace, name: w.metadata.name ?? '' });

/** A Cluster added, removed, or whose readiness flipped: the only Cluster changes these controllers act on. */
function clusterMatters(c: ObjectChange): boolean {
  if (!isChangeOf(c, CLUSTER)) return false;
  if (c.type !== 'MODIFIED' || !c.old) return true;
  return isClusterReady(c.old) !== isClusterReady(c.object) || isTerminating(c.old) !== isTerminating(c.object);
}

/** The CrossCluster MultiClusterServices a cluster change concerns: those naming it, or taking every cluster. */
function mcsOfCluster(reader: ObjectReader, cluster: string): MultiClusterService[] {
  return reader.list(MCS).filter((m) => {
    if (!crossClusterEnabled(m)) return false;
    const p = m.spec?.providerClusters ?? [];
    const q = m.spec?.consumerClusters ?? [];
    return !p.length || !q.length || p.some((x) => x.name === cluster) || q.some((x) => x.name === cluster);
  });
}

export function multiClusterServiceControllers(): ControllerSpec[] {
  return [
    {
      name: MCS_CONTROLLER,
      watches: (t, cluster) => cluster === undefined && (is(t, MCS) || is(t, SERVICE) || is(t, CLUSTER)),
      reconcile: (ctx, key) => (ctx.options.multiClusterService ? reconcileMultiClusterService(ctx, key) : emptyResult()),
      keysFor(c, reader) {
        if (c.cluster !== undefined) return [];
        if (isChangeOf(c, MCS)) {
          if (c.type === 'DELETED') return [];
          const old = c.type === 'MODIFIED' ? c.old : undefined;
          if (!old) return crossClusterEnabled(c.object) ? [keyOfMcs(c.object)] : [];
          if (!crossClusterEnabled(old) && !crossClusterEnabled(c.object)) return [];
          if (deepEqual(old.metadata.annotations, c.object.metadata.annotations) && deepEqual(old.spec, c.object.spec) && isTerminating(old) === isTerminating(c.object)) return [];
          return [keyOfMcs(c.object)];
        }
        if (is(c.object, SERVICE)) {
          const old = c.type === 'MODIFIED' ? c.old : undefined;
          if (old && deepEqual(old.metadata.labels, c.object.metadata.labels) && deepEqual(old.metadata.annotations, c.object.metadata.annotations) && deepEqual(old.spec, c.object.spec)) return [];
          return crossClusterEnabled(reader.get(MCS, c.object.metadata.namespace, c.object.metadata.name ?? '')) ? [mcsKey(c.object.metadata.namespace, c.object.metadata.name ?? '')] : [];
        }
        if (clusterMatters(c)) return mcsOfCluster(reader, c.object.metadata.name ?? '').map((m) => keyOfMcs(m));
        return [];
      },
    },
    {
      name: ENDPOINTSLICE_COLLECT,
      watches: (t, cluster) => (cluster === undefined ? is(t, WORK) : is(t, ENDPOINT_SLICE)),
      reconcile: (ctx, key) => (ctx.options.multiClusterService ? reconcileEndpointSliceCollect(ctx, key) : emptyResult()),
      keysFor(c, reader) {
        if (c.cluster !== undefined) {
          if (!is(c.object, ENDPOINT_SLICE) || isManagedByKarmada(c.object)) return [];
          const k = markerKeyOf(c.object, c.cluster);
          if (!k) return [];
          const r = parseRefKey(k);
          return reader.get(WORK, r.namespace, r.name) ? [k] : [];
        }
        if (!isChangeOf(c, WORK) || c.type === 'DELETED' || !carries(c.object, MCS)) return [];
        if (c.type === 'MODIFIED' && c.old && c.old.metadata.generation === c.object.metadata.generation) return [];
        return [workKey(c.object)];
      },
    },
    {
      name: ENDPOINTSLICE_DISPATCH,
      watches: (t, cluster) => cluster === undefined && (is(t, WORK) || is(t, MCS) || is(t, CLUSTER)),
      reconcile: (ctx, key) => (ctx.options.multiClusterService ? reconcileEndpointSliceDispatch(ctx, key) : emptyResult()),
      keysFor(c, reader) {
        if (c.cluster !== undefined || c.type === 'DELETED') return [];
        if (isChangeOf(c, WORK)) {
          const w = c.object;
          const old = c.type === 'MODIFIED' ? c.old : undefined;
          const named = !!getLabel(w, MultiClusterServiceNameLabel) || (old !== undefined && !!getLabel(old, MultiClusterServiceNameLabel));
          if (!named || getAnnotation(w, EndpointSliceProvisionClusterAnnotation) || !carries(w, ENDPOINT_SLICE)) return [];
          if (old && old.metadata.generation === w.metadata.generation && deepEqual(old.metadata.labels, w.metadata.labels) && isTerminating(old) === isTerminating(w)) return [];
          return [workKey(w)];
        }
        if (isChangeOf(c, MCS)) {
          const old = c.type === 'MODIFIED' ? c.old : undefined;
          if (old && deepEqual(old.spec, c.object.spec) && isTerminating(old) === isTerminating(c.object)) return [];
          return reportedWorks(reader, undefined, c.object.metadata.namespace ?? '', c.object.metadata.name ?? '').map(workKey);
        }
        if (clusterMatters(c)) {
          return mcsOfCluster(reader, c.object.metadata.name ?? '').flatMap((m) => reportedWorks(reader, undefined, m.metadata.namespace ?? '', m.metadata.name ?? '').map(workKey));
        }
        return [];
      },
    },
  ];
}

function keyOfMcs(m: MultiClusterService): string {
  return mcsKey(m.metadata.namespace, m.metadata.name ?? '');
}
