/**
 * The library surface Karmada opens (spec §2), and nothing else: base functions, `table`, a safe
 * `string`, `math`, a reduced `os`, `package` with only `kube` preloadable. The 14 dangerous base
 * functions are stubs that raise the same error Karmada's stubs raise. Lua 5.1 names (`unpack`,
 * `table.getn`, `math.mod`, `string.gfind`, ...) are present.
 */
import lbaselib from 'fengari/src/lbaselib.js';
import ltablib from 'fengari/src/ltablib.js';
import { argocdStringFunctions } from './argocd-strings.js';
import { argError, checkAny, checkBytes, checkInt, checkNumber, checkString, checkTable, optInt } from './args.js';
import { materialize, tableAt } from './convert.js';
import * as fengariModule from './fengari.js';
import { type LuaState } from './fengari.js';
import { goSprintf, type FormatArg } from './format.js';
import { KUBE_FUNCTIONS } from './kube.js';
import { formatLuaNumber, goToNumber } from './numbers.js';
import { osDate, osTime, type TimeFields } from './oslib.js';
import { PatternError, patternFind, patternGmatch, type CaptureValue } from './patterns.js';

// Copied once: the TS loader turns every read of an imported binding into a getter call.
const decodeLuaString: typeof fengariModule.decodeLuaString = fengariModule.decodeLuaString;
const lauxlib: typeof fengariModule.lauxlib = fengariModule.lauxlib;
const lua: typeof fengariModule.lua = fengariModule.lua;
const pushString: typeof fengariModule.pushString = fengariModule.pushString;
const raiseError: typeof fengariModule.raiseError = fengariModule.raiseError;
const raiseRaw: typeof fengariModule.raiseRaw = fengariModule.raiseRaw;
const to_luastring: typeof fengariModule.to_luastring = fengariModule.to_luastring;
const toJsString: typeof fengariModule.toJsString = fengariModule.toJsString;
const luaStringObject: typeof fengariModule.luaStringObject = fengariModule.luaStringObject;
const ltable: typeof fengariModule.ltableModule = fengariModule.ltableModule;

/** A fengari Table, as far as this module reads one. */
interface FengariTable {
  metatable: FengariTable | null;
}

// fengari's 5.3 implementations (lbaselib, ltablib) serve where they behave as 5.1 does for scripts.

/** What library functions need from the running call. */
export interface Host {
  /** Throws (a Lua error) when the call's budget is spent; cheap enough to call in loops. */
  tick(L: LuaState): void;
  /** Counts bytes of a string a library function built, against the call's memory limit and budget. */
  allocated(L: LuaState, bytes: number): void;
  /** Checks, before allocating, that a string of `bytes` would fit the call's limits (counts nothing). */
  reserve(L: LuaState, bytes: number): void;
  /** True once the call has been aborted: pcall must not swallow that. */
  aborted(): boolean;
  print(line: string): void;
  nowMs(): number;
  /**
   * The call saw something besides its arguments (a random number, a table's address), so its result
   * must not be remembered (src/interpreter/memo.ts). print and nowMs count as such by themselves.
   */
  impure(): void;
  /** Argo CD health checks: string.gsub and string.rep work (argocd-strings.ts); RIC scripts keep Karmada's refusal. */
  argocdStrings?: boolean;
}

export const MAX_STRING_ARG = 1_000_000;

/** Most values one library call pushes (unpack, string.byte), as for gopher-lua's bounded registry. */
export const MAX_RESULTS = 8000;

const TYPE_NAMES: Record<number, string> = {
  0: 'nil',
  1: 'boolean',
  2: 'userdata',
  3: 'number',
  4: 'string',
  5: 'table',
  6: 'function',
  7: 'userdata',
  8: 'thread',
};

export const DISABLED_BASE = [
  'collectgarbage',
  'dofile',
  'getfenv',
  'getmetatable',
  'load',
  'loadfile',
  'loadstring',
  'rawequal',
  'rawget',
  'rawset',
  'setfenv',
  'setmetatable',
  'module',
  'newproxy',
];

export function disabledMessage(name: string): string {
  return `<string>:1: call function ${name} is not supported in karmada customized resourceinterpreter.`;
}

export function disabledStringMessage(name: string): string {
  return `The Lua function string.${name} is not supported by Karmada. If you believe this function is essential for your use case, please submit an issue to let us know why you need it.`;
}

export function stringTooLongMessage(n: number): string {
  return `string length ${n} exceeds the maximum allowed input string length ${MAX_STRING_ARG} in Karmada lua string lib, please check your lua script.`;
}

type Fn = (L: LuaState) => number;

/** Sets functions into the table at `target` (default: the top of the stack). */
function setFunctions(L: LuaState, fns: Record<string, Fn>, target = -1): void {
  const t = target < 0 ? lua.lua_gettop(L) + target + 1 : target;
  for (const [name, fn] of Object.entries(fns)) {
    pushString(L, name);
    lua.lua_pushcfunction(L, fn);
    lua.lua_rawset(L, t);
  }
}

