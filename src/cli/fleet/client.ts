/**
 * The fleet commands' HTTP client (get, logs, exec, describe): the host kubeconfig's credentials, and a
 * path prefix so that one member is reached as karmadactl reaches it, through the host at
 * `/apis/cluster.karmada.io/v1alpha1/clusters/<name>/proxy/` (its discovery and REST mapping are then the
 * member's). Responses are handed back as streams: logs and watches are printed as they arrive.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { logV } from '../verbosity.js';

export type Query = Record<string, string | number | boolean | string[] | undefined>;

export interface OpenOptions {
  query?: Query;
  accept?: string;
  signal?: AbortSignal;
  /**
   * The client's timeout covers reading the whole body too (a list, a named get). Without it the
   * deadline ends when the headers come: a watch, `logs -f` and `--raw` stream for as long as they last.
   */
  whole?: boolean;
  /** A request body (JSON, or a patch), sent with `contentType` (default application/json). */
  body?: string;
  contentType?: string;
}

/** A request the server did not answer within `--request-timeout`. */
export class RequestTimeoutError extends Error {
  constructor(readonly method: string, readonly url: string, readonly ms: number) {
    super(`${method} ${url}: the server did not answer within ${formatDuration(ms)} (--request-timeout; 0 waits forever)`);
    this.name = 'RequestTimeoutError';
  }
}

/** `10s`, `1m30s`, `500ms`: a timeout as Go prints a duration. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}

/** The Status a Kubernetes apiserver answers an error with (or one made up from the HTTP status). */
export interface ApiStatus {
  code: number;
  reason: string;
  message: string;
}

/** An answer that is not 2xx: kubectl prints it as `Error from server (Reason): message`. */
export class ServerError extends Error {
  constructor(readonly status: ApiStatus) {
    super(status.reason ? `Error from server (${status.reason}): ${status.message}` : `Error from server: ${status.message}`);
    this.name = 'ServerError';
  }
}

export const isNotFound = (e: unknown): boolean => e instanceof ServerError && e.status.code === 404;

/** client-go's reasons for an error answer that carries no Status of its own. */
const REASONS: Record<number, string> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed', 409: 'Conflict',
  410: 'Gone', 422: 'Invalid', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable', 504: 'Timeout',
};

/** The Status of an error answer: the server's own when its body is one, else made from the code and text. */
export function statusOf(code: number, body: string): ApiStatus {
  try {
    const s = JSON.parse(body) as { kind?: string; reason?: string; message?: string; code?: number };
    if (s && s.kind === 'Status') return { code: s.code ?? code, reason: s.reason ?? REASONS[code] ?? '', message: s.message ?? body.trim() };
  } catch {
    /* not JSON: a proxy's or aggregator's text answer */
  }
  const text = body.trim();
  return { code, reason: REASONS[code] ?? '', message: text || (code === 404 ? 'the server could not find the requested resource' : `an error on the server (${code}) has prevented the request from succeeding`) };
}

