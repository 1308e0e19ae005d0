/**
 * The one place that touches fengari's internals.
 *
 * fengari implements Lua 5.3; Karmada runs gopher-lua (Lua 5.1). The visible differences that matter to
 * scripts — how numbers print, the wording of runtime errors, unbounded string growth — live in
 * functions that fengari's VM calls through its module objects, so they are replaced here once, for
 * every state in the process. Nothing else in the code base should import fengari directly.
 */
// Static imports (not createRequire) so that a bundler includes fengari. Each default import is the
// CommonJS module's exports object itself, the one fengari's own modules share: patching it patches them.
import fengariMain from 'fengari';
import defs from 'fengari/src/defs.js';
import ldebug from 'fengari/src/ldebug.js';
import ldo from 'fengari/src/ldo.js';
import lfunc from 'fengari/src/lfunc.js';
import lobject from 'fengari/src/lobject.js';
import lopcodes from 'fengari/src/lopcodes.js';
import lstate from 'fengari/src/lstate.js';
import lstring from 'fengari/src/lstring.js';
import ltable from 'fengari/src/ltable.js';
import ltm from 'fengari/src/ltm.js';
import lvmModule from 'fengari/src/lvm.js';
import { formatLuaNumber } from './numbers.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Any = any;

export const fengari: Any = fengariMain;
export const lua: Any = fengari.lua;
export const lauxlib: Any = fengari.lauxlib;
export const lvm: Any = lvmModule;
/** fengari's table module (patched below): convert.ts builds lazy tables with it directly. */
export const ltableModule: Any = ltable;

export type LuaState = Any;

/** fengari modules the sandbox reaches into (value constructors); keep uses to a minimum. */
export const fengariInternals: { lobject: Any } = { lobject };
export const to_luastring: (s: string, cache?: boolean) => Uint8Array = fengari.to_luastring;
export const to_jsstring: (s: Uint8Array) => string = fengari.to_jsstring;

/** Largest string a script may build (concatenation, table.concat, string.format). */
export const MAX_STRING_BYTES = 64 * 1024 * 1024;

/**
 * Per-state hooks the sandbox installs: counting string bytes towards the memory cap, checking the
 * clock from inside long operations, and aborting a call. Keyed by the global state so nested coroutine
 * threads (not opened, but cheap to support) share it.
 */
export interface StateAccounting {
  stringBytes: number;
  limit: number;
  /** Aborts the call (throws LuaAbort): a string of `size` bytes would pass a limit. */
  onStringLimit(L: LuaState, size: number): void;
  /** Checks the call's clock and heap; throws LuaAbort when a budget is spent. */
  onLargeString(L: LuaState): void;
  /** True once the running call has been aborted. */
  isAborted(): boolean;
  /** The text the aborted call fails with. */
  abortText(): string;
  /**
   * A JS exception escaped into the VM: returns true when it must end the call (it is then marked
   * aborted), false when it is an ordinary error that becomes a Lua error with its text.
   */
  nativeError(e: unknown): boolean;
}
const accounting = new WeakMap<object, StateAccounting>();
export function setAccounting(L: LuaState, acc: StateAccounting): void {
  accounting.set(L.l_G, acc);
}

/** What string hashing (which has no state at hand) charges its long hashes to. */
export interface HashAccounting {
  /** Counts `bytes` of hash text about to be built; throws LuaAbort when that passes the limit. */
  onHash(bytes: number): void;
}
let runningAcc: HashAccounting | null = null;
let runningL: Any = null;
/**
 * The state whose call runs now (one at a time in a process: calls do not nest), or nulls between calls:
 * for the checks that have no state at hand (string hashes, guarded instructions).
 */
export function setRunning(L: LuaState | null, acc: HashAccounting | null): void {
  runningL = L;
  runningAcc = acc;
}

/**
 * The end of a call that ran out of budget. It is a JS exception, not a Lua error, so that no Lua code
 * gets control again: no message handler runs and no pcall or xpcall stops it (the patched luaD_pcall
 * lets it through every protected call but the outermost, the sandbox's own).
 */
export class LuaAbort extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LuaAbort';
  }
}

/** Checks the running call's budgets from JS code that works for it (encoders, long library loops). */
export function checkBudget(L: LuaState): void {
  const acc = accounting.get(L.l_G);
  if (acc !== undefined) acc.onLargeString(L);
}

/** The message of a JS exception as a script should see it. */
export function nativeErrorText(e: unknown): string {
  if (e instanceof RangeError && /call stack|stack overflow/i.test(e.message)) return 'stack overflow';
  if (e instanceof Error) return e.message === '' ? e.name : e.message;
  if (typeof e === 'string' && e !== '') return e;
  return 'unexpected error in a library function';
}

let patched = false;

/** The property of a fengari Table that holds what convert.ts's lazy tables read from. */
export const TABLE_SOURCE = '__karmadaLiteLazy';

