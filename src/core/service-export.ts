/**
 * The MCS API flow (Karmada's pkg/controllers/mcs), as three pure reconcilers:
 *
 * - `serviceExport` (service_export_controller.go): once a ServiceExport has been applied to a member (its Work
 *   Applied), the EndpointSlices of the Service it exports on that member are reported into the member's
 *   execution namespace as suspended Works (the same Works the MultiClusterService flow reports; a Work kept by
 *   both lists both in its managed-by label). The export gone, they go.
 * - `endpointSlice` (endpointslice_controller.go): each reported slice becomes a control-plane EndpointSlice
 *   `imported-<cluster>-<name>` of the Service `derived-<service>`.
 * - `serviceImport` (service_import_controller.go): a ServiceImport of type ClusterSetIP gets the control-plane
 *   Service `derived-<name>` with its ports and its IPs as load-balancer ingress.
 *
 * A policy propagating the ServiceImport carries the derived Service and its slices along as dependencies (the
 * built-in ServiceImport interpreter names them), so importing members get both.
 *
 * Whether a member exports is read from its ServiceExport's Work rather than a watch of the member's
 * ServiceExports: a member without the MCS API's CRDs is then never asked for the kind.
 */
import {
  EndpointSliceControllerFinalizer,
  EndpointSliceControllerLabelValue,
  EndpointSliceManagedByLabel,
  EndpointSliceServiceNameLabel,
  EndpointSliceWorkManagedByLabel,
  EventReasonSyncDerivedServiceSucceed,
  generateExecutionSpaceName,
  generateWorkName,
  getClusterName,
  ServiceNameLabel,
  ServiceNamespaceLabel,
  WorkApplied,
  WorkGroupVersion,
  WorkNameAnnotation,
  WorkNamespaceAnnotation,
  WorkPermanentIDLabel,
} from '../api/constants.js';
import type { ServiceImport, Work } from '../api/generated/types.js';
import { deepEqual } from '../json/value.js';
import { isClusterReady, manifestsOf } from './execution.js';
import { CLUSTER, is, isOf, SERVICE_EXPORT, SERVICE_IMPORT, WORK } from './kinds.js';
import { carries, ENDPOINT_SLICE, ensureWork, isManagedByKarmada, managed, releaseReported, reportedSlice, SERVICE } from './multi-cluster-service.js';
import { findCondition, getLabel, hasFinalizer, isTerminating, parseRefKey, refKey, refOf, removeFinalizer, withMeta, type KObject } from './object.js';
import { emptyResult, isChangeOf, type ControllerSpec, type CoreEvent, type ObjectChange, type ObjectReader, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';

/** Karmada's names for them in --controllers. */
export const SERVICE_EXPORT_CONTROLLER = 'serviceExport';
export const ENDPOINTSLICE_CONTROLLER = 'endpointSlice';
export const SERVICE_IMPORT_CONTROLLER = 'serviceImport';
const SERVICE_IMPORT_SOURCE = 'service-import-controller';
const SERVICE_EXPORT_KIND = 'ServiceExport';

export const derivedServiceName = (name: string) => `derived-${name}`;
export const importedSliceName = (name: string, cluster: string) => `imported-${cluster}-${name}`;

/** The serviceExport key: one exported Service in one member (`<cluster>|<namespace>|<service>`). */
export const exportKey = (cluster: string, namespace: string, service: string) => `${cluster}|${namespace}|${service}`;

function parseExportKey(key: string): { cluster: string; namespace: string; service: string } | undefined {
  const [cluster, namespace, service, ...rest] = key.split('|');
  if (!cluster || !namespace || !service || rest.length) return undefined;
  return { cluster, namespace, service };
}

/** The Work the binding controller gives a ServiceExport in a cluster (its template's Work name). */
const exportWorkOf = (reader: ObjectReader, cluster: string, namespace: string, service: string): Work | undefined =>
  reader.get(WORK, generateExecutionSpaceName(cluster), generateWorkName(SERVICE_EXPORT_KIND, service, namespace));

function exported(w: Work | undefined): boolean {
  return !!w && !isTerminating(w) && carries(w, SERVICE_EXPORT) && findCondition(w.status?.conditions, WorkApplied)?.status === 'True';
}

const exportedBy = (namespace: string, service: string) => ({ [ServiceNamespaceLabel]: namespace, [ServiceNameLabel]: service });

/** A member slice reported for the ServiceExport flow. */
export function exportReportedWork(slice: KObject, cluster: string, service: string): Work {
  return {
    apiVersion: WorkGroupVersion,
    kind: 'Work',
    metadata: {
      name: generateWorkName(ENDPOINT_SLICE.kind, slice.metadata.name ?? '', slice.metadata.namespace),
      namespace: generateExecutionSpaceName(cluster),
      labels: { [ServiceNamespaceLabel]: slice.metadata.namespace ?? '', [ServiceNameLabel]: service, [EndpointSliceWorkManagedByLabel]: SERVICE_EXPORT_KIND },
      finalizers: [EndpointSliceControllerFinalizer],
    },
    spec: { workload: { manifests: [managed(reportedSlice(slice))] }, suspendDispatching: true },
  };
}

export function reconcileServiceExport(ctx: ReconcileContext, key: string): ReconcileResult {
  const k = parseExportKey(key);
  if (!k) return emptyResult();
  const { reader } = ctx;
  const ns = generateExecutionSpaceName(k.cluster);
  const current = reader.list(WORK, { namespace: ns, labels: exportedBy(k.namespace, k.service) }).filter((w) => carries(w, ENDPOINT_SLICE) && !isTerminating(w));
  const release = (keep: ReadonlySet<string>): Write[] =>
    current.filter((w) => !keep.has(w.metadata.name ?? '')).map((w) => releaseReported(w, SERVICE_EXPORT_KIND, [ServiceNameLabel, ServiceNamespaceLabel]));
  if (!exported(exportWorkOf(reader, k.cluster, k.namespace, k.service))) return { writes: release(new Set()), events: [] };
  if (!isClusterReady(reader.get(CLUSTER, undefined, k.cluster))) return { ...emptyResult(), error: `cluster(${k.cluster}) not ready` };
  const slices = reader.list(ENDPOINT_SLICE, { namespace: k.namespace, labels: { [EndpointSliceServiceNameLabel]: k.service } }, k.cluster).filter((s) => !isManagedByKarmada(s));
  const writes: Write[] = [];
  const wanted = new Set<string>();
  for (const s of slices) {
    const desired = exportReportedWork(s, k.cluster, k.service);
    wanted.add(desired.metadata.name ?? '');
    writes.push(...ensureWork(reader, desired));
  }
  writes.push(...release(wanted));
  return { writes, events: [] };
}

/** Karmada's deriveEndpointSlice: the reported slice under its control-plane name, of the derived Service. */
export function importedSlice(w: Work, cluster: string): KObject | undefined {
  const slice = manifestsOf(w)[0];
  const service = getLabel(w, ServiceNameLabel);
  if (!slice || !service) return undefined;
  const labels: Record<string, string> = { [EndpointSliceServiceNameLabel]: derivedServiceName(service), [EndpointSliceManagedByLabel]: EndpointSliceControllerLabelValue };
  const id = getLabel(w, WorkPermanentIDLabel);
  if (id) labels[WorkPermanentIDLabel] = id;
  const out: KObject = {
    apiVersion: ENDPOINT_SLICE.apiVersion,
    kind: ENDPOINT_SLICE.kind,
    metadata: {
      name: importedSliceName(slice.metadata.name ?? '', cluster),
      namespace: slice.metadata.namespace,
      labels,
      annotations: { [WorkNamespaceAnnotation]: w.metadata.namespace ?? '', [WorkNameAnnotation]: w.metadata.name ?? '' },
    },
  };
  for (const f of ['addressType', 'endpoints', 'ports'] as const) if (slice[f] !== undefined) out[f] = slice[f];
  return out;
}

/** The control-plane slices made from one reported Work (by its annotations: the Work's id may come later). */
function importedSlicesOf(reader: ObjectReader, w: Work): KObject[] {
  const slice = manifestsOf(w)[0];
  if (!slice?.metadata.namespace) return [];
  return reader
    .list(ENDPOINT_SLICE, { namespace: slice.metadata.namespace })
    .filter((s) => s.metadata.annotations?.[WorkNamespaceAnnotation] === w.metadata.namespace && s.metadata.annotations?.[WorkNameAnnotation] === w.metadata.name);
}

export function reconcileImportedEndpointSlice(ctx: ReconcileContext, key: string): ReconcileResult {
  const { reader } = ctx;
  const ref = parseRefKey(key);
  const w = reader.get(WORK, ref.namespace, ref.name);
  if (!w || !carries(w, ENDPOINT_SLICE)) return emptyResult();
  let cluster: string;
  try {
    cluster = getClusterName(w.metadata.namespace ?? '');
  } catch {
    return emptyResult();
  }
  if (isTerminating(w) || !getLabel(w, ServiceNameLabel)) {
    if (!hasFinalizer(w, EndpointSliceControllerFinalizer)) return emptyResult();
    const writes: Write[] = importedSlicesOf(reader, w).map((s) => ({ op: 'delete', ref: refOf(s) }));
    const done = withMeta(w);
    removeFinalizer(done, EndpointSliceControllerFinalizer);
    writes.push({ op: 'update', object: done });
    return { writes, events: [] };
  }
  const desired = importedSlice(w, cluster);
  if (!desired) return emptyResult();
  const existing = reader.get(ENDPOINT_SLICE, desired.metadata.namespace, desired.metadata.name ?? '');
  if (!existing) return { writes: [{ op: 'create', object: desired }], events: [] };
  const next: KObject = { ...existing, ...desired, metadata: { ...existing.metadata, labels: { ...(existing.metadata.labels ?? {}), ...desired.metadata.labels }, annotations: { ...(existing.metadata.annotations ?? {}), ...desired.metadata.annotations } } };
  return deepEqual(next, existing) ? emptyResult() : { writes: [{ op: 'update', object: next }], events: [] };
}

/** Karmada's servicePorts: the import's ports as the derived Service's. */
function servicePorts(si: ServiceImport): Record<string, unknown>[] {
  return (si.spec?.ports ?? []).map((p) => ({ ...(p.name ? { name: p.name } : {}), protocol: p.protocol ?? 'TCP', port: p.port, ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}) }));
}

