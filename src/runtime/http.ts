import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Metrics } from './metrics.js';

export interface ProbeServerOptions {
  port: number;
  bindAddress?: string;
  metrics: Metrics;
  /** Live: the process is not wedged. */
  healthy: () => boolean;
  /** Ready: informers synced (and, for a standby, that it can take over). */
  ready: () => boolean;
}

/** Plain-HTTP /metrics, /healthz and /readyz for the controller (the webhook serves its own over HTTPS). */
export function startProbeServer(opts: ProbeServerOptions): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET' }).end('method not allowed\n');
      return;
    }
    if (path === '/healthz' || path === '/readyz') {
      const ok = path === '/healthz' ? opts.healthy() : opts.ready();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok\n' : 'not ready\n');
      return;
    }
    if (path === '/metrics') {
      opts.metrics.registry
        .metrics()
        .then((text) => res.writeHead(200, { 'content-type': opts.metrics.registry.contentType }).end(text))
        .catch((err: Error) => res.writeHead(500).end(`${err.message}\n`));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics, /healthz or /readyz\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.bindAddress ?? '0.0.0.0', () => resolve(server));
  });
}

/**
 * Stops accepting, closes idle keep-alive connections and resolves once the server is closed. Streams that
 * never go idle (watches, upgraded connections) are passed in `streams` and ended, or the close never finishes.
 */
export function closeServer(server: Pick<Server, 'close' | 'closeIdleConnections'>, streams: Iterable<Duplex> = []): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    for (const s of streams) s.destroy();
  });
}