/**
 * The property of a fengari Table that names the converted argument it belongs to (convert.ts reuses a
 * converted argument across calls while nothing wrote to it): every raw write to such a table marks the
 * tree dirty, unless the converter itself is storing what it fetched (`treeWrites.internal`).
 */
export const TABLE_TREE = '__karmadaLiteTree';
export const treeWrites = { internal: false };
/** The property of a fengari Table that holds what an array table in such a tree was built from. */
export const TABLE_ARRAY = '__karmadaLiteArray';

/**
 * A JS `__index` function whose common answers can be given without a Lua call frame: `read(L, table,
 * key, result)` (TValues) stores the answer and returns true, or returns false to have the function called as
 * usual. The answer must be the one the call would give; no Lua code runs in between, so instruction
 * hooks see no difference.
 */
const indexShortcut: { fn: unknown; read: (L: LuaState, t: Any, key: Any, res: Any) => boolean } = { fn: null, read: () => false };
export function setIndexShortcut(fn: (L: LuaState) => number, read: (L: LuaState, t: Any, key: Any, res: Any) => boolean): void {
  indexShortcut.fn = fn;
  indexShortcut.read = read;
}

/** gopher-lua spells the arithmetic events without underscores: `cannot perform add operation ...`. */
const EVENT_NAMES: Record<number, string> = {};
let lastBinEvent = -1;

function gopherTypeName(L: LuaState, o: Any): string {
  return to_jsstring(ltm.luaT_objtypename(L, o));
}

function keyToString(L: LuaState, key: Any): string {
  if (!key) return '?';
  if (key.ttisstring()) return to_jsstring(key.svalue());
  if (key.ttisnumber()) return formatLuaNumber(key.value);
  if (key.ttisnil()) return 'nil';
  if (key.ttisboolean()) return key.value ? 'true' : 'false';
  return gopherTypeName(L, key);
}

/** The key of the table access the current Lua instruction performs, for gopher's index error text. */
function currentIndexKey(L: LuaState): Any {
  const ci = L.ci;
  if (!ci || !ci.l_code || !(ci.callstatus & 2 /* CIST_LUA */)) return null;
  const i = ci.l_code[ci.l_savedpc - 1];
  if (!i) return null;
  const k = ci.func.value.p.k;
  const rk = (x: number) => (lopcodes.ISK(x) ? k[lopcodes.INDEXK(x)] : L.stack[ci.l_base + x]);
  switch (i.opcode) {
    case lopcodes.OpCodesI.OP_GETTABUP:
    case lopcodes.OpCodesI.OP_GETTABLE:
    case lopcodes.OpCodesI.OP_SELF:
      return rk(i.C);
    case lopcodes.OpCodesI.OP_SETTABUP:
    case lopcodes.OpCodesI.OP_SETTABLE:
      return rk(i.B);
    default:
      return null;
  }
}

function runerror(L: LuaState, msg: string): never {
  // `%` must not be read as a format directive by luaO_pushvfstring.
  ldebug.luaG_runerror(L, to_luastring('%s'), to_luastring(msg));
  throw new Error('unreachable');
}

