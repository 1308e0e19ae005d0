/**
 * What compiled scripts call at run time: the VM's operations with fengari's semantics and gopher-lua's
 * error texts (index, call, arithmetic, comparison, concatenation, length), the budget counter, and the
 * value bridge to the fengari state for library functions the compiled path does not implement itself
 * (they run as the fengari path runs them, with the same accounting and messages).
 */
import * as fengariModule from '../fengari.js';
import { type LuaState } from '../fengari.js';
import { lazyTables, pushJs, stackValue } from '../convert.js';
import { formatLuaNumber } from '../numbers.js';
import { fromByteString, fromJs, isAscii, LuaTable, toByteString, type UndoLog } from './table.js';

const lua: typeof fengariModule.lua = fengariModule.lua;
const lauxlib: typeof fengariModule.lauxlib = fengariModule.lauxlib;
const TValue = fengariModule.fengariInternals.lobject.TValue;
const pushString: typeof fengariModule.pushString = fengariModule.pushString;

/** Several values (a call's results); a single value is passed as itself. */
export class Ret {
  constructor(readonly v: unknown[]) {}
}
export const NONE = new Ret([]);

/** A Lua error: pcall catches it; `value` is what the script sees. */
export class LuaError extends Error {
  constructor(readonly value: unknown) {
    super(typeof value === 'string' ? fromByteString(value) : 'lua error');
  }
}

export type LuaFunction = (...args: unknown[]) => unknown;

/** What the sandbox gives the runtime: its checks of clock and heap, and string accounting. */
export interface RuntimeHost {
  /** The count hook's checks (deadline, heap); throws the sandbox's abort. */
  tick(): void;
  /** A string of `bytes` just built (only called for more than 4096). */
  stringBuilt(bytes: number): void;
  impure(): void;
}

export function typeName(v: unknown): string {
  switch (typeof v) {
    case 'undefined':
      return 'nil';
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'function':
      return 'function';
    default:
      return v instanceof LuaTable ? 'table' : 'userdata';
  }
}

function keyText(k: unknown): string {
  if (typeof k === 'string') return fromByteString(k);
  if (typeof k === 'number') return formatLuaNumber(k);
  if (k === undefined) return 'nil';
  if (typeof k === 'boolean') return k ? 'true' : 'false';
  return typeName(k);
}

/** Lua's string to number coercion for arithmetic (fengari's luaO_str2num, floats as patched). */
function strToNumber(s: string): number | null {
  const t = s.trim();
  if (t === '') return null;
  const hex = /^([+-]?)0[xX]([0-9a-fA-F]+)$/.exec(t);
  if (hex) return (hex[1] === '-' ? -1 : 1) * Number.parseInt(hex[2]!, 16);
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return null;
  return Number(t);
}

const MAX_DEPTH = 256;
export const TICK_EVERY = 1000;

export class Runtime implements UndoLog {
  /** Budget counter: loops and function entries count down; at zero the host's checks run. */
  c = TICK_EVERY;
  /** Lua call depth. */
  d = 0;
  /** The line of the call being made (error positions of library functions and `error`). */
  l = 0;
  private undoLog: unknown[] = [];
  host: RuntimeHost | null = null;
  private readonly bridges = new WeakMap<object, LuaFunction>();

  constructor(readonly L: LuaState) {}

  push(t: LuaTable, k: unknown, had: boolean, old: unknown): void {
    this.undoLog.push(t, k, had, old);
  }

  /** Undoes the call's writes to library tables, newest first. */
  undoWrites(): void {
    const u = this.undoLog;
    if (u.length === 0) return;
    for (let i = u.length - 4; i >= 0; i -= 4) {
      const t = u[i] as LuaTable;
      t.rawset(u[i + 1], u[i + 2] ? u[i + 3] : undefined);
    }
    u.length = 0;
  }

