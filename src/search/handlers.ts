// The search API (`/search/cache/...`, karmada-search.md 4) and the multi-cluster proxy
// (`/proxying/<name>/proxy/...`, 5) over the cache, as handlers of the aggregated server (src/apiserver).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { CacheSourceAnnotation } from '../api/constants.js';
import { impersonationHeaders } from '../apiserver/cluster-proxy.js';
import { requestInfo } from '../apiserver/request-info.js';
import { sendJson, sendStatus, statusBody, StatusError } from '../apiserver/status.js';
import type { ApiGroupResources, ApiHandler, RequestInfo, UserInfo } from '../apiserver/types.js';
import { forwardableHeaders, readBytes, responseHeaders, send, type Upstream } from '../apiserver/upstream.js';
import type { CacheEntry, MultiClusterCache } from './cache.js';
import { clusterRV, decodeContinue, decodeMultiClusterRV, encodeContinue, encodeMultiClusterRV, isMultiClusterRV, type MultiClusterRV } from './encoding.js';
import { editProtobufMeta } from './protobuf-meta.js';
import { parseFieldSelector, parseLabelSelector, SelectorError, type FieldSelector } from './selectors.js';
import { toBytes, TooOldResourceVersionError, type CachedObject } from './store.js';
import type { LabelMatcher } from '../scheduler/selector.js';
import { errorMessage } from '../json/error.js';

export const SEARCH_GROUP_VERSION = 'search.karmada.io/v1alpha1';
const BASE = `/apis/${SEARCH_GROUP_VERSION}`;
export const SEARCH_PREFIX = `${BASE}/search/`;
export const PROXY_PREFIX = `${BASE}/proxying/`;

