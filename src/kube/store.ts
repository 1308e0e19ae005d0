/**
 * The Kubernetes store: the core's ObjectReader served from informer caches (reads stay synchronous,
 * as reconcilers expect), and writes as REST calls that complete later (the runner's AsyncWriter).
 *
 * The control plane (host) watches the Karmada kinds plus the template kinds some policy selects;
 * each member cluster (a push-mode Cluster object) gets its own client, informers for the kinds applied
 * to it, and a probe (/readyz, then one request that needs rights) whose answer is the Cluster's Ready
 * condition (cluster-health.ts). The client is made again when the Cluster's endpoint or its Secret's data
 * changes (the Secrets are watched). Writes to a member go through its gate (member-gate.ts), so that a
 * member that stopped answering fails its own writes at once instead of making everyone wait.
 *
 * A write's result goes into the cache at once and is reported as a change (stamped with the writing
 * controller); the watch event for the same resourceVersion is then dropped by the informer, so every
 * change is seen once and the next reconcile does not read what it just overwrote.
 */
import { randomUUID } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { ClusterConditionReady, DefaultSkippedPropagatingNamespaces, generateExecutionSpaceName } from '../api/constants.js';
import { CLUSTER, COP, CPP, CRB, CRON_FHPA, CTP, FHPA, FRQ, isKarmadaType, MCS, NAMESPACE, OP, PP, RB, REMEDY, RIC, WORK, WORKLOAD_REBALANCER } from '../core/kinds.js';
import { RIWC } from '../interpreter/webhook-interpreter.js';
import { memberNamespaceManifest } from '../core/namespace.js';
import { LEASE, NamespaceClusterLease } from '../core/pull-cluster.js';
import { errorMessage } from '../json/error.js';
import { deepEqual } from '../json/value.js';
import { rfc3339, type KObject, type ObjectRef, type TypeRef } from '../core/object.js';
import { ReaderNotReadyError, ReadForbiddenError, type CoreEvent, type ListOptions, type ObjectReader } from '../core/ports.js';
import type { AsyncWriter } from '../runtime/runner.js';
import type { Logger } from '../runtime/log.js';
import { StoreError, type RecordedEvent, type WatchEvent, type WatchHandler } from '../runtime/store-port.js';
import { unchangedByWrite } from '../runtime/unchanged-write.js';
import { isAdmissionKind, mutate } from '../validation/rules.js';
import { ACCESS_CHECK_PATH, collectionFailedCondition, collectionFailedEvent, failedProbeDecides, readyConditionOf, type ProbeFailure, type ProbeOutcome, type ReadyCondition } from './cluster-health.js';
import { clusterSignature, memberKubeConfig, secretRefOf, secretSignature } from './credentials.js';
import { EventRecorder, eventRequestFor } from './events.js';
import { Informer } from './informer.js';
import { MemberInformers } from './member-capacity.js';
import { MemberMetricsCache } from './member-metrics.js';
import { clusterResourceSummary, nodeSummary } from '../core/cluster-resource-summary.js';
import type { MemberCapacity } from '../core/node-estimator.js';
import { MemberGate } from './member-gate.js';
import { ApiDiscovery, type APIEnablement } from './api-enablements.js';
import { ApiError, RestClient, type Query, type RequestOpts } from './rest.js';
import { limiterOptions } from './rate-limiter.js';

/** Thrown by a read of a kind whose cache is still filling: the reconcile fails and is retried. */
export class CacheNotSyncedError extends ReaderNotReadyError {
  constructor(what: string) {
    super(`the cache of ${what} is not synced yet`);
    this.name = 'CacheNotSyncedError';
  }
}

/** The Karmada kinds the controller always watches on the control plane. */
export const HOST_KINDS: readonly TypeRef[] = [CLUSTER, PP, CPP, OP, COP, RB, CRB, WORK, RIC, NAMESPACE];

/** Kinds watched when their CRD is installed: a control plane without them still starts (their controllers then see nothing). */
export const OPTIONAL_HOST_KINDS: readonly TypeRef[] = [WORKLOAD_REBALANCER, CTP, FRQ, RIWC, REMEDY, CRON_FHPA, FHPA, MCS];

const typeKey = (t: TypeRef) => `${t.apiVersion}|${t.kind}`;

function toStoreError(e: unknown): unknown {
  if (!(e instanceof ApiError)) return e;
  const code = e.code === 404 ? 'NotFound' : e.code === 409 ? (e.reason === 'AlreadyExists' ? 'AlreadyExists' : 'Conflict') : e.code === 422 ? 'Invalid' : e.code === 403 ? 'Forbidden' : undefined;
  if (!code) return e;
  const err = new StoreError(code, e.message);
  return err;
}

interface Watched {
  type: TypeRef;
  /** Set once discovery found the kind; a kind the server does not serve stays empty. */
  informer?: Informer;
  /** Settles when the cache is filled (or discovery failed). */
  ready?: Promise<void>;
  /** The last error of its list or watch, while the cache is not filled yet. */
  error?: unknown;
}

/** One apiserver: its client and an informer per watched kind. */
class ApiCache {
  private readonly kinds = new Map<string, Watched>();

  constructor(
    readonly name: string | undefined,
    readonly rest: RestClient,
    private readonly onChange: (cluster: string | undefined, type: string, obj: any, old: any) => void,
    private readonly log: Logger,
    /** Timeout of the writes through this client (undefined: the client's default). */
    readonly writeTimeoutMs?: number,
    /** What part of a kind is watched (the agent's view of the host); undefined: all of it. */
    private readonly scope?: (type: TypeRef) => WatchScope,
  ) {}

  /** Starts watching a kind (idempotent); resolves when its cache is filled. */
  async watch(type: TypeRef): Promise<void> {
    const k = typeKey(type);
    let w = this.kinds.get(k);
    if (!w) {
      const entry: Watched = { type };
      w = entry;
      this.kinds.set(k, entry);
      // One promise per kind, so that a second caller waits for the same cache instead of returning
      // while discovery for the first one is still under way.
      entry.ready = (async () => {
        try {
          const scope = this.scope?.(type);
          const path = scopedPath(await this.rest.pathFor(type.apiVersion, type.kind, scope?.namespace), scope);
          const inf = new Informer(this.rest, {
            path,
            onError: (err) => {
              entry.error = err;
              this.log.warn('watch failed', { cluster: this.name ?? 'host', kind: type.kind, err: (err as Error).message });
            },
          });
          inf.on((t, obj, old) => this.onChange(this.name, t, obj, old));
          entry.informer = inf;
          inf.start();
        } catch (e) {
          // Forgotten, so that a later read tries discovery again (a CRD installed after start).
          this.kinds.delete(k);
          throw e;
        }
        await entry.informer.waitForSync();
      })();
    }
    await w.ready;
  }

