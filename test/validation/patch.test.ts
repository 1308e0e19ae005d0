import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyPatch, escapePointerToken as escapePointer } from '../../src/json/jsonpatch.js';
import { createPatch } from '../../src/webhook/patch.js';

const sortKeys = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(sortKeys) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])])) : v;
const canonical = (v: unknown) => JSON.stringify(sortKeys(v));

const jsonObject = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });

describe('JSON patch', () => {
  it('escapes ~ and / in keys (RFC 6901)', () => {
    expect(escapePointer('propagationpolicy.karmada.io/permanent-id')).toBe('propagationpolicy.karmada.io~1permanent-id');
    expect(escapePointer('a~b')).toBe('a~0b');
  });

  it('turns any object into any other object', () => {
    fc.assert(
      fc.property(jsonObject, jsonObject, (a, b) => {
        // compared as canonical JSON text: key order is not meaningful, and -0 is 0 on the wire
        expect(canonical(applyPatch(a, createPatch(a, b)))).toBe(canonical(b));
      }),
      { numRuns: 500 },
    );
  });

  it('appends to lists instead of replacing them, and is empty for equal objects', () => {
    expect(createPatch({ f: ['a'] }, { f: ['a', 'b'] })).toEqual([{ op: 'add', path: '/f/1', value: 'b' }]);
    expect(createPatch({ a: { b: 1 } }, { a: { b: 1 } })).toEqual([]);
  });

  it('treats a "__proto__" key as data, never as a prototype', () => {
    const a = JSON.parse('{"x":1}');
    const b = JSON.parse('{"__proto__":{"polluted":true},"x":1}');
    const out = applyPatch(a, createPatch(a, b)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out).sort()).toEqual(['__proto__', 'x']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('does not modify the document it applies to', () => {
    const doc = { a: { b: [1] } };
    applyPatch(doc, [{ op: 'add', path: '/a/b/1', value: 2 }]);
    expect(doc).toEqual({ a: { b: [1] } });
  });

  it('refuses paths that do not exist', () => {
    expect(() => applyPatch({}, [{ op: 'replace', path: '/x', value: 1 }])).toThrow('replace operation does not apply: doc is missing path: "/x"');
    expect(() => applyPatch({}, [{ op: 'add', path: '/x/y', value: 1 }])).toThrow('add operation does not apply: doc is missing path: "/x/y"');
  });
});
