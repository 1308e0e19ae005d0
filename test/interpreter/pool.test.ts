// The interpreter worker pool (src/interpreter/pool.ts) and the pooled port over it
// (src/interpreter/pool-interpreter.ts), with the runner's deferral of reconciles that wait for a worker.
import { afterEach, describe, expect, it } from 'vitest';
import type { KObject, TypeRef } from '../../src/core/object.js';
import { narrow } from '../typed-reader.js';
import type { ControllerSpec, CoreEvent, Interpreter as Port } from '../../src/core/ports.js';
import { createInterpreter } from '../../src/interpreter/interpreter.js';
import { createPooledInterpreter, InterpreterPendingError, type PooledInterpreter } from '../../src/interpreter/pool-interpreter.js';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { InterpreterPool, poolMemoryBoundMiB, POOL_DEFAULTS, type CallOutcome } from '../../src/interpreter/pool.js';
import { Command } from 'commander';
import { addComponentFlags } from '../../src/cli/component-flags.js';
import type { RIC } from '../../src/interpreter/types.js';
import { Runner } from '../../src/runtime/runner.js';
import { interpreterPort } from '../../src/store/control-plane.js';
import type { WatchHandler } from '../../src/runtime/store-port.js';
import { scaled } from '../time-scale.js';

const pools: InterpreterPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});
const track = (p: InterpreterPool) => (pools.push(p), p);

/**
 * A worker that answers 'pong' at once, except for a call whose first argument has `spin`: it loops in
 * JavaScript, where no Lua budget can stop it (a sandbox escape, as far as the pool can tell).
 */