  /** The synced informer of a kind; starts watching it (and throws) when there is none yet. */
  informer(type: TypeRef): Informer {
    const w = this.kinds.get(typeKey(type));
    if (w?.informer?.hasSynced) return w.informer;
    if (!w) void this.watch(type).catch((e) => this.log.debug('cannot watch', { cluster: this.name ?? 'host', kind: type.kind, err: (e as Error).message }));
    const where = `${type.kind} in ${this.name ?? 'the control plane'}`;
    // Refused, not slow: said as such (a Work's Applied=False), since only a grant fills this cache.
    if (w?.error instanceof ApiError && w.error.code === 403) throw new ReadForbiddenError(`cannot list ${where}: ${w.error.message}; grant this identity get, list and watch on it`);
    throw new CacheNotSyncedError(where);
  }

  /** The informer if it exists, synced or not (write-through). */
  existing(type: TypeRef): Informer | undefined {
    return this.kinds.get(typeKey(type))?.informer;
  }

  types(): TypeRef[] {
    return [...this.kinds.values()].filter((w) => w.informer?.hasSynced && w.informer.list().length > 0).map((w) => w.type);
  }

  stop(): void {
    for (const w of this.kinds.values()) w.informer?.stop();
    this.kinds.clear();
    this.capacity?.stop();
  }

  /** A member's lean Node, Pod and ResourceQuota informers (member-capacity.ts), made on first use. */
  capacity?: MemberInformers;

  /** Stops watching and closes the client's connections (a member disconnected or reconnected with new credentials). */
  close(): void {
    this.stop();
    this.rest.close();
  }
}

/** The signature and credentials' name of the agent's own cluster (KubeStoreOptions.localMember). */
const LOCAL_MEMBER = "the agent's kubeconfig";

/** A member write (one small object) that has not been answered in this long is given up and retried. */
const MEMBER_WRITE_TIMEOUT_MS = 10_000;

/**
 * How long each request of a probe (health, the request that needs rights, discovery, version) may go
 * unanswered: a member that lets one go that long is not reachable (cluster-health.ts).
 */
const PROBE_TIMEOUT_MS = 5_000;

interface Member {
  name: string;
  cache: ApiCache;
  /** Refuses writes while the member does not answer, so that they fail at once instead of waiting. */
  gate: MemberGate;
  /** The Cluster fields this connection was made from (clusterSignature). */
  signature: string;
  /** `namespace/name` of the Secret, and the secretSignature of the data this connection was made from. */
  secret: string;
  secretDigest: string;
  ready?: boolean;
  /** Failed probes in a row: one that failed fast alone does not make a cluster not ready (failedProbeDecides). */
  failures?: number;
  apiEnablements?: APIEnablement[];
  /** Asks the member's APIs again every probe (ETag'd aggregated discovery): a CRD installed later shows up. */
  discovery: ApiDiscovery;
  /** The member's /version gitVersion: the Cluster's status.kubernetesVersion (kubectl's VERSION column). */
  kubernetesVersion?: string;
  /** A probe of this member is under way: the next round leaves it alone instead of waiting for it. */
  probing?: boolean;
}

/**
 * Secrets of one namespace, watched so that a rotated token or CA reconnects its members at once. No
 * informer: listing or watching Secrets there is not allowed, and each probe round reads them instead.
 */
interface SecretWatch {
  informer?: Informer;
}

/** A request that got no answer: the host may be back in a moment, so nothing is concluded from it. */
const isTransportError = (e: unknown) => e instanceof Error && !(e instanceof ApiError) && /ECONN|EPIPE|timed out|socket hang up|network/i.test(e.message);

const isAnswer = (e: unknown) => e instanceof ApiError;

/**
 * A probe request's failure: with the HTTP status when the member answered, or as a timeout when the
 * probe's deadline ended it.
 */
const failureOf = (e: unknown, path: string, deadline: AbortSignal): ProbeFailure =>
  deadline.aborted && !(e instanceof ApiError) ? { message: `GET ${path}: no answer within ${PROBE_TIMEOUT_MS / 1000}s`, timedOut: true } : { code: e instanceof ApiError ? e.code : undefined, message: (e as Error).message };

export interface KubeStoreOptions {
  host: KubeConfig;
  log: Logger;
  /** How often members' /readyz is probed. */
  probeIntervalMs?: number;
  /** Component name on Events. */
  component?: string;
  onClusterReadiness?: (ready: Record<string, boolean>) => void;
  /** Told how long each member's status sync (probe and Cluster write) took: cluster_sync_status_duration_seconds. */
  onClusterSynced?: (cluster: string, seconds: number) => void;
  /** An Event occurrence the recorder dropped: too many Event writes waited already (events.ts maxPending). */
  onEventDropped?: (reason: string) => void;
  /** How long start() and a member connection wait for caches to fill before going on without them (default 10 s). */
  warmUpTimeoutMs?: number;
  /** `--skipped-propagating-namespaces`: a namespace created on a member for an object gets Karmada's labels unless skipped. */
  skippedPropagatingNamespaces?: readonly RegExp[];
  /** `--kube-api-qps`/`--kube-api-burst` (the host client) and `--cluster-api-qps`/`--cluster-api-burst` (each member's): a token bucket per client; a negative qps is no limit. */
  clientLimits?: ClientLimits;
  /**
   * Pull mode (`karmada-lite agent`): the host kinds watched instead of HOST_KINDS and OPTIONAL_HOST_KINDS,
   * namespaced ones in `hostScope.namespace` only, the Cluster kind by `metadata.name=hostScope.clusterName`
   * (Karmada's agent caches the execution namespace only; its RBAC allows no more).
   */
  hostKinds?: readonly TypeRef[];
  optionalHostKinds?: readonly TypeRef[];
  hostScope?: { namespace: string; clusterName: string };
  /** The agent's own cluster: reached with this kubeconfig (its --kubeconfig or in-cluster), never from a Cluster's Secret, Pull or not. */
  localMember?: { name: string; kubeconfig: KubeConfig };
}

