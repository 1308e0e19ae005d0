import { describe, expect, it } from 'vitest';
import { MemberGate, MemberUnresponsiveError } from '../../src/kube/member-gate.js';

class HttpError extends Error {
  constructor(readonly code: number) {
    super(`HTTP ${code}`);
  }
}

/** A request whose outcome the test decides. */
function pending<T = string>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

function gate(opts: { stallMs?: number; maxInFlight?: number } = {}) {
  let t = 1_000;
  const g = new MemberGate({ cluster: 'member2', now: () => t, ...opts }, (e) => e instanceof HttpError);
  return { g, advance: (ms: number) => (t += ms) };
}

describe('MemberGate', () => {
  it('lets writes through while the member answers, errors included', async () => {
    const { g, advance } = gate();
    await expect(g.write(async () => 'ok')).resolves.toBe('ok');
    await expect(g.write(async () => Promise.reject(new HttpError(409)))).rejects.toThrow('HTTP 409');
    advance(60_000);
    await expect(g.write(async () => 'still ok')).resolves.toBe('still ok');
  });

  it('refuses writes at once while a write has waited past stallMs with no answer since it started', async () => {
    const { g, advance } = gate({ stallMs: 2_000 });
    const hung = pending();
    const first = g.write(() => hung.promise);
    advance(1_999);
    // Not yet: a slow answer is not a frozen member.
    const second = pending();
    const p2 = g.write(() => second.promise);
    second.resolve('answered');
    await expect(p2).resolves.toBe('answered');
    // The answer to the second write shows the member alive, though the first still waits.
    advance(5_000);
    await expect(g.write(async () => 'ok')).resolves.toBe('ok');
    // Now nothing answers for stallMs after a write starts.
    const hung2 = pending();
    void g.write(() => hung2.promise).catch(() => undefined);
    advance(2_000);
    const refused = g.write(async () => 'never runs');
    await expect(refused).rejects.toBeInstanceOf(MemberUnresponsiveError);
    await expect(refused).rejects.toThrow(/cluster member2 has not answered a write for 2\.0 s.*retried once it answers/);
    hung.resolve('late');
    await expect(first).resolves.toBe('late');
    // The late answer opens the door again.
    await expect(g.write(async () => 'ok')).resolves.toBe('ok');
    hung2.resolve('x');
  });

  it('after a request ended without an answer, one write goes through as the next attempt and the others are refused while it waits', async () => {
    const { g } = gate();
    await expect(g.write(async () => Promise.reject(new Error('request timed out after 10000 ms')))).rejects.toThrow('timed out');
    expect(g.unresponsive).toBe(true);
    const attempt = pending();
    const p = g.write(() => attempt.promise);
    await expect(g.write(async () => 'x')).rejects.toThrow(/its last request ended without an answer/);
    attempt.resolve('answered');
    await expect(p).resolves.toBe('answered');
    expect(g.unresponsive).toBe(false);
    await expect(g.write(async () => 'x')).resolves.toBe('x');
  });

  it('tracked requests (the probe) are never refused, and their answers count', async () => {
    const { g } = gate();
    await expect(g.write(async () => Promise.reject(new Error('socket hang up')))).rejects.toThrow();
    const hung = pending();
    void g.write(() => hung.promise).catch(() => undefined);
    await expect(g.write(async () => 'x')).rejects.toBeInstanceOf(MemberUnresponsiveError);
    await expect(g.track(async () => 'probe answered')).resolves.toBe('probe answered');
    await expect(g.write(async () => 'x')).resolves.toBe('x');
    hung.resolve('x');
  });

  it('beyond maxInFlight, writes wait for their turn in order (a busy member is not a frozen one)', async () => {
    const { g, advance } = gate({ maxInFlight: 2, stallMs: 2_000 });
    const a = pending();
    const b = pending();
    const pa = g.write(() => a.promise);
    const pb = g.write(() => b.promise);
    const order: string[] = [];
    const pc = g.write(async () => (order.push('c'), 'c'));
    const pd = g.write(async () => (order.push('d'), 'd'));
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([]);
    a.resolve('a');
    await expect(pc).resolves.toBe('c');
    await expect(pd).resolves.toBe('d');
    expect(order).toEqual(['c', 'd']);
    await expect(pa).resolves.toBe('a');
    // b still waits; e takes the last turn, f and g queue, and e gets no answer.
    const e = pending();
    const pe = g.write(() => e.promise);
    const f = pending();
    const pf = g.write(() => f.promise);
    const pg = g.write(async () => 'g');
    advance(2_000);
    e.reject(new Error('request timed out after 10000 ms'));
    await expect(pe).rejects.toThrow('timed out');
    // f goes as the next attempt; g waits for its turn, and runs once b's answer shows the member alive.
    await new Promise((r) => setImmediate(r));
    b.resolve('b');
    await expect(pb).resolves.toBe('b');
    f.resolve('f');
    await expect(pf).resolves.toBe('f');
    await expect(pg).resolves.toBe('g');
  });

  it('a queued write whose turn comes while the member is silent is refused', async () => {
    const { g, advance } = gate({ maxInFlight: 2 });
    const a = pending();
    const b = pending();
    const pa = g.write(() => a.promise);
    const pb = g.write(() => b.promise);
    const pq = g.write(async () => 'never runs');
    advance(2_000);
    a.reject(new Error('request timed out after 10000 ms'));
    await expect(pa).rejects.toThrow('timed out');
    await expect(pq).rejects.toThrow(/cluster member2 has not answered a write for 2\.0 s and its last request ended without an answer/);
    b.resolve('b');
    await pb;
  });
});
