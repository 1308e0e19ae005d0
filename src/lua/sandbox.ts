/**
 * One long-lived Lua state that runs Karmada customization scripts in isolation.
 *
 * - Compile once: each script's chunk is compiled on first use and cached by content.
 * - Fresh globals per call: globals live in a raw-empty table that reads through to the base library
 *   table and records writes; after every call the recorded writes are removed, so nothing a script or
 *   a call defines is visible to another. Library tables are protected the same way. A chunk whose top
 *   level cannot hold state (reuse.ts) runs once; otherwise it runs before every call, as in Karmada.
 * - Budgets: an instruction-count hook checks the deadline and the heap; long-running library code
 *   (pattern matching, string building, table loops, result encoding) checks it too, and so do
 *   instructions whose cost grows with their operands. An abort is a JS exception (LuaAbort) that
 *   unwinds straight to this sandbox's own protected call: no pcall, xpcall or message handler in the
 *   script gets control again, and hooks run inside message handlers like anywhere else.
 * - Arguments: an object passed again (the calls of one reconcile, a loop over one object) reuses the
 *   Lua tables an earlier call built for it while no write touched them and the object still matches
 *   them (convert.ts ConvertedArgs).
 * - Memory: strings are counted as they are built; heap and external memory are sampled in the hook.
 *   The state is not re-entrant and keeps serving after any failure.
 * - Engine: with `engine: 'auto'` a script the compiler takes runs as JavaScript compiled once
 *   (compiled/), with the same budgets, libraries and texts; its results land on this state's stack for
 *   the same result readers. Any other script runs here as before.
 */
import { getHeapStatistics } from 'node:v8';
import { ConvertedArgs, installLazyMeta, lazyTables, ResultSizeError } from './convert.js';
import {
  fengariInternals,
  installPatches,
  lauxlib,
  LuaAbort,
  lua,
  MAX_STRING_BYTES,
  nativeErrorText,
  noteLongString,
  pushString,
  guardInstructions,
  HOOK_EVERY,
  setAccounting,
  setRunning,
  type HashAccounting,
  to_jsstring,
  to_luastring,
  type StateAccounting,
  toBytes,
  toJsString,
  type LuaState,
} from './fengari.js';
import { boundMessage, messageFromBytes } from './message.js';
import { chunkIsReusable } from './reuse.js';
import { newProtected, openLibraries, pushRecordingProxy, resetProtected, type Libraries, type Protected } from './stdlib.js';
import { gopherCompileMessage, lua51Violation } from './syntax.js';
import type * as CompiledLua from './compiled/index.js';
import type { RuntimeHost } from './compiled/runtime.js';

export interface SandboxOptions {
  /** Wall-clock budget per call in milliseconds (default 1000, Karmada's 1 s). */
  budgetMs?: number;
  /** Heap growth plus string bytes a single call may allocate (default 256 MiB). */
  memoryLimitBytes?: number;
  /** Compiled scripts kept (least recently used beyond this are dropped). */
  maxCachedScripts?: number;
  /** Where `print` goes; discarded by default so scripts cannot write to the controller's output. */
  print?: (line: string) => void;
  /** Clock for os.time/os.date (tests pin it). */
  nowMs?: () => number;
  /**
   * 'argocd': string.gsub and string.rep work, for Argo CD health checks (argocd-strings.ts). Default
   * 'karmada': both refused with Karmada's text, as in every RIC script.
   */
  stringLibrary?: 'karmada' | 'argocd';
  /**
   * 'auto': scripts the compiler takes (compiled/) run as JS compiled once, the others on fengari; decided
   * once per script. Needs `await loadCompiledLua()` first. Default 'fengari'.
   */
  engine?: 'fengari' | 'auto';
}

/** The compiling path, loaded only when asked for: a process on fengari alone never reads luaparse and the compiler. */
let compiledLua: typeof CompiledLua | undefined;

/** Loads the compiling path (compiled/) for sandboxes made with `engine: 'auto'`; once per process. */
export async function loadCompiledLua(): Promise<void> {
  compiledLua ??= await import('./compiled/index.js');
}

