import { describe, expect, it } from 'vitest';
import type { KObject, ObjectRef } from '../../src/core/object.js';
import type { ControllerSpec, CoreEvent } from '../../src/core/ports.js';
import { Runner, type AsyncWriter } from '../../src/runtime/runner.js';
import type { WatchHandler } from '../../src/runtime/store-port.js';

const context = () => ({ interpreter: undefined as never, schedule: undefined as never, options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [] } });

/** Member writes: those to cluster `frozen` wait until release(), like requests to a stopped apiserver. */
class Members implements AsyncWriter {
  written: string[] = [];
  private held: Array<() => void> = [];
  handlers: WatchHandler[] = [];
  events: CoreEvent[] = [];
  get(): undefined {
    return undefined;
  }
  list(): never[] {
    return [];
  }
  types() {
    return [];
  }
  watch(h: WatchHandler) {
    this.handlers.push(h);
    return () => undefined;
  }
  recordEvent(ev: CoreEvent): void {
    this.events.push(ev);
  }
  async create(obj: KObject, cluster: string | undefined): Promise<KObject> {
    if (cluster === 'frozen') await new Promise<void>((r) => this.held.push(r));
    this.written.push(`${cluster}/${obj.metadata.name}`);
    return obj;
  }
  update = this.create;
  updateStatus = this.create;
  async delete(_ref: ObjectRef): Promise<void> {}
  release(): void {
    for (const r of this.held.splice(0)) r();
  }
}

/** Waits for a condition (polling); the bound only keeps a broken run from hanging the suite. */
async function until(what: string, fn: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** One controller whose key `cluster/name` writes a ConfigMap `name` to member `cluster`; a second controller after it. */
function setup(parkAfterMs: number | undefined, initial: Array<[string, string]>) {
  const store = new Members();
  const reconciled: string[] = [];
  const execution: ControllerSpec = {
    name: 'execution',
    keysFor: () => [],
    reconcile: (_ctx, key) => {
      reconciled.push(key);
      const [cluster, name] = key.split('/') as [string, string];
      return { writes: [{ op: 'create', cluster, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } } }], events: [] };
    },
  };
  const next: ControllerSpec = {
    name: 'next',
    keysFor: () => [],
    reconcile: (_ctx, key) => {
      reconciled.push(`next:${key}`);
      return { writes: [], events: [] };
    },
  };
  const runner = new Runner(store, [execution, next], { clock: () => new Date(), context, writer: store, parkAfterMs });
  runner.start();
  for (const [c, k] of initial) runner.enqueue(c, k);
  const abort = new AbortController();
  const running = runner.run(abort.signal);
  return { store, runner, reconciled, abort, running };
}

describe('runner: parkAfterMs', () => {
  it('a key whose write waits on a frozen member holds up neither the keys after it nor the next controller', async () => {
    const { store, runner, reconciled, abort, running } = setup(20, [
      ['execution', 'frozen/a'],
      ['execution', 'healthy/b'],
      ['next', 'x'],
    ]);
    await until('the write to the healthy member and the next controller', () => store.written.includes('healthy/b') && reconciled.includes('next:x'));
    expect(store.written).toEqual(['healthy/b']);
    // Still in progress: enqueued again, it is not reconciled a second time while its write waits.
    runner.enqueue('execution', 'frozen/a');
    runner.enqueue('execution', 'healthy/c');
    await until('healthy/c', () => store.written.includes('healthy/c'));
    expect(reconciled.filter((k) => k === 'frozen/a')).toHaveLength(1);
    // Once the member answers, the parked reconcile finishes and the re-add is processed (a second write).
    store.release();
    await until('frozen/a written', () => store.written.includes('frozen/a'));
    await until('frozen/a reconciled again', () => reconciled.filter((k) => k === 'frozen/a').length === 2);
    store.release();
    await until('the second frozen/a write', () => store.written.filter((k) => k === 'frozen/a').length === 2);
    abort.abort();
    await running;
  });

  it('without it, every key is waited for (the embedded and test paths keep their order)', async () => {
    const { store, reconciled, abort, running } = setup(undefined, [
      ['execution', 'frozen/a'],
      ['execution', 'healthy/b'],
    ]);
    await until('the frozen write under way', () => reconciled.includes('frozen/a'));
    await new Promise((r) => setTimeout(r, 50));
    expect(store.written).toEqual([]);
    expect(reconciled).toEqual(['frozen/a']);
    store.release();
    await until('both written, in queue order', () => store.written.length === 2);
    expect(store.written).toEqual(['frozen/a', 'healthy/b']);
    abort.abort();
    await running;
  });
});
