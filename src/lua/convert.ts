/**
 * Moving values between JS (decoded JSON) and Lua, with Karmada's conversion rules (spec §4).
 *
 * JS -> Lua is lazy: an object becomes an empty table whose `__index` fetches a field from the JS object
 * the first time it is read and stores it in the table, so a script that reads three fields of a
 * Deployment pays for three fields. Arrays are built eagerly (their length must be right for `#`) but
 * their object elements are lazy too. Lua -> JS reads untouched fields straight from the JS object.
 *
 * JSON `null` members vanish and `null` array elements are dropped (the array compacts), exactly as
 * gopher-lua's table Append does; empty objects and arrays both become empty tables.
 */
import * as fengariModule from './fengari.js';
import { emptyAt, normalizeRepair, NOWHERE, put, rootPos, step, type Pos } from './repair.js';
import { type LuaState } from './fengari.js';

// Copied once: the TS loader turns every read of an imported binding into a getter call.
const lauxlib: typeof fengariModule.lauxlib = fengariModule.lauxlib;
const lua: typeof fengariModule.lua = fengariModule.lua;
const pushString: typeof fengariModule.pushString = fengariModule.pushString;
const to_jsstring: typeof fengariModule.to_jsstring = fengariModule.to_jsstring;
const toJsString: typeof fengariModule.toJsString = fengariModule.toJsString;
const jsStringOf: typeof fengariModule.jsStringOf = fengariModule.jsStringOf;
const luaStringObject: typeof fengariModule.luaStringObject = fengariModule.luaStringObject;
const hasOwn = Object.prototype.hasOwnProperty;
const TValue = fengariModule.fengariInternals.lobject.TValue;
const ltable: typeof fengariModule.ltableModule = fengariModule.ltableModule;

/* eslint-disable @typescript-eslint/no-explicit-any */
type Any = any;

export interface LazyInfo {
  obj: Record<string, unknown>;
  /** Keys already copied into the table; a later `__index` for one of them means the script deleted it. */
  seen: Set<string> | null;
  full: boolean;
  /** The reusable argument this table belongs to (ConvertedArgs), or null. */
  tree: Tree | null;
  /** The tables copied in so far (objects and arrays), which a reuse checks against the JS object. */
  kids: Kid[] | null;
}

/** An array converted inside a reusable argument: what it was built from, to see a later change in place. */
interface ArrayNode {
  obj: readonly unknown[];
  snap: readonly unknown[];
  kids: Kid[] | null;
}

interface Kid {
  key: string | number;
  node: LazyInfo | ArrayNode;
}

/** One converted argument kept for the next call with the same JS object. */
interface Tree {
  /** A raw write (the script's, or a materialize for pairs) touched one of its tables. */
  dirty: boolean;
  /** Pushed for the running call: the same object twice in one call gets a second, separate table. */
  inUse: boolean;
  table: object;
  root: LazyInfo;
}

/**
 * Lazy tables are marked with their source on the fengari Table object itself: a WeakMap lookup per
 * field read (and the ephemeron work it adds to every GC) costs more than the rest of the read.
 */
const LAZY = fengariModule.TABLE_SOURCE;
const TREE = fengariModule.TABLE_TREE;
const treeWrites = fengariModule.treeWrites;
/** The reusable argument whose tables pushJs is building (null: an ordinary conversion). */
let buildingTree: Tree | null = null;
export const lazyTables = {
  get(t: object): LazyInfo | undefined {
    return (t as Record<string, LazyInfo | undefined>)[LAZY];
  },
  set(t: object, info: LazyInfo): void {
    (t as Record<string, LazyInfo>)[LAZY] = info;
  },
};

export function stackValue(L: LuaState, idx: number): Any {
  if (idx > 0) {
    const o = L.ci.funcOff + idx;
    return o < L.top ? L.stack[o] : null;
  }
  return L.stack[L.top + idx];
}

