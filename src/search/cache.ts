// The multi-cluster cache: carries out the registries' plan (registry.ts) as one store per (cluster,
// resource type), each filled by a feed from that member. Registries that overlap share the store, so one
// watch per member and type whatever the number of registries; the feeds are the only I/O and come from a
// MemberConnector (the real one in member-feed.ts; tests and benchmarks feed stores in-process).
import type { DiscoveredResource } from '../api/kubernetes-kinds.js';
import { notReadySelections, planCache, resourceKey, type CachePlan, type ResourceState, type SelectedResource } from './registry.js';
import { ResourceStore } from './store.js';

/** A member's resource type as its discovery names it. */
export type ResourceInfo = DiscoveredResource;

export const gvrKey = (group: string, version: string, resource: string): string => `${group}/${version}/${resource}`;

/** What a feed reports: the first list is in (or the member answers again), or it fails. */
export type FeedReport = { ok: true } | { ok: false; error: unknown };

/** One member's connection. */
export interface MemberFeed {
  /** The member's resource for apiVersion and kind; rejects when the member does not serve it (yet). */
  resolve(apiVersion: string, kind: string): Promise<ResourceInfo>;
  /** Starts filling the store, list then watch; returns what stops it. */
  start(info: ResourceInfo, store: ResourceStore, report: (r: FeedReport) => void): () => void;
  close(): void;
}

export interface MemberConnector {
  /** A change of it (endpoint, credentials) makes the connection again. */
  signature(cluster: any): string;
  connect(cluster: any): Promise<MemberFeed>;
}

/** One (cluster, type) the plan asks for. */
export interface CacheEntry {
  readonly cluster: string;
  readonly apiVersion: string;
  readonly kind: string;
  /** What the proxy may serve (registry namespaces); undefined is all. */
  namespaces: ReadonlySet<string> | undefined;
  info?: ResourceInfo;
  store?: ResourceStore;
  phase: ResourceState['phase'];
  message?: string;
  /** When it last failed, for "stale since". */
  failedAt?: Date;
  /** When it last had a full list or a member answer. */
  syncedAt?: Date;
  stop?: () => void;
}

interface ClusterConn {
  signature: string;
  feed?: MemberFeed;
  error?: string;
  connecting?: Promise<void>;
  entries: Map<string, CacheEntry>;
}

export interface CacheOptions {
  connector: MemberConnector;
  /** How long after a type the member does not serve to ask its discovery again (a CRD may appear). */
  resolveRetryMs?: number;
  historySize?: number;
  now?: () => Date;
  /** Told when any entry changes phase (the registries' status follows it). */
  onChange?: () => void;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

export class MultiClusterCache {
  private readonly clusters = new Map<string, ClusterConn>();
  private readonly byResource = new Map<string, Set<CacheEntry>>();
  private readonly watchClosers = new Set<() => void>();
  private readonly retries = new Set<ReturnType<typeof setTimeout>>();
  private plan: CachePlan = new Map();
  /** What the registries select on clusters that are not Ready: nothing cached, named as missing in lists. */
  private notReady: CacheEntry[] = [];
  private closed = false;
  /** What the last update was given: a reconnect replays it. */
  private last: { registries: readonly any[]; clusters: readonly any[] } = { registries: [], clusters: [] };
  private readonly reconnecting = new Set<string>();

