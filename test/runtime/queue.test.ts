import { describe, expect, it } from 'vitest';
import { RateLimitedQueue } from '../../src/runtime/queue.js';

describe('rate-limited queue', () => {
  it('queues a key once and re-queues a key added while it was being processed', () => {
    let now = 0;
    const q = new RateLimitedQueue({ now: () => now });
    q.add('a');
    q.add('a');
    q.add('b');
    expect(q.readyLength()).toBe(2);
    const k = q.get()!;
    expect(k).toBe('a');
    q.add('a');
    expect(q.get()).toBe('b');
    expect(q.get()).toBeUndefined();
    q.done('a');
    expect(q.get()).toBe('a');
  });
  it('backs off exponentially per key and forgets on success', () => {
    let now = 0;
    const q = new RateLimitedQueue({ now: () => now, baseDelayMs: 10, maxDelayMs: 50 });
    q.addRateLimited('a');
    expect(q.get()).toBeUndefined();
    expect(q.nextDelayedAt()).toBe(10);
    now = 10;
    expect(q.get()).toBe('a');
    q.done('a');
    q.addRateLimited('a');
    expect(q.nextDelayedAt()).toBe(30);
    q.backoff('a');
    q.backoff('a');
    expect(q.numRequeues('a')).toBe(4);
    expect(q.backoff('a')).toBe(50);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
  });
  it('keeps the sooner of two delayed adds', () => {
    let now = 0;
    const q = new RateLimitedQueue({ now: () => now });
    q.addAfter('a', 1000);
    q.addAfter('a', 100);
    expect(q.nextDelayedAt()).toBe(100);
    now = 100;
    expect(q.get()).toBe('a');
  });
});
