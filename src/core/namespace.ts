/**
 * Karmada's namespace sync controller (pkg/controllers/namespace): every namespace of the control plane
 * reaches every member cluster as a Work of its own in `karmada-es-<cluster>`, whatever policies exist,
 * with the ClusterOverridePolicies that select it applied. Not synced: Karmada's reserved namespaces
 * (karmada-system, karmada-cluster, karmada-es-*), `default`, those `--skipped-propagating-namespaces`
 * matches (default `kube-.*`), and those labelled `namespace.karmada.io/skip-auto-propagation: "true"`
 * (a label added later leaves the Works that exist, as in Karmada).
 *
 * The Works carry the namespace as their controller owner, so the garbage collector removes them when it
 * is gone, as in Karmada. A karmada-lite host may run without kube-controller-manager: there a deleted
 * namespace never finishes terminating and no garbage collector runs, so a namespace that is terminating
 * or gone has its Works deleted here (README "differs"), which deletes the member copies.
 *
 * The manifest builder is also what creates a missing namespace on a member when a namespaced object
 * comes first (memberNamespaceManifest): the member then has Karmada's labels from the start and the
 * namespace's Work updates it, instead of failing on an unmanaged object.
 */
import {
  AppliedClusterOverridesAnnotation,
  ClusterResourceBindingAnnotation,
  ExecutionControllerFinalizer,
  generateExecutionSpaceName,
  generateWorkName,
  ManagedLabel,
  ManagedLabelValue,
  NamespaceDefault,
  ResourceTemplateUIDAnnotation,
  SkipAutoPropagationLabel,
  WorkGroupVersion,
  WorkNameAnnotation,
  WorkNamespaceAnnotation,
  WorkPermanentIDLabel,
} from '../api/constants.js';
import { pruneInPlace } from './prune.js';
import { setManagedKeys, workPermanentId } from './binding.js';
import { CLUSTER, isIgnoredNamespace, NAMESPACE, WORK } from './kinds.js';
import type { Cluster, Work } from '../api/generated/types.js';
import { errorMessage } from '../json/error.js';
import { deepClone, deepEqual, isObject } from '../json/value.js';
import { getLabel, isTerminating, parseRefKey, refKey, refOf, withMeta, type KObject } from './object.js';
import { intern } from '../json/strings.js';
import { applyOverridePolicies } from './override.js';
import { emptyResult, type ObjectReader, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';

/** Karmada's name for it in --controllers. */
export const NAMESPACE_SYNC = 'namespace';

/** Karmada's namespaceShouldBeSynced: not reserved, not `default`, not matched by a skipped pattern. */
export function namespaceShouldBeSynced(name: string, skipped: readonly RegExp[]): boolean {
  return name !== NamespaceDefault && !isIgnoredNamespace(name, skipped);
}

/** The label's value compared case-insensitively, as Karmada does. */
export function skipsAutoPropagation(ns: KObject): boolean {
  return getLabel(ns, SkipAutoPropagationLabel)?.toLowerCase() === 'true';
}

export const namespaceKey = (name: string): string => refKey({ apiVersion: NAMESPACE.apiVersion, kind: NAMESPACE.kind, name });

const namespaceWorkName = (name: string): string => generateWorkName(NAMESPACE.kind, name);

/** Made by this controller (owned by the namespace), not by a ClusterPropagationPolicy's binding of the same name. */
function isNamespaceWork(w: Work, name: string): boolean {
  if (w.metadata.annotations?.[ClusterResourceBindingAnnotation]) return false;
  return (w.metadata.ownerReferences ?? []).some((o) => o.kind === NAMESPACE.kind && o.name === name);
}

/**
 * The namespace's manifest for `cluster` as its Work carries it (overridden, pruned, decorated), with
 * the ClusterOverridePolicies applied. Throws when an override policy fails.
 */
function namespaceManifest(reader: ObjectReader, ns: KObject, cluster: Cluster, existing: Work | undefined) {
  const name = ns.metadata.name!;
  const workName = namespaceWorkName(name);
  const workNs = generateExecutionSpaceName(cluster.metadata.name!);
  const base = deepClone(ns);
  pruneInPlace(base, { jobTTL: true });
  // Namespaces are cluster-scoped: only ClusterOverridePolicies apply.
  const out = applyOverridePolicies(reader, base, cluster);
  const manifest = out.manifest;
  if (manifest !== base) pruneInPlace(manifest, { jobTTL: true });
  manifest.metadata = { ...manifest.metadata };
  const workId = (existing && getLabel(existing, WorkPermanentIDLabel)) || workPermanentId(ns.metadata.uid ?? namespaceKey(name), cluster.metadata.name!);
  // CreateOrUpdateWork's decoration of the manifest; a namespace Work has no conflict-resolution annotation.
  manifest.metadata.labels = { ...(manifest.metadata.labels ?? {}), [ManagedLabel]: ManagedLabelValue, [WorkPermanentIDLabel]: workId };
  manifest.metadata.annotations = {
    ...(manifest.metadata.annotations ?? {}),
    [ResourceTemplateUIDAnnotation]: ns.metadata.uid ?? '',
    [WorkNameAnnotation]: workName,
    [WorkNamespaceAnnotation]: workNs,
  };
  setManagedKeys(manifest);
  return { manifest, clusterOverrides: out.clusterOverrides, workId, workName, workNs };
}

/**
 * The Work that carries `ns` to `cluster` (create when `existing` is undefined), or undefined when
 * `existing` already is it. Throws when an override policy fails.
 */
export function namespaceWork(reader: ObjectReader, ns: KObject, cluster: Cluster, existing?: Work): Work | undefined {
  const name = ns.metadata.name!;
  const { manifest, workId, workName, workNs, ...out } = namespaceManifest(reader, ns, cluster, existing);
  const annotations: Record<string, string> = {};
  if (out.clusterOverrides.length) annotations[AppliedClusterOverridesAnnotation] = intern(JSON.stringify(out.clusterOverrides));
  const owner = ns.metadata.uid ? [{ apiVersion: NAMESPACE.apiVersion, kind: NAMESPACE.kind, name, uid: ns.metadata.uid, controller: true, blockOwnerDeletion: true }] : undefined;
  const spec = { workload: { manifests: [manifest] } };
  if (!existing) {
    const metadata: Work['metadata'] = { name: workName, namespace: workNs, finalizers: [ExecutionControllerFinalizer], labels: { [WorkPermanentIDLabel]: workId } };
    if (owner) metadata.ownerReferences = owner;
    if (Object.keys(annotations).length) metadata.annotations = annotations;
    return { apiVersion: WorkGroupVersion, kind: 'Work', metadata, spec };
  }
  const w = withMeta(existing);
  w.metadata.labels = { ...(w.metadata.labels ?? {}), [WorkPermanentIDLabel]: workId };
  const ann = { ...(w.metadata.annotations ?? {}), ...annotations };
  if (!out.clusterOverrides.length) delete ann[AppliedClusterOverridesAnnotation];
  if (Object.keys(ann).length) w.metadata.annotations = ann;
  else delete w.metadata.annotations;
  if (owner && !(w.metadata.ownerReferences ?? []).some((o) => o.uid === ns.metadata.uid)) w.metadata.ownerReferences = [...(w.metadata.ownerReferences ?? []), ...owner];
  if (!w.metadata.finalizers?.includes(ExecutionControllerFinalizer)) w.metadata.finalizers = [...(w.metadata.finalizers ?? []), ExecutionControllerFinalizer];
  w.spec = spec;
  return deepEqual(w, existing) ? undefined : w;
}

export function reconcileNamespace(ctx: ReconcileContext, key: string): ReconcileResult {
  const name = parseRefKey(key).name;
  if (!namespaceShouldBeSynced(name, ctx.options.skippedPropagatingNamespaces)) return emptyResult();
  const ns = ctx.reader.get(NAMESPACE, undefined, name);
  const workName = namespaceWorkName(name);
  const clusters = ctx.reader.list(CLUSTER);
  const existingOn = (c: KObject) => ctx.reader.get(WORK, generateExecutionSpaceName(c.metadata.name!), workName);
  const writes: Write[] = [];
  if (!ns || isTerminating(ns)) {
    for (const c of clusters) {
      const w = existingOn(c);
      if (w && !isTerminating(w) && isNamespaceWork(w, name)) writes.push({ op: 'delete', ref: refOf(w) });
    }
    return { writes, events: [] };
  }
  if (skipsAutoPropagation(ns)) return emptyResult();
  const errors: string[] = [];
  for (const c of clusters) {
    // A cluster being removed is emptied of Works by the cluster controller: a new one would hold it up.
    if (isTerminating(c)) continue;
    const existing = existingOn(c);
    if (existing && (isTerminating(existing) || !isNamespaceWork(existing, name))) continue;
    try {
      const w = namespaceWork(ctx.reader, ns, c, existing);
      if (w) writes.push({ op: existing ? 'update' : 'create', object: w });
    } catch (e) {
      errors.push(`sync namespace(${name}) to cluster(${c.metadata.name}) failed due to: ${errorMessage(e)}`);
    }
  }
  return errors.length ? { writes, events: [], error: errors.join('; ') } : { writes, events: [] };
}

/** Whether a Work's manifest is a Kubernetes object at all (a hand-edited Work may hold anything). */
function isKubernetesObject(m: Record<string, unknown> | undefined): m is KObject {
  return !!m && typeof m.apiVersion === 'string' && typeof m.kind === 'string' && isObject(m.metadata);
}

/**
 * The namespace to create on a member when a namespaced object needs it and it is not there yet: the
 * manifest of the namespace's Work (as stored, else as the controller would build it), or a bare
 * namespace when the controller does not sync that one (it then stays a member-owned namespace).
 */
export function memberNamespaceManifest(reader: ObjectReader, name: string, clusterName: string, skipped: readonly RegExp[]): KObject {
  const bare: KObject = { apiVersion: NAMESPACE.apiVersion, kind: NAMESPACE.kind, metadata: { name } };
  if (!namespaceShouldBeSynced(name, skipped)) return bare;
  const ns = reader.get(NAMESPACE, undefined, name);
  const cluster = reader.get(CLUSTER, undefined, clusterName);
  if (!ns || !cluster || isTerminating(ns) || skipsAutoPropagation(ns)) return bare;
  const stored = reader.get(WORK, generateExecutionSpaceName(clusterName), namespaceWorkName(name));
  if (stored && isNamespaceWork(stored, name)) {
    const m = (stored.spec?.workload?.manifests ?? [])[0];
    if (isKubernetesObject(m) && m.kind === NAMESPACE.kind) return m;
  }
  try {
    return namespaceManifest(reader, ns, cluster, undefined).manifest;
  } catch {
    // An override that fails is reported by the controller on the Work; the object still needs its namespace.
    return bare;
  }
}

/**
 * `--skipped-propagating-namespaces` entries as Karmada compiles them: each one anchored (`^(entry)$`).
 * Throws naming the entry when it is not a regular expression.
 */
export function compileSkippedNamespaces(entries: readonly string[]): RegExp[] {
  return entries.map((e) => {
    try {
      return new RegExp(`^(?:${e})$`);
    } catch (err) {
      throw new Error(`${JSON.stringify(e)} is not a regular expression (${errorMessage(err)})`);
    }
  });
}
