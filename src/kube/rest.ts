import { Agent as HttpsAgent, request as httpsRequest, type AgentOptions, type RequestOptions } from 'node:https';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { VERSION } from '../version.js';
import type { TokenBucket, TokenPriority } from './rate-limiter.js';

/**
 * A small JSON REST client over the kubeconfig's credentials. The controller talks to the apiserver in
 * plain JSON (no generated models), so nothing is renamed or dropped on the way, whatever the kind.
 */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const isApiNotFound = (e: unknown) => e instanceof ApiError && e.code === 404;
export const isApiConflict = (e: unknown) => e instanceof ApiError && e.code === 409;
export const isApiGone = (e: unknown) => e instanceof ApiError && e.code === 410;

export type Query = Record<string, string | number | boolean | undefined>;

/** `code` is the HTTP status, undefined when no answer came. */
export type RequestObserver = (code: number | undefined, method: string, host: string) => void;

let requestObserver: RequestObserver | undefined;

/** Told about every request of every client in the process (rest_client_requests_total), as client-go's one registry is. */
export function observeRequests(fn: RequestObserver | undefined): void {
  requestObserver = fn;
}

/**
 * A request's wait for its client's rate limiter (rest_client_rate_limiter_duration_seconds): `waiting` is +1 when
 * it starts waiting, -1 when it got its token (or gave up waiting: no `waitedMs`). Low-lane waits (Events) are
 * counted as waiting but give no `waitedMs`: they last as long as the other requests keep the bucket busy, so
 * the histogram stays the wait of the requests the propagation needs, the one --kube-api-qps is tuned by.
 */
export type RateLimiterObserver = (host: string, waiting: 1 | -1, waitedMs?: number) => void;

let rateLimiterObserver: RateLimiterObserver | undefined;

/** Told about every request that had to wait for its client's token bucket (--kube-api-qps, --cluster-api-qps). */
export function observeRateLimiter(fn: RateLimiterObserver | undefined): void {
  rateLimiterObserver = fn;
}

/** The field manager of every create, update and patch that does not name its own (client-go's comes from its user agent). */
export const FIELD_MANAGER = 'karmada-lite';

/** As client-go's `<binary>/<version> (<os>/<arch>)`: what audit logs and the server's metrics name the client by. */
const USER_AGENT = `${FIELD_MANAGER}/v${VERSION} (${process.platform}/${process.arch})`;

/** The verbs whose options carry a fieldManager (CreateOptions, UpdateOptions, PatchOptions). */
const MUTATING = new Set(['POST', 'PUT', 'PATCH']);

export interface RestClientOptions {
  /** client-go's QPS/Burst: every request, a watch's start included, takes a token first. */
  limiter?: TokenBucket;
}

export interface RequestOpts {
  query?: Query;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The token bucket's lane: 'low' waits until no other request of this client waits (best-effort writes: Events). */
  priority?: TokenPriority;
  /** Request headers beside the client's own (e.g. an Accept of aggregated discovery, If-None-Match). */
  headers?: Record<string, string>;
  /** Told the answer's headers (e.g. its ETag) before its body is read. */
  onResponseHeaders?: (headers: IncomingHttpHeaders) => void;
}

export interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

/** An https.Agent that keeps connections open, with the TLS settings the kubeconfig gave this request. */
function keepAliveAgent(o: RequestOptions): HttpsAgent {
  const tls: AgentOptions = { keepAlive: true, keepAliveMsecs: 30_000 };
  for (const k of ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const) {
    if (o[k] !== undefined) (tls as Record<string, unknown>)[k] = o[k];
  }
  return new HttpsAgent(tls);
}

export class RestClient {
  private readonly server: URL;
  private readonly discovery = new Map<string, Promise<ApiResource[]>>();
  /** `deployments/status` and friends, per group/version, filled by discovery. */
  private readonly subresources = new Map<string, Set<string>>();
  /**
   * One keep-alive agent for the client's life. client-node's applyToHTTPSOptions makes a new agent (so a new
   * TCP and TLS handshake) per request, which was most of the controller's CPU; credentials in headers are
   * still applied per request, so rotated tokens are picked up.
   */
  private agent?: RequestOptions['agent'];