export function installPatches(): void {
  if (patched) return;
  patched = true;
  const T = ltm.TMS;
  Object.assign(EVENT_NAMES, {
    [T.TM_ADD]: 'add',
    [T.TM_SUB]: 'sub',
    [T.TM_MUL]: 'mul',
    [T.TM_DIV]: 'div',
    [T.TM_MOD]: 'mod',
    [T.TM_POW]: 'pow',
    [T.TM_UNM]: 'unm',
    [T.TM_IDIV]: 'div',
  });

  lobject.luaO_tostring = (L: LuaState, obj: Any) => {
    const s = obj.ttisinteger() ? String(obj.value) : formatLuaNumber(obj.value);
    obj.setsvalue(lstring.luaS_bless(L, to_luastring(s)));
  };

  // gopher-lua has no integer subtype: every numeral is a float64. fengari's 32-bit integers would
  // otherwise wrap (`65536 * 65536`) and make `x % 0` an error instead of NaN.
  const origStr2num = lobject.luaO_str2num;
  lobject.luaO_str2num = (s: Uint8Array, o: Any) => {
    const r = origStr2num(s, o);
    if (r !== 0 && o.ttisinteger()) {
      const text = to_jsstring(s.subarray(0, r - 1)).trim();
      const hex = /^([+-]?)0[xX]([0-9a-fA-F]+)$/.exec(text);
      o.setfltvalue(hex ? (hex[1] === '-' ? -1 : 1) * Number.parseInt(hex[2]!, 16) : o.value);
    }
    return r;
  };

  // fengari shrinks the stack with `delete`, which costs a runtime call per slot and eventually turns
  // the array into a slow dictionary. Slots above `top` are never written through before being replaced
  // by a fresh value (fengari's own code relies on them being absent), so leaving them is safe.
  const LUA_TNIL = 0;
  const MASK_RET_LINE = (1 << 1) | (1 << 2);
  const origAdjustTop = ldo.adjust_top;
  // Slot objects above top can also be reused when the stack grows again: a returning function's
  // captured locals were already swapped for fresh values by luaF_close, so no closure shares them.
  ldo.adjust_top = (L: Any, newtop: number) => {
    const stack = L.stack;
    while (L.top < newtop) {
      const slot = stack[L.top];
      if (slot === undefined) stack[L.top] = new lobject.TValue(LUA_TNIL, null);
      else slot.setnilvalue();
      L.top++;
    }
    L.top = newtop;
  };
  void origAdjustTop;
  const origPoscall = ldo.luaD_poscall;
  ldo.luaD_poscall = (L: Any, ci: Any, firstResult: number, nres: number) => {
    if (L.hookmask & MASK_RET_LINE) return origPoscall(L, ci, firstResult, nres);
    const wanted = ci.nresults;
    const res = ci.funcOff;
    L.ci = ci.previous;
    L.ci.next = null;
    const stack = L.stack;
    switch (wanted) {
      case 0:
        break;
      case 1:
        if (nres === 0) stack[res].setnilvalue();
        else stack[res].setfrom(stack[firstResult]);
        break;
      case -1:
        for (let i = 0; i < nres; i++) stack[res + i].setfrom(stack[firstResult + i]);
        L.top = res + nres;
        return false;
      default: {
        let i = 0;
        if (wanted <= nres) {
          for (; i < wanted; i++) stack[res + i].setfrom(stack[firstResult + i]);
        } else {
          for (; i < nres; i++) stack[res + i].setfrom(stack[firstResult + i]);
          for (; i < wanted; i++) {
            if (res + i >= L.top) stack[res + i] = new lobject.TValue(LUA_TNIL, null);
            else stack[res + i].setnilvalue();
          }
        }
      }
    }
    L.top = res + wanted;
    return true;
  };

  // Calls: the same as fengari's luaD_precall/luaD_call, but going through the non-deleting poscall and
  // adjust_top above. Vararg functions, hooks on calls and `__call` metamethods use the originals.
  const CT = defs.constant_types;
  const MASK_CALL = 1 << 0;
  const LUA_MINSTACK = 20;
  const CIST_LUA = lstate.CIST_LUA;
  const origPrecall = ldo.luaD_precall;
  ldo.luaD_precall = (L: Any, off: number, nresults: number): boolean => {
    const func = L.stack[off];
    const t = func.type;
    if (L.hookmask & MASK_CALL) return origPrecall(L, off, nresults);
    if (t === CT.LUA_TLCF || t === CT.LUA_TCCL) {
      const f = t === CT.LUA_TCCL ? func.value.f : func.value;
      ldo.luaD_checkstack(L, LUA_MINSTACK);
      const ci = lstate.luaE_extendCI(L);
      ci.funcOff = off;
      ci.nresults = nresults;
      ci.func = func;
      ci.top = L.top + LUA_MINSTACK;
      ci.callstatus = 0;
      const n = f(L);
      if (typeof n !== 'number' || n < 0 || (n | 0) !== n) throw Error('invalid return value from JS function (expected integer)');
      ldo.luaD_poscall(L, ci, L.top - n, n);
      return true;
    }
    if (t === CT.LUA_TLCL) {
      const p = func.value.p;
      if (p.is_vararg) return origPrecall(L, off, nresults);
      let n = L.top - off - 1;
      const fsize = p.maxstacksize;
      ldo.luaD_checkstack(L, fsize);
      for (; n < p.numparams; n++) L.stack[L.top++] = new lobject.TValue(LUA_TNIL, null);
      const base = off + 1;
      const ci = lstate.luaE_extendCI(L);
      ci.funcOff = off;
      ci.nresults = nresults;
      ci.func = func;
      ci.l_base = base;
      ci.top = base + fsize;
      ldo.adjust_top(L, ci.top);
      ci.l_code = p.code;
      ci.l_savedpc = 0;
      ci.callstatus = CIST_LUA;
      return false;
    }
    return origPrecall(L, off, nresults);
  };
  const origCall = ldo.luaD_call;
  ldo.luaD_call = (L: Any, off: number, nResults: number) => {
    if (L.nCcalls + 1 >= 200) return origCall(L, off, nResults);
    L.nCcalls++;
    if (!ldo.luaD_precall(L, off, nResults)) lvm.luaV_execute(L);
    L.nCcalls--;
  };

  // Every table carries the lazy-source slot from birth, so marking a lazy table does not give it a
  // different hidden class from the others (which made every table operation polymorphic).
  const origNew = ltable.luaH_new;
  ltable.luaH_new = (L: Any) => {
    const t = origNew(L);
    t[TABLE_SOURCE] = undefined;
    t[TABLE_TREE] = undefined;
    t[TABLE_ARRAY] = undefined;
    return t;
  };

  // Table inserts: fengari's `add` clears a (usually empty) map of dead keys on every insert, which
  // allocates; these versions clear it only when it holds something. Deletions and unusual keys keep
  // using fengari's own code.
  const TNUMINT = CT.LUA_TNUMINT;
  const TNUMFLT = CT.LUA_TNUMFLT;
  const TLNGSTR = CT.LUA_TLNGSTR;
  const TSHRSTR = CT.LUA_TSHRSTR;
  const fastAdd = (t: Any, hash: unknown, key: Any, value: Any) => {
    if (t.dead_strong.size !== 0) t.dead_strong.clear();
    t.dead_weak = undefined;
    const prev = t.l;
    const entry = { key, value, p: prev, n: undefined };
    if (!t.f) t.f = entry;
    if (prev) prev.n = entry;
    t.strong.set(hash, entry);
    t.l = entry;
  };
  const origSetfrom = ltable.luaH_setfrom;
  ltable.luaH_setfrom = (L: Any, t: Any, key: Any, value: Any) => {
    const tree = t[TABLE_TREE];
    if (tree !== undefined && !treeWrites.internal) tree.dirty = true;
    if (value.ttisnil()) return origSetfrom(L, t, key, value);
    const kt = key.type;
    let hash: unknown;
    let ktype = kt;
    if (kt === TLNGSTR || kt === TSHRSTR) hash = lstring.luaS_hashlongstr(key.value);
    else if (kt === TNUMINT) hash = key.value;
    else if (kt === TNUMFLT) {
      const v = key.value;
      if (v !== v) return origSetfrom(L, t, key, value);
      hash = v;
      if ((v | 0) === v) ktype = TNUMINT;
    } else return origSetfrom(L, t, key, value);
    const e = t.strong.get(hash);
    if (e) e.value.setfrom(value);
    else fastAdd(t, hash, new lobject.TValue(ktype, key.value), new lobject.TValue(value.type, value.value));
  };
  const origSetint = ltable.luaH_setint;
  ltable.luaH_setint = (t: Any, key: number, value: Any) => {
    const tree = t[TABLE_TREE];
    if (tree !== undefined && !treeWrites.internal) tree.dirty = true;
    if (value.ttisnil()) return origSetint(t, key, value);
    const e = t.strong.get(key);
    if (e) e.value.setfrom(value);
    else fastAdd(t, key, new lobject.TValue(TNUMINT, key), new lobject.TValue(value.type, value.value));
  };

  // The API functions the sandbox calls most pop with `delete` too; these equivalents only move top.
  const REGISTRY = lua.LUA_REGISTRYINDEX;
  const slotOf = (L: Any, idx: number): Any => {
    if (idx > 0) return L.stack[L.ci.funcOff + idx];
    if (idx > REGISTRY) return L.stack[L.top + idx];
    if (idx === REGISTRY) return L.l_G.l_registry;
    return null;
  };
  const origRawset = lua.lua_rawset;
  lua.lua_rawset = (L: Any, idx: number) => {
    const o = slotOf(L, idx);
    if (!o || !o.ttistable()) return origRawset(L, idx);
    ltable.luaH_setfrom(L, o.value, L.stack[L.top - 2], L.stack[L.top - 1]);
    o.value.flags = 0;
    L.top -= 2;
  };
  const origRawseti = lua.lua_rawseti;
  lua.lua_rawseti = (L: Any, idx: number, n: number) => {
    const o = slotOf(L, idx);
    if (!o || !o.ttistable() || (n | 0) !== n) return origRawseti(L, idx, n);
    ltable.luaH_setint(o.value, n, L.stack[L.top - 1]);
    L.top -= 1;
  };
  const origSetmetatable = lua.lua_setmetatable;
  lua.lua_setmetatable = (L: Any, idx: number) => {
    const o = slotOf(L, idx);
    const mt = L.stack[L.top - 1];
    if (!o || !o.ttistable() || !mt.ttistable()) return origSetmetatable(L, idx);
    o.value.metatable = mt.value;
    L.top -= 1;
    return true;
  };

  const origSetsvalue2s = lobject.setsvalue2s;
  lobject.setsvalue2s = (L: LuaState, idx: number, ts: Any) => {
    const len = ts.realstring.length;
    if (len > 4096) {
      markLongString(ts);
      noteLongString(L, len);
      const acc = accounting.get(L.l_G);
      if (acc) {
        acc.stringBytes += len;
        if (len > MAX_STRING_BYTES || acc.stringBytes > acc.limit) acc.onStringLimit(L, len);
        // Building big strings is slow work between instruction hooks: check the clock too.
        if (len > 65536) acc.onLargeString(L);
      }
    }
    origSetsvalue2s(L, idx, ts);
  };

  // Metamethod calls (every lazy field read goes through __index) without the popping `delete`.
  ltm.luaT_callTM = (L: Any, f: Any, p1: Any, p2: Any, p3: Any, hasres: number | boolean) => {
    if (hasres && f.value === indexShortcut.fn && f.type === CT.LUA_TLCF && indexShortcut.read(L, p1, p2, p3)) return;
    const func = L.top;
    lobject.pushobj2s(L, f);
    lobject.pushobj2s(L, p1);
    lobject.pushobj2s(L, p2);
    if (!hasres) lobject.pushobj2s(L, p3);
    if (L.ci.callstatus & CIST_LUA) ldo.luaD_call(L, func, hasres);
    else ldo.luaD_callnoyield(L, func, hasres);
    if (hasres) {
      const tv = L.stack[L.top - 1];
      L.top--;
      p3.setfrom(tv);
    }
  };

  const origTryBin = ltm.luaT_trybinTM;
  ltm.luaT_trybinTM = (L: LuaState, p1: Any, p2: Any, res: Any, event: number) => {
    lastBinEvent = event;
    return origTryBin(L, p1, p2, res, event);
  };

  ldebug.luaG_typeerror = (L: LuaState, o: Any, op: Uint8Array) => {
    const what = to_jsstring(op);
    const t = gopherTypeName(L, o);
    if (what === 'index') runerror(L, `attempt to index a non-table object(${t}) with key '${keyToString(L, currentIndexKey(L))}'`);
    if (what === 'call') runerror(L, 'attempt to call a non-function object');
    if (what === 'get length of') runerror(L, '__len undefined');
    runerror(L, `attempt to ${what} a ${t} value`);
  };
  ldebug.luaG_concaterror = (L: LuaState, p1: Any, p2: Any) => {
    runerror(L, `cannot perform concat operation between ${gopherTypeName(L, p1)} and ${gopherTypeName(L, p2)}`);
  };
  ldebug.luaG_opinterror = (L: LuaState, p1: Any, p2: Any) => {
    const ev = EVENT_NAMES[lastBinEvent] ?? 'arith';
    if (ev === 'unm') runerror(L, '__unm undefined');
    runerror(L, `cannot perform ${ev} operation between ${gopherTypeName(L, p1)} and ${gopherTypeName(L, p2)}`);
  };
  ldebug.luaG_ordererror = (L: LuaState, p1: Any, p2: Any) => {
    runerror(L, `attempt to compare ${gopherTypeName(L, p1)} with ${gopherTypeName(L, p2)}`);
  };

  installContainment();
}