/** The fengari Table object at idx, or null. */
export function tableAt(L: LuaState, idx: number): object | null {
  const v = stackValue(L, idx);
  return v && v.ttistable() ? v.value : null;
}

const perStateMeta = new WeakMap<object, number>();
/** The same metatables as fengari Table objects, for lazyFastRead. */
const perStateMetaTable = new WeakMap<object, object>();

/** Installs the metatable that lazy object tables share; called once per Lua state. */
export function installLazyMeta(L: LuaState): void {
  fengariModule.setIndexShortcut(lazyIndex, lazyFastRead);
  lua.lua_createtable(L, 0, 2);
  pushString(L, '__index');
  lua.lua_pushcfunction(L, lazyIndex);
  lua.lua_rawset(L, -3);
  pushString(L, '__newindex');
  lua.lua_pushcfunction(L, lazyNewIndex);
  lua.lua_rawset(L, -3);
  perStateMetaTable.set(L.l_G, tableAt(L, -1)!);
  perStateMeta.set(L.l_G, lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX));
}

/** An assignment to a field never read hides the JS value, including `obj.status = nil`. */
function lazyNewIndex(L: LuaState): number {
  const t = tableAt(L, 1);
  const info = t ? lazyTables.get(t) : undefined;
  if (info && !info.full && lua.lua_type(L, 2) === lua.LUA_TSTRING) {
    if (info.seen === null) info.seen = new Set();
    info.seen.add(toJsString(L, 2));
  }
  lua.lua_settop(L, 3);
  lua.lua_rawset(L, 1);
  return 0;
}

function isScalar(v: unknown): v is string | number | boolean {
  const t = typeof v;
  return t === 'string' || t === 'number' || t === 'boolean';
}

/**
 * Reads a field that is not in the table. A key the script already touched (an object field copied in,
 * or any field assigned) and now missing was deleted by the script: nil.
 */
function lazyIndex(L: LuaState): number {
  const t = tableAt(L, 1);
  const info = t ? lazyTables.get(t) : undefined;
  if (!info || info.full || lua.lua_type(L, 2) !== lua.LUA_TSTRING) return 0;
  const key = toJsString(L, 2);
  const seen = info.seen;
  if (seen !== null && seen.has(key)) return 0;
  if (!Object.prototype.hasOwnProperty.call(info.obj, key)) return 0;
  const v = info.obj[key];
  switch (typeof v) {
    // Scalars are answered without being stored: storing costs more than a second read.
    case 'string':
      pushString(L, v);
      return 1;
    case 'number':
      lua.lua_pushnumber(L, v);
      return 1;
    case 'boolean':
      lua.lua_pushboolean(L, v);
      return 1;
    case 'object':
      if (v === null) return 0;
      break;
    default:
      return 0;
  }
  if (seen === null) info.seen = new Set([key]);
  else seen.add(key);
  const tree = info.tree;
  if (tree === null) pushJs(L, v);
  else {
    const outer = buildingTree;
    buildingTree = tree;
    try {
      pushJs(L, v);
    } finally {
      buildingTree = outer;
    }
    addKid(info, key, stackValue(L, -1).value);
  }
  lua.lua_pushvalue(L, 2);
  lua.lua_pushvalue(L, -2);
  treeWrites.internal = true;
  try {
    lua.lua_rawset(L, 1);
  } finally {
    treeWrites.internal = false;
  }
  return 1;
}

/** Records a table just built for `parent` (a lazy object or an array) inside a reusable argument. */
function addKid(parent: LazyInfo | ArrayNode, key: string | number, table: Any): void {
  const node: LazyInfo | ArrayNode | undefined = lazyTables.get(table) ?? (table as Record<string, ArrayNode | undefined>)[ARRAY_NODE];
  if (node === undefined) return;
  const kid: Kid = { key, node };
  if (parent.kids === null) parent.kids = [kid];
  else parent.kids.push(kid);
}

/** Where an array table built inside a reusable argument keeps its ArrayNode. */
const ARRAY_NODE = fengariModule.TABLE_ARRAY;