const SPINNER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => {
  if (m.type !== 'call') return;
  parentPort.postMessage({ type: 'started', id: m.id });
  if (m.args[0] && m.args[0].spin) for (;;) {}
  parentPort.postMessage({ id: m.id, ok: true, value: 'pong', pure: true });
});`;

function ric(name: string, kind: string, health: string): RIC {
  return {
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterCustomization',
    metadata: { name },
    spec: { target: { apiVersion: 'example.io/v1', kind }, customizations: { healthInterpretation: { luaScript: health } } },
  } as RIC;
}

const obj = (kind: string, name: string, extra: Record<string, unknown> = {}): KObject => ({ apiVersion: 'example.io/v1', kind, metadata: { name, namespace: 'default' }, ...extra });

const LOOP = 'function InterpretHealth(obj) while true do end end';
const REPLICAS_OVER_ONE = 'function InterpretHealth(obj) return obj.spec.replicas > 1 end';

/** Calls `f` until it stops throwing InterpreterPendingError, waiting for the pool between tries. */
async function settled<T>(p: PooledInterpreter, f: () => T): Promise<T> {
  for (;;) {
    p.begin();
    try {
      return f();
    } catch (e) {
      if (!(e instanceof InterpreterPendingError)) throw e;
    } finally {
      const wait = p.end();
      if (wait) await wait;
    }
  }
}

describe('InterpreterPool', () => {
  it('terminates a worker that overruns its budget, fails that call with the budget error, and serves the next call from a fresh worker', async () => {
    const replaced: string[] = [];
    const pool = track(new InterpreterPool({ size: 1, budgetMs: 200, graceMs: 100, source: () => SPINNER, onReplaced: (reason, op) => replaced.push(`${reason} ${op}`) }));
    const spun = await pool.call('interpretHealth', [{ spin: true }], 'InterpretHealth');
    expect(spun).toEqual({ ok: false, failure: 'timeout', message: 'InterpretHealth: script exceeded its 200ms budget', pure: true, replaced: 'timeout' });
    expect(replaced).toEqual(['timeout InterpretHealth']);
    expect(pool.replaced.timeout).toBe(1);
    expect(await pool.call('interpretHealth', [{}], 'InterpretHealth')).toEqual({ ok: true, value: 'pong', pure: true });
    expect(pool.size).toBe(1);
  });

  it('keeps serving other calls on the other workers while one spins', async () => {
    const pool = track(new InterpreterPool({ size: 2, budgetMs: 1000, graceMs: 200, source: () => SPINNER }));
    let spinSettled = false;
    const spin = pool.call('interpretHealth', [{ spin: true }], 'InterpretHealth').then((o) => ((spinSettled = true), o));
    const others: CallOutcome[] = [];
    for (let i = 0; i < 5; i++) others.push(await pool.call('interpretHealth', [{ n: i }], 'InterpretHealth'));
    expect(spinSettled).toBe(false);
    expect(others.every((o) => o.ok && o.value === 'pong')).toBe(true);
    expect((await spin).ok).toBe(false);
  });

  it('runs user RIC scripts in the interpreter worker: results, script errors and the budget error of a loop', async () => {
    const pool = track(new InterpreterPool({ size: 1 }));
    pool.setCustomizations([ric('good', 'Good', REPLICAS_OVER_ONE), ric('bad', 'Bad', 'function InterpretHealth(obj) error("no health here") end'), ric('loop', 'Loop', LOOP)]);
    expect(await pool.call('interpretHealth', [obj('Good', 'a', { spec: { replicas: 3 } })], 'InterpretHealth')).toEqual({ ok: true, value: true, pure: true });
    const bad = await pool.call('interpretHealth', [obj('Bad', 'a')], 'InterpretHealth');
    expect(bad).toMatchObject({ ok: false, failure: 'error' });
    expect((bad as { message: string }).message).toContain('no health here');
    expect(await pool.call('interpretHealth', [obj('Loop', 'a')], 'InterpretHealth')).toMatchObject({ ok: false, failure: 'timeout', message: 'InterpretHealth: script exceeded its 1s budget' });
    // The worker (stopped by the sandbox or replaced by the watchdog) answers the next call.
    expect(await pool.call('interpretHealth', [obj('Good', 'b', { spec: { replicas: 1 } })], 'InterpretHealth')).toMatchObject({ ok: true, value: false });
  });

  it('counts the budget from the moment the worker begins the call, not while it is still starting', async () => {
    // A worker that takes longer to start than budget + grace, as on a loaded machine: its first call is not a timeout.
    const slowStart = `const t = Date.now(); while (Date.now() - t < 800) {}\n${SPINNER}`;
    const pool = track(new InterpreterPool({ size: 1, budgetMs: 200, graceMs: 100, source: () => slowStart }));
    expect(await pool.call('interpretHealth', [{}], 'InterpretHealth')).toEqual({ ok: true, value: 'pong', pure: true });
    expect(pool.replaced).toEqual({ timeout: 0, memory: 0, crash: 0, grown: 0 });
  });

  it('replaces a worker that never begins the call it was given', async () => {
    const deaf = "require('node:worker_threads').parentPort.on('message', () => {});";
    const pool = track(new InterpreterPool({ size: 1, budgetMs: 200, graceMs: 100, startTimeoutMs: 300, source: () => deaf }));
    expect(await pool.call('interpretHealth', [{}], 'InterpretHealth')).toMatchObject({ ok: false, failure: 'error', message: 'InterpretHealth: the interpreter worker did not begin the call within 300ms' });
    expect(pool.replaced.crash).toBe(1);
  });

  it('stops a script whose xpcall handler loops, and replaces nothing but that worker', async () => {
    const pool = track(new InterpreterPool({ size: 1, budgetMs: 300, graceMs: 200 }));
    pool.setCustomizations([ric('xp', 'Xp', "function InterpretHealth(obj) return xpcall(function() error('x') end, function() while true do end end) end"), ric('good', 'Good', REPLICAS_OVER_ONE)]);
    // Stopped by the sandbox or, where it escapes the sandbox, by the watchdog: the same budget error either way.
    expect(await pool.call('interpretHealth', [obj('Xp', 'a')], 'InterpretHealth')).toMatchObject({ ok: false, failure: 'timeout', message: 'InterpretHealth: script exceeded its 300ms budget' });
    expect(await pool.call('interpretHealth', [obj('Good', 'a', { spec: { replicas: 2 } })], 'InterpretHealth')).toMatchObject({ ok: true, value: true });
  });
});

describe('InterpreterPool memory', () => {
  /** Builds `mb` distinct 1 MiB strings (external memory: Lua strings are byte arrays) and keeps them to the end of the call. */
  const hoard = (mb: number) => `function InterpretHealth(obj) local s = "x" for k = 1, 20 do s = s .. s end local t = {} for i = 1, ${mb} do t[i] = s .. i end return #t == ${mb} end`;

  it('replaces a worker that stands far above its start after a call, so what the call allocated is given back; the call still answers', async () => {
    const replaced: string[] = [];
    const pool = track(new InterpreterPool({ size: 1, budgetMs: 30_000, memoryLimitBytes: 96 * 1024 * 1024, recycleAboveBytes: 16 * 1024 * 1024, onReplaced: (reason, op) => replaced.push(`${reason} ${op}`) }));
    pool.setCustomizations([ric('hoard', 'Hoard', hoard(40)), ric('good', 'Good', REPLICAS_OVER_ONE)]);
    expect(await pool.call('interpretHealth', [obj('Hoard', 'a')], 'InterpretHealth')).toEqual({ ok: true, value: true, pure: true });
    expect(pool.replaced.grown).toBe(1);
    expect(replaced).toEqual(['grown InterpretHealth']);
    // The fresh worker has the RICs.
    expect(await pool.call('interpretHealth', [obj('Good', 'a', { spec: { replicas: 2 } })], 'InterpretHealth')).toEqual({ ok: true, value: true, pure: true });
  }, scaled(60_000));

  it('fails a call past the per-call memory budget (heap and string memory together) and marks the failed call that cost the worker', async () => {
    const pool = track(new InterpreterPool({ size: 1, budgetMs: 30_000 }));
    pool.setCustomizations([ric('hoard', 'Hoard', hoard(60))]);
    const out = await pool.call('interpretHealth', [obj('Hoard', 'a')], 'InterpretHealth');
    // 60 MiB of strings fitted the old 256 MiB default; the default budget now stops it.
    expect(out).toMatchObject({ ok: false, failure: 'memory', replaced: 'grown' });
    expect(pool.replaced.grown).toBe(1);
  }, scaled(60_000));

  it('ships limits that hold the main process plus the default pool at its worst (heap caps + the per-call budget of external memory per worker)', () => {
    const deployment = parseAllDocuments(readFileSync(new URL('../../deploy/controller/controller.yaml', import.meta.url), 'utf8'))
      .map((d) => d.toJS())
      .find((d) => d?.kind === 'Deployment');
    const container = deployment.spec.template.spec.containers.find((c: { name: string }) => c.name === 'controller');
    const limit = String(container.resources.limits.memory);
    expect(limit).toMatch(/^\d+(Mi|Gi)$/);
    const limitMiB = parseInt(limit, 10) * (limit.endsWith('Gi') ? 1024 : 1);
    // The controller's own default, as its flag shows it.
    const flag = addComponentFlags(new Command()).options.find((o) => o.long === '--interpreter-workers');
    const workers = Number(flag?.defaultValue);
    expect(workers).toBe(POOL_DEFAULTS.workers);
    // What a pool built with no options uses (the controller passes none).
    const pool = track(new InterpreterPool({ size: workers, source: () => SPINNER }));
    const bound = poolMemoryBoundMiB(pool.limits);
    // The per-call budget must leave the worker room under its own heap cap for its baseline and the recycle threshold.
    expect(pool.limits.heapLimitMb * 1024 * 1024).toBeGreaterThanOrEqual(pool.limits.memoryLimitBytes + pool.limits.recycleAboveBytes + WORKER_HEAP_BASELINE_MIB * 1024 * 1024);
    expect(MAIN_PROCESS_MIB + bound, `main ${MAIN_PROCESS_MIB} MiB + ${workers} workers ${bound} MiB against the pod's ${limit}`).toBeLessThanOrEqual(limitMiB);
  });
});

