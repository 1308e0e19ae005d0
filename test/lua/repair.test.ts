import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyPaths } from '../../src/lua/convert.js';
import { normalizeRepair, rootPos, type Json } from '../../src/lua/repair.js';

/** Karmada's algorithm as written: escaped dotted paths of every reference, collected up front. */
function karmadaRepair(v: unknown, refs: unknown[], extraEmptyObjects: string[]): Json | undefined {
  const obj = new Set<string>(extraEmptyObjects);
  const arr = new Set<string>();
  for (const r of refs) {
    const s = emptyPaths(r);
    for (const p of s.emptyObject) obj.add(p);
    for (const p of s.emptyArray) arr.add(p);
  }
  const esc = (k: string) => k.replace(/[.:]/g, (c) => '\\' + c);
  const decide = (path: string) => (obj.has(path) ? {} : arr.has(path) ? [] : undefined);
  const walk = (x: unknown, path: string): Json | undefined => {
    if (x === null || x === undefined) return undefined;
    if (typeof x !== 'object') return x as Json;
    if (Array.isArray(x)) {
      const kept = x.filter((e) => e !== null && e !== undefined);
      if (kept.length === 0) return decide(path);
      return kept.map((e) => walk(e, path)).filter((e): e is Json => e !== undefined);
    }
    const entries = Object.entries(x).filter(([, e]) => e !== null && e !== undefined);
    if (entries.length === 0) return decide(path);
    const out: { [k: string]: Json } = {};
    for (const [k, e] of entries) {
      const r = walk(e, path === '' ? esc(k) : `${path}.${esc(k)}`);
      if (r !== undefined) out[k] = r;
    }
    return out;
  };
  return walk(v, '');
}

const key = fc.constantFrom('a', 'b', 'spec', 'x.y', 'p:q', 'k');
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, 1, 'v', true),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const object = fc.dictionary(key, json, { maxKeys: 4 });

describe('empty-table repair against references (spec §4)', () => {
  it('gives what Karmada computes from the references\' path sets', () => {
    fc.assert(
      fc.property(object, fc.array(object, { maxLength: 3 }), fc.array(fc.constantFrom('a', 'spec.a', 'x\\.y.b', 'p\\:q'), { maxLength: 2 }), (v, refs, extra) => {
        expect(normalizeRepair(v, rootPos(refs, extra)) ?? null).toEqual(karmadaRepair(v, refs, extra) ?? null);
      }),
      { numRuns: 3000 },
    );
  });

  it('uses the result itself as a reference: every empty object and array it has stays', () => {
    fc.assert(
      fc.property(object, (v) => {
        expect(normalizeRepair(v, rootPos([v])) ?? null).toEqual(karmadaRepair(v, [v], []) ?? null);
      }),
      { numRuns: 2000 },
    );
  });

  it('uses the result and other objects as references (subtrees shared by identity)', () => {
    fc.assert(
      fc.property(object, fc.array(object, { maxLength: 2 }), (v, others) => {
        expect(normalizeRepair(v, rootPos([...others, v])) ?? null).toEqual(karmadaRepair(v, [...others, v], []) ?? null);
        expect(normalizeRepair(v, rootPos([v, ...others], ['spec.a'])) ?? null).toEqual(karmadaRepair(v, [v, ...others], ['spec.a']) ?? null);
      }),
      { numRuns: 3000 },
    );
  });

  it('uses the result and a look-alike object as references (Retain: template and member object)', () => {
    fc.assert(
      fc.property(object, object, (v, w) => {
        const o = { ...structuredClone(v), ...w };
        expect(normalizeRepair(v, rootPos([v, o])) ?? null).toEqual(karmadaRepair(v, [v, o], []) ?? null);
        expect(normalizeRepair(v, rootPos([o, v])) ?? null).toEqual(karmadaRepair(v, [o, v], []) ?? null);
      }),
      { numRuns: 3000 },
    );
  });

  it('reads array elements of a reference as one path, for many elements', () => {
    const ref = { items: Array.from({ length: 50 }, (_, i) => (i === 37 ? { m: {} } : { m: { k: i }, s: [] })) };
    const v = { items: Array.from({ length: 50 }, () => ({ m: [], s: [], t: [] })) };
    const out = normalizeRepair(v, rootPos([ref])) as { items: unknown[] };
    expect(out.items[0]).toEqual({ m: {}, s: [] });
    expect(out).toEqual(karmadaRepair(v, [ref], []));
  });
});