/**
 * lazyIndex's answer given straight into the result slot, for scalars, deleted fields and objects: a
 * Lua call frame per read cost more than the read. Anything else (arrays, non-string keys, a table
 * whose metatable a script replaced) goes through lazyIndex itself.
 */
function lazyFastRead(L: LuaState, t: Any, key: Any, res: Any): boolean {
  if (!t.ttistable() || !key.ttisstring()) return false;
  const info = lazyTables.get(t.value);
  if (info === undefined || info.full) return false;
  const k = jsStringOf(key.value);
  if (info.seen !== null && info.seen.has(k)) {
    res.setnilvalue();
    return true;
  }
  if (!hasOwn.call(info.obj, k)) {
    res.setnilvalue();
    return true;
  }
  const v = info.obj[k];
  switch (typeof v) {
    case 'number':
      res.setfltvalue(v);
      return true;
    case 'string':
      res.setsvalue(luaStringObject(L, v));
      return true;
    case 'boolean':
      res.setbvalue(v);
      return true;
    case 'object': {
      // As lazyIndex does through pushJs and rawset: a new lazy table, stored in the parent.
      if (v === null || Array.isArray(v)) return false;
      const meta = perStateMetaTable.get(L.l_G);
      const parent = t.value;
      if (meta === undefined || parent.metatable !== meta) return false;
      const child = ltable.luaH_new(L);
      const tree = info.tree;
      const childInfo: LazyInfo = { obj: v as Record<string, unknown>, seen: null, full: false, tree, kids: null };
      lazyTables.set(child, childInfo);
      child.metatable = meta;
      const tv = new TValue(lua.LUA_TTABLE, child);
      if (tree !== null) {
        child[TREE] = tree;
        const kid: Kid = { key: k, node: childInfo };
        if (info.kids === null) info.kids = [kid];
        else info.kids.push(kid);
        treeWrites.internal = true;
        try {
          ltable.luaH_setfrom(L, parent, key, tv);
        } finally {
          treeWrites.internal = false;
        }
      } else ltable.luaH_setfrom(L, parent, key, tv);
      parent.flags = 0;
      if (info.seen === null) info.seen = new Set([k]);
      else info.seen.add(k);
      res.setfrom(tv);
      return true;
    }
    default:
      return false;
  }
}

/** Copies every not-yet-read field into the table, so raw iteration (`next`, `pairs`) sees them all. */
export function materialize(L: LuaState, idx: number): void {
  const t = tableAt(L, idx);
  if (!t) return;
  const info = lazyTables.get(t);
  if (!info || info.full) return;
  const abs = idx > 0 ? idx : lua.lua_gettop(L) + idx + 1;
  // The raw copies of scalars would go stale when the JS object changes: not reused after this call.
  if (info.tree !== null) info.tree.dirty = true;
  for (const key of Object.keys(info.obj)) {
    const v = info.obj[key];
    if (v === null || v === undefined || info.seen?.has(key)) continue;
    pushString(L, key);
    pushJs(L, v);
    lua.lua_rawset(L, abs);
  }
  info.full = true;
  info.seen = null;
}

/** Pushes a decoded-JSON value onto the Lua stack. */
export function pushJs(L: LuaState, v: unknown): void {
  switch (typeof v) {
    case 'string':
      pushString(L, v);
      return;
    case 'number':
      lua.lua_pushnumber(L, v);
      return;
    case 'boolean':
      lua.lua_pushboolean(L, v);
      return;
    case 'bigint':
      lua.lua_pushnumber(L, Number(v));
      return;
    case 'object':
      if (v === null) {
        lua.lua_pushnil(L);
        return;
      }
      if (Array.isArray(v)) {
        // Each nesting level holds a few stack slots; deep documents need room beyond LUA_MINSTACK.
        lua.lua_checkstack(L, 4);
        lua.lua_createtable(L, v.length, 0);
        const tree = buildingTree;
        if (tree !== null) {
          pushTreeArray(L, v, tree);
          return;
        }
        let n = 0;
        for (const el of v) {
          if (el === null || el === undefined) continue;
          pushJs(L, el);
          lua.lua_rawseti(L, -2, ++n);
        }
        return;
      }
      pushLazyObject(L, v as Record<string, unknown>);
      return;
    default:
      lua.lua_pushnil(L);
  }
}

