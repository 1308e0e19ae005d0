/**
 * The resource interpreter: for an object's exact GVK and an operation, the first layer that enables
 * the hook answers — the user's RICs, then the `--interpreters` library (third-party, library.ts), then
 * the `--health-checks` trees (InterpretHealth only, argocd-health.ts), then the built-in Lua RICs
 * (`interpreters/`), then the native TypeScript layer (interpreter webhooks sit between the user's RICs
 * and the library, in webhook-interpreter.ts). An error from a layer is returned as is, never retried on
 * the next layer.
 */
import { LuaSandbox } from '../lua/sandbox.js';
import { healthCheckFor, mapArgoHealth, runHealthCheck, type HealthCheck, type HealthChecks, type HealthResult } from './argocd-health.js';
import { builtinCustomizations } from './builtin.js';
import { mergeDependencies, verifyDependencies } from './dependencies.js';
import {
  itemsForLua,
  luaAggregatedStatus,
  luaAggregateStatus,
  luaGetComponents,
  luaGetDependencies,
  luaGetReplicas,
  luaInterpretHealth,
  luaReflectStatus,
  luaRetain,
  luaReviseReplica,
} from './lua-operations.js';
import { OperationMemo, type MemoStats } from './memo.js';
import { NativeInterpreter, retainWithNulls } from './native.js';
import { mergeCustomizations, type ScriptEntry, type TargetScripts } from './ric.js';
import {
  gvkKey,
  gvkOf,
  InterpreterError,
  type AggregatedStatusItem,
  type Component,
  type DependentObjectReference,
  type GVK,
  type Health,
  type KubeObject,
  type Operation,
  type ReplicaResult,
  type RIC,
} from './types.js';
import { errorMessage } from '../json/error.js';

/** 'library': `--interpreters` trees (third-party); 'health-check': `--health-checks` trees (InterpretHealth only). */
export type Layer = 'customization' | 'library' | 'health-check' | 'builtin' | 'native';

/** Tri-state health with what the health check said (Argo CD's message), or the interpreter's error. */
export interface HealthDetail {
  health: Health;
  message?: string;
  error?: string;
}

export interface InterpreterOptions {
  /** The user's ResourceInterpreterCustomizations. */
  customizations?: RIC[];
  /** RICs of `--interpreters` trees (library.ts): the third-party layer, after the user's RICs. */
  library?: RIC[];
  /** `--health-checks` trees (argocd-health.ts): InterpretHealth after the library, before the built-ins. */
  healthChecks?: HealthChecks;
  /** Include the built-in Lua interpreters (default true), or supply them. */
  builtin?: boolean | RIC[];
  /** Include the native layer (default true), or supply one with extra handlers. */
  native?: boolean | NativeInterpreter;
  /** Per-call budget in ms (default 1000). */
  budgetMs?: number;
  memoryLimitBytes?: number;
  /** Share a sandbox between interpreters (it is not re-entrant; calls are synchronous). */
  sandbox?: LuaSandbox;
  nowMs?: () => number;
  /**
   * Remember the results of InterpretReplica, InterpretStatus, InterpretHealth and (aggregatedStatus's)
   * AggregateStatus scripts by the fields they read (memo.ts), for the controllers that ask them about
   * every member object. Off for the interpret command, whose users want to see every run.
   */
  memoize?: boolean;
}

export interface Interpreter {
  readonly sandbox: LuaSandbox;
  /** Replaces the user RICs (e.g. when the controller sees RICs change). */
  setCustomizations(rics: RIC[]): void;
  /** Which layer would answer, or null when none enables the hook. */
  layerFor(gvk: GVK, op: Operation): Layer | null;
  hookEnabled(gvk: GVK, op: Operation): boolean;
  retain(desired: KubeObject, observed: KubeObject): KubeObject;
  getReplicas(obj: KubeObject): ReplicaResult;
  getComponents(obj: KubeObject): Component[] | null;
  reviseReplica(obj: KubeObject, replicas: number): KubeObject;
  reflectStatus(obj: KubeObject): unknown;
  aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[] | null | undefined): KubeObject;
  /**
   * AggregateStatus as a controller uses it: only the `.status` of the result (undefined when it has
   * none), which is all it writes. A Lua script's result is encoded no further than its status, so an
   * encoding error elsewhere in the returned object goes unnoticed here.
   */
  aggregatedStatus(obj: KubeObject, items: AggregatedStatusItem[] | null | undefined): unknown;
  interpretHealth(obj: KubeObject): boolean;
  /** Hits and misses of the memos, per operation (all zero when memoize is off). */
  memoStats(): Record<MemoizedOperation, MemoStats>;
  /** Tri-state health: no hook -> Healthy, an interpreter error -> Unknown. */
  health(obj: KubeObject): Health;
  /** health() with the health check's message, or the error that made it Unknown. */
  healthDetail(obj: KubeObject): HealthDetail;
  /** The `--health-checks` script that answers InterpretHealth for a kind, when that layer answers. */
  healthCheckFor(gvk: GVK): HealthCheck | undefined;
  /** A `--health-checks` tree was given: healthDetail can say more than interpretHealth. */
  readonly hasHealthChecks: boolean;
  getDependencies(obj: KubeObject): DependentObjectReference[];
  /**
   * What callers do when no layer defines an operation (native-interpreters spec §0): 0 replicas and no
   * requirements, the object unchanged, no components or dependencies. Errors still throw.
   */
  readonly orDefault: {
    getReplicas(obj: KubeObject): ReplicaResult;
    getComponents(obj: KubeObject): Component[];
    reviseReplica(obj: KubeObject, replicas: number): KubeObject;
    retain(desired: KubeObject, observed: KubeObject): KubeObject;
    aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[] | null | undefined): KubeObject;
    getDependencies(obj: KubeObject): DependentObjectReference[];
  };
}

