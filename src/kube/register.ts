/**
 * `karmada-lite register`: what a Pull cluster's agent needs, made by someone who may make it (Karmada's
 * `karmadactl register`, pkg/karmadactl/register). On the control plane (the host):
 *
 * - the namespaces karmada-cluster, karmada-es-<cluster> (the agent's Works) and the agent's leader election
 *   namespace;
 * - the agent's identity, a ServiceAccount karmada-cluster/karmada-agent-<cluster>, and a token for it
 *   (TokenRequest). Karmada issues a client certificate through a CSR instead; a certificate needs the
 *   kube-controller-manager's signer, which a plain kube-apiserver (and many managed control planes) lacks,
 *   while a TokenRequest is answered by the apiserver alone, and deleting the ServiceAccount revokes it;
 * - least-privilege RBAC for it: its own Cluster and its status, its own heartbeat and leader election
 *   Leases, the Works of its own execution namespace and their status, read access to the interpreter
 *   customizations, Events. Karmada's agent may also create and list every Cluster and every Lease;
 *   here register creates the Cluster and both Leases, so the agent needs neither (README: differs);
 * - the Cluster (syncMode Pull, spec.id the member's kube-system uid, as the agent registers it) and the
 *   Leases, owned by the Cluster so that they go with it.
 *
 * In the member (when its kubeconfig is given): the agent's namespace, ServiceAccount, RBAC (an aggregated
 * ClusterRole: the probe, namespaces and the default template kinds, extended per kind by labelled
 * ClusterRoles; Karmada's agent may do anything), the Secret karmada-kubeconfig with the
 * agent's kubeconfig for the host, and the agent's Deployment. Without it the kubeconfig goes to a file.
 *
 * The objects are built by the functions below, which are also what deploy/agent/ contains (a test
 * compares them), and written by server-side apply: a second run changes nothing but the token.
 */
import { readFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { ClusterControllerFinalizer, generateExecutionSpaceName } from '../api/constants.js';
import type { Cluster } from '../api/generated/types.js';
import { CLUSTER } from '../core/kinds.js';
import type { KObject } from '../core/object.js';
import { LEASE, NamespaceClusterLease } from '../core/pull-cluster.js';
import { deepEqual } from '../json/value.js';
import { VERSION } from '../version.js';
import { desiredClusterSpec, memberConnectionOf, registrationProblem, type MemberConnection, type RegisterOptions } from './agent-register.js';
import { agentLeaseName } from './agent.js';
import { DefaultClusterLeaseDurationSeconds } from './cluster-lease.js';
import { ApiError, isApiConflict, isApiNotFound, type RestClient } from './rest.js';

export interface RegisterPlan extends RegisterOptions {
  /** `--cluster-namespace`: where the agent's ServiceAccount and heartbeat Lease live (Karmada's default). */
  clusterNamespace: string;
  /** `-n/--namespace`: the agent's namespace in the member, and of its leader election Lease on the host. */
  agentNamespace: string;
  /** `--karmada-agent-image`. */
  image: string;
  /** `--karmada-agent-replicas`. */
  replicas: number;
}

export const DefaultClusterNamespace = NamespaceClusterLease;
export const DefaultAgentNamespace = 'karmada-system';
/** The image `node scripts/image.mjs build` makes (scripts/image.mjs: one tag for the build, deploy/ and the chart). */
export const DefaultAgentImage = `karmada-lite:${VERSION}`;
/** Karmada's --cert-expiration-seconds default: a year. */
export const DefaultTokenExpirationSeconds = 31_536_000;

/** Karmada's names in the member. */
export const AgentKubeconfigSecret = 'karmada-kubeconfig';
export const AgentMemberServiceAccount = 'karmada-agent-sa';
export const AgentComponentName = 'karmada-agent';
const KarmadaSystemLabel = 'karmada.io/system';
/** A member ClusterRole with this label set to "true" adds its rules to the agent's (ClusterRole `karmada-agent`). */
export const AgentAggregationLabel = 'karmada-lite.io/aggregate-to-agent';
/**
 * What the agent does to a kind a Work carries: reads it (its cache, the status it reports), creates and
 * updates it, deletes it with its Work. The verbs a labelled ClusterRole grants for a kind of its own.
 */
export const AgentWorkVerbs = ['get', 'list', 'watch', 'create', 'update', 'delete'] as const;

/** The agent's ServiceAccount on the host, and the user its token authenticates as. */
export const agentServiceAccountName = (cluster: string) => `karmada-agent-${cluster}`;
export const agentUserName = (p: Pick<RegisterPlan, 'clusterName' | 'clusterNamespace'>) => `system:serviceaccount:${p.clusterNamespace}:${agentServiceAccountName(p.clusterName)}`;
/** Karmada's RBAC names: system:karmada:<cluster>:agent, ...:agent-work. */
const rbacName = (cluster: string, suffix = '') => `system:karmada:${cluster}:agent${suffix}`;

const RBAC = 'rbac.authorization.k8s.io/v1';

function subject(p: RegisterPlan) {
  return {
    kind: 'ServiceAccount',
    name: agentServiceAccountName(p.clusterName),
    namespace: p.clusterNamespace,
  };
}

function binding(kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, namespace: string | undefined, p: RegisterPlan): KObject {
  return {
    apiVersion: RBAC,
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}) },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: kind === 'RoleBinding' ? 'Role' : 'ClusterRole',
      name,
    },
    subjects: [subject(p)],
  };
}