/** What the server announces for the group, beside resourceregistries (spec 1). */
export const SEARCH_DISCOVERY: ApiGroupResources = {
  groupVersion: SEARCH_GROUP_VERSION,
  resources: [
    { name: 'search', namespaced: false, kind: 'Search', verbs: ['get'] },
    { name: 'proxying', namespaced: false, kind: 'Proxying', verbs: [] },
    { name: 'proxying/proxy', namespaced: false, kind: 'Proxying', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
  ],
};

export interface SearchDeps {
  cache: MultiClusterCache;
  /** The host, where the karmada plugin sends what is not cached (spec 5.8), the caller impersonated. */
  host?: Upstream;
  /** The cluster proxy (`clusters/<name>/proxy`), which writes and subresources go through (spec 5.7). */
  clusterProxy?: ApiHandler;
  now?: () => Date;
}

type Ctx = Parameters<ApiHandler['handle']>[2];

const LIST_OK = { 'Content-Type': 'application/json; charset=utf-8' };

/**
 * The documented way of our own to say a list is incomplete (README "differs" 11): one `Warning` header
 * (RFC 7234 code 299, which kubectl prints) per cluster whose objects are stale or missing.
 */
export function staleWarnings(entries: readonly CacheEntry[]): string[] {
  return entries.map((e) => {
    const why = (e.message ?? 'not listed yet').replace(/["\\\r\n]/g, ' ');
    const what = e.store && e.syncedAt ? `stale since ${e.failedAt?.toISOString() ?? e.syncedAt.toISOString()}: its ${e.kind} objects are as last seen` : `missing: none of its ${e.kind} objects are listed`;
    return `299 karmada-search "cluster ${e.cluster} is ${what} (${why})"`;
  });
}

function splitPath(req: IncomingMessage): { path: string; query: URLSearchParams; search: string } {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const search = q < 0 ? '' : url.slice(q);
  return { path: q < 0 ? url : url.slice(0, q), query: new URLSearchParams(search), search };
}

interface Filters {
  labels?: LabelMatcher;
  fields: FieldSelector;
  limit: number;
}

function filters(query: URLSearchParams): Filters {
  const limitText = query.get('limit');
  const limit = limitText ? Number(limitText) : 0;
  if (!Number.isInteger(limit) || limit < 0) throw new SelectorError(`limit: Invalid value: "${limitText}": must be a non-negative integer`);
  return { labels: parseLabelSelector(query.get('labelSelector')), fields: parseFieldSelector(query.get('fieldSelector')), limit };
}

const groupOf = (info: RequestInfo) => info.apiGroup;
const apiVersionOf = (info: RequestInfo) => (info.apiGroup ? `${info.apiGroup}/${info.apiVersion}` : info.apiVersion);

/** The resource and its namespace a native path names; `namespaces` itself is cluster-scoped (spec 4.2). */
function nativeTarget(info: RequestInfo): { namespace?: string; name?: string } {
  return { namespace: info.resource === 'namespaces' ? undefined : info.namespace, name: info.name };
}

interface Page {
  items: CachedObject[];
  continueToken: string;
  /** The clusters listed, for the list's kind. */
  first?: CacheEntry;
}

/**
 * Lists cluster by cluster in name order, each from memory: with a limit, each cluster gets what is left
 * of it and the token names where to go on (spec 5.5 steps 2-3; our member continue is the last key).
 */
function listEntries(entries: readonly CacheEntry[], f: Filters, target: { namespace?: string; name?: string }, cont: string | null, rv: string, proxy: boolean): Page {
  const token = decodeContinue(cont);
  let start = 0;
  if (token) {
    start = entries.findIndex((e) => e.cluster >= token.cluster);
    if (start < 0) start = entries.length;
  }
  const fields: FieldSelector = target.name ? { ...f.fields, name: { value: target.name, equal: true } } : f.fields;
  const items: CachedObject[] = [];
  let remaining = f.limit;
  let continueToken = '';
  let first: CacheEntry | undefined;
  for (let i = start; i < entries.length; i++) {
    const e = entries[i]!;
    if (!e.store) continue;
    first ??= e;
    const after = token && i === start && token.cluster === e.cluster ? token.continue : undefined;
    const page = e.store.list({ namespace: target.namespace, labels: f.labels, fields, visible: proxy ? (e.namespaces as Set<string> | undefined) : undefined, after: after || undefined, limit: f.limit ? remaining : undefined });
    for (const o of page.items) items.push(o);
    if (f.limit) {
      remaining -= page.items.length;
      if (page.next) {
        continueToken = encodeContinue({ rv, cluster: e.cluster, continue: page.next });
        break;
      }
      if (remaining <= 0) {
        const next = entries.slice(i + 1).find((x) => x.store);
        if (next) continueToken = encodeContinue({ rv, cluster: next.cluster, continue: '' });
        break;
      }
    }
  }
  return { items, continueToken, first };
}

function writeList(res: ServerResponse, kind: string, apiVersion: string, meta: Record<string, string>, items: readonly string[], warnings: string[]): void {
  // every part is bytes-as-latin1 (CachedObject.json), so the body is written as latin1, one byte per character
  const body = toBytes(`{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(meta)},"items":[`) + items.join(',') + ']}';
  const headers: Record<string, string | string[]> = { ...LIST_OK, 'Content-Length': String(body.length) };
  if (warnings.length) headers.Warning = warnings;
  res.writeHead(200, headers);
  res.end(body, 'latin1');
}

/** The Table version an `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` asks for, if any. */
function tableVersion(accept: string | undefined): string | undefined {
  for (const part of (accept ?? '').split(',')) {
    const params = new Map(part.split(';').slice(1).map((p) => p.trim().split('=') as [string, string]));
    if (params.get('as') === 'Table' && params.get('g') === 'meta.k8s.io') return params.get('v') ?? 'v1';
  }
  return undefined;
}

const TABLE_COLUMNS = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
  { name: 'Created At', type: 'date', format: '', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', priority: 0 },
];

/** The default table (NAME, CREATED AT) kubectl gets from the apiserver for kinds without printers (spec 5.5). */
function writeTable(res: ServerResponse, version: string, meta: Record<string, string>, objects: readonly CachedObject[], warnings: string[]): void {
  const rows = objects.map((o) => {
    const md = o.object.metadata ?? {};
    return { cells: [md.name, md.creationTimestamp ?? null], object: { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: md } };
  });
  const headers: Record<string, string | string[]> = {};
  if (warnings.length) headers.Warning = warnings;
  sendJson(res, 200, { kind: 'Table', apiVersion: `meta.k8s.io/${version}`, metadata: meta, columnDefinitions: TABLE_COLUMNS, rows }, headers as Record<string, string>);
}

/** `/search/cache/<native path>`: a List of every cached cluster's objects, each annotated with its cluster. */
export function searchHandler(deps: SearchDeps): ApiHandler {
  return {
    prefix: SEARCH_PREFIX,
    handle(req, res) {
      if ((req.method ?? 'GET') !== 'GET') return sendStatus(res, 405, `the server does not allow this method on the requested resource (search is GET only)`);
      const { path, query, search } = splitPath(req);
      const rest = path.slice(SEARCH_PREFIX.length);
      const slash = rest.indexOf('/');
      const category = slash < 0 ? rest : rest.slice(0, slash);
      if (category === 'opensearch') return void res.writeHead(200).end();
      if (category !== 'cache') return sendStatus(res, 500, `connect with unrecognized search category ${category}`);
      const native = slash < 0 ? '/' : rest.slice(slash);
      const info = requestInfo('GET', native + search);
      if (!info.isResourceRequest || !info.resource) return sendStatus(res, 500, `k8s native Request URL(${native}) is not a resource request`);
      if (info.subresource) return sendStatus(res, 500, `invalid request parts([${info.parts.join(' ')}]) for k8s native request URL`);
      let f: Filters;
      try {
        f = filters(query);
      } catch (e) {
        return sendJson(res, 400, { error: errorMessage(e) });
      }
      const entries = deps.cache.entriesFor(groupOf(info), info.apiVersion, info.resource);
      const page = listEntries(entries, f, nativeTarget(info), query.get('continue'), '', false);
      const kind = page.first?.info ? `${page.first.info.kind}List` : 'List';
      const meta: Record<string, string> = page.continueToken ? { continue: page.continueToken } : {};
      writeList(res, kind, apiVersionOf(info), meta, page.items.map((o) => o.json), staleWarnings(deps.cache.unhealthyFor(groupOf(info), info.apiVersion, info.resource)));
    },
  };
}

/** The multi-cluster RV of the listed clusters (every one cached: answers come from memory). */
function listRV(requested: MultiClusterRV, entries: readonly CacheEntry[]): string {
  const rv: MultiClusterRV = { zero: requested.zero, byCluster: new Map(requested.byCluster) };
  for (const e of entries) if (e.store?.resourceVersion) rv.byCluster.set(e.cluster, e.store.resourceVersion);
  return encodeMultiClusterRV(rv);
}

function visibleIn(e: CacheEntry, namespace: string | undefined): boolean {
  return !e.namespaces || namespace === undefined || e.namespaces.has(namespace);
}

/** The one cluster holding the named object (spec 5.5 get step 1): NotFound, or Conflict when several do. */
function owner(entries: readonly CacheEntry[], info: RequestInfo): { entry: CacheEntry; object: CachedObject } {
  const found: Array<{ entry: CacheEntry; object: CachedObject }> = [];
  for (const e of entries) {
    if (!e.store || !visibleIn(e, info.namespace)) continue;
    const o = e.store.getObject(info.namespace ?? '', info.name!);
    if (o) found.push({ entry: e, object: o });
  }
  const gr = info.apiGroup ? `${info.resource}.${info.apiGroup}` : info.resource!;
  if (found.length === 0) throw new StatusError(404, `${gr} "${info.name}" not found`, { name: info.name, group: info.apiGroup, kind: info.resource });
  if (found.length > 1) throw new StatusError(409, `Operation cannot be fulfilled on ${info.resource} "${info.name}": ambiguous objects in clusters [${found.map((f) => f.entry.cluster).join(', ')}]`, { name: info.name, group: info.apiGroup, kind: info.resource });
  return found[0]!;
}

function notFoundWithWarnings(res: ServerResponse, e: StatusError, warnings: string[]): void {
  const text = JSON.stringify(statusBody(e.code, e.message, e.details));
  res.writeHead(e.code, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), Warning: warnings });
  res.end(text);
}

function watchFromCache(res: ServerResponse, ctx: Ctx, deps: SearchDeps, entries: readonly CacheEntry[], info: RequestInfo, f: Filters, query: URLSearchParams, warnings: string[]): void {
  const requested = decodeMultiClusterRV(query.get('resourceVersion'));
  const running: MultiClusterRV = { zero: requested.zero, byCluster: new Map(requested.byCluster) };
  const headers: Record<string, string | string[]> = { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' };
  if (warnings.length) headers.Warning = warnings;
  const stops: Array<() => void> = [];
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    for (const s of stops) s();
    res.end();
  };
  const target = nativeTarget(info);
  const fields: FieldSelector = target.name ? { ...f.fields, name: { value: target.name, equal: true } } : f.fields;
  try {
    res.writeHead(200, headers);
    res.flushHeaders();
    for (const e of entries) {
      if (!e.store) continue;
      const store = e.store;
      stops.push(
        store.watch(
          clusterRV(requested, e.cluster),
          (ev) => {
            if (ended) return;
            const o = ev.object;
            running.byCluster.set(e.cluster, o.resourceVersion);
            const passes = (x: CachedObject) =>
              !(target.namespace !== undefined && x.namespace !== target.namespace) &&
              !(e.namespaces && !e.namespaces.has(x.namespace)) &&
              !(f.labels && !f.labels(x.labels)) &&
              !(fields.name && (x.name === fields.name.value) !== fields.name.equal) &&
              !(fields.namespace && (x.namespace === fields.namespace.value) !== fields.namespace.equal);
            const now = passes(o);
            const before = ev.type === 'MODIFIED' && ev.old ? passes(ev.old) : now;
            // kube-apiserver's watch cache: a change into the selection is ADDED, one out of it DELETED
            // with the object as it was last seen matching, at the change's resourceVersion
            const [type, shown] = now && before ? [ev.type, o] : now ? ['ADDED', o] : before && ev.old ? ['DELETED', ev.old] : [undefined, o];
            if (!type) return;
            res.write(`{"type":"${type}","object":${shown.withResourceVersion(encodeMultiClusterRV(running))}}\n`, 'latin1');
          },
          end,
        ),
      );
    }
  } catch (err) {
    if (!(err instanceof TooOldResourceVersionError)) throw err;
    res.write(`{"type":"ERROR","object":${JSON.stringify({ ...statusBody(410, err.message, undefined, 'Expired') })}}\n`);
    return end();
  }
  stops.push(deps.cache.trackWatch(end));
  const timeout = Number(query.get('timeoutSeconds') ?? 0);
  if (timeout > 0) {
    const t = setTimeout(end, timeout * 1000);
    stops.push(() => clearTimeout(t));
  }
  ctx.signal.addEventListener('abort', end, { once: true });
  res.once('close', end);
}

/** The resourceVersion the member knows, for a multi-cluster one the cache handed out; undefined when it is the member's already. */
function memberRV(rv: unknown, cluster: string): string | undefined {
  return typeof rv === 'string' && isMultiClusterRV(rv) ? clusterRV(decodeMultiClusterRV(rv), cluster) : undefined;
}

/** A parsed JSON or YAML object with the cache's marks taken off; false when there were none. */
function unmarkObject(o: any, cluster: string): boolean {
  if (!o || typeof o !== 'object' || !o.metadata || typeof o.metadata !== 'object') return false;
  let changed = false;
  if (o.metadata.annotations && typeof o.metadata.annotations === 'object' && CacheSourceAnnotation in o.metadata.annotations) {
    delete o.metadata.annotations[CacheSourceAnnotation];
    changed = true;
  }
  const rv = memberRV(o.metadata.resourceVersion, cluster);
  if (rv !== undefined) {
    o.metadata.resourceVersion = rv;
    changed = true;
  }
  return changed;
}

/**
 * PUT through the proxy: the cache's annotation removed and the member's own resourceVersion put back (spec
 * 5.7 step 4), in the body's own encoding (Karmada's cluster plugin decodes JSON, YAML and protobuf alike).
 * The body is bytes throughout: one that is not understood, or needs no change, goes on exactly as it came
 * (CBOR, not decoded here; a body that does not parse).
 */
export function rewriteUpdateBody(body: Buffer, cluster: string, contentType?: string): Buffer {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (media === 'application/vnd.kubernetes.protobuf') {
    return editProtobufMeta(body, { resourceVersion: (rv) => memberRV(rv, cluster), dropAnnotations: [CacheSourceAnnotation] }) ?? body;
  }
  if (media === 'application/cbor' || media === 'application/cbor-seq') return body;
  // Anything else is tried as JSON, as Karmada decodes the kinds its scheme does not know.
  const yaml = media === 'application/yaml';
  let o: unknown;
  try {
    o = yaml ? parseYaml(body.toString('utf8')) : JSON.parse(body.toString('utf8'));
  } catch {
    return body;
  }
  if (!unmarkObject(o, cluster)) return body;
  return Buffer.from(yaml ? stringifyYaml(o) : JSON.stringify(o), 'utf8');
}

/** A request the cluster proxy handles as if it had come for `clusters/<cluster>/proxy<inner>`. */
function asClusterProxyRequest(req: IncomingMessage, cluster: string, innerWithQuery: string, body: Buffer | undefined): IncomingMessage {
  const url = `/apis/cluster.karmada.io/v1alpha1/clusters/${encodeURIComponent(cluster)}/proxy${innerWithQuery}`;
  if (body === undefined) {
    req.url = url;
    return req;
  }
  const r = Readable.from([body]) as unknown as IncomingMessage;
  Object.assign(r, { method: req.method, url, headers: { ...req.headers, 'content-length': String(body.length) }, rawHeaders: req.rawHeaders, httpVersion: req.httpVersion, socket: req.socket });
  return r;
}

async function forwardToHost(host: Upstream | undefined, req: IncomingMessage, res: ServerResponse, user: UserInfo, innerWithQuery: string, signal: AbortSignal): Promise<void> {
  if (!host) throw new StatusError(503, 'the proxy has no connection to the host apiserver for requests that are not cached');
  const drop = (h: string) => h === 'authorization' || h.startsWith('impersonate-') || h.startsWith('x-remote-');
  // Karmada passes its own identity; we impersonate the caller, so the host's RBAC decides (spec 5.8 note).
  const o = await host.options(req.method ?? 'GET', innerWithQuery, { ...forwardableHeaders(req.headers, drop), ...impersonationHeaders(user) });
  await new Promise<void>((resolve) => {
    const up = send({ ...o, signal });
    up.once('response', (answer: IncomingMessage) => {
      res.writeHead(answer.statusCode ?? 502, responseHeaders(answer));
      res.flushHeaders();
      answer.pipe(res);
      answer.once('end', resolve);
      answer.once('error', () => (res.destroy(), resolve()));
    });
    up.once('error', (err) => {
      if (!res.headersSent) sendStatus(res, 503, `error trying to reach the host apiserver: ${err.message}`);
      else res.destroy();
      resolve();
    });
    req.pipe(up);
  });
}

const CACHE_VERBS = new Set(['get', 'list', 'watch']);

/** The request inside `/proxying/<name>/proxy/<inner>`, and whether a registry names its type. */
function innerRequest(req: IncomingMessage, cache: MultiClusterCache): { inner: string; search: string; query: URLSearchParams; info: RequestInfo; registered: boolean } {
  const { path, query, search } = splitPath(req);
  const parts = path.slice(PROXY_PREFIX.length).split('/');
  if (parts.length < 2 || !parts[0] || parts[1] !== 'proxy') throw new StatusError(404, 'the server could not find the requested resource');
  const inner = '/' + parts.slice(2).join('/');
  const info = requestInfo(req.method ?? 'GET', inner + search);
  const registered = info.isResourceRequest && !!info.resource && cache.isRegistered(info.apiGroup, info.apiVersion, info.resource);
  return { inner, search, query, info, registered };
}

/** `/proxying/<name>/proxy/<inner>`: the cache, cluster and karmada plugins in that order (spec 5.1). */
export function proxyHandler(deps: SearchDeps): ApiHandler {
  return {
    prefix: PROXY_PREFIX,
    // exec, attach, port-forward of a registered kind: to the member holding the pod, through the cluster proxy
    async upgrade(req, socket, head, ctx) {
      const { inner, search, info, registered } = innerRequest(req, deps.cache);
      if (!registered || !info.name) throw new StatusError(400, `${inner} does not support connection upgrades through the proxy: only subresources of a registered kind's named object do`);
      if (!deps.clusterProxy?.upgrade) throw new StatusError(503, 'the proxy has no cluster proxy to send upgrades to the members through');
      const { entry } = owner(deps.cache.entriesFor(info.apiGroup, info.apiVersion, info.resource!), info);
      const forwarded = asClusterProxyRequest(req, entry.cluster, inner + search, undefined);
      return deps.clusterProxy.upgrade(forwarded, socket, head, { ...ctx, info: { ...ctx.info, resource: 'clusters', name: entry.cluster, subresource: 'proxy' } });
    },
    async handle(req, res, ctx) {
      const { inner, search, query, info, registered } = innerRequest(req, deps.cache);
      if (!registered) return forwardToHost(deps.host, req, res, ctx.user, inner + search, ctx.signal);
      const entries = deps.cache.entriesFor(info.apiGroup, info.apiVersion, info.resource!);
      if (!info.subresource && CACHE_VERBS.has(info.verb)) {
        let f: Filters;
        try {
          f = filters(query);
        } catch (e) {
          throw new StatusError(400, errorMessage(e));
        }
        const warnings = staleWarnings(deps.cache.unhealthyFor(info.apiGroup, info.apiVersion, info.resource!));
        if (info.verb === 'watch') return watchFromCache(res, ctx, deps, entries, info, f, query, warnings);
        const table = tableVersion(req.headers.accept);
        if (info.verb === 'get') {
          let found: ReturnType<typeof owner>;
          try {
            found = owner(entries, info);
          } catch (e) {
            // Not in the cache while a cluster's objects are stale or missing: it may be there, so the answer says which.
            if (e instanceof StatusError && e.code === 404 && warnings.length) return notFoundWithWarnings(res, e, warnings);
            throw e;
          }
          const { entry, object } = found;
          if (table) return writeTable(res, table, {}, [object], warnings);
          const text = object.withResourceVersion(encodeMultiClusterRV({ zero: false, byCluster: new Map([[entry.cluster, object.resourceVersion]]) }));
          const headers: Record<string, string | string[]> = { 'Content-Type': 'application/json', 'Content-Length': String(text.length) };
          if (warnings.length) headers.Warning = warnings;
          res.writeHead(200, headers);
          return void res.end(text, 'latin1');
        }
        const requested = decodeMultiClusterRV(query.get('resourceVersion'));
        const rv = listRV(requested, entries);
        const page = listEntries(entries, f, nativeTarget(info), query.get('continue'), rv, true);
        const kind = page.first?.info ? `${page.first.info.kind}List` : 'List';
        const apiVersion = page.first ? apiVersionOf(info) : 'v1';
        const meta: Record<string, string> = { resourceVersion: rv, ...(page.continueToken ? { continue: page.continueToken } : {}) };
        if (table) return writeTable(res, table, meta, page.items, warnings);
        return writeList(res, kind, apiVersion, meta, page.items.map((o) => o.json), warnings);
      }
      // The cluster plugin: to the one member that holds the object, as the caller.
      if (info.verb === 'create' && !info.name) {
        const gr = info.apiGroup ? `${info.resource}.${info.apiGroup}` : info.resource;
        throw new StatusError(405, `create is not supported on resources of kind "${gr}"`, { group: info.apiGroup, kind: info.resource });
      }
      if (!info.name) throw new StatusError(404, `${info.resource} not found: the proxy sends a request to the one cluster holding the named object, and this request names none`);
      const { entry } = owner(entries, info);
      if (!deps.clusterProxy) throw new StatusError(503, 'the proxy has no cluster proxy to send writes to the members through');
      const body = info.verb === 'update' ? rewriteUpdateBody(await readBytes(req), entry.cluster, req.headers['content-type']) : undefined;
      const forwarded = asClusterProxyRequest(req, entry.cluster, inner + search, body);
      const proxyInfo: RequestInfo = { ...ctx.info, resource: 'clusters', name: entry.cluster, subresource: 'proxy' };
      return deps.clusterProxy.handle(forwarded, res, { ...ctx, info: proxyInfo });
    },
  };
}

/** Everything karmada-search mounts on the aggregated server, and its discovery. */
export function searchHandlers(deps: SearchDeps): { handlers: ApiHandler[]; discovery: ApiGroupResources[] } {
  return { handlers: [searchHandler(deps), proxyHandler(deps)], discovery: [SEARCH_DISCOVERY] };
}
