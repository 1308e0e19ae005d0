/**
 * The core's Interpreter port for the controller, with user RIC scripts run in the worker pool
 * (pool.ts). The core is synchronous, so a pooled call answers from a bounded result cache keyed by
 * (script, method, arguments); on a miss it starts the call in a worker and throws
 * InterpreterPendingError. The runner brackets every reconcile with begin()/end(): a reconcile that
 * started calls is discarded (no writes, no events, no error, no back-off) and its key re-enqueued when
 * they settle, and the retry finds the answers in the cache. A reconcile that asks several results
 * collects every miss it meets before it gives up (the core catches interpreter errors and goes on),
 * so it usually needs two passes, not one per call.
 *
 * The built-in layers (interpreters/ and native) answer in-process: they are our own reviewed scripts
 * and code, never loop, and are called for every object of every native kind, where a worker round trip
 * would cost more than the script.
 *
 * Failing scripts are recorded per RIC, target kind and operation. A script that exceeded its time or
 * memory budget, or raised errors three times in a row, is backed off (exponential, capped): until the
 * back-off ends, calls of it that are not in the cache fail at once with its last error, without Lua.
 * scriptHealth() gives those records to the core's interpreter-health reconciler.
 *
 * Quarantine: a RIC whose calls keep costing a worker (terminated past the watchdog, out of heap, dead,
 * or replaced for the memory a failed call left) is quarantined after `quarantineAfter` such calls: every
 * call of every script of it fails at once with the reason, on no worker, so that a controller restarted
 * with it present serves the other kinds at full speed. A change to the RIC's scripts (its spec; a status
 * write is no change) lifts it; otherwise it ends after `quarantineMs`, doubling per relapse up to
 * `maxQuarantineMs`, and the next call that costs a worker quarantines it again at once. A call of a
 * script that had cost a worker and now succeeds ends it. Quarantine is recorded in the RIC's
 * ScriptsHealthy message (QUARANTINED), and a controller that starts with a RIC whose condition says so
 * for its current generation keeps it quarantined from the start, without trying it on a worker first.
 */
import { createHash } from 'node:crypto';
import type { KObject } from '../core/object.js';
import type { DependentObjectReference, Interpreter as Port, InterpreterOperation, ScriptFailure, ScriptHealth } from '../core/ports.js';
import type { Interpreter as RealInterpreter } from './interpreter.js';
import type { CallFailure, CallOutcome, InterpreterPool } from './pool.js';
import { ricName, scriptOf, targetOf, TYPED_OUTPUT_ANNOTATION } from './ric.js';
import { gvkKey, gvkOf, InterpreterError, type GVK, type Operation, type ReplicaResult, type RIC } from './types.js';
import type { WorkerMethod } from './worker-protocol.js';
import { errorMessage } from '../json/error.js';
import { RICConditionScriptsHealthy } from '../api/constants.js';

/** A call running in a worker: the reconcile that asked is retried once it settles. */
export class InterpreterPendingError extends Error {
  constructor(readonly operation: Operation) {
    super(`${operation}: running in an interpreter worker; the reconcile is retried with its result`);
    this.name = 'InterpreterPendingError';
  }
}

/** What the runner needs to know about a reconcile: whether it started calls it could not wait for. */
export interface Deferrals {
  begin(): void;
  /** The calls started since begin(), settled; undefined when none. */
  end(): Promise<void> | undefined;
}

export interface PooledInterpreterOptions {
  /** The in-process interpreter: decides the layer; setCustomizations() keeps it on the same RICs. */
  real: RealInterpreter;
  /** The in-process port over `real` (interpreterPort): it answers the built-in layers. */
  local: Port;
  pool: InterpreterPool;
  /** Results kept (least recently used beyond this are dropped). Default 4096. */
  maxResults?: number;
  /** How long a result of a script that read the clock, random numbers or addresses stands, ms. Default 5000. */
  impureTtlMs?: number;
  /** First back-off of a failing script, ms (default 1000), doubling per failure up to maxBackoffMs (default 300000). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Script errors in a row before a script is backed off (budget failures: at once). Default 3. */
  errorsBeforeBackoff?: number;
  nowMs?: () => number;
  /** A RIC's failure records changed (a failure began, changed text, or ended): its condition is due. */
  onHealthChanged?: (ric: string) => void;
  /** The `--interpreters` RICs the workers hold (pool.ts `libraries`): their layer runs in the workers too. */
  library?: RIC[];
  /** Calls that cost a worker before the RIC is quarantined (default 2). */
  quarantineAfter?: number;
  /** First quarantine, ms (default 300000), doubling per relapse up to maxQuarantineMs (default 3600000). */
  quarantineMs?: number;
  maxQuarantineMs?: number;
  /** Wakes the interpreter-health reconciler when a quarantine ends (default setTimeout, unref'd). */
  setTimer?: (f: () => void, ms: number) => void;
}