  /** The position a library error carries: none when a library function (pcall) made the call (`l` < 0). */
  pos(): string {
    return this.l < 0 ? '' : `<string>:${this.l}: `;
  }

  /** An argument error as fengari's own luaL_argerror words it (the call site's name, quoted). */
  cArgError(i: number, msg: string): never {
    let arg = i;
    if (this.method) {
      arg--;
      if (arg === 0) throw new LuaError(toByteString(`${this.pos()}calling '${this.nm}' on bad self (${msg})`));
    }
    throw new LuaError(toByteString(`${this.pos()}bad argument #${arg} to '${this.nm}' (${msg})`));
  }

  /** luaL_checkinteger: the integer, or the argument error. */
  cCheckInt(a: unknown[], i: number): number {
    const v = a[i - 1];
    let n: number | null = null;
    if (typeof v === 'number') n = v;
    else if (typeof v === 'string') n = strToNumber(v);
    if (n === null) return this.cArgError(i, `number expected, got ${typeName(v)}`);
    if (n !== Math.floor(n) || !Number.isFinite(n)) return this.cArgError(i, 'number has no integer representation');
    return n;
  }

  /** A runtime error at `line` (fengari's luaG_runerror adds the position). */
  err(line: number, msg: string): never {
    throw new LuaError(toByteString(`<string>:${line}: ${msg}`));
  }

  tick(): void {
    this.c = TICK_EVERY;
    this.host?.tick();
  }

  enter(): void {
    if (--this.c < 0) this.tick();
    if (++this.d > MAX_DEPTH) {
      this.d--;
      this.err(this.l, 'stack overflow');
    }
  }

  /** The function about to be called (the line is noted for the callee's library errors). */
  /**
   * The name the calling code gives the callee (a global's or local's name, a field's key; '?' when it
   * has none), and whether it was a method call: fengari's own library functions name themselves so in
   * `bad argument` errors.
   */
  nm = '?';
  method = false;

  fn(f: unknown, line: number, name = '?', method = false): LuaFunction {
    this.l = line;
    this.nm = name;
    this.method = method;
    if (typeof f !== 'function') this.err(line, 'attempt to call a non-function object');
    return f as LuaFunction;
  }

  index(o: unknown, k: unknown, line: number): unknown {
    if (o instanceof LuaTable) return o.get(k);
    if (typeof o === 'string') return this.stringLib!.get(k);
    return this.err(line, `attempt to index a non-table object(${typeName(o)}) with key '${keyText(k)}'`);
  }

  setindex(o: unknown, k: unknown, v: unknown, line: number): void {
    if (o instanceof LuaTable) {
      if (k === undefined) this.err(line, 'table index is nil');
      if (typeof k === 'number' && k !== k) this.err(line, 'table index is NaN');
      o.set(k, v);
      return;
    }
    this.err(line, `attempt to index a non-table object(${typeName(o)}) with key '${keyText(k)}'`);
  }

  stringLib: LuaTable | null = null;

  /** `next` for the generic for (set by the engine). */
  nextPair: (t: unknown, k: unknown) => unknown = () => undefined;

  /** Spreads a call's results after `parts`, `n` values in all. */
  spread(parts: unknown[], last: unknown, n: number): unknown[] {
    const vs = all(last);
    for (let i = 0; parts.length < n; i++) parts.push(vs[i]);
    return parts;
  }

  /** A keyed field of a table constructor. */
  tset(t: LuaTable, k: unknown, v: unknown, line: number): void {
    this.newTable(k, line);
    t.rawset(k, v);
  }

  /** Positional items of a table constructor from index `offset + 1` (SETLIST). */
  setlist(t: LuaTable, offset: number, vs: unknown[], tail?: unknown[]): void {
    // OP_SETLIST stores from the last item down: the order `next` sees them in.
    const all = tail === undefined ? vs : vs.concat(tail);
    for (let k = all.length - 1; k >= 0; k--) t.rawset(offset + k + 1, all[k]);
  }