/** The ports as the import gives them, what the apiserver defaulted (targetPort) left aside. */
function samePorts(have: unknown, want: readonly Record<string, unknown>[]): boolean {
  if (!Array.isArray(have) || have.length !== want.length) return false;
  return want.every((p, i) => {
    const h: unknown = have[i];
    if (typeof h !== 'object' || h === null) return false;
    return ['name', 'protocol', 'port', 'appProtocol'].every((f) => deepEqual(Reflect.get(h, f), p[f]));
  });
}

export function reconcileServiceImport(ctx: ReconcileContext, key: string): ReconcileResult {
  const { reader } = ctx;
  const ref = parseRefKey(key);
  const si = reader.get(SERVICE_IMPORT, ref.namespace, ref.name);
  const name = derivedServiceName(ref.name);
  const derived = reader.get(SERVICE, ref.namespace, name);
  if (!si) return derived ? { writes: [{ op: 'delete', ref: refOf(derived) }], events: [] } : emptyResult();
  if (isTerminating(si) || si.spec?.type !== 'ClusterSetIP') return emptyResult();
  const ports = servicePorts(si);
  const ingress = (si.spec.ips ?? []).map((ip) => ({ ip }));
  const status = (svc: KObject): Write[] => (deepEqual(svc.status?.loadBalancer?.ingress ?? [], ingress) ? [] : [{ op: 'updateStatus', object: { ...svc, status: { ...(svc.status ?? {}), loadBalancer: { ingress } } } }]);
  const events: CoreEvent[] = [{ involvedObject: refOf(si), type: 'Normal', reason: EventReasonSyncDerivedServiceSucceed, message: `Sync derived service for serviceImport(${si.metadata.name}) succeed.`, source: SERVICE_IMPORT_SOURCE }];
  if (!derived) {
    const svc: KObject = { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ref.namespace }, spec: { type: 'ClusterIP', ports } };
    return { writes: [{ op: 'create', object: svc, then: (written) => ({ writes: status(written) }) }], events };
  }
  // Karmada's retainServiceFields: what the apiserver allocated (cluster IPs) stays; type and ports are the import's.
  if (derived.spec?.type === 'ClusterIP' && samePorts(derived.spec?.ports, ports)) {
    const s = status(derived);
    return s.length ? { writes: s, events } : emptyResult();
  }
  const next: KObject = { ...derived, spec: { ...derived.spec, type: 'ClusterIP', ports } };
  return { writes: [{ op: 'update', object: next, then: (written) => ({ writes: status(written) }) }], events };
}

