/**
 * The controller's dashboard: one read-only HTTP server (GET / HEAD only) with the page, its model as JSON and
 * a server-sent-events stream of that model. Pushes are driven by the caller's change notifications and
 * coalesced: one model per `coalesceMs` at most while changes flow, nothing at all when idle, and nothing
 * computed while no page listens. Every URL the page uses is relative, so it works behind a proxy path
 * prefix (the host apiserver's service proxy, `kubectl port-forward`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { closeServer } from '../runtime/http.js';

export interface DashboardServerOptions {
  port: number;
  /** Default 127.0.0.1: reached through `kubectl port-forward` or the host apiserver's service proxy only. */
  bindAddress?: string;
  /** What the caches hold now, as the page's model (JSON-serialisable). */
  model: () => unknown;
  /** One row's detail by its key (JSON-serialisable), or undefined when there is no such row. */
  detail: (key: string) => unknown;
  /** The events timeline (JSON-serialisable). */
  events: () => unknown;
  /** The whole page for a model; the URLs are relative to the page. */
  page: (model: unknown, urls: DashboardUrls) => string;
  /** Calls `changed` whenever what `model` returns may differ; returns the unsubscribe. */
  subscribe: (changed: () => void) => () => void;
  /** Shortest time between two pushed models (default 250 ms). */
  coalesceMs?: number;
  /** SSE comment interval that keeps proxies from closing an idle stream (default 15 s). */
  heartbeatMs?: number;
}

/** The page's URLs, relative to it. */
export interface DashboardUrls {
  streamUrl: string;
  detailUrl: string;
  eventsUrl: string;
}
const STREAM = 'events';
const DETAIL = 'detail';
const TIMELINE = 'timeline.json';
const URLS: DashboardUrls = { streamUrl: STREAM, detailUrl: DETAIL, eventsUrl: TIMELINE };
// The page is self-contained: nothing but its own inline code and the stream on the same origin.
const PAGE_POLICY = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'";

/** One SSE message: every line of the data is its own `data:` line, as the format requires. */
export function sseMessage(event: string, data: string): string {
  return `event: ${event}\n${data.split('\n').map((l) => `data: ${l}\n`).join('')}\n`;
}

export class DashboardServer {
  private server?: Server;
  private readonly streams = new Set<ServerResponse>();
  private readonly sockets = new Set<Socket>();
  private timer?: NodeJS.Timeout;
  private heartbeat?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  private pending = false;
  private lastPush = 0;
  /** Models pushed to the streams so far (one per coalesced burst, whatever the number of streams). */
  pushes = 0;

  constructor(private readonly opts: DashboardServerOptions) {}

  async start(): Promise<AddressInfo> {
    const server = createServer((req, res) => this.handle(req, res));
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.bindAddress ?? '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.unsubscribe = this.opts.subscribe(() => this.changed());
    this.heartbeat = setInterval(() => {
      for (const s of this.streams) s.write(': heartbeat\n\n');
    }, this.opts.heartbeatMs ?? 15_000);
    this.heartbeat.unref();
    return server.address() as AddressInfo;
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.timer = undefined;
    this.pending = false;
    if (!this.server) return;
    for (const s of this.streams) s.end();
    // SSE responses never go idle: their sockets are ended, or the close waits forever.
    await closeServer(this.server, this.sockets);
    this.server = undefined;
  }

  /** Pushes a pending coalesced model now (tests, and the last state before a stop). */
  flush(): void {
    if (!this.pending) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.push();
  }

  /** Listening pages. */
  get listeners(): number {
    return this.streams.size;
  }

  private changed(): void {
    // Nobody listens: nothing to compute. A page that connects gets the model of that moment.
    if (this.streams.size === 0 || this.pending) return;
    this.pending = true;
    const wait = Math.max(0, this.lastPush + (this.opts.coalesceMs ?? 250) - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.push();
    }, wait);
    this.timer.unref();
  }

  private push(): void {
    this.pending = false;
    this.lastPush = Date.now();
    if (this.streams.size === 0) return;
    const msg = sseMessage('model', JSON.stringify(this.opts.model()));
    this.pushes++;
    for (const s of this.streams) s.write(msg);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const method = req.method ?? 'GET';
    // Read-only: nothing here can change the cluster, so nothing but reads is accepted.
    if (method !== 'GET' && method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed: the dashboard is read-only (GET and HEAD only)\n');
      return;
    }
    // Behind the service proxy the request arrives with what follows .../proxy only: the same paths.
    const [path = '/', query = ''] = (req.url ?? '/').split('?', 2);
    const head = method === 'HEAD';
    const send = (status: number, type: string, body: string, extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...extra });
      res.end(head ? undefined : body);
    };
    if (path === '/' || path === '/index.html') {
      send(200, 'text/html; charset=utf-8', this.opts.page(this.opts.model(), URLS), { 'content-security-policy': PAGE_POLICY, 'x-frame-options': 'DENY' });
      return;
    }
    if (path === '/model.json') return send(200, 'application/json', `${JSON.stringify(this.opts.model())}\n`);
    if (path === `/${DETAIL}`) {
      const key = new URLSearchParams(query).get('row');
      if (!key) return send(400, 'text/plain', 'missing ?row=<Kind/namespace/name>: the template whose detail to show\n');
      const detail = this.opts.detail(key);
      if (detail === undefined) return send(404, 'text/plain', `no template ${key} in this replica's caches now\n`);
      return send(200, 'application/json', `${JSON.stringify(detail)}\n`);
    }
    if (path === `/${TIMELINE}`) return send(200, 'application/json', `${JSON.stringify(this.opts.events())}\n`);
    if (path === '/healthz') return send(200, 'text/plain', 'ok\n');
    if (path === `/${STREAM}`) {
      if (head) return send(200, 'text/event-stream', '');
      this.stream(req, res);
      return;
    }
    send(404, 'text/plain', `not found: the dashboard serves ./ (the page), ./${STREAM} (its stream), ./model.json, ./${DETAIL}?row=<Kind/namespace/name>, ./${TIMELINE} and ./healthz\n`);
  }

  private stream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // nginx and similar proxies buffer responses unless told not to: a stream must arrive as it is written
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    res.flushHeaders();
    req.socket.setNoDelay(true);
    this.streams.add(res);
    res.write(`retry: 2000\n\n${sseMessage('model', JSON.stringify(this.opts.model()))}`);
    const gone = () => this.streams.delete(res);
    req.once('close', gone);
    res.once('close', gone);
  }
}