  private arithOperand(v: unknown): number | null {
    if (typeof v === 'number') return v;
    if (typeof v === 'string') return strToNumber(v);
    return null;
  }

  /** Arithmetic with an operand that is not a number (the fast path is inline). */
  arith(op: string, a: unknown, b: unknown, line: number): number {
    const x = this.arithOperand(a);
    const y = this.arithOperand(b);
    if (x === null || y === null) {
      const ev = op === '+' ? 'add' : op === '-' ? 'sub' : op === '*' ? 'mul' : op === '/' ? 'div' : op === '%' ? 'mod' : 'pow';
      this.err(line, `cannot perform ${ev} operation between ${typeName(a)} and ${typeName(b)}`);
    }
    switch (op) {
      case '+':
        return x + y;
      case '-':
        return x - y;
      case '*':
        return x * y;
      case '/':
        return x / y;
      case '%':
        return mod(x, y);
      default:
        return Math.pow(x, y);
    }
  }

  unm(a: unknown, line: number): number {
    const x = this.arithOperand(a);
    if (x === null) this.err(line, '__unm undefined');
    return -x;
  }

  lt(a: unknown, b: unknown, line: number): boolean {
    if (typeof a === 'number' && typeof b === 'number') return a < b;
    if (typeof a === 'string' && typeof b === 'string') return strLess(a, b);
    return this.err(line, `attempt to compare ${typeName(a)} with ${typeName(b)}`);
  }

  le(a: unknown, b: unknown, line: number): boolean {
    if (typeof a === 'number' && typeof b === 'number') return a <= b;
    if (typeof a === 'string' && typeof b === 'string') return !strLess(b, a);
    return this.err(line, `attempt to compare ${typeName(a)} with ${typeName(b)}`);
  }

  len(v: unknown, line: number): number {
    if (typeof v === 'string') return v.length;
    if (v instanceof LuaTable) return v.length();
    return this.err(line, '__len undefined');
  }

  /** `a .. b .. c` as fengari's luaV_concat: from the right, as many strings at once as possible. */
  concat(xs: unknown[], line: number): string {
    let i = xs.length - 1;
    let acc = xs[i];
    while (i > 0) {
      const left = xs[i - 1];
      if (!isStrNum(left) || !isStrNum(acc)) this.err(line, `cannot perform concat operation between ${typeName(left)} and ${typeName(acc)}`);
      let j = i - 1;
      while (j > 0 && isStrNum(xs[j - 1])) j--;
      let s = '';
      for (let k = j; k < i; k++) s += str(xs[k]);
      s += str(acc);
      if (s.length > 4096) this.host?.stringBuilt(s.length);
      acc = s;
      i = j;
    }
    return acc as string;
  }

  concat2(a: unknown, b: unknown, line: number): string {
    if (typeof a === 'string' && typeof b === 'string') {
      const s = a + b;
      if (s.length > 4096) this.host?.stringBuilt(s.length);
      return s;
    }
    return this.concat([a, b], line);
  }

  forNum(v: unknown, what: string, line: number): number {
    if (typeof v === 'number') return v;
    if (typeof v === 'string') {
      const n = strToNumber(v);
      if (n !== null) return n;
    }
    return this.err(line, `'for' ${what} must be a number`);
  }

  newTable(k: unknown, line: number): void {
    if (k === undefined) this.err(line, 'table index is nil');
    if (typeof k === 'number' && k !== k) this.err(line, 'table index is NaN');
  }

  // --- the bridge to the fengari state -------------------------------------------------------------

