/**
 * A pool of interpreter worker threads for the controller: user RIC scripts run there, so that a script
 * that spins until its budget stops costs a worker's time, not the event loop that serves probes,
 * informers and the webhook. A call that overruns its budget plus a grace period (a script the sandbox
 * failed to stop) has its worker terminated and replaced, and fails with the budget error; a worker
 * whose heap reaches its resourceLimits cap dies the same way with the memory-limit error. A worker that
 * stands far above its starting memory after a call (a script's strings not yet collected, state left
 * behind) is replaced too, so that what one call allocated is given back and every worker stays within
 * POOL_DEFAULTS' arithmetic (poolMemoryBoundMiB).
 *
 * Hand-written rather than piscina or tinypool: those start workers from a file, and the standalone
 * executable has none (worker-source.ts); the watchdog and one-call-per-worker dispatch are all of it.
 */
import { Worker } from 'node:worker_threads';
import type { HealthChecks } from './argocd-health.js';
import type { Operation, RIC } from './types.js';
import type { WorkerMessage, WorkerMethod, WorkerRequest } from './worker-protocol.js';
import { interpreterWorkerSource } from './worker-source.js';

const MiB = 1024 * 1024;

/**
 * The defaults the controller ships with, chosen with the pod's memory limit (deploy/controller/
 * controller.yaml, 512Mi): the main process (~170 MB measured, 272 MiB left to it) plus
 * poolMemoryBoundMiB(POOL_DEFAULTS) (2 × 120 MiB) fit in it. A worker holds its heap (old and young
 * generation, each capped by resourceLimits) plus external memory (ArrayBuffers: Lua strings), which no
 * V8 cap bounds: the sandbox's per-call budget counts heap and external growth together, and string bytes
 * exactly as they are built, so a call adds at most the budget; the recycle threshold bounds what a
 * worker carries from one call to the next. Karmada's scripts read one object and return a few fields:
 * 32 MiB is a hundred times what such a script allocates.
 */
export const POOL_DEFAULTS = {
  workers: 2,
  /** The sandbox's per-call budget: heap + external growth, and string bytes built. */
  memoryLimitBytes: 32 * MiB,
  /** Each worker's old-generation cap: its baseline heap (~10 MiB), the recycle threshold and the call budget. */
  heapLimitMb: 64,
  /** Each worker's young-generation cap. */
  youngGenerationMb: 16,
  /** A worker this far above its starting memory after a call is replaced. */
  recycleAboveBytes: 16 * MiB,
};

/**
 * The most the pool's workers can hold, MiB: per worker its heap caps, the external memory the per-call
 * budget admits, and the isolate's code and stacks outside the heap (~8 MiB measured).
 */
export function poolMemoryBoundMiB(o: { size: number; memoryLimitBytes: number; heapLimitMb: number; youngGenerationMb: number }): number {
  return o.size * (o.heapLimitMb + o.youngGenerationMb + Math.ceil(o.memoryLimitBytes / MiB) + WORKER_OVERHEAD_MB);
}
const WORKER_OVERHEAD_MB = 8;

export interface PoolOptions {
  /** Worker threads (at least 1). */
  size: number;
  /** The sandbox's per-call budget in the workers, ms (default 1000, Karmada's). */
  budgetMs?: number;
  /** How long past the budget the watchdog waits before it terminates the worker (default 500 ms). */
  graceMs?: number;
  /** The sandbox's per-call memory limit in the workers (default POOL_DEFAULTS). */
  memoryLimitBytes?: number;
  /** Each worker's old-generation heap cap, MiB (default POOL_DEFAULTS). */
  heapLimitMb?: number;
  /** Each worker's young-generation heap cap, MiB (default POOL_DEFAULTS). */
  youngGenerationMb?: number;
  /** A worker whose memory after a call stands more than this above its start is replaced (default POOL_DEFAULTS). */
  recycleAboveBytes?: number;
  /**
   * How long a worker may take to begin a call it was given (starting up, compiling new RICs) before it is
   * replaced; the budget only counts from the moment it begins (default 30 s).
   */
  startTimeoutMs?: number;
  /** The worker's code (tests inject a misbehaving one); default the interpreter worker. */
  source?: () => string;
  /** `--interpreters` RICs and `--health-checks` trees: user code too, run in the workers (fixed for the pool's life). */
  libraries?: { library?: RIC[]; healthChecks?: HealthChecks };
  /** Told when a worker is terminated or died and was replaced. */
  onReplaced?: (reason: ReplaceReason, operation: Operation, message: string) => void;
}

