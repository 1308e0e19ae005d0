import { describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { clientLimitsFromFlags } from '../../src/cli/client-flags.js';
import { apiserverOptionsFromFlags } from '../../src/cli/commands/apiserver.js';
import { createLogger } from '../../src/runtime/log.js';
import { rateLimiterFor, TokenBucket, type RateLimiterClock } from '../../src/kube/rate-limiter.js';
import { observeRateLimiter, RestClient } from '../../src/kube/rest.js';

/** A clock moved by hand: timers fire in order as it advances. */
function virtualClock(): RateLimiterClock & { advance(ms: number): Promise<void> } {
  let t = 0;
  let timers: Array<{ at: number; fn: () => void }> = [];
  return {
    now: () => t,
    after(ms, fn) {
      const timer = { at: t + ms, fn };
      timers.push(timer);
      return () => (timers = timers.filter((x) => x !== timer));
    },
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

describe('TokenBucket', () => {
  it('lets a burst through at once, then one request per 1/qps seconds', async () => {
    const clock = virtualClock();
    const b = new TokenBucket({ qps: 10, burst: 3, clock });
    const done: number[] = [];
    const taken = Array.from({ length: 5 }, () => b.wait());
    // The first three find tokens; the last two learn from the call itself that they wait.
    expect(taken.map((t) => t.queued)).toEqual([false, false, false, true, true]);
    const waits = taken.map((t, i) => t.ready.then((ms) => done.push(i) && ms));
    await Promise.resolve();
    expect(done).toEqual([0, 1, 2]);
    expect(b.waiting).toBe(2);
    await clock.advance(99);
    expect(done).toEqual([0, 1, 2]);
    await clock.advance(1);
    expect(done).toEqual([0, 1, 2, 3]);
    await clock.advance(100);
    expect(done).toEqual([0, 1, 2, 3, 4]);
    expect(await Promise.all(waits)).toEqual([0, 0, 0, 100, 200]);
    expect(b.waiting).toBe(0);
  });

  it('refills up to burst while idle, not beyond', async () => {
    const clock = virtualClock();
    const b = new TokenBucket({ qps: 1, burst: 2, clock });
    await b.wait().ready;
    await b.wait().ready;
    await clock.advance(60_000);
    let n = 0;
    for (let i = 0; i < 3; i++) void b.wait().ready.then(() => n++);
    await Promise.resolve();
    expect(n).toBe(2);
    expect(b.waiting).toBe(1);
  });

  it('serves waiters in arrival order: a newcomer does not take a token ahead of them', async () => {
    const clock = virtualClock();
    const b = new TokenBucket({ qps: 2, burst: 1, clock });
    const order: string[] = [];
    await b.wait().ready;
    void b.wait().ready.then(() => order.push('first'));
    await clock.advance(500);
    // 'first' took the token the clock gave: the bucket is empty again, so the newcomer queues.
    const second = b.wait();
    expect(second.queued).toBe(true);
    void second.ready.then(() => order.push('second'));
    await clock.advance(500);
    expect(order).toEqual(['first', 'second']);
  });
});

describe('rateLimiterFor', () => {
  it('makes none for a negative qps (unlimited, as client-go) and refuses 0 and a bad burst', () => {
    expect(rateLimiterFor(-1, 10)).toBeUndefined();
    expect(() => rateLimiterFor(0, 10)).toThrow(/qps 0/);
    expect(() => rateLimiterFor(40, 0)).toThrow(/burst/);
    expect(rateLimiterFor(40, 60)).toBeInstanceOf(TokenBucket);
  });
});

describe('RestClient with a token bucket', () => {
  it('sends a request only once it has a token, and reports the wait', async () => {
    const seen: string[] = [];
    const server: Server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const clock = virtualClock();
    const observed: Array<[number, number | undefined]> = [];
    observeRateLimiter((_host, waiting, ms) => observed.push([waiting, ms]));
    try {
      const rest = new RestClient(kc, { limiter: new TokenBucket({ qps: 2, burst: 1, clock }) });
      expect(await rest.request('GET', '/a')).toEqual({ ok: true });
      const second = rest.request('GET', '/b');
      // The bucket is empty: nothing reaches the server until the clock gives the next token.
      await new Promise((r) => setTimeout(r, 50));
      expect(seen).toEqual(['/a']);
      expect(observed).toEqual([[1, undefined]]);
      await clock.advance(500);
      expect(await second).toEqual({ ok: true });
      expect(seen).toEqual(['/a', '/b']);
      expect(observed).toEqual([
        [1, undefined],
        [-1, 500],
      ]);
    } finally {
      observeRateLimiter(undefined);
      await new Promise((r) => server.close(r));
    }
  });
});

describe('--kube-api-qps and friends', () => {
  it("default to Karmada's 40/60 and refuse what client-go would not take", () => {
    expect(clientLimitsFromFlags({ kubeApiQps: '40', kubeApiBurst: '60', clusterApiQps: '200', clusterApiBurst: '400' })).toEqual({ host: { qps: 40, burst: 60 }, cluster: { qps: 200, burst: 400 } });
    expect(() => clientLimitsFromFlags({ kubeApiQps: 'fast', kubeApiBurst: '60', clusterApiQps: '40', clusterApiBurst: '60' })).toThrow(/--kube-api-qps takes a number/);
    expect(() => clientLimitsFromFlags({ kubeApiQps: '40', kubeApiBurst: '60', clusterApiQps: '40', clusterApiBurst: '0' })).toThrow(/--cluster-api-burst takes a whole number of at least 1/);
    expect(clientLimitsFromFlags({ kubeApiQps: '-1', kubeApiBurst: '1', clusterApiQps: '40', clusterApiBurst: '60' }).host).toEqual({ qps: -1, burst: 1 });
  });
});

describe('apiserver --kube-api-qps', () => {
  const base = { tlsCertFile: 'tls.crt', tlsPrivateKeyFile: 'tls.key', securePort: '6443', bindAddress: '127.0.0.1' };
  const log = createLogger({ level: 'error', format: 'json' });
  it("limits the server's host client when given, with the other flag's default, and names a bad flag", () => {
    expect(apiserverOptionsFromFlags({ ...base, kubeApiQps: '40', kubeApiBurst: '60' }, log).hostLimit).toEqual({ qps: 40, burst: 60 });
    expect(apiserverOptionsFromFlags({ ...base, kubeApiQps: '5' }, log).hostLimit).toEqual({ qps: 5, burst: 60 });
    // controller --aggregated-apiserver passes no such flag: no limiter
    expect(apiserverOptionsFromFlags(base, log).hostLimit).toBeUndefined();
    expect(() => apiserverOptionsFromFlags({ ...base, kubeApiQps: '40', kubeApiBurst: '1.5' }, log)).toThrow(/--kube-api-burst takes a whole number/);
  });
});