/** Begins a ScriptsHealthy message of a quarantined RIC (a restarted controller reads it back). */
export const QUARANTINED = 'quarantined:';

export interface PooledInterpreter extends Port, Deferrals {
  /** Follows the user's RICs (in-process and in the workers). */
  setCustomizations(rics: RIC[]): void;
  scriptHealth(ric: string): ScriptHealth;
  /** Cache hits and misses, and calls failed fast while backed off. */
  stats(): { hits: number; misses: number; failedFast: number; cached: number };
}

interface Cached {
  outcome: CallOutcome;
  /** Date.now() after which it no longer answers (Infinity for pure results). */
  expiresAt: number;
}

/** The user scripts behind one target kind and operation, and the RICs they come from. */
interface ScriptRef {
  id: number;
  owners: string[];
}

interface FailureRecord {
  owner: string;
  gvk: GVK;
  op: InterpreterOperation;
  scriptId: number;
  failures: number;
  failure: CallFailure;
  message: string;
  /** Until then, calls of this script that miss the cache fail with `message`. */
  retryAt: number;
}

/** A RIC whose calls cost workers: while `until` is ahead, its calls fail at once. */
interface Quarantine {
  /** Calls that cost a worker since the RIC last changed. */
  kills: number;
  /** Quarantines so far: the next lasts quarantineMs × 2^level. */
  level: number;
  until: number;
  /** The last call's failure that cost a worker. */
  failure: CallFailure;
  message: string;
  /** Scripts that cost a worker: one of them succeeding ends the quarantine. */
  killers: Set<number>;
  /** The RIC's scripts when it began: another set lifts it. */
  signature: string;
}

const METHOD_OP: Record<WorkerMethod, InterpreterOperation> = {
  getReplicas: 'InterpretReplica',
  reviseReplica: 'ReviseReplica',
  retain: 'Retain',
  reflectStatus: 'InterpretStatus',
  interpretHealth: 'InterpretHealth',
  aggregatedStatus: 'AggregateStatus',
  getDependencies: 'InterpretDependency',
  healthDetail: 'InterpretHealth',
};

