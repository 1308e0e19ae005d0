import { describe, expect, it } from 'vitest';
import type { KObject, ObjectRef, TypeRef } from '../../src/core/object.js';
import { narrow, narrowAll } from '../typed-reader.js';
import type { ControllerSpec, CoreEvent, ListOptions } from '../../src/core/ports.js';
import { Runner, type AsyncWriter } from '../../src/runtime/runner.js';
import { StoreError, type WatchEvent, type WatchHandler } from '../../src/runtime/store-port.js';
import { selectControllers } from '../../src/kube/controller.js';
import { parseDuration } from '../../src/cli/commands/controller.js';

const CM: TypeRef = { apiVersion: 'v1', kind: 'ConfigMap' };
// These reconcilers use neither evaluator.
const context = () => ({ interpreter: undefined as never, schedule: undefined as never, options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [] } });

/** A store whose writes resolve later, like an apiserver's; the first update of each name conflicts. */
class SlowStore implements AsyncWriter {
  objects = new Map<string, KObject>();
  handlers: WatchHandler[] = [];
  conflicted = new Set<string>();
  events: CoreEvent[] = [];
  seen: WatchEvent[] = [];
  private rv = 0;

  get<T extends KObject>(t: TypeRef<T>, _ns: string | undefined, name: string): T | undefined {
    return narrow(t, this.objects.get(name));
  }
  list<T extends KObject>(t: TypeRef<T>, _o?: ListOptions): T[] {
    return narrowAll(t, [...this.objects.values()]);
  }
  types(): TypeRef[] {
    return [CM];
  }
  watch(h: WatchHandler): () => void {
    this.handlers.push(h);
    return () => undefined;
  }
  recordEvent(ev: CoreEvent): void {
    this.events.push(ev);
  }
  private emit(ev: WatchEvent): void {
    this.seen.push(ev);
    for (const h of this.handlers) h(ev);
  }
  private async put(obj: KObject, origin: string): Promise<KObject> {
    await new Promise((r) => setTimeout(r, 1));
    const old = this.objects.get(obj.metadata.name!);
    const out = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } };
    this.objects.set(obj.metadata.name!, out);
    this.emit({ type: old ? 'MODIFIED' : 'ADDED', object: out, old, origin });
    return out;
  }
  create(obj: KObject, _c: string | undefined, origin: string) {
    return this.put(obj, origin);
  }
  async update(obj: KObject, _c: string | undefined, origin: string) {
    const name = obj.metadata.name!;
    if (!this.conflicted.has(name)) {
      this.conflicted.add(name);
      // Someone else wrote in between: the stored version moves on.
      await this.put({ ...this.objects.get(name)!, data: { by: 'someone-else' } }, 'user');
      throw new StoreError('Conflict', `the object ${name} has been modified`);
    }
    if (obj.metadata.resourceVersion !== this.objects.get(name)?.metadata.resourceVersion) throw new StoreError('Conflict', 'stale');
    return this.put(obj, origin);
  }
  updateStatus(obj: KObject, c: string | undefined, origin: string) {
    return this.update(obj, c, origin);
  }
  async delete(ref: ObjectRef) {
    if (!this.objects.delete(ref.name)) throw new StoreError('NotFound', ref.name);
  }
}

