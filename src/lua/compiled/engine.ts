/**
 * The compiling path of one sandbox: scripts compiled once to JS (compiler.ts) and cached, the library
 * (the hot base, math and table functions native here; the rest — string, os, kube, the refused functions —
 * bridged to the sandbox's own fengari library functions, so their texts and budgets are the fengari
 * path's), fresh globals per call, library tables whose writes are undone after the call.
 */
import * as fengariModule from '../fengari.js';
import { type LuaState } from '../fengari.js';
import { formatLuaNumber, goToNumber } from '../numbers.js';
import { compileLua, Unsupported } from './compiler.js';
import { all, first, LuaError, mod, NONE, Ret, Runtime, strLess, truthy, typeName, type LuaFunction, type RuntimeHost } from './runtime.js';
import { fromByteString, fromJs, LuaTable, toByteString } from './table.js';

const lua: typeof fengariModule.lua = fengariModule.lua;

type Chunk = (G: LuaTable) => unknown;
type Factory = (...helpers: unknown[]) => Chunk;

export interface EngineStats {
  compiled: number;
  fallback: number;
  /** Why each script that fell back did (first line of each script → reason). */
  reasons: Map<string, string>;
}

const HELPERS = ['R', 'LuaTable', 'Ret', 'NONE', 'NEXT', 'first', 'all', 'truthy', 'gget', 'add', 'sub', 'mul', 'div', 'modl', 'pow', 'lt', 'le', 'gt', 'ge', 'neg'];

export class CompiledEngine {
  readonly rt: Runtime;
  private readonly base: LuaTable;
  private readonly cache = new Map<string, Chunk | null>();
  private readonly helpers: unknown[];
  readonly stats: EngineStats = { compiled: 0, fallback: 0, reasons: new Map() };
  private readonly baseNames: Set<string>;

  /** `baseRef`: the registry reference of the fengari sandbox's base library table. */
  constructor(
    L: LuaState,
    baseRef: number,
    private readonly maxCached = 2000,
  ) {
    const rt = new Runtime(L);
    this.rt = rt;
    this.base = new LuaTable();
    this.baseNames = new Set();
    this.loadBase(L, baseRef);
    const B = this.base;
    const gget = (G: LuaTable, k: string): unknown => {
      const e = G.m.get(k);
      return e !== undefined ? e.v : B.rawget(k);
    };
    const num = (a: unknown, b: unknown): boolean => typeof a === 'number' && typeof b === 'number';
    this.helpers = [
      rt,
      LuaTable,
      Ret,
      NONE,
      this.nextFn,
      first,
      all,
      truthy,
      gget,
      (a: unknown, b: unknown, l: number) => (num(a, b) ? (a as number) + (b as number) : rt.arith('+', a, b, l)),
      (a: unknown, b: unknown, l: number) => (num(a, b) ? (a as number) - (b as number) : rt.arith('-', a, b, l)),
      (a: unknown, b: unknown, l: number) => (num(a, b) ? (a as number) * (b as number) : rt.arith('*', a, b, l)),
      (a: unknown, b: unknown, l: number) => (num(a, b) ? (a as number) / (b as number) : rt.arith('/', a, b, l)),
      (a: unknown, b: unknown, l: number) => (num(a, b) ? mod(a as number, b as number) : rt.arith('%', a, b, l)),
      (a: unknown, b: unknown, l: number) => (num(a, b) ? Math.pow(a as number, b as number) : rt.arith('^', a, b, l)),
      (a: unknown, b: unknown, l: number) => (num(a, b) ? (a as number) < (b as number) : rt.lt(a, b, l)),
      (a: unknown, b: unknown, l: number) => (num(a, b) ? (a as number) <= (b as number) : rt.le(a, b, l)),
      (a: unknown, b: unknown, l: number) => (num(a, b) ? (a as number) > (b as number) : rt.lt(b, a, l)),
      (a: unknown, b: unknown, l: number) => (num(a, b) ? (a as number) >= (b as number) : rt.le(b, a, l)),
      (a: unknown, l: number) => (typeof a === 'number' ? -a : rt.unm(a, l)),
    ];
  }

