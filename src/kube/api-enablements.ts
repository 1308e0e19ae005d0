/**
 * A member's APIs, as `Cluster.status.apiEnablements`, asked again on every status sync as Karmada's
 * cluster status controller does (ServerGroupsAndResources, uncached): a CRD installed on a member later
 * shows up, and the scheduler's APIEnablement filter lets its objects through.
 *
 * Kept cheap: aggregated discovery (the whole API list in two requests, /api and /apis) with the ETag of
 * the last answer, so that a member whose APIs did not change answers 304 with no body. A server without
 * aggregated discovery is listed the older way, one request per group-version.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { deepEqual } from '../json/value.js';
import { ApiError, type RequestOpts } from './rest.js';

export interface APIEnablement {
  groupVersion: string;
  resources: Array<{ name: string; kind: string }>;
}

/** Aggregated discovery first (v2, then v2beta1), the older documents when the server has none. */
const AGGREGATED_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

interface DiscoveryResource {
  resource?: string;
  responseKind?: { kind?: string };
}

interface AggregatedGroup {
  metadata?: { name?: string };
  versions?: Array<{ version?: string; resources?: DiscoveryResource[]; freshness?: string }>;
}

export interface AggregatedList {
  kind?: string;
  apiVersion?: string;
  items?: AggregatedGroup[];
}

/** The requests discovery makes; the store passes the member's client through its gate. */
export type DiscoveryRequest = <T>(path: string, opts: RequestOpts) => Promise<T>;

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const byGroupVersion = (a: APIEnablement, b: APIEnablement) => (a.groupVersion < b.groupVersion ? -1 : a.groupVersion > b.groupVersion ? 1 : 0);

/**
 * Karmada's shape: subresources left out, resources by name, group-versions by name, a group-version with no
 * resource left out. A version marked Stale (an aggregated API server that did not answer) is left out, as
 * client-go reports it failed.
 */
export function enablementsOfAggregated(lists: readonly AggregatedList[]): APIEnablement[] {
  const out: APIEnablement[] = [];
  for (const group of lists.flatMap((l) => l.items ?? [])) {
    const name = group.metadata?.name ?? '';
    for (const v of group.versions ?? []) {
      if (!v.version || v.freshness === 'Stale') continue;
      const resources = (v.resources ?? []).filter((r) => r.resource && !r.resource.includes('/')).map((r) => ({ name: r.resource!, kind: r.responseKind?.kind ?? '' }));
      if (resources.length > 0) out.push({ groupVersion: name ? `${name}/${v.version}` : v.version, resources: resources.sort(byName) });
    }
  }
  return out.sort(byGroupVersion);
}

const isAggregated = (doc: unknown): doc is AggregatedList => typeof doc === 'object' && doc !== null && (doc as AggregatedList).kind === 'APIGroupDiscoveryList';

/** One member's API list and what is needed to ask for it again cheaply. */
export class ApiDiscovery {
  /** Per path (/api, /apis): the ETag and document of the last aggregated answer. */
  private readonly documents = new Map<string, { etag?: string; doc: AggregatedList }>();
  private last?: APIEnablement[];

  constructor(
    private readonly request: DiscoveryRequest,
    private readonly timeoutMs?: number,
  ) {}

  /** The member's APIs now; `changed` when they differ from the last answer (false the first time). */
  async refresh(): Promise<{ enablements: APIEnablement[]; changed: boolean }> {
    const [core, groups] = await Promise.all([this.fetch('/api'), this.fetch('/apis')]);
    const enablements = isAggregated(core) && isAggregated(groups) ? enablementsOfAggregated([core, groups]) : await this.legacy(core, groups);
    const changed = this.last !== undefined && !deepEqual(this.last, enablements);
    this.last = enablements;
    return { enablements, changed };
  }

  /** One discovery document: the one kept when the server answers 304 to its ETag. */
  private async fetch(path: string): Promise<unknown> {
    const kept = this.documents.get(path);
    let etag: string | undefined;
    const onResponseHeaders = (h: IncomingHttpHeaders) => {
      etag = typeof h.etag === 'string' ? h.etag : undefined;
    };
    try {
      const doc = await this.request<unknown>(path, { headers: { accept: AGGREGATED_ACCEPT, ...(kept?.etag ? { 'if-none-match': kept.etag } : {}) }, onResponseHeaders, timeoutMs: this.timeoutMs });
      if (isAggregated(doc)) this.documents.set(path, { etag, doc });
      else this.documents.delete(path);
      return doc;
    } catch (e) {
      if (e instanceof ApiError && e.code === 304 && kept) return kept.doc;
      throw e;
    }
  }

  /** A server without aggregated discovery: every group-version asked (a failed one left out, as client-go's partial result). */
  private async legacy(core: unknown, groups: unknown): Promise<APIEnablement[]> {
    const versions = ((core as { versions?: string[] })?.versions ?? []).slice();
    for (const g of (groups as { groups?: Array<{ versions?: Array<{ groupVersion: string }> }> })?.groups ?? []) versions.push(...(g.versions ?? []).map((v) => v.groupVersion));
    const lists = await Promise.all(
      versions.map((gv) =>
        this.request<{ resources?: Array<{ name: string; kind: string }> }>(gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`, { timeoutMs: this.timeoutMs }).then(
          (r) => ({ groupVersion: gv, resources: (r?.resources ?? []).filter((x) => !x.name.includes('/')).map((x) => ({ name: x.name, kind: x.kind })).sort(byName) }),
          () => ({ groupVersion: gv, resources: [] }),
        ),
      ),
    );
    return lists.filter((l) => l.resources.length > 0).sort(byGroupVersion);
  }
}