/**
 * The controller process without its workers: ~170 MB RSS measured with the integration environment's
 * objects (bench/containment.bench.ts), plus room for the informer caches of a larger fleet.
 */
const MAIN_PROCESS_MIB = 272;
/** A worker's JS heap once started (fengari, the interpreter, the libraries): ~10 MiB measured (9.5). */
const WORKER_HEAP_BASELINE_MIB = 16;

describe('the pooled interpreter port', () => {
  function setup(rics: RIC[], clock = { now: 1_000_000 }) {
    const pool = track(new InterpreterPool({ size: 2 }));
    const real = createInterpreter({ builtin: true, memoize: true });
    const changes: string[] = [];
    const p = createPooledInterpreter({ real, local: interpreterPort(real), pool, nowMs: () => clock.now, onHealthChanged: (r) => changes.push(r) });
    p.setCustomizations(rics);
    return { p, pool, changes, clock };
  }

  it('answers a user script from the cache after the worker ran it once; built-in kinds answer in-process at once', async () => {
    const { p } = setup([ric('good', 'Good', REPLICAS_OVER_ONE)]);
    const o = obj('Good', 'a', { spec: { replicas: 3 } });
    p.begin();
    expect(() => p.interpretHealth(o)).toThrow(InterpreterPendingError);
    const wait = p.end();
    expect(wait).toBeInstanceOf(Promise);
    await wait;
    expect(p.interpretHealth(o)).toBe(true);
    expect(p.stats()).toMatchObject({ hits: 1, misses: 1 });
    const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 2 } } as KObject;
    p.begin();
    expect(p.getReplicas(deploy).replicas).toBe(2);
    expect(p.end()).toBeUndefined();
  });

  it('collects every miss of one pass, so a reconcile asking several results needs one retry', async () => {
    const { p } = setup([ric('good', 'Good', REPLICAS_OVER_ONE)]);
    const objs = [1, 2, 3].map((n) => obj('Good', `o${n}`, { spec: { replicas: n } }));
    p.begin();
    for (const o of objs) expect(() => p.interpretHealth(o)).toThrow(InterpreterPendingError);
    await p.end();
    expect(objs.map((o) => p.interpretHealth(o))).toEqual([false, true, true]);
  });

  it('backs a looping script off per RIC, kind and operation: failing fast without Lua, recorded for the RIC, while other kinds keep being answered', async () => {
    const { p, pool, changes, clock } = setup([ric('hostile', 'Loop', LOOP), ric('good', 'Good', REPLICAS_OVER_ONE)]);
    const budget = 'InterpretHealth: script exceeded its 1s budget';
    await expect(settled(p, () => p.interpretHealth(obj('Loop', 'a')))).rejects.toThrow(budget);
    expect(changes).toEqual(['hostile']);
    expect(p.scriptHealth('hostile')).toEqual({
      failures: [{ operation: 'InterpretHealth', apiVersion: 'example.io/v1', kind: 'Loop', failure: 'timeout', message: budget, failures: 1 }],
      succeeded: false,
    });
    // Another object of the same kind, while backed off: the same error at once, no worker call.
    p.begin();
    expect(() => p.interpretHealth(obj('Loop', 'b'))).toThrow(budget);
    expect(p.end()).toBeUndefined();
    expect(pool.load).toBe(0);
    expect(p.stats().failedFast).toBe(1);
    // Another kind is served meanwhile.
    expect(await settled(p, () => p.interpretHealth(obj('Good', 'g', { spec: { replicas: 2 } })))).toBe(true);
    expect(p.scriptHealth('good')).toEqual({ failures: [], succeeded: true });
    // Past the back-off the script runs again, fails again, and the back-off doubles.
    clock.now += 1001;
    await expect(settled(p, () => p.interpretHealth(obj('Loop', 'c')))).rejects.toThrow(budget);
    expect(p.scriptHealth('hostile').failures[0]!.failures).toBe(2);
    clock.now += 1001;
    p.begin();
    expect(() => p.interpretHealth(obj('Loop', 'd'))).toThrow(budget);
    expect(p.end()).toBeUndefined();
    // Fixing the RIC ends the record: its condition is due again.
    p.setCustomizations([ric('hostile', 'Loop', 'function InterpretHealth(obj) return true end'), ric('good', 'Good', REPLICAS_OVER_ONE)]);
    expect(changes).toEqual(['hostile', 'hostile']);
    expect(await settled(p, () => p.interpretHealth(obj('Loop', 'd')))).toBe(true);
    expect(p.scriptHealth('hostile')).toEqual({ failures: [], succeeded: true });
  }, scaled(20_000));

  it('backs a script that raises errors off only after three in a row', async () => {
    const { p } = setup([ric('bad', 'Bad', 'function InterpretHealth(obj) error("broken " .. obj.metadata.name) end')]);
    for (const n of ['a', 'b', 'c']) await expect(settled(p, () => p.interpretHealth(obj('Bad', n)))).rejects.toThrow(`broken ${n}`);
    expect(p.scriptHealth('bad').failures).toMatchObject([{ failure: 'error', failures: 3 }]);
    p.begin();
    expect(() => p.interpretHealth(obj('Bad', 'd'))).toThrow('broken c');
    expect(p.end()).toBeUndefined();
  });
});