/** The array table on top of the stack gets `v`'s elements, as part of a reusable argument. */
function pushTreeArray(L: LuaState, v: readonly unknown[], tree: Tree): void {
  const table = stackValue(L, -1).value;
  const node: ArrayNode = { obj: v, snap: v.slice(), kids: null };
  table[ARRAY_NODE] = node;
  table[TREE] = tree;
  let n = 0;
  for (const el of v) {
    if (el === null || el === undefined) continue;
    pushJs(L, el);
    if (typeof el === 'object') addKid(node, n, stackValue(L, -1).value);
    treeWrites.internal = true;
    try {
      lua.lua_rawseti(L, -2, ++n);
    } finally {
      treeWrites.internal = false;
    }
  }
}

function pushLazyObject(L: LuaState, obj: Record<string, unknown>): void {
  lua.lua_checkstack(L, 4);
  lua.lua_createtable(L, 0, 0);
  const table = stackValue(L, -1).value;
  const tree = buildingTree;
  lazyTables.set(table, { obj, seen: null, full: false, tree, kids: null });
  if (tree !== null) table[TREE] = tree;
  lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, perStateMeta.get(L.l_G));
  lua.lua_setmetatable(L, -2);
}

/**
 * Converted arguments kept across calls, by JS object: a script that only reads its argument leaves
 * the Lua tables as a fresh conversion would be once read, so the next call with the same object reuses
 * them instead of building the tables again. Reused only while (1) no raw write touched any of its
 * tables (the script's assignments, table.insert, a materialize for pairs/next: see TABLE_TREE), and
 * (2) every table copied in still matches the JS object: the same child objects under the same keys,
 * arrays with the same elements. Scalars are never stored in lazy tables, so they are read fresh.
 * Only the last `max` objects are kept (a controller's thousands of cached objects would otherwise each
 * hold their tables): the calls of one reconcile, or a loop over one object, find theirs.
 */
export class ConvertedArgs {
  private readonly trees = new Map<object, Tree>();
  private readonly used: Tree[] = [];
  constructor(private readonly max = 64) {}

  /** Pushes `v` as pushJs does, reusing a clean earlier conversion of the same object. */
  push(L: LuaState, v: unknown): void {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      pushJs(L, v);
      return;
    }
    const obj = v as Record<string, unknown>;
    const old = this.trees.get(obj);
    if (old !== undefined && !old.dirty && !old.inUse && nodeMatches(old.root)) {
      lua.lua_checkstack(L, 4);
      L.stack[L.top++] = new TValue(lua.LUA_TTABLE, old.table);
      old.inUse = true;
      this.used.push(old);
      return;
    }
    const tree: Tree = { dirty: false, inUse: true, table: null as unknown as object, root: null as unknown as LazyInfo };
    buildingTree = tree;
    try {
      pushLazyObject(L, obj);
    } finally {
      buildingTree = null;
    }
    tree.table = stackValue(L, -1).value;
    tree.root = lazyTables.get(tree.table)!;
    // An object already pushed in this call keeps its first tree; the second stays this call's own.
    if (old === undefined || !old.inUse) {
      if (old !== undefined) this.trees.delete(obj);
      this.trees.set(obj, tree);
      if (this.trees.size > this.max) this.trees.delete(this.trees.keys().next().value as object);
    }
    this.used.push(tree);
  }

  /** Ends a call: what it used is free again; a tree it wrote to is forgotten. */
  release(): void {
    // Only the converter's own stores set this, each undoing it; a call ends with it off whatever threw.
    treeWrites.internal = false;
    for (const t of this.used) {
      t.inUse = false;
      if (t.dirty && this.trees.get(t.root.obj) === t) this.trees.delete(t.root.obj);
    }
    this.used.length = 0;
  }
}

