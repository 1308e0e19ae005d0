import { describe, expect, it } from 'vitest';
import { emptyPaths, fillNulls, normalizeJs, repairEmptyTables, type JsonValue } from '../../src/lua/convert.js';
import { LuaSandbox } from '../../src/lua/sandbox.js';
import { luaError, runLua } from './helpers.js';

const sb = new LuaSandbox();

describe('empty-table repair (spec §4 vectors)', () => {
  it('turns a wholly empty result into {} for structs and [] for slices', () => {
    expect(repairEmptyTables([], [], true)).toEqual({});
    expect(repairEmptyTables([], [], false)).toEqual([]);
  });

  it('deletes nested empty tables without references', () => {
    const result = { Spec: { EmptyMap: [], NonEmptyMap: { 'test-key': 's' }, EmptySlice: [], NonEmptySlice: ['s'], OtherField: 's' } };
    expect(repairEmptyTables(structuredClone(result) as JsonValue, [], true)).toEqual({ Spec: { NonEmptyMap: { 'test-key': 's' }, NonEmptySlice: ['s'], OtherField: 's' } });
  });

  it('keeps {} and [] that a reference has at the same path', () => {
    const result = { spec: { EmptyMap: [], EmptySlice: [], other: 1 } };
    const ref = { kind: 'demo', spec: { EmptySlice: [], EmptyMap: {} } };
    expect(repairEmptyTables(result as JsonValue, [ref], true)).toEqual({ spec: { EmptyMap: {}, EmptySlice: [], other: 1 } });
  });

  it('ignores array indices in paths and prefers {} when both references disagree', () => {
    const result = { spec: [{ aa: [], bb: [], cc: ['x'], dd: { ee: [], ff: [] } }] };
    const refs = [{ spec: [{ aa: {}, bb: [] }] }, { spec: [{ dd: { ee: {} } }] }];
    expect(repairEmptyTables(result as JsonValue, refs, true)).toEqual({ spec: [{ aa: {}, bb: [], cc: ['x'], dd: { ee: {} } }] });
  });

  it('escapes dots and colons in keys', () => {
    const result = { spec: { replicas: 3, ':colons': [], '.dots': [], ':.colonAndDot': [], '.:dotAndColon': [] } };
    const ref = { spec: { ':colons': {}, '.dots': [], ':.colonAndDot': {}, '.:dotAndColon': {} } };
    expect(emptyPaths(ref).emptyObject.has('spec.\\:colons')).toBe(true);
    expect(repairEmptyTables(result as JsonValue, [ref], true)).toEqual({ spec: { replicas: 3, ':colons': {}, '.dots': [], ':.colonAndDot': {}, '.:dotAndColon': {} } });
  });

  it('fills nulls where the parent exists (typed-output annotation)', () => {
    expect(fillNulls({ status: { a: 1 }, items: [{}, { t: 1 }] } as JsonValue, ['status.currentMetrics', 'items.t', 'missing.x'])).toEqual({
      status: { a: 1, currentMetrics: null },
      items: [{ t: null }, { t: 1 }],
    });
  });

  it('normalises JS input the way a Lua round trip would', () => {
    expect(normalizeJs({ a: null, b: [1, null, {}], c: {} })).toEqual({ b: [1, []], c: [] });
  });
});

describe('Lua -> JSON encoding', () => {
  it('encodes integral numbers as integers and keeps floats', () => {
    expect(runLua(sb, 'function f() return { a = 6 / 2, b = 2.5, c = 2 ^ 53 } end')).toEqual({ a: 3, b: 2.5, c: 9007199254740992 });
  });

  it('encodes arrays only when keys are exactly 1..n', () => {
    expect(runLua(sb, 'function f() local t = {} t[2] = "b" t[1] = "a" return t end')).toEqual(['a', 'b']);
    expect(luaError(sb, 'function f() return { [1] = 1, [3] = 3 } end')).toBe('json: error calling MarshalJSON for type json.jsonValue: cannot encode sparse array');
    expect(luaError(sb, 'function f() return { 1, x = 2 } end')).toBe('json: error calling MarshalJSON for type json.jsonValue: cannot encode mixed or invalid key types');
    expect(luaError(sb, 'function f() return { [true] = 1 } end')).toBe('json: error calling MarshalJSON for type json.jsonValue: cannot encode mixed or invalid key types');
  });

  it('refuses shared and cyclic tables like gopher-json', () => {
    expect(luaError(sb, 'function f() local t = {} t.t = t return t end')).toMatch(/cannot encode recursively nested tables to JSON$/);
    expect(luaError(sb, 'function f() local e = { 1 } return { a = e, b = e } end')).toMatch(/cannot encode recursively nested tables to JSON$/);
  });

  it('reads untouched fields straight from the input and honours deletions', () => {
    const obj = { kind: 'K', spec: { a: 1, b: { c: [1, 2] } }, status: { x: 1 } };
    expect(runLua(sb, 'function f(o) o.status = nil return o end', 'f', [obj])).toEqual({ kind: 'K', spec: { a: 1, b: { c: [1, 2] } } });
    expect(runLua(sb, 'function f(o) local s = o.status o.status = nil return o end', 'f', [obj])).toEqual({ kind: 'K', spec: { a: 1, b: { c: [1, 2] } } });
    expect(runLua(sb, 'function f(o) o.spec.b.c[3] = 3 o.spec.a = nil return o end', 'f', [obj])).toEqual({ kind: 'K', spec: { b: { c: [1, 2, 3] } }, status: { x: 1 } });
    // The input object itself is never modified.
    expect(obj).toEqual({ kind: 'K', spec: { a: 1, b: { c: [1, 2] } }, status: { x: 1 } });
  });

  it('gives one table per object field, every scalar type, and nil after a deletion', () => {
    const obj = { kind: 'K', n: 2.5, ok: false, spec: { a: 1, b: { c: 'x' } }, long: 'y'.repeat(100) };
    expect(runLua(sb, 'function f(o) return o.spec == o.spec and o.spec.b == o.spec.b end', 'f', [obj])).toBe(true);
    expect(runLua(sb, 'function f(o) return type(o.kind) .. type(o.n) .. type(o.ok) .. type(o.spec) .. type(o.missing) end', 'f', [obj])).toBe('stringnumberbooleantablenil');
    expect(runLua(sb, 'function f(o) return o.n * 2 == 5 and o.ok == false and #o.long == 100 end', 'f', [obj])).toBe(true);
    expect(runLua(sb, 'function f(o) o.kind = nil o.spec = nil return o.kind == nil and o.spec == nil end', 'f', [obj])).toBe(true);
    expect(runLua(sb, 'function f(o) local s = o.spec s.a = 7 return o end', 'f', [obj])).toEqual({ ...obj, spec: { a: 7, b: { c: 'x' } } });
    expect(runLua(sb, 'function f(o) local s = o.spec o.spec = nil return s.b.c end', 'f', [obj])).toBe('x');
  });

  it('iterates lazily converted objects completely', () => {
    const obj = { a: 1, b: 2, c: { d: 3 } };
    expect(runLua(sb, 'function f(o) local n = 0 for k, v in pairs(o) do n = n + 1 end return n end', 'f', [obj])).toBe(3);
    expect(runLua(sb, 'function f(o) return next(o.c) end', 'f', [obj])).toBe('d');
    expect(runLua(sb, 'function f(o) return next(o.e or {}) == nil end', 'f', [{ e: {} }])).toBe(true);
    expect(runLua(sb, 'function f(o) return #o.l end', 'f', [{ l: [1, null, 3] }])).toBe(2);
  });
});
