/**
 * The dependencies distributor (propagateDeps): the objects a workload depends on (ConfigMaps,
 * Secrets, ServiceAccounts, PVCs... as InterpretDependency names them) follow it. Each dependency gets
 * an attached ResourceBinding whose spec.requiredBy lists the bindings needing it with their clusters;
 * the binding controller renders Works for those clusters.
 */
import {
  BindingControllerFinalizer,
  BindingDependenciesAnnotation,
  BindingGroupVersion,
  ClusterPropagationPolicyPermanentIDLabel,
  dependedByLabelKey,
  DependedByLabelKeyPrefix,
  generateBindingName,
  PropagationPolicyPermanentIDLabel,
} from '../api/constants.js';
import { bindingId } from './claim.js';
import { RB, type BindingTarget } from './kinds.js';
import { errorMessage } from '../json/error.js';
import { deepClone, deepEqual } from '../json/value.js';
import { withMeta, withMetaAndSpecOf, getLabel, isTerminating, parseRefKey, refKey, refOf, type KObject } from './object.js';
import { emptyResult, isChangeOf, type DependentObjectReference, type ObjectChange, type ObjectReader, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';
import { matchLabelSelector } from './selectors.js';

export const DEPENDENCIES = 'dependencies';

interface RequiredByItem {
  namespace?: string;
  name: string;
  clusters?: BindingTarget[];
}

/** Kinds that can be dependencies: their creation may complete a workload's dependency list. */
const DEPENDENCY_KINDS = new Set(['ConfigMap', 'Secret', 'ServiceAccount', 'PersistentVolumeClaim']);

export function dependencyKeys(c: ObjectChange, reader: ObjectReader): string[] {
  if (c.cluster !== undefined) return [];
  if (isChangeOf(c, RB)) {
    const o = c.object;
    if (c.type === 'DELETED') return [];
    const deps = o.spec?.propagateDeps === true || c.old?.spec?.propagateDeps === true;
    const hasAttached = !!o.metadata.annotations?.[BindingDependenciesAnnotation];
    if (!deps && !hasAttached) return [];
    if (c.type === 'MODIFIED' && c.old) {
      const same =
        deepEqual(c.old.spec?.clusters, o.spec?.clusters) &&
        c.old.spec?.resource?.resourceVersion === o.spec?.resource?.resourceVersion &&
        c.old.spec?.propagateDeps === o.spec?.propagateDeps &&
        !!c.old.metadata.deletionTimestamp === !!o.metadata.deletionTimestamp;
      if (same) return [];
    }
    return [refKey(refOf(o))];
  }
  const o = c.object;
  // A dependency that appears late: look again at the workloads of its namespace that propagate theirs.
  if (c.type === 'ADDED' && o.apiVersion === 'v1' && DEPENDENCY_KINDS.has(o.kind) && o.metadata.namespace) {
    return reader
      .list(RB, { namespace: o.metadata.namespace })
      .filter((b) => b.spec?.propagateDeps === true)
      .map((b) => refKey(refOf(b)));
  }
  return [];
}

export function reconcileDependencies(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const b = ctx.reader.get(RB, ref.namespace, ref.name);
  if (!b) return emptyResult();
  const label = dependedByLabelKey(b.metadata.namespace, b.metadata.name!);
  const writes: Write[] = [];
  const attachedNow = ctx.reader.list(RB, { namespace: b.metadata.namespace, labels: { [label]: bindingId(b) } });
  const active = !isTerminating(b) && b.spec?.propagateDeps === true;
  // Before the first schedule there is nowhere to send dependencies yet: wait for spec.clusters.
  if (active && !b.spec?.clusters?.length && !attachedNow.length && !b.metadata.annotations?.[BindingDependenciesAnnotation]) return emptyResult();

  let wanted: KObject[] = [];
  let depsAnnotation: string | undefined;
  if (active) {
    const r = b.spec.resource;
    const tpl = ctx.reader.get(r, r.namespace, r.name);
    if (tpl && ctx.interpreter.hookEnabled(tpl, 'InterpretDependency')) {
      let refs: DependentObjectReference[];
      try {
        refs = ctx.interpreter.getDependencies(tpl);
      } catch (e) {
        return { ...emptyResult(), error: `failed to get the dependencies of ${tpl.kind} ${r.namespace}/${r.name}: ${errorMessage(e)}` };
      }
      depsAnnotation = refs.length ? JSON.stringify(refs) : undefined;
      wanted = resolve(ctx.reader, refs, b.metadata.namespace!);
    }
  }

  // The dependencies annotation on the workload's binding.
  if (b.metadata.annotations?.[BindingDependenciesAnnotation] !== depsAnnotation && !isTerminating(b)) {
    const nb = withMeta(b);
    const ann = { ...(nb.metadata.annotations ?? {}) };
    if (depsAnnotation) ann[BindingDependenciesAnnotation] = depsAnnotation;
    else delete ann[BindingDependenciesAnnotation];
    if (Object.keys(ann).length) nb.metadata.annotations = ann;
    else delete nb.metadata.annotations;
    writes.push({ op: 'update', object: nb });
  }

  const me: RequiredByItem = { namespace: b.metadata.namespace, name: b.metadata.name! };
  if (b.spec?.clusters?.length) me.clusters = deepClone(b.spec.clusters);
  const wantedNames = new Set<string>();
  for (const dep of wanted) {
    const name = generateBindingName(dep.kind, dep.metadata.name!);
    wantedNames.add(name);
    const existing = ctx.reader.get(RB, dep.metadata.namespace, name);
    if (!existing) {
      writes.push({
        op: 'create',
        object: {
          apiVersion: BindingGroupVersion,
          kind: 'ResourceBinding',
          metadata: {
            name,
            namespace: dep.metadata.namespace,
            labels: { [label]: bindingId(b) },
            finalizers: [BindingControllerFinalizer],
            ownerReferences: [{ apiVersion: dep.apiVersion, kind: dep.kind, name: dep.metadata.name, uid: dep.metadata.uid, controller: true, blockOwnerDeletion: true }],
          },
          spec: {
            resource: { apiVersion: dep.apiVersion, kind: dep.kind, namespace: dep.metadata.namespace, name: dep.metadata.name, uid: dep.metadata.uid, resourceVersion: dep.metadata.resourceVersion },
            requiredBy: [me],
            // The dependency is applied and deleted like the workload that needs it.
            ...(b.spec?.conflictResolution ? { conflictResolution: b.spec.conflictResolution } : {}),
            ...(b.spec?.preserveResourcesOnDeletion !== undefined ? { preserveResourcesOnDeletion: b.spec.preserveResourcesOnDeletion } : {}),
          },
        },
      });
      continue;
    }
    const nb = withMetaAndSpecOf(existing);
    nb.metadata.labels = { ...(nb.metadata.labels ?? {}), [label]: bindingId(b) };
    const others = (nb.spec.requiredBy ?? []).filter((x) => !(x.namespace === me.namespace && x.name === me.name));
    nb.spec.requiredBy = [...others, me].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    if (!deepEqual(nb, existing)) writes.push({ op: 'update', object: nb });
  }

  // Attached bindings this workload no longer needs.
  for (const a of attachedNow) {
    if (wantedNames.has(a.metadata.name!)) continue;
    const nb = withMetaAndSpecOf(a);
    nb.metadata.labels = { ...(nb.metadata.labels ?? {}) };
    delete nb.metadata.labels[label];
    const rest = (nb.spec.requiredBy ?? []).filter((x) => !(x.namespace === me.namespace && x.name === me.name));
    const claimed = getLabel(a, PropagationPolicyPermanentIDLabel) || getLabel(a, ClusterPropagationPolicyPermanentIDLabel);
    const stillDepended = Object.keys(nb.metadata.labels ?? {}).some((k) => k.startsWith(DependedByLabelKeyPrefix));
    if (!rest.length && !claimed && !stillDepended) {
      writes.push({ op: 'delete', ref: refOf(a) });
      continue;
    }
    if (rest.length) nb.spec.requiredBy = rest;
    else delete nb.spec.requiredBy;
    writes.push({ op: 'update', object: nb });
  }
  return { writes, events: [] };
}

/** Dependency references to the objects that exist now (named, or matched by label selector). */
function resolve(reader: ObjectReader, refs: readonly DependentObjectReference[], namespace: string): KObject[] {
  const out: KObject[] = [];
  const seen = new Set<string>();
  for (const r of refs) {
    const ns = r.namespace || namespace;
    const found = r.name
      ? [reader.get(r, ns, r.name)].filter((x): x is KObject => !!x)
      : reader.list(r, { namespace: ns }).filter((o) => matchLabelSelector(o.metadata.labels, r.labelSelector));
    for (const o of found) {
      if (isTerminating(o)) continue;
      const k = refKey(refOf(o));
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(o);
    }
  }
  return out;
}