export async function readBody(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The URL query of a request: repeated keys (exec's `command`) from arrays. */
export function searchOf(query: Query | undefined): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) p.append(k, String(one));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** The path that reaches a member through the host's cluster proxy. */
export const clusterProxyPrefix = (cluster: string) => `/apis/cluster.karmada.io/v1alpha1/clusters/${encodeURIComponent(cluster)}/proxy`;

export class FleetClient {
  private readonly server: URL;

  /**
   * `prefix` is put before every path: the cluster proxy of one member, or nothing for the host itself.
   * `timeoutMs` bounds each request (`--request-timeout`; 0: none).
   */
  constructor(
    private readonly kc: KubeConfig,
    readonly prefix = '',
    readonly timeoutMs = 0,
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('--kubeconfig: the kubeconfig has no current cluster; set current-context or pass --context');
    this.server = new URL(cluster.server);
  }

  /** The same credentials, reaching one member through the host's cluster proxy. */
  forCluster(name: string): FleetClient {
    return new FleetClient(this.kc, clusterProxyPrefix(name), this.timeoutMs);
  }

  /** The same credentials and timeout under another path prefix: `''` is the host itself. */
  withPrefix(prefix: string): FleetClient {
    return new FleetClient(this.kc, prefix, this.timeoutMs);
  }

  /** The full URL of a path (the server's own path, e.g. a kubeconfig pointing at a proxy, is kept). */
  url(path: string, query?: Query, protocol?: string): URL {
    const base = this.server.pathname.replace(/\/+$/, '');
    const u = new URL(`${base}${this.prefix}${path.startsWith('/') ? path : `/${path}`}${searchOf(query)}`, this.server);
    if (protocol) u.protocol = protocol;
    return u;
  }

  /** The TLS settings and credential headers of the kubeconfig, for a request to `url` (also used by exec's WebSocket). */
  async requestOptions(method: string, url: URL, accept?: string): Promise<RequestOptions> {
    const o: RequestOptions = {
      method,
      protocol: url.protocol === 'wss:' ? 'https:' : url.protocol === 'ws:' ? 'http:' : url.protocol,
      hostname: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      headers: { accept: accept ?? 'application/json' },
    };
    await this.kc.applyToHTTPSOptions(o);
    return o;
  }

  /** Sends a request and resolves with the response as soon as its headers came: the body is the caller's to read. */
  async open(method: string, path: string, opts: OpenOptions = {}): Promise<IncomingMessage> {
    const url = this.url(path, opts.query);
    const o = await this.requestOptions(method, url, opts.accept);
    logV(6, `${method} ${url.href}`);
    // A member that accepts the connection and never answers (a frozen apiserver) would hold the command
    // forever: the deadline destroys the request, and a body being read, with a RequestTimeoutError.
    const ms = this.timeoutMs;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let response: IncomingMessage | undefined;
      const req = (o.protocol === 'http:' ? httpRequest : httpsRequest)({ ...o, signal: opts.signal }, (res) => {
        response = res;
        if (timer && !opts.whole) clearTimeout(timer);
        else if (timer) res.once('close', () => clearTimeout(timer));
        resolve(res);
      });
      if (ms > 0) {
        timer = setTimeout(() => {
          const e = new RequestTimeoutError(method, `${url.pathname}${url.search}`, ms);
          response?.destroy(e);
          req.destroy(e);
        }, ms);
        timer.unref();
      }
      req.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      if (opts.body !== undefined) {
        req.setHeader('content-type', opts.contentType ?? 'application/json');
        req.setHeader('content-length', Buffer.byteLength(opts.body));
      }
      req.end(opts.body);
    });
  }

  /** A 2xx response's stream; any other answer is thrown as a ServerError. */
  async stream(path: string, opts: OpenOptions = {}): Promise<IncomingMessage> {
    const res = await this.open('GET', path, opts);
    const code = res.statusCode ?? 0;
    if (code >= 200 && code < 300) return res;
    const status = statusOf(code, await readBody(res));
    if (code === 404) {
      const missing = await this.unregisteredApiService(`${this.prefix}${path}`);
      if (missing) throw new Error(missing);
    }
    throw new ServerError(status);
  }

  /**
   * Why a 404 of the cluster proxy or of karmada-search is no answer from a member at all: their
   * group-version's APIService is the CRD's own (Local), so the host itself answers every such path with
   * NotFound while `get clusters` lists the Cluster. Undefined when the path is neither, the APIService
   * routes to a server, or it cannot be read.
   */
  private async unregisteredApiService(fullPath: string): Promise<string | undefined> {
    const name = /^\/apis\/cluster\.karmada\.io\/v1alpha1\/clusters\/[^/]+\/proxy(\/|$)/.test(fullPath)
      ? 'v1alpha1.cluster.karmada.io'
      : /^\/apis\/search\.karmada\.io\/v1alpha1\/(search|proxying)\//.test(fullPath)
        ? 'v1alpha1.search.karmada.io'
        : undefined;
    if (!name) return undefined;
    try {
      const s = await this.withPrefix('').get<{ spec?: { service?: unknown } }>(`/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
      if (s.spec?.service) return undefined;
    } catch {
      return undefined;
    }
    return `the aggregated API server is not registered: APIService ${name} is served by the host itself (the CRD's, Local), which has no ${name.includes('cluster') ? 'clusters/{name}/proxy' : 'search API'}; install it as deploy/aggregated-api/README.md says, or run the controller with --aggregated-apiserver`;
  }

  /**
   * A write (POST, PUT, PATCH, DELETE) with a JSON answer: the object the server stored (or, under
   * dryRun=All, would store); any other answer is thrown as a ServerError.
   */
  async send<T = any>(method: string, path: string, opts: OpenOptions = {}): Promise<T> {
    const res = await this.open(method, path, { ...opts, whole: true });
    const code = res.statusCode ?? 0;
    const text = await readBody(res);
    if (code < 200 || code >= 300) throw new ServerError(statusOf(code, text));
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** GET a JSON document. */
  async get<T = any>(path: string, opts: OpenOptions = {}): Promise<T> {
    const res = await this.stream(path, { ...opts, whole: true });
    const text = await readBody(res);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

