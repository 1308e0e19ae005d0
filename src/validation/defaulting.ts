/**
 * Defaulting: what the API server (CRD schema defaults) and Karmada's mutating webhooks (spec §1.3, §2.3,
 * §3.3) add to an object on its way in, plus karmada-lite's purge-mode aliases (spec README point 3).
 *
 * Every function takes an object and returns a changed copy; the input is never modified. Randomness
 * (permanent ids) comes in through `uuid` so tests can pin it.
 */
import { randomUUID } from 'node:crypto';
import { arr, child, clone, isObj, obj, objs, present, strOf, type Obj } from './json.js';
import {
  ClusterPropagationPolicyControllerFinalizer,
  ClusterPropagationPolicyPermanentIDLabel,
  ClusterResourceBindingPermanentIDLabel,
  ManagedAnnotationsAnnotation,
  ManagedLabelsAnnotation,
  PropagationPolicyControllerFinalizer,
  PropagationPolicyPermanentIDLabel,
  ResourceBindingPermanentIDLabel,
  WorkPermanentIDLabel,
} from '../api/constants.js';
import { PURGE_MODE_ALIASES, purgeModeAliasWarning } from './purge-mode.js';
import { defaultRolloutStrategy } from './rollout.js';

export const DEFAULT_GRACE_PERIOD_SECONDS = 600;

export interface Mutated {
  object: Obj;
  warnings: string[];
}

export interface MutateOptions {
  operation: string;
  /** request.namespace; "" for cluster-scoped kinds. */
  namespace: string;
  uuid?: () => string;
  /** request.oldObject on UPDATE: a policy created before the webhook was installed lacks its permanent id. */
  oldObject?: Obj;
}

/** A mutation that cannot proceed; the webhook answers it as Errored with this code. */
export class MutationError extends Error {
  constructor(
    message: string,
    readonly code = 500,
  ) {
    super(message);
    this.name = 'MutationError';
  }
}

// ---------------------------------------------------------------------------------------------------------
// CRD schema defaults (the API server applies them before any webhook; offline nobody does)

/**
 * Structural defaulting as the API server does it: a missing (or null, non-nullable) field with a default
 * gets it, but only inside objects that exist; nulls without a default are pruned.
 */
export function applySchemaDefaults(schema: Record<string, unknown>, value: unknown): unknown {
  const out = clone(value);
  defaultInPlace(schema, out);
  return out;
}

function defaultInPlace(schema: Record<string, unknown>, value: unknown): void {
  if (Array.isArray(value)) {
    const items = obj(schema.items);
    if (items) for (const item of value) defaultInPlace(items, item);
    return;
  }
  if (!isObj(value)) return;
  const props = obj(schema.properties);
  if (props) {
    for (const [k, sub] of Object.entries(props)) {
      if (!isObj(sub)) continue;
      if (value[k] === null && sub.nullable !== true) {
        if (sub.default !== undefined) value[k] = clone(sub.default);
        else delete value[k];
      } else if (value[k] === undefined && sub.default !== undefined) {
        value[k] = clone(sub.default);
      }
      if (value[k] !== undefined) defaultInPlace(sub, value[k]);
    }
  }
  const extra = obj(schema.additionalProperties);
  if (extra) {
    for (const [k, v] of Object.entries(value)) if (!props || !(k in props)) defaultInPlace(extra, v);
  }
}

// ---------------------------------------------------------------------------------------------------------
// PropagationPolicy / ClusterPropagationPolicy

