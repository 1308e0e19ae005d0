/** Argument checking with gopher-lua's wording: `bad argument #1 to floor (number expected, got nil)`. */
import * as fengariModule from './fengari.js';
import { type LuaState } from './fengari.js';
import { formatLuaNumber, goToNumber } from './numbers.js';

// Copied once: the TS loader turns every read of an imported binding into a getter call.
const lua: typeof fengariModule.lua = fengariModule.lua;
const raiseError: typeof fengariModule.raiseError = fengariModule.raiseError;
const to_jsstring: typeof fengariModule.to_jsstring = fengariModule.to_jsstring;
const toBytes: typeof fengariModule.toBytes = fengariModule.toBytes;
const toJsString: typeof fengariModule.toJsString = fengariModule.toJsString;

export function typeName(L: LuaState, i: number): string {
  const t = lua.lua_type(L, i);
  if (t === lua.LUA_TNONE) return 'nil';
  return to_jsstring(lua.lua_typename(L, t));
}

export function argError(L: LuaState, i: number, fname: string, msg: string): never {
  raiseError(L, `bad argument #${i} to ${fname} (${msg})`);
}

export function typeError(L: LuaState, i: number, fname: string, expected: string): never {
  argError(L, i, fname, `${expected} expected, got ${typeName(L, i)}`);
}

/** A string argument; numbers convert to their printed form as in gopher's CheckString. */
export function checkString(L: LuaState, i: number, fname: string): string {
  const t = lua.lua_type(L, i);
  if (t === lua.LUA_TSTRING) return toJsString(L, i);
  if (t === lua.LUA_TNUMBER) return formatLuaNumber(lua.lua_tonumber(L, i));
  typeError(L, i, fname, 'string');
}

export function checkBytes(L: LuaState, i: number, fname: string): Uint8Array {
  const t = lua.lua_type(L, i);
  if (t === lua.LUA_TSTRING) return toBytes(L, i);
  if (t === lua.LUA_TNUMBER) return Buffer.from(formatLuaNumber(lua.lua_tonumber(L, i)));
  typeError(L, i, fname, 'string');
}

export function checkNumber(L: LuaState, i: number, fname: string): number {
  const t = lua.lua_type(L, i);
  if (t === lua.LUA_TNUMBER) return lua.lua_tonumber(L, i);
  if (t === lua.LUA_TSTRING) {
    const n = goToNumber(toJsString(L, i));
    if (n !== null) return n;
  }
  typeError(L, i, fname, 'number');
}

/** gopher's CheckInt: a number truncated toward zero. */
export function checkInt(L: LuaState, i: number, fname: string): number {
  return Math.trunc(checkNumber(L, i, fname));
}

export function optInt(L: LuaState, i: number, fname: string, def: number): number {
  const t = lua.lua_type(L, i);
  if (t === lua.LUA_TNONE || t === lua.LUA_TNIL) return def;
  return checkInt(L, i, fname);
}

export function checkTable(L: LuaState, i: number, fname: string): void {
  if (lua.lua_type(L, i) !== lua.LUA_TTABLE) typeError(L, i, fname, 'table');
}

export function checkAny(L: LuaState, i: number, fname: string): void {
  if (lua.lua_type(L, i) === lua.LUA_TNONE) argError(L, i, fname, 'value expected');
}