  constructor(
    private readonly kc: KubeConfig,
    private readonly clientOpts: RestClientOptions = {},
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster; set current-context');
    this.server = new URL(cluster.server);
  }

  private async options(method: string, path: string, opts: RequestOpts): Promise<RequestOptions> {
    const url = new URL(path, this.server);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    // managedFields name who wrote what; without a manager the server records "unknown". A caller's own
    // (server-side apply must give one) is kept.
    if (MUTATING.has(method) && !url.searchParams.has('fieldManager')) url.searchParams.set('fieldManager', FIELD_MANAGER);
    const o: RequestOptions = {
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      headers: { accept: 'application/json', 'user-agent': USER_AGENT, ...opts.headers },
    };
    await this.kc.applyToHTTPSOptions(o);
    if (url.protocol === 'https:') o.agent = this.agent ??= this.kc.getCurrentCluster()?.proxyUrl ? o.agent : keepAliveAgent(o);
    return o;
  }

  /**
   * Takes the request's token, before its options are made: a waiting request then holds no copy of the
   * kubeconfig's certificates (client-node decodes them anew for every request), which matters when thousands
   * of Events wait in the low lane. Undefined when the token was there at once.
   */
  private takeToken(signal?: AbortSignal, priority?: TokenPriority): Promise<void> | undefined {
    const limiter = this.clientOpts.limiter;
    if (!limiter) return undefined;
    const { queued, ready } = limiter.wait({ priority, signal });
    if (!queued) return undefined;
    // Only requests that found the bucket empty are counted as waiting, as client-go's metric only sees waits.
    const observe = rateLimiterObserver;
    const host = this.server.host;
    observe?.(host, 1);
    return ready.then(
      (ms) => observe?.(host, -1, priority === 'low' ? undefined : ms),
      (e: unknown) => {
        observe?.(host, -1);
        throw e;
      },
    );
  }

  private sendObserved(o: RequestOptions, body: string | undefined, contentType: string | undefined, signal?: AbortSignal, timeoutMs?: number): Promise<IncomingMessage> {
    const observe = requestObserver;
    const sent = this.sendOnce(o, body, contentType, signal, timeoutMs);
    if (!observe) return sent;
    const method = o.method ?? 'GET';
    return sent.then(
      (res) => (observe(res.statusCode, method, this.server.host), res),
      (e: unknown) => {
        observe(undefined, method, this.server.host);
        throw e;
      },
    );
  }