// ---------------------------------------------------------------------------------------------
// Watches

const workKey = (w: KObject) => refKey({ apiVersion: WORK.apiVersion, kind: WORK.kind, namespace: w.metadata.namespace, name: w.metadata.name ?? '' });

/** The export key of a ServiceExport's Work (its manifest names the Service). */
function exportKeyOfWork(w: Work): string | undefined {
  const m = manifestsOf(w).find((x) => is(x, SERVICE_EXPORT));
  if (!m?.metadata.namespace || !m.metadata.name) return undefined;
  try {
    return exportKey(getClusterName(w.metadata.namespace ?? ''), m.metadata.namespace, m.metadata.name);
  } catch {
    return undefined;
  }
}

const appliedOf = (w: Work | undefined) => findCondition(w?.status?.conditions, WorkApplied)?.status;

function exportWorkChanged(type: ObjectChange['type'], w: Work, old: Work | undefined): boolean {
  if (type !== 'MODIFIED' || !old) return true;
  return appliedOf(old) !== appliedOf(w) || isTerminating(old) !== isTerminating(w);
}

export function serviceExportControllers(): ControllerSpec[] {
  return [
    {
      name: SERVICE_EXPORT_CONTROLLER,
      watches: (t, cluster) => (cluster === undefined ? is(t, WORK) || is(t, CLUSTER) : is(t, ENDPOINT_SLICE)),
      reconcile: reconcileServiceExport,
      keysFor(c, reader) {
        if (c.cluster !== undefined) {
          const svc = getLabel(c.object, EndpointSliceServiceNameLabel);
          if (!is(c.object, ENDPOINT_SLICE) || !svc || !c.object.metadata.namespace || isManagedByKarmada(c.object)) return [];
          return exportWorkOf(reader, c.cluster, c.object.metadata.namespace, svc) ? [exportKey(c.cluster, c.object.metadata.namespace, svc)] : [];
        }
        if (isChangeOf(c, WORK)) {
          if (!carries(c.object, SERVICE_EXPORT) || !exportWorkChanged(c.type, c.object, c.type === 'MODIFIED' ? c.old : undefined)) return [];
          const k = exportKeyOfWork(c.object);
          return k ? [k] : [];
        }
        if (isChangeOf(c, CLUSTER) && c.type === 'MODIFIED' && c.old && isClusterReady(c.old) !== isClusterReady(c.object)) {
          const ns = generateExecutionSpaceName(c.object.metadata.name ?? '');
          return reader.list(WORK, { namespace: ns }).flatMap((w) => (carries(w, SERVICE_EXPORT) ? [exportKeyOfWork(w)].filter((x): x is string => !!x) : []));
        }
        return [];
      },
    },
    {
      name: ENDPOINTSLICE_CONTROLLER,
      watches: (t, cluster) => cluster === undefined && is(t, WORK),
      reconcile: reconcileImportedEndpointSlice,
      keysFor(c) {
        if (c.cluster !== undefined || !isChangeOf(c, WORK) || c.type === 'DELETED') return [];
        const w = c.object;
        const old = c.type === 'MODIFIED' ? c.old : undefined;
        if (!getLabel(w, ServiceNameLabel) && !(old && getLabel(old, ServiceNameLabel))) return [];
        if (old && old.metadata.generation === w.metadata.generation && deepEqual(old.metadata.labels, w.metadata.labels) && isTerminating(old) === isTerminating(w)) return [];
        return [workKey(w)];
      },
    },
    {
      name: SERVICE_IMPORT_CONTROLLER,
      watches: (t, cluster) => cluster === undefined && is(t, SERVICE_IMPORT),
      reconcile: reconcileServiceImport,
      keysFor(c) {
        if (c.cluster !== undefined || !isOf(c.object, SERVICE_IMPORT)) return [];
        if (c.type === 'MODIFIED' && c.old && c.old.metadata.generation === c.object.metadata.generation) return [];
        return [refKey({ apiVersion: SERVICE_IMPORT.apiVersion, kind: SERVICE_IMPORT.kind, namespace: c.object.metadata.namespace, name: c.object.metadata.name ?? '' })];
      },
    },
  ];
}
