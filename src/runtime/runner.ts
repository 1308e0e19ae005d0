/**
 * Drives the core's reconcilers from a store's watch events: each controller has its own rate-limited
 * queue; a reconcile's writes are applied in order, its events recorded, its errors retried. The
 * embedded control plane calls runUntilIdle() on a virtual clock; the long-running controller calls
 * run() on the wall clock. Both share everything else.
 */
import { refOf, type KObject, type ObjectRef } from '../core/object.js';
import type { Continuation, ControllerSpec, CoreEvent, ReconcileContext, ReconcileResult, Write } from '../core/ports.js';
import type { ObjectReader } from '../core/ports.js';
import type { Store, WatchEvent, WatchHandler } from './store-port.js';
import { RateLimitedQueue, type QueueObserver } from './queue.js';

export interface RunnerOptions {
  clock: () => Date;
  /** The evaluators and options each reconcile gets (asked for per reconcile, so it may follow RICs). */
  context: () => Omit<ReconcileContext, 'reader' | 'now'>;
  /**
   * runUntilIdle only: how many times a failing key is retried straight away before it is left alone
   * (and reported). Rate-limit delays mean nothing on a virtual clock.
   */
  immediateRetries?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Overall retry rate limit per queue (see QueueOptions.bucket). */
  bucket?: { qps: number; burst: number };
  /**
   * Writes that complete later (a real apiserver). When set, run() applies writes through it with
   * await; runUntilIdle() keeps applying them through the store synchronously.
   */
  writer?: AsyncWriter;
  /** Told about every reconcile (metrics); `detail` says which key, what it wrote and what it reported. */
  onReconcile?: (controller: string, seconds: number, error: string | undefined, detail: ReconcileDetail) => void;
  /**
   * run() and runOnce() with a writer only: how many keys of a controller may reconcile at once, by
   * controller name (Karmada's `--concurrent-*-syncs`). Default 1. A key is never reconciled twice at
   * once: the queue holds a key re-added while it is being processed until that reconcile is done.
   */
  concurrency?: Record<string, number>;
  /**
   * run() and runOnce() with a writer only: a key still reconciling after this long (its write waits on
   * an apiserver that does not answer, such as a frozen member) is left to finish in the background, so
   * that it holds up neither the keys after it nor the next controllers. It stays in progress in its
   * queue until it finishes, so it is never reconciled twice at once. Unset: every key is waited for.
   */
  parkAfterMs?: number;
  /**
   * Calls a reconcile starts but cannot wait for (the controller's interpreter workers). A reconcile
   * (or a write's continuation) that started any is discarded, as if it had not run: no writes, no
   * events, no error and no back-off; its key is enqueued again once they settle.
   */
  deferrals?: Deferrals;
  /** Told about every discarded (deferred) reconcile (metrics). */
  onDeferred?: (controller: string) => void;
  /** Each controller queue's metrics (workqueue_*), by controller name. */
  queueObserver?: (controller: string) => QueueObserver;
  /**
   * Told about every write that went through, with the object as the reader had it before (undefined for
   * a create, or when it was not cached): the action log. Unset: nothing is read for it.
   */
  onWrite?: (controller: string, write: Write, before: KObject | undefined) => void;
}

/** One finished reconcile, for RunnerOptions.onReconcile: Karmada's metrics are read off it. */
export interface ReconcileDetail {
  key: string;
  /** The writes that went through, in order (continuations' included). */
  writes: readonly Write[];
  /** The write that failed and ended the reconcile, if one did. */
  failed?: Write;
  events: readonly CoreEvent[];
}

/** See RunnerOptions.deferrals; the interpreter pool's PooledInterpreter is one. */
export interface Deferrals {
  /** A reconcile (or continuation) starts. */
  begin(): void;
  /** It ended: the calls it started, settled; undefined when it started none. */
  end(): Promise<void> | undefined;
}

/**
 * The write side of a store whose writes are network calls. `origin` is the controller making the
 * write: the store stamps it on the change the write causes, as the runner does for a synchronous store.
 */
export interface AsyncWriter {
  create(obj: KObject, cluster: string | undefined, origin: string): Promise<KObject>;
  update(obj: KObject, cluster: string | undefined, origin: string): Promise<KObject>;
  updateStatus(obj: KObject, cluster: string | undefined, origin: string): Promise<KObject>;
  delete(ref: ObjectRef, cluster: string | undefined, origin: string): Promise<void>;
}

export interface FailedKey {
  controller: string;
  key: string;
  error: string;
  attempts: number;
}