  private sendOnce(o: RequestOptions, body: string | undefined, contentType: string | undefined, signal?: AbortSignal, timeoutMs?: number): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const headers = { ...(o.headers as Record<string, string>) };
      if (body !== undefined) {
        headers['content-type'] = contentType ?? 'application/json';
        headers['content-length'] = String(Buffer.byteLength(body));
      }
      const req = (o.protocol === 'http:' ? httpRequest : httpsRequest)({ ...o, headers, signal }, resolve);
      req.on('error', reject);
      if (timeoutMs) req.setTimeout(timeoutMs, () => req.destroy(new Error(`request timed out after ${timeoutMs} ms`)));
      req.end(body);
    });
  }

  async request<T = any>(method: string, path: string, opts: RequestOpts = {}): Promise<T> {
    await this.takeToken(opts.signal, opts.priority);
    const o = await this.options(method, path, opts);
    const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    const res = await this.sendObserved(o, body, opts.contentType, opts.signal, opts.timeoutMs ?? 30_000);
    opts.onResponseHeaders?.(res.headers);
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) {
      if (!text) return undefined as T;
      // Health endpoints answer in plain text.
      return (res.headers['content-type']?.includes('json') ? JSON.parse(text) : text) as T;
    }
    let reason = '';
    let message = text;
    try {
      const s = JSON.parse(text);
      reason = s.reason ?? '';
      message = s.message ?? text;
    } catch {
      /* not a Status object: keep the raw text */
    }
    throw new ApiError(status, reason, `${method} ${path}: ${status} ${reason ? reason + ': ' : ''}${message}`);
  }

  /**
   * Streams a watch: one callback per event line. Resolves when the server closes the stream (it does so
   * after its timeout), rejects on a transport error; aborting the signal ends it quietly.
   */
  async watch(path: string, query: Query, onEvent: (type: string, object: any) => void, signal?: AbortSignal): Promise<void> {
    await this.takeToken(signal);
    const o = await this.options('GET', path, { query: { ...query, watch: true } });
    const silence = watchSilenceMs(query.timeoutSeconds);
    const res = await this.sendObserved(o, undefined, undefined, signal, silence);
    if ((res.statusCode ?? 0) >= 300) {
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      let reason = '';
      try {
        reason = JSON.parse(Buffer.concat(chunks).toString('utf8')).reason ?? '';
      } catch {
        /* keep empty */
      }
      throw new ApiError(res.statusCode ?? 0, reason, `watch ${path}: ${res.statusCode}`);
    }
    let silent = false;
    const onSilence = () => (silent = true);
    // Removed when the watch ends: a kept-alive socket serves other requests afterwards.
    const socket = res.socket;
    socket?.once('timeout', onSilence);
    try {
      await readWatchEvents(res, onEvent);
    } catch (err) {
      if (signal?.aborted) return;
      if (silent) throw new Error(`watch ${path}: nothing from the server for ${silence} ms, past its timeoutSeconds; the connection is given up`);
      throw err;
    } finally {
      socket?.off('timeout', onSilence);
    }
  }

  /** The resources of one group/version, from discovery (cached per client). */
  resources(apiVersion: string): Promise<ApiResource[]> {
    let p = this.discovery.get(apiVersion);
    if (!p) {
      const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
      p = this.request<{ resources: ApiResource[] }>('GET', path).then((r) => {
        this.subresources.set(apiVersion, new Set(r.resources.filter((x) => x.name.includes('/')).map((x) => x.name)));
        return r.resources.filter((x) => !x.name.includes('/'));
      });
      p.catch(() => this.discovery.delete(apiVersion));
      this.discovery.set(apiVersion, p);
    }
    return p;
  }

  /** Closes the kept-alive connections: a client made for credentials that were replaced is not used again. */
  close(): void {
    (this.agent as HttpsAgent | undefined)?.destroy?.();
    this.agent = undefined;
  }

  /** Forgets discovery, e.g. after CRDs were installed. */
  resetDiscovery(): void {
    this.discovery.clear();
  }

  /** Whether the kind has that subresource (e.g. status), from discovery. */
  async hasSubresource(apiVersion: string, kind: string, sub: string): Promise<boolean> {
    const r = await this.resourceFor(apiVersion, kind);
    return this.subresources.get(apiVersion)?.has(`${r.name}/${sub}`) ?? false;
  }

  async resourceFor(apiVersion: string, kind: string): Promise<ApiResource> {
    const r = (await this.resources(apiVersion)).find((x) => x.kind === kind);
    if (!r) throw new ApiError(404, 'NotFound', `the server does not serve ${kind} in ${apiVersion}; is the CRD installed?`);
    return r;
  }

  /** `/apis/apps/v1/namespaces/default/deployments[/name]` and friends. */
  async pathFor(apiVersion: string, kind: string, namespace?: string, name?: string, subresource?: string): Promise<string> {
    const r = await this.resourceFor(apiVersion, kind);
    let p = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    if (r.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
    p += `/${r.name}`;
    if (name) p += `/${encodeURIComponent(name)}`;
    if (subresource) p += `/${subresource}`;
    return p;
  }
}

/**
 * How long a watch may stay silent before it is given up: the server ends a watch after its timeoutSeconds, so
 * no byte and no end for that long and a grace means the link is dead (a frozen or unreachable apiserver, a
 * connection dropped without a reset). The caller then watches again, instead of waiting forever.
 */
export function watchSilenceMs(timeoutSeconds: unknown): number | undefined {
  if (typeof timeoutSeconds !== 'number' || !(timeoutSeconds > 0)) return undefined;
  return Math.round((timeoutSeconds + Math.min(30, Math.max(1, timeoutSeconds / 10))) * 1000);
}

/** Watch events of a response body, one JSON document a line, as they arrive; resolves when the stream ends. */
export async function readWatchEvents(body: AsyncIterable<unknown>, onEvent: (type: string, object: any) => void): Promise<void> {
  let buf = '';
  for await (const chunk of body) {
    buf += (chunk as Buffer).toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      const ev = JSON.parse(line) as { type: string; object: any };
      onEvent(ev.type, ev.object);
    }
  }
}