/** Stack slots kept after an error; a stack grown past STACK_SHRINK_ABOVE is cut back to what is in use. */
const STACK_KEEP = 16384;
const STACK_SHRINK_ABOVE = 65536;
/** C API table reads, writes and comparisons between two budget checks (ltablib's sort, insert, remove). */
const API_OPS_PER_CHECK = 4096;
/** Strings longer than this make a concatenation check the clock first, and the count hook come sooner. */
const LONG_OPERAND = 65536;

/**
 * Budgets that hold on every path: protected calls that cannot catch an abort, budget checks from
 * library code that works through the C API, string hashing in linear time. (Concatenations are
 * guarded when a chunk is loaded: guardInstructions.)
 */
function installContainment(): void {
  const CT = defs.constant_types;
  const LUA_OK = defs.thread_status.LUA_OK;
  const LUA_ERRRUN = defs.thread_status.LUA_ERRRUN;
  const LUA_ERRERR = defs.thread_status.LUA_ERRERR;
  const EXTRA_STACK = lstate.EXTRA_STACK;

  const pushMessage = (L: Any, msg: string) => {
    const tv = new lobject.TValue(CT.LUA_TNIL, null);
    tv.setsvalue(lstring.luaS_bless(L, to_luastring(msg)));
    // Written past any api_check: the error may be that the stack is full.
    L.stack[L.top++] = tv;
  };

  /**
   * fengari's luaD_rawrunprotected, except that an abort goes through: rethrown to the enclosing
   * protected call, or (at the outermost one) returned as an error without running any message handler.
   * A JS exception from library code becomes a Lua error carrying its text, never a stray stack value.
   */
  const ABORTED = -1;
  const runProtected = (L: Any, f: (L: Any, ud: unknown) => void, ud: unknown): number => {
    const oldnCcalls = L.nCcalls;
    const lj = { status: LUA_OK, previous: L.errorJmp };
    L.errorJmp = lj;
    let status = LUA_OK;
    let abort: unknown = null;
    try {
      f(L, ud);
    } catch (e) {
      const acc = accounting.get(L.l_G);
      if (e instanceof LuaAbort || (acc !== undefined && acc.isAborted())) {
        status = ABORTED;
        abort = e;
      } else if (e === lj) status = lj.status;
      else if (acc !== undefined && acc.nativeError(e)) status = ABORTED;
      else {
        // As luaG_errormsg would for a Lua error: the message, through the handler if there is one.
        status = LUA_ERRRUN;
        try {
          lj.status = LUA_OK;
          pushMessage(L, nativeErrorText(e));
          if (L.errfunc !== 0) {
            const errfunc = L.errfunc;
            lobject.pushobj2s(L, L.stack[L.top - 1]);
            lobject.setobjs2s(L, L.top - 2, errfunc);
            ldo.luaD_callnoyield(L, L.top - 2, 1);
          }
        } catch (e2) {
          if (e2 instanceof LuaAbort || (acc !== undefined && (acc.isAborted() || (e2 !== lj && acc.nativeError(e2))))) {
            status = ABORTED;
            abort = e2;
          } else status = LUA_ERRERR;
        }
      }
    }
    L.errorJmp = lj.previous;
    L.nCcalls = oldnCcalls;
    if (status !== ABORTED) return status;
    const acc = accounting.get(L.l_G);
    const text = acc !== undefined ? acc.abortText() : nativeErrorText(abort);
    if (lj.previous !== null) throw abort instanceof LuaAbort ? abort : new LuaAbort(text);
    pushMessage(L, text);
    return LUA_ERRRUN;
  };

  const setErrorObj = (L: Any, status: number, oldtop: number) => {
    const top = L.top;
    while (L.top < oldtop + 1) L.stack[L.top++] = new lobject.TValue(CT.LUA_TNIL, null);
    const slot = L.stack[oldtop];
    if (status === LUA_ERRERR) slot.setsvalue(lstring.luaS_bless(L, to_luastring('error in error handling')));
    else if (status === defs.thread_status.LUA_ERRMEM) slot.setsvalue(lstring.luaS_bless(L, to_luastring('not enough memory')));
    else slot.setfrom(L.stack[top - 1]);
    L.top = oldtop + 1;
  };

  const shrinkStack = (L: Any) => {
    const len = L.stack.length;
    if (len > STACK_SHRINK_ABOVE) {
      let inuse = L.top;
      for (let ci = L.ci; ci !== null; ci = ci.previous) if (inuse < ci.top) inuse = ci.top;
      const size = Math.max(STACK_KEEP, inuse + (inuse >> 3) + 2 * EXTRA_STACK);
      if (size < len) L.stack.length = size;
    }
    L.stack_last = L.stack.length - EXTRA_STACK;
  };

  ldo.luaD_pcall = (L: Any, func: (L: Any, ud: unknown) => void, u: unknown, oldTop: number, ef: number): number => {
    const oldCi = L.ci;
    const oldAllowhook = L.allowhook;
    const oldNny = L.nny;
    const oldErrfunc = L.errfunc;
    L.errfunc = ef;
    const status = runProtected(L, func, u);
    if (status !== LUA_OK) {
      lfunc.luaF_close(L, oldTop);
      setErrorObj(L, status, oldTop);
      L.ci = oldCi;
      L.allowhook = oldAllowhook;
      L.nny = oldNny;
      shrinkStack(L);
    }
    L.errfunc = oldErrfunc;
    return status;
  };

  // Library code reads, writes and compares table elements through the C API (lua_geti, lua_seti,
  // lua_compare), which reaches these through the module object; the VM uses its own bindings. A
  // count of them bounds how long table.sort or table.insert on a huge table runs unchecked.
  let apiOps = 0;
  const count = (L: Any) => {
    if (++apiOps >= API_OPS_PER_CHECK) {
      apiOps = 0;
      // lua_rawequal passes no state.
      if (L !== null) checkBudget(L);
    }
  };
  const gettable = lvm.luaV_gettable;
  lvm.luaV_gettable = (L: Any, t: Any, key: Any, ra: number) => {
    count(L);
    return gettable(L, t, key, ra);
  };
  const settable = lvm.settable;
  lvm.settable = (L: Any, t: Any, key: Any, val: Any) => {
    count(L);
    return settable(L, t, key, val);
  };
  for (const name of ['luaV_lessthan', 'luaV_lessequal', 'luaV_equalobj']) {
    const compare = lvm[name];
    lvm[name] = (L: Any, a: Any, b: Any) => {
      count(L);
      return compare(L, a, b);
    };
  }

  // Long strings get their hash in linear time (see markLongString); they are noticed where they are made.
  const origPushsvalue2s = lobject.pushsvalue2s;
  lobject.pushsvalue2s = (L: Any, ts: Any) => {
    const len = ts.realstring.length;
    if (len > LONG_HASH) {
      markLongString(ts);
      noteLongString(L, len);
    }
    origPushsvalue2s(L, ts);
  };
}