function pushBytes(L: LuaState, b: Uint8Array): void {
  lua.lua_pushstring(L, b);
}

/**
 * A library table or global environment as a call sees it: a proxy table in front of the real one,
 * reset after every call that wrote to it, so each call starts from the same state.
 *
 * Until a call writes to it, the proxy is raw-empty and reads fall through to the real table (a
 * metatable `__index`), which costs nothing per call. The first write, or anything that looks at the
 * raw table (next, pairs, `#`, unpack), copies the real entries in and drops the metatable: from then on
 * the proxy is an ordinary Lua table, so `error = nil` hides `error` and `pairs(string)` lists the
 * library, exactly as in Lua. The global environment also takes new keys in place without the copy
 * (a chunk defines its functions as globals on every call): those hide nothing.
 */
export interface Protected {
  ref: number;
  dirty: boolean;
  /** The global environment (new keys need no copy); library tables copy on any write. */
  env: boolean;
  /** Entries of the real table are in the proxy, which has no metatable until the reset. */
  copied: boolean;
  /** Registry ref of the table reads fall through to, and that table itself. */
  realRef: number;
  real: unknown;
  /** The proxy's fengari Table object and its metatable, for the reset. */
  table: { metatable: unknown } | null;
  meta: unknown;
}

/** Protected proxies by their metatable: how raw access recognizes one that has not been copied yet. */
const protectedByMeta = new WeakMap<object, Protected>();

export function newProtected(env: boolean): Protected {
  return { ref: 0, dirty: false, env, copied: false, realRef: 0, real: null, table: null, meta: null };
}

/**
 * Pushes an empty table whose reads fall through to the table at absolute index `readIdx` and whose
 * writes land in the proxy itself and mark `p` dirty, so the caller knows to reset it after a call.
 */
export function pushRecordingProxy(L: LuaState, readIdx: number, p: Protected): void {
  lua.lua_pushvalue(L, readIdx);
  p.real = tableAt(L, -1);
  p.realRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
  lua.lua_createtable(L, 0, 0);
  p.table = tableAt(L, -1) as Protected['table'];
  lua.lua_createtable(L, 0, 3);
  p.meta = tableAt(L, -1);
  protectedByMeta.set(p.meta as object, p);
  pushString(L, '__index');
  lua.lua_pushvalue(L, readIdx);
  lua.lua_rawset(L, -3);
  pushString(L, '__newindex');
  lua.lua_pushcfunction(L, (L: LuaState) => {
    lua.lua_settop(L, 3);
    if (!p.env || visibleBelow(L, p, 2)) copyIn(L, p);
    p.dirty = true;
    lua.lua_rawset(L, 1);
    return 0;
  });
  lua.lua_rawset(L, -3);
  pushString(L, '__len');
  lua.lua_pushcfunction(L, (L: LuaState) => {
    copyIn(L, p);
    lua.lua_pushnumber(L, lua.lua_rawlen(L, 1));
    return 1;
  });
  lua.lua_rawset(L, -3);
  lua.lua_setmetatable(L, -2);
}

/** Whether the key at stack index `keyIdx` has a value in the tables under the proxy (raw reads, no calls). */
function visibleBelow(L: LuaState, p: Protected, keyIdx: number): boolean {
  const key = L.stack[L.ci.funcOff + keyIdx];
  const indexKey = luaStringObject(L, '__index');
  let t = p.real as FengariTable | null;
  for (let depth = 0; t !== null && depth < 8; depth++) {
    if (!ltable.luaH_get(L, t, key).ttisnil()) return true;
    const mt = t.metatable;
    if (mt === null) return false;
    const next = ltable.luaH_getstr(mt, indexKey);
    t = next.ttistable() ? next.value : null;
  }
  return false;
}

/**
 * Copies into the proxy every entry visible through it that it does not hold itself (the real table,
 * then what that one reads through to), and drops the proxy's metatable: an ordinary table from now on.
 */
function copyIn(L: LuaState, p: Protected): void {
  if (p.copied) return;
  const top = lua.lua_gettop(L);
  lua.lua_checkstack(L, 8);
  lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, p.ref);
  const proxy = top + 1;
  lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, p.realRef);
  const layer = proxy + 1;
  for (let depth = 0; depth < 8; depth++) {
    lua.lua_pushnil(L);
    while (lua.lua_next(L, layer) !== 0) {
      lua.lua_pushvalue(L, -2);
      if (lua.lua_rawget(L, proxy) === lua.LUA_TNIL) {
        lua.lua_pushvalue(L, -3);
        lua.lua_pushvalue(L, -3);
        lua.lua_rawset(L, proxy);
      }
      lua.lua_pop(L, 2);
    }
    if (!lua.lua_getmetatable(L, layer)) break;
    pushString(L, '__index');
    if (lua.lua_rawget(L, -2) !== lua.LUA_TTABLE) break;
    // The table it reads through to takes the layer's place.
    lua.lua_replace(L, layer);
    lua.lua_settop(L, layer);
  }
  p.table!.metatable = null;
  p.copied = true;
  p.dirty = true;
  lua.lua_settop(L, top);
}