const namespace = (name: string, labels?: Record<string, string>): KObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, ...(labels ? { labels } : {}) },
});

/**
 * The agent's identity and rights on the host. Names in resourceNames: RBAC cannot name the object of a
 * create, so nothing here creates; a list or watch must select the one name (fieldSelector metadata.name).
 */
export function hostRbacObjects(p: RegisterPlan): KObject[] {
  const name = p.clusterName;
  const es = generateExecutionSpaceName(name);
  return [
    namespace(p.clusterNamespace),
    namespace(es),
    ...(p.agentNamespace === p.clusterNamespace ? [] : [namespace(p.agentNamespace)]),
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: {
        name: agentServiceAccountName(name),
        namespace: p.clusterNamespace,
      },
    },
    {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: rbacName(name) },
      rules: [
        // Its own Cluster: registered (adopted) and followed; its status is the agent's report.
        {
          apiGroups: ['cluster.karmada.io'],
          resources: ['clusters'],
          resourceNames: [name],
          verbs: ['get', 'list', 'watch', 'update', 'patch'],
        },
        {
          apiGroups: ['cluster.karmada.io'],
          resources: ['clusters/status'],
          resourceNames: [name],
          verbs: ['update', 'patch'],
        },
        // The interpreter reads the customizations (status reflection, health, retention).
        {
          apiGroups: ['config.karmada.io'],
          resources: ['resourceinterpretercustomizations', 'resourceinterpreterwebhookconfigurations'],
          verbs: ['get', 'list', 'watch'],
        },
        {
          apiGroups: [''],
          resources: ['namespaces'],
          resourceNames: [es],
          verbs: ['get'],
        },
        // Events on Works, on its Cluster (namespace default) and on the templates they came from.
        { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
        {
          apiGroups: ['events.k8s.io'],
          resources: ['events'],
          verbs: ['create', 'patch'],
        },
      ],
    },
    binding('ClusterRoleBinding', rbacName(name), undefined, p),
    {
      apiVersion: RBAC,
      kind: 'Role',
      metadata: {
        name: rbacName(name, '-lease'),
        namespace: p.clusterNamespace,
      },
      rules: [
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          resourceNames: [name],
          verbs: ['get', 'update', 'patch'],
        },
      ],
    },
    binding('RoleBinding', rbacName(name, '-lease'), p.clusterNamespace, p),
    {
      apiVersion: RBAC,
      kind: 'Role',
      metadata: {
        name: rbacName(name, '-leader-election'),
        namespace: p.agentNamespace,
      },
      rules: [
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          resourceNames: [agentLeaseName(name)],
          verbs: ['get', 'update', 'patch'],
        },
      ],
    },
    binding('RoleBinding', rbacName(name, '-leader-election'), p.agentNamespace, p),
    {
      apiVersion: RBAC,
      kind: 'Role',
      metadata: { name: rbacName(name, '-work'), namespace: es },
      rules: [
        // Finalizers and the applied state are updates; the control plane creates and deletes Works.
        {
          apiGroups: ['work.karmada.io'],
          resources: ['works'],
          verbs: ['get', 'list', 'watch', 'update', 'patch'],
        },
        {
          apiGroups: ['work.karmada.io'],
          resources: ['works/status'],
          verbs: ['update', 'patch'],
        },
      ],
    },
    binding('RoleBinding', rbacName(name, '-work'), es, p),
  ];
}

