/**
 * `karmada-lite join` and `unjoin` (Push mode, karmadactl's pkg/karmadactl/join and unjoin over
 * pkg/util/credential.go), and `unregister` (Pull mode, the reverse of `register`).
 *
 * join, in the member: namespace karmada-cluster (karmada.io/system=true), ServiceAccount karmada-<cluster>
 * with ClusterRole and ClusterRoleBinding karmada-controller-manager:karmada-<cluster> (everything, as
 * Karmada's ClusterPolicyRules), the impersonator ServiceAccount karmada-impersonator that the cluster
 * proxy authenticates as, and a long-lived token Secret for each, filled by the member's token controller.
 * On the control plane: namespaces karmada-cluster and karmada-es-<cluster>, Secrets <cluster> (token,
 * caBundle) and <cluster>-impersonator (token) owned by the Cluster, and the Cluster (syncMode Push,
 * apiEndpoint from the member kubeconfig, spec.id the member's kube-system uid). Everything by server-side
 * apply (field manager karmada-lite-join): a second run changes nothing. A namespace an unjoin just deleted
 * is waited for and made again, so that join right after unjoin works.
 *
 * unjoin deletes the Cluster, waits until the controller has emptied karmada-es-<cluster> and let it go
 * (its finalizer), then deletes what join made: the host Secrets (when the garbage collector has not),
 * the execution namespace if it is still there, and in the member the RBAC, ServiceAccounts, token Secrets
 * and namespace (the impersonator and the namespace only when no other Cluster joined from that member
 * uses them). unregister does the same for a Pull cluster with register's objects.
 *
 * The object lists are pure functions (test/kube/join.test.ts); the writes are in the functions below
 * (test/integration/cli-fleet-verbs.test.ts).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { ClusterControllerFinalizer, ExecutionControllerFinalizer, generateExecutionSpaceName, KarmadaSystemLabel } from '../api/constants.js';
import type { Cluster } from '../api/generated/types.js';
import { CLUSTER } from '../core/kinds.js';
import type { KObject } from '../core/object.js';
import { deepEqual } from '../json/value.js';
import {
  agentServiceAccountName,
  apply,
  CLUSTERS,
  ensureClusterObject,
  getIfPresent,
  listClusters,
  memberClusterId,
  memberKubeconfigSecret,
  memberObjects,
  registeredHostObjects,
  writeObject,
  type ApplyOutcome,
  type RegisterPlan,
  type WriteOptions,
} from './register.js';
import { ApiError, isApiConflict, type RestClient } from './rest.js';

/** kubectl's --dry-run: client writes nothing, server sends every write with dryRun=All. */
export type DryRunMode = 'none' | 'client' | 'server';

export interface JoinPlan {
  clusterName: string;
  /** `--cluster-namespace`: where the credentials live, in the member and on the control plane. */
  clusterNamespace: string;
  provider?: string;
  region?: string;
  zones?: readonly string[];
}

/** Karmada's names (pkg/util/names): GenerateServiceAccountName, GenerateRoleName, GenerateImpersonationSecretName. */
export const memberServiceAccountName = (cluster: string) => `karmada-${cluster}`;
export const memberRoleName = (cluster: string) => `karmada-controller-manager:${memberServiceAccountName(cluster)}`;
export const ImpersonatorName = memberServiceAccountName('impersonator');
export const impersonatorSecretName = (cluster: string) => `${cluster}-impersonator`;

const RBAC = 'rbac.authorization.k8s.io/v1';
const systemLabels = () => ({ [KarmadaSystemLabel]: 'true' });
const TokenSecretType = 'kubernetes.io/service-account-token';
const JoinFieldManager = 'karmada-lite-join';
/** How long join waits for a namespace an unjoin just deleted to go before it makes it again. */
const NamespaceGoneTimeoutMs = 60_000;

function serviceAccountWithToken(name: string, namespace: string): KObject[] {
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace, labels: systemLabels() } },
    // A long-lived token the member's token controller fills in (Karmada's WaitForServiceAccountSecretCreation).
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace, labels: systemLabels(), annotations: { 'kubernetes.io/service-account.name': name } },
      type: TokenSecretType,
    },
  ];
}

function clusterRoleAndBinding(name: string, rules: unknown[], sa: string, namespace: string): KObject[] {
  return [
    { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name, labels: systemLabels() }, rules },
    {
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name, labels: systemLabels() },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace }],
    },
  ];
}