function nodeMatches(node: LazyInfo | ArrayNode): boolean {
  const src = node.obj as Record<string | number, unknown>;
  if ('snap' in node) {
    const snap = node.snap;
    if (node.obj.length !== snap.length) return false;
    for (let i = 0; i < snap.length; i++) if (node.obj[i] !== snap[i]) return false;
  } else if (node.full) return false;
  const kids = node.kids;
  if (kids === null) return true;
  for (let i = 0; i < kids.length; i++) {
    const kid = kids[i]!;
    if ('snap' in node) {
      if (!nodeMatches(kid.node)) return false;
    } else if (src[kid.key] !== kid.node.obj || !nodeMatches(kid.node)) return false;
  }
  return true;
}

/** Pushes a value eagerly (no lazy tables): for library results the script may iterate freely. */
export function pushJsEager(L: LuaState, v: unknown): void {
  if (v !== null && typeof v === 'object') lua.lua_checkstack(L, 4);
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const obj = v as Record<string, unknown>;
    lua.lua_createtable(L, 0, 0);
    for (const [k, val] of Object.entries(obj)) {
      if (val === null || val === undefined) continue;
      pushString(L, k);
      pushJsEager(L, val);
      lua.lua_rawset(L, -3);
    }
    return;
  }
  if (Array.isArray(v)) {
    lua.lua_createtable(L, v.length, 0);
    let n = 0;
    for (const el of v) {
      if (el === null || el === undefined) continue;
      pushJsEager(L, el);
      lua.lua_rawseti(L, -2, ++n);
    }
    return;
  }
  pushJs(L, v);
}

// ---------------------------------------------------------------------------------------------------
// Lua -> JSON-like JS, with gopher-json's rules and error texts.

const MARSHAL_PREFIX = 'json: error calling MarshalJSON for type json.jsonValue: ';

/** A conversion failure; `message` is the full gopher-json/encoding-json text. */
export class EncodeError extends Error {}

/**
 * The most a result may hold as JSON: 1.5 MiB, etcd's default `--max-request-bytes`, the largest object
 * the host's etcd stores. Every result ends up inside a stored object (a Work's manifest or status, a
 * binding, a template's status), so a larger one could never be written (kube-apiserver's own limit, 3 MiB
 * of request body, is larger and answers 413). Lua strings are values: one 1 MB string referenced 3,000
 * times is one string to the script's budget but 3 GB as JSON; the count stops the conversion there.
 */
export const MAX_RESULT_BYTES = 1536 * 1024;

/** A result past its size bound; the sandbox reports it as the operation's error. */
export class ResultSizeError extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(
      `result is larger than ${limit} bytes as JSON (conversion stopped at ${bytes} bytes): etcd stores no object past ${limit} bytes by default, so it is never written; return less (a string referenced many times counts each time)`,
    );
    this.name = 'ResultSizeError';
  }
}

class RawEncodeError {
  constructor(
    readonly base: string,
    readonly depth: number,
  ) {}
}

/** JSON-like value; an empty Lua table is always `[]` before the empty-table repair. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

/**
 * Deep copy of a JS value as a Lua round trip would give it: null members and elements gone, every
 * empty object or array an empty array.
 */
export function normalizeJs(v: unknown): JsonValue {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) {
    const out: JsonValue[] = [];
    for (const el of v) if (el !== null && el !== undefined) out.push(normalizeJs(el));
    return out;
  }
  if (typeof v === 'object') {
    const out: { [k: string]: JsonValue } = {};
    let any = false;
    for (const k in v as Record<string, unknown>) {
      const val = (v as Record<string, unknown>)[k];
      if (val === null || val === undefined) continue;
      put(out, k, normalizeJs(val));
      any = true;
    }
    return any ? out : [];
  }
  if (typeof v === 'bigint') return Number(v);
  return v as JsonValue;
}