// ---------------------------------------------------------------------------------------------------
// Checks before the instructions whose cost grows with their operands.

const OP_CONCAT = lopcodes.OpCodesI.OP_CONCAT;

/**
 * A concatenation that checks its result against the string limits when the VM reads its opcode, just
 * before it runs and allocates: `s .. s` of two 64 MiB strings, or 200 operands of one, would otherwise
 * be built first. Only concatenations are replaced, so every other instruction runs as before.
 */
class GuardedConcat {
  code: number;
  A: number;
  B: number;
  C: number;
  Bx: number;
  Ax: number;
  sBx: number;
  constructor(i: Any) {
    this.code = i.code;
    this.A = i.A;
    this.B = i.B;
    this.C = i.C;
    this.Bx = i.Bx;
    this.Ax = i.Ax;
    this.sBx = i.sBx;
  }
  get opcode(): number {
    if (runningL !== null) guardConcat(runningL, this);
    return OP_CONCAT;
  }
}

const STRING_TAG = defs.constant_types.LUA_TSTRING;
const NUMBER_TAG = defs.constant_types.LUA_TNUMBER;

function guardConcat(L: Any, i: GuardedConcat): void {
  const ci = L.ci;
  // The debug library reads opcodes too (for error messages): only the instruction now running counts.
  if (ci.l_code === undefined || ci.l_code[ci.l_savedpc - 1] !== i) return;
  const stack = L.stack;
  const base = ci.l_base;
  let total = 0;
  for (let r = i.B; r <= i.C; r++) {
    const v = stack[base + r];
    const tag = v.type & 15;
    if (tag === STRING_TAG) total += v.value.realstring.length;
    else if (tag === NUMBER_TAG) total += 32;
  }
  if (total <= 4096) return;
  const acc = accounting.get(L.l_G);
  if (acc === undefined) return;
  if (total > MAX_STRING_BYTES || acc.stringBytes + total > acc.limit) acc.onStringLimit(L, total);
  if (total > LONG_OPERAND) acc.onLargeString(L);
}