/** The controller's identity in the member: its ServiceAccount, rights and token, in write order. */
export function memberControllerObjects(p: JoinPlan): KObject[] {
  const sa = memberServiceAccountName(p.clusterName);
  const [account, token] = serviceAccountWithToken(sa, p.clusterNamespace);
  return [
    account!,
    // Karmada's ClusterPolicyRules: the controller applies whatever the Works carry.
    ...clusterRoleAndBinding(
      memberRoleName(p.clusterName),
      [
        { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
        { nonResourceURLs: ['*'], verbs: ['get'] },
      ],
      sa,
      p.clusterNamespace,
    ),
    token!,
  ];
}

/**
 * The impersonator the cluster proxy authenticates as, passing on the caller as Impersonate-* headers.
 * Karmada's unified-auth controller grants it the impersonation of the subjects the host allows the proxy;
 * karmada-lite has no such controller, so it may impersonate any user (the aggregated server's
 * SubjectAccessReview is the gate).
 */
export function memberImpersonatorObjects(p: JoinPlan): KObject[] {
  const [account, token] = serviceAccountWithToken(ImpersonatorName, p.clusterNamespace);
  return [
    account!,
    ...clusterRoleAndBinding(
      ImpersonatorName,
      [
        { apiGroups: [''], resources: ['users', 'groups', 'serviceaccounts'], verbs: ['impersonate'] },
        { apiGroups: ['authentication.k8s.io'], resources: ['userextras/*', 'uids'], verbs: ['impersonate'] },
      ],
      ImpersonatorName,
      p.clusterNamespace,
    ),
    token!,
  ];
}

/** What join makes in the member, in write order: the namespace, then the two identities. */
export function joinMemberObjects(p: JoinPlan): KObject[] {
  return [namespace(p.clusterNamespace, systemLabels()), ...memberControllerObjects(p), ...memberImpersonatorObjects(p)];
}

const namespace = (name: string, labels?: Record<string, string>): KObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(labels ? { labels } : {}) } });

/** How the control plane reaches the member: what its kubeconfig's current cluster says. */
export interface MemberEndpoint {
  apiEndpoint: string;
  /** The kubeconfig's CA (base64), the one that verifies that endpoint; else the token Secret's ca.crt. */
  caData?: string;
  insecureSkipTLSVerification: boolean;
  proxyURL?: string;
}

export function memberEndpointOf(kc: KubeConfig): MemberEndpoint {
  const c = kc.getCurrentCluster();
  if (!c?.server) throw new Error('the member kubeconfig has no current cluster with a server; give --cluster-context');
  const caData = c.caData ?? (c.caFile ? readFileSync(c.caFile).toString('base64') : undefined);
  return {
    apiEndpoint: c.server,
    ...(caData ? { caData } : {}),
    insecureSkipTLSVerification: c.skipTLSVerify === true,
    ...(c.proxyUrl ? { proxyURL: c.proxyUrl } : {}),
  };
}

/** The tokens the member issued (base64, as the Secrets hold them). */
export interface MemberTokens {
  token: string;
  impersonatorToken: string;
  /** The member's root CA from the token Secret (ca.crt), when the kubeconfig has none. */
  caData?: string;
}

const ownedBy = (cluster: Cluster | undefined) =>
  cluster?.metadata.uid ? { ownerReferences: [{ apiVersion: CLUSTER.apiVersion, kind: CLUSTER.kind, name: cluster.metadata.name!, uid: cluster.metadata.uid, controller: true }] } : {};

/** The two Secrets on the control plane; without tokens (a dry run) they carry no data. */
export function joinHostSecrets(p: JoinPlan, endpoint: MemberEndpoint, tokens: MemberTokens | undefined, owner?: Cluster): KObject[] {
  const secret = (name: string, data: Record<string, string> | undefined): KObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: p.clusterNamespace, labels: systemLabels(), ...ownedBy(owner) },
    ...(data ? { data } : {}),
  });
  const caBundle = endpoint.caData ?? tokens?.caData;
  return [
    secret(p.clusterName, tokens ? { token: tokens.token, ...(caBundle ? { caBundle } : {}) } : undefined),
    secret(impersonatorSecretName(p.clusterName), tokens ? { token: tokens.impersonatorToken } : undefined),
  ];
}