export function mutatePropagationPolicy(input: Obj, clusterScoped: boolean, opts: MutateOptions): Mutated {
  const object = clone(input);
  const warnings: string[] = [];
  const spec = obj(object.spec);
  if (spec) {
    if (!clusterScoped) defaultSelectorNamespaces(spec, opts.namespace || strOf(obj(object.metadata)?.namespace));
    const placement = obj(spec.placement);
    for (const c of arr(placement?.spreadConstraints)) {
      if (!isObj(c)) continue;
      if (strOf(c.spreadByLabel) === '' && strOf(c.spreadByField) === '') c.spreadByField = 'cluster';
      if (!c.minGroups) c.minGroups = 1;
    }
    if (objs(spec.resourceSelectors).some((s) => s.kind === 'ServiceImport' && s.apiVersion === 'multicluster.x-k8s.io/v1alpha1')) {
      spec.propagateDeps = true;
    }
    const rs = obj(placement?.replicaScheduling);
    if (rs && rs.replicaSchedulingType === 'Divided' && strOf(rs.replicaDivisionPreference) === '') rs.replicaDivisionPreference = 'Weighted';
    const failover = obj(spec.failover);
    for (const part of ['application', 'cluster']) {
      const f = obj(failover?.[part]);
      const mode = strOf(f?.purgeMode);
      if (f && PURGE_MODE_ALIASES[mode]) {
        f.purgeMode = PURGE_MODE_ALIASES[mode];
        warnings.push(purgeModeAliasWarning(`spec.failover.${part}.purgeMode`, mode));
      }
    }
    const app = obj(failover?.application);
    if (app && app.purgeMode === 'Gracefully' && !present(app.gracePeriodSeconds)) app.gracePeriodSeconds = DEFAULT_GRACE_PERIOD_SECONDS;
    defaultRolloutStrategy(spec);
  }
  if (opts.operation === 'CREATE') {
    const meta = child(object, 'metadata');
    // Karmada overwrites a client-supplied id: the id must be unique, and only the system can promise that.
    child(meta, 'labels')[clusterScoped ? ClusterPropagationPolicyPermanentIDLabel : PropagationPolicyPermanentIDLabel] = (opts.uuid ?? randomUUID)();
    addFinalizer(meta, clusterScoped ? ClusterPropagationPolicyControllerFinalizer : PropagationPolicyControllerFinalizer);
  } else if (opts.operation === 'UPDATE' && opts.oldObject) repairPermanentId(object, clusterScoped ? ClusterPropagationPolicyPermanentIDLabel : PropagationPolicyPermanentIDLabel, opts);
  return { object, warnings };
}

/**
 * karmada-lite's own (README "differs"): Karmada sets the permanent id on CREATE only, so a policy created
 * before the webhook was installed fails every later update ("label ... is required") and the label cannot
 * be added either (it is immutable). On UPDATE a missing id is filled in: the stored one when the old object
 * has it (a PUT that dropped the labels), else a new one; the validating side accepts the id appearing once.
 */
function repairPermanentId(object: Obj, label: string, opts: MutateOptions): void {
  const labels = obj(obj(object.metadata)?.labels);
  if (labels && Object.prototype.hasOwnProperty.call(labels, label)) return;
  const previous = strOf(obj(obj(opts.oldObject?.metadata)?.labels)?.[label]);
  child(child(object, 'metadata'), 'labels')[label] = previous || (opts.uuid ?? randomUUID)();
}

function defaultSelectorNamespaces(spec: Obj, namespace: string): void {
  if (namespace === '') return;
  for (const s of arr(spec.resourceSelectors)) if (isObj(s) && strOf(s.namespace) === '') s.namespace = namespace;
}

function addFinalizer(meta: Obj, finalizer: string): void {
  const list = Array.isArray(meta.finalizers) ? meta.finalizers : (meta.finalizers = []);
  if (!list.includes(finalizer)) list.push(finalizer);
}

// ---------------------------------------------------------------------------------------------------------
// OverridePolicy (ClusterOverridePolicy has no mutating webhook)

export function mutateOverridePolicy(input: Obj, opts: MutateOptions): Mutated {
  const object = clone(input);
  const spec = obj(object.spec);
  if (spec) defaultSelectorNamespaces(spec, opts.namespace || strOf(obj(object.metadata)?.namespace));
  return { object, warnings: [] };
}

// ---------------------------------------------------------------------------------------------------------
// ResourceBinding / ClusterResourceBinding