export interface RunStats {
  reconciles: number;
  writes: number;
  byController: Record<string, number>;
  /** Milliseconds per controller: its reconciles plus applying their writes (and the watch fan-out). */
  msByController: Record<string, number>;
  /** Keys whose last reconcile failed and that are not being retried any more. */
  failures: FailedKey[];
}

/** What the runner reads and watches; writes go to the store itself (a Store) or to RunnerOptions.writer. */
export type RunnerStore = ObjectReader & Pick<Store, 'watch' | 'recordEvent'>;

export type { WatchHandler };

interface Slot {
  spec: ControllerSpec;
  queue: RateLimitedQueue;
  /** Keys of this controller allowed to reconcile at once on the asynchronous path. */
  concurrency: number;
}

/** Reconciles parked at once, at most (see RunnerOptions.parkAfterMs). */
const MAX_PARKED = 256;

/**
 * Keys a controller takes per worker in one round of runOnce before the next controller's turn. Without a
 * bound, a thousand templates applied at once all passed the detector before the scheduler saw the first
 * binding, and the first member object came after every binding was written: stages ran in phases. With it,
 * the stages take turns and the first templates reach the members while the others are still coming in.
 */
const ROUND_QUANTUM = 16;

/** A reconcile's result; `deferred` when it (or a continuation) waits for calls it started (RunnerOptions.deferrals). */
type Reconciled = ReconcileResult & { deferred?: Promise<void> };

/** Controllers watching one type, by apiVersion then kind: looked up without building a key per event. */
type Routes = Map<string, Map<string, Slot[]>>;

export class Runner {
  private readonly slots: Slot[];
  private readonly byName = new Map<string, Slot>();
  private readonly controlPlaneRoutes: Routes = new Map();
  private readonly memberRoutes: Routes = new Map();
  private unsubscribe?: () => void;
  private readonly lastError = new Map<string, FailedKey>();
  private stats: RunStats = { reconciles: 0, writes: 0, byController: {}, msByController: {}, failures: [] };
  private wake?: () => void;
  /** The controller whose writes are being applied: stamped on the events they cause. */
  private origin?: string;
  /** The context of the last reconcile and what it was built from: reused while neither changes. */
  private ctx?: ReconcileContext;
  private ctxBase?: Omit<ReconcileContext, 'reader' | 'now'>;
  /** Reconciles left to finish in the background (parkAfterMs). */
  private readonly parked = new Set<Promise<void>>();

  constructor(
    private readonly store: RunnerStore,
    controllers: readonly ControllerSpec[],
    private readonly opts: RunnerOptions,
  ) {
    for (const [name, n] of Object.entries(opts.concurrency ?? {})) {
      if (!controllers.some((c) => c.name === name)) throw new Error(`concurrency: no controller named ${name}; known: ${controllers.map((c) => c.name).join(', ')}`);
      if (!Number.isInteger(n) || n < 1) throw new Error(`concurrency.${name}: ${n} is not a whole number of at least 1`);
    }
    this.slots = controllers.map((spec) => ({
      spec,
      queue: new RateLimitedQueue({ now: () => opts.clock().getTime(), baseDelayMs: opts.baseDelayMs, maxDelayMs: opts.maxDelayMs, bucket: opts.bucket, observer: opts.queueObserver?.(spec.name) }),
      concurrency: opts.concurrency?.[spec.name] ?? 1,
    }));
    for (const s of this.slots) this.byName.set(s.spec.name, s);
  }

  /** Subscribes to the store and enqueues what already exists, as informers' initial list does. */
  start(existing: Iterable<WatchEvent> = []): void {
    this.unsubscribe = this.store.watch((ev) => {
      // A synchronous store builds each event for this call: stamping it in place saves a copy per event.
      // (An asynchronous store stamps the origin itself; this.origin is only set while applying synchronously.)
      if (this.origin !== undefined) ev.origin = this.origin;
      this.dispatch(ev);
    });
    for (const ev of existing) this.dispatch(ev);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.wake?.();
  }

  enqueue(controller: string, key: string): void {
    const slot = this.byName.get(controller);
    if (!slot) throw new Error(`no controller named ${controller}; known: ${[...this.byName.keys()].join(', ')}`);
    slot.queue.add(key);
    this.wake?.();
  }

  /** Enqueues every key of every controller that this change concerns. */
  dispatch(ev: WatchEvent): void {
    for (const s of this.watchers(ev)) {
      for (const key of s.spec.keysFor(ev, this.store)) s.queue.add(key);
    }
    this.wake?.();
  }