/** The namespaces join makes on the control plane: the credentials' and the execution space. */
export function joinHostNamespaces(p: JoinPlan): KObject[] {
  return [namespace(p.clusterNamespace, systemLabels()), namespace(generateExecutionSpaceName(p.clusterName))];
}

/** The Cluster as join makes it (Karmada's generateClusterInControllerPlane); other fields of a stored one are kept. */
export function joinClusterObject(p: JoinPlan, id: string, endpoint: MemberEndpoint, current?: Cluster): Cluster {
  const spec: NonNullable<Cluster['spec']> = {
    ...(current?.spec ?? {}),
    syncMode: 'Push',
    apiEndpoint: endpoint.apiEndpoint,
    id,
    secretRef: { namespace: p.clusterNamespace, name: p.clusterName },
    impersonatorSecretRef: { namespace: p.clusterNamespace, name: impersonatorSecretName(p.clusterName) },
  };
  if (endpoint.insecureSkipTLSVerification) spec.insecureSkipTLSVerification = true;
  else delete spec.insecureSkipTLSVerification;
  if (endpoint.proxyURL) spec.proxyURL = endpoint.proxyURL;
  else delete spec.proxyURL;
  if (p.provider) spec.provider = p.provider;
  if (p.region) spec.region = p.region;
  if (p.zones?.length) spec.zones = [...p.zones];
  return { apiVersion: CLUSTER.apiVersion, kind: CLUSTER.kind, metadata: { name: p.clusterName, finalizers: [ClusterControllerFinalizer] }, spec };
}

/**
 * Karmada's Validate for join: undefined when this member may be joined under this name (again: the same
 * name and id is this cluster, and join is idempotent), else why not and what to do.
 */