/** The part of a kind an informer lists and watches. */
export interface WatchScope {
  namespace?: string;
  fieldSelector?: string;
}

/** A collection path with its scope's fieldSelector (the informer adds its own query parameters to it). */
function scopedPath(path: string, scope: WatchScope | undefined): string {
  return scope?.fieldSelector ? `${path}?fieldSelector=${encodeURIComponent(scope.fieldSelector)}` : path;
}

/** The agent's host scope as a WatchScope per kind (pathFor applies the namespace to namespaced kinds only). */
function hostWatchScope(scope: KubeStoreOptions['hostScope']): ((type: TypeRef) => WatchScope) | undefined {
  if (!scope) return undefined;
  return (type) => (type.kind === CLUSTER.kind && type.apiVersion === CLUSTER.apiVersion ? { fieldSelector: `metadata.name=${scope.clusterName}` } : { namespace: scope.namespace });
}

export interface ClientLimit {
  qps: number;
  burst: number;
}

export interface ClientLimits {
  host?: ClientLimit;
  cluster?: ClientLimit;
}


/** Resolves when `p` settles or after `ms`, whichever is first; never rejects. */
async function withTimeout(p: Promise<unknown>, ms: number): Promise<void> {
  let t: NodeJS.Timeout | undefined;
  await Promise.race([p.then(() => undefined, () => undefined), new Promise<void>((r) => (t = setTimeout(r, ms)))]);
  clearTimeout(t);
}

/**
 * The Cluster CRD's second served version (src/apiserver/cluster-storage.ts adds it). An APIService for
 * cluster.karmada.io/v1alpha1 sends that group-version to the aggregated server; reading the same objects
 * here keeps the controller working while that server is down (#17).
 */
export const CLUSTER_STORAGE_API_VERSION = `${CLUSTER.apiVersion}storage`;

const CLUSTER_GROUP_VERSION_PATH = new RegExp(`^/apis/${CLUSTER.apiVersion.replace(/\./g, '\\.')}(?=$|[/?])`);

/**
 * The host client, with every cluster.karmada.io/v1alpha1 request (discovery included) sent to
 * CLUSTER_STORAGE_API_VERSION while the host serves it, apiVersion rewritten both ways: the caches,
 * writes and Events keep seeing v1alpha1 Clusters. Same objects and resourceVersions, so an open watch
 * resumes on either path.
 */
class HostClient extends RestClient {
  clusterStorage = false;

  private wire(path: string): string {
    return this.clusterStorage ? path.replace(CLUSTER_GROUP_VERSION_PATH, `/apis/${CLUSTER_STORAGE_API_VERSION}`) : path;
  }

  override async request<T = any>(method: string, path: string, opts: RequestOpts = {}): Promise<T> {
    const wired = this.wire(path);
    if (wired === path) return super.request<T>(method, path, opts);
    const b = opts.body as { apiVersion?: unknown } | undefined;
    const body = b && typeof b === 'object' && b.apiVersion === CLUSTER.apiVersion ? { ...b, apiVersion: CLUSTER_STORAGE_API_VERSION } : opts.body;
    return relabelCluster(await super.request<T>(method, wired, { ...opts, body }));
  }

  override watch(path: string, query: Query, onEvent: (type: string, object: any) => void, signal?: AbortSignal): Promise<void> {
    const wired = this.wire(path);
    if (wired === path) return super.watch(path, query, onEvent, signal);
    return super.watch(wired, query, (t, o) => onEvent(t, relabelCluster(o)), signal);
  }

  /** Whether the host serves Clusters at CLUSTER_STORAGE_API_VERSION now (asked each time: re-applying crds/ removes it). */
  async refreshClusterStorage(): Promise<boolean> {
    const was = this.clusterStorage;
    try {
      const r = await super.request<{ resources?: Array<{ kind?: string }> }>('GET', `/apis/${CLUSTER_STORAGE_API_VERSION}`, { timeoutMs: PROBE_TIMEOUT_MS });
      this.clusterStorage = (r?.resources ?? []).some((x) => x.kind === CLUSTER.kind);
    } catch (e) {
      // no answer says nothing; an answer without it (404) means the version is gone
      if (e instanceof ApiError) this.clusterStorage = false;
    }
    return this.clusterStorage !== was;
  }
}

/** A Cluster, a ClusterList and its items, or a watch event's object back at CLUSTER.apiVersion. */
function relabelCluster<T>(v: T): T {
  const o = v as { apiVersion?: unknown; items?: unknown } | undefined;
  if (!o || typeof o !== 'object') return v;
  if (o.apiVersion === CLUSTER_STORAGE_API_VERSION) o.apiVersion = CLUSTER.apiVersion;
  if (Array.isArray(o.items)) for (const i of o.items) relabelCluster(i);
  return v;
}

/** The controller's host scope: the agents' heartbeat Leases in karmada-cluster only, every other kind whole. */
const heartbeatScope = (type: TypeRef): WatchScope => (type.kind === LEASE.kind && type.apiVersion === LEASE.apiVersion ? { namespace: NamespaceClusterLease } : {});

export class KubeStore implements ObjectReader, AsyncWriter {
  readonly host: ApiCache;
  private readonly members = new Map<string, Member>();
  private readonly connecting = new Map<string, Promise<void>>();
  /** Members whose Cluster or Secret changed while they were connecting: connected again after that. */
  private readonly reconnect = new Set<string>();
  private readonly secretWatches = new Map<string, SecretWatch>();
  private readonly handlers: WatchHandler[] = [];
  private origin: string | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly log: Logger;
  private readonly hostClient: HostClient;

  private readonly recorder: EventRecorder;