describe('the runner with a pooled interpreter', () => {
  const CM: TypeRef = { apiVersion: 'example.io/v1', kind: 'Good' };

  it('discards a reconcile that waits for a worker without an error or back-off, and reconciles the key again once the result is in', async () => {
    const pool = track(new InterpreterPool({ size: 1 }));
    const real = createInterpreter({ builtin: false, memoize: true });
    const p = createPooledInterpreter({ real, local: interpreterPort(real), pool });
    p.setCustomizations([ric('good', 'Good', REPLICAS_OVER_ONE)]);
    const target = obj('Good', 'a', { spec: { replicas: 3 } });
    const handlers: WatchHandler[] = [];
    const events: CoreEvent[] = [];
    const store = {
      get: <T extends KObject>(t: TypeRef<T>) => narrow(t, target),
      list: <T extends KObject>(t: TypeRef<T>) => [narrow(t, target)!],
      types: () => [CM],
      watch: (h: WatchHandler) => (handlers.push(h), () => undefined),
      recordEvent: (e: CoreEvent) => events.push(e),
    };
    const spec: ControllerSpec = {
      name: 'health',
      keysFor: () => ['a'],
      reconcile: (ctx) => {
        // As the core does: an interpreter error becomes an outcome, not an exception.
        let health: string;
        try {
          health = ctx.interpreter.interpretHealth(target) ? 'Healthy' : 'Unhealthy';
        } catch (e) {
          health = `Unknown: ${(e as Error).message}`;
        }
        return { writes: [], events: [{ involvedObject: { ...CM, namespace: 'default', name: 'a' }, type: 'Normal', reason: 'Health', message: health, source: 'test' }] };
      },
    };
    const reconciled: Array<string | undefined> = [];
    let deferred = 0;
    const runner = new Runner(store, [spec], {
      clock: () => new Date(),
      context: () => ({ interpreter: p as Port, schedule: undefined as never, options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [] } }),
      deferrals: p,
      onDeferred: () => deferred++,
      onReconcile: (_c, _s, err) => reconciled.push(err),
    });
    runner.start([{ type: 'ADDED', object: target }]);
    const abort = new AbortController();
    const running = runner.run(abort.signal);
    for (let i = 0; i < 200 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    abort.abort();
    await running;
    runner.stop();
    // The first pass saw a pending call: nothing recorded, not counted as a reconcile or an error.
    expect(deferred).toBe(1);
    expect(events.map((e) => e.message)).toEqual(['Healthy']);
    expect(reconciled).toEqual([undefined]);
    expect(runner.failures()).toEqual([]);
  });
});

