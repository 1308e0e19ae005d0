/**
 * Running one operation's Lua script: the argument shapes, result checks and error texts of Karmada's
 * declarative interpreter (spec §1, luavm/lua.go), and the conversion of results (spec §4).
 */
import { EncodeError, fillNulls, goJson, luaToJs, pushJs, type JsonValue } from '../lua/convert.js';
import { rootPos, step } from '../lua/repair.js';
import { goField, goJsonValue, goStruct } from './go-json.js';
import type { ScriptEntry, TypedOutput } from './ric.js';
import * as fengariModule from '../lua/fengari.js';
import { type LuaState } from '../lua/fengari.js';
import { boundMessage, MAX_MESSAGE_BYTES } from '../lua/message.js';
import { formatLuaNumber } from '../lua/numbers.js';
import { LuaSandbox, LuaScriptError } from '../lua/sandbox.js';
import { decodeComponents, decodeRequirements, DecodeError } from './decode.js';
import {
  InterpreterError,
  LUA_FUNCTION,
  type AggregatedStatusItem,
  type Component,
  type DependentObjectReference,
  type KubeObject,
  type Operation,
  type ReplicaResult,
} from './types.js';

// Copied once: the TS loader turns every read of an imported binding into a getter call.
const lua: typeof fengariModule.lua = fengariModule.lua;
const to_jsstring: typeof fengariModule.to_jsstring = fengariModule.to_jsstring;
const to_luastring: typeof fengariModule.to_luastring = fengariModule.to_luastring;

/** gopher-lua's LValueType numbering, which Karmada prints with %#v in `result type N is not ...`. */
function gopherTypeCode(L: LuaState, idx: number): number {
  switch (lua.lua_type(L, idx)) {
    case lua.LUA_TNIL:
    case lua.LUA_TNONE:
      return 0;
    case lua.LUA_TBOOLEAN:
      return 1;
    case lua.LUA_TNUMBER:
      return 2;
    case lua.LUA_TSTRING:
      return 3;
    case lua.LUA_TFUNCTION:
      return 4;
    case lua.LUA_TUSERDATA:
    case lua.LUA_TLIGHTUSERDATA:
      return 5;
    case lua.LUA_TTHREAD:
      return 6;
    default:
      return 7;
  }
}

function typeName(L: LuaState, idx: number): string {
  const t = lua.lua_type(L, idx);
  if (t === lua.LUA_TNONE) return 'nil';
  return to_jsstring(lua.lua_typename(L, t));
}

/** What a result reader needs besides the stack; one plain object per call instead of closures. */
interface Call {
  sb: LuaSandbox;
  entry: ScriptEntry;
  /** Reference objects of the empty-table repair. */
  refs: readonly unknown[];
}

function run<T>(sb: LuaSandbox, entry: ScriptEntry, op: Operation, args: unknown[], nresults: number, read: (L: LuaState, n: number, c: Call) => T, refs: readonly unknown[] = NO_REFS): T {
  try {
    return sb.run(entry.script, LUA_FUNCTION[op], op, args, nresults, read, { sb, entry, refs });
  } catch (e) {
    if (e instanceof LuaScriptError) throw new InterpreterError(e.message, op);
    // A result check can quote what the script returned (the object without a kind): bounded like the
    // script's own messages.
    if (e instanceof InterpreterError && e.message.length > MAX_MESSAGE_BYTES) throw new InterpreterError(boundMessage(e.message), e.operation);
    throw e;
  }
}

const NO_REFS: readonly unknown[] = [];

