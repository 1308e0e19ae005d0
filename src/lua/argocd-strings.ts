/**
 * `string.gsub` and `string.rep` for scripts loaded as Argo CD health checks (README "differs" 12).
 * Karmada disables both in RIC scripts, and RIC scripts keep that; Argo CD's scripts use them, and here
 * the call's byte and time budgets bound what they build (every result goes through `reserve` before it
 * is made and `pushResult` after).
 */
import { checkBytes, checkInt, optInt } from './args.js';
import * as fengariModule from './fengari.js';
import { raiseError, toBytes, type LuaState } from './fengari.js';
import { formatLuaNumber } from './numbers.js';
import { patternGsub, type CaptureValue } from './patterns.js';

const lua: typeof fengariModule.lua = fengariModule.lua;

type Fn = (L: LuaState) => number;

/** What these functions need from the library that installs them. */
export interface StringHelpers {
  tick(): void;
  reserve(L: LuaState, bytes: number): void;
  pushResult(L: LuaState, v: Uint8Array): void;
  /** Runs a pattern operation, turning pattern errors into Lua errors. */
  patternCall<T>(L: LuaState, f: () => T): T;
  /** checkBytes plus the library's input length limit. */
  sarg(L: LuaState, i: number, fname: string): Uint8Array;
}

const PERCENT = 37;

function captureBytes(c: CaptureValue): Uint8Array {
  return typeof c === 'number' ? Buffer.from(formatLuaNumber(c)) : c;
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function argocdStringFunctions(h: StringHelpers): Record<string, Fn> {
  const gsub: Fn = (L) => {
    const src = h.sarg(L, 1, 'gsub');
    const pat = h.sarg(L, 2, 'gsub');
    const replType = lua.lua_type(L, 3);
    if (replType !== lua.LUA_TNUMBER && replType !== lua.LUA_TSTRING && replType !== lua.LUA_TTABLE && replType !== lua.LUA_TFUNCTION) {
      raiseError(L, 'bad argument #3 to gsub (string/function/table expected)');
    }
    const max = optInt(L, 4, 'gsub', src.length + 1);
    const repl = replType === lua.LUA_TNUMBER || replType === lua.LUA_TSTRING ? checkBytes(L, 3, 'gsub') : null;
    let total = 0;
    const replace = (start: number, end: number, caps: CaptureValue[]): Uint8Array => {
      const whole = src.subarray(start, end);
      let out: Uint8Array;
      if (repl) {
        const parts: Uint8Array[] = [];
        let size = 0;
        for (let i = 0; i < repl.length; i++) {
          const c = repl[i]!;
          if (c !== PERCENT || i + 1 >= repl.length) {
            parts.push(repl.subarray(i, i + 1));
            size++;
            continue;
          }
          const d = repl[++i]!;
          let piece: Uint8Array;
          if (d < 48 || d > 57) piece = repl.subarray(i, i + 1);
          else if (d === 48) piece = whole;
          else {
            const c2 = caps[d - 49];
            if (c2 === undefined) raiseError(L, 'invalid capture index');
            piece = captureBytes(c2);
          }
          parts.push(piece);
          size += piece.length;
          h.reserve(L, total + size);
        }
        out = concat(parts, size);
      } else {
        if (replType === lua.LUA_TTABLE) {
          const key = caps[0]!;
          if (typeof key === 'number') lua.lua_pushnumber(L, key);
          else lua.lua_pushstring(L, key);
          lua.lua_gettable(L, 3);
        } else {
          lua.lua_pushvalue(L, 3);
          for (const c of caps) {
            if (typeof c === 'number') lua.lua_pushnumber(L, c);
            else lua.lua_pushstring(L, c);
          }
          lua.lua_call(L, caps.length, 1);
        }
        const t = lua.lua_type(L, -1);
        if (t === lua.LUA_TNIL || (t === lua.LUA_TBOOLEAN && !lua.lua_toboolean(L, -1))) out = whole;
        else if (t === lua.LUA_TSTRING) out = Uint8Array.from(toBytes(L, -1));
        else if (t === lua.LUA_TNUMBER) out = Buffer.from(formatLuaNumber(lua.lua_tonumber(L, -1)));
        else {
          const name = fengariModule.to_jsstring(lua.lua_typename(L, t));
          lua.lua_pop(L, 1);
          raiseError(L, `invalid replacement value (a ${name})`);
        }
        lua.lua_pop(L, 1);
      }
      total += out.length;
      h.reserve(L, total);
      h.tick();
      return out;
    };
    const r = h.patternCall(L, () => patternGsub(src, pat, max, h.tick, replace));
    let size = 0;
    for (const p of r.parts) size += p.length;
    h.reserve(L, size);
    h.pushResult(L, concat(r.parts, size));
    lua.lua_pushnumber(L, r.count);
    return 2;
  };
  const rep: Fn = (L) => {
    const s = h.sarg(L, 1, 'rep');
    const n = checkInt(L, 2, 'rep');
    if (n <= 0 || s.length === 0) {
      h.pushResult(L, new Uint8Array(0));
      return 1;
    }
    // Checked before anything is allocated: `("x"):rep(1e12)` fails on its size, not on the heap.
    h.reserve(L, s.length * n);
    const out = new Uint8Array(s.length * n);
    for (let i = 0; i < n; i++) {
      out.set(s, i * s.length);
      if ((i & 1023) === 1023) h.tick();
    }
    h.pushResult(L, out);
    return 1;
  };
  return { gsub, rep };
}