  /** The controllers watching the changed object's type, computed once per type (and member or not). */
  private watchers(ev: WatchEvent): Slot[] {
    const routes = ev.cluster === undefined ? this.controlPlaneRoutes : this.memberRoutes;
    const { apiVersion, kind } = ev.object;
    let byKind = routes.get(apiVersion);
    if (!byKind) routes.set(apiVersion, (byKind = new Map()));
    let list = byKind.get(kind);
    if (!list) {
      list = this.slots.filter((s) => !s.spec.watches || s.spec.watches(ev.object, ev.cluster));
      byKind.set(kind, list);
    }
    return list;
  }

  /**
   * Processes ready keys, controller after controller in pipeline order, until no queue has a ready
   * key. Keys waiting for a time (requeueAfter) stay queued for a later call after the clock moved.
   */
  runUntilIdle(maxReconciles = 5_000_000): RunStats {
    this.stats = { reconciles: 0, writes: 0, byController: {}, msByController: {}, failures: [] };
    const immediate = this.opts.immediateRetries ?? 0;
    let progressed = true;
    while (progressed) {
      progressed = false;
      for (const slot of this.slots) {
        let n = slot.queue.readyLength();
        while (n-- > 0) {
          const key = slot.queue.get();
          if (key === undefined) break;
          progressed = true;
          if (++this.stats.reconciles > maxReconciles) {
            slot.queue.done(key);
            throw new Error(
              `the control plane did not settle after ${maxReconciles} reconciles (last: ${slot.spec.name} ${key}); two controllers keep undoing each other's writes`,
            );
          }
          this.processOne(slot, key, immediate);
        }
      }
    }
    this.stats.failures = [...this.lastError.values()];
    return this.stats;
  }

  /** The earliest time a queued key becomes ready, for a virtual clock to jump to. */
  nextWakeAt(): number | undefined {
    let min: number | undefined;
    for (const s of this.slots) {
      const t = s.queue.nextDelayedAt();
      if (t !== undefined && (min === undefined || t < min)) min = t;
    }
    return min;
  }