/**
 * Why a call failed: the script's own error, a compile error, or a budget it exceeded. An abort that is
 * no budget (the JS stack overflowed) is 'runtime' too.
 */
export type LuaFailureKind = 'compile' | 'runtime' | 'timeout' | 'memory';

export class LuaScriptError extends Error {
  constructor(
    message: string,
    readonly kind: LuaFailureKind,
  ) {
    // Whatever built the message (a compile error quoting the script, a result check quoting the result):
    // it leaves the sandbox bounded (message.ts).
    super(boundMessage(message));
    this.name = 'LuaScriptError';
  }
}

interface CallState {
  deadline: number;
  heapStart: number;
  hooks: number;
  aborted: LuaFailureKind | null;
  abortMessage: string;
  op: string;
}

const STACK_SLOTS = 16384;
const STACK_RESET_EVERY = 4096;
const EXTRA_STACK = 5;
const TValue = fengariInternals.lobject.TValue;
const MAX_CALL_DEPTH = 256;

/** JS heap plus external memory: Lua strings are byte arrays, whose large backing stores live outside the heap. */
function memoryInUse(): number {
  const h = getHeapStatistics();
  return h.used_heap_size + h.external_memory;
}

function callDepthExceeds(L: LuaState, max: number): boolean {
  let ci = L.ci;
  for (let d = 0; ci; d++) {
    if (d > max) return true;
    ci = ci.previous;
  }
  return false;
}
const HEAP_CHECK_EVERY = 16;

/** JS allocation failures: the call ran out of memory, whatever the heap sampling saw so far. */
const ALLOCATION_FAILURE = /allocation failed|invalid (typed )?array length|invalid string length|out of memory/i;