/** Encodes and repairs (spec §4) the result at idx against the reference objects and typed-output options. */
function encode(sb: LuaSandbox, L: LuaState, idx: number, refs: readonly unknown[], structTarget: boolean, typed: TypedOutput | undefined): JsonValue {
  try {
    let value: JsonValue;
    if (typed?.goType) {
      const raw = luaToJs(L, idx, { tick: sb.deadlineCheck, raw: true });
      value = goJsonValue(raw, goStruct(typed.goType), rootPos(refs, typed.emptyObjects), typed.unstructured === true) ?? (structTarget ? {} : []);
    } else value = luaToJs(L, idx, { tick: sb.deadlineCheck, repair: { pos: rootPos(refs, typed?.emptyObjects), structTarget } });
    return typed?.nulls ? fillNulls(value, typed.nulls) : value;
  } catch (e) {
    if (e instanceof EncodeError) throw new InterpreterError(`encode lua result to json failed: ${e.message}`);
    throw e;
  }
}

/** Decodes into an unstructured object: it must be a JSON object with a non-empty `kind`. */
function toObject(value: JsonValue): KubeObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InterpreterError(`json unmarshal obj failed: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type map[string]interface {}`);
  }
  const kind = value.kind;
  if (typeof kind !== 'string' || kind === '') throw new InterpreterError(boundMessage(`Object 'Kind' is missing in '${goJson(value)}'`));
  return value as KubeObject;
}

function objectResult(L: LuaState, _n: number, c: Call): KubeObject {
  if (lua.lua_type(L, 1) !== lua.LUA_TTABLE) throw new InterpreterError(`expect the returned requires type is table but got ${typeName(L, 1)}`);
  return toObject(encode(c.sb, L, 1, c.refs, true, c.entry.typed));
}

export function luaRetain(sb: LuaSandbox, entry: ScriptEntry, desired: KubeObject, observed: KubeObject): KubeObject {
  const args = [desired, observed];
  return run(sb, entry, 'Retain', args, 1, objectResult, args);
}

export function luaReviseReplica(sb: LuaSandbox, entry: ScriptEntry, obj: KubeObject, replicas: number): KubeObject {
  replicaCount('ReviseReplica', 'asked of the script', replicas);
  return run(sb, entry, 'ReviseReplica', [obj, replicas], 1, objectResult, [obj]);
}

/** Go's item JSON: `applied` omitted when false, `appliedMessage`/`health` omitted when empty. */
export function itemsForLua(items: AggregatedStatusItem[] | null | undefined): unknown {
  if (items === null || items === undefined) return null;
  const list: Record<string, unknown>[] = [];
  for (const it of items) {
    const out: Record<string, unknown> = { clusterName: it.clusterName ?? '' };
    if (it.status !== undefined && it.status !== null) out.status = it.status;
    if (it.applied === true) out.applied = true;
    if (typeof it.appliedMessage === 'string' && it.appliedMessage !== '') out.appliedMessage = it.appliedMessage;
    if (typeof it.health === 'string' && it.health !== '') out.health = it.health;
    list.push(out);
  }
  return list;
}

/**
 * Karmada's Lua AggregateStatus repairs its result without references; a result in the Go-JSON form
 * (a built-in: Karmada's native handler decoded the template into its struct) keeps the template's own
 * empty objects and lists where the types do not decide.
 */
function aggregateRefs(entry: ScriptEntry, obj: KubeObject): readonly unknown[] {
  return entry.typed?.goType ? [obj] : NO_REFS;
}

export function luaAggregateStatus(sb: LuaSandbox, entry: ScriptEntry, obj: KubeObject, items: AggregatedStatusItem[] | null | undefined): KubeObject {
  return run(sb, entry, 'AggregateStatus', [obj, itemsForLua(items)], 1, objectResult, aggregateRefs(entry, obj));
}

const STATUS = to_luastring('status');
const KIND = to_luastring('kind');

/**
 * The `.status` of what AggregateStatus returns, encoded alone: all a controller writes (it updates the
 * template's status subresource), without encoding the rest of the template. A result that is not an
 * object with a kind, or whose status does not encode, goes through the whole-object path for the
 * exact error.
 */
