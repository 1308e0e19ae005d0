/**
 * The objects `promote` and `apply --all-clusters` make, pure, as karmadactl makes them: a member's object
 * cleaned into a resource template, and one (Cluster)PropagationPolicy per object, named by karmadactl's
 * GeneratePolicyName so that running either tool finds the other's policy.
 */
import { ConflictResolutionAnnotation, ConflictResolutionOverwrite, generatePolicyName, PolicyGroupVersion } from '../../api/constants.js';
import { removeIrrelevantFields } from '../../core/prune.js';

type Obj = Record<string, unknown>;
export type KubeObject = Obj & { apiVersion: string; kind: string; metadata: Obj & { name: string; namespace?: string; annotations?: Record<string, string> } };

/** Go's GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=ConfigMap` for the core group. */
export function goGvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `${group}/${version}, Kind=${kind}`;
}

/** The policy name karmadactl gives an object's policy, unless one is given (--policy-name). */
export const policyNameFor = (o: { apiVersion: string; kind: string; name: string; namespace?: string }, given?: string): string =>
  given || generatePolicyName(o.namespace ?? '', o.name, goGvkString(o.apiVersion, o.kind));

/**
 * A member's object as a resource template (karmadactl promote's preprocessResource): what the member's
 * server and controllers wrote is removed (status, uid, resourceVersion, managedFields, owner references,
 * a Deployment's revision, ...: Karmada's RemoveIrrelevantFields), and the conflict-resolution annotation
 * says overwrite unless the object already says otherwise, so the member's copy is taken over in place.
 */
export function promotedTemplate(member: KubeObject): KubeObject {
  const t = removeIrrelevantFields(member) as KubeObject;
  const annotations = { ...(t.metadata.annotations ?? {}) };
  if (!(ConflictResolutionAnnotation in annotations)) annotations[ConflictResolutionAnnotation] = ConflictResolutionOverwrite;
  t.metadata.annotations = annotations;
  return t;
}

export interface PromotePolicyRequest {
  /** The template's apiVersion as the host serves it, its kind, name and (namespaced) namespace. */
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  cluster: string;
  policyName: string;
  /** --dependencies: the policy propagates what the workload depends on too. */
  deps: boolean;
}

/**
 * The policy promote makes: the object to the one cluster it came from, conflicts resolved by overwriting
 * (the member's copy is adopted), and the member's copy kept if the template is ever deleted.
 */
export function promotePolicy(r: PromotePolicyRequest): KubeObject {
  return {
    apiVersion: PolicyGroupVersion,
    kind: r.namespace ? 'PropagationPolicy' : 'ClusterPropagationPolicy',
    metadata: { name: r.policyName, ...(r.namespace ? { namespace: r.namespace } : {}) },
    spec: {
      ...(r.deps ? { propagateDeps: true } : {}),
      resourceSelectors: [{ apiVersion: r.apiVersion, kind: r.kind, name: r.name }],
      placement: { clusterAffinity: { clusterNames: [r.cluster] } },
      conflictResolution: 'Overwrite',
      preserveResourcesOnDeletion: true,
    },
  };
}

export interface ApplyPolicyRequest {
  apiVersion: string;
  kind: string;
  name: string;
  /** Set for namespaced objects: the policy is a PropagationPolicy there; else a ClusterPropagationPolicy. */
  namespace?: string;
  /** The clusters of -C, or undefined for --all-clusters (an empty cluster affinity: every cluster). */
  clusters?: readonly string[];
}

/** The policy `apply --all-clusters` / `apply -C` puts beside each object it applies. */
export function applyPolicy(r: ApplyPolicyRequest): KubeObject {
  const policyName = policyNameFor(r);
  return {
    apiVersion: PolicyGroupVersion,
    kind: r.namespace ? 'PropagationPolicy' : 'ClusterPropagationPolicy',
    metadata: { name: policyName, ...(r.namespace ? { namespace: r.namespace } : {}) },
    spec: {
      resourceSelectors: [{ apiVersion: r.apiVersion, kind: r.kind, name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) }],
      placement: { clusterAffinity: r.clusters ? { clusterNames: [...r.clusters] } : {} },
    },
  };
}