function formatBudget(ms: number): string {
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  if (ms > 1000) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** A compiled script: its chunk (run before every call) and, when safe, a run-once environment. */
interface Compiled {
  chunkRef: number;
  /** Length of the chunk's longest string constant. */
  longestConstant: number;
  /** undefined: not tried yet; null: the chunk must run before every call. */
  reuse?: ReusableChunk | null;
}

interface ReusableChunk {
  /** Per-call global layer: raw-empty, reads through to the chunk's globals, writes recorded. */
  env: Protected;
  /** Entry functions already looked up. */
  fnRefs: Map<string, number>;
}

/** Reads what a call returned, with the Lua stack holding the results at 1..n; `ctx` is run()'s last argument. */
export type ResultReader<T, C = undefined> = (L: LuaState, nresults: number, ctx: C) => T;

export class LuaSandbox {
  readonly budgetMs: number;
  readonly memoryLimitBytes: number;
  private readonly L: LuaState;
  private readonly libs: Libraries;
  private readonly cache = new Map<string, Compiled | string>();
  /** Arguments converted by earlier calls, reused while unchanged (convert.ts). */
  private readonly args = new ConvertedArgs();
  private readonly maxCached: number;
  private call: CallState | null = null;
  private calls = 0;
  private lookups = 0;
  private readonly print: (line: string) => void;
  private readonly nowMs: () => number;
  private readonly acc: StateAccounting;
  private readonly hashAcc: HashAccounting;
  /**
   * Library calls so far that saw more than the script's arguments (clock, random numbers, table
   * addresses, print): a call during which this did not move is a pure function of what it read.
   */
  impureCalls = 0;
  /** The compiling path ('auto'), or null. */
  readonly compiledEngine: CompiledLua.CompiledEngine | null = null;
  private readonly compiledHost: RuntimeHost;

  constructor(readonly options: SandboxOptions = {}) {
    const opts = options;
    installPatches();
    this.budgetMs = opts.budgetMs ?? 1000;
    this.memoryLimitBytes = opts.memoryLimitBytes ?? 256 * 1024 * 1024;
    this.maxCached = opts.maxCachedScripts ?? 2000;
    this.print = opts.print ?? (() => {});
    this.nowMs = opts.nowMs ?? Date.now;
    const L = lauxlib.luaL_newstate();
    this.L = L;
    installLazyMeta(L);
    this.libs = openLibraries(L, {
      tick: (L) => this.tick(L),
      aborted: () => this.call?.aborted != null,
      allocated: (L, bytes) => {
        if (!this.call) return;
        this.acc.stringBytes += bytes;
        if (bytes > MAX_STRING_BYTES) this.abort(L, 'memory', `string of ${bytes} bytes exceeds the ${MAX_STRING_BYTES} byte limit`);
        if (this.acc.stringBytes > this.memoryLimitBytes) this.abort(L, 'memory', `script built more than ${this.memoryLimitBytes} bytes of strings`);
        this.tick(L);
      },
      reserve: (L, bytes) => {
        if (!this.call) return;
        if (bytes > MAX_STRING_BYTES) this.abort(L, 'memory', `string of ${bytes} bytes exceeds the ${MAX_STRING_BYTES} byte limit`);
        if (this.acc.stringBytes + bytes > this.memoryLimitBytes) this.abort(L, 'memory', `script built more than ${this.memoryLimitBytes} bytes of strings`);
      },
      print: (line) => {
        this.impureCalls++;
        this.print(line);
      },
      nowMs: () => {
        this.impureCalls++;
        return this.nowMs();
      },
      impure: () => {
        this.impureCalls++;
      },
      argocdStrings: opts.stringLibrary === 'argocd',
    });
    this.acc = {
      stringBytes: 0,
      limit: this.memoryLimitBytes,
      onStringLimit: (L, size) => {
        const c = this.call;
        if (!c) return;
        if (size > MAX_STRING_BYTES) this.abort(L, 'memory', `string of ${size} bytes exceeds the ${MAX_STRING_BYTES} byte limit`);
        this.abort(L, 'memory', `script built more than ${this.memoryLimitBytes} bytes of strings`);
      },
      onLargeString: (L) => this.hook(L, false),
      isAborted: () => this.call?.aborted != null,
      abortText: () => (this.call?.aborted ? this.abortText(this.call) : ''),
      nativeError: (e) => {
        const c = this.call;
        if (!c) return false;
        if (e instanceof LuaScriptError && (e.kind === 'timeout' || e.kind === 'memory')) this.mark(e.kind, e.message);
        else if (e instanceof RangeError && ALLOCATION_FAILURE.test(e.message)) this.mark('memory', e.message);
        // A JS stack overflow can leave a library structure half-updated: the call ends there.
        else if (e instanceof RangeError && nativeErrorText(e) === 'stack overflow') this.mark('runtime', 'stack overflow');
        return c.aborted != null;
      },
    };
    this.hashAcc = {
      onHash: (bytes) => {
        if (!this.call) return;
        this.acc.stringBytes += bytes;
        if (this.acc.stringBytes > this.memoryLimitBytes) this.abort(L, 'memory', `script built more than ${this.memoryLimitBytes} bytes of strings`);
        this.tick(L);
      },
    };
    setAccounting(L, this.acc);
    // The compiler still runs under fengari's own protected call: give its JS exceptions their text.
    lua.lua_atnativeerror(L, (L: LuaState) => {
      lua.lua_pushstring(L, to_luastring(nativeErrorText(lua.lua_touserdata(L, -1) as unknown)));
      return 1;
    });
    lua.lua_sethook(L, (L: LuaState) => this.hook(L, true), lua.LUA_MASKCOUNT, HOOK_EVERY);
    this.resetStack();
    this.compiledHost = {
      tick: () => this.hook(L, false),
      stringBuilt: (bytes) => {
        if (!this.call) return;
        this.acc.stringBytes += bytes;
        if (bytes > MAX_STRING_BYTES || this.acc.stringBytes > this.acc.limit) this.acc.onStringLimit(L, bytes);
        if (bytes > 65536) this.hook(L, false);
      },
      impure: () => {
        this.impureCalls++;
      },
    };
    if (opts.engine === 'auto') {
      if (!compiledLua) throw new Error("engine 'auto' needs the compiling path loaded first: await loadCompiledLua() before making the sandbox");
      this.compiledEngine = new compiledLua.CompiledEngine(L, this.libs.baseRef, this.maxCached);
    }
  }

  /**
   * fengari shrinks its stack with `delete`, which soon turns the stack array into a slow dictionary in
   * V8 (a sparse array of 64+ slots). A large array kept full of values stays dense; it is rebuilt now
   * and then, between calls, when no open upvalue points into it.
   */
  private resetStack(): void {
    const L = this.L;
    const size = Math.max(STACK_SLOTS, L.stack.length);
    const fresh = new Array(size);
    // Slots below top are live; the rest are cleared so stale ones release what they held.
    for (let i = 0; i < size; i++) {
      const slot = L.stack[i];
      if (i < L.top) fresh[i] = slot;
      else if (slot === undefined) fresh[i] = new TValue(lua.LUA_TNIL, null);
      else {
        slot.setnilvalue();
        fresh[i] = slot;
      }
    }
    L.stack = fresh;
    L.stack_last = size - EXTRA_STACK;
  }

  /** Compiles without running; returns null or the gopher-style compile error. Cached. */
  compile(script: string): string | null {
    const r = this.compiled(script);
    return typeof r === 'string' ? r : null;
  }

  private compiled(script: string): Compiled | string {
    const hit = this.cache.get(script);
    if (hit !== undefined) {
      // Re-inserting keeps the map in least-recently-used order; doing it for every call would cost
      // more than the eviction accuracy is worth, so only now and then.
      if ((++this.lookups & 63) === 0) {
        this.cache.delete(script);
        this.cache.set(script, hit);
      }
      return hit;
    }
    const L = this.L;
    let result: Compiled | string;
    const violation = lua51Violation(script);
    // A compile error can quote the script (a token near the error): bounded like every script message, for
    // compile() callers (validate, the webhook) too.
    if (violation) result = boundMessage(violation);
    else {
      const status = lauxlib.luaL_loadbuffer(L, to_luastring(script), null, to_luastring('=<string>'));
      if (status !== lua.LUA_OK) {
        result = boundMessage(gopherCompileMessage(script, toJsString(L, -1)));
        lua.lua_pop(L, 1);
      } else {
        const longestConstant = guardInstructions(L);
        lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, this.libs.envRef);
        lua.lua_setupvalue(L, -2, 1);
        result = { chunkRef: lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX), longestConstant };
      }
    }
    this.cache.set(script, result);
    if (this.cache.size > this.maxCached) {
      const [oldKey, oldVal] = this.cache.entries().next().value as [string, Compiled | string];
      this.cache.delete(oldKey);
      if (typeof oldVal !== 'string') this.release(oldVal);
    }
    return result;
  }

  /**
   * Runs `script`, then calls its global function `fnName` with the arguments `pushArgs` pushes, and
   * hands the results to `read` (still inside the budget). Throws LuaScriptError with Karmada's texts:
   * `not found function F`, `F is not a function: table`, `<string>:3: ...`.
   */
  run<T, C = undefined>(
    script: string,
    fnName: string,
    op: string,
    pushArgs: ((L: LuaState) => number) | readonly unknown[],
    nresults: number,
    read: ResultReader<T, C>,
    ctx?: C,
  ): T {
    const L = this.L;
    if (this.call) throw new Error('LuaSandbox is not re-entrant: run calls must not nest');
    const start = performance.now();
    this.call = {
      deadline: start + this.budgetMs,
      heapStart: -1,
      hooks: 0,
      aborted: null,
      abortMessage: '',
      op,
    };
    this.acc.stringBytes = 0;
    setRunning(L, this.hashAcc);
    // A previous call that held long strings made the count hook come sooner: back to the usual pace.
    if (L.basehookcount !== HOOK_EVERY) {
      L.basehookcount = HOOK_EVERY;
      L.hookcount = HOOK_EVERY;
    }
    let reuseEnv: Protected | null = null;
    try {
      const js = this.compiledEngine?.chunk(script);
      if (js) {
        const out = this.runCompiled(js, fnName, pushArgs, nresults, read, ctx);
        if (out !== HOST_METATABLES) return out as T;
      }
      const chunk = this.compiled(script);
      if (typeof chunk === 'string') throw new LuaScriptError(chunk, 'compile');
      noteLongString(L, chunk.longestConstant);
      lua.lua_settop(L, 0);
      if (chunk.reuse === undefined) chunk.reuse = this.prepareReuse(script);
      if (chunk.reuse) {
        reuseEnv = chunk.reuse.env;
        this.pushReusedFunction(chunk.reuse, fnName);
      }
      else {
        lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, chunk.chunkRef);
        if (lua.lua_pcall(L, 0, 0, 0) !== lua.LUA_OK) throw this.failure();
        lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, this.libs.envRef);
        pushString(L, fnName);
        lua.lua_gettable(L, -2);
        lua.lua_remove(L, -2);
        checkEntry(L, fnName);
      }
      let nargs: number;
      if (typeof pushArgs === 'function') nargs = pushArgs(L);
      else {
        // Arguments as decoded JSON (lazy tables): callers need no closure per call.
        for (let i = 0; i < pushArgs.length; i++) this.args.push(L, pushArgs[i]);
        nargs = pushArgs.length;
      }
      if (lua.lua_pcall(L, nargs, nresults, 0) !== lua.LUA_OK) throw this.failure();
      const out = read(L, nresults, ctx as C);
      this.checkDeadline();
      return out;
    } catch (e) {
      const c = this.call;
      if (c?.aborted) throw new LuaScriptError(this.abortText(c), c.aborted);
      if (e instanceof LuaScriptError) throw e;
      if (e instanceof ResultSizeError) throw new LuaScriptError(`${op}: ${e.message}`, 'memory');
      // JS failures outside the VM (reading a result nested too deeply): the call fails with their text.
      if (e instanceof RangeError) throw new LuaScriptError(nativeErrorText(e), ALLOCATION_FAILURE.test(e.message) ? 'memory' : 'runtime');
      throw e;
    } finally {
      setRunning(null, null);
      this.args.release();
      this.cleanup(reuseEnv);
      this.call = null;
      if (++this.calls % STACK_RESET_EVERY === 0) this.resetStack();
    }
  }

  /** run() on the compiling path: the results pushed onto the fengari stack for `read`, as fengari's would be. */
  private runCompiled<T, C>(
    chunk: NonNullable<ReturnType<CompiledLua.CompiledEngine['chunk']>>,
    fnName: string,
    pushArgs: ((L: LuaState) => number) | readonly unknown[],
    nresults: number,
    read: ResultReader<T, C>,
    ctx: C | undefined,
  ): T | typeof HOST_METATABLES {
    const L = this.L;
    const engine = this.compiledEngine!;
    const { fromJs, EntryError, LuaError } = compiledLua!;
    let args: unknown[];
    lua.lua_settop(L, 0);
    if (typeof pushArgs === 'function') {
      const n = pushArgs(L);
      // A host that pushes tables with metatables of its own (tests do): only fengari runs those.
      for (let i = 1; i <= n; i++) {
        if (hasForeignMetatable(L, i)) {
          lua.lua_settop(L, 0);
          return HOST_METATABLES;
        }
      }
      args = [];
      for (let i = 1; i <= n; i++) args.push(engine.rt.toValue(i));
      lua.lua_settop(L, 0);
    } else {
      args = new Array(pushArgs.length);
      for (let i = 0; i < pushArgs.length; i++) args[i] = fromJs(pushArgs[i]);
    }
    let results: unknown[];
    try {
      results = engine.call(chunk, fnName, args, this.compiledHost);
    } catch (e) {
      if (e instanceof EntryError) throw new LuaScriptError(e.message, 'runtime');
      if (e instanceof LuaError && !this.call?.aborted) {
        lua.lua_settop(L, 0);
        engine.rt.pushValue(e.value);
        throw this.failure();
      }
      throw e;
    }
    lua.lua_settop(L, 0);
    lua.lua_checkstack(L, nresults + 4);
    for (let i = 0; i < nresults; i++) engine.rt.pushValue(results[i]);
    const out = read(L, nresults, ctx as C);
    this.checkDeadline();
    return out;
  }

  /**
   * Runs the chunk once into its own global table when that is indistinguishable from running it per
   * call (see reuse.ts). Returns null when the chunk must run before every call.
   */
  private prepareReuse(script: string): ReusableChunk | null {
    const L = this.L;
    if (lauxlib.luaL_loadbuffer(L, to_luastring(script), null, to_luastring('=<string>')) !== lua.LUA_OK) {
      lua.lua_settop(L, 0);
      return null;
    }
    const chunkIdx = lua.lua_gettop(L);
    if (!chunkIsReusable(L.stack[L.top - 1].value.p)) {
      lua.lua_settop(L, 0);
      return null;
    }
    guardInstructions(L);
    // D: the chunk's own globals, reading through to the base library. The base entries are copied in
    // too (library tables stay the shared protected proxies): one lookup fewer for every global read.
    lua.lua_createtable(L, 0, 64);
    const D = lua.lua_gettop(L);
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, this.libs.baseRef);
    lua.lua_pushnil(L);
    while (lua.lua_next(L, -2) !== 0) {
      lua.lua_pushvalue(L, -2);
      lua.lua_insert(L, -2);
      lua.lua_rawset(L, D);
    }
    lua.lua_pop(L, 1);
    lua.lua_createtable(L, 0, 1);
    pushString(L, '__index');
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, this.libs.baseRef);
    lua.lua_rawset(L, -3);
    lua.lua_setmetatable(L, D);
    lua.lua_pushvalue(L, D);
    lua.lua_setupvalue(L, chunkIdx, 1);
    lua.lua_pushvalue(L, chunkIdx);
    if (lua.lua_pcall(L, 0, 0, 0) !== lua.LUA_OK) {
      lua.lua_settop(L, 0);
      return null;
    }
    // E: the per-call layer every function of the chunk now sees as _ENV.
    const env = newProtected(true);
    pushRecordingProxy(L, D, env);
    const E = lua.lua_gettop(L);
    pushString(L, '_G');
    lua.lua_pushvalue(L, E);
    lua.lua_rawset(L, D);
    lua.lua_pushvalue(L, E);
    lua.lua_setupvalue(L, chunkIdx, 1);
    lua.lua_pushvalue(L, E);
    env.ref = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
    lua.lua_settop(L, 0);
    return { env, fnRefs: new Map() };
  }

  private pushReusedFunction(r: ReusableChunk, fnName: string): void {
    const L = this.L;
    const ref = r.fnRefs.get(fnName);
    if (ref !== undefined) {
      lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, ref);
      return;
    }
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, r.env.ref);
    pushString(L, fnName);
    lua.lua_gettable(L, -2);
    lua.lua_remove(L, -2);
    checkEntry(L, fnName);
    lua.lua_pushvalue(L, -1);
    r.fnRefs.set(fnName, lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX));
  }

  private release(c: Compiled): void {
    const L = this.L;
    lauxlib.luaL_unref(L, lua.LUA_REGISTRYINDEX, c.chunkRef);
    if (c.reuse) {
      lauxlib.luaL_unref(L, lua.LUA_REGISTRYINDEX, c.reuse.env.ref);
      for (const ref of c.reuse.fnRefs.values()) lauxlib.luaL_unref(L, lua.LUA_REGISTRYINDEX, ref);
    }
  }

  /** checkDeadline as a function value made once (encoders take it as their `tick`). */
  readonly deadlineCheck: () => void = () => this.checkDeadline();

  /** Throws if the running call is over budget; for JS code working on a call's behalf. */
  checkDeadline(): void {
    const c = this.call;
    if (c && (c.aborted || performance.now() > c.deadline)) {
      if (!c.aborted) c.aborted = 'timeout';
      throw new LuaScriptError(this.abortText(c), c.aborted);
    }
  }

  private abortText(c: CallState): string {
    if (c.aborted === 'memory') return `${c.op}: script exceeded its memory limit (${c.abortMessage})`;
    if (c.aborted === 'runtime') return c.abortMessage;
    return `${c.op}: script exceeded its ${formatBudget(this.budgetMs)} budget`;
  }

  private failure(): LuaScriptError {
    const c = this.call!;
    if (c.aborted) return new LuaScriptError(this.abortText(c), c.aborted);
    const L = this.L;
    const t = lua.lua_type(L, -1);
    if (t === lua.LUA_TNUMBER) return new LuaScriptError(toJsString(L, -1), 'runtime');
    // Any other value as tostring gives it (a table's __tostring runs under the budget); of the string,
    // only the prefix that is kept is ever decoded (message.ts).
    if (t !== lua.LUA_TSTRING) lauxlib.luaL_tolstring(L, -1);
    return new LuaScriptError(messageFromBytes(toBytes(L, -1)), 'runtime');
  }

  /** The count hook (`fromHook`), and the same checks of clock and heap for long library work. */
  private hook(L: LuaState, fromHook: boolean): void {
    const c = this.call;
    if (!c) return;
    if (c.aborted) throw new LuaAbort(this.abortText(c));
    if (performance.now() > c.deadline) this.abort(L, 'timeout', '');
    if (fromHook && callDepthExceeds(L, MAX_CALL_DEPTH)) {
      // gopher-lua's call stack holds 256 frames; deeper recursion fails there too. The error runs the
      // script's message handler, if any: fengari turns hooks off inside a hook, so turn them back on
      // or the handler would run unchecked.
      L.allowhook = 1;
      lauxlib.luaL_error(L, to_luastring('stack overflow'));
    }
    if (c.heapStart < 0) c.heapStart = memoryInUse();
    else if (++c.hooks % HEAP_CHECK_EVERY === 0) {
      const grown = memoryInUse() - c.heapStart;
      if (grown > this.memoryLimitBytes) this.abort(L, 'memory', `heap grew by ${grown} bytes`);
    }
  }

  private tick(L: LuaState): void {
    const c = this.call;
    if (!c) return;
    if (c.aborted) throw new LuaAbort(this.abortText(c));
    if (performance.now() > c.deadline) this.abort(L, 'timeout', '');
  }

  /** Records why the call ends (the first reason wins). */
  private mark(kind: LuaFailureKind, detail: string): void {
    const c = this.call!;
    if (!c.aborted) {
      c.aborted = kind;
      c.abortMessage = detail;
    }
  }

  /** Ends the call: nothing in the script can catch this (see LuaAbort). */
  private abort(_L: LuaState, kind: LuaFailureKind, detail: string): never {
    this.mark(kind, detail);
    throw new LuaAbort(this.abortText(this.call!));
  }

  /** Undoes every global and library write of the finished call. */
  private cleanup(extra: Protected | null): void {
    const L = this.L;
    lua.lua_settop(L, 0);
    for (const p of this.libs.protectedTables) if (p.dirty) resetProtected(L, p);
    if (extra !== null && extra.dirty) resetProtected(L, extra);
  }
}