export function joinProblem(clusters: readonly Cluster[], name: string, id: string): string | undefined {
  const byName = clusters.find((c) => c.metadata.name === name);
  if (byName?.spec?.id === id) {
    if (byName.spec.syncMode !== 'Pull') return undefined;
    return `cluster ${name} is a Pull mode member cluster (its agent pulls its Works): run \`karmada-lite unregister ${name}\` first to join it in Push mode`;
  }
  if (byName) {
    const other = byName.spec?.id ? `cluster ID ${byName.spec.id}` : 'no cluster ID';
    return `the cluster name ${name} has been registered (syncMode ${byName.spec?.syncMode ?? 'Push'}, ${other}), and this member's cluster ID (the uid of its kube-system namespace) is ${id}: join it under another name, or remove that Cluster first (karmada-lite unjoin ${name})`;
  }
  const byId = clusters.find((c) => c.spec?.id === id);
  if (byId) return `the cluster ID ${id} (this member's kube-system uid) has been registered as cluster ${byId.metadata.name}: it is joined already; unjoin ${byId.metadata.name} first to join it under another name`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Writing

/** One object a command wrote, would write (dry run), or deleted. */
export interface Change {
  where: 'host' | 'member';
  object: KObject;
  verb: ApplyOutcome | 'deleted';
}

type Note = (c: Change) => void;

/**
 * Writes objects in one place under a dry-run mode. A namespace a server dry run "created" does not
 * exist, and the apiserver refuses anything in it (NotFound): those objects are checked by nothing and
 * reported as created, as kubectl's client dry run would.
 */
class Writer {
  private readonly pretend = new Set<string>();
  constructor(
    private readonly rest: RestClient,
    private readonly where: Change['where'],
    private readonly dryRun: DryRunMode,
    private readonly note: Note,
  ) {}

  private get options(): WriteOptions {
    return { fieldManager: JoinFieldManager, ...(this.dryRun === 'server' ? { dryRun: 'server' as const } : {}) };
  }

  async write(o: KObject): Promise<ApplyOutcome> {
    const verb = await this.outcome(o);
    if (o.kind === 'Namespace' && verb === 'created' && this.dryRun !== 'none') this.pretend.add(o.metadata.name!);
    this.note({ where: this.where, object: o, verb });
    return verb;
  }

  private async outcome(o: KObject): Promise<ApplyOutcome> {
    if (o.metadata.namespace && this.pretend.has(o.metadata.namespace)) return 'created';
    const path = await this.rest.pathFor(o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name);
    let current = o.kind === 'Namespace' || this.dryRun === 'client' ? await getIfPresent(this.rest, path) : undefined;
    if (o.kind === 'Namespace' && current?.metadata.deletionTimestamp) {
      // An unjoin just before: its namespaces are still terminating. Made again once gone (a dry run: would be).
      if (this.dryRun !== 'none') return 'created';
      current = await this.gone(path, o.metadata.name!);
    }
    // A namespace that is there is left as it is: only one join made carries karmada.io/system, which
    // tells unjoin it may go.
    if (o.kind === 'Namespace' && current) return 'unchanged';
    if (this.dryRun !== 'client') return writeObject(this.rest, o, this.options);
    return current ? 'configured' : 'created';
  }

  /** Waits for a terminating namespace to go (its namespace controller empties it first). */
  private async gone(path: string, name: string): Promise<undefined> {
    const deadline = Date.now() + NamespaceGoneTimeoutMs;
    while (await getIfPresent(this.rest, path)) {
      if (Date.now() > deadline) {
        throw new Error(`namespace ${name} is still being deleted (${this.where}) after ${NamespaceGoneTimeoutMs / 1000}s: its namespace controller has not emptied it (kubectl get namespace ${name} -o yaml shows why); run the command again once it is gone`);
      }
      await sleep(500);
    }
    return undefined;
  }

  /** Applied again, quietly (the Secrets once their owner exists). */
  reapply(o: KObject): Promise<ApplyOutcome> {
    return apply(this.rest, o, this.options);
  }
}

export interface JoinRun {
  plan: JoinPlan;
  host: RestClient;
  member: RestClient;
  memberKubeconfig: KubeConfig;
  dryRun: DryRunMode;
  /** How long the member's token controller may take to fill the token Secrets (Karmada: 30 s). */
  tokenTimeoutMs?: number;
  onChange?: Note;
}

export interface JoinResult {
  changes: Change[];
  cluster: Cluster;
}

/** Waits for the token controller to fill a token Secret; its data (token, ca.crt) base64. */
async function filledToken(member: RestClient, namespace: string, name: string, timeoutMs: number): Promise<Record<string, string>> {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await getIfPresent(member, path);
    const data = (s as { data?: Record<string, string> } | undefined)?.data;
    if (data?.token) return data;
    if (Date.now() > deadline) {
      throw new Error(
        `the member's token controller did not fill Secret ${namespace}/${name} within ${Math.round(timeoutMs / 1000)}s: its kube-controller-manager must run the serviceaccount-token controller (with --service-account-private-key-file); check it, then run join again`,
      );
    }
    await sleep(500);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function join(run: JoinRun): Promise<JoinResult> {
  const { plan: p, host, member, dryRun } = run;
  const changes: Change[] = [];
  const note: Note = (c) => {
    changes.push(c);
    run.onChange?.(c);
  };
  const id = await memberClusterId(member).catch((e: unknown) => {
    throw new Error(`${(e as Error).message.replace(/; check --kubeconfig.*$/, '')}; check --cluster-kubeconfig and --cluster-context`);
  });
  const clusters = await listClusters(host, 'join');
  const problem = joinProblem(clusters, p.clusterName, id);
  if (problem) throw new Error(problem);
  const endpoint = memberEndpointOf(run.memberKubeconfig);
  const existing = clusters.find((c) => c.metadata.name === p.clusterName);

  const inMember = new Writer(member, 'member', dryRun, note);
  for (const o of joinMemberObjects(p)) await inMember.write(o);

  let tokens: MemberTokens | undefined;
  if (dryRun === 'none') {
    const timeout = run.tokenTimeoutMs ?? 30_000;
    const controller = await filledToken(member, p.clusterNamespace, memberServiceAccountName(p.clusterName), timeout);
    const impersonator = await filledToken(member, p.clusterNamespace, ImpersonatorName, timeout);
    tokens = { token: controller.token!, impersonatorToken: impersonator.token!, ...(controller['ca.crt'] ? { caData: controller['ca.crt'] } : {}) };
  }

  const onHost = new Writer(host, 'host', dryRun, note);
  for (const o of joinHostNamespaces(p)) await onHost.write(o);
  // The Secrets before the Cluster, so that the controller finds them when it first connects; their owner
  // once the Cluster exists, so that they go with it.
  const first = joinHostSecrets(p, endpoint, tokens, existing);
  for (const o of first) await onHost.write(o);
  const want = (seen: Cluster | undefined) => joinClusterObject(p, id, endpoint, seen);
  let cluster: Cluster;
  if (dryRun === 'client') {
    cluster = want(existing);
    note({ where: 'host', object: cluster, verb: !existing ? 'created' : deepEqual(existing.spec, cluster.spec) ? 'unchanged' : 'configured' });
  } else {
    const r = await ensureClusterObject(host, p.clusterName, want, dryRun === 'server' ? { dryRun: 'server' } : {});
    cluster = r.cluster;
    note({ where: 'host', object: want(existing), verb: r.outcome });
    if (dryRun === 'none' && !existing) for (const o of joinHostSecrets(p, endpoint, tokens, cluster)) await onHost.reapply(o);
  }
  return { changes, cluster };
}

// ---------------------------------------------------------------------------------------------------------
// Removing

/** Why a removal stopped: the Cluster did not go in time. The message says what is left. */
export class RemovalTimeout extends Error {}

interface RemoveRun {
  clusterName: string;
  host: RestClient;
  member?: RestClient;
  dryRun: DryRunMode;
  /** --wait: how long the Cluster may take to go. */
  waitMs: number;
  onChange?: Note;
  /** Told while waiting, about once every few seconds, what is left. */
  onWaiting?: (left: string) => void;
}

export interface UnjoinRun extends RemoveRun {
  clusterNamespace: string;
  /** --force: on a timeout, the finalizers of the Works and of the Cluster are removed (member objects may stay). */
  force?: boolean;
}

export interface UnregisterRun extends RemoveRun {
  plan: RegisterPlan;
}

const strip = (o: KObject): KObject => {
  const { managedFields: _m, ...metadata } = o.metadata as KObject['metadata'] & { managedFields?: unknown };
  return { ...o, metadata };
};

/** Deletes objects in one place under a dry-run mode: only those that are there; each one noted. */
class Remover {
  constructor(
    private readonly rest: RestClient,
    private readonly where: Change['where'],
    private readonly dryRun: DryRunMode,
    private readonly note: Note,
  ) {}

  async get(o: Pick<KObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<KObject | undefined> {
    return getIfPresent(this.rest, await this.rest.pathFor(o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name));
  }

  /**
   * Deletes the object when it is there; whether this deleted it. One already going (a namespace
   * terminating, a Cluster an earlier run deleted) is not noted: a second run after the first has
   * finished has nothing to do, and says so. `waitsFor` notes it anyway: a Cluster this run waits for.
   */
  async remove(o: Pick<KObject, 'apiVersion' | 'kind' | 'metadata'>, current?: KObject, waitsFor = false): Promise<boolean> {
    const seen = current ?? (await this.get(o));
    if (!seen || (seen.metadata.deletionTimestamp && !waitsFor)) return false;
    if (!seen.metadata.deletionTimestamp && this.dryRun !== 'client') {
      const path = await this.rest.pathFor(o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name);
      try {
        await this.rest.request('DELETE', path, { query: this.dryRun === 'server' ? { dryRun: 'All' } : {} });
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
    }
    this.note({ where: this.where, object: strip(seen), verb: 'deleted' });
    return true;
  }
}

/** What keeps a Cluster that is being deleted: its finalizers and the Works left in its execution space. */
async function whatIsLeft(host: RestClient, name: string): Promise<{ cluster?: Cluster; works: KObject[]; text: string }> {
  const cluster = await getIfPresent<Cluster>(host, `${CLUSTERS}/${encodeURIComponent(name)}`);
  const es = generateExecutionSpaceName(name);
  const works = ((await getIfPresent<{ items: KObject[] }>(host, `/apis/work.karmada.io/v1alpha1/namespaces/${es}/works`))?.items ?? []) as KObject[];
  const listed = works.slice(0, 5).map((w) => w.metadata.name).join(', ') + (works.length > 5 ? ', ...' : '');
  const parts = [
    ...(works.length ? [`${works.length} Work(s) in ${es} (${listed})`] : []),
    ...(cluster?.metadata.finalizers?.length ? [`the Cluster's finalizers ${cluster.metadata.finalizers.join(', ')}`] : []),
  ];
  return { ...(cluster ? { cluster } : {}), works, text: parts.join(' and ') || 'nothing the Cluster waits for' };
}

/** Removes one finalizer from an object, again on a conflict. */
async function dropFinalizer(rest: RestClient, path: string, finalizer: string): Promise<void> {
  for (;;) {
    const cur = await getIfPresent(rest, path);
    if (!cur?.metadata.finalizers?.includes(finalizer)) return;
    try {
      await rest.request('PUT', path, { body: { ...cur, metadata: { ...cur.metadata, finalizers: cur.metadata.finalizers.filter((f) => f !== finalizer) } } });
      return;
    } catch (e) {
      if (!isApiConflict(e) && !(e instanceof ApiError && e.code === 404)) throw e;
    }
  }
}

/**
 * Deletes the Cluster and, unless a dry run, waits up to `waitMs` for it to go: the controller deletes the
 * Works of its execution space (each leaving once its member objects are deleted), then lets the Cluster
 * go. Returns the Cluster as it was, or undefined when there was none.
 */
async function deleteCluster(run: RemoveRun & { force?: boolean }, hostRemover: Remover): Promise<Cluster | undefined> {
  const path = `${CLUSTERS}/${encodeURIComponent(run.clusterName)}`;
  const seen = await getIfPresent<Cluster>(run.host, path);
  if (!seen) return undefined;
  await hostRemover.remove({ apiVersion: CLUSTER.apiVersion, kind: CLUSTER.kind, metadata: { name: run.clusterName } }, seen, true);
  if (run.dryRun !== 'none') return seen;
  let deadline = Date.now() + run.waitMs;
  let told = 0;
  let forced = false;
  while (await getIfPresent(run.host, path)) {
    if (Date.now() > deadline) {
      const left = await whatIsLeft(run.host, run.clusterName);
      if (!left.cluster) break;
      if (!run.force || forced) {
        throw new RemovalTimeout(
          `cluster ${run.clusterName} is still being deleted after ${Math.round(run.waitMs / 1000)}s: ${left.text} are left. The controller removes them once the member has deleted the objects (is it running? kubectl get clusters.cluster.karmada.io ${run.clusterName} -o yaml shows the conditions); wait longer with --wait, or give up on the member's objects with --force`,
        );
      }
      // Karmada's forced deletion: the Works' finalizers, then the Cluster's; the member's copies may stay.
      for (const w of left.works) await dropFinalizer(run.host, `/apis/work.karmada.io/v1alpha1/namespaces/${w.metadata.namespace}/works/${encodeURIComponent(w.metadata.name!)}`, ExecutionControllerFinalizer);
      await dropFinalizer(run.host, path, ClusterControllerFinalizer);
      forced = true;
      deadline = Date.now() + 10_000;
      run.onWaiting?.(`forced: removed the finalizers of ${left.works.length} Work(s) and of the Cluster; the member may keep copies of what they carried`);
      continue;
    }
    if (Date.now() - told > 5_000) {
      if (told) run.onWaiting?.(`waiting for cluster ${run.clusterName} to go: ${(await whatIsLeft(run.host, run.clusterName)).text}`);
      told = Date.now();
    }
    await sleep(500);
  }
  return seen;
}

/** Secrets join made for this cluster (owned by a Cluster of its name); others of those names are someone else's. */
const madeForCluster = (o: KObject | undefined, cluster: string) => (o?.metadata.ownerReferences ?? []).some((r) => r.kind === CLUSTER.kind && r.name === cluster);

export async function unjoin(run: UnjoinRun): Promise<Change[]> {
  const changes: Change[] = [];
  const note: Note = (c) => {
    changes.push(c);
    run.onChange?.(c);
  };
  const onHost = new Remover(run.host, 'host', run.dryRun, note);
  const p: JoinPlan = { clusterName: run.clusterName, clusterNamespace: run.clusterNamespace };
  const stored = await getIfPresent<Cluster>(run.host, `${CLUSTERS}/${encodeURIComponent(run.clusterName)}`);
  if (stored?.spec?.syncMode === 'Pull') {
    throw new Error(`cluster ${run.clusterName} is a Pull mode member cluster, please use command \`unregister\` if you want to continue unregistering the cluster`);
  }
  await deleteCluster(run, onHost);

  for (const s of joinHostSecrets(p, { apiEndpoint: '', insecureSkipTLSVerification: false }, undefined)) {
    const cur = await onHost.get(s);
    if (madeForCluster(cur, run.clusterName)) await onHost.remove(s, cur);
  }
  await onHost.remove(namespace(generateExecutionSpaceName(run.clusterName)));

  if (run.member) {
    const inMember = new Remover(run.member, 'member', run.dryRun, note);
    for (const o of [...memberControllerObjects(p)].reverse()) await inMember.remove(o);
    // The impersonator and the namespace serve every Cluster joined from this member: kept while another uses them.
    const accounts = ((await getIfPresent<{ items: KObject[] }>(run.member, `/api/v1/namespaces/${encodeURIComponent(p.clusterNamespace)}/serviceaccounts`))?.items ?? []) as KObject[];
    const others = accounts.filter((a) => a.metadata.name?.startsWith('karmada-') && a.metadata.name !== ImpersonatorName && a.metadata.name !== memberServiceAccountName(run.clusterName));
    if (!others.length) {
      for (const o of [...memberImpersonatorObjects(p)].reverse()) await inMember.remove(o);
      const ns = await inMember.get(namespace(p.clusterNamespace));
      // Only a namespace join (or karmadactl) made: it carries karmada.io/system.
      if (ns?.metadata.labels?.[KarmadaSystemLabel] === 'true') await inMember.remove(ns, ns);
    }
  }
  if (!changes.length) throw new Error(`no cluster object ${run.clusterName} found in karmada control plane, and nothing join makes for it on the control plane${run.member ? ' or in the member' : ''}`);
  return changes;
}

/**
 * Takes the aggregationRule off an aggregated ClusterRole before anything is deleted. kube-controller-manager's
 * aggregation controller writes an aggregated role's rules with a server-side apply whenever a ClusterRole changes,
 * from its own cache: deleting the labelled roles and then the aggregate let it apply the aggregate again after
 * its deletion, which created it anew (a second unregister then found it). A role its cache holds without the
 * rule is never written by it.
 */
async function stopAggregating(rest: RestClient, o: Pick<KObject, 'apiVersion' | 'kind' | 'metadata'> & { aggregationRule?: unknown }, dryRun: DryRunMode): Promise<void> {
  if (o.kind !== 'ClusterRole' || !o.aggregationRule) return;
  const path = await rest.pathFor(o.apiVersion, o.kind, undefined, o.metadata.name);
  const stored = await getIfPresent<KObject & { aggregationRule?: unknown }>(rest, path);
  if (!stored?.aggregationRule || stored.metadata.deletionTimestamp) return;
  await rest.request('PATCH', path, { body: { aggregationRule: null }, contentType: 'application/merge-patch+json', query: dryRun === 'server' ? { dryRun: 'All' } : {} }).catch((e: unknown) => {
    if (!(e instanceof ApiError && e.code === 404)) throw e;
  });
}

export async function unregister(run: UnregisterRun): Promise<Change[]> {
  const changes: Change[] = [];
  const note: Note = (c) => {
    changes.push(c);
    run.onChange?.(c);
  };
  const p = run.plan;
  const onHost = new Remover(run.host, 'host', run.dryRun, note);
  const stored = await getIfPresent<Cluster>(run.host, `${CLUSTERS}/${encodeURIComponent(p.clusterName)}`);
  if (stored && stored.spec?.syncMode !== 'Pull') {
    throw new Error(`cluster ${p.clusterName} is a ${stored.spec?.syncMode ?? 'Push'} mode member cluster, please use command \`unjoin\` if you want to continue unjoining the cluster`);
  }
  // The agent finishes the Works' deletion while it still has its rights: the Cluster goes first.
  await deleteCluster(run, onHost);
  for (const o of [...registeredHostObjects(p)].reverse()) await onHost.remove(o);
  await onHost.remove(namespace(generateExecutionSpaceName(p.clusterName)));
  if (run.member) {
    const inMember = new Remover(run.member, 'member', run.dryRun, note);
    // The agent's namespace stays: -n may name one that holds other things (karmada-system).
    const agent = [...memberObjects(p), memberKubeconfigSecret(p, '')].filter((o) => o.kind !== 'Namespace');
    if (run.dryRun !== 'client') for (const o of agent) await stopAggregating(run.member, o, run.dryRun);
    for (const o of agent.reverse()) await inMember.remove(o);
  }
  if (!changes.length) throw new Error(`no cluster object ${p.clusterName} found in karmada control plane, and nothing register makes for it (ServiceAccount ${p.clusterNamespace}/${agentServiceAccountName(p.clusterName)}, its RBAC and Leases)`);
  return changes;
}