function statusOfResult(L: LuaState, n: number, c: Call): JsonValue | undefined {
  const whole = () => objectResult(L, n, c).status as JsonValue | undefined;
  if (lua.lua_type(L, 1) !== lua.LUA_TTABLE) return whole();
  lua.lua_getfield(L, 1, KIND);
  const kindOk = lua.lua_type(L, -1) === lua.LUA_TSTRING && lua.lua_rawlen(L, -1) > 0;
  lua.lua_pop(L, 1);
  if (!kindOk) return whole();
  lua.lua_getfield(L, 1, STATUS);
  const t = lua.lua_type(L, -1);
  try {
    if (t === lua.LUA_TNIL) return undefined;
    const typed = c.entry.typed;
    const pos = step(rootPos(c.refs, typed?.emptyObjects), 'status');
    const value = typed?.goType
      ? goJsonValue(luaToJs(L, -1, { tick: c.sb.deadlineCheck, raw: true }), goField(goStruct(typed.goType), 'status'), pos, typed.unstructured === true)
      : luaToJs(L, -1, { tick: c.sb.deadlineCheck, repair: { pos, structTarget: false }, member: true });
    if (value === undefined || !c.entry.typed?.nulls) return value;
    // fillNulls works on whole results: give it one holding only the status.
    return (fillNulls({ status: value }, c.entry.typed.nulls) as { status: JsonValue }).status;
  } catch (e) {
    if (!(e instanceof EncodeError)) throw e;
  } finally {
    lua.lua_settop(L, n);
  }
  return whole();
}

/** AggregateStatus for a controller: the new `.status` only (undefined when the result has none); `items` from itemsForLua. */
export function luaAggregatedStatus(sb: LuaSandbox, entry: ScriptEntry, obj: KubeObject, items: unknown): unknown {
  return run(sb, entry, 'AggregateStatus', [obj, items], 1, statusOfResult, aggregateRefs(entry, obj));
}

function reflectedStatus(L: LuaState, _n: number, c: Call): unknown {
  const t = lua.lua_type(L, 1);
  if (c.entry.typed?.nilIsNull && (t === lua.LUA_TNIL || t === lua.LUA_TNONE)) return null;
  if (t !== lua.LUA_TTABLE) throw new InterpreterError(`expect the returned replica type is table but got ${typeName(L, 1)}`);
  return encode(c.sb, L, 1, NO_REFS, true, c.entry.typed);
}

export function luaReflectStatus(sb: LuaSandbox, entry: ScriptEntry, observed: KubeObject): unknown {
  return run(sb, entry, 'InterpretStatus', [observed], 1, reflectedStatus);
}

function healthResult(L: LuaState): boolean {
  if (lua.lua_type(L, 1) !== lua.LUA_TBOOLEAN) throw new InterpreterError(`result type ${gopherTypeCode(L, 1)} is not bool`);
  return lua.lua_toboolean(L, 1) as boolean;
}

export function luaInterpretHealth(sb: LuaSandbox, entry: ScriptEntry, observed: KubeObject): boolean {
  return run(sb, entry, 'InterpretHealth', [observed], 1, healthResult);
}

const MAX_REPLICAS = 2147483647;

/**
 * The replica count a script answered, as Karmada reads it: Go's int32(float64), truncation toward zero
 * (2.7 is 2). Where Karmada's conversion goes wrong it is a script error here: NaN, the infinities and
 * numbers beyond int32 become -2147483648 in Go (amd64) and a negative count is kept, and either would
 * be written into the binding's spec.replicas and divided among clusters.
 */
export function replicaCount(op: Operation, source: string, v: number): number {
  const t = Math.trunc(v);
  if (Number.isFinite(t) && t >= 0 && t <= MAX_REPLICAS) return t === 0 ? 0 : t;
  const why = Number.isNaN(v) || !Number.isFinite(v) || t > MAX_REPLICAS ? `Karmada's int32 conversion would make it -2147483648` : 'a replica count is never negative';
  throw new InterpreterError(`${op}: replicas ${formatLuaNumber(v)} ${source} is not a whole number from 0 to ${MAX_REPLICAS} (${why}); nothing is written`, op);
}