export function createPooledInterpreter(opts: PooledInterpreterOptions): PooledInterpreter {
  const { real, pool, local } = opts;
  const now = opts.nowMs ?? Date.now;
  const maxResults = opts.maxResults ?? 4096;
  const impureTtl = opts.impureTtlMs ?? 5000;
  const baseBackoff = opts.baseBackoffMs ?? 1000;
  const maxBackoff = opts.maxBackoffMs ?? 300_000;
  const errorsBeforeBackoff = opts.errorsBeforeBackoff ?? 3;
  const quarantineAfter = opts.quarantineAfter ?? 2;
  const quarantineMs = opts.quarantineMs ?? 300_000;
  const maxQuarantineMs = opts.maxQuarantineMs ?? 3_600_000;
  const setTimer =
    opts.setTimer ??
    ((f: () => void, ms: number) => {
      setTimeout(f, ms).unref();
    });

  const results = new Map<string, Cached>();
  const inflight = new Map<string, Promise<CallOutcome>>();
  let collected: Promise<unknown>[] | undefined;
  const counts = { hits: 0, misses: 0, failedFast: 0 };

  // Script identities: the same text (with its typed-output annotation) keeps its id across RIC
  // updates, so an edit elsewhere in a RIC keeps the cache; a changed script starts afresh.
  const scriptIds = new Map<string, number>();
  let scripts = new Map<string, ScriptRef>();
  const records = new Map<string, FailureRecord>();
  const succeeded = new Set<string>();
  const quarantines = new Map<string, Quarantine>();
  /** RICs seen so far: only a RIC's first sighting reads a quarantine back from its condition. */
  const seen = new Set<string>();

  const recordKey = (owner: string, gvk: GVK, op: Operation) => `${owner}\0${gvkKey(gvk)}\0${op}`;
  const changed = (owner: string) => opts.onHealthChanged?.(owner);

  function indexScripts(rics: RIC[]): Map<string, ScriptRef> {
    const sorted = [...rics].sort((a, b) => (ricName(a) < ricName(b) ? -1 : ricName(a) > ricName(b) ? 1 : 0));
    const texts = new Map<string, { parts: string[]; owners: string[] }>();
    for (const ric of sorted) {
      const target = gvkKey(targetOf(ric));
      const typed = (ric.metadata?.annotations as Record<string, unknown> | undefined)?.[TYPED_OUTPUT_ANNOTATION];
      for (const op of Object.values(METHOD_OP)) {
        const s = scriptOf(ric, op);
        if (s === '') continue;
        const k = `${target}\0${op}`;
        let e = texts.get(k);
        // The first RIC by name wins an operation (mergeCustomizations); dependency scripts all count.
        if (e && op !== 'InterpretDependency') continue;
        if (!e) texts.set(k, (e = { parts: [], owners: [] }));
        e.parts.push(s, typeof typed === 'string' ? typed : '');
        e.owners.push(ricName(ric));
      }
    }
    const out = new Map<string, ScriptRef>();
    for (const [k, e] of texts) {
      const text = `${k}\0${e.parts.join('\0')}`;
      let id = scriptIds.get(text);
      if (id === undefined) scriptIds.set(text, (id = scriptIds.size + 1));
      out.set(k, { id, owners: e.owners });
    }
    return out;
  }

  // Library RICs and health checks are user code as much as the cluster's RICs: they run in the workers.
  const libraryScripts = indexScripts(opts.library ?? []);
  const staticIds = new Set([...libraryScripts.values()].map((r) => r.id));
  /** The ids of an owner's scripts, user and library: what a quarantine compares to see the RIC changed. */
  const signatureOf = (owner: string): string => {
    const ids: number[] = [];
    for (const m of [scripts, libraryScripts]) for (const r of m.values()) if (r.owners.includes(owner)) ids.push(r.id);
    return ids.sort((a, b) => a - b).join(',');
  };
  const quarantineText = (q: Quarantine) =>
    `${QUARANTINED} calls failed at once until ${new Date(q.until).toISOString()} (or a change to the RIC): its scripts cost the interpreter worker ${q.kills} times, last: ${q.message}`;
  const quarantinedNow = (ref: ScriptRef): Quarantine | undefined => {
    const t = now();
    for (const owner of ref.owners) {
      const q = quarantines.get(owner);
      if (q && q.until > t) return q;
    }
    return undefined;
  };

  const pooled = (obj: KObject, op: InterpreterOperation): ScriptRef | undefined => {
    const gvk = gvkOf(obj as never);
    const layer = real.layerFor(gvk, op);
    if (layer === 'library') return libraryScripts.get(`${gvkKey(gvk)}\0${op}`);
    if (layer !== 'customization') return undefined;
    return scripts.get(`${gvkKey(gvk)}\0${op}`);
  };
  const healthCheckRef = (obj: KObject): ScriptRef | undefined => {
    const check = real.healthCheckFor(gvkOf(obj as never));
    if (!check) return undefined;
    const text = `health-check\0${check.file}\0${check.script}`;
    let id = scriptIds.get(text);
    if (id === undefined) {
      scriptIds.set(text, (id = scriptIds.size + 1));
      staticIds.add(id);
    }
    return { id, owners: [check.file] };
  };

  const remember = (key: string, c: Cached) => {
    results.delete(key);
    results.set(key, c);
    if (results.size > maxResults) results.delete(results.keys().next().value!);
  };

  function backedOff(ref: ScriptRef, gvk: GVK, op: InterpreterOperation): FailureRecord | undefined {
    const t = now();
    for (const owner of ref.owners) {
      const r = records.get(recordKey(owner, gvk, op));
      if (r && r.scriptId === ref.id && r.retryAt > t) return r;
    }
    return undefined;
  }

  function settle(ref: ScriptRef, gvk: GVK, op: InterpreterOperation, key: string, o: CallOutcome): void {
    inflight.delete(key);
    const t = now();
    // A RIC update since the call started: its outcome says nothing about the scripts now in place.
    const current = scripts.get(`${gvkKey(gvk)}\0${op}`);
    // Library RICs and health checks stay as loaded for the controller's life: current unless a RIC shadows them.
    const stillCurrent = current ? current.id === ref.id : staticIds.has(ref.id);
    if (o.ok) {
      remember(key, { outcome: o, expiresAt: o.pure ? Infinity : t + impureTtl });
      if (!stillCurrent) return;
      for (const owner of ref.owners) {
        succeeded.add(owner);
        if (records.delete(recordKey(owner, gvk, op))) changed(owner);
        if (quarantines.get(owner)?.killers.has(ref.id) && quarantines.delete(owner)) changed(owner);
      }
      return;
    }
    if (o.replaced && stillCurrent) for (const owner of ref.owners) costWorker(owner, ref.id, o, t);
    let retryAt = t;
    if (stillCurrent) {
      for (const owner of ref.owners) {
        const rk = recordKey(owner, gvk, op);
        const prev = records.get(rk);
        const failures = prev && prev.scriptId === ref.id ? prev.failures + 1 : 1;
        const over = o.failure === 'error' ? failures - errorsBeforeBackoff : failures - 1;
        const at = over < 0 ? t : t + Math.min(maxBackoff, baseBackoff * 2 ** Math.min(over, 30));
        retryAt = Math.max(retryAt, at);
        records.set(rk, { owner, gvk, op, scriptId: ref.id, failures, failure: o.failure, message: o.message, retryAt: at });
        succeeded.delete(owner);
        if (!prev || prev.message !== o.message || prev.failure !== o.failure) changed(owner);
      }
    }
    // A script's own error is a function of its input, unless it read the clock or random numbers; a
    // budget failure may not be, so it answers only while the script is backed off.
    const expiresAt = o.failure !== 'error' ? retryAt : o.pure ? Infinity : t + impureTtl;
    if (expiresAt > t) remember(key, { outcome: o, expiresAt });
  }

  /** A call of `owner`'s script cost a worker: counted, and past the threshold, quarantined. */
  function costWorker(owner: string, scriptId: number, o: Extract<CallOutcome, { ok: false }>, t: number): void {
    let q = quarantines.get(owner);
    if (!q) quarantines.set(owner, (q = { kills: 0, level: 0, until: 0, failure: o.failure, message: o.message, killers: new Set(), signature: signatureOf(owner) }));
    q.kills++;
    q.killers.add(scriptId);
    q.failure = o.failure;
    q.message = o.message;
    if (q.kills < quarantineAfter) return;
    const span = Math.min(maxQuarantineMs, quarantineMs * 2 ** Math.min(q.level, 30));
    q.level++;
    q.until = t + span;
    changed(owner);
    const ended = q;
    // Its condition says quarantined until then: it is due again once the quarantine ends.
    setTimer(() => {
      if (quarantines.get(owner) === ended) changed(owner);
    }, span + 1);
  }

  /**
   * A RIC that a controller before this one quarantined, for the generation it still has: quarantined
   * again from the start, so a restart does not spend workers to learn it again.
   */
  function quarantineFromCondition(ric: RIC): void {
    const owner = ricName(ric);
    if (seen.has(owner)) return;
    seen.add(owner);
    const conds = (ric as { status?: { conditions?: Array<Record<string, unknown>> } }).status?.conditions ?? [];
    const c = conds.find((x) => x.type === RICConditionScriptsHealthy);
    if (c?.status !== 'False' || typeof c.message !== 'string' || c.observedGeneration !== ric.metadata?.generation) return;
    // The message lists every failing script ("<op> for <gvk> failed: <text>; ..."): any one quarantined.
    if (!c.message.includes(`failed: ${QUARANTINED}`)) return;
    const t = now();
    quarantines.set(owner, { kills: quarantineAfter, level: 1, until: t + quarantineMs, failure: 'error', message: `quarantined by an earlier run of the controller (${String(c.reason)})`, killers: new Set(), signature: signatureOf(owner) });
    changed(owner);
    setTimer(() => changed(owner), quarantineMs + 1);
  }

  function call(method: WorkerMethod, obj: KObject, args: unknown[], ref: ScriptRef): unknown {
    const op = METHOD_OP[method];
    const key = createHash('sha1').update(`${ref.id}\0${method}\0${JSON.stringify(args)}`).digest('base64');
    const hit = results.get(key);
    if (hit && hit.expiresAt > now()) {
      counts.hits++;
      // Least recently used goes first.
      results.delete(key);
      results.set(key, hit);
      if (hit.outcome.ok) return hit.outcome.value;
      throw new InterpreterError(hit.outcome.message, op);
    }
    if (hit) results.delete(key);
    const gvk = gvkOf(obj as never);
    const q = quarantinedNow(ref);
    if (q) {
      counts.failedFast++;
      throw new InterpreterError(`${op}: ${quarantineText(q)}`, op);
    }
    const off = backedOff(ref, gvk, op);
    if (off) {
      counts.failedFast++;
      throw new InterpreterError(off.message, op);
    }
    counts.misses++;
    let p = inflight.get(key);
    if (!p) {
      p = pool.call(method, args, op).then((o) => {
        settle(ref, gvk, op, key, o);
        return o;
      });
      inflight.set(key, p);
    }
    collected?.push(p);
    throw new InterpreterPendingError(op);
  }

  const self: PooledInterpreter = {
    setCustomizations(rics) {
      real.setCustomizations(rics);
      pool.setCustomizations(rics);
      scripts = indexScripts(rics);
      // A RIC whose scripts changed (or that is gone) leaves quarantine.
      for (const [owner, q] of quarantines) {
        if (signatureOf(owner) === q.signature) continue;
        quarantines.delete(owner);
        changed(owner);
      }
      for (const ric of rics) quarantineFromCondition(ric);
      // Records of scripts that are gone or changed end: their RIC's condition is due again.
      for (const [k, r] of records) {
        const ref = scripts.get(`${gvkKey(r.gvk)}\0${r.op}`);
        if (ref?.id === r.scriptId && ref.owners.includes(r.owner)) continue;
        records.delete(k);
        changed(r.owner);
      }
    },
    begin() {
      collected = [];
    },
    end() {
      const c = collected;
      collected = undefined;
      return c?.length ? Promise.all(c).then(() => undefined) : undefined;
    },
    scriptHealth(ric) {
      const failures: ScriptFailure[] = [];
      const q = quarantines.get(ric);
      const quarantined = q && q.until > now() ? q : undefined;
      for (const r of records.values()) {
        if (r.owner !== ric) continue;
        const message = quarantined && quarantined.killers.has(r.scriptId) ? quarantineText(quarantined) : r.message;
        failures.push({ operation: r.op, apiVersion: r.gvk.apiVersion, kind: r.gvk.kind, failure: r.failure, message, failures: r.failures });
      }
      failures.sort((a, b) => `${a.apiVersion}/${a.kind}/${a.operation}`.localeCompare(`${b.apiVersion}/${b.kind}/${b.operation}`));
      return { failures, succeeded: succeeded.has(ric) };
    },
    stats: () => ({ ...counts, cached: results.size }),
    hookEnabled: (t, op) => local.hookEnabled(t, op),
    getReplicas(obj) {
      const ref = pooled(obj, 'InterpretReplica');
      if (!ref) return local.getReplicas(obj);
      const r = call('getReplicas', obj, [obj], ref) as ReplicaResult;
      return { replicas: r.replicas, replicaRequirements: (r.requirements as Record<string, unknown> | null) ?? null };
    },
    reviseReplica(obj, n) {
      const ref = pooled(obj, 'ReviseReplica');
      return ref ? (call('reviseReplica', obj, [obj, n], ref) as KObject) : local.reviseReplica(obj, n);
    },
    retain(desired, observed) {
      const ref = pooled(desired, 'Retain');
      return ref ? (call('retain', desired, [desired, observed], ref) as KObject) : local.retain(desired, observed);
    },
    reflectStatus(obj) {
      const ref = pooled(obj, 'InterpretStatus');
      return ref ? ((call('reflectStatus', obj, [obj], ref) ?? undefined) as Record<string, unknown> | undefined) : local.reflectStatus(obj);
    },
    interpretHealth(obj) {
      const ref = pooled(obj, 'InterpretHealth');
      return ref ? (call('interpretHealth', obj, [obj], ref) as boolean) : local.interpretHealth(obj);
    },
    healthDetail(obj) {
      const ref = healthCheckRef(obj);
      if (!ref) return undefined;
      try {
        return call('healthDetail', obj, [obj], ref) as ReturnType<NonNullable<Port['healthDetail']>>;
      } catch (e) {
        if (e instanceof InterpreterPendingError) throw e;
        return { health: 'Unknown', error: errorMessage(e) };
      }
    },
    aggregateStatus(obj, items) {
      const ref = pooled(obj, 'AggregateStatus');
      if (!ref) return local.aggregateStatus(obj, items);
      // As the in-process port: only the status of the result is used (it is all the core writes).
      const status = call('aggregatedStatus', obj, [obj, items], ref);
      if (status !== undefined) return { ...obj, status: status as Record<string, unknown> };
      const { status: _, ...rest } = obj;
      return rest as KObject;
    },
    getDependencies(obj) {
      const ref = pooled(obj, 'InterpretDependency');
      return ref ? (call('getDependencies', obj, [obj], ref) as DependentObjectReference[]) : local.getDependencies(obj);
    },
  };
  return self;
}
