import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { RateLimiterClock } from '../../src/kube/rate-limiter.js';

/** A clock moved by hand: timers fire in order as it advances. */
export function virtualClock(): RateLimiterClock & { advance(ms: number): Promise<void>; weak(): boolean[] } {
  let t = 0;
  let timers: Array<{ at: number; fn: () => void; weak: boolean }> = [];
  return {
    now: () => t,
    after(ms, fn, weak) {
      const timer = { at: t + ms, fn, weak: weak ?? false };
      timers.push(timer);
      return () => (timers = timers.filter((x) => x !== timer));
    },
    /** Whether each pending timer would let the process exit. */
    weak: () => timers.map((x) => x.weak),
    async advance(ms) {
      const end = t + ms;
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const next = timers[0];
        if (!next || next.at > end) break;
        timers.shift();
        t = next.at;
        next.fn();
        await Promise.resolve();
      }
      t = end;
      await Promise.resolve();
    },
  };
}

/**
 * A loopback server answering `{"ok":true}` to everything, the paths it saw (without their query), each
 * request as it came (method, full URL, user agent), and a kubeconfig for it.
 */
export async function okServer() {
  const seen: string[] = [];
  const requests: { method: string; url: string; userAgent: string | undefined }[] = [];
  const server: Server = createServer((req, res) => {
    seen.push((req.url ?? '').split('?')[0]!);
    requests.push({ method: req.method ?? '', url: req.url ?? '', userAgent: req.headers['user-agent'] });
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { seen, requests, server, kc: loopbackKubeConfig(server) };
}

/** A kubeconfig for a listening loopback HTTP server, with no credentials. */
export function loopbackKubeConfig(server: Server): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

/** Resolves once `n` requests wait in the bucket: a request reaches the limiter only after its async set-up. */
export async function whenWaiting(limiter: { waiting: number }, n: number): Promise<void> {
  while (limiter.waiting < n) await new Promise((r) => setImmediate(r));
}