  constructor(private readonly opts: CacheOptions) {}

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  /** Brings the stores in line with the registries and clusters; cheap when nothing changed. */
  update(registries: readonly any[], clusters: readonly any[]): void {
    if (this.closed) return;
    this.last = { registries, clusters };
    this.plan = planCache(registries, clusters);
    this.notReady = notReadySelections(registries, clusters).map((sel) => ({ ...sel, phase: 'Failed', message: 'cluster is not Ready' }));
    const byName = new Map(clusters.map((c) => [c.metadata?.name as string, c]));
    let joined = false;
    for (const [name, conn] of [...this.clusters]) {
      const cluster = byName.get(name);
      if (!this.plan.has(name) || !cluster || this.opts.connector.signature(cluster) !== conn.signature) this.dropCluster(name);
    }
    for (const [name, wanted] of this.plan) {
      const cluster = byName.get(name)!;
      let conn = this.clusters.get(name);
      if (!conn) {
        conn = { signature: this.opts.connector.signature(cluster), entries: new Map() };
        this.clusters.set(name, conn);
        this.connect(name, conn, cluster);
        joined = true;
      }
      for (const [key, entry] of [...conn.entries]) if (!wanted.has(key)) this.dropEntry(conn, key, entry);
      for (const [key, sel] of wanted) {
        const entry = conn.entries.get(key);
        if (entry) entry.namespaces = sel.namespaces;
        else this.addEntry(name, conn, key, sel);
      }
    }
    // A cluster that joins is in no open watch: end them all so clients list again (Karmada #6963).
    if (joined) this.closeWatches();
  }

  private connect(name: string, conn: ClusterConn, cluster: any): void {
    conn.connecting = this.opts.connector.connect(cluster).then(
      (feed) => {
        if (this.clusters.get(name) !== conn) return feed.close();
        conn.feed = feed;
        for (const e of conn.entries.values()) this.resolve(conn, e);
      },
      (err) => {
        conn.error = errorText(err);
        for (const e of conn.entries.values()) this.fail(e, `cannot connect to the cluster: ${conn.error}`);
        this.retryLater(() => {
          if (this.clusters.get(name) !== conn) return;
          conn.error = undefined;
          this.connect(name, conn, cluster);
        });
      },
    );
  }

  private addEntry(cluster: string, conn: ClusterConn, key: string, sel: SelectedResource): void {
    const entry: CacheEntry = { cluster, apiVersion: sel.apiVersion, kind: sel.kind, namespaces: sel.namespaces, phase: 'Syncing' };
    conn.entries.set(key, entry);
    if (conn.feed) this.resolve(conn, entry);
    else if (conn.error) this.fail(entry, `cannot connect to the cluster: ${conn.error}`);
  }

  private resolve(conn: ClusterConn, entry: CacheEntry): void {
    const feed = conn.feed!;
    feed.resolve(entry.apiVersion, entry.kind).then(
      (info) => {
        if (conn.entries.get(resourceKey(entry.apiVersion, entry.kind)) !== entry || conn.feed !== feed) return;
        this.startEntry(feed, entry, info);
      },
      (err) => {
        if (conn.entries.get(resourceKey(entry.apiVersion, entry.kind)) !== entry) return;
        this.fail(entry, `the cluster does not serve ${entry.apiVersion} ${entry.kind}: ${errorText(err)}`);
        this.retryLater(() => {
          if (conn.entries.get(resourceKey(entry.apiVersion, entry.kind)) === entry && conn.feed === feed && !entry.store) this.resolve(conn, entry);
        });
      },
    );
  }

  private startEntry(feed: MemberFeed, entry: CacheEntry, info: ResourceInfo): void {
    entry.info = info;
    const store = new ResourceStore(entry.cluster, this.opts.historySize);
    entry.store = store;
    const key = gvrKey(info.group, info.version, info.resource);
    let set = this.byResource.get(key);
    if (!set) this.byResource.set(key, (set = new Set()));
    set.add(entry);
    entry.stop = feed.start(info, store, (r) => {
      if (entry.store !== store) return;
      if (r.ok) {
        const changed = entry.phase !== 'Cached';
        entry.phase = 'Cached';
        entry.message = undefined;
        entry.syncedAt = this.now();
        if (changed) this.opts.onChange?.();
      } else {
        this.fail(entry, errorText(r.error));
        // 401: the member no longer takes the token (a rotated Secret); the connection is made again from it
        if ((r.error as { code?: unknown } | undefined)?.code === 401) this.reconnectLater(entry.cluster);
      }
    });
  }

  private reconnectLater(cluster: string): void {
    if (this.reconnecting.has(cluster)) return;
    this.reconnecting.add(cluster);
    this.retryLater(() => {
      this.reconnecting.delete(cluster);
      if (!this.clusters.has(cluster)) return;
      this.dropCluster(cluster);
      this.update(this.last.registries, this.last.clusters);
    });
  }