/** The Cluster as register creates it: what the agent registers, so that the agent adopts it. */
export function clusterObject(p: RegisterPlan, id: string, member: MemberConnection, current?: Cluster): Cluster {
  return {
    apiVersion: CLUSTER.apiVersion,
    kind: CLUSTER.kind,
    // The cluster controller's finalizer, as Karmada's ensureFinalizer sets it: its Works are removed before it goes.
    metadata: { name: p.clusterName, finalizers: [ClusterControllerFinalizer] },
    spec: desiredClusterSpec(current?.spec, p, id, member),
  };
}

/** The heartbeat Lease and the leader election Lease, unheld, owned by the Cluster (gone with it). */
export function leaseObjects(p: RegisterPlan, clusterUid: string | undefined): KObject[] {
  const owner = clusterUid
    ? {
        ownerReferences: [
          {
            apiVersion: CLUSTER.apiVersion,
            kind: CLUSTER.kind,
            name: p.clusterName,
            uid: clusterUid,
          },
        ],
      }
    : {};
  return [
    {
      apiVersion: LEASE.apiVersion,
      kind: LEASE.kind,
      metadata: {
        name: p.clusterName,
        namespace: p.clusterNamespace,
        ...owner,
      },
      spec: {
        holderIdentity: p.clusterName,
        leaseDurationSeconds: DefaultClusterLeaseDurationSeconds,
      },
    },
    {
      apiVersion: LEASE.apiVersion,
      kind: LEASE.kind,
      metadata: {
        name: agentLeaseName(p.clusterName),
        namespace: p.agentNamespace,
        ...owner,
      },
      spec: {},
    },
  ];
}

/**
 * What register writes on the host for a cluster, but the namespaces and the Cluster: the agent's
 * ServiceAccount and RBAC, and the Leases. A garbage collector follows the Cluster's ownership of the
 * Leases only; whoever undoes a registration deletes the rest (the suites that register do).
 */
export function registeredHostObjects(p: RegisterPlan): KObject[] {
  return [...hostRbacObjects(p).filter((o) => !(o.apiVersion === 'v1' && o.kind === 'Namespace')), ...leaseObjects(p, undefined)];
}

/** The member side, as Karmada's register makes it, but for the Secret (memberKubeconfigSecret). */
export function memberObjects(p: RegisterPlan): KObject[] {
  return [...memberSetupObjects(p), agentDeployment(p)];
}