  constructor(private readonly opts: KubeStoreOptions) {
    this.log = opts.log;
    this.hostClient = new HostClient(opts.host, limiterOptions(opts.clientLimits?.host));
    this.host = new ApiCache(undefined, this.hostClient, (c, t, o, old) => this.changed(c, t, o, old), opts.log, undefined, hostWatchScope(opts.hostScope) ?? heartbeatScope);
    const rest = this.host.rest;
    this.recorder = new EventRecorder({
      component: opts.component ?? 'karmada-lite-controller',
      request: eventRequestFor(rest),
      onError: (reason, err) => this.log.debug('cannot record event', { reason, err: err.message }),
      ...(opts.onEventDropped ? { onDropped: opts.onEventDropped } : {}),
    });
  }

  /** Event series waiting to be written (karmada_lite_events_waiting). */
  eventsWaiting(): number {
    return this.recorder.waiting;
  }

  /** Waits for the Event writes started so far (a graceful stop records the last events). */
  drainEvents(): Promise<void> {
    return this.recorder.drain();
  }

  /** Fills the control plane's caches; members connect as their Cluster objects are seen. */
  async start(): Promise<void> {
    await this.followClusterStorage();
    await Promise.all((this.opts.hostKinds ?? HOST_KINDS).map((t) => this.host.watch(t)));
    await Promise.all((this.opts.optionalHostKinds ?? OPTIONAL_HOST_KINDS).map((t) => this.host.watch(t).catch((e) => this.log.warn('not watching an optional kind; install its CRD (karmada-lite crds) to use it', { kind: t.kind, err: (e as Error).message }))));
    // The Pull clusters' heartbeats, on the control plane (an agent renews its own). Not waited for: without
    // the right to list them (deploy/agent/host.yaml) only the Pull clusters' health checks wait, retried.
    if (!this.opts.hostScope) void this.host.watch(LEASE).catch((e) => this.log.warn("not watching the Pull clusters' Leases", { namespace: NamespaceClusterLease, err: errorMessage(e) }));
    const selected = [...(this.host.existing(PP)?.list() ?? []), ...(this.host.existing(CPP)?.list() ?? [])].flatMap((p) => this.watchSelected(p));
    for (const c of this.host.informer(CLUSTER).list()) this.connectMember(c);
    // The first reconciles after a (re)start must find the caches they read full: the execution
    // controller counts a member object it cannot read as a failed apply, which turns the cluster's
    // health Unknown for a moment and restarts its failover clock (README point 2). A member that
    // does not answer in time is not waited for; its reads fail and are retried as before.
    await withTimeout(Promise.all([...selected, ...this.connecting.values()]), this.opts.warmUpTimeoutMs ?? 10_000);
    const interval = this.opts.probeIntervalMs ?? 10_000;
    const loop = () => {
      if (this.stopped) return;
      void this.probeAll().finally(() => {
        if (!this.stopped) this.probeTimer = setTimeout(loop, interval);
      });
    };
    this.probeTimer = setTimeout(loop, 0);
  }

  stop(): void {
    this.stopped = true;
    this.recorder.close();
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.host.stop();
    for (const w of this.secretWatches.values()) w.informer?.stop();
    this.secretWatches.clear();
    for (const m of this.members.values()) m.cache.close();
    this.members.clear();
  }

  // ---------------------------------------------------------------------------------------------
  // Reading

  private cacheOf(cluster: string | undefined): ApiCache {
    if (cluster === undefined) return this.host;
    const m = this.members.get(cluster);
    if (!m) throw new CacheNotSyncedError(`member cluster ${cluster} (not connected)`);
    return m.cache;
  }

  // The typed boundary: an informer watches one kind, so its objects are of the type asked for.
  get<T extends KObject>(type: TypeRef<T>, namespace: string | undefined, name: string, cluster?: string): T | undefined {
    return this.cacheOf(cluster).informer(type).get(namespace, name) as T | undefined;
  }

  list<T extends KObject>(type: TypeRef<T>, opts: ListOptions = {}, cluster?: string): T[] {
    let out = this.cacheOf(cluster).informer(type).list() as T[];
    if (opts.namespace !== undefined) out = out.filter((o) => o.metadata.namespace === opts.namespace);
    if (opts.labels) {
      const want = Object.entries(opts.labels);
      out = out.filter((o) => want.every(([k, v]) => o.metadata.labels?.[k] === v));
    }
    return out;
  }

  types(cluster?: string): TypeRef[] {
    const c = cluster === undefined ? this.host : this.members.get(cluster)?.cache;
    return c ? c.types() : [];
  }

  watch(handler: WatchHandler): () => void {
    this.handlers.push(handler);
    return () => {
      const i = this.handlers.indexOf(handler);
      if (i >= 0) this.handlers.splice(i, 1);
    };
  }

  /** Every object in the host caches, as ADDED events: the runner's initial list. */
  *existing(): Iterable<WatchEvent> {
    for (const t of this.host.types()) for (const o of this.host.informer(t).list()) yield { type: 'ADDED', object: o as KObject };
  }

  isMemberReady(name: string): boolean | undefined {
    return this.members.get(name)?.ready;
  }

  private changed(cluster: string | undefined, type: string, obj: any, old: any): void {
    if (cluster === undefined && obj?.kind) {
      if (obj.kind === PP.kind || obj.kind === CPP.kind) this.watchSelected(obj);
      if (obj.kind === CLUSTER.kind && obj.apiVersion === CLUSTER.apiVersion) {
        if (type === 'DELETED') this.disconnectMember(obj.metadata.name);
        else this.connectMember(obj);
      }
    }
    const ev: WatchEvent = { type: type as WatchEvent['type'], object: obj, old, cluster, origin: this.origin };
    for (const h of this.handlers) h(ev);
  }

  /** Starts informers for the kinds a policy's resourceSelectors name; each promise settles once that cache is filled. */
  private watchSelected(policy: any): Promise<void>[] {
    const out: Promise<void>[] = [];
    for (const s of (policy?.spec?.resourceSelectors ?? []) as Array<{ apiVersion?: string; kind?: string }>) {
      if (!s.apiVersion || !s.kind) continue;
      const t = { apiVersion: s.apiVersion, kind: s.kind };
      if (isKarmadaType(t)) continue;
      out.push(this.host.watch(t).catch((e) => this.log.warn('cannot watch a selected kind', { kind: s.kind, apiVersion: s.apiVersion, err: (e as Error).message })));
    }
    return out;
  }