const guardedProtos = new WeakSet<object>();

/**
 * Puts the checks into the function at the top of the stack (a freshly loaded chunk) and all it
 * contains. Returns the length of its longest string constant (see noteLongString).
 */
export function guardInstructions(L: LuaState): number {
  let longest = 0;
  const walk = (p: Any) => {
    if (guardedProtos.has(p)) return;
    guardedProtos.add(p);
    const code = p.code;
    for (let n = 0; n < code.length; n++) if (code[n].opcode === OP_CONCAT) code[n] = new GuardedConcat(code[n]);
    for (const k of p.k) if (k.ttisstring() && k.value.realstring.length > longest) longest = k.value.realstring.length;
    for (const child of p.p) walk(child);
  };
  walk(L.stack[L.top - 1].value.p);
  return longest;
}

/** Instructions between two count hooks when no long string is about (the sandbox's setting). */
export const HOOK_EVERY = 1000;

/**
 * Comparing two strings, or hashing one, costs time in their length, between two count hooks: a loop
 * comparing two 1 MB strings ran for seconds past its budget, 1000 comparisons at a time. Once a call
 * holds a string longer than LONG_OPERAND, the hook comes more often, in proportion, so that what runs
 * between two checks stays about what 1000 instructions on 64 KiB strings cost. The sandbox resets the
 * interval for every call.
 */
