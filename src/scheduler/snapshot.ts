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

interface CacheEntry {
  info: ClusterInfo;
  spec: unknown;
  status: unknown;
  metadata: unknown;
  labels: unknown;
  summary: unknown;
}

const cache = new WeakMap<Cluster, CacheEntry>();

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
  private labelMap?: Labels;
  private fieldMap?: Labels;
  private parsed?: ParsedSummary | null;

  constructor(readonly cluster: Cluster) {
    const spec = cluster.spec;
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

  summary(): ParsedSummary | null {
    if (this.parsed === undefined) {
      const rs: ResourceSummary | null | undefined = this.cluster.status?.resourceSummary;
      this.parsed = rs ? parseSummary(rs, this.cluster.spec?.resourceModels ?? null) : null;
    }
    return this.parsed;
  }
}

export function clusterInfo(c: Cluster): ClusterInfo {
  const e = cache.get(c);
  if (
    e &&
    e.spec === c.spec &&
    e.status === c.status &&
    e.metadata === c.metadata &&
    e.labels === c.metadata.labels &&
    e.summary === c.status?.resourceSummary
  ) {
    return e.info;
  }
  const info = new Info(c);
  cache.set(c, {
    info,
    spec: c.spec,
    status: c.status,
    metadata: c.metadata,
    labels: c.metadata.labels,
    summary: c.status?.resourceSummary,
  });
  return info;
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
  const infos = clusters.map(clusterInfo);
  const byName = new Map<string, ClusterInfo>();
  for (const i of infos) byName.set(i.name, i);
  const tables = new Map<string, Uint8Array>();
  let nameRank: number[] | undefined;
  return {
    clusters: infos,
    byName,
    // Sorting thousands of names is a noticeable part of a cold start, and only ordered placements need it.
    get nameRank() {
      if (!nameRank) {
        const order = infos
          .map((_, i) => i)
          .sort((a, b) => (infos[a]!.name < infos[b]!.name ? -1 : infos[a]!.name > infos[b]!.name ? 1 : 0));
        const ranks = new Array<number>(infos.length);
        order.forEach((idx, pos) => {
          ranks[idx] = pos;
        });
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
}

/** A snapshot together with the objects it was built from, to tell whether a new list is the same. */
interface SourcedSnapshot {
  snapshot: ClusterSnapshot;
  sources: readonly Cluster[];
  /** metadata, labels, spec, status, resourceSummary of each source, in order. */
  parts: unknown[];
}

function partsOf(list: readonly Cluster[]): unknown[] {
  const parts = new Array<unknown>(list.length * 5);
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    parts[5 * i] = c.metadata;
    parts[5 * i + 1] = c.metadata.labels;
    parts[5 * i + 2] = c.spec;
    parts[5 * i + 3] = c.status;
    parts[5 * i + 4] = c.status?.resourceSummary;
  }
  return parts;
}

function sameSources(s: SourcedSnapshot, list: readonly Cluster[]): boolean {
  if (s.sources.length !== list.length) return false;
  const p = s.parts;
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (
      c !== s.sources[i] ||
      c.metadata !== p[5 * i] ||
      c.metadata.labels !== p[5 * i + 1] ||
      c.spec !== p[5 * i + 2] ||
      c.status !== p[5 * i + 3] ||
      c.status?.resourceSummary !== p[5 * i + 4]
    ) {
      return false;
    }
  }
  return true;
}

const byArray = new WeakMap<readonly Cluster[], SourcedSnapshot>();
let last: SourcedSnapshot | null = null;

/**
 * Accepts a prepared snapshot or a plain list. A list made of the same, unchanged Cluster objects as
 * the previous one reuses its snapshot, so callers that list clusters afresh for every binding (a new
 * array each time) still pay for building a snapshot only when a cluster changed.
 */
export function toSnapshot(clusters: readonly Cluster[] | ClusterSnapshot): ClusterSnapshot {
  if (!Array.isArray(clusters)) return clusters as ClusterSnapshot;
  const list = clusters as readonly Cluster[];
  const known = byArray.get(list);
  if (known && sameSources(known, list)) return known.snapshot;
  if (last && sameSources(last, list)) return last.snapshot;
  const fresh: SourcedSnapshot = { snapshot: createSnapshot(list), sources: list.slice(), parts: partsOf(list) };
  byArray.set(list, fresh);
  last = fresh;
  return fresh.snapshot;
}