  /** The base table and library tables, from the fengari sandbox's (functions bridged), then the natives. */
  private loadBase(L: LuaState, baseRef: number): void {
    const rt = this.rt;
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, baseRef);
    const B = lua.lua_gettop(L);
    lua.lua_pushnil(L);
    const libs = new Set(['string', 'math', 'table', 'os']);
    while (lua.lua_next(L, B) !== 0) {
      if (lua.lua_type(L, -2) === lua.LUA_TSTRING) {
        const name = fengariModule.toJsString(L, -2);
        this.baseNames.add(name);
        if (name !== '_G' && name !== 'package') {
          let v: unknown;
          if (libs.has(name)) {
            // Library tables are read-through proxies in the fengari state: copy the real entries.
            v = this.libraryTable(L);
          } else v = rt.toValue(-1);
          this.base.rawset(name, v);
        }
      }
      lua.lua_pop(L, 1);
    }
    // kube: read through require's answer (a read-through proxy in the fengari state).
    lua.lua_getfield(L, B, fengariModule.to_luastring('require'));
    lua.lua_pushstring(L, fengariModule.to_luastring('kube'));
    lua.lua_call(L, 1, 1);
    const kube = new LuaTable();
    for (const fname of ['resourceAdd', 'getResourceQuantity', 'accuratePodRequirements', 'getPodDependencies']) {
      lua.lua_getfield(L, -1, fengariModule.to_luastring(fname));
      kube.rawset(fname, rt.toValue(-1));
      lua.lua_pop(L, 1);
    }
    kube.undo = rt;
    this.kubeTable = kube;
    lua.lua_settop(L, B - 1);
    this.installNatives();
    rt.stringLib = this.base.rawget('string') as LuaTable;
  }

  /** A library table: the entries of the real table behind the fengari sandbox's read-through proxy, in its order. */
  private libraryTable(L: LuaState): LuaTable {
    const rt = this.rt;
    const t = new LuaTable();
    const idx = lua.lua_gettop(L);
    let real = idx;
    if (lua.lua_getmetatable(L, idx)) {
      lua.lua_getfield(L, -1, fengariModule.to_luastring('__index'));
      if (lua.lua_type(L, -1) === lua.LUA_TTABLE) real = lua.lua_gettop(L);
    }
    lua.lua_pushnil(L);
    while (lua.lua_next(L, real) !== 0) {
      t.rawset(rt.toValue(-2), rt.toValue(-1));
      lua.lua_pop(L, 1);
    }
    lua.lua_settop(L, idx);
    t.undo = rt;
    return t;
  }

  private kubeTable: LuaTable | null = null;

  readonly nextFn: LuaFunction = (t?: unknown, k?: unknown) => {
    if (!(t instanceof LuaTable)) return this.argError(1, 'next', `table expected, got ${typeName(t)}`);
    t.materialize();
    const e = t.nextEntry(k);
    if (e === 'invalid') return this.rt.err(this.rt.l, "invalid key to 'next'");
    if (e === null) return undefined;
    return new Ret([e.k, e.v]);
  };

  private argError(i: number, fname: string, msg: string): never {
    throw new LuaError(toByteString(`${this.rt.pos()}bad argument #${i} to ${fname} (${msg})`));
  }

  private installNatives(): void {
    const rt = this.rt;
    const B = this.base;
    const set = (name: string, f: LuaFunction) => B.rawset(name, f);
    // The fengari versions, for the cases the natives hand over.
    this.bridgedTostring = B.rawget('tostring') as LuaFunction;
    this.bridgedTonumber = B.rawget('tonumber') as LuaFunction;
    this.bridgedAssert = B.rawget('assert') as LuaFunction;
    this.bridgedRequire = B.rawget('require') as LuaFunction;
    rt.nextPair = (t: unknown, k: unknown) => this.nextFn(t, k);
    set('next', this.nextFn);
    set('type', function type(...a: unknown[]) {
      if (a.length === 0) rtArgError(rt, 1, 'type', 'value expected');
      return typeName(a[0]);
    });
    set('pairs', (...a: unknown[]) => {
      const t = a[0];
      if (!(t instanceof LuaTable)) return rtArgError(rt, 1, 'pairs', `table expected, got ${typeName(t)}`);
      t.materialize();
      return new Ret([this.nextFn, t, undefined]);
    });
    const ipairsAux = (t: unknown, i: unknown) => {
      const n = (i as number) + 1;
      let v: unknown;
      if (t instanceof LuaTable) v = t.get(n);
      else if (typeof t === 'string') v = undefined;
      // Raised inside the library's iterator: no position, no key, as on the fengari path.
      else throw new LuaError(toByteString(`attempt to index a non-table object(${typeName(t)}) with key '?'`));
      return v === undefined ? undefined : new Ret([n, v]);
    };
    set('ipairs', (...a: unknown[]) => {
      if (a.length === 0) rt.cArgError(1, 'value expected');
      return new Ret([ipairsAux, a[0], 0]);
    });
    set('error', (...a: unknown[]) => {
      const v = a[0];
      const level = a.length > 1 ? a[1] : 1;
      if (typeof v === 'string' && level !== 0) throw new LuaError(rt.pos() + v);
      throw new LuaError(v);
    });
    set('pcall', (...a: unknown[]) => {
      if (a.length === 0) rtArgError(rt, 1, 'pcall', 'value expected');
      const depth = rt.d;
      try {
        const f = a[0];
        if (typeof f !== 'function') throw new LuaError(toByteString('attempt to call a non-function object'));
        // The callee's caller is pcall, a library function: its own errors carry no position.
        rt.l = -1;
        rt.nm = '?';
        rt.method = false;
        const r = (f as LuaFunction)(...a.slice(1));
        return new Ret([true, ...all(r)]);
      } catch (e) {
        if (e instanceof LuaError) {
          rt.d = depth;
          return new Ret([false, e.value]);
        }
        throw e;
      }
    });
    set('tostring', (...a: unknown[]) => {
      if (a.length === 0) rtArgError(rt, 1, 'tostring', 'value expected');
      const v = a[0];
      switch (typeof v) {
        case 'number':
          return formatLuaNumber(v);
        case 'string':
          return v;
        case 'boolean':
          return v ? 'true' : 'false';
        case 'undefined':
          return 'nil';
      }
      rt.host?.impure();
      return this.bridgedTostring!(v);
    });
    set('tonumber', (...a: unknown[]) => {
      if (a.length === 0) rtArgError(rt, 1, 'tonumber', 'value expected');
      const v = a[0];
      if (typeof v === 'number') return v;
      if (typeof v === 'string') {
        if (a.length > 1 && a[1] !== undefined) return this.bridgedTonumber!(...a);
        const n = goToNumber(fromByteString(v));
        return n === null ? undefined : n;
      }
      return undefined;
    });
    set('select', (...a: unknown[]) => {
      if (a[0] === '#') return a.length - 1;
      const n = rt.cCheckInt(a, 1);
      const count = a.length - 1;
      if (n < 0) {
        // select(-k, ...): the last k arguments (the same values, not copies).
        if (-n > count) rt.cArgError(1, 'index out of range');
        return new Ret(a.slice(a.length + n));
      }
      if (n === 0) rt.cArgError(1, 'index out of range');
      return new Ret(a.slice(n));
    });
    set('assert', (...a: unknown[]) => {
      if (a.length === 0) rtArgError(rt, 1, 'assert', 'value expected');
      if (truthy(a[0])) return a.length === 1 ? a[0] : new Ret(a);
      const m = a[1];
      if (typeof m === 'string') throw new LuaError(rt.pos() + m);
      return this.bridgedAssert!(...a);
    });
    set('require', (...a: unknown[]) => {
      if (a[0] === 'kube') return this.kubeTable;
      return this.bridgedRequire!(...a);
    });
    const math = B.rawget('math') as LuaTable;
    const num1 = (name: string, f: (x: number) => number) =>
      math.rawset(name, (...a: unknown[]) => {
        const x = a[0];
        if (typeof x === 'number') return f(x);
        return f(checkNumber(rt, a, 1, name));
      });
    num1('floor', Math.floor);
    num1('ceil', Math.ceil);
    num1('abs', Math.abs);
    num1('sqrt', Math.sqrt);
    math.rawset('min', (...a: unknown[]) => {
      let m = checkNumber(rt, a, 1, 'min');
      for (let i = 2; i <= a.length; i++) m = Math.min(m, checkNumber(rt, a, i, 'min'));
      return m;
    });
    math.rawset('max', (...a: unknown[]) => {
      let m = checkNumber(rt, a, 1, 'max');
      for (let i = 2; i <= a.length; i++) m = Math.max(m, checkNumber(rt, a, i, 'max'));
      return m;
    });
    const table = B.rawget('table') as LuaTable;
    table.rawset('insert', (...a: unknown[]) => {
      const t = a[0];
      if (!(t instanceof LuaTable)) return rt.cArgError(1, `table expected, got ${typeName(t)}`);
      const e = t.length() + 1;
      if (a.length === 2) {
        t.set(e, a[1]);
        return NONE;
      }
      if (a.length === 3) {
        const p = rt.cCheckInt(a, 2);
        if (p < 1 || p > e) rt.cArgError(2, 'position out of bounds');
        for (let i = e; i > p; i--) t.set(i, t.get(i - 1));
        t.set(p, a[2]);
        return NONE;
      }
      throw new LuaError(toByteString(`${rt.pos()}wrong number of arguments to 'insert'`));
    });
    // unpack and table.remove return or move the script's own values: never through the bridge, which
    // would hand back copies (only their error cases go there).
    const bridgedUnpack = B.rawget('unpack') as LuaFunction;
    // gopher's CheckInt: a number (or numeric string) truncated; null: the bridge raises the error.
    const checkInt = (v: unknown): number | null => {
      if (typeof v === 'number') return Math.trunc(v);
      if (typeof v === 'string') {
        const n = goToNumber(fromByteString(v));
        return n === null ? null : Math.trunc(n);
      }
      return null;
    };
    const unpack = (...a: unknown[]) => {
      const t = a[0];
      const i = a.length > 1 && a[1] !== undefined ? checkInt(a[1]) : 1;
      const j = a.length > 2 && a[2] !== undefined ? checkInt(a[2]) : undefined;
      if (!(t instanceof LuaTable) || i === null || j === null) return bridgedUnpack(...a);
      const e = j === undefined ? t.length() : j;
      if (i > e) return NONE;
      if (e - i + 1 >= 8000) return bridgedUnpack(...a);
      const out: unknown[] = [];
      for (let k = i; k <= e; k++) out.push(t.rawget(k));
      return out.length === 1 ? out[0] : new Ret(out);
    };
    set('unpack', unpack);
    table.rawset('remove', (...a: unknown[]) => {
      const t = a[0];
      if (!(t instanceof LuaTable)) return rt.cArgError(1, `table expected, got ${typeName(t)}`);
      const size = t.length();
      let p = a.length > 1 && a[1] !== undefined ? rt.cCheckInt(a, 2) : size;
      if (p !== size && (p < 1 || p > size + 1)) rt.cArgError(1, 'position out of bounds');
      const out = t.get(p);
      for (; p < size; p++) t.set(p, t.get(p + 1));
      t.set(p, undefined);
      return out;
    });
    table.rawset('sort', (...a: unknown[]) => {
      const t = a[0];
      const cmp = a[1];
      if (!(t instanceof LuaTable)) return rt.cArgError(1, `table expected, got ${typeName(t)}`);
      const n = t.length();
      if (n > 1) {
        if (cmp !== undefined && typeof cmp !== 'function') rt.cArgError(2, `function expected, got ${typeName(cmp)}`);
        sortTable(rt, t, n, cmp as LuaFunction | undefined);
      }
      return NONE;
    });
  }

  private bridgedTostring: LuaFunction | null = null;
  private bridgedTonumber: LuaFunction | null = null;
  private bridgedAssert: LuaFunction | null = null;
  private bridgedRequire: LuaFunction | null = null;

  /** The chunk of `script`, or null when it runs on fengari. */
  chunk(script: string): Chunk | null {
    const hit = this.cache.get(script);
    if (hit !== undefined) return hit;
    let out: Chunk | null = null;
    try {
      const { source } = compileLua(script, this.baseNames);
      const factory = new Function(...HELPERS, source) as Factory;
      out = factory(...this.helpers);
      this.stats.compiled++;
    } catch (e) {
      // Outside the subset, or anything the compiler could not turn into valid JS: fengari runs it.
      this.stats.fallback++;
      const why = e instanceof Unsupported ? e.message : `compiler: ${(e as Error).message}`;
      this.stats.reasons.set(script.split('\n').find((l) => l.trim() !== '') ?? '', why);
    }
    this.cache.set(script, out);
    if (this.cache.size > this.maxCached) this.cache.delete(this.cache.keys().next().value as string);
    return out;
  }

  /**
   * Runs the chunk with fresh globals, then the entry function with `args`; returns its results as an
   * array. Errors: LuaError (the script's), `not found function` / `is not a function` as Karmada's.
   */
  call(chunk: Chunk, fnName: string, args: unknown[], host: RuntimeHost): unknown[] {
    const rt = this.rt;
    rt.host = host;
    rt.c = 1000;
    rt.d = 0;
    rt.l = 0;
    try {
      const G = new LuaTable();
      chunk(G);
      const f = G.rawget(fnName) ?? this.base.rawget(fnName);
      if (f === undefined) throw new EntryError(`not found function ${fnName}`);
      if (typeof f !== 'function') throw new EntryError(`${fnName} is not a function: ${typeName(f)}`);
      const r = (f as LuaFunction)(...args);
      return r instanceof Ret ? r.v : [r];
    } finally {
      rt.undoWrites();
      rt.host = null;
    }
  }

  /** A decoded JSON argument as a Lua value. */
  static argument(v: unknown): unknown {
    return fromJs(v);
  }
}