export interface EncodeOptions {
  /** Called every few thousand table entries so a huge result cannot outlive the call's budget. */
  tick?: () => void;
  /**
   * Apply Karmada's empty-table repair while encoding: `pos` from rootPos(references, extra paths);
   * `structTarget` makes a wholly empty result `{}` (else `[]`).
   */
  repair?: { pos: Pos; structTarget: boolean };
  /**
   * Encode the value as a member of an object at `repair.pos` (not as a whole result): an empty table
   * is repaired by its position alone, and undefined means the repair deletes it.
   */
  member?: boolean;
  /**
   * Without `repair`: the parts of input objects the script did not touch are returned as they are
   * (shared, with their nulls and empty objects), for a caller that copies the result itself
   * (go-json.ts); saves a copy of every untouched subtree.
   */
  raw?: boolean;
  /**
   * Stop with ResultSizeError once the JSON built so far passes this many bytes (default
   * MAX_RESULT_BYTES). Counted: every string, key, number and table the script's tables hold; the parts of
   * input objects the script did not touch are not, being bounded by the inputs themselves (a table can
   * appear once in a result, so they cannot be multiplied).
   */
  maxBytes?: number;
}

/**
 * Encodes the Lua value at `idx`; throws EncodeError with gopher-json's message on failure. Without
 * `repair`, every empty table is `[]`; with it, the result is already repaired.
 */