/** Why a call failed: the script's own error, or one of the budgets (time, memory). */
export type CallFailure = 'error' | 'timeout' | 'memory';

/** Why a worker was replaced: past the watchdog, out of heap, died, or grown far above its start after a call. */
export type ReplaceReason = 'timeout' | 'memory' | 'crash' | 'grown';

/** `replaced`: the call's worker was terminated or recycled because of this call (a failed call only). */
export type CallOutcome = { ok: true; value: unknown; pure: boolean } | { ok: false; message: string; failure: CallFailure; pure: boolean; replaced?: ReplaceReason };

interface Task {
  id: number;
  method: WorkerMethod;
  args: unknown[];
  op: Operation;
  resolve: (o: CallOutcome) => void;
}

interface Slot {
  worker: Worker;
  task?: Task;
  watchdog?: NodeJS.Timeout;
  /** Set once the slot's worker is being replaced: its late messages and exit are ignored. */
  retired: boolean;
}

const BUDGET_TEXT = /script exceeded its .* budget/;
const MEMORY_TEXT = /script exceeded its memory limit/;

function formatBudget(ms: number): string {
  return ms >= 1000 ? `${ms / 1000}s` : `${ms}ms`;
}

/** How a failed call's text reads: the sandbox's budget errors are budget failures too. */
export function failureOf(message: string): CallFailure {
  if (BUDGET_TEXT.test(message)) return 'timeout';
  if (MEMORY_TEXT.test(message)) return 'memory';
  return 'error';
}