/** The agent's namespace, ServiceAccount and rights in the member: what its Secret and Deployment need first. */
export function memberSetupObjects(p: RegisterPlan): KObject[] {
  const labels = { [KarmadaSystemLabel]: 'true' };
  const ns = p.agentNamespace;
  return [
    namespace(ns, labels),
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: AgentMemberServiceAccount, namespace: ns, labels },
    },
    // Karmada's agent may do anything in its member. This one's role is the union of the ClusterRoles labelled
    // AgentAggregationLabel (kube-controller-manager's ClusterRole aggregation fills it): what the agent
    // always does, and the kinds the Works carry, by default those the controller's template role names
    // (deploy/controller/controller.yaml); one more labelled ClusterRole in the member adds a kind. No rules
    // field: the aggregation owns it, and a second register (server-side apply) must not empty it.
    {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: AgentComponentName, labels },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [AgentAggregationLabel]: 'true' } }] },
    },
    {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: `${AgentComponentName}:base`, labels: { ...labels, [AgentAggregationLabel]: 'true' } },
      rules: [
        // The member probe (health, version, the API list the scheduler filters on) and the REST client's discovery.
        { nonResourceURLs: ['/readyz', '/healthz', '/livez', '/version', '/api', '/api/*', '/apis', '/apis/*'], verbs: ['get'] },
        // kube-system's uid is the cluster id; the probe lists namespaces (a request that needs rights); a
        // manifest's namespace is created when missing; the namespace sync controller's Works carry namespaces.
        { apiGroups: [''], resources: ['namespaces'], verbs: [...AgentWorkVerbs] },
        // The cluster's resource summary (Nodes and the Pods on them) and the estimator's quota bound, read only.
        { apiGroups: [''], resources: ['nodes', 'pods', 'resourcequotas'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: `${AgentComponentName}:workloads`, labels: { ...labels, [AgentAggregationLabel]: 'true' } },
      rules: [
        { apiGroups: ['apps'], resources: ['deployments', 'statefulsets', 'daemonsets'], verbs: [...AgentWorkVerbs] },
        { apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], verbs: [...AgentWorkVerbs] },
        { apiGroups: [''], resources: ['services', 'configmaps'], verbs: [...AgentWorkVerbs] },
      ],
    },
    {
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: AgentComponentName, labels },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: AgentComponentName,
      },
      subjects: [
        {
          kind: 'ServiceAccount',
          name: AgentMemberServiceAccount,
          namespace: ns,
        },
      ],
    },
  ];
}

/** `karmada-lite agent` in the member, with the in-cluster service account and the host's kubeconfig from the Secret. */
export function agentDeployment(p: RegisterPlan): KObject {
  const app = { app: AgentComponentName };
  const ns = p.agentNamespace;
  const flag = (n: string, v: string | undefined) => (v ? [`--${n}=${v}`] : []);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: AgentComponentName, namespace: ns, labels: app },
    spec: {
      replicas: p.replicas,
      selector: { matchLabels: app },
      template: {
        metadata: { labels: app },
        spec: {
          serviceAccountName: AgentMemberServiceAccount,
          // The restricted Pod Security Standard, as the controller's Deployment.
          securityContext: {
            runAsNonRoot: true,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          terminationGracePeriodSeconds: 30,
          containers: [
            {
              name: AgentComponentName,
              image: p.image,
              command: ['/karmada-lite', 'agent'],
              args: [
                `--karmada-kubeconfig=/etc/kubeconfig/${AgentKubeconfigSecret}`,
                `--cluster-name=${p.clusterName}`,
                ...flag('cluster-api-endpoint', p.apiEndpoint),
                ...flag('proxy-server-address', p.proxyURL),
                ...flag('cluster-provider', p.provider),
                ...flag('cluster-region', p.region),
                ...flag('cluster-zones', p.zones?.join(',')),
                `--cluster-namespace=${p.clusterNamespace}`,
                `--leader-elect-resource-namespace=${ns}`,
                '--leader-elect-identity=$(POD_NAME)',
                '--cluster-status-update-frequency=10s',
                '--metrics-port=8080',
              ],
              env: [
                {
                  name: 'POD_NAME',
                  valueFrom: { fieldRef: { fieldPath: 'metadata.name' } },
                },
              ],
              ports: [{ name: 'metrics', containerPort: 8080 }],
              volumeMounts: [
                {
                  name: 'kubeconfig',
                  mountPath: '/etc/kubeconfig',
                  readOnly: true,
                },
              ],
              livenessProbe: {
                httpGet: { path: '/healthz', port: 'metrics' },
                periodSeconds: 10,
              },
              readinessProbe: {
                httpGet: { path: '/readyz', port: 'metrics' },
                periodSeconds: 5,
              },
              resources: {
                requests: { cpu: '100m', memory: '128Mi' },
                limits: { memory: '512Mi' },
              },
              securityContext: {
                runAsNonRoot: true,
                runAsUser: 65532,
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
                seccompProfile: { type: 'RuntimeDefault' },
              },
            },
          ],
          volumes: [
            {
              name: 'kubeconfig',
              secret: { secretName: AgentKubeconfigSecret },
            },
          ],
        },
      },
    },
  };
}