export function luaToJs(L: LuaState, idx: number, opts: EncodeOptions & { member: true }): JsonValue | undefined;
export function luaToJs(L: LuaState, idx: number, opts?: EncodeOptions): JsonValue;
export function luaToJs(L: LuaState, idx: number, opts: EncodeOptions = {}): JsonValue | undefined {
  const abs = idx > 0 ? idx : lua.lua_gettop(L) + idx + 1;
  const visited = new Set<object>();
  let count = 0;
  const tick = opts.tick;
  const repair = opts.repair;
  const raw = opts.raw === true;
  const maxBytes = opts.maxBytes ?? MAX_RESULT_BYTES;
  let size = 0;
  try {
    if (lua.lua_type(L, abs) === lua.LUA_TTABLE) {
      if (opts.member) return encodeTable(L, abs, 0, repair ? repair.pos : NOWHERE, false);
      const r = encodeTable(L, abs, 0, repair ? repair.pos : NOWHERE, true);
      if (r === undefined || (Array.isArray(r) && r.length === 0 && repair)) return repair?.structTarget ? {} : [];
      return r;
    }
    return encode(L, abs, 0, NOWHERE) ?? null;
  } catch (e) {
    if (e instanceof RawEncodeError) throw new EncodeError(MARSHAL_PREFIX.repeat(e.depth + 1) + e.base);
    throw e;
  }

  function encode(L: LuaState, i: number, depth: number, pos: Pos): JsonValue | undefined {
    switch (lua.lua_type(L, i)) {
      case lua.LUA_TNIL:
      case lua.LUA_TNONE:
        return null;
      case lua.LUA_TBOOLEAN:
        grow(5);
        return lua.lua_toboolean(L, i);
      case lua.LUA_TNUMBER:
        grow(numberBytes(lua.lua_tonumber(L, i)));
        return finite(lua.lua_tonumber(L, i), depth);
      case lua.LUA_TSTRING:
        // Counted before it is decoded: a string past the bound is never turned into a JS string.
        grow(lua.lua_rawlen(L, i) + 2);
        return toJsString(L, i);
      case lua.LUA_TTABLE:
        return encodeTable(L, i, depth, pos, false);
      default:
        throw new RawEncodeError(`cannot encode ${luaTypeName(L, i)} to JSON`, depth);
    }
  }

  /**
   * The value lua_next just pushed (at the top, index `i`), read from its slot: tables and the rare
   * types go through encode().
   */
  function encodeTop(L: LuaState, i: number, depth: number, pos: Pos): JsonValue | undefined {
    const tv = L.stack[L.top - 1];
    if (tv.ttisstring()) {
      grow(tv.value.realstring.length + 2);
      return jsStringOf(tv.value);
    }
    if (tv.ttisnumber()) {
      grow(numberBytes(tv.value));
      return finite(tv.value, depth);
    }
    if (tv.ttisboolean()) {
      grow(5);
      return tv.value;
    }
    return encode(L, i, depth, pos);
  }

  /** Adds `n` bytes to the JSON counted so far; past the bound the conversion stops. */
  function grow(n: number): void {
    size += n;
    if (size > maxBytes) throw new ResultSizeError(size, maxBytes);
  }

  /** undefined: an empty table the repair deletes. */
  function encodeTable(L: LuaState, i: number, depth: number, pos: Pos, top: boolean): JsonValue | undefined {
    const t = tableAt(L, i)!;
    if (visited.has(t)) throw new RawEncodeError('cannot encode recursively nested tables to JSON', depth);
    // Each level holds a key and a value on the Lua stack (a table nested 100,000 deep fills it).
    if (!lua.lua_checkstack(L, 4)) throw new RangeError('stack overflow: result nested too deeply');
    visited.add(t);
    grow(2);
    const info = lazyTables.get(t);
    // String keys go straight into the object (a key both lazy and raw, after rawset, takes the raw
    // value unless that one is deleted); number keys are kept apart until the shape is known.
    const obj: { [k: string]: JsonValue } = {};
    let strCount = 0;
    let numKeys: number[] | null = null;
    let numVals: Map<number, JsonValue | undefined> | null = null;
    let invalid = false;
    let firstIsNumber: boolean | null = null;
    if (info && !info.full) {
      const seen = info.seen;
      for (const k in info.obj) {
        const v = info.obj[k];
        if (v === null || v === undefined || (seen !== null && seen.has(k))) continue;
        if (firstIsNumber === null) firstIsNumber = false;
        strCount++;
        const r = repair ? normalizeRepair(v, step(pos, k)) : raw ? (v as JsonValue) : normalizeJs(v);
        if (r !== undefined) put(obj, k, r);
      }
    }
    lua.lua_pushnil(L);
    while (lua.lua_next(L, i) !== 0) {
      if (tick && (++count & 0x3ff) === 0) tick();
      const kv = L.stack[L.top - 2];
      if (kv.ttisstring()) {
        if (firstIsNumber === null) firstIsNumber = false;
        strCount++;
        // Quotes, colon and comma beside the key's own bytes.
        grow(kv.value.realstring.length + 4);
        const key = jsStringOf(kv.value);
        const r = encodeTop(L, L.top - L.ci.funcOff - 1, depth + 1, repair ? step(pos, key) : NOWHERE);
        // A key the script chose is only ever an own member (`__proto__` would replace the prototype).
        if (r !== undefined) {
          if (key === '__proto__') put(obj, key, r);
          else obj[key] = r;
        }
      } else if (kv.ttisnumber()) {
        if (firstIsNumber === null) firstIsNumber = true;
        grow(1);
        const k: number = kv.value;
        (numKeys ??= []).push(k);
        (numVals ??= new Map()).set(k, encodeTop(L, L.top - L.ci.funcOff - 1, depth + 1, pos));
      } else invalid = true;
      lua.lua_settop(L, -2);
    }
    if (firstIsNumber === null && !invalid) {
      if (!repair || top) return [];
      return emptyAt(pos);
    }
    if (invalid) throw new RawEncodeError('cannot encode mixed or invalid key types', depth);
    if (firstIsNumber) {
      if (strCount > 0) throw new RawEncodeError('cannot encode mixed or invalid key types', depth);
      numKeys!.sort((a, b) => a - b);
      const out: JsonValue[] = [];
      for (let j = 0; j < numKeys!.length; j++) {
        if (numKeys![j] !== j + 1) throw new RawEncodeError('cannot encode sparse array', depth);
        const v = numVals!.get(j + 1);
        if (v !== undefined) out.push(v);
      }
      return out;
    }
    if (numKeys !== null) throw new RawEncodeError('cannot encode mixed or invalid key types', depth);
    return obj;
  }
}