  /** The kinds the Works of one member carry: their caches are filled before the member is used. */
  private workKinds(cluster: string): TypeRef[] {
    const ns = generateExecutionSpaceName(cluster);
    const seen = new Map<string, TypeRef>();
    for (const w of this.host.existing(WORK)?.list() ?? []) {
      if (w.metadata?.namespace !== ns) continue;
      for (const m of (w.spec?.workload?.manifests ?? []) as Array<{ apiVersion?: string; kind?: string }>) {
        if (m?.apiVersion && m.kind) seen.set(typeKey(m as TypeRef), { apiVersion: m.apiVersion, kind: m.kind });
      }
    }
    return [...seen.values()];
  }

  // ---------------------------------------------------------------------------------------------
  // Members

  private connectMember(cluster: any, polled?: any): void {
    const name = cluster.metadata.name as string;
    const local = this.opts.localMember?.name === name ? this.opts.localMember : undefined;
    // A Cluster being deleted is connected too (a controller that starts in the middle of an unjoin): its Works
    // are deleted from the member while it answers, as Karmada's execution controller deletes them while the
    // cluster is Ready; one that does not answer turns not ready, and its Works then go without touching it.
    if (this.stopped) return;
    // A Pull cluster is never reached from here (its agent reaches out): no cache, no probe. The agent's own is.
    if (cluster.spec?.syncMode === 'Pull' && !local) {
      this.disconnectMember(name);
      return;
    }
    if (this.connecting.has(name)) {
      this.reconnect.add(name);
      return;
    }
    // The agent's own cluster is reached with its own kubeconfig: the Cluster's fields and Secret do not matter.
    const signature = local ? LOCAL_MEMBER : clusterSignature(cluster);
    const ref = local ? undefined : secretRefOf(cluster);
    if (ref) this.watchSecrets(ref.namespace);
    const m = this.members.get(name);
    if (m && m.signature === signature && (local || polled === undefined)) {
      // Same Cluster fields: connected again only when the Secret changed (seen through its watch).
      const cached = ref ? this.cachedSecret(ref.namespace, ref.name) : undefined;
      if (cached === undefined || (cached !== null && secretSignature(cached) === m.secretDigest)) return;
    }
    if (m && m.signature === signature && polled && secretSignature(polled) === m.secretDigest) return;
    const p = (async () => {
      try {
        let member: Member;
        let secretResourceVersion: string | undefined;
        try {
          if (!ref && !local) throw new Error('spec.secretRef is not set (only push mode with a token or kubeconfig Secret is supported)');
          const secret = ref ? (polled ?? (await this.readSecret(ref.namespace, ref.name))) : undefined;
          const kc = local ? local.kubeconfig : memberKubeConfig(cluster, secret);
          const cache = new ApiCache(name, new RestClient(kc, limiterOptions(this.opts.clientLimits?.cluster)), (c, t, o, old) => this.changed(c, t, o, old), this.log, MEMBER_WRITE_TIMEOUT_MS);
          const gate = new MemberGate({ cluster: name }, isAnswer);
          const discovery = new ApiDiscovery((path, o) => gate.track(() => cache.rest.request('GET', path, o)), PROBE_TIMEOUT_MS);
          member = { name, cache, gate, discovery, signature, secret: ref ? `${ref.namespace}/${ref.name}` : LOCAL_MEMBER, secretDigest: ref ? secretSignature(secret) : '' };
          secretResourceVersion = secret?.metadata?.resourceVersion;
        } catch (e) {
          this.log.error('cannot connect to member cluster', { cluster: name, err: (e as Error).message });
          // The host answered (no such Secret, not allowed to read it) or the Secret makes no client: the
          // old connection's credentials are not the Secret's any more. A host that did not answer changes nothing.
          if (e instanceof ApiError || !isTransportError(e)) {
            this.disconnectMember(name);
            this.reportReadiness();
            const failed = collectionFailedCondition((e as Error).message, ref, e instanceof ApiError ? e.code : undefined);
            // A condition alone is easy to miss: `kubectl describe cluster` shows the Event beside it.
            this.recordEvent(collectionFailedEvent(cluster, failed));
            await this.writeReady(name, failed);
          }
          return;
        }
        const cache = member.cache;
        // The new credentials are tried first: caches they cannot fill (a bad token or CA) are not waited
        // for, and the connection they replace is given up at once instead of staying in use.
        const outcome = await this.check(member);
        if (!outcome.health && !outcome.access) {
          // Filled before the member is handed out (see start()), so that a reconnect does not look like failed applies either.
          await withTimeout(
            Promise.all(this.workKinds(name).map((t) => cache.watch(t).catch((e) => this.log.debug('cannot watch a member kind', { cluster: name, kind: t.kind, err: (e as Error).message })))),
            this.opts.warmUpTimeoutMs ?? 10_000,
          );
        }
        if (this.stopped) {
          cache.close();
          return;
        }
        const replaced = this.members.has(name);
        this.disconnectMember(name);
        this.members.set(name, member);
        // The agent's execution namespace is the control plane's to make (its RBAC may not create namespaces).
        if (!local) await this.ensureNamespace(this.host, generateExecutionSpaceName(name));
        this.log.info(replaced ? 'member cluster reconnected' : 'member cluster connected', { cluster: name, endpoint: cluster.spec?.apiEndpoint, secret: member.secret, secretResourceVersion });
        await this.record(member, outcome);
      } catch (e) {
        this.log.error('cannot connect to member cluster', { cluster: name, err: (e as Error).message });
        // Tried again when the Cluster or its Secret changes, or at the next probe round.
      } finally {
        this.connecting.delete(name);
        if (this.reconnect.delete(name)) {
          const cur = this.host.existing(CLUSTER)?.get(undefined, name);
          if (cur) this.connectMember(cur);
        }
      }
    })();
    this.connecting.set(name, p);
  }

  private disconnectMember(name: string): void {
    const m = this.members.get(name);
    if (!m) return;
    m.cache.close();
    this.members.delete(name);
  }

  /**
   * The Secret from the watch of its namespace: null when that cache says there is none, undefined when
   * the namespace's Secrets are not watched (yet, or not allowed).
   */
  private cachedSecret(namespace: string, name: string): any {
    const inf = this.secretWatches.get(namespace)?.informer;
    if (!inf?.hasSynced) return undefined;
    return inf.get(namespace, name) ?? null;
  }