/** Undoes a call's writes: the proxy is raw-empty again and reads through to the real table. */
export function resetProtected(L: LuaState, p: Protected): void {
  p.dirty = false;
  lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, p.ref);
  const t = lua.lua_gettop(L);
  // Clearing fields during traversal is allowed in Lua.
  lua.lua_pushnil(L);
  while (lua.lua_next(L, t) !== 0) {
    lua.lua_pop(L, 1);
    lua.lua_pushvalue(L, -1);
    lua.lua_pushnil(L);
    lua.lua_rawset(L, t);
  }
  lua.lua_settop(L, t - 1);
  if (p.copied) {
    p.copied = false;
    p.table!.metatable = p.meta;
  }
}

/**
 * Makes the table at idx hold its entries raw, for code that iterates it raw (next, pairs): a lazy
 * table from JSON gets its fields, a protected proxy its library entries.
 */
export function rawView(L: LuaState, idx: number): void {
  materialize(L, idx);
  copyProtected(L, idx);
}

/** A protected proxy at idx gets its library entries, for code that reads it raw (unpack, table.concat). */
function copyProtected(L: LuaState, idx: number): void {
  const t = tableAt(L, idx) as { metatable: object | null } | null;
  if (t === null || t.metatable === null) return;
  const p = protectedByMeta.get(t.metatable);
  if (p !== undefined) copyIn(L, p);
}

export interface Libraries {
  /** Registry ref of the base table (read-only view behind every call's globals). */
  baseRef: number;
  /** Registry ref of the global environment; its writes are undone after each call. */
  envRef: number;
  protectedTables: Protected[];
}