/**
 * A number's share of the count: an integer's digits (most numbers in Kubernetes objects are small
 * integers, and an object near the bound must not be refused for them), else the longest float text.
 */
function numberBytes(n: number): number {
  let a = n < 0 ? -n : n;
  if (!(a < 1e15) || a !== Math.floor(a)) return 24;
  let digits = n < 0 ? 2 : 1;
  while (a >= 10) {
    a /= 10;
    digits++;
  }
  return digits;
}

function finite(n: number, depth: number): number {
  if (!Number.isFinite(n)) throw new RawEncodeError(`json: unsupported value: ${Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf'}`, depth);
  return n;
}

export function luaTypeName(L: LuaState, idx: number): string {
  return to_jsstring(lua.lua_typename(L, lua.lua_type(L, idx)));
}

// ---------------------------------------------------------------------------------------------------
// Empty-table repair (convertEmptySliceToEmptyStructPartly).

function escapeKey(k: string): string {
  if (k.indexOf('.') < 0 && k.indexOf(':') < 0) return k;
  return k.replace(/[.:]/g, (c) => '\\' + c);
}

interface PathSets {
  emptyObject: Set<string>;
  emptyArray: Set<string>;
}

/** Dotted paths (object keys only, indices skipped) of the empty objects and arrays in a reference. */
export function emptyPaths(ref: unknown): PathSets {
  const sets: PathSets = { emptyObject: new Set(), emptyArray: new Set() };
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) {
      if (v.length === 0) {
        if (path !== '') sets.emptyArray.add(path);
        return;
      }
      for (const el of v) walk(el, path);
      return;
    }
    if (v !== null && typeof v === 'object') {
      let any = false;
      for (const k in v as Record<string, unknown>) {
        any = true;
        walk((v as Record<string, unknown>)[k], path === '' ? escapeKey(k) : `${path}.${escapeKey(k)}`);
      }
      if (!any && path !== '') sets.emptyObject.add(path);
    }
  };
  walk(ref, '');
  return sets;
}

/**
 * Repairs empty tables in a converted result: `[]` becomes `{}` where a reference object has an empty
 * object at that path, stays `[]` where a reference has an empty array, and is deleted otherwise.
 * `structTarget` turns a wholly empty result into `{}`. Returns a repaired copy.
 */
export function repairEmptyTables(result: JsonValue, refs: unknown[], structTarget: boolean, extraEmptyObjects: string[] = []): JsonValue {
  if (Array.isArray(result) && result.length === 0) return structTarget ? {} : [];
  if (result !== null && typeof result === 'object' && !Array.isArray(result) && Object.keys(result).length === 0) return structTarget ? {} : [];
  return normalizeRepair(result, rootPos(refs, extraEmptyObjects)) ?? (structTarget ? {} : []);
}

/** Sets each dotted path (indices implied) to null where it is absent and its parent object exists. */
export function fillNulls(result: JsonValue, paths: readonly string[]): JsonValue {
  for (const p of paths) {
    const keys = p.split('.');
    const visit = (v: JsonValue, i: number) => {
      if (Array.isArray(v)) {
        for (const el of v) visit(el, i);
        return;
      }
      if (v === null || typeof v !== 'object') return;
      const k = keys[i]!;
      if (i === keys.length - 1) {
        if (!(k in v)) v[k] = null;
        return;
      }
      if (k in v) visit(v[k]!, i + 1);
    };
    visit(result, 0);
  }
  return result;
}

/** Go's compact JSON (sorted keys, `<>&` escaped) for error messages that quote a value. */
export function goJson(v: unknown): string {
  const sortKeys = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sortKeys);
    if (x !== null && typeof x === 'object') {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(x).sort()) put(out, k, sortKeys((x as Record<string, unknown>)[k]));
      return out;
    }
    return x;
  };
  return JSON.stringify(sortKeys(v))
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026');
}
