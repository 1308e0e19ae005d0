/**
 * Built-in Kubernetes kinds that can be resource templates, with their scope. Offline tools (validate,
 * plan) have no discovery API to ask, so this table stands in for it; kinds of other groups (custom
 * resources) are accepted as templates as they are.
 */
export interface BuiltinKind {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

const table: Array<[string, string, string, boolean]> = [
  ['v1', 'ConfigMap', 'configmaps', true],
  ['v1', 'Secret', 'secrets', true],
  ['v1', 'Service', 'services', true],
  ['v1', 'ServiceAccount', 'serviceaccounts', true],
  ['v1', 'Pod', 'pods', true],
  ['v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true],
  ['v1', 'PersistentVolume', 'persistentvolumes', false],
  ['v1', 'Namespace', 'namespaces', false],
  ['v1', 'Endpoints', 'endpoints', true],
  ['v1', 'LimitRange', 'limitranges', true],
  ['v1', 'ResourceQuota', 'resourcequotas', true],
  ['v1', 'ReplicationController', 'replicationcontrollers', true],
  ['apps/v1', 'Deployment', 'deployments', true],
  ['apps/v1', 'StatefulSet', 'statefulsets', true],
  ['apps/v1', 'DaemonSet', 'daemonsets', true],
  ['apps/v1', 'ReplicaSet', 'replicasets', true],
  ['batch/v1', 'Job', 'jobs', true],
  ['batch/v1', 'CronJob', 'cronjobs', true],
  ['autoscaling/v1', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', true],
  ['autoscaling/v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', true],
  ['networking.k8s.io/v1', 'Ingress', 'ingresses', true],
  ['networking.k8s.io/v1', 'IngressClass', 'ingressclasses', false],
  ['networking.k8s.io/v1', 'NetworkPolicy', 'networkpolicies', true],
  ['policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true],
  ['rbac.authorization.k8s.io/v1', 'Role', 'roles', true],
  ['rbac.authorization.k8s.io/v1', 'RoleBinding', 'rolebindings', true],
  ['rbac.authorization.k8s.io/v1', 'ClusterRole', 'clusterroles', false],
  ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'clusterrolebindings', false],
  ['storage.k8s.io/v1', 'StorageClass', 'storageclasses', false],
  ['scheduling.k8s.io/v1', 'PriorityClass', 'priorityclasses', false],
  ['apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'customresourcedefinitions', false],
  ['discovery.k8s.io/v1', 'EndpointSlice', 'endpointslices', true],
  ['coordination.k8s.io/v1', 'Lease', 'leases', true],
];

export const BUILTIN_KINDS: readonly BuiltinKind[] = table.map(([apiVersion, kind, plural, namespaced]) => ({ apiVersion, kind, plural, namespaced }));

/** API groups whose kinds are all listed above: a kind of these groups that is not listed is a typo. */
export const BUILTIN_GROUPS: ReadonlySet<string> = new Set(BUILTIN_KINDS.map((k) => groupOf(k.apiVersion)));

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** apiVersion -> kind -> entry: the status controllers ask for every member object. */
const byVersion = new Map<string, Map<string, BuiltinKind>>();
for (const k of BUILTIN_KINDS) {
  let byKind = byVersion.get(k.apiVersion);
  if (!byKind) byVersion.set(k.apiVersion, (byKind = new Map()));
  byKind.set(k.kind, k);
}

export function findBuiltinKind(apiVersion: string, kind: string): BuiltinKind | undefined {
  return byVersion.get(apiVersion)?.get(kind);
}

/** A resource type as an apiserver's discovery names it: the search cache's and the fleet CLI's unit. */
export interface DiscoveredResource {
  group: string;
  version: string;
  /** The plural, as in the path (`deployments`). */
  resource: string;
  kind: string;
  namespaced: boolean;
}