function replicaResult(L: LuaState, _n: number, c: Call): ReplicaResult {
  if (lua.lua_type(L, 1) !== lua.LUA_TNUMBER) throw new InterpreterError(`result type ${gopherTypeCode(L, 1)} is not number`);
  const replicas = replicaCount('InterpretReplica', 'returned by the script', lua.lua_tonumber(L, 1));
  const t2 = lua.lua_type(L, 2);
  if (t2 === lua.LUA_TNIL || t2 === lua.LUA_TNONE) return { replicas, requirements: null };
  if (t2 !== lua.LUA_TTABLE) throw new InterpreterError(`expect the returned requires type is table but got ${typeName(L, 2)}`);
  const value = encode(c.sb, L, 2, NO_REFS, true, c.entry.typed);
  try {
    return { replicas, requirements: decodeRequirements(value) };
  } catch (e) {
    if (e instanceof DecodeError) throw new InterpreterError(`json unmarshal obj failed: ${e.message}`);
    throw e;
  }
}

export function luaGetReplicas(sb: LuaSandbox, entry: ScriptEntry, obj: KubeObject): ReplicaResult {
  return run(sb, entry, 'InterpretReplica', [obj], 2, replicaResult);
}

export function luaGetComponents(sb: LuaSandbox, entry: ScriptEntry, obj: KubeObject): Component[] | null {
  try {
    return run(sb, entry, 'InterpretComponent', [obj], 1, (L) => {
      const t = lua.lua_type(L, 1);
      if (t === lua.LUA_TNIL) return null;
      if (t !== lua.LUA_TTABLE) {
        throw new InterpreterError(`expected result type 'table' or 'nil' from GetComponents, but got '${typeName(L, 1)}'`, 'InterpretComponent');
      }
      let value: JsonValue;
      try {
        value = luaToJs(L, 1, { tick: sb.deadlineCheck, repair: { pos: rootPos([], entry.typed?.emptyObjects), structTarget: false } });
        if (entry.typed?.nulls) value = fillNulls(value, entry.typed.nulls);
        return decodeComponents(value);
      } catch (e) {
        if (e instanceof EncodeError || e instanceof DecodeError) {
          throw new InterpreterError(`failed to convert lua table for components: ${e instanceof EncodeError ? `encode lua result to json failed: ${e.message}` : e.message}`, 'InterpretComponent');
        }
        throw e;
      }
    });
  } catch (e) {
    // Only errors from RunScript itself are wrapped; result checks keep their own text.
    if (e instanceof InterpreterError && !/^(expected result type|failed to convert lua table)/.test(e.message)) {
      throw new InterpreterError(`failed to run 'GetComponents' script: ${e.message}`, 'InterpretComponent');
    }
    throw e;
  }
}

export function luaGetDependencies(sb: LuaSandbox, entry: ScriptEntry, obj: KubeObject): DependentObjectReference[] {
  return run(sb, entry, 'InterpretDependency', [obj], 1, (L) => {
    if (lua.lua_type(L, 1) !== lua.LUA_TTABLE) throw new InterpreterError(`expect the returned requires type is table but got ${typeName(L, 1)}`);
    const value = encode(sb, L, 1, [], false, entry.typed);
    if (!Array.isArray(value)) {
      throw new InterpreterError('json unmarshal obj failed: json: cannot unmarshal object into Go value of type []v1alpha2.DependentObjectReference');
    }
    return value.map((v, i) => {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) {
        throw new InterpreterError(`json unmarshal obj failed: json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value of type v1alpha2.DependentObjectReference (index ${i})`);
      }
      const ref: DependentObjectReference = {
        apiVersion: typeof v.apiVersion === 'string' ? v.apiVersion : '',
        kind: typeof v.kind === 'string' ? v.kind : '',
      };
      if (typeof v.namespace === 'string' && v.namespace !== '') ref.namespace = v.namespace;
      if (typeof v.name === 'string' && v.name !== '') ref.name = v.name;
      if (v.labelSelector !== undefined && v.labelSelector !== null) ref.labelSelector = v.labelSelector as DependentObjectReference['labelSelector'];
      return ref;
    });
  });
}