const NOT_ENABLED = 'rule is not enabled';

type MemoizedOperation = 'InterpretReplica' | 'InterpretStatus' | 'InterpretHealth' | 'AggregateStatus';
const MEMOIZED: readonly MemoizedOperation[] = ['InterpretReplica', 'InterpretStatus', 'InterpretHealth', 'AggregateStatus'];

export function createInterpreter(opts: InterpreterOptions = {}): Interpreter {
  const sandbox = opts.sandbox ?? new LuaSandbox({ budgetMs: opts.budgetMs, memoryLimitBytes: opts.memoryLimitBytes, nowMs: opts.nowMs });
  let user = mergeCustomizations(opts.customizations ?? []);
  const builtinList = opts.builtin === false ? [] : Array.isArray(opts.builtin) ? opts.builtin : builtinCustomizations();
  const builtin = mergeCustomizations(builtinList);
  const library = mergeCustomizations(opts.library ?? []);
  const healthChecks = opts.healthChecks;
  // Health checks run with Argo CD's string library, which RIC scripts must not see: a sandbox of their own.
  let argoSandbox: LuaSandbox | undefined;
  const argoSb = () => (argoSandbox ??= new LuaSandbox({ budgetMs: opts.budgetMs ?? sandbox.budgetMs, memoryLimitBytes: opts.memoryLimitBytes, nowMs: opts.nowMs, stringLibrary: 'argocd' }));
  const native = opts.native === false ? null : opts.native instanceof NativeInterpreter ? opts.native : new NativeInterpreter();

  const luaEnabled = (t: TargetScripts | undefined, op: Operation): boolean => {
    if (!t) return false;
    if (op === 'InterpretDependency') return t.dependencyScripts.length > 0;
    return (t.scripts[op]?.script ?? '') !== '';
  };

  const findLayer = (gvk: GVK, op: Operation): Layer | null => {
    const key = gvkKey(gvk);
    if (luaEnabled(user.get(key), op)) return 'customization';
    if (luaEnabled(library.get(key), op)) return 'library';
    if (op === 'InterpretHealth' && healthChecks && healthCheckFor(healthChecks, gvk)) return 'health-check';
    if (luaEnabled(builtin.get(key), op)) return 'builtin';
    if (native?.hookEnabled(gvk, op)) return 'native';
    return null;
  };
  // Answers per apiVersion, kind and operation (the core asks before every call); cleared when the
  // user's RICs change. The native layer's handlers are fixed once the interpreter exists.
  let layers = new Map<string, Map<string, Partial<Record<Operation, Layer | null>>>>();
  const layerFor = (gvk: GVK, op: Operation): Layer | null => {
    let byKind = layers.get(gvk.apiVersion);
    if (!byKind) layers.set(gvk.apiVersion, (byKind = new Map()));
    let byOp = byKind.get(gvk.kind);
    if (!byOp) byKind.set(gvk.kind, (byOp = {}));
    let layer = byOp[op];
    if (layer === undefined) byOp[op] = layer = findLayer(gvk, op);
    return layer;
  };

  // Resolutions per apiVersion, kind and operation; cleared when the user's RICs change.
  type Resolution = { gvk: GVK; scripts: TargetScripts | null } | null;
  let resolved = new Map<string, Map<string, Partial<Record<Operation, Resolution>>>>();

  /** The Lua scripts of the answering layer, or null when the native layer (or nothing) answers. */
  const resolve = (obj: KubeObject, op: Operation): { gvk: GVK; scripts: TargetScripts | null } => {
    const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
    const kind = typeof obj.kind === 'string' ? obj.kind : '';
    let byKind = resolved.get(apiVersion);
    if (!byKind) resolved.set(apiVersion, (byKind = new Map()));
    let byOp = byKind.get(kind);
    if (!byOp) byKind.set(kind, (byOp = {}));
    let r = byOp[op];
    if (r === undefined) {
      const gvk = { apiVersion, kind };
      const layer = layerFor(gvk, op);
      if (layer === 'customization') r = { gvk, scripts: user.get(gvkKey(gvk))! };
      else if (layer === 'library') r = { gvk, scripts: library.get(gvkKey(gvk))! };
      else if (layer === 'health-check') r = { gvk, scripts: null };
      else if (layer === 'builtin') r = { gvk, scripts: builtin.get(gvkKey(gvk))! };
      else if (layer === 'native' || native) r = { gvk, scripts: null };
      else r = null;
      byOp[op] = r;
    }
    if (r === null) throw new InterpreterError(NOT_ENABLED, op);
    return r;
  };
  const script = (t: TargetScripts, op: Exclude<Operation, 'InterpretDependency'>) => t.scripts[op]!;
  const nativeOrFail = (op: Operation): NativeInterpreter => {
    if (!native) throw new InterpreterError(NOT_ENABLED, op);
    return native;
  };

  // One memo per script and operation: a script replaced by a RIC update starts with an empty one.
  const memos = new WeakMap<ScriptEntry, OperationMemo<unknown>>();
  const totals = Object.fromEntries(MEMOIZED.map((op) => [op, { hits: 0, misses: 0, unremembered: 0, results: 0 }])) as Record<MemoizedOperation, MemoStats>;
  const memoized = <A, T>(op: MemoizedOperation, entry: ScriptEntry, obj: A, run: (sb: LuaSandbox, e: ScriptEntry, o: A) => T, sb: LuaSandbox = sandbox): T => {
    if (!opts.memoize) return run(sb, entry, obj);
    let memo = memos.get(entry) as OperationMemo<T> | undefined;
    if (!memo) {
      memo = new OperationMemo<T>({ stats: totals[op] });
      memos.set(entry, memo as OperationMemo<unknown>);
    }
    return memo.call(obj, (arg) => {
      const before = sb.impureCalls;
      const value = run(sb, entry, arg as A);
      return { value, pure: sb.impureCalls === before };
    });
  };

  // One memo entry per health check script, as per RIC script.
  const argoEntries = new Map<string, ScriptEntry>();
  const argoHealth = (obj: KubeObject): HealthResult => {
    const check = healthCheckFor(healthChecks!, gvkOf(obj))!;
    let entry = argoEntries.get(check.file);
    if (!entry) argoEntries.set(check.file, (entry = { script: check.script }));
    const argo = argoSb();
    const before = argo.impureCalls;
    try {
      return memoized('InterpretHealth', entry, obj, (sb, _e, o) => runHealthCheck(sb, check, o), argo);
    } finally {
      // Callers judge a call's purity by `sandbox.impureCalls` (the worker, the pooled cache): count these too.
      sandbox.impureCalls += argo.impureCalls - before;
    }
  };
  const enabled = (obj: KubeObject, op: Operation) => interp.hookEnabled(gvkOf(obj), op);
  const interp: Interpreter = {
    sandbox,
    orDefault: {
      getReplicas: (obj) => (enabled(obj, 'InterpretReplica') ? interp.getReplicas(obj) : { replicas: 0, requirements: null }),
      getComponents: (obj) => (enabled(obj, 'InterpretComponent') ? (interp.getComponents(obj) ?? []) : []),
      reviseReplica: (obj, n) => (enabled(obj, 'ReviseReplica') ? interp.reviseReplica(obj, n) : obj),
      retain: (desired, observed) => (enabled(desired, 'Retain') ? interp.retain(desired, observed) : desired),
      aggregateStatus: (obj, items) => (enabled(obj, 'AggregateStatus') ? interp.aggregateStatus(obj, items) : obj),
      getDependencies: (obj) => (enabled(obj, 'InterpretDependency') ? interp.getDependencies(obj) : []),
    },
    setCustomizations(rics) {
      user = mergeCustomizations(rics);
      resolved = new Map();
      layers = new Map();
    },
    layerFor,
    memoStats: () => totals,
    hookEnabled: (gvk, op) => layerFor(gvk, op) !== null,
    retain(desired, observed) {
      const { gvk, scripts } = resolve(desired, 'Retain');
      const lua = (d: KubeObject, o: KubeObject) => luaRetain(sandbox, script(scripts!, 'Retain'), d, o);
      if (scripts) return layerFor(gvk, 'Retain') === 'builtin' ? retainWithNulls(gvk, desired, observed, lua) : lua(desired, observed);
      return nativeOrFail('Retain').retain(gvk, desired, observed);
    },
    getReplicas(obj) {
      const { gvk, scripts } = resolve(obj, 'InterpretReplica');
      if (scripts) return memoized('InterpretReplica', script(scripts, 'InterpretReplica'), obj, luaGetReplicas);
      return nativeOrFail('InterpretReplica').getReplicas(gvk, obj);
    },
    getComponents(obj) {
      const { scripts } = resolve(obj, 'InterpretComponent');
      if (scripts) return luaGetComponents(sandbox, script(scripts, 'InterpretComponent'), obj);
      throw new InterpreterError('no plan to implement this method yet', 'InterpretComponent');
    },
    reviseReplica(obj, replicas) {
      const { gvk, scripts } = resolve(obj, 'ReviseReplica');
      if (scripts) return luaReviseReplica(sandbox, script(scripts, 'ReviseReplica'), obj, replicas);
      return nativeOrFail('ReviseReplica').reviseReplica(gvk, obj, replicas);
    },
    reflectStatus(obj) {
      const { gvk, scripts } = resolve(obj, 'InterpretStatus');
      if (scripts) return memoized('InterpretStatus', script(scripts, 'InterpretStatus'), obj, luaReflectStatus);
      return nativeOrFail('InterpretStatus').reflectStatus(gvk, obj);
    },
    aggregateStatus(obj, items) {
      const { gvk, scripts } = resolve(obj, 'AggregateStatus');
      if (scripts) return luaAggregateStatus(sandbox, script(scripts, 'AggregateStatus'), obj, items);
      return nativeOrFail('AggregateStatus').aggregateStatus(gvk, obj, items);
    },
    aggregatedStatus(obj, items) {
      const { gvk, scripts } = resolve(obj, 'AggregateStatus');
      if (!scripts) return nativeOrFail('AggregateStatus').aggregateStatus(gvk, obj, items).status;
      // Both arguments in one object, so that the memo sees the reads of either.
      const args = { obj, items: itemsForLua(items) };
      return memoized('AggregateStatus', script(scripts, 'AggregateStatus'), args, (sb, e, a) => luaAggregatedStatus(sb, e, a.obj, a.items));
    },
    interpretHealth(obj) {
      if (interp.layerFor(gvkOf(obj), 'InterpretHealth') === 'health-check') {
        // The boolean form knows no Unknown: a health check's other statuses are an error here.
        const d = interp.healthDetail(obj);
        if (d.health === 'Unknown') throw new InterpreterError(d.error ?? `health is Unknown${d.message ? `: ${d.message}` : ''}`, 'InterpretHealth');
        return d.health === 'Healthy';
      }
      const { gvk, scripts } = resolve(obj, 'InterpretHealth');
      if (scripts) return memoized('InterpretHealth', script(scripts, 'InterpretHealth'), obj, luaInterpretHealth);
      return nativeOrFail('InterpretHealth').interpretHealth(gvk, obj);
    },
    health(obj) {
      return interp.healthDetail(obj).health;
    },
    hasHealthChecks: !!healthChecks,
    healthCheckFor: (gvk) => (healthChecks && layerFor(gvk, 'InterpretHealth') === 'health-check' ? healthCheckFor(healthChecks, gvk) : undefined),
    healthDetail(obj) {
      const gvk = gvkOf(obj);
      const layer = interp.layerFor(gvk, 'InterpretHealth');
      if (layer === null) return { health: 'Healthy' };
      try {
        if (layer !== 'health-check') return { health: interp.interpretHealth(obj) ? 'Healthy' : 'Unhealthy' };
        const r = argoHealth(obj);
        return r.message ? { health: mapArgoHealth(r.status), message: r.message } : { health: mapArgoHealth(r.status) };
      } catch (e) {
        return { health: 'Unknown', error: errorMessage(e) };
      }
    },
    getDependencies(obj) {
      const { gvk, scripts } = resolve(obj, 'InterpretDependency');
      if (scripts) {
        const lists = scripts.dependencyScripts.map((s) => {
          const deps = luaGetDependencies(sandbox, s, obj);
          verifyDependencies(deps);
          return deps;
        });
        return mergeDependencies(lists);
      }
      const deps = nativeOrFail('InterpretDependency').getDependencies(gvk, obj);
      verifyDependencies(deps);
      return mergeDependencies([deps]);
    },
  };
  return interp;
}