export function noteLongString(L: LuaState, length: number): void {
  if (length <= LONG_OPERAND) return;
  const every = Math.max(1, Math.floor((HOOK_EVERY * LONG_OPERAND) / length));
  if (L.basehookcount > every) {
    L.basehookcount = every;
    if (L.hookcount > every) L.hookcount = every;
  }
}

// ---------------------------------------------------------------------------------------------------
// Hashes of long strings.

/** Strings longer than this get their hash built in linear time. */
const LONG_HASH = 4096;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/**
 * fengari's hash of a string (its table key, and what `<` compares): `|` and each byte's hex digits,
 * unpadded. fengari builds it by string concatenation, a cons-string node per byte: seconds and
 * gigabytes for a long string used as a key or compared. The same text, built in linear time.
 */
function hexHash(u8: Uint8Array): string {
  const bytes = Buffer.from(u8.buffer, u8.byteOffset, u8.length);
  // Without bytes below 0x10 (text), the digits are Node's own hex encoding.
  let low = false;
  for (let b = 0; b < 16 && !low; b++) low = bytes.indexOf(b) !== -1;
  if (!low) return '|' + bytes.toString('hex');
  const out = Buffer.allocUnsafe(1 + 2 * u8.length);
  out[0] = 0x7c;
  let o = 1;
  for (let i = 0; i < u8.length; i++) {
    const b = u8[i]!;
    if (b >= 16) out[o++] = HEX_DIGITS[b >> 4]!;
    out[o++] = HEX_DIGITS[b & 15]!;
  }
  return out.toString('latin1', 0, o);
}