export function mutateBinding(input: Obj, clusterScoped: boolean, opts: Pick<MutateOptions, 'uuid'> = {}): Mutated {
  const object = clone(input);
  const label = clusterScoped ? ClusterResourceBindingPermanentIDLabel : ResourceBindingPermanentIDLabel;
  const labels = child(child(object, 'metadata'), 'labels');
  if (strOf(labels[label]) === '') labels[label] = (opts.uuid ?? randomUUID)();
  return { object, warnings: [] };
}

// ---------------------------------------------------------------------------------------------------------
// Work: manifests are cleaned of server-owned fields before they are applied to member clusters

const SERVER_METADATA = ['creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'managedFields', 'resourceVersion', 'selfLink', 'uid', 'ownerReferences', 'finalizers'];

export function mutateWork(input: Obj, opts: Pick<MutateOptions, 'uuid'> = {}): Mutated {
  const object = clone(input);
  const labels = child(child(object, 'metadata'), 'labels');
  if (strOf(labels[WorkPermanentIDLabel]) === '') labels[WorkPermanentIDLabel] = (opts.uuid ?? randomUUID)();
  const id = strOf(labels[WorkPermanentIDLabel]);
  const manifests = arr(obj(obj(object.spec)?.workload)?.manifests);
  for (const manifest of manifests) {
    if (!isObj(manifest) || strOf(manifest.kind) === '') {
      throw new MutationError(`Object 'Kind' is missing in '${JSON.stringify(manifest)}'`);
    }
    cleanManifest(manifest, id);
  }
  return { object, warnings: [] };
}

function cleanManifest(m: Obj, workId: string): void {
  const meta = child(m, 'metadata');
  for (const f of SERVER_METADATA) delete meta[f];
  delete m.status;
  pruneByKind(m, meta);
  const annotations = obj(meta.annotations) ?? {};
  const annotationKeys = new Set([...Object.keys(annotations), ManagedAnnotationsAnnotation, ManagedLabelsAnnotation]);
  annotations[ManagedAnnotationsAnnotation] = [...annotationKeys].sort().join(',');
  const labels = child(meta, 'labels');
  labels[WorkPermanentIDLabel] = workId;
  annotations[ManagedLabelsAnnotation] = Object.keys(labels).sort().join(',');
  meta.annotations = annotations;
}

function deleteKeys(target: Obj | undefined, keys: string[]): void {
  if (target) for (const k of keys) delete target[k];
}

/** Fields the member cluster's controllers own, per kind (apiVersion is ignored, as in Karmada). */
function pruneByKind(m: Obj, meta: Obj): void {
  const spec = obj(m.spec);
  switch (m.kind) {
    case 'Deployment':
      deleteKeys(obj(meta.annotations), ['deployment.kubernetes.io/revision', 'deployment.kubernetes.io/revision-history']);
      break;
    case 'Job':
      if (spec) {
        if (spec.manualSelector !== true) {
          deleteKeys(obj(obj(spec.selector)?.matchLabels), ['controller-uid', 'batch.kubernetes.io/controller-uid']);
          deleteKeys(obj(obj(obj(spec.template)?.metadata)?.labels), ['controller-uid', 'job-name', 'batch.kubernetes.io/controller-uid', 'batch.kubernetes.io/job-name']);
        }
        delete spec.ttlSecondsAfterFinished;
      }
      break;
    case 'Secret':
      if (m.type === 'kubernetes.io/service-account-token') {
        deleteKeys(obj(meta.annotations), ['kubernetes.io/service-account.uid']);
        m.data = null;
      }
      break;
    case 'ServiceAccount': {
      const prefix = `${strOf(meta.name)}-token-`;
      if (Array.isArray(m.secrets)) m.secrets = m.secrets.filter((s) => !(isObj(s) && strOf(s.name).startsWith(prefix)));
      break;
    }
    case 'Service':
      if (spec && present(spec.clusterIP) && spec.clusterIP !== 'None') {
        delete spec.clusterIP;
        delete spec.clusterIPs;
      }
      break;
    case 'PersistentVolumeClaim': {
      const ann = obj(meta.annotations);
      if (ann && strOf(ann['volume.kubernetes.io/selected-node']) !== '') delete ann['volume.kubernetes.io/selected-node'];
      break;
    }
  }
}