  /** Pushes a compiled-path value onto the fengari stack. */
  pushValue(v: unknown, seen?: Map<LuaTable, object>): void {
    const L = this.L;
    switch (typeof v) {
      case 'undefined':
        lua.lua_pushnil(L);
        return;
      case 'boolean':
        lua.lua_pushboolean(L, v);
        return;
      case 'number':
        lua.lua_pushnumber(L, v);
        return;
      case 'string':
        // ASCII: the same bytes as the JS string, through fengari's interned strings (no new hash).
        if (v.length <= 64 && isAscii(v)) pushString(L, v);
        else lua.lua_pushstring(L, latin1Bytes(v));
        return;
      case 'function':
        lua.lua_pushcfunction(L, this.wrapFunction(v as LuaFunction));
        return;
    }
    if (!(v instanceof LuaTable)) {
      lua.lua_pushnil(L);
      return;
    }
    const known = seen?.get(v);
    if (known !== undefined) {
      lua.lua_checkstack(L, 1);
      L.stack[L.top++] = new TValue(lua.LUA_TTABLE, known);
      return;
    }
    lua.lua_checkstack(L, 4);
    const lz = v.lazy;
    if (lz !== null && !lz.full) {
      // A fengari lazy table in the same state: what luaToJs reads is what fengari's path would have.
      pushJs(L, lz.obj);
      const info = lazyTables.get(stackValue(L, -1).value)!;
      info.seen = lz.seen === null ? null : new Set(lz.seen);
    } else lua.lua_createtable(L, 0, 0);
    const tbl = stackValue(L, -1).value as object;
    (seen ??= new Map()).set(v, tbl);
    for (let e = v.f; e !== null; e = e.n) {
      this.pushValue(e.k, seen);
      this.pushValue(e.v, seen);
      lua.lua_rawset(L, -3);
    }
  }

  /** The fengari value at idx as a compiled-path value. */
  toValue(idx: number, seen?: Map<object, LuaTable>): unknown {
    const L = this.L;
    const t = lua.lua_type(L, idx);
    switch (t) {
      case lua.LUA_TNIL:
      case lua.LUA_TNONE:
        return undefined;
      case lua.LUA_TBOOLEAN:
        return lua.lua_toboolean(L, idx) as boolean;
      case lua.LUA_TNUMBER:
        return lua.lua_tonumber(L, idx) as number;
      case lua.LUA_TSTRING:
        return Buffer.from(fengariModule.toBytes(L, idx)).toString('latin1');
      case lua.LUA_TFUNCTION: {
        // One bridge per fengari function: `string.gfind == string.gmatch` stays true.
        const raw = stackValue(L, idx).value as object;
        const known = this.bridges.get(raw);
        if (known !== undefined) return known;
        lua.lua_pushvalue(L, idx);
        const ref = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
        const f = this.bridge(ref, 'function');
        this.bridges.set(raw, f);
        return f;
      }
      case lua.LUA_TTABLE: {
        const raw = stackValue(L, idx).value as object;
        const known = seen?.get(raw);
        if (known !== undefined) return known;
        const info = lazyTables.get(raw);
        if (info !== undefined && !info.full) {
          const lt = fromJs(info.obj) as LuaTable;
          lt.lazy!.seen = info.seen === null ? null : new Set(info.seen);
          (seen ??= new Map()).set(raw, lt);
          this.copyEntries(idx, lt, seen);
          return lt;
        }
        const out = new LuaTable();
        (seen ??= new Map()).set(raw, out);
        this.copyEntries(idx, out, seen);
        return out;
      }
      default:
        return undefined;
    }
  }

  private copyEntries(idx: number, out: LuaTable, seen: Map<object, LuaTable>): void {
    const L = this.L;
    const abs = idx > 0 ? idx : lua.lua_gettop(L) + idx + 1;
    lua.lua_checkstack(L, 4);
    // Raw iteration of fengari's table (no materialize: the lazy part is carried over as it is).
    lua.lua_pushnil(L);
    while (rawNext(L, abs)) {
      const k = this.toValue(-2, seen);
      const v = this.toValue(-1, seen);
      out.rawset(k, v);
      lua.lua_pop(L, 1);
    }
  }

