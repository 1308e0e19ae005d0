/**
 * The scheduler's view of member clusters (Karmada's cache snapshot). Everything a scheduling pass
 * asks of a cluster many times over (labels, fields, enabled APIs, parsed resource summary) is
 * derived once per Cluster object and reused across bindings: scheduling thousands of bindings over
 * the same clusters must not re-parse quantities every time.
 *
 * Cluster objects are treated as immutable snapshots, as informer caches hand them out: the derived
 * data is re-built when the object, its spec, its status or its resourceSummary is replaced, not when
 * one of their fields is changed in place.
 */
import { labelsOf, type Labels, type MatchableCluster } from './selector.js';
import type { Cluster, ResourceSummary, Taint } from './types.js';
import { parseSummary, type ParsedSummary } from './available.js';
import { defaultResourceModels } from './resource-models.js';

/** The models of a Cluster that names none: Karmada's registry would have stored its defaults (resource-models.ts). */
const DEFAULT_MODELS = defaultResourceModels();

export interface ClusterInfo extends MatchableCluster {
  readonly cluster: Cluster;
  readonly deleting: boolean;
  readonly provider: string;
  readonly region: string;
  /** The deprecated singular `spec.zone`. */
  readonly zone: string;
  readonly taints: readonly Taint[];
  /** Whether the cluster lists this groupVersion and kind in `status.apiEnablements`. */
  hasAPI(groupVersion: string, kind: string): boolean;
  /** Null when the cluster reports no resource summary (the general estimator then gives 0). */
  summary(): ParsedSummary | null;
}

const cache = new WeakMap<Cluster, Info>();

export const apiKey = (groupVersion: string, kind: string): string => `${groupVersion}\u0000${kind}`;

const NO_ZONES: readonly string[] = [];
const NO_TAINTS: readonly Taint[] = [];

/**
 * Derived data is computed on first use: a snapshot of thousands of clusters is built on the first
 * scheduling pass, and most passes need the labels, the API list or the summary of only some of them.
 */
class Info implements ClusterInfo {
  readonly name: string;
  readonly deleting: boolean;
  readonly provider: string;
  readonly region: string;
  readonly zone: string;
  readonly zones: readonly string[];
  readonly taints: readonly Taint[];
  private labelMap: Labels | undefined = undefined;
  private fieldMap: Labels | undefined = undefined;
  private parsed: ParsedSummary | null | undefined = undefined;
  // The parts of the Cluster object this was derived from: replacing any of them makes it stale.
  private readonly srcMetadata: unknown;
  private readonly srcLabels: unknown;
  private readonly srcSpec: unknown;
  private readonly srcStatus: unknown;
  private readonly srcSummary: unknown;

  constructor(readonly cluster: Cluster) {
    const spec = cluster.spec;
    this.srcMetadata = cluster.metadata;
    this.srcLabels = cluster.metadata.labels;
    this.srcSpec = spec;
    this.srcStatus = cluster.status;
    this.srcSummary = cluster.status?.resourceSummary;
    this.name = cluster.metadata.name ?? '';
    this.deleting = !!cluster.metadata.deletionTimestamp;
    this.provider = spec?.provider ?? '';
    this.region = spec?.region ?? '';
    this.zone = spec?.zone ?? '';
    this.zones = spec?.zones ?? NO_ZONES;
    this.taints = spec?.taints ?? NO_TAINTS;
  }

  get labels(): Labels {
    return (this.labelMap ??= labelsOf(this.cluster.metadata.labels));
  }

  get fields(): Labels {
    if (!this.fieldMap) {
      const m = new Map<string, string>();
      if (this.provider !== '') m.set('provider', this.provider);
      if (this.region !== '') m.set('region', this.region);
      this.fieldMap = m;
    }
    return this.fieldMap;
  }

  hasAPI(groupVersion: string, kind: string): boolean {
    for (const e of this.cluster.status?.apiEnablements ?? []) {
      if (e.groupVersion !== groupVersion) continue;
      for (const r of e.resources ?? []) if (r.kind === kind) return true;
    }
    return false;
  }

  /** Whether `c` is this info's Cluster object with the same metadata, labels, spec, status and summary. */
  derivedFrom(c: Cluster): boolean {
    return (
      c === this.cluster &&
      c.metadata === this.srcMetadata &&
      c.metadata.labels === this.srcLabels &&
      c.spec === this.srcSpec &&
      c.status === this.srcStatus &&
      c.status?.resourceSummary === this.srcSummary
    );
  }

  summary(): ParsedSummary | null {
    if (this.parsed === undefined) {
      const rs: ResourceSummary | null | undefined = this.cluster.status?.resourceSummary;
      const models = this.cluster.spec?.resourceModels;
      this.parsed = rs ? parseSummary(rs, models && models.length > 0 ? models : DEFAULT_MODELS) : null;
    }
    return this.parsed;
  }
}

/** The derived data of one Cluster object, cached while the object and its parts are unchanged. */
export function clusterInfo(c: Cluster): ClusterInfo {
  const known = cache.get(c) ?? reusable(c, -1);
  if (known !== undefined && known.derivedFrom(c)) return known;
  const info = new Info(c);
  cache.set(c, info);
  return info;
}