describe('quarantine of a RIC whose calls cost workers', () => {
  /** A pool whose workers spin (past the watchdog) on an object with `spin`, and answer 'pong' otherwise. */
  function setup(rics: RIC[]) {
    const clock = { now: 1_000_000 };
    const pool = track(new InterpreterPool({ size: 2, budgetMs: 100, graceMs: 100, source: () => SPINNER }));
    const real = createInterpreter({ builtin: true, memoize: true });
    const changes: string[] = [];
    const timers: Array<{ f: () => void; ms: number }> = [];
    const p = createPooledInterpreter({ real, local: interpreterPort(real), pool, nowMs: () => clock.now, baseBackoffMs: 1, onHealthChanged: (r) => changes.push(r), setTimer: (f, ms) => timers.push({ f, ms }) });
    p.setCustomizations(rics);
    return { p, pool, changes, clock, timers };
  }
  const budget = 'InterpretHealth: script exceeded its 100ms budget';
  /** The first call of a fresh object: settles in a worker, or fails at once. */
  const quarantinedAtOnce = (p: PooledInterpreter, o: KObject) => {
    p.begin();
    try {
      expect(() => p.interpretHealth(o)).toThrow(/InterpretHealth: quarantined: calls failed at once until/);
    } finally {
      expect(p.end(), 'no worker call was started').toBeUndefined();
    }
  };

  it('fails every call of the RIC at once after two calls cost a worker, serves other kinds meanwhile, says so in its health, retries after the quarantine and doubles it on a relapse', async () => {
    const { p, pool, changes, clock, timers } = setup([ric('killer', 'Loop', LOOP), ric('good', 'Good', REPLICAS_OVER_ONE)]);
    await expect(settled(p, () => p.interpretHealth(obj('Loop', 'a', { spin: true })))).rejects.toThrow(budget);
    clock.now += 10; // past the 1 ms back-off: the script runs again
    await expect(settled(p, () => p.interpretHealth(obj('Loop', 'b', { spin: true })))).rejects.toThrow(budget);
    expect(pool.replaced.timeout).toBe(2);
    clock.now += 10_000;
    quarantinedAtOnce(p, obj('Loop', 'c', { spin: true }));
    expect(pool.replaced.timeout).toBe(2);
    expect(await settled(p, () => p.interpretHealth(obj('Good', 'g')))).toBe('pong');
    const health = p.scriptHealth('killer');
    expect(health.failures).toHaveLength(1);
    expect(health.failures[0]).toMatchObject({ failure: 'timeout', operation: 'InterpretHealth' });
    expect(health.failures[0]!.message).toBe(`quarantined: calls failed at once until ${new Date(1_000_010 + 300_000).toISOString()} (or a change to the RIC): its scripts cost the interpreter worker 2 times, last: ${budget}`);
    expect(changes.filter((c) => c === 'killer').length).toBeGreaterThanOrEqual(2);
    // The end of the quarantine wakes the RIC's condition; the next call runs, costs a worker, and the quarantine doubles.
    expect(timers.map((t) => t.ms)).toEqual([300_001]);
    clock.now = 1_000_010 + 300_001;
    const before = changes.length;
    timers[0]!.f();
    expect(changes.length).toBe(before + 1);
    await expect(settled(p, () => p.interpretHealth(obj('Loop', 'd', { spin: true })))).rejects.toThrow(budget);
    quarantinedAtOnce(p, obj('Loop', 'e', { spin: true }));
    expect(timers.map((t) => t.ms)).toEqual([300_001, 600_001]);
    expect(pool.replaced.timeout).toBe(3);
  }, scaled(30_000));

  it('is lifted by a change to the RIC\'s scripts, not by a status write', async () => {
    const hostile = ric('killer', 'Loop', LOOP);
    const { p, clock } = setup([hostile]);
    for (const n of ['a', 'b']) {
      await expect(settled(p, () => p.interpretHealth(obj('Loop', n, { spin: true })))).rejects.toThrow(budget);
      clock.now += 10;
    }
    // The same scripts with a new resourceVersion and a status (the controller's own condition write).
    p.setCustomizations([{ ...hostile, metadata: { ...hostile.metadata, resourceVersion: '7' }, status: { conditions: [] } } as RIC]);
    quarantinedAtOnce(p, obj('Loop', 'c'));
    p.setCustomizations([ric('killer', 'Loop', 'function InterpretHealth(obj) return true end')]);
    expect(await settled(p, () => p.interpretHealth(obj('Loop', 'c')))).toBe('pong');
    expect(p.scriptHealth('killer')).toEqual({ failures: [], succeeded: true });
  }, scaled(30_000));

  it('is read back from the RIC\'s ScriptsHealthy condition for its generation when the controller starts, costing no worker; a new generation runs', async () => {
    const condition = (generation: number) => ({
      ...ric('killer', 'Loop', LOOP),
      metadata: { name: 'killer', generation },
      status: { conditions: [{ type: 'ScriptsHealthy', status: 'False', reason: 'ScriptTimeout', observedGeneration: 3, lastTransitionTime: '2026-12-07T00:00:00Z', message: `InterpretHealth for example.io/v1, Kind=Loop failed: quarantined: calls failed at once until 2026-12-07T00:05:00.000Z (or a change to the RIC): its scripts cost the interpreter worker 2 times, last: ${budget}` }] },
    }) as RIC;
    const restarted = setup([condition(3)]);
    quarantinedAtOnce(restarted.p, obj('Loop', 'a', { spin: true }));
    expect(restarted.pool.replaced.timeout).toBe(0);
    expect(restarted.timers.map((t) => t.ms)).toEqual([300_001]);
    const edited = setup([condition(4)]);
    expect(await settled(edited.p, () => edited.p.interpretHealth(obj('Loop', 'a')))).toBe('pong');
  }, scaled(30_000));
});
