import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { clientLimitsFromFlags } from '../../src/cli/client-flags.js';
import { apiserverOptionsFromFlags } from '../../src/cli/commands/apiserver.js';
import { errorMessage } from '../../src/json/error.js';
import { createLogger } from '../../src/runtime/log.js';
import { rateLimiterFor, TokenBucket } from '../../src/kube/rate-limiter.js';
import { observeRateLimiter, RestClient } from '../../src/kube/rest.js';
import { okServer, virtualClock, whenWaiting } from './limiter-helpers.js';

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

describe('TokenBucket low lane', () => {
  /** Queues `names` in order, each in its lane (`low:` prefix), and records the order they get tokens in. */
  function queue(b: TokenBucket, names: string[], served: string[]) {
    return names.map((n) => {
      const t = b.wait({ priority: n.startsWith('low') ? 'low' : 'normal' });
      void t.ready.then(() => served.push(n));
      return t;
    });
  }

  it('serves a low waiter queued before normal ones after them, each lane in arrival order', async () => {
    const clock = virtualClock();
    const b = new TokenBucket({ qps: 10, burst: 1, clock });
    await b.wait().ready;
    const served: string[] = [];
    const taken = queue(b, ['low1', 'low2', 'a', 'b', 'c'], served);
    expect(taken.every((t) => t.queued)).toBe(true);
    expect(b.waiting).toBe(5);
    expect(b.waitingLow).toBe(2);
    for (let i = 0; i < 5; i++) await clock.advance(100);
    expect(served).toEqual(['a', 'b', 'c', 'low1', 'low2']);
    expect(b.waiting).toBe(0);
  });

  it('serves low waiters at the bucket rate when no normal request waits, and a newcomer low one after them', async () => {
    const clock = virtualClock();
    const b = new TokenBucket({ qps: 4, burst: 2, clock });
    const served: string[] = [];
    // The burst is there for low requests too when nobody waits.
    const first = queue(b, ['low1', 'low2', 'low3'], served);
    expect(first.map((t) => t.queued)).toEqual([false, false, true]);
    await Promise.resolve();
    expect(served).toEqual(['low1', 'low2']);
    await clock.advance(249);
    expect(served).toEqual(['low1', 'low2']);
    await clock.advance(1);
    expect(served).toEqual(['low1', 'low2', 'low3']);
    queue(b, ['low4', 'low5'], served);
    await clock.advance(250);
    expect(served).toEqual(['low1', 'low2', 'low3', 'low4']);
    await clock.advance(250);
    expect(served).toEqual(['low1', 'low2', 'low3', 'low4', 'low5']);
    expect(await first[2]!.ready).toBe(250);
  });

  it('lets a normal request take a free token while low ones wait, and serves the low ones as soon as normal traffic pauses', async () => {
    const clock = virtualClock();
    const b = new TokenBucket({ qps: 10, burst: 1, clock });
    await b.wait().ready;
    const served: string[] = [];
    queue(b, ['low1', 'low2'], served);
    // Normal traffic keeps the bucket busy for three tokens: the low lane waits all that time...
    for (const n of ['a', 'b', 'c']) {
      queue(b, [n], served);
      await clock.advance(100);
    }
    expect(served).toEqual(['a', 'b', 'c']);
    // ...and is served once it pauses, one token per 1/qps; a normal one arriving in between still goes first.
    await clock.advance(100);
    expect(served).toEqual(['a', 'b', 'c', 'low1']);
    queue(b, ['d'], served);
    await clock.advance(100);
    await clock.advance(100);
    expect(served).toEqual(['a', 'b', 'c', 'low1', 'd', 'low2']);
  });

  it('takes an aborted waiter out of its lane without a token', async () => {
    const clock = virtualClock();
    const b = new TokenBucket({ qps: 10, burst: 1, clock });
    await b.wait().ready;
    const ac = new AbortController();
    const served: string[] = [];
    const aborted = b.wait({ priority: 'low', signal: ac.signal });
    queue(b, ['low2'], served);
    ac.abort(new Error('stopping'));
    await expect(aborted.ready).rejects.toThrow('stopping');
    expect(b.waiting).toBe(1);
    // The first token goes to the next in line, not to the aborted one.
    await clock.advance(100);
    expect(served).toEqual(['low2']);
    const gone = new AbortController();
    gone.abort();
    await expect(b.wait({ signal: gone.signal }).ready).rejects.toBeDefined();
    expect(b.waiting).toBe(0);
  });

  it('waits on a timer that keeps the process alive only while a normal request waits', async () => {
    const clock = virtualClock();
    const b = new TokenBucket({ qps: 10, burst: 1, clock });
    await b.wait().ready;
    void b.wait({ priority: 'low' }).ready;
    expect(clock.weak()).toEqual([true]);
    void b.wait().ready;
    expect(clock.weak()).toEqual([false]);
    await clock.advance(100);
    // The normal one was served; the low one left waits on a weak timer again.
    expect(clock.weak()).toEqual([true]);
  });

  it('does not hold the exit of a process whose only pending work is a low-lane wait', async () => {
    const module = new URL('../../src/kube/rate-limiter.ts', import.meta.url).pathname;
    // One token a minute: the queued low request would be served a minute later; the process exits first.
    const script = `const { TokenBucket } = await import(${JSON.stringify(module)});
      const b = new TokenBucket({ qps: 1 / 60, burst: 1 });
      await b.wait().ready;
      const w = b.wait({ priority: 'low' });
      void w.ready.then(() => console.log('served'));
      console.log(w.queued ? 'queued' : 'not queued');`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: new URL('../..', import.meta.url).pathname }, (err, stdout, stderr) => (err ? reject(new Error(`${errorMessage(err)}\n${stderr}`)) : resolve(stdout))),
    );
    expect(out.trim()).toBe('queued');
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
    const { seen, server, kc } = await okServer();
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

  it("sends a low-priority request after the normal ones queued behind it, leaves its wait out of the histogram, and gives up on abort", async () => {
    const { seen, server, kc } = await okServer();
    const clock = virtualClock();
    const observed: Array<[number, number | undefined]> = [];
    observeRateLimiter((_host, waiting, ms) => observed.push([waiting, ms]));
    try {
      const limiter = new TokenBucket({ qps: 2, burst: 1, clock });
      const rest = new RestClient(kc, { limiter });
      await rest.request('GET', '/first');
      const ac = new AbortController();
      const dropped = rest.request('POST', '/dropped', { priority: 'low', signal: ac.signal });
      await whenWaiting(limiter, 1);
      const event = rest.request('POST', '/event', { priority: 'low' });
      await whenWaiting(limiter, 2);
      const write = rest.request('PUT', '/write');
      await whenWaiting(limiter, 3);
      ac.abort(new Error('recorder closed'));
      await expect(dropped).rejects.toThrow('recorder closed');
      await clock.advance(500);
      await write;
      await clock.advance(500);
      await event;
      expect(seen).toEqual(['/first', '/write', '/event']);
      // Three waited and were counted as waiting; only the normal one's wait is a duration.
      expect(observed.filter(([w]) => w === 1)).toHaveLength(3);
      expect(observed.filter(([w]) => w === -1)).toEqual([
        [-1, undefined],
        [-1, 500],
        [-1, undefined],
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