export function memberKubeconfigSecret(p: RegisterPlan, kubeconfig: string): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: AgentKubeconfigSecret,
      namespace: p.agentNamespace,
      labels: { [KarmadaSystemLabel]: 'true' },
    },
    type: 'Opaque',
    data: {
      [AgentKubeconfigSecret]: Buffer.from(kubeconfig, 'utf8').toString('base64'),
    },
  };
}

export interface HostEndpoint {
  server: string;
  caData?: string;
  insecureSkipTLSVerify?: boolean;
}

/** The host as the agent's kubeconfig names it: the server the member reaches (default: --karmada-kubeconfig's) and its CA. */
export function hostEndpointOf(kc: KubeConfig, server?: string): HostEndpoint {
  const c = kc.getCurrentCluster();
  if (!c) throw new Error('--karmada-kubeconfig has no current cluster; give --karmada-context');
  let caData = c.caData;
  if (!caData && c.caFile) caData = readFileSync(c.caFile).toString('base64');
  return {
    server: server ?? c.server,
    ...(caData ? { caData } : {}),
    ...(c.skipTLSVerify ? { insecureSkipTLSVerify: true } : {}),
  };
}

/** The agent's kubeconfig for the host: cluster karmada-apiserver (Karmada's name), the token's user. */
export function agentKubeconfig(p: RegisterPlan, host: HostEndpoint, token: string): string {
  const user = agentUserName(p);
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'karmada-apiserver',
        cluster: {
          server: host.server,
          ...(host.caData ? { 'certificate-authority-data': host.caData } : {}),
          ...(host.insecureSkipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
        },
      },
    ],
    users: [{ name: user, user: { token } }],
    contexts: [
      {
        name: `${user}@karmada-apiserver`,
        context: { cluster: 'karmada-apiserver', user },
      },
    ],
    'current-context': `${user}@karmada-apiserver`,
  });
}

/** The objects as YAML documents (`--dry-run`, deploy/agent/). */
export function toYamlDocuments(objects: readonly KObject[]): string {
  return objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
}

// ---------------------------------------------------------------------------------------------------------
// Writing

export type ApplyOutcome = 'created' | 'configured' | 'unchanged';

export interface Applied {
  where: 'host' | 'member';
  kind: string;
  namespace?: string;
  name: string;
  outcome: ApplyOutcome;
}

const FIELD_MANAGER = 'karmada-lite-register';

/**
 * How a write is sent: the field manager of its server-side apply, and `server` for kubectl's
 * --dry-run=server (every write carries dryRun=All: admission runs, nothing is stored). join, unjoin and
 * unregister write through these too.
 */
export interface WriteOptions {
  fieldManager?: string;
  dryRun?: 'server';
}

const writeQuery = (o: WriteOptions) => ({ fieldManager: o.fieldManager ?? FIELD_MANAGER, ...(o.dryRun === 'server' ? { dryRun: 'All' } : {}) });

/** GET, with undefined for a 404. */
export async function getIfPresent<T = KObject>(rest: RestClient, path: string): Promise<T | undefined> {
  try {
    return await rest.request<T>('GET', path);
  } catch (e) {
    if (isApiNotFound(e)) return undefined;
    throw e;
  }
}