/**
 * The snapshot built most recently. A new snapshot takes over its infos for the Cluster objects that
 * are unchanged, so a list in which one cluster changed costs one new info, not thousands. (A
 * WeakMap per Cluster object does the same, but inserting thousands of new objects into it is the
 * largest single cost of a cold snapshot.)
 */
let previous: BuiltSnapshot | null = null;

/** An info for `c` from the previous snapshot (looked for at `index` first, then by name), if any. */
function reusable(c: Cluster, index: number): Info | undefined {
  if (previous === null) return undefined;
  const infos = previous.clusters;
  const at = index >= 0 && index < infos.length ? infos[index]! : undefined;
  if (at !== undefined && at.cluster === c) return at;
  // Same name at the same place but another object: the cluster changed, no need to search.
  if (at !== undefined && at.name === (c.metadata.name ?? '')) return undefined;
  const named = previous.infoNamed(c.metadata.name ?? '');
  return named !== undefined && named.cluster === c ? named : undefined;
}

function infoAt(c: Cluster, index: number): Info {
  const known = reusable(c, index) ?? cache.get(c);
  return known !== undefined && known.derivedFrom(c) ? known : new Info(c);
}

/** A snapshot of all clusters, built once and shared by many `schedule` calls. */
export interface ClusterSnapshot {
  readonly clusters: readonly ClusterInfo[];
  readonly byName: ReadonlyMap<string, ClusterInfo>;
  /** For each cluster (same index), its position in name order. */
  readonly nameRank: readonly number[];
  /** For each cluster (same index), 1 when it reports the API; computed once per API. */
  apiTable(groupVersion: string, kind: string): Uint8Array;
}

export function createSnapshot(clusters: readonly Cluster[]): ClusterSnapshot {
  return buildSnapshot(clusters);
}

interface BuiltSnapshot extends ClusterSnapshot {
  readonly clusters: readonly Info[];
  readonly byName: ReadonlyMap<string, Info>;
  infoNamed(name: string): Info | undefined;
}

function buildSnapshot(clusters: readonly Cluster[]): BuiltSnapshot {
  const infos = new Array<Info>(clusters.length);
  for (let i = 0; i < clusters.length; i++) infos[i] = infoAt(clusters[i]!, i);
  const tables = new Map<string, Uint8Array>();
  let byName: Map<string, Info> | undefined;
  let nameRank: number[] | undefined;
  // The name index and the name order are built on first use: a cold pass over thousands of new
  // clusters should pay only for what the binding needs.
  const built: BuiltSnapshot = {
    clusters: infos,
    get byName() {
      if (!byName) {
        byName = new Map<string, Info>();
        for (const i of infos) byName.set(i.name, i);
      }
      return byName;
    },
    infoNamed(name) {
      return this.byName.get(name);
    },
    // Sorting thousands of names is a noticeable part of a cold start, and only ordered placements need it.
    get nameRank() {
      if (!nameRank) {
        const n = infos.length;
        const names = new Array<string>(n);
        const order = new Array<number>(n);
        for (let i = 0; i < n; i++) {
          names[i] = infos[i]!.name;
          order[i] = i;
        }
        // Stable, so equal names keep list order. Listed clusters usually come sorted by name already.
        order.sort((a, b) => {
          const x = names[a]!;
          const y = names[b]!;
          return x < y ? -1 : x > y ? 1 : 0;
        });
        const ranks = new Array<number>(n);
        for (let pos = 0; pos < n; pos++) ranks[order[pos]!] = pos;
        nameRank = ranks;
      }
      return nameRank;
    },
    apiTable(groupVersion, kind) {
      const key = apiKey(groupVersion, kind);
      let t = tables.get(key);
      if (!t) {
        t = new Uint8Array(infos.length);
        for (let i = 0; i < infos.length; i++) t[i] = infos[i]!.hasAPI(groupVersion, kind) ? 1 : 0;
        tables.set(key, t);
      }
      return t;
    },
  };
  previous = built;
  return built;
}

/** Whether `list` holds, in order, the unchanged Cluster objects the snapshot was built from. */
function sameSources(s: BuiltSnapshot, list: readonly Cluster[]): boolean {
  const infos = s.clusters;
  if (infos.length !== list.length) return false;
  for (let i = 0; i < list.length; i++) if (!infos[i]!.derivedFrom(list[i]!)) return false;
  return true;
}

const byArray = new WeakMap<readonly Cluster[], BuiltSnapshot>();
let last: BuiltSnapshot | null = null;

// Array.isArray does not narrow a readonly array type away.
const isSnapshot = (c: readonly Cluster[] | ClusterSnapshot): c is ClusterSnapshot => !Array.isArray(c);

/**
 * Accepts a prepared snapshot or a plain list. A list made of the same, unchanged Cluster objects as
 * the previous one reuses its snapshot, so callers that list clusters afresh for every binding (a new
 * array each time) still pay for building a snapshot only when a cluster changed.
 */
export function toSnapshot(clusters: readonly Cluster[] | ClusterSnapshot): ClusterSnapshot {
  if (isSnapshot(clusters)) return clusters;
  const known = byArray.get(clusters);
  if (known && sameSources(known, clusters)) return known;
  if (last && sameSources(last, clusters)) return last;
  const fresh = buildSnapshot(clusters);
  byArray.set(clusters, fresh);
  last = fresh;
  return fresh;
}