/** runCompiled's answer when the arguments need fengari after all. */
const HOST_METATABLES: unique symbol = Symbol('host metatables');

/** Whether the value at idx is, or holds, a table with a metatable other than a converted object's. */
function hasForeignMetatable(L: LuaState, idx: number, seen = new Set<object>()): boolean {
  if (lua.lua_type(L, idx) !== lua.LUA_TTABLE) return false;
  const t = L.stack[idx > 0 ? L.ci.funcOff + idx : L.top + idx].value as { metatable: unknown };
  if (seen.has(t)) return false;
  seen.add(t);
  if (t.metatable !== null && t.metatable !== undefined && lazyTables.get(t) === undefined) return true;
  const abs = idx > 0 ? idx : lua.lua_gettop(L) + idx + 1;
  lua.lua_checkstack(L, 3);
  lua.lua_pushnil(L);
  while (lua.lua_next(L, abs) !== 0) {
    if (hasForeignMetatable(L, -1, seen) || hasForeignMetatable(L, -2, seen)) {
      lua.lua_pop(L, 2);
      return true;
    }
    lua.lua_pop(L, 1);
  }
  return false;
}

/** Karmada's checks on the entry function: `not found function F`, `F is not a function: <type>`. */
function checkEntry(L: LuaState, fnName: string): void {
  const t = lua.lua_type(L, -1);
  if (t === lua.LUA_TNIL) throw new LuaScriptError(`not found function ${fnName}`, 'runtime');
  if (t !== lua.LUA_TFUNCTION) throw new LuaScriptError(`${fnName} is not a function: ${toJsString0(L, t)}`, 'runtime');
}

function toJsString0(L: LuaState, t: number): string {
  return to_jsstring(lua.lua_typename(L, t));
}