export class InterpreterPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private rics: RIC[] = [];
  private closed = false;
  private readonly budgetMs: number;
  private readonly graceMs: number;
  /** The limits in force (defaults filled in): what poolMemoryBoundMiB reads. */
  readonly limits: { size: number; memoryLimitBytes: number; heapLimitMb: number; youngGenerationMb: number; recycleAboveBytes: number };
  private readonly source: string;
  /** Workers replaced so far, by reason. */
  readonly replaced: Record<ReplaceReason, number> = { timeout: 0, memory: 0, crash: 0, grown: 0 };

  constructor(private readonly opts: PoolOptions) {
    if (!Number.isInteger(opts.size) || opts.size < 1) throw new Error(`interpreter workers: ${opts.size} is not a whole number of at least 1`);
    this.budgetMs = opts.budgetMs ?? 1000;
    this.graceMs = opts.graceMs ?? 500;
    this.limits = {
      size: opts.size,
      memoryLimitBytes: opts.memoryLimitBytes ?? POOL_DEFAULTS.memoryLimitBytes,
      heapLimitMb: opts.heapLimitMb ?? POOL_DEFAULTS.heapLimitMb,
      youngGenerationMb: opts.youngGenerationMb ?? POOL_DEFAULTS.youngGenerationMb,
      recycleAboveBytes: opts.recycleAboveBytes ?? POOL_DEFAULTS.recycleAboveBytes,
    };
    this.source = (opts.source ?? interpreterWorkerSource)();
    for (let i = 0; i < opts.size; i++) this.slots.push(this.spawn());
  }

  get size(): number {
    return this.slots.length;
  }

  /** Calls waiting for a worker plus calls running. */
  get load(): number {
    return this.queue.length + this.slots.filter((s) => s.task).length;
  }

  /** The user's RICs for every worker, now and for workers started later. */
  setCustomizations(rics: RIC[]): void {
    this.rics = rics;
    for (const s of this.slots) if (!s.retired) this.post(s, { type: 'rics', rics });
  }

  /** Runs one interpreter method in a worker; never rejects (failures are outcomes). */
  call(method: WorkerMethod, args: unknown[], op: Operation): Promise<CallOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, message: `${op}: the interpreter pool is closed`, failure: 'error', pure: false });
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, method, args, op, resolve });
      this.dispatch();
    });
  }

  /** Terminates every worker; queued and running calls fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) t.resolve({ ok: false, message: `${t.op}: the interpreter pool is closed`, failure: 'error', pure: false });
    await Promise.all(
      this.slots.map((s) => {
        s.retired = true;
        if (s.watchdog) clearTimeout(s.watchdog);
        s.task?.resolve({ ok: false, message: `${s.task.op}: the interpreter pool is closed`, failure: 'error', pure: false });
        s.task = undefined;
        return s.worker.terminate();
      }),
    );
  }

  private spawn(): Slot {
    const worker = new Worker(this.source, {
      eval: true,
      workerData: { budgetMs: this.budgetMs, memoryLimitBytes: this.limits.memoryLimitBytes, rics: this.rics, ...this.opts.libraries },
      resourceLimits: { maxOldGenerationSizeMb: this.limits.heapLimitMb, maxYoungGenerationSizeMb: this.limits.youngGenerationMb },
    });
    // The controller's lifetime is its signals' business, not its workers'.
    worker.unref();
    const slot: Slot = { worker, retired: false };
    worker.on('message', (msg: WorkerMessage) => this.onMessage(slot, msg));
    worker.on('error', (e: Error & { code?: string }) => {
      const memory = e.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.replace(slot, memory ? 'memory' : 'crash', (op) => (memory ? `${op}: script exceeded its memory limit (the worker's ${this.limits.heapLimitMb} MiB heap is full)` : `${op}: the interpreter worker failed: ${e.message}`));
    });
    worker.on('exit', () => this.replace(slot, 'crash', (op) => `${op}: the interpreter worker exited`));
    return slot;
  }

  private post(slot: Slot, msg: WorkerRequest): void {
    try {
      slot.worker.postMessage(msg);
    } catch (e) {
      // Arguments that cannot be cloned (never JSON objects) fail their call, not the worker.
      if (msg.type === 'call' && slot.task?.id === msg.id) this.finish(slot, { ok: false, message: `${slot.task.op}: ${(e as Error).message}`, failure: 'error', pure: false });
    }
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.task || slot.retired) continue;
      const task = this.queue.shift()!;
      slot.task = task;
      const startMs = this.opts.startTimeoutMs ?? 30_000;
      slot.watchdog = setTimeout(() => {
        this.replace(slot, 'crash', (op) => `${op}: the interpreter worker did not begin the call within ${formatBudget(startMs)}`);
      }, startMs);
      this.post(slot, { type: 'call', id: task.id, method: task.method, args: task.args });
    }
  }

  private onMessage(slot: Slot, msg: WorkerMessage): void {
    if (slot.retired || slot.task?.id !== msg.id) return;
    if ('type' in msg) {
      // The script runs from now on: its budget, plus the grace, is what the watchdog allows.
      if (slot.watchdog) clearTimeout(slot.watchdog);
      slot.watchdog = setTimeout(() => {
        this.replace(slot, 'timeout', (op) => `${op}: script exceeded its ${formatBudget(this.budgetMs)} budget`);
      }, this.budgetMs + this.graceMs);
      return;
    }
    const grown = (msg.grownBytes ?? 0) > this.limits.recycleAboveBytes;
    const outcome: CallOutcome = msg.ok ? { ok: true, value: msg.value, pure: msg.pure } : { ok: false, message: msg.message, failure: failureOf(msg.message), pure: msg.pure, ...(grown ? { replaced: 'grown' as const } : {}) };
    if (!grown) return this.finish(slot, outcome);
    // What the call allocated is given back with the worker (V8 keeps collected pages, and the process
    // its malloc arenas, long after): the next call starts from a fresh one.
    const task = slot.task!;
    slot.task = undefined;
    this.retire(slot, 'grown');
    this.opts.onReplaced?.('grown', task.op, `${task.op}: the worker stood ${Math.round(msg.grownBytes! / MiB)} MiB above its start after the call`);
    task.resolve(outcome);
    this.dispatch();
  }

  private finish(slot: Slot, outcome: CallOutcome): void {
    const task = slot.task!;
    if (slot.watchdog) clearTimeout(slot.watchdog);
    slot.task = undefined;
    slot.watchdog = undefined;
    task.resolve(outcome);
    this.dispatch();
  }

  /** Ends a worker that overran, ran out of heap or died: its call fails with `message`, a fresh worker takes its place. */
  private replace(slot: Slot, reason: 'timeout' | 'memory' | 'crash', message: (op: Operation) => string): void {
    if (slot.retired || this.closed) return;
    this.retire(slot, reason);
    const task = slot.task;
    slot.task = undefined;
    if (task) {
      const text = message(task.op);
      this.opts.onReplaced?.(reason, task.op, text);
      task.resolve({ ok: false, message: text, failure: reason === 'crash' ? 'error' : reason, pure: true, replaced: reason });
    }
    this.dispatch();
  }

  /** Terminates a slot's worker and puts a fresh one in its place. */
  private retire(slot: Slot, reason: ReplaceReason): void {
    slot.retired = true;
    if (slot.watchdog) clearTimeout(slot.watchdog);
    slot.watchdog = undefined;
    void slot.worker.terminate();
    this.slots[this.slots.indexOf(slot)] = this.spawn();
    this.replaced[reason]++;
  }
}
