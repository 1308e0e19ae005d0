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
  attachedBindingOwnerMismatchMessage,
  ClusterPropagationPolicyPermanentIDLabel,
  dependedByLabelKey,
  DependedByLabelKeyPrefix,
  DependenciesDistributorName,
  DependencyConflictResolutionConflicted,
  DependencyPolicyConflictMessagePrefix,
  DependencyPreserveOnDeletionConflicted,
  EventReasonDependencyPolicyConflict,
  EventReasonGetDependenciesFailed,
  EventReasonGetDependenciesSucceed,
  EventReasonSyncScheduleResultToDependenciesFailed,
  EventReasonSyncScheduleResultToDependenciesSucceed,
  generateBindingName,
  PropagationPolicyPermanentIDLabel,
  SyncScheduleResultToDependenciesSucceedMessage,
} from '../api/constants.js';
import type { ResourceBinding } from '../api/generated/types.js';
import { bindingId } from './claim.js';
import { RB, type BindingTarget } from './kinds.js';
import { errorMessage } from '../json/error.js';
import { deepClone, deepEqual } from '../json/value.js';
import { withMeta, withMetaAndSpecOf, getLabel, isTerminating, parseRefKey, refKey, refOf, type KObject, type TypeRef } from './object.js';
import { emptyResult, isChangeOf, type CoreEvent, type DependentObjectReference, type ObjectChange, type ObjectReader, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';
import { matchLabelSelector } from './selectors.js';

export const DEPENDENCIES = 'dependencies';

interface RequiredByItem {
  namespace?: string;
  name: string;
  clusters?: BindingTarget[];
}

/**
 * Karmada's watches: a binding whose spec changed (a generation change: schedule, policy fields such as
 * conflictResolution, the template's resourceVersion) or that is being deleted, while it propagates its
 * dependencies or did; and a dependency object added, deleted or changed, for the bindings whose recorded
 * dependencies name or select it (old and new labels both, as a label change may move it between selectors).
 * The caller drops dependency updates that change only status or server-owned metadata.
 */
/**
 * The kinds a dependency can be: the core group's (a workload's ConfigMaps, Secrets, PVCs, ServiceAccounts) and the
 * EndpointSlices of a ServiceImport's derived Service (the built-in ServiceImport interpreter names them).
 */
export function isDependencyType(t: TypeRef): boolean {
  return t.apiVersion === 'v1' || (t.apiVersion === 'discovery.k8s.io/v1' && t.kind === 'EndpointSlice');
}

export function dependencyKeys(c: ObjectChange, reader: ObjectReader): string[] {
  if (c.cluster !== undefined) return [];
  if (isChangeOf(c, RB)) {
    const o = c.object;
    if (c.type === 'DELETED') return [];
    const deps = o.spec?.propagateDeps === true || c.old?.spec?.propagateDeps === true;
    const hasAttached = !!o.metadata.annotations?.[BindingDependenciesAnnotation];
    if (!deps && !hasAttached) return [];
    if (c.type === 'MODIFIED' && c.old && deepEqual(c.old.spec, o.spec) && !!c.old.metadata.deletionTimestamp === !!o.metadata.deletionTimestamp) return [];
    return [refKey(refOf(o))];
  }
  const o = c.object;
  if (!isDependencyType(o) || !o.metadata.namespace) return [];
  const labelSets = [o.metadata.labels ?? {}];
  if (c.type === 'MODIFIED' && c.old && !deepEqual(c.old.metadata.labels, o.metadata.labels)) labelSets.push(c.old.metadata.labels ?? {});
  return reader
    .list(RB, { namespace: o.metadata.namespace })
    .filter((b) => !isTerminating(b) && recordedDependencies(b).some((d) => labelSets.some((labels) => namesOrSelects(d, o, labels))))
    .map((b) => refKey(refOf(b)));
}

/** Parsed annotations by binding object: stored objects are never changed in place, and every dependency change in a namespace reads them all. */
const parsedDependencies = new WeakMap<ResourceBinding, DependentObjectReference[]>();

/** The dependencies annotation of a workload's binding; unreadable means none (Karmada logs and skips it). */
function recordedDependencies(b: ResourceBinding): DependentObjectReference[] {
  const text = b.metadata.annotations?.[BindingDependenciesAnnotation];
  if (!text) return [];
  let refs = parsedDependencies.get(b);
  if (refs) return refs;
  try {
    const v: unknown = JSON.parse(text);
    refs = Array.isArray(v) ? v.filter((d): d is DependentObjectReference => !!d && typeof d === 'object') : [];
  } catch {
    refs = [];
  }
  parsedDependencies.set(b, refs);
  return refs;
}

function namesOrSelects(d: DependentObjectReference, o: KObject, labels: Record<string, string>): boolean {
  if (d.apiVersion !== o.apiVersion || d.kind !== o.kind || (d.namespace ?? '') !== o.metadata.namespace) return false;
  return d.name ? d.name === o.metadata.name : matchLabelSelector(labels, d.labelSelector);
}

type ConflictResolution = 'Abort' | 'Overwrite';

/**
 * The settings an attached binding takes from the bindings that require it (Karmada's
 * detectAndResolveConflictResolution / detectAndResolvePreserveOnDeletion): Overwrite wins over Abort
 * (unset is Abort), true wins over false (unset is false); a mix is a conflict.
 */
function effectiveSettings(parents: readonly ResourceBinding[]): { conflictResolution: ConflictResolution; preserve: boolean; conflicts: string[] } {
  const overwrite = parents.some((p) => p.spec.conflictResolution === 'Overwrite');
  const abort = parents.some((p) => p.spec.conflictResolution !== 'Overwrite');
  const preserve = parents.some((p) => p.spec.preserveResourcesOnDeletion === true);
  const keep = parents.some((p) => p.spec.preserveResourcesOnDeletion !== true);
  const conflicts: string[] = [];
  if (overwrite && abort) conflicts.push(DependencyConflictResolutionConflicted);
  if (preserve && keep) conflicts.push(DependencyPreserveOnDeletionConflicted);
  return { conflictResolution: overwrite ? 'Overwrite' : 'Abort', preserve, conflicts };
}

/** The live bindings a requiredBy list names; `self` stands for the binding being reconciled, gone ones are left out. */
function parentsOf(reader: ObjectReader, requiredBy: readonly RequiredByItem[], self: ResourceBinding): ResourceBinding[] {
  return requiredBy
    .map((r) => (r.namespace === self.metadata.namespace && r.name === self.metadata.name ? self : reader.get(RB, r.namespace, r.name)))
    .filter((x): x is ResourceBinding => !!x);
}

function applySettings(spec: { conflictResolution?: ConflictResolution; preserveResourcesOnDeletion?: boolean }, s: { conflictResolution: ConflictResolution; preserve: boolean }): void {
  spec.conflictResolution = s.conflictResolution;
  spec.preserveResourcesOnDeletion = s.preserve;
}

/** Go's `%+v` of a []DependentObjectReference, as Karmada's GetDependenciesSucceed message prints it. */
export function goDependencies(refs: readonly DependentObjectReference[]): string {
  const selector = (s: DependentObjectReference['labelSelector']): string => {
    if (!s) return 'nil';
    const labels = Object.keys(s.matchLabels ?? {})
      .sort()
      .map((k) => `${k}: ${s.matchLabels![k]},`)
      .join('');
    const exprs = (s.matchExpressions ?? []).map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`).join('');
    return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
  };
  return `[${refs.map((r) => `{APIVersion:${r.apiVersion} Kind:${r.kind} Namespace:${r.namespace ?? ''} Name:${r.name ?? ''} LabelSelector:${selector(r.labelSelector)}}`).join(' ')}]`;
}

/** utilerrors.NewAggregate's message: one error as itself, several in brackets. */
function aggregate(errs: readonly string[]): string {
  return errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
}

export function reconcileDependencies(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const b = ctx.reader.get(RB, ref.namespace, ref.name);
  if (!b) return emptyResult();
  const label = dependedByLabelKey(b.metadata.namespace, b.metadata.name!);
  const writes: Write[] = [];
  const events: CoreEvent[] = [];
  const source = DependenciesDistributorName;
  const attachedNow = ctx.reader.list(RB, { namespace: b.metadata.namespace, labels: { [label]: bindingId(b) } });
  const active = !isTerminating(b) && b.spec?.propagateDeps === true;
  // Before the first schedule there is nowhere to send dependencies yet: wait for spec.clusters.
  if (active && !b.spec?.clusters?.length && !attachedNow.length && !b.metadata.annotations?.[BindingDependenciesAnnotation]) return emptyResult();

  let wanted: KObject[] = [];
  let depsAnnotation: string | undefined;
  // Karmada reports a sync (events on the workload and its binding) only when it asked the interpreter.
  let synced = false;
  if (active) {
    const r = b.spec.resource;
    const tpl = ctx.reader.get(r, r.namespace, r.name);
    if (tpl && ctx.interpreter.hookEnabled(tpl, 'InterpretDependency')) {
      let refs: DependentObjectReference[];
      try {
        refs = ctx.interpreter.getDependencies(tpl);
      } catch (e) {
        const message = errorMessage(e);
        events.push({ involvedObject: refOf(tpl), type: 'Warning', reason: EventReasonGetDependenciesFailed, message, source });
        return { writes, events, error: `failed to get the dependencies of ${tpl.kind} ${r.namespace}/${r.name}: ${message}` };
      }
      events.push({ involvedObject: refOf(tpl), type: 'Normal', reason: EventReasonGetDependenciesSucceed, message: `Get dependencies(${goDependencies(refs)}) succeed.`, source });
      synced = true;
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
  const errors: string[] = [];
  const wantedNames = new Set<string>();
  for (const dep of wanted) {
    const name = generateBindingName(dep.kind, dep.metadata.name!);
    wantedNames.add(name);
    const existing = ctx.reader.get(RB, dep.metadata.namespace, name);
    if (!existing) {
      const spec: ResourceBinding['spec'] = {
        resource: { apiVersion: dep.apiVersion, kind: dep.kind, namespace: dep.metadata.namespace, name: dep.metadata.name!, uid: dep.metadata.uid, resourceVersion: dep.metadata.resourceVersion },
        requiredBy: [me],
      };
      // The dependency is applied and deleted like the workload that needs it.
      applySettings(spec, effectiveSettings([b]));
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
            ownerReferences: [{ apiVersion: dep.apiVersion, kind: dep.kind, name: dep.metadata.name!, uid: dep.metadata.uid!, controller: true, blockOwnerDeletion: true }],
          },
          spec,
        },
      });
      continue;
    }
    // A binding of that name left by an earlier object of the same name: wait for the garbage collector.
    const owner = existing.metadata.ownerReferences?.find((o) => o.controller === true);
    if (owner && owner.uid !== dep.metadata.uid) {
      errors.push(attachedBindingOwnerMismatchMessage(existing.metadata.namespace!, name));
      continue;
    }
    const nb = withMetaAndSpecOf(existing);
    nb.metadata.labels = { ...(nb.metadata.labels ?? {}), [label]: bindingId(b) };
    const others = (nb.spec.requiredBy ?? []).filter((x) => !(x.namespace === me.namespace && x.name === me.name));
    nb.spec.requiredBy = [...others, me].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    // A binding a policy claimed (it has a placement) keeps its own settings; one the distributor made takes
    // them from every binding requiring it, on each sync.
    if (!nb.spec.placement) {
      const settings = effectiveSettings(parentsOf(ctx.reader, nb.spec.requiredBy, b));
      if (settings.conflicts.length) {
        events.push({ involvedObject: refOf(existing), type: 'Warning', reason: EventReasonDependencyPolicyConflict, message: `${DependencyPolicyConflictMessagePrefix}${settings.conflicts.join('; ')}.`, source });
      }
      applySettings(nb.spec, settings);
    }
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
    if (!nb.spec.placement) {
      if (rest.length) applySettings(nb.spec, effectiveSettings(parentsOf(ctx.reader, rest, b)));
      else {
        delete nb.spec.conflictResolution;
        delete nb.spec.preserveResourcesOnDeletion;
      }
    }
    writes.push({ op: 'update', object: nb });
  }
  if (errors.length) {
    const message = aggregate(errors);
    events.push({ involvedObject: refOf(b), type: 'Warning', reason: EventReasonSyncScheduleResultToDependenciesFailed, message, source });
    return { writes, events, error: message };
  }
  if (synced) events.push({ involvedObject: refOf(b), type: 'Normal', reason: EventReasonSyncScheduleResultToDependenciesSucceed, message: SyncScheduleResultToDependenciesSucceedMessage, source });
  return { writes, events };
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
