/**
 * The body of one interpreter worker thread (pool.ts starts it). It holds the user's RICs, as the main
 * thread last sent them, in an interpreter of its own (user layer only: the built-in and native layers
 * stay on the main thread), and answers one call at a time. Runs as an eval'd CommonJS bundle (see
 * worker-source.ts), so it must import nothing that needs files beside it.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { boundMessage } from '../lua/message.js';
import { createInterpreter, type Interpreter } from './interpreter.js';
import type { HealthChecks } from './argocd-health.js';
import type { RIC } from './types.js';
import type { WorkerCall, WorkerMethod, WorkerReply, WorkerRequest, WorkerStarted } from './worker-protocol.js';

const data = (workerData ?? {}) as { budgetMs?: number; memoryLimitBytes?: number; rics?: RIC[]; library?: RIC[]; healthChecks?: HealthChecks };
let interp: Interpreter = make(data.rics ?? []);

/** JS heap plus external memory, as the sandbox counts a call's memory. */
function memoryInUse(): number {
  const h = getHeapStatistics();
  return h.used_heap_size + h.external_memory;
}
/** What this worker holds once started: a reply says how far above it the worker stands. */
const baseline = memoryInUse();

function make(rics: RIC[]): Interpreter {
  return createInterpreter({ customizations: rics, library: data.library, healthChecks: data.healthChecks, builtin: false, native: false, budgetMs: data.budgetMs, memoryLimitBytes: data.memoryLimitBytes, nowMs: Date.now, memoize: true });
}

const METHODS: Record<WorkerMethod, (i: Interpreter, args: unknown[]) => unknown> = {
  getReplicas: (i, [o]) => i.getReplicas(o as never),
  reviseReplica: (i, [o, n]) => i.reviseReplica(o as never, n as number),
  retain: (i, [d, o]) => i.retain(d as never, o as never),
  reflectStatus: (i, [o]) => i.reflectStatus(o as never),
  interpretHealth: (i, [o]) => i.interpretHealth(o as never),
  aggregatedStatus: (i, [o, items]) => i.aggregatedStatus(o as never, items as never),
  getDependencies: (i, [o]) => i.getDependencies(o as never),
  // A health check's failure is the call's failure, so that the pool's budget and back-off see it.
  healthDetail: (i, [o]) => {
    const d = i.healthDetail(o as never);
    if (d.error !== undefined) throw new Error(d.error);
    return d;
  },
};

function answer(call: WorkerCall): WorkerReply {
  const before = interp.sandbox.impureCalls;
  try {
    const value = METHODS[call.method](interp, call.args);
    return { id: call.id, ok: true, value, pure: interp.sandbox.impureCalls === before };
  } catch (e) {
    // Bounded here too, whatever raised it: the message is copied to the main thread, logged, and written
    // into conditions and Events.
    return { id: call.id, ok: false, message: boundMessage(e instanceof Error ? e.message : String(e)), pure: interp.sandbox.impureCalls === before };
  }
}

parentPort?.on('message', (msg: WorkerRequest) => {
  if (msg.type === 'rics') {
    interp = make(msg.rics);
    return;
  }
  parentPort!.postMessage({ type: 'started', id: msg.id } satisfies WorkerStarted);
  const reply = answer(msg);
  reply.grownBytes = memoryInUse() - baseline;
  try {
    parentPort!.postMessage(reply);
  } catch (e) {
    // A result that cannot be cloned (it never should: results are JSON values) still gets an answer.
    parentPort!.postMessage({ id: msg.id, ok: false, message: `the interpreter worker could not return the result: ${(e as Error).message}`, pure: reply.pure, grownBytes: reply.grownBytes } satisfies WorkerReply);
  }
});