/** Server-side apply, forced (register owns these objects); the outcome from the resourceVersion before and after. */
export async function apply(rest: RestClient, obj: KObject, o: WriteOptions = {}): Promise<ApplyOutcome> {
  const path = await rest.pathFor(obj.apiVersion, obj.kind, obj.metadata.namespace, obj.metadata.name);
  const before = await getIfPresent(rest, path);
  const after = await rest.request<KObject>('PATCH', path, {
    query: { force: true, ...writeQuery(o) },
    body: obj,
    contentType: 'application/apply-patch+yaml',
  });
  if (!before) return 'created';
  return before.metadata.resourceVersion === after.metadata.resourceVersion ? 'unchanged' : 'configured';
}

/**
 * A Namespace: created when missing, its labels applied when one is not there. Applied as a whole, a new
 * namespace reads as changed on the next run (the apiserver's own label moves its managed fields once).
 */
async function ensureNamespace(rest: RestClient, ns: KObject, o: WriteOptions): Promise<ApplyOutcome> {
  const current = await getIfPresent(rest, await rest.pathFor(ns.apiVersion, ns.kind, undefined, ns.metadata.name));
  if (!current) return createIfMissing(rest, ns, o);
  if (current.metadata.deletionTimestamp) throw new Error(`namespace ${ns.metadata.name} is being deleted; run the command again once it is gone (kubectl get namespace ${ns.metadata.name})`);
  const want = Object.entries(ns.metadata.labels ?? {});
  if (want.every(([k, v]) => current.metadata.labels?.[k] === v)) return 'unchanged';
  return apply(rest, ns, o);
}

/** Applied, or for a Namespace ensured (ensureNamespace). */
export const writeObject = (rest: RestClient, obj: KObject, o: WriteOptions = {}) => (obj.kind === 'Namespace' && obj.apiVersion === 'v1' ? ensureNamespace(rest, obj, o) : apply(rest, obj, o));

/**
 * A Lease: created when missing, else left to whoever renews it, but for its owner: one left from a Cluster
 * of the same name deleted before (where no garbage collector removed it) is given the current Cluster.
 */
async function ensureLease(rest: RestClient, lease: KObject): Promise<ApplyOutcome> {
  const created = await createIfMissing(rest, lease);
  const want = lease.metadata.ownerReferences;
  if (created === 'created' || !want?.length) return created;
  const path = await rest.pathFor(lease.apiVersion, lease.kind, lease.metadata.namespace, lease.metadata.name);
  for (;;) {
    const current = await rest.request<KObject>('GET', path);
    if (deepEqual(current.metadata.ownerReferences, want)) return 'unchanged';
    try {
      await rest.request('PUT', path, { body: { ...current, metadata: { ...current.metadata, ownerReferences: want } } });
      return 'configured';
    } catch (e) {
      if (!isApiConflict(e)) throw e;
    }
  }
}

/** Created when missing, else left alone. */
async function createIfMissing(rest: RestClient, obj: KObject, o: WriteOptions = {}): Promise<ApplyOutcome> {
  const collection = await rest.pathFor(obj.apiVersion, obj.kind, obj.metadata.namespace);
  try {
    await rest.request('POST', collection, { body: obj, query: writeQuery(o) });
    return 'created';
  } catch (e) {
    if (isApiConflict(e)) return 'unchanged';
    throw e;
  }
}

export const CLUSTERS = `/apis/${CLUSTER.apiVersion}/clusters`;

/** Every Cluster of the host; a failure says what the command needs. */
export async function listClusters(host: RestClient, command: string): Promise<Cluster[]> {
  try {
    return (await host.request<{ items: Cluster[] }>('GET', CLUSTERS)).items ?? [];
  } catch (e) {
    throw new Error(
      `cannot list the Clusters of the control plane: ${(e as Error).message}; ${command} needs an administrator's kubeconfig of the control plane, and the Karmada CRDs (karmada-lite crds | kubectl apply --server-side -f -)`,
    );
  }
}