describe('runner with asynchronous writes', () => {
  it('applies writes and continuations in order, retries a 409 with fresh state, and stamps the origin', async () => {
    const store = new SlowStore();
    let reconciles = 0;
    const labeler: ControllerSpec = {
      name: 'labeler',
      keysFor: (c) => (c.object.metadata.name === 'a' && c.origin !== 'labeler' ? ['a'] : []),
      reconcile: (ctx, key) => {
        reconciles++;
        const cur = ctx.reader.get(CM, 'ns', key);
        if (!cur || cur.metadata.labels?.done) return { writes: [], events: [] };
        return {
          writes: [
            {
              op: 'update',
              object: { ...cur, metadata: { ...cur.metadata, labels: { done: 'yes' } } },
              then: (written) => ({ writes: [{ op: 'create', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `after-${written.metadata.resourceVersion}`, namespace: 'ns' } } }] }),
              failureEvents: [{ involvedObject: { ...CM, namespace: 'ns', name: key }, type: 'Warning', reason: 'LabelFailed', message: 'conflict', source: 'labeler' }],
            },
          ],
          events: [{ involvedObject: { ...CM, namespace: 'ns', name: key }, type: 'Normal', reason: 'Labeled', message: 'ok', source: 'labeler' }],
        };
      },
    };
    const runner = new Runner(store, [labeler], { clock: () => new Date(), context, writer: store, baseDelayMs: 1 });
    runner.start();
    await store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } }, undefined, 'user');

    const abort = new AbortController();
    const running = runner.run(abort.signal);
    for (let i = 0; i < 200 && !store.objects.get('a')?.metadata.labels?.done; i++) await new Promise((r) => setTimeout(r, 5));
    abort.abort();
    await running;

    const a = store.objects.get('a')!;
    // The retry read the other writer's data and kept it.
    expect(a.metadata.labels).toEqual({ done: 'yes' });
    expect(a.data).toEqual({ by: 'someone-else' });
    expect(store.objects.has(`after-${a.metadata.resourceVersion}`)).toBe(true);
    expect(store.seen.filter((e) => e.origin === 'labeler').map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['MODIFIED a', `ADDED after-${a.metadata.resourceVersion}`]);
    // The conflicting write woke the key again, and the rate-limited retry finds nothing left to do.
    expect(reconciles).toBeGreaterThanOrEqual(2);
    // The conflicted write's failure events, after the reconcile's own; none for the write that went through.
    expect(store.events.map((e) => e.reason)).toEqual(['Labeled', 'LabelFailed', 'Labeled']);
    expect(runner.failures()).toEqual([]);
  });

  it('refuses synchronous runs when writes are asynchronous', () => {
    const store = new SlowStore();
    const runner = new Runner(store, [{ name: 'x', keysFor: () => ['k'], reconcile: () => ({ writes: [{ op: 'delete', ref: { ...CM, name: 'k' }, ignoreNotFound: false }], events: [] }) }], { clock: () => new Date(), context, writer: store });
    runner.enqueue('x', 'k');
    runner.runUntilIdle();
    expect(runner.failures()[0]?.error).toMatch(/writes asynchronously/);
  });
});

describe('controller flags', () => {
  const all = ['detector', 'policy', 'execution'].map((name) => ({ name, keysFor: () => [], reconcile: () => ({ writes: [], events: [] }) }));
  it('selects controllers the Karmada way', () => {
    expect(selectControllers(all, ['*']).map((c) => c.name)).toEqual(['detector', 'policy', 'execution']);
    expect(selectControllers(all, ['*', '-policy']).map((c) => c.name)).toEqual(['detector', 'execution']);
    expect(selectControllers(all, ['execution']).map((c) => c.name)).toEqual(['execution']);
    expect(() => selectControllers(all, ['nope'])).toThrow(/unknown controller nope/);
  });
  it('parses Go durations', () => {
    expect(parseDuration('--x', '5ms')).toBe(5);
    expect(parseDuration('--x', '1m30s')).toBe(90_000);
    expect(parseDuration('--x', '15')).toBe(15_000);
    expect(() => parseDuration('--x', '5 minutes')).toThrow(/duration/);
  });
});

describe('queue with an overall token bucket', () => {
  it('delays retries past the burst at the bucket rate, on top of the per-key backoff', async () => {
    const { RateLimitedQueue } = await import('../../src/runtime/queue.js');
    const now = 0;
    const q = new RateLimitedQueue({ now: () => now, baseDelayMs: 1, bucket: { qps: 10, burst: 2 } });
    q.addRateLimited('a');
    q.addRateLimited('b');
    q.addRateLimited('c');
    // a and b take the burst (per-key 1 ms); c waits for a token: 100 ms at 10 qps.
    expect(q.nextDelayedAt()).toBe(1);
    q.cancelDelayed('a');
    q.cancelDelayed('b');
    expect(q.nextDelayedAt()).toBe(100);
  });
});