export function openLibraries(L: LuaState, host: Host): Libraries {
  const protectedTables: Protected[] = [];

  /** Leaves on the stack an empty table that reads through to the table at top and records writes. */
  const protect = (env = false): Protected => {
    const p = newProtected(env);
    const realIdx = lua.lua_gettop(L);
    pushRecordingProxy(L, realIdx, p);
    lua.lua_remove(L, realIdx);
    lua.lua_pushvalue(L, -1);
    p.ref = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
    protectedTables.push(p);
    return p;
  };

  const tick = () => host.tick(L);

  // --- base table B ---
  lua.lua_createtable(L, 0, 40);
  const B = lua.lua_gettop(L);

  // The environment G: empty, reads fall through to B, writes are recorded.
  lua.lua_pushvalue(L, B);
  const env = protect(true);
  const G = lua.lua_gettop(L);

  const stdNext: Fn = (L) => {
    checkTable(L, 1, 'next');
    rawView(L, 1);
    lua.lua_settop(L, 2);
    if (lua.lua_next(L, 1) !== 0) return 2;
    lua.lua_pushnil(L);
    return 1;
  };

  setFunctions(L, {
    assert: (L) => {
      checkAny(L, 1, 'assert');
      if (!lua.lua_toboolean(L, 1)) {
        if (lua.lua_type(L, 2) === lua.LUA_TSTRING) {
          // The script's own string, not a JS copy of it: a message can be as large as the string budget.
          lauxlib.luaL_where(L, 1);
          lua.lua_pushvalue(L, 2);
          lua.lua_concat(L, 2);
          lua.lua_error(L);
        }
        raiseError(L, lua.lua_type(L, 2) === lua.LUA_TNUMBER ? checkString(L, 2, 'assert') : 'assertion failed!');
      }
      return lua.lua_gettop(L);
    },
    next: stdNext,
    pairs: (L) => {
      checkTable(L, 1, 'pairs');
      rawView(L, 1);
      lua.lua_pushcfunction(L, stdNext);
      lua.lua_pushvalue(L, 1);
      lua.lua_pushnil(L);
      return 3;
    },
    pcall: (L) => {
      checkAny(L, 1, 'pcall');
      const status = lua.lua_pcall(L, lua.lua_gettop(L) - 1, lua.LUA_MULTRET, 0);
      // An abort never returns here (it unwinds past every pcall); this is a second line of defence.
      if (host.aborted()) host.tick(L);
      lua.lua_pushboolean(L, status === lua.LUA_OK);
      lua.lua_insert(L, 1);
      return lua.lua_gettop(L);
    },
    xpcall: (L) => {
      checkAny(L, 2, 'xpcall');
      lua.lua_settop(L, 2);
      lua.lua_insert(L, 1);
      const status = lua.lua_pcall(L, 0, lua.LUA_MULTRET, 1);
      if (host.aborted()) host.tick(L);
      lua.lua_pushboolean(L, status === lua.LUA_OK);
      lua.lua_replace(L, 1);
      return lua.lua_gettop(L);
    },
    print: (L) => {
      const n = lua.lua_gettop(L);
      const parts: string[] = [];
      for (let i = 1; i <= n; i++) {
        if (lua.lua_type(L, i) === lua.LUA_TNUMBER) parts.push(formatLuaNumber(lua.lua_tonumber(L, i)));
        else {
          lauxlib.luaL_tolstring(L, i);
          parts.push(toJsString(L, -1));
          lua.lua_pop(L, 1);
        }
      }
      host.print(parts.join('\t'));
      return 0;
    },
    tonumber: (L) => {
      checkAny(L, 1, 'tonumber');
      const t = lua.lua_type(L, 1);
      if (t === lua.LUA_TNUMBER) {
        lua.lua_pushvalue(L, 1);
        return 1;
      }
      if (t === lua.LUA_TSTRING) {
        const base = lua.lua_type(L, 2) <= lua.LUA_TNIL ? undefined : checkInt(L, 2, 'tonumber');
        const v = goToNumber(toJsString(L, 1), base);
        if (v === null) lua.lua_pushnil(L);
        else lua.lua_pushnumber(L, v);
        return 1;
      }
      lua.lua_pushnil(L);
      return 1;
    },
    unpack: (L) => {
      checkTable(L, 1, 'unpack');
      copyProtected(L, 1);
      const i = optInt(L, 2, 'unpack', 1);
      const e = lua.lua_type(L, 3) <= lua.LUA_TNIL ? lua.lua_rawlen(L, 1) : checkInt(L, 3, 'unpack');
      if (i > e) return 0;
      const n = e - i + 1;
      if (n >= MAX_RESULTS || !lua.lua_checkstack(L, n)) raiseError(L, 'too many results to unpack');
      for (let k = i; k <= e; k++) lua.lua_rawgeti(L, 1, k);
      return n;
    },
    require: (L) => {
      const name = checkString(L, 1, 'require');
      if (name === 'kube') {
        lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, kubeProxy.ref);
        return 1;
      }
      raiseError(L, `module ${name} not found:\n\tno field package.preload['${name}'], `);
    },
    _printregs: () => 0,
    type: (L) => {
      checkAny(L, 1, 'type');
      // Interned names: fengari's own `type` allocates a new string per call.
      pushString(L, TYPE_NAMES[lua.lua_type(L, 1)] ?? 'userdata');
      return 1;
    },
    tostring: (L) => {
      checkAny(L, 1, 'tostring');
      const t = lua.lua_type(L, 1);
      if (t === lua.LUA_TNUMBER) pushString(L, formatLuaNumber(lua.lua_tonumber(L, 1)));
      else {
        if (t !== lua.LUA_TSTRING && t !== lua.LUA_TBOOLEAN && t !== lua.LUA_TNIL) host.impure();
        lauxlib.luaL_tolstring(L, 1);
      }
      return 1;
    },
  }, B);
  // tostring, type, select, error and ipairs behave the same in 5.1 and 5.3 (numbers print through the
  // patched number formatting), so fengari's own implementations are reused.
  for (const name of ['select', 'error', 'ipairs']) {
    pushString(L, name);
    lua.lua_pushcfunction(L, baseFns[name]);
    lua.lua_rawset(L, B);
  }
  for (const name of DISABLED_BASE) {
    pushString(L, name);
    lua.lua_pushcfunction(L, (L: LuaState) => raiseRaw(L, disabledMessage(name)));
    lua.lua_rawset(L, B);
  }
  pushString(L, '_VERSION');
  pushString(L, 'Lua 5.1');
  lua.lua_rawset(L, B);
  pushString(L, '_GOPHER_LUA_VERSION');
  pushString(L, 'GopherLua 0.1');
  lua.lua_rawset(L, B);
  pushString(L, '_G');
  lua.lua_pushvalue(L, G);
  lua.lua_rawset(L, B);

  // --- string ---
  const checkLen = (L: LuaState, b: Uint8Array) => {
    if (b.length > MAX_STRING_ARG) raiseRaw(L, stringTooLongMessage(b.length));
  };
  const sarg = (L: LuaState, i: number, fname: string): Uint8Array => {
    const b = checkBytes(L, i, fname);
    checkLen(L, b);
    return b;
  };
  const pushCaptures = (L: LuaState, caps: CaptureValue[]) => {
    for (const c of caps) {
      if (typeof c === 'number') lua.lua_pushnumber(L, c);
      else pushBytes(L, c);
    }
    return caps.length;
  };
  const patternCall = <T>(L: LuaState, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      if (e instanceof PatternError) raiseError(L, e.message);
      throw e;
    }
  };
  const startIndex = (len: number, i: number): number => {
    if (i !== 0) i -= 1;
    if (i < 0) i = len + i + 1;
    return Math.max(0, i);
  };
  const gmatch: Fn = (L) => {
    const s = sarg(L, 1, 'gmatch');
    const p = sarg(L, 2, 'gmatch');
    const next = patternGmatch(s, p, tick);
    lua.lua_pushcfunction(L, (L: LuaState) => {
      const caps = patternCall(L, next);
      if (caps === null) return 0;
      return pushCaptures(L, caps);
    });
    return 1;
  };
  /** Pushes a library-built string, counting large ones against the call's limits. */
  const pushResult = (L: LuaState, v: string | Uint8Array) => {
    const n = v.length;
    if (n > 4096) host.allocated(L, typeof v === 'string' ? Buffer.byteLength(v) : n);
    if (typeof v === 'string') pushString(L, v);
    else pushBytes(L, v);
  };
  const stringLib: Record<string, Fn> = {
    byte: (L) => {
      const s = sarg(L, 1, 'byte');
      const i = optInt(L, 2, 'byte', 1);
      const j = optInt(L, 3, 'byte', i);
      let a = i < 0 ? s.length + i + 1 : i;
      let b = j < 0 ? s.length + j + 1 : j;
      if (a < 1) a = 1;
      if (b > s.length) b = s.length;
      if (a > b) return 0;
      const n = b - a + 1;
      if (n >= MAX_RESULTS || !lua.lua_checkstack(L, n)) raiseError(L, 'string slice too long');
      for (let k = a; k <= b; k++) lua.lua_pushnumber(L, s[k - 1]!);
      return n;
    },
    char: (L) => {
      const n = lua.lua_gettop(L);
      const out = new Uint8Array(n);
      for (let i = 1; i <= n; i++) {
        const c = checkInt(L, i, 'char');
        out[i - 1] = c & 0xff;
      }
      pushResult(L, out);
      return 1;
    },
    find: (L) => {
      const s = sarg(L, 1, 'find');
      const p = sarg(L, 2, 'find');
      if (p.length === 0) {
        lua.lua_pushnumber(L, 1);
        lua.lua_pushnumber(L, 0);
        return 2;
      }
      const init = startIndex(s.length, optInt(L, 3, 'find', 1));
      const plain = lua.lua_gettop(L) === 4 && lua.lua_toboolean(L, 4);
      if (init > s.length) {
        lua.lua_pushnil(L);
        return 1;
      }
      const r = patternCall(L, () => patternFind(s, p, init, plain, true, tick));
      if (!r) {
        lua.lua_pushnil(L);
        return 1;
      }
      lua.lua_pushnumber(L, r.start);
      lua.lua_pushnumber(L, r.end);
      return 2 + pushCaptures(L, r.captures);
    },
    format: (L) => {
      const fmt = decodeLuaString(sarg(L, 1, 'format'));
      const args: FormatArg[] = [];
      for (let i = 2; i <= lua.lua_gettop(L); i++) args.push(formatArg(L, i));
      pushResult(
        L,
        goSprintf(fmt, args, (length) => {
          host.reserve(L, length);
          host.tick(L);
        }),
      );
      return 1;
    },
    len: (L) => {
      lua.lua_pushnumber(L, sarg(L, 1, 'len').length);
      return 1;
    },
    lower: (L) => {
      pushResult(L, decodeLuaString(sarg(L, 1, 'lower')).toLowerCase());
      return 1;
    },
    upper: (L) => {
      pushResult(L, decodeLuaString(sarg(L, 1, 'upper')).toUpperCase());
      return 1;
    },
    match: (L) => {
      const s = sarg(L, 1, 'match');
      const p = sarg(L, 2, 'match');
      const init = startIndex(s.length, optInt(L, 3, 'match', 1));
      if (init > s.length) {
        lua.lua_pushnil(L);
        return 1;
      }
      const r = patternCall(L, () => patternFind(s, p, init, false, false, tick));
      if (!r) {
        lua.lua_pushnil(L);
        return 1;
      }
      return pushCaptures(L, r.captures);
    },
    reverse: (L) => {
      const s = sarg(L, 1, 'reverse');
      pushResult(L, Uint8Array.from(s).reverse());
      return 1;
    },
    sub: (L) => {
      const s = sarg(L, 1, 'sub');
      const len = s.length;
      let i = checkInt(L, 2, 'sub');
      let j = optInt(L, 3, 'sub', -1);
      if (i < 0) i = Math.max(len + i + 1, 1);
      else if (i === 0) i = 1;
      if (j < 0) j = len + j + 1;
      else if (j > len) j = len;
      if (i > j) pushString(L, '');
      else pushResult(L, s.subarray(i - 1, j));
      return 1;
    },
    gmatch,
    gfind: gmatch,
  };
  for (const name of ['gsub', 'rep', 'dump']) stringLib[name] = (L) => raiseRaw(L, disabledStringMessage(name));
  if (host.argocdStrings) Object.assign(stringLib, argocdStringFunctions({ tick, reserve: host.reserve, pushResult, patternCall, sarg }));
  const formatArg = (L: LuaState, i: number): FormatArg => {
    switch (lua.lua_type(L, i)) {
      case lua.LUA_TNUMBER:
        return { t: 'number', v: lua.lua_tonumber(L, i) };
      case lua.LUA_TSTRING:
        return { t: 'string', v: toJsString(L, i) };
      case lua.LUA_TBOOLEAN:
        return { t: 'boolean', v: lua.lua_toboolean(L, i) };
      case lua.LUA_TNIL:
        return { t: 'nil' };
      default: {
        host.impure();
        lauxlib.luaL_tolstring(L, i);
        const s = toJsString(L, -1);
        lua.lua_pop(L, 1);
        const [t, id] = s.split(': ');
        return { t: (t === 'function' || t === 'userdata' || t === 'thread' ? t : 'table') as 'table', id: id ?? s };
      }
    }
  };
  lua.lua_createtable(L, 0, 16);
  setFunctions(L, stringLib);
  protect();
  // `s:lower()` reads the library through the string metatable: the call's own view of it, so that
  // `string.lower = nil` affects method calls too, as in Lua.
  const stringProxy = lua.lua_gettop(L);
  pushString(L, '');
  lua.lua_createtable(L, 0, 1);
  pushString(L, '__index');
  lua.lua_pushvalue(L, stringProxy);
  lua.lua_rawset(L, -3);
  lua.lua_setmetatable(L, -2);
  lua.lua_pop(L, 1);
  setField(L, B, 'string');

  // --- table ---
  lua.lua_createtable(L, 0, 8);
  const tabReal = lua.lua_gettop(L);
  lua.lua_pushcfunction(L, ltablib.luaopen_table);
  lua.lua_call(L, 0, 1);
  const t53 = lua.lua_gettop(L);
  for (const name of ['insert', 'remove']) {
    pushString(L, name);
    lua.lua_getfield(L, t53, to_luastring(name));
    lua.lua_rawset(L, tabReal);
  }
  lua.lua_getfield(L, t53, to_luastring('sort'));
  const sort53 = lua.lua_tocfunction(L, -1) as Fn;
  lua.lua_settop(L, tabReal);
  // table.sort makes n·log n comparisons inside one library call. A comparator that is itself a library
  // function (string.lower over 1 MB strings), or the default `<` on long strings, runs no instruction
  // the count hook sees: every comparison goes through one that checks the budget first (one such
  // comparison, tonumber of a 1 MB string, takes 60 ms: checking only every few would overrun).
  const budgetedLess: Fn = (L) => {
    host.tick(L);
    lua.lua_pushboolean(L, lua.lua_compare(L, 1, 2, lua.LUA_OPLT));
    return 1;
  };
  const budgetedComparator: Fn = (L) => {
    host.tick(L);
    lua.lua_settop(L, 2);
    lua.lua_pushvalue(L, lua.lua_upvalueindex(1));
    lua.lua_insert(L, 1);
    lua.lua_call(L, 2, 1);
    return 1;
  };
  setFunctions(L, {
    sort: (L) => {
      const t = lua.lua_type(L, 2);
      if (t === lua.LUA_TNONE || t === lua.LUA_TNIL) {
        lua.lua_settop(L, 1);
        lua.lua_pushcfunction(L, budgetedLess);
      } else if (t === lua.LUA_TFUNCTION) {
        lua.lua_settop(L, 2);
        lua.lua_pushcclosure(L, budgetedComparator, 1);
      }
      // Anything else: fengari's own sort refuses it with its usual text.
      return sort53(L);
    },
    concat: (L) => {
      checkTable(L, 1, 'concat');
      copyProtected(L, 1);
      const sep = lua.lua_type(L, 2) <= lua.LUA_TNIL ? new Uint8Array(0) : checkBytes(L, 2, 'concat');
      const i = optInt(L, 3, 'concat', 1);
      const j = lua.lua_type(L, 4) <= lua.LUA_TNIL ? lua.lua_rawlen(L, 1) : checkInt(L, 4, 'concat');
      const parts: Uint8Array[] = [];
      let total = 0;
      for (let k = i; k <= j; k++) {
        lua.lua_rawgeti(L, 1, k);
        const t = lua.lua_type(L, -1);
        if (t !== lua.LUA_TSTRING && t !== lua.LUA_TNUMBER) raiseError(L, `invalid value (at index ${k}) in table for 'concat'`);
        const b = checkBytes(L, -1, 'concat');
        lua.lua_pop(L, 1);
        if (k > i) {
          parts.push(sep);
          total += sep.length;
        }
        parts.push(b);
        total += b.length;
        // The result's size is known before it is built: refuse it as soon as it passes a limit.
        if (total > 4096) host.reserve(L, total);
        // Empty pieces add nothing to the total, but a long table of them is still a long loop.
        if ((k & 255) === 0) host.tick(L);
      }
      const out = new Uint8Array(total);
      let off = 0;
      for (const p of parts) {
        out.set(p, off);
        off += p.length;
      }
      pushResult(L, out);
      return 1;
    },
    getn: (L) => {
      checkTable(L, 1, 'getn');
      copyProtected(L, 1);
      lua.lua_pushnumber(L, lua.lua_rawlen(L, 1));
      return 1;
    },
    maxn: (L) => {
      checkTable(L, 1, 'maxn');
      copyProtected(L, 1);
      let max = 0;
      let seen = 0;
      lua.lua_pushnil(L);
      while (lua.lua_next(L, 1) !== 0) {
        lua.lua_pop(L, 1);
        if ((++seen & 4095) === 0) host.tick(L);
        if (lua.lua_type(L, -1) === lua.LUA_TNUMBER) {
          const v = lua.lua_tonumber(L, -1);
          if (v > max) max = v;
        }
      }
      lua.lua_pushnumber(L, max);
      return 1;
    },
  });
  protect();
  setField(L, B, 'table');

  // --- math ---
  lua.lua_createtable(L, 0, 32);
  const num = (fname: string, f: (x: number) => number): Fn => (L) => {
    lua.lua_pushnumber(L, f(checkNumber(L, 1, fname)));
    return 1;
  };
  const fmod = (a: number, b: number) => a % b;
  setFunctions(L, {
    abs: num('abs', Math.abs),
    acos: num('acos', Math.acos),
    asin: num('asin', Math.asin),
    atan: num('atan', Math.atan),
    atan2: (L) => {
      lua.lua_pushnumber(L, Math.atan2(checkNumber(L, 1, 'atan2'), checkNumber(L, 2, 'atan2')));
      return 1;
    },
    ceil: num('ceil', Math.ceil),
    cos: num('cos', Math.cos),
    cosh: num('cosh', Math.cosh),
    deg: num('deg', (x) => (x * 180) / Math.PI),
    exp: num('exp', Math.exp),
    floor: num('floor', Math.floor),
    fmod: (L) => {
      lua.lua_pushnumber(L, fmod(checkNumber(L, 1, 'fmod'), checkNumber(L, 2, 'fmod')));
      return 1;
    },
    mod: (L) => {
      lua.lua_pushnumber(L, fmod(checkNumber(L, 1, 'mod'), checkNumber(L, 2, 'mod')));
      return 1;
    },
    frexp: (L) => {
      const x = checkNumber(L, 1, 'frexp');
      const [m, e] = frexp(x);
      lua.lua_pushnumber(L, m);
      lua.lua_pushnumber(L, e);
      return 2;
    },
    ldexp: (L) => {
      lua.lua_pushnumber(L, checkNumber(L, 1, 'ldexp') * 2 ** checkInt(L, 2, 'ldexp'));
      return 1;
    },
    log: num('log', Math.log),
    log10: num('log10', Math.log10),
    max: (L) => {
      let m = checkNumber(L, 1, 'max');
      for (let i = 2; i <= lua.lua_gettop(L); i++) m = Math.max(m, checkNumber(L, i, 'max'));
      lua.lua_pushnumber(L, m);
      return 1;
    },
    min: (L) => {
      let m = checkNumber(L, 1, 'min');
      for (let i = 2; i <= lua.lua_gettop(L); i++) m = Math.min(m, checkNumber(L, i, 'min'));
      lua.lua_pushnumber(L, m);
      return 1;
    },
    modf: (L) => {
      const x = checkNumber(L, 1, 'modf');
      const ip = x < 0 ? Math.ceil(x) : Math.floor(x);
      lua.lua_pushnumber(L, ip);
      lua.lua_pushnumber(L, Number.isFinite(x) ? x - ip : 0);
      return 2;
    },
    pow: (L) => {
      lua.lua_pushnumber(L, checkNumber(L, 1, 'pow') ** checkNumber(L, 2, 'pow'));
      return 1;
    },
    rad: num('rad', (x) => (x * Math.PI) / 180),
    random: (L) => {
      host.impure();
      const n = lua.lua_gettop(L);
      if (n === 0) lua.lua_pushnumber(L, Math.random());
      else if (n === 1) {
        const m = checkInt(L, 1, 'random');
        if (m <= 0) argError(L, 1, 'random', 'interval is empty');
        lua.lua_pushnumber(L, Math.floor(Math.random() * m) + 1);
      } else {
        const lo = checkInt(L, 1, 'random');
        const hi = checkInt(L, 2, 'random');
        if (hi + 1 - lo <= 0) argError(L, 2, 'random', 'interval is empty');
        lua.lua_pushnumber(L, Math.floor(Math.random() * (hi + 1 - lo)) + lo);
      }
      return 1;
    },
    randomseed: () => 0,
    sin: num('sin', Math.sin),
    sinh: num('sinh', Math.sinh),
    sqrt: num('sqrt', Math.sqrt),
    tan: num('tan', Math.tan),
    tanh: num('tanh', Math.tanh),
  });
  pushString(L, 'huge');
  lua.lua_pushnumber(L, Infinity);
  lua.lua_rawset(L, -3);
  pushString(L, 'pi');
  lua.lua_pushnumber(L, Math.PI);
  lua.lua_rawset(L, -3);
  protect();
  setField(L, B, 'math');

  // --- os ---
  lua.lua_createtable(L, 0, 2);
  setFunctions(L, {
    time: (L) => {
      if (lua.lua_type(L, 1) <= lua.LUA_TNIL) {
        lua.lua_pushnumber(L, osTime(undefined, host.nowMs()));
        return 1;
      }
      checkTable(L, 1, 'time');
      const fields: TimeFields = {};
      for (const k of ['year', 'month', 'day', 'hour', 'min', 'sec'] as const) {
        pushString(L, k);
        lua.lua_rawget(L, 1);
        if (lua.lua_type(L, -1) === lua.LUA_TNUMBER) fields[k] = Math.trunc(lua.lua_tonumber(L, -1));
        lua.lua_pop(L, 1);
      }
      lua.lua_pushnumber(L, osTime(fields, host.nowMs()));
      return 1;
    },
    date: (L) => {
      const fmt = lua.lua_type(L, 1) <= lua.LUA_TNIL ? undefined : checkString(L, 1, 'date');
      const t = lua.lua_type(L, 2) <= lua.LUA_TNIL ? undefined : checkNumber(L, 2, 'date');
      const r = osDate(fmt, t, host.nowMs());
      if (typeof r === 'string') pushString(L, r);
      else {
        lua.lua_createtable(L, 0, 9);
        for (const [k, v] of Object.entries(r)) {
          pushString(L, k);
          if (typeof v === 'boolean') lua.lua_pushboolean(L, v);
          else lua.lua_pushnumber(L, v);
          lua.lua_rawset(L, -3);
        }
      }
      return 1;
    },
  });
  protect();
  setField(L, B, 'os');

  // --- kube (only reachable through require) ---
  lua.lua_createtable(L, 0, 4);
  setFunctions(L, KUBE_FUNCTIONS);
  const kubeProxy = protect();
  lua.lua_pop(L, 1);

  // --- package ---
  lua.lua_createtable(L, 0, 8);
  const pkg = lua.lua_gettop(L);
  lua.lua_createtable(L, 0, 8);
  for (const name of ['string', 'table', 'math', 'os']) {
    pushString(L, name);
    pushString(L, name);
    lua.lua_rawget(L, B);
    lua.lua_rawset(L, -3);
  }
  pushString(L, '_G');
  lua.lua_pushvalue(L, G);
  lua.lua_rawset(L, -3);
  protect();
  setField(L, pkg, 'loaded');
  lua.lua_createtable(L, 0, 1);
  pushString(L, 'kube');
  lua.lua_pushcfunction(L, (L: LuaState) => {
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, kubeProxy.ref);
    return 1;
  });
  lua.lua_rawset(L, -3);
  protect();
  setField(L, pkg, 'preload');
  lua.lua_createtable(L, 1, 0);
  lua.lua_pushcfunction(L, (L: LuaState) => {
    const name = checkString(L, 1, 'loader');
    if (name === 'kube') {
      lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, kubeProxy.ref);
      return 1;
    }
    pushString(L, `\n\tno field package.preload['${name}']`);
    return 1;
  });
  lua.lua_rawseti(L, -2, 1);
  protect();
  setField(L, pkg, 'loaders');
  pushString(L, 'loadlib');
  lua.lua_pushcfunction(L, (L: LuaState) => raiseError(L, 'loadlib is not supported'));
  lua.lua_rawset(L, pkg);
  for (const [k, v] of [
    ['path', ''],
    ['cpath', ''],
  ] as const) {
    pushString(L, k);
    pushString(L, v);
    lua.lua_rawset(L, pkg);
  }
  lua.lua_settop(L, pkg);
  protect();
  setField(L, B, 'package');

  lua.lua_settop(L, B);
  const baseRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
  lua.lua_settop(L, 0);
  return { baseRef, envRef: env.ref, protectedTables };

  function setField(L: LuaState, target: number, name: string): void {
    // value on top -> target[name]
    pushString(L, name);
    lua.lua_insert(L, -2);
    lua.lua_rawset(L, target);
  }
}

function frexp(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  const a = Math.abs(x);
  let e = Math.max(-1073, Math.floor(Math.log2(a)) + 1);
  let m = a * 2 ** -e;
  while (m < 0.5) {
    m *= 2;
    e--;
  }
  while (m >= 1) {
    m /= 2;
    e++;
  }
  return [x < 0 ? -m : m, e];
}


const baseFns: Record<string, Fn> = (() => {
  const S = lauxlib.luaL_newstate();
  lbaselib.luaopen_base(S);
  const out: Record<string, Fn> = {};
  for (const name of ['tostring', 'type', 'select', 'error', 'ipairs']) {
    lua.lua_getglobal(S, to_luastring(name));
    out[name] = S.stack[S.top - 1].value;
    lua.lua_pop(S, 1);
  }
  return out;
})();