/**
 * The Cluster, created or brought to the spec `want` makes of what is stored (Karmada's
 * CreateOrUpdateClusterObject: other fields are kept); read again when someone else wrote it meanwhile.
 */
export async function ensureClusterObject(host: RestClient, name: string, want: (seen: Cluster | undefined) => Cluster, o: WriteOptions = {}): Promise<{ cluster: Cluster; outcome: ApplyOutcome }> {
  const named = `${CLUSTERS}/${encodeURIComponent(name)}`;
  for (let seen = await getIfPresent<Cluster>(host, named); ; ) {
    const next = want(seen);
    try {
      if (!seen) return { cluster: await host.request<Cluster>('POST', CLUSTERS, { body: next, query: writeQuery(o) }), outcome: 'created' };
      if (deepEqual(seen.spec, next.spec)) return { cluster: seen, outcome: 'unchanged' };
      return { cluster: await host.request<Cluster>('PUT', named, { body: { ...seen, spec: next.spec }, query: writeQuery(o) }), outcome: 'configured' };
    } catch (e) {
      // The agent or the controller wrote it meanwhile: read it again.
      if (!(e instanceof ApiError && (e.code === 409 || e.code === 404))) throw e;
      seen = await getIfPresent<Cluster>(host, named);
    }
  }
}

/**
 * The Cluster, created or brought to the spec the agent would register (agent-register.ts decides both):
 * refused when the name or the id belongs to another cluster, a Push cluster among them.
 */
async function ensureCluster(host: RestClient, p: RegisterPlan, id: string, member: MemberConnection): Promise<{ cluster: Cluster; outcome: ApplyOutcome }> {
  const problem = registrationProblem(await listClusters(host, 'register'), p.clusterName, id);
  if (problem) throw new Error(problem.replace('Give this agent another --cluster-name', 'Register it under another --cluster-name'));
  return ensureClusterObject(host, p.clusterName, (seen) => clusterObject(p, id, member, seen));
}

export interface RegisterRun {
  plan: RegisterPlan;
  host: RestClient;
  hostEndpoint: HostEndpoint;
  /** The member: its client and kubeconfig (the cluster id and the member side come from it). */
  member?: { rest: RestClient; kubeconfig: KubeConfig };
  /** `--cluster-id`: the id without a member to read it from. */
  clusterId?: string;
  tokenExpirationSeconds: number;
  /** Told each object as it is written. */
  onApplied?: (a: Applied) => void;
}

export interface RegisterResult {
  applied: Applied[];
  /** The agent's kubeconfig for the host (in the member's Secret too when the member was given). */
  kubeconfig: string;
  tokenExpiration?: string;
}

/** The member's cluster id: the uid of its kube-system namespace (Karmada's ObtainClusterID). */
export async function memberClusterId(member: RestClient): Promise<string> {
  let uid: string | undefined;
  try {
    uid = (await member.request<{ metadata?: { uid?: string } }>('GET', '/api/v1/namespaces/kube-system')).metadata?.uid;
  } catch (e) {
    throw new Error(`cannot read the member's kube-system namespace (its uid is the cluster id): ${(e as Error).message}; check --kubeconfig and --context, or give --cluster-id`);
  }
  if (!uid) throw new Error("the member's kube-system namespace has no uid; give --cluster-id");
  return uid;
}