  /** Long-running mode on the wall clock: process, then sleep until an event or a delayed key. */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = () => this.wake?.();
    signal.addEventListener('abort', onAbort, { once: true });
    while (!signal.aborted) {
      if (this.opts.writer) await this.runOnce(signal);
      else this.runUntilIdle(Number.MAX_SAFE_INTEGER);
      const next = this.nextWakeAt();
      const wait = next === undefined ? 60_000 : Math.max(1, next - this.opts.clock().getTime());
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, wait);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
        if (signal.aborted) this.wake();
      });
      this.wake = undefined;
    }
    signal.removeEventListener('abort', onAbort);
  }

  /**
   * The asynchronous counterpart of runUntilIdle, for a store with a writer: processes ready keys until
   * none is left (or the signal fires, which lets the key in progress finish: a graceful drain).
   * Returns how many reconciles ran.
   */
  async runOnce(signal?: AbortSignal): Promise<number> {
    let n = 0;
    let progressed = true;
    while (progressed && !signal?.aborted) {
      progressed = false;
      for (const slot of this.slots) {
        // The keys ready now, up to the round's quantum, taken by up to `concurrency` workers; the next
        // controller starts once they are all done (with one worker: one key after the other, in queue order).
        let ready = Math.min(slot.queue.readyLength(), ROUND_QUANTUM * slot.concurrency);
        const worker = async () => {
          while (ready > 0 && !signal?.aborted) {
            ready--;
            const key = slot.queue.get();
            if (key === undefined) return;
            progressed = true;
            n++;
            await this.parkIfSlow(this.processOneAsync(slot, key));
          }
        };
        if (slot.concurrency === 1) await worker();
        else await Promise.all(Array.from({ length: Math.min(slot.concurrency, ready) }, worker));
      }
    }
    return n;
  }

  /** Waits for a reconcile for up to parkAfterMs; past that it finishes on its own and wakes run() when done. */
  private async parkIfSlow(p: Promise<void>): Promise<void> {
    const ms = this.opts.parkAfterMs;
    // Bounded, so that a slow host apiserver (where every key would park) does not become unbounded concurrency.
    if (ms === undefined || this.parked.size >= MAX_PARKED) return p;
    let timer: NodeJS.Timeout | undefined;
    const slow = await Promise.race([p.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), ms)))]);
    clearTimeout(timer);
    if (!slow) return;
    this.parked.add(p);
    void p.finally(() => {
      this.parked.delete(p);
      this.wake?.();
    });
  }

  /** Keys queued or waiting, per controller (queue depth). */
  depths(): Record<string, number> {
    return Object.fromEntries(this.slots.map((s) => [s.spec.name, s.queue.length]));
  }

  failures(): FailedKey[] {
    return [...this.lastError.values()];
  }

  /** Work in progress per controller (with RunnerOptions.queueObserver): workqueue_unfinished_work_seconds and friends. */
  inProgress(): Record<string, { unfinishedSeconds: number; longestSeconds: number }> {
    return Object.fromEntries(this.slots.map((s) => [s.spec.name, s.queue.inProgress()]));
  }

  /** The object a write changes, as cached before it (RunnerOptions.onWrite only). */
  private before(w: Write): KObject | undefined {
    if (!this.opts.onWrite || w.op === 'create') return undefined;
    const ref = w.op === 'delete' ? w.ref : refOf(w.object);
    try {
      return this.store.get(ref, ref.namespace, ref.name, w.cluster);
    } catch {
      // A cache still filling: the write is logged without what it replaced.
      return undefined;
    }
  }

  private reconcile(slot: Slot, key: string): Reconciled {
    const name = slot.spec.name;
    this.stats.byController[name] = (this.stats.byController[name] ?? 0) + 1;
    const d = this.opts.deferrals;
    d?.begin();
    let result: ReconcileResult;
    try {
      result = slot.spec.reconcile(this.context(), key);
    } catch (e) {
      // A reconciler that throws has a bug or met input it cannot handle; treat it as a failed reconcile.
      result = { writes: [], events: [], error: `${name} failed on ${key}: ${(e as Error).stack ?? e}` };
    }
    const deferred = d?.end();
    return deferred ? { writes: [], events: [], deferred } : result;
  }

  /**
   * A reconcile (or a continuation) that waits for calls it started: the key comes back when they
   * settle. `done`: the reconcile was discarded before any write, so the key leaves the queue here.
   */
  private defer(slot: Slot, key: string, wait: Promise<void>, done: boolean): void {
    if (done) slot.queue.done(key);
    this.opts.onDeferred?.(slot.spec.name);
    void wait.then(() => {
      if (this.unsubscribe) this.enqueue(slot.spec.name, key);
    });
  }

  /** A write's continuation, under the same deferral rule as a reconcile. */
  private continueWith(then: Continuation, written: KObject): { cont?: ReturnType<Continuation>; deferred?: Promise<void> } {
    const d = this.opts.deferrals;
    d?.begin();
    let cont: ReturnType<Continuation> | undefined;
    try {
      cont = then(written);
    } finally {
      const deferred = d?.end();
      // A deferred continuation's answer (or exception) was computed from placeholders: dropped.
      if (deferred) return { deferred };
    }
    return { cont };
  }

  /**
   * What every reconcile gets. The same object serves consecutive reconciles while the evaluators and
   * the time are the same ones (the embedded control plane's virtual clock stands still while it
   * settles): reconcilers only read it, and building it per reconcile showed in profiles.
   */
  private context(): ReconcileContext {
    const base = this.opts.context();
    const now = this.opts.clock();
    const ctx = this.ctx;
    if (ctx && base === this.ctxBase && now === ctx.now) return ctx;
    this.ctxBase = base;
    return (this.ctx = { ...base, reader: this.store, now });
  }

  /**
   * Counts a write. When it has a continuation (computed from the object as stored) with writes,
   * returns the writes still to apply: those first, then the rest from `next`.
   */
  private afterWrite(w: Write, written: KObject | undefined, pending: Write[], next: number, result: Reconciled): Write[] | undefined {
    this.stats.writes++;
    if (written && (w.op === 'create' || w.op === 'update') && w.then) {
      let { cont, deferred } = this.continueWith(w.then, written);
      // The fallback answers without the interpreter: the reconcile ends with it and is not retried
      // (the calls `then` started go on and fill the cache for the next reconcile that asks).
      if (deferred && w.orElse) ({ cont, deferred } = this.continueWith(w.orElse, written));
      if (deferred) {
        // The writes so far stand; the retry computes the rest again from what is stored then.
        result.deferred = deferred;
        return [];
      }
      if (cont!.events) result.events.push(...cont!.events);
      if (cont!.writes.length) return [...cont!.writes, ...pending.slice(next)];
    }
    return undefined;
  }

  private processOne(slot: Slot, key: string, immediateRetries: number): void {
    const name = slot.spec.name;
    const started = performance.now();
    const result = this.reconcile(slot, key);
    if (result.deferred) return this.defer(slot, key, result.deferred, true);
    let error = result.error;
    // Applied in order by index: the reconciler's own array, copied only when a continuation adds writes.
    let pending = result.writes;
    let next = 0;
    const applied: Write[] | undefined = this.opts.onReconcile ? [] : undefined;
    let failed: Write | undefined;
    this.origin = name;
    while (next < pending.length) {
      const w = pending[next++]!;
      try {
        const before = this.before(w);
        const written = this.apply(w);
        applied?.push(w);
        this.opts.onWrite?.(name, w, before);
        const more = this.afterWrite(w, written, pending, next, result);
        if (more) {
          pending = more;
          next = 0;
        }
      } catch (e) {
        error = (e as Error).message;
        failed = w;
        if (w.failureEvents) result.events.push(...w.failureEvents);
        break;
      }
    }
    this.origin = undefined;
    this.finish(slot, key, result, error, started, immediateRetries, applied, failed);
    if (result.deferred) this.defer(slot, key, result.deferred, false);
  }

  private async processOneAsync(slot: Slot, key: string): Promise<void> {
    const name = slot.spec.name;
    const started = performance.now();
    const result = this.reconcile(slot, key);
    if (result.deferred) return this.defer(slot, key, result.deferred, true);
    let error = result.error;
    let pending = result.writes;
    let next = 0;
    const applied: Write[] | undefined = this.opts.onReconcile ? [] : undefined;
    let failed: Write | undefined;
    while (next < pending.length) {
      const w = pending[next++]!;
      try {
        const before = this.before(w);
        const written = await this.applyAsync(w, name);
        applied?.push(w);
        this.opts.onWrite?.(name, w, before);
        const more = this.afterWrite(w, written, pending, next, result);
        if (more) {
          pending = more;
          next = 0;
        }
      } catch (e) {
        // A 409 ends the reconcile here: the retry reads fresh state from the informers.
        error = (e as Error).message;
        failed = w;
        if (w.failureEvents) result.events.push(...w.failureEvents);
        break;
      }
    }
    this.finish(slot, key, result, error, started, 0, applied, failed);
    if (result.deferred) this.defer(slot, key, result.deferred, false);
  }

  private finish(slot: Slot, key: string, result: ReconcileResult, error: string | undefined, started: number, immediateRetries: number, applied: readonly Write[] = [], failed?: Write): void {
    const name = slot.spec.name;
    for (const ev of result.events) this.store.recordEvent(ev);
    const ms = performance.now() - started;
    this.stats.msByController[name] = (this.stats.msByController[name] ?? 0) + ms;
    this.opts.onReconcile?.(name, ms / 1000, error, { key, writes: applied, failed, events: result.events });
    for (const r of result.enqueue ?? []) this.enqueue(r.controller, r.key);
    slot.queue.done(key);
    if (error !== undefined) {
      const attempts = slot.queue.numRequeues(key) + 1;
      this.lastError.set(`${name}\0${key}`, { controller: name, key, error, attempts });
      if (attempts <= immediateRetries) {
        slot.queue.backoff(key);
        slot.queue.add(key);
      } else {
        // Past the immediate retries, the backoff counts again: on a virtual clock the key comes back
        // when time is advanced.
        slot.queue.addRateLimited(key);
      }
      return;
    }
    if (this.lastError.size) this.lastError.delete(`${name}\0${key}`);
    slot.queue.forget(key);
    if (result.requeueAfterSeconds !== undefined) slot.queue.addAfter(key, result.requeueAfterSeconds * 1000);
  }

  private async applyAsync(w: Write, origin: string): Promise<KObject | undefined> {
    const wr = this.opts.writer!;
    switch (w.op) {
      case 'create':
        return wr.create(w.object, w.cluster, origin);
      case 'update':
        return wr.update(w.object, w.cluster, origin);
      case 'updateStatus':
        return wr.updateStatus(w.object, w.cluster, origin);
      case 'delete':
        try {
          await wr.delete(w.ref, w.cluster, origin);
        } catch (e) {
          if (w.ignoreNotFound === false || !(e instanceof Error && (e as { code?: string }).code === 'NotFound')) throw e;
        }
        return undefined;
    }
  }

  private apply(w: Write): KObject | undefined {
    switch (w.op) {
      case 'create':
        return this.writable().create(w.object, w.cluster);
      case 'update':
        return this.writable().update(w.object, w.cluster);
      case 'updateStatus':
        return this.writable().updateStatus(w.object, w.cluster);
      case 'delete':
        try {
          this.writable().delete(w.ref, w.cluster);
        } catch (e) {
          if (w.ignoreNotFound === false || !(e instanceof Error && (e as { code?: string }).code === 'NotFound')) throw e;
        }
        return undefined;
    }
  }

  private writable(): Store {
    if (this.opts.writer) throw new Error('this store writes asynchronously: use run() or runOnce(), not runUntilIdle()');
    return this.store as Store;
  }
}