/**
 * Gives a long string a hash that is built, on first use, by hexHash (and counted against the running
 * call's string budget): fengari reads `ts.hash` and computes it only while it is null. Short strings
 * keep fengari's own plain field, so table lookups cost what they did.
 */
function markLongString(ts: Any): void {
  const d = Object.getOwnPropertyDescriptor(ts, 'hash');
  // Already marked, or hashed: nothing to do (reading `ts.hash` would build the hash).
  if (d === undefined || d.get !== undefined || d.value !== null) return;
  Object.defineProperty(ts, 'hash', {
    configurable: true,
    enumerable: true,
    get(this: Any): string {
      const u8: Uint8Array = this.realstring;
      if (runningAcc !== null) runningAcc.onHash(2 * u8.length);
      const h = hexHash(u8);
      Object.defineProperty(this, 'hash', { value: h, writable: true, enumerable: true, configurable: true });
      return h;
    },
    set(this: Any, v: string | null) {
      Object.defineProperty(this, 'hash', { value: v, writable: true, enumerable: true, configurable: true });
    },
  });
}

/** Raises a Lua error with the current line prefixed (`<string>:12: msg`), like gopher's RaiseError. */
export function raiseError(L: LuaState, msg: string): never {
  lauxlib.luaL_where(L, 1);
  lua.lua_pushstring(L, to_luastring(msg));
  lua.lua_concat(L, 2);
  lua.lua_error(L);
  throw new Error('unreachable');
}

/** Raises a Lua error whose value is exactly `msg` (no position), like a Go panic turned into an error. */
export function raiseRaw(L: LuaState, msg: string): never {
  lua.lua_pushstring(L, to_luastring(msg));
  lua.lua_error(L);
  throw new Error('unreachable');
}

// String interning: keys of Kubernetes objects repeat endlessly; a shared immutable TString keeps its
// cached hash, which is most of the cost of a table lookup in fengari.
const internCache = new Map<string, Any>();
const INTERN_MAX_LEN = 64;
const INTERN_MAX_ENTRIES = 50_000;

export function pushString(L: LuaState, s: string): void {
  if (s.length <= INTERN_MAX_LEN) {
    let ts = internCache.get(s);
    if (ts === undefined) {
      ts = lstring.luaS_bless(L, to_luastring(s));
      if (internCache.size < INTERN_MAX_ENTRIES) internCache.set(s, ts);
    }
    lobject.pushsvalue2s(L, ts);
    return;
  }
  lua.lua_pushstring(L, to_luastring(s));
}

const JS = '__karmadaLiteJs';

/** The Lua string object for s (shared when short), for code that stores into a TValue directly. */
export function luaStringObject(L: LuaState, s: string): Any {
  if (s.length <= INTERN_MAX_LEN) {
    let ts = internCache.get(s);
    if (ts === undefined) {
      ts = lstring.luaS_bless(L, to_luastring(s));
      if (internCache.size < INTERN_MAX_ENTRIES) internCache.set(s, ts);
    }
    return ts;
  }
  const ts = lstring.luaS_new(L, to_luastring(s));
  const len = ts.realstring.length;
  if (len > LONG_HASH) {
    markLongString(ts);
    noteLongString(L, len);
  }
  return ts;
}

/** The JS string of a Lua string object, decoded once and kept on the (immutable) object. */
export function jsStringOf(ts: Any): string {
  let s: string | undefined = ts[JS];
  if (s === undefined) {
    s = decodeLuaString(ts.realstring);
    ts[JS] = s;
  }
  return s;
}

/** Reads a Lua string at idx as a JS string, caching the UTF-8 decode on the interned object. */
export function toJsString(L: LuaState, idx: number): string {
  const pos = idx < 0 ? L.top + idx : L.ci.funcOff + idx;
  const o = pos < L.top ? L.stack[pos] : undefined;
  if (o && o.ttisstring && o.ttisstring()) {
    // The decoded form is kept on the (immutable) string object.
    const ts = o.value;
    let s: string | undefined = ts[JS];
    if (s === undefined) {
      s = decodeLuaString(ts.realstring);
      ts[JS] = s;
    }
    return s;
  }
  return lua.lua_tojsstring(L, idx);
}

/** Decodes bytes leniently: invalid UTF-8 maps to U+FFFD instead of throwing (Go does the same). */
export function decodeLuaString(u8: Uint8Array): string {
  let ascii = true;
  for (let i = 0; i < u8.length; i++) {
    if (u8[i]! >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    if (u8.length < 256) return String.fromCharCode.apply(null, u8 as unknown as number[]);
    return Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString('latin1');
  }
  return Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString('utf8');
}

/** Bytes of the Lua string at idx (no decoding). */
export function toBytes(L: LuaState, idx: number): Uint8Array {
  return lua.lua_tolstring(L, idx);
}
