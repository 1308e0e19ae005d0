import { describe, expect, it } from 'vitest';
import { parseRefKey, refKey } from '../../src/core/object.js';
import { uuidShaped } from '../../src/json/strings.js';

/** The id layout written the obvious way, to check the one-string builder against. */
function byConcatenation(a: number, b: number, c: number, d: number, variant: string): string {
  const h = (x: number) => x.toString(16).padStart(8, '0');
  const [A, B, C, D] = [h(a), h(b), h(c), h(d)];
  return `${A}-${B.slice(0, 4)}-4${B.slice(5, 8)}-${variant}${C.slice(1, 4)}-${C.slice(4)}${D}`;
}

describe('uuidShaped', () => {
  it('lays out four 32-bit numbers as the uuid-shaped ids the store and the binding controller hand out', () => {
    let x = 0x12345678;
    const next = () => (x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0);
    const samples = [
      [0, 0, 0, 0],
      [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff],
      [0x0000000f, 0xf0000000, 0x00ff00ff, 0x10000001],
      ...Array.from({ length: 200 }, () => [next(), next(), next(), next()]),
    ];
    for (const [a, b, c, d] of samples) {
      for (const v of ['a', '8']) expect(uuidShaped(a!, b!, c!, d!, v)).toBe(byConcatenation(a!, b!, c!, d!, v));
    }
    expect(uuidShaped(0xdeadbeef, 0x01234567, 0x89abcdef, 0x00000001, 'a')).toBe('deadbeef-0123-4567-a9ab-cdef00000001');
  });
});

describe('parseRefKey', () => {
  it('parses a queue key back into the ref it was made from, with and without a namespace', () => {
    const namespaced = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' };
    const cluster = { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', name: 'member1' };
    expect(parseRefKey(refKey(namespaced))).toEqual(namespaced);
    expect(parseRefKey(refKey(cluster))).toEqual(cluster);
    expect('namespace' in parseRefKey(refKey(cluster))).toBe(false);
  });
  it('hands out a ref of its own per call, so that no reconciler can change what the next one reads', () => {
    const key = refKey({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'cm' });
    const a = parseRefKey(key);
    (a as { name: string }).name = 'other';
    expect(parseRefKey(key)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'cm' });
    expect(parseRefKey(key)).not.toBe(parseRefKey(key));
  });
});