export class EntryError extends Error {}

function rtArgError(rt: Runtime, i: number, fname: string, msg: string): never {
  throw new LuaError(toByteString(`${rt.pos()}bad argument #${i} to ${fname} (${msg})`));
}

function checkNumber(rt: Runtime, a: unknown[], i: number, fname: string): number {
  const v = a[i - 1];
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const n = goToNumber(fromByteString(v));
    if (n !== null) return n;
  }
  return rtArgError(rt, i, fname, `number expected, got ${i > a.length ? 'nil' : typeName(v)}`);
}

/** Lua 5.3's auxsort (fengari's ltablib), comparisons through `cmp` or `<`. */
function sortTable(rt: Runtime, t: LuaTable, n: number, cmp: LuaFunction | undefined): void {
  const line = rt.l;
  const less = (a: unknown, b: unknown): boolean => {
    if (cmp === undefined) {
      rt.tick();
      if (typeof a === 'number' && typeof b === 'number') return a < b;
      if (typeof a === 'string' && typeof b === 'string') return strLess(a, b);
      // Raised inside the library's comparison: no position, as on the fengari path.
      throw new LuaError(toByteString(`attempt to compare ${typeName(a)} with ${typeName(b)}`));
    }
    rt.tick();
    return truthy(first(cmp(a, b)));
  };
  const invalid = () => {
    throw new LuaError(toByteString(`<string>:${line}: invalid order function for sorting`));
  };
  const geti = (i: number) => t.get(i);
  const set2 = (i: number, vi: unknown, j: number, vj: unknown) => {
    t.set(i, vi);
    t.set(j, vj);
  };
  const partition = (lo: number, up: number, P: unknown): number => {
    let i = lo;
    let j = up - 1;
    for (;;) {
      let ai: unknown;
      while (((ai = geti(++i)), less(ai, P))) {
        if (i === up - 1) invalid();
      }
      let aj: unknown;
      while (((aj = geti(--j)), less(P, aj))) {
        if (j < i) invalid();
      }
      if (j < i) {
        // set2(up - 1, i): a[up-1] = a[i]; a[i] = P (the values on the stack: P below a[i])
        set2(up - 1, ai, i, P);
        return i;
      }
      set2(i, aj, j, ai);
    }
  };
  const auxsort = (lo: number, up: number, rnd: number): void => {
    while (lo < up) {
      const alo = geti(lo);
      const aup = geti(up);
      if (less(aup, alo)) set2(lo, aup, up, alo);
      if (up - lo === 1) return;
      let p: number;
      if (up - lo < 100 || rnd === 0) p = Math.floor((lo + up) / 2);
      else {
        const r4 = Math.floor((up - lo) / 4);
        p = (rnd % (r4 * 2)) + (lo + r4);
      }
      const ap = geti(p);
      const alo2 = geti(lo);
      if (less(ap, alo2)) set2(p, alo2, lo, ap);
      else {
        const aup2 = geti(up);
        if (less(aup2, ap)) set2(p, aup2, up, ap);
      }
      if (up - lo === 2) return;
      const P = geti(p);
      const aup1 = geti(up - 1);
      set2(p, aup1, up - 1, P);
      p = partition(lo, up, P);
      let m: number;
      if (p - lo < up - p) {
        auxsort(lo, p - 1, rnd);
        m = p - lo;
        lo = p + 1;
      } else {
        auxsort(p + 1, up, rnd);
        m = up - p;
        up = p - 1;
      }
      if ((up - lo) / 128 > m) rnd = Math.floor(Math.random() * 0x100000000);
    }
  };
  auxsort(1, n, 0);
}