export async function register(run: RegisterRun): Promise<RegisterResult> {
  const { plan: p, host } = run;
  const applied: Applied[] = [];
  const note = (where: Applied['where'], o: KObject, outcome: ApplyOutcome) => {
    const a: Applied = {
      where,
      kind: o.kind,
      ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
      name: o.metadata.name ?? '',
      outcome,
    };
    applied.push(a);
    run.onApplied?.(a);
  };
  const id = run.clusterId ?? (run.member ? await memberClusterId(run.member.rest) : undefined);
  if (!id) throw new Error("the Cluster needs its id (the uid of the member's kube-system namespace, what the agent registers): give the member's --kubeconfig, or --cluster-id");
  const conn: MemberConnection = run.member ? memberConnectionOf(run.member.kubeconfig) : { insecureSkipTLSVerification: false };

  for (const o of hostRbacObjects(p)) note('host', o, await writeObject(host, o));
  const { cluster, outcome } = await ensureCluster(host, p, id, conn);
  note('host', cluster, outcome);
  for (const o of leaseObjects(p, cluster.metadata.uid)) note('host', o, await ensureLease(host, o));

  const sa = `/api/v1/namespaces/${encodeURIComponent(p.clusterNamespace)}/serviceaccounts/${encodeURIComponent(agentServiceAccountName(p.clusterName))}/token`;
  const tr = await host.request<{
    status?: { token?: string; expirationTimestamp?: string };
  }>('POST', sa, {
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: run.tokenExpirationSeconds },
    },
  });
  const token = tr.status?.token;
  if (!token) throw new Error(`POST ${sa}: the answer has no token`);
  const kubeconfig = agentKubeconfig(p, run.hostEndpoint, token);

  if (run.member) {
    for (const o of [...memberSetupObjects(p), memberKubeconfigSecret(p, kubeconfig), agentDeployment(p)]) note('member', o, await writeObject(run.member.rest, o));
  }
  return {
    applied,
    kubeconfig,
    ...(tr.status?.expirationTimestamp ? { tokenExpiration: tr.status.expirationTimestamp } : {}),
  };
}

/** The example cluster of deploy/agent/. */
export const ExampleClusterName = 'edge1';

/**
 * deploy/agent/host.yaml and member.yaml: register's objects for the example cluster, so that the folder
 * and the command cannot drift apart (test/kube/register.test.ts compares them and can write them).
 */
export function agentManifestFiles(): Record<string, string> {
  const p: RegisterPlan = { clusterName: ExampleClusterName, clusterNamespace: DefaultClusterNamespace, agentNamespace: DefaultAgentNamespace, image: DefaultAgentImage, replicas: 1 };
  const header = (lines: string[]) => `${['# Generated from src/kube/register.ts (what `karmada-lite register` applies) for the cluster edge1;', '# regenerate with KARMADA_LITE_WRITE_DEPLOY=1 npx vitest run test/kube/register.test.ts.', ...lines].join('\n')}\n`;
  return {
    'host.yaml': `${header([
      '# On the control plane: the agent identity of a Pull cluster and its least-privilege RBAC. `karmada-lite register`',
      '# applies these, then the Cluster (syncMode Pull, spec.id) and its two Leases, and issues the token. By hand:',
      '# replace edge1, apply, create the Cluster and the Leases, and `kubectl create token -n karmada-cluster karmada-agent-edge1`.',
    ])}${toYamlDocuments(hostRbacObjects(p))}`,
    'member.yaml': `${header([
      '# In the member cluster: the agent and its rights there. Its ClusterRole karmada-agent is the union of the',
      '# ClusterRoles labelled karmada-lite.io/aggregate-to-agent: "true" (ClusterRole aggregation): the probe, namespaces,',
      '# and the kinds the Works carry (by default those of the controller\'s template role); add one labelled ClusterRole',
      '# per further kind, with the verbs get, list, watch, create, update, delete. It reads the',
      "# control plane's kubeconfig from the Secret karmada-system/karmada-kubeconfig (key karmada-kubeconfig), which",
      '# `karmada-lite register --kubeconfig MEMBER` creates: `kubectl create secret generic karmada-kubeconfig',
      '# -n karmada-system --from-file=karmada-kubeconfig=agent.config` by hand.',
    ])}${toYamlDocuments(memberObjects(p))}`,
  };
}