describe('per-controller concurrency on the asynchronous path', () => {
  /** Writes that complete only when the test says so, and a record of which keys are mid-reconcile. */
  function harness(concurrency: Record<string, number> | undefined) {
    const release: Array<() => void> = [];
    const active = new Map<string, Set<string>>();
    const maxActive = new Map<string, number>();
    let overlap = false;
    const reconciled: string[] = [];
    const writer: AsyncWriter = {
      create: (obj) => new Promise((resolve) => release.push(() => resolve(obj))),
      update: (obj) => Promise.resolve(obj),
      updateStatus: (obj) => Promise.resolve(obj),
      delete: () => Promise.resolve(),
    };
    const store = { get: () => undefined, list: () => [], types: () => [], watch: () => () => undefined, recordEvent: () => undefined };
    const slow = (name: string): ControllerSpec => ({
      name,
      keysFor: () => [],
      reconcile: (_ctx, key) => {
        const mine = active.get(name) ?? new Set<string>();
        active.set(name, mine);
        if (mine.has(key)) overlap = true;
        mine.add(key);
        maxActive.set(name, Math.max(maxActive.get(name) ?? 0, mine.size));
        reconciled.push(`${name}/${key}`);
        const done = () => {
          mine.delete(key);
          return { writes: [] };
        };
        return { writes: [{ op: 'create', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key, namespace: 'ns' } }, then: done }], events: [] };
      },
    });
    const runner = new Runner(store, [slow('wide'), slow('narrow')], { clock: () => new Date(0), context, writer, concurrency });
    const settle = () => new Promise((r) => setImmediate(r));
    return { runner, release, active, maxActive, reconciled, settle, overlap: () => overlap };
  }

  it('reconciles up to N keys of one controller at once and never the same key twice at once', async () => {
    const h = harness({ wide: 3 });
    for (const k of ['a', 'b', 'c', 'd', 'e']) h.runner.enqueue('wide', k);
    h.runner.enqueue('narrow', 'x');
    h.runner.enqueue('narrow', 'y');
    const run = h.runner.runOnce();
    await h.settle();
    expect([...h.active.get('wide')!]).toEqual(['a', 'b', 'c']);
    // Re-added while it is being reconciled: it waits for that reconcile to finish.
    h.runner.enqueue('wide', 'a');
    while (h.release.length) {
      h.release.shift()!();
      await h.settle();
    }
    await run;
    expect(h.overlap()).toBe(false);
    expect(h.maxActive.get('wide')).toBe(3);
    expect(h.maxActive.get('narrow')).toBe(1);
    expect(h.reconciled.filter((r) => r === 'wide/a')).toHaveLength(2);
    expect(h.reconciled).toHaveLength(8);
    // The next controller starts once the first one's ready keys are done.
    expect(h.reconciled.indexOf('narrow/x')).toBeGreaterThan(h.reconciled.indexOf('wide/e'));
  });

  it('keeps one key at a time per controller by default', async () => {
    const h = harness(undefined);
    for (const k of ['a', 'b', 'c']) h.runner.enqueue('wide', k);
    const run = h.runner.runOnce();
    await h.settle();
    expect([...h.active.get('wide')!]).toEqual(['a']);
    while (h.release.length) {
      h.release.shift()!();
      await h.settle();
    }
    await run;
    expect(h.maxActive.get('wide')).toBe(1);
    expect(h.reconciled).toEqual(['wide/a', 'wide/b', 'wide/c']);
  });

  it('takes turns between controllers: a controller with a long queue yields after a round of keys, so later stages see the first keys early', async () => {
    const h = harness(undefined);
    const keys = Array.from({ length: 100 }, (_, i) => `k${String(i).padStart(3, '0')}`);
    for (const k of keys) h.runner.enqueue('wide', k);
    h.runner.enqueue('narrow', 'x');
    const run = h.runner.runOnce();
    for (;;) {
      await h.settle();
      if (!h.release.length) break;
      while (h.release.length) h.release.shift()!();
    }
    await run;
    expect(h.reconciled).toHaveLength(101);
    // narrow's key is taken after one round of wide's keys, not after all hundred.
    const x = h.reconciled.indexOf('narrow/x');
    expect(x).toBeGreaterThan(0);
    expect(x).toBeLessThan(50);
    // and wide's keys keep their queue order across rounds
    expect(h.reconciled.filter((r) => r.startsWith('wide/'))).toEqual(keys.map((k) => `wide/${k}`));
  });

  it('rejects a concurrency for an unknown controller or below 1', () => {
    const make = (concurrency: Record<string, number>) => () => harness(concurrency);
    expect(make({ nope: 2 })).toThrow(/concurrency: no controller named nope; known: wide, narrow/);
    expect(make({ wide: 0 })).toThrow(/concurrency.wide: 0 is not a whole number of at least 1/);
    expect(make({ wide: 1.5 })).toThrow(/concurrency.wide: 1.5/);
  });
});