  /** A fengari function at registry `ref` as a compiled-path function: arguments and results converted. */
  bridge(ref: number, name: string): LuaFunction {
    const rt = this;
    const f = function (...args: unknown[]): unknown {
      return rt.callBridged(ref, args);
    };
    Object.defineProperty(f, 'name', { value: name });
    return f;
  }

  callBridged(ref: number, args: unknown[]): unknown {
    const L = this.L;
    const base = lua.lua_gettop(L);
    lua.lua_checkstack(L, args.length + 4);
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, ref);
    for (const a of args) this.pushValue(a);
    const line = this.l;
    const where = lauxlib.luaL_where;
    // Library errors carry the position of the Lua line that called them, as on the fengari path.
    lauxlib.luaL_where = (L2: LuaState, level: number) => {
      if (level === 1) lua.lua_pushstring(L2, fengariModule.to_luastring(line < 0 ? '' : `<string>:${line}: `));
      else where(L2, level);
    };
    let status: number;
    try {
      status = lua.lua_pcall(L, args.length, lua.LUA_MULTRET, 0);
    } finally {
      lauxlib.luaL_where = where;
    }
    if (status !== lua.LUA_OK) {
      const v = this.toValue(-1);
      lua.lua_settop(L, base);
      throw new LuaError(v);
    }
    const n = lua.lua_gettop(L) - base;
    let out: unknown;
    if (n === 0) out = NONE;
    else if (n === 1) out = this.toValue(-1);
    else {
      const vs: unknown[] = new Array(n);
      for (let i = 0; i < n; i++) vs[i] = this.toValue(base + 1 + i);
      out = new Ret(vs);
    }
    lua.lua_settop(L, base);
    return out;
  }

  /** A compiled function callable from fengari (a sort comparator handed to a bridged function, a result). */
  private wrapFunction(f: LuaFunction): (L: LuaState) => number {
    return (L: LuaState) => {
      const n = lua.lua_gettop(L);
      const args: unknown[] = [];
      for (let i = 1; i <= n; i++) args.push(this.toValue(i));
      let r: unknown;
      try {
        r = f(...args);
      } catch (e) {
        if (e instanceof LuaError) {
          this.pushValue(e.value);
          return lua.lua_error(L) as number;
        }
        throw e;
      }
      const vs = r instanceof Ret ? r.v : [r];
      lua.lua_checkstack(L, vs.length + 1);
      for (const v of vs) this.pushValue(v);
      return vs.length;
    };
  }
}

function rawNext(L: LuaState, idx: number): boolean {
  return lua.lua_next(L, idx) !== 0;
}

function hasLowByte(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 16) return true;
  return false;
}

/** fengari's string hash: `|` and each byte's hex digits, unpadded (what its `<` compares). */
function fengariHash(s: string): string {
  let h = '|';
  for (let i = 0; i < s.length; i++) h += s.charCodeAt(i).toString(16);
  return h;
}

/**
 * `a < b` for strings as fengari orders them: by its string hash, which is byte order for text but not
 * for strings holding bytes below 0x10 (a newline sorts after a space there).
 */
export function strLess(a: string, b: string): boolean {
  if (hasLowByte(a) || hasLowByte(b)) return fengariHash(a) < fengariHash(b);
  return a < b;
}

export function latin1Bytes(s: string): Uint8Array {
  return Buffer.from(s, 'latin1');
}

export function mod(a: number, b: number): number {
  let m = a % b;
  if (m * b < 0) m += b;
  return m;
}

function isStrNum(v: unknown): boolean {
  return typeof v === 'string' || typeof v === 'number';
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : formatLuaNumber(v as number);
}

/** Lua truthiness. */
export function truthy(v: unknown): boolean {
  return v !== undefined && v !== false;
}

/** The first of a call's results. */
export function first(v: unknown): unknown {
  return v instanceof Ret ? v.v[0] : v;
}

/** Every result of a call, for an argument list or table constructor that ends with it. */
export function all(v: unknown): unknown[] {
  return v instanceof Ret ? v.v : [v];
}
