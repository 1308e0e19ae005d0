import { describe, expect, it } from 'vitest';
import { Runner } from '../../src/runtime/runner.js';
import { EmbeddedStore } from '../../src/store/embedded.js';
import type { ControllerSpec } from '../../src/core/ports.js';
import { refKey, refOf, parseRefKey, type KObject } from '../../src/core/object.js';

const ctx = () => ({ interpreter: {} as never, schedule: (() => ({})) as never, options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [] } });

describe('runner', () => {
  it('drives a controller from store events until nothing changes, applying continuations', () => {
    let now = new Date(0);
    const store = new EmbeddedStore({ clock: () => now });
    // Copies every ConfigMap's data into a Secret of the same name, then stamps the Secret's generation on the ConfigMap.
    const copier: ControllerSpec = {
      name: 'copier',
      keysFor: (c) => (c.object.kind === 'ConfigMap' && c.type !== 'DELETED' ? [refKey(refOf(c.object))] : []),
      reconcile: (cx, key) => {
        const r = parseRefKey(key);
        const cm = cx.reader.get(r, r.namespace, r.name)!;
        const secret = cx.reader.get({ apiVersion: 'v1', kind: 'Secret' }, r.namespace, r.name);
        const want: KObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: r.name, namespace: r.namespace }, data: cm.data as never };
        if (secret && JSON.stringify(secret.data) === JSON.stringify(cm.data)) return { writes: [], events: [] };
        return {
          writes: [
            secret
              ? { op: 'update', object: { ...secret, data: cm.data as never } }
              : { op: 'create', object: want, then: (w) => ({ writes: [{ op: 'updateStatus', object: { ...cm, status: { copiedGeneration: w.metadata.generation } } }], events: [{ involvedObject: refOf(cm), type: 'Normal', reason: 'Copied', message: 'ok', source: 'copier' }] }) },
          ],
          events: [],
        };
      },
    };
    const runner = new Runner(store, [copier], { clock: () => now, context: ctx });
    runner.start();
    store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } } as KObject);
    const stats = runner.runUntilIdle();
    expect(store.get({ apiVersion: 'v1', kind: 'Secret' }, 'default', 'a')?.data).toEqual({ k: 'v' });
    expect(store.get({ apiVersion: 'v1', kind: 'ConfigMap' }, 'default', 'a')?.status).toEqual({ copiedGeneration: 1 });
    expect(store.events().map((e) => e.reason)).toEqual(['Copied']);
    expect(stats.failures).toEqual([]);
    now = new Date(1);
  });

  it('retries a failing key a few times at once, then waits for the clock, and reports it', () => {
    let now = new Date(0);
    const store = new EmbeddedStore({ clock: () => now });
    let calls = 0;
    const failing: ControllerSpec = {
      name: 'failing',
      keysFor: () => ['k'],
      reconcile: () => {
        calls++;
        return { writes: [], events: [], error: 'cluster(member1) not ready' };
      },
    };
    const runner = new Runner(store, [failing], { clock: () => now, context: ctx, immediateRetries: 3 });
    runner.start();
    store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } } as KObject);
    const stats = runner.runUntilIdle();
    expect(calls).toBe(4);
    expect(stats.failures).toEqual([{ controller: 'failing', key: 'k', error: 'cluster(member1) not ready', attempts: 4 }]);
    const next = runner.nextWakeAt()!;
    expect(next).toBeGreaterThan(0);
    now = new Date(next);
    runner.runUntilIdle();
    expect(calls).toBe(5);
  });

  it('records a write\'s failure events when, and only when, that write fails', () => {
    const store = new EmbeddedStore();
    const failed = { involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a' }, type: 'Warning' as const, reason: 'WriteFailed', message: 'no', source: 't' };
    let stale = false;
    const writer: ControllerSpec = {
      name: 'writer',
      keysFor: (c) => (c.origin === 'writer' ? [] : ['k']),
      reconcile: (c) => {
        const cm = c.reader.get({ apiVersion: 'v1', kind: 'ConfigMap' }, 'default', 'a')!;
        const meta = stale ? { ...cm.metadata, resourceVersion: '0' } : cm.metadata;
        return { writes: [{ op: 'update', object: { ...cm, metadata: meta, data: { n: String(Math.random()) } }, failureEvents: [failed] }], events: [] };
      },
    };
    const runner = new Runner(store, [writer], { clock: () => new Date(0), context: ctx });
    runner.start();
    store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } } as KObject);
    runner.runUntilIdle();
    expect(store.events()).toEqual([]);
    stale = true;
    runner.enqueue('writer', 'k');
    const stats = runner.runUntilIdle();
    expect(stats.failures[0]?.error).toMatch(/the object has been modified/);
    expect(store.events().map((e) => [e.reason, e.count])).toEqual([['WriteFailed', 1]]);
  });

  it('honours requeueAfterSeconds on the clock', () => {
    let now = new Date(0);
    const store = new EmbeddedStore({ clock: () => now });
    let calls = 0;
    const timer: ControllerSpec = { name: 't', keysFor: () => ['k'], reconcile: () => ({ writes: [], events: [], requeueAfterSeconds: calls++ === 0 ? 30 : undefined }) };
    const runner = new Runner(store, [timer], { clock: () => now, context: ctx });
    runner.start();
    store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } } as KObject);
    runner.runUntilIdle();
    expect(runner.nextWakeAt()).toBe(30_000);
    now = new Date(30_000);
    runner.runUntilIdle();
    expect(calls).toBe(2);
    expect(runner.nextWakeAt()).toBeUndefined();
  });

  it('stops a controller pair that never settles, naming the culprit', () => {
    const store = new EmbeddedStore();
    const flip: ControllerSpec = {
      name: 'flip',
      keysFor: (c) => (c.object.kind === 'ConfigMap' ? ['default/a'] : []),
      reconcile: (cx) => {
        const cm = cx.reader.get({ apiVersion: 'v1', kind: 'ConfigMap' }, 'default', 'a')!;
        return { writes: [{ op: 'update', object: { ...cm, data: { n: String(Number((cm.data as Record<string, string>)?.n ?? 0) + 1) } } }], events: [] };
      },
    };
    const runner = new Runner(store, [flip], { clock: () => new Date(0), context: ctx });
    runner.start();
    store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } } as KObject);
    expect(() => runner.runUntilIdle(100)).toThrow(/did not settle after 100 reconciles \(last: flip default\/a\)/);
  });
});

describe('runner on the wall clock', () => {
  it('reconciles as events arrive and stops when aborted', async () => {
    const store = new EmbeddedStore();
    const seen: string[] = [];
    const echo: ControllerSpec = { name: 'echo', keysFor: (c) => [c.object.metadata.name!], reconcile: (_cx, key) => (seen.push(key), { writes: [], events: [] }) };
    const runner = new Runner(store, [echo], { clock: () => new Date(), context: ctx });
    runner.start();
    const ac = new AbortController();
    const done = runner.run(ac.signal);
    store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late', namespace: 'default' } } as KObject);
    for (let i = 0; i < 50 && !seen.includes('late'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toContain('late');
    ac.abort();
    runner.stop();
    await done;
  });
});