  private async readSecret(namespace: string, name: string): Promise<any> {
    const cached = this.cachedSecret(namespace, name);
    if (cached) return cached;
    return this.host.rest.request('GET', `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`);
  }

  /** Watches the Secrets of a namespace that holds member credentials (once; falls back to reading them per probe round). */
  private watchSecrets(namespace: string): void {
    if (this.stopped || this.secretWatches.has(namespace)) return;
    const w: SecretWatch = {};
    this.secretWatches.set(namespace, w);
    const inf = new Informer(this.host.rest, {
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`,
      onError: (err) => {
        if (err instanceof ApiError && (err.code === 403 || err.code === 401)) {
          // RBAC grants get only: the probe rounds read each Secret instead (deploy/controller grants list and watch).
          inf.stop();
          w.informer = undefined;
          this.log.info('cannot watch member Secrets; reading them every probe round instead', { namespace, err: err.message });
          return;
        }
        this.log.warn('watch failed', { cluster: 'host', kind: 'Secret', namespace, err: (err as Error).message });
      },
    });
    inf.on((_type, obj) => this.secretChanged(namespace, obj?.metadata?.name));
    w.informer = inf;
    inf.start();
  }

  /** A Secret changed: every Cluster it holds the credentials of connects again (when its data differs). */
  private secretChanged(namespace: string, name: string | undefined): void {
    for (const c of this.host.existing(CLUSTER)?.list() ?? []) {
      const ref = secretRefOf(c);
      if (ref?.namespace === namespace && ref.name === name) this.connectMember(c);
    }
  }

  /** Reads Clusters at CLUSTER_STORAGE_API_VERSION while the host serves it (checked at start and every probe round). */
  private async followClusterStorage(): Promise<void> {
    if (await this.hostClient.refreshClusterStorage()) this.log.info('reading Clusters through the Cluster CRD version', { apiVersion: this.hostClient.clusterStorage ? CLUSTER_STORAGE_API_VERSION : CLUSTER.apiVersion });
  }

  private async probeAll(): Promise<void> {
    await this.followClusterStorage();
    const polls: Promise<void>[] = [];
    for (const c of this.host.existing(CLUSTER)?.list() ?? []) {
      if (!this.members.has(c.metadata.name)) {
        this.connectMember(c);
        continue;
      }
      const ref = secretRefOf(c);
      if (ref && this.cachedSecret(ref.namespace, ref.name) === undefined) polls.push(this.pollSecret(c, ref));
    }
    // Each member's probe on its own: a member that does not answer does not hold up the others' next round.
    for (const m of this.members.values()) {
      if (m.probing) continue;
      m.probing = true;
      void this.probe(m.name).finally(() => (m.probing = false));
    }
    await Promise.all(polls);
  }

  /** Where Secrets are not watched: reads the Secret and connects again when it changed. */
  private async pollSecret(cluster: any, ref: { namespace: string; name: string }): Promise<void> {
    try {
      const secret = await this.host.rest.request('GET', `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/secrets/${encodeURIComponent(ref.name)}`, { timeoutMs: PROBE_TIMEOUT_MS });
      this.connectMember(cluster, secret);
    } catch (e) {
      // Gone or no longer readable: connecting again reports it on the Cluster.
      if (e instanceof ApiError) this.connectMember(cluster);
      else this.log.debug('cannot read a member Secret', { cluster: cluster.metadata.name, err: (e as Error).message });
    }
  }

  private reportReadiness(): void {
    const ready: Record<string, boolean> = {};
    for (const m of this.members.values()) ready[m.name] = !!m.ready;
    this.opts.onClusterReadiness?.(ready);
  }

  /**
   * One probe of a member, every request under one deadline: its health endpoint, then one request that
   * needs rights, then (when both passed) its APIs and version. Requests go through the member's gate
   * (never refused, but counted): an answer here lets writes through again.
   */
  private async check(m: Member): Promise<ProbeOutcome> {
    // Each request has PROBE_TIMEOUT_MS of its own: a link that takes seconds per round trip is slow, not gone
    // (Karmada's client gives every request its own timeout too); a request with no answer that long is.
    const attempt = async <T>(path: string): Promise<{ value?: T; failure?: ProbeFailure }> => {
      const deadline = AbortSignal.timeout(PROBE_TIMEOUT_MS);
      try {
        return { value: await m.gate.track(() => m.cache.rest.request<T>('GET', path, { signal: deadline })) };
      } catch (e) {
        return { failure: failureOf(e, path, deadline) };
      }
    };
    const ready = await attempt('/readyz');
    if (ready.failure) {
      // Karmada's fallback for apiservers that do not serve /readyz.
      if (ready.failure.code !== 404) return { health: ready.failure };
      const healthz = await attempt('/healthz');
      if (healthz.failure) return { health: healthz.failure };
    }
    const access = await attempt(`${ACCESS_CHECK_PATH}?limit=1`);
    if (access.failure) return { access: access.failure };
    // A member that stops answering between the probe's requests fails this probe, not the next one.
    const discovery = AbortSignal.timeout(PROBE_TIMEOUT_MS);
    await Promise.race([this.rediscover(m), new Promise((r) => discovery.addEventListener('abort', r, { once: true }))]);
    if (discovery.aborted) return { health: failureOf(undefined, '/api and /apis (discovery)', discovery) };
    // Asked every probe, as Karmada's status controller does: a member upgraded in place shows its new version.
    const version = await attempt<{ gitVersion?: string }>('/version');
    if (version.value?.gitVersion) m.kubernetesVersion = version.value.gitVersion;
    // An error answer keeps the version known; no answer at all is the member gone quiet.
    else if (version.failure?.timedOut) return { health: version.failure };
    return {};
  }

  /** Probes one member and records the outcome on its Cluster. */
  private async probe(name: string): Promise<void> {
    const m = this.members.get(name);
    if (!m) return;
    const started = performance.now();
    await this.record(m, await this.check(m));
    if (m.ready) await this.postResourceSummary(m);
    this.opts.onClusterSynced?.(name, (performance.now() - started) / 1000);
  }

  /** The lean informers of a connected member; undefined for a member not connected. */
  private memberInformers(cluster: string): MemberInformers | undefined {
    const m = this.members.get(cluster);
    if (!m) return undefined;
    return (m.cache.capacity ??= new MemberInformers(m.cache.rest, {
      onError: (kind, err) => this.log.warn('member Node/Pod watch failed; its resource summary waits for it', { cluster, kind, err: errorMessage(err) }),
    }));
  }

  /** The members' PodMetrics (metrics.k8s.io) as the FederatedHPA reads them, through the member's connection. */
  readonly memberMetrics = new MemberMetricsCache((cluster) => this.members.get(cluster)?.cache.rest);

  /** The members' Nodes, Pods and ResourceQuotas as the estimators read them (src/core/node-estimator.ts). */
  readonly memberCapacity: MemberCapacity = {
    nodeCapacity: (cluster) => this.memberInformers(cluster)?.nodeCapacity(),
    pods: (cluster, namespace) => this.memberInformers(cluster)?.podsIn(namespace),
    resourceQuotas: (cluster, namespace) => this.memberInformers(cluster)?.resourceQuotas(namespace),
  };

  /**
   * Karmada's cluster status controller with resource modeling on: the Cluster's nodeSummary and
   * resourceSummary from the member's Nodes and Pods (src/core/cluster-resource-summary.ts), posted after a
   * probe that found the member ready, when they changed. Never waits for the informers and never throws: the first probe only
   * starts the informers (the summary follows at the first probe after they filled), and a member whose Nodes
   * or Pods cannot be listed (no rights, an error) is logged by the informers and probed as before, without
   * a summary. Run after the Ready write of the same probe, so the two status writes never race.
   */
  private async postResourceSummary(m: Member): Promise<void> {
    try {
      const inf = this.memberInformers(m.name);
      if (!inf) return;
      const nodes = inf.nodeList();
      const pods = inf.podList();
      const cur = this.host.existing(CLUSTER)?.get(undefined, m.name);
      if (!nodes || !pods || !cur || this.members.get(m.name) !== m || !m.ready || this.stopped) return;
      const summary = { nodeSummary: nodeSummary(nodes), resourceSummary: clusterResourceSummary(nodes, pods, cur.spec?.resourceModels) };
      if (deepEqual(cur.status?.nodeSummary, summary.nodeSummary) && deepEqual(cur.status?.resourceSummary, summary.resourceSummary)) return;
      await this.updateStatus({ ...cur, status: { ...(cur.status ?? {}), ...summary } }, undefined, 'cluster-status');
    } catch (e) {
      this.log.warn('cannot update cluster resource summary', { cluster: m.name, err: errorMessage(e) });
    }
  }

  /** A probe's outcome, written to the member's Cluster Ready condition when that changes. */
  private async record(m: Member, outcome: ProbeOutcome): Promise<void> {
    // A probe of a connection replaced meanwhile says nothing about the current one.
    if (this.members.get(m.name) !== m) return;
    const cond = readyConditionOf(outcome, m.secret);
    const ready = cond.status === 'True';
    m.failures = ready ? 0 : (m.failures ?? 0) + 1;
    if (!ready && !failedProbeDecides(outcome, m.ready, m.failures)) {
      this.log.debug('member probe failed; not ready after another failure', { cluster: m.name, err: cond.message });
      return;
    }
    m.ready = ready;
    this.reportReadiness();
    if (!ready) this.log.debug('member not ready', { cluster: m.name, reason: cond.reason, err: cond.message });
    await this.writeReady(m.name, cond, ready ? m.apiEnablements : undefined, ready ? m.kubernetesVersion : undefined);
  }

  /** Sets the Cluster's Ready condition (and API list) when its status or reason differs from what is stored. */
  private async writeReady(name: string, want: ReadyCondition, apiEnablements?: Member['apiEnablements'], kubernetesVersion?: string): Promise<void> {
    const cur = this.host.existing(CLUSTER)?.get(undefined, name) as KObject | undefined;
    if (!cur) return;
    const conds = ((cur.status?.conditions ?? []) as Array<Record<string, unknown>>).filter((c) => c.type !== ClusterConditionReady);
    const old = ((cur.status?.conditions ?? []) as Array<Record<string, unknown>>).find((c) => c.type === ClusterConditionReady);
    const needApis = apiEnablements && !deepEqual(cur.status?.apiEnablements, apiEnablements);
    const needVersion = kubernetesVersion !== undefined && cur.status?.kubernetesVersion !== kubernetesVersion;
    const same = old?.status === want.status && old?.reason === want.reason;
    if (same && !needApis && !needVersion) return;
    const cond = same ? old : { type: ClusterConditionReady, ...want, lastTransitionTime: old?.status === want.status && old.lastTransitionTime ? old.lastTransitionTime : rfc3339(new Date()) };
    const next: KObject = { ...cur, status: { ...(cur.status ?? {}), conditions: [...conds, cond], ...(apiEnablements ? { apiEnablements } : {}), ...(kubernetesVersion ? { kubernetesVersion } : {}) } };
    try {
      await this.updateStatus(next, undefined, 'cluster-status');
      if (old?.status !== want.status) this.log.info('cluster readiness changed', { cluster: name, ready: want.status === 'True', ...(want.status === 'True' ? {} : { reason: want.reason, message: want.message }) });
    } catch (e) {
      this.log.warn('cannot update cluster status', { cluster: name, err: (e as Error).message });
    }
  }

  /**
   * The member's API list, as Cluster.status.apiEnablements (the scheduler's APIEnablement filter reads it),
   * asked again every probe as Karmada's status controller does. When it changed, the client's per-kind
   * discovery is forgotten too, so that a kind served since (a new CRD) is found. A failed discovery keeps
   * the last list.
   */
  private async rediscover(m: Member): Promise<void> {
    const found = await m.discovery.refresh().catch((e: unknown) => this.log.debug('member discovery failed', { cluster: m.name, err: (e as Error).message }));
    if (!found) return;
    if (found.changed) {
      m.cache.rest.resetDiscovery();
      this.log.info('member APIs changed', { cluster: m.name });
    }
    m.apiEnablements = found.enablements;
  }

  private async ensureNamespace(cache: ApiCache, ns: string): Promise<void> {
    // On a member, the namespace the namespace sync controller would have created (its Work's manifest).
    // The agent does not watch the host's Namespaces: a bare one, which the namespace's own Work then updates.
    const body = cache.name === undefined || !this.host.existing(NAMESPACE) ? { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } : memberNamespaceManifest(this, ns, cache.name, this.opts.skippedPropagatingNamespaces ?? DefaultSkippedPropagatingNamespaces);
    try {
      await cache.rest.request('POST', '/api/v1/namespaces', { body, timeoutMs: cache.writeTimeoutMs });
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 409)) throw e;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Writing

  private restOf(cluster: string | undefined): ApiCache {
    if (cluster === undefined) return this.host;
    const m = this.members.get(cluster);
    if (!m) throw new StoreError('NotFound', `member cluster ${cluster} is not connected`);
    return m.cache;
  }

  /** Puts what the server returned into the cache and reports it, unless the cache already knows newer (Informer.applyWrite). */
  private writeThrough(cache: ApiCache, obj: KObject, origin: string): void {
    const inf = cache.existing(obj);
    if (!inf?.hasSynced) return;
    this.origin = origin;
    try {
      inf.applyWrite(obj);
    } finally {
      this.origin = undefined;
    }
  }

  /** The mutating webhook's work on the controller's own Karmada writes (permanent ids, finalizers). */
  private admit(op: 'create' | 'update', obj: KObject, cluster: string | undefined, old?: KObject): KObject {
    if (cluster !== undefined || !isAdmissionKind(obj.kind) || !obj.apiVersion.includes('karmada.io') || obj.kind === CLUSTER.kind) return obj;
    const res = mutate(obj.kind, { operation: op === 'create' ? 'CREATE' : 'UPDATE', namespace: obj.metadata.namespace ?? '', object: obj as never, oldObject: old as never }, { uuid: randomUUID });
    return res.object as unknown as KObject;
  }

  private async call(verb: string, what: { kind: string; metadata?: { namespace?: string; name?: string }; namespace?: string; name?: string }, cluster: string | undefined, origin: string, fn: (c: ApiCache) => Promise<KObject>): Promise<KObject> {
    const cache = this.restOf(cluster);
    const gate = cluster === undefined ? undefined : this.members.get(cluster)?.gate;
    const target = { verb, kind: what.kind, name: `${what.metadata?.namespace ?? what.namespace ?? ''}/${what.metadata?.name ?? what.name ?? ''}`, cluster: cluster ?? 'host', origin };
    try {
      const out = await (gate ? gate.write(() => fn(cache)) : fn(cache));
      // Every write, at debug level: the trail to follow when a reconcile's outcome is unexpected.
      this.log.debug('wrote', { ...target, resourceVersion: out?.metadata?.resourceVersion, generation: out?.metadata?.generation });
      return out;
    } catch (e) {
      this.log.debug('write failed', { ...target, err: (e as Error).message });
      throw toStoreError(e);
    }
  }

  async create(obj: KObject, cluster: string | undefined, origin: string): Promise<KObject> {
    const body = this.admit('create', obj, cluster);
    return this.call('create', body, cluster, origin, async (c) => {
      const path = await c.rest.pathFor(body.apiVersion, body.kind, body.metadata.namespace);
      let out: KObject;
      try {
        out = await c.rest.request<KObject>('POST', path, { body, timeoutMs: c.writeTimeoutMs });
      } catch (e) {
        // The namespace's own Work may not have been applied yet: the namespace is created here, as it would be.
        if (!(e instanceof ApiError && e.code === 404 && body.metadata.namespace)) throw e;
        await this.ensureNamespace(c, body.metadata.namespace);
        out = await c.rest.request<KObject>('POST', path, { body, timeoutMs: c.writeTimeoutMs });
      }
      this.writeThrough(c, out, origin);
      return out;
    });
  }

  async update(obj: KObject, cluster: string | undefined, origin: string): Promise<KObject> {
    return this.call('update', obj, cluster, origin, async (c) => {
      const old = c.existing(obj)?.get(obj.metadata.namespace, obj.metadata.name ?? '');
      const body = this.admit('update', obj, cluster, old);
      // Nothing to change: no request, as the embedded store stores nothing (the cache is what the server holds).
      if (old && unchangedByWrite('update', body, old, await c.rest.hasSubresource(body.apiVersion, body.kind, 'status'))) return old;
      const path = await c.rest.pathFor(body.apiVersion, body.kind, body.metadata.namespace, body.metadata.name);
      const out = await c.rest.request<KObject>('PUT', path, { body, timeoutMs: c.writeTimeoutMs });
      this.writeThrough(c, out, origin);
      return out;
    });
  }

  async updateStatus(obj: KObject, cluster: string | undefined, origin: string): Promise<KObject> {
    return this.call('updateStatus', obj, cluster, origin, async (c) => {
      const hasStatus = await c.rest.hasSubresource(obj.apiVersion, obj.kind, 'status');
      const old = c.existing(obj)?.get(obj.metadata.namespace, obj.metadata.name ?? '');
      if (old && unchangedByWrite('updateStatus', obj, old, hasStatus)) return old;
      const path = await c.rest.pathFor(obj.apiVersion, obj.kind, obj.metadata.namespace, obj.metadata.name, hasStatus ? 'status' : undefined);
      const out = await c.rest.request<KObject>('PUT', path, { body: obj, timeoutMs: c.writeTimeoutMs });
      this.writeThrough(c, out, origin);
      return out;
    });
  }

  async delete(ref: ObjectRef, cluster: string | undefined, origin: string): Promise<void> {
    await this.call('delete', ref, cluster, origin, async (c) => {
      const path = await c.rest.pathFor(ref.apiVersion, ref.kind, ref.namespace, ref.name);
      // Background propagation: dependents go through the garbage collector, as with kubectl delete.
      return c.rest.request('DELETE', path, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' }, timeoutMs: c.writeTimeoutMs });
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Events

  recordEvent(ev: CoreEvent): void {
    this.recorder.record(ev);
  }

  /** What this replica recorded (the Events on the host may hold other replicas' too). */
  events(): readonly RecordedEvent[] {
    return this.recorder.recorded();
  }
}
