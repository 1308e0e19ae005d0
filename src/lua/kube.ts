/** `require("kube")`: the four helpers Karmada gives scripts (spec §3). */
import { parseQuantity, Quantity, QuantityParseError } from '../quantity/quantity.js';
import { argError, typeError } from './args.js';
import { EncodeError, luaToJs, pushJsEager, repairEmptyTables, ResultSizeError } from './convert.js';
import * as fengariModule from './fengari.js';
import { type LuaState } from './fengari.js';
import { formatLuaNumber, goFormatG } from './numbers.js';
import { checkPodTemplate, podDependencies, PodSpecError, replicaRequirements } from './podspec.js';

// Copied once: the TS loader turns every read of an imported binding into a getter call.
const lua: typeof fengariModule.lua = fengariModule.lua;
const pushString: typeof fengariModule.pushString = fengariModule.pushString;
const raiseError: typeof fengariModule.raiseError = fengariModule.raiseError;
const raiseRaw: typeof fengariModule.raiseRaw = fengariModule.raiseRaw;
const toJsString: typeof fengariModule.toJsString = fengariModule.toJsString;
const checkBudget: typeof fengariModule.checkBudget = fengariModule.checkBudget;

function parseOrPanic(L: LuaState, s: string): Quantity {
  try {
    return parseQuantity(s);
  } catch (e) {
    if (e instanceof QuantityParseError) raiseRaw(L, e.message);
    throw e;
  }
}

function resourceAdd(L: LuaState): number {
  const n = lua.lua_gettop(L);
  let sum = Quantity.zero();
  for (let i = 1; i <= n; i++) {
    const t = lua.lua_type(L, i);
    if (t === lua.LUA_TNIL) continue;
    if (t !== lua.LUA_TSTRING) typeError(L, i, 'resourceAdd', 'string');
    sum = sum.add(parseOrPanic(L, toJsString(L, i)));
  }
  pushString(L, sum.toString());
  return 1;
}

function getResourceQuantity(L: LuaState): number {
  if (lua.lua_gettop(L) !== 1) raiseError(L, 'getResourceQuantity only accepts one argument');
  const t = lua.lua_type(L, 1);
  if (t === lua.LUA_TNIL) {
    lua.lua_pushnumber(L, 0);
    return 1;
  }
  if (t !== lua.LUA_TSTRING) typeError(L, 1, 'getResourceQuantity', 'string');
  const v = parseOrPanic(L, toJsString(L, 1)).asApproximateFloat64();
  if (v < 0) raiseError(L, `int approximation unexpectedly returned a negative value: ${goFormatG(v, -1)},`);
  if (v === Infinity) raiseError(L, `int approximation unexpectedly returned an infinite value: ${goFormatG(v, -1)},`);
  lua.lua_pushnumber(L, v);
  return 1;
}

function podTemplateArg(L: LuaState, i: number, fname: string): Record<string, unknown> {
  if (lua.lua_type(L, i) !== lua.LUA_TTABLE) typeError(L, i, fname, 'table');
  let value: unknown;
  try {
    // A script-built table can be huge: encoding it checks the call's budget as it goes.
    value = repairEmptyTables(luaToJs(L, i, { tick: () => checkBudget(L) }), [], true);
    checkPodTemplate(value);
  } catch (e) {
    if (e instanceof EncodeError || e instanceof PodSpecError || e instanceof ResultSizeError) raiseRaw(L, `fail to convert lua value to PodTemplateSpec: ${e.message}`);
    throw e;
  }
  return value as Record<string, unknown>;
}

function accuratePodRequirements(L: LuaState): number {
  if (lua.lua_gettop(L) !== 1) raiseError(L, 'getPodRequirements only accepts one argument');
  const tpl = podTemplateArg(L, 1, 'accuratePodRequirements');
  const req = replicaRequirements(tpl.spec);
  if (req === null) lua.lua_pushnil(L);
  else pushJsEager(L, req);
  return 1;
}

function getPodDependencies(L: LuaState): number {
  if (lua.lua_gettop(L) !== 2) raiseError(L, 'getPodDependencies only accepts two argument');
  const tpl = podTemplateArg(L, 1, 'getPodDependencies');
  let namespace = 'default';
  const t = lua.lua_type(L, 2);
  if (t === lua.LUA_TSTRING) namespace = toJsString(L, 2);
  else if (t === lua.LUA_TNUMBER) namespace = formatLuaNumber(lua.lua_tonumber(L, 2));
  else if (t !== lua.LUA_TNIL) argError(L, 2, 'getPodDependencies', `string expected, got ${t === lua.LUA_TTABLE ? 'table' : 'value'}`);
  const deps = podDependencies(tpl.spec, namespace);
  if (deps.length === 0) lua.lua_pushnil(L);
  else pushJsEager(L, deps);
  return 1;
}

export const KUBE_FUNCTIONS: Record<string, (L: LuaState) => number> = {
  resourceAdd,
  getResourceQuantity,
  accuratePodRequirements,
  getPodDependencies,
};