  private fail(entry: CacheEntry, message: string): void {
    const changed = entry.phase !== 'Failed' || entry.message !== message;
    if (entry.phase !== 'Failed') entry.failedAt = this.now();
    entry.phase = 'Failed';
    entry.message = message;
    if (changed) {
      this.opts.log?.('search cache: a member resource is not cached', { cluster: entry.cluster, apiVersion: entry.apiVersion, kind: entry.kind, error: message });
      this.opts.onChange?.();
    }
  }

  private retryLater(fn: () => void): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.retries.delete(t);
      if (!this.closed) fn();
    }, this.opts.resolveRetryMs ?? 15_000);
    t.unref?.();
    this.retries.add(t);
  }

  private dropEntry(conn: ClusterConn, key: string, entry: CacheEntry): void {
    conn.entries.delete(key);
    entry.stop?.();
    entry.stop = undefined;
    if (entry.info) this.byResource.get(gvrKey(entry.info.group, entry.info.version, entry.info.resource))?.delete(entry);
    entry.store?.closeWatches();
    entry.store = undefined;
  }

  private dropCluster(name: string): void {
    const conn = this.clusters.get(name);
    if (!conn) return;
    this.clusters.delete(name);
    for (const [key, entry] of [...conn.entries]) this.dropEntry(conn, key, entry);
    conn.feed?.close();
  }

  /** The stores of a resource type, cluster by cluster in name order (the proxy's list order, spec 5.5). */
  entriesFor(group: string, version: string, resource: string): CacheEntry[] {
    return [...(this.byResource.get(gvrKey(group, version, resource)) ?? [])].sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
  }

  /**
   * The (cluster, type) pairs planned for this resource type but not being served from a complete store,
   * and those selected on clusters that are not Ready: what a response names as stale or missing. `resource`
   * is matched by kind when discovery never answered.
   */
  unhealthyFor(group: string, version: string, resource: string): CacheEntry[] {
    const out: CacheEntry[] = [];
    const apiVersion = group ? `${group}/${version}` : version;
    const kinds = new Set(this.entriesFor(group, version, resource).map((e) => e.kind));
    for (const e of [...[...this.clusters.values()].flatMap((conn) => [...conn.entries.values()]), ...this.notReady]) {
      if (e.apiVersion !== apiVersion || e.phase === 'Cached') continue;
      if (e.info ? e.info.resource === resource : kinds.has(e.kind) || kinds.size === 0) out.push(e);
    }
    return out.sort((a, b) => (a.cluster < b.cluster ? -1 : 1));
  }

  /** Whether any registry registers the type (spec 5.1 "registered", whatever the clusters). */
  isRegistered(group: string, version: string, resource: string): boolean {
    return this.byResource.has(gvrKey(group, version, resource)) && this.byResource.get(gvrKey(group, version, resource))!.size > 0;
  }

  /** The state the registries' status reads. */
  state(cluster: string, apiVersion: string, kind: string): ResourceState | undefined {
    const e = this.clusters.get(cluster)?.entries.get(resourceKey(apiVersion, kind));
    return e ? { phase: e.phase, message: e.message } : undefined;
  }

  /** Registers a proxy watch's end, so a joining cluster can end it. Returns the unregistration. */
  trackWatch(close: () => void): () => void {
    this.watchClosers.add(close);
    return () => this.watchClosers.delete(close);
  }

  closeWatches(): void {
    for (const c of [...this.watchClosers]) c();
    this.watchClosers.clear();
  }

  /** Every entry, for benchmarks and tests. */
  entries(): CacheEntry[] {
    return [...this.clusters.values()].flatMap((c) => [...c.entries.values()]);
  }

  close(): void {
    this.closed = true;
    for (const t of this.retries) clearTimeout(t);
    for (const name of [...this.clusters.keys()]) this.dropCluster(name);
    this.closeWatches();
  }
}
