/**
 * Safe readers for objects that came straight off the wire or out of a YAML file. The rules must not throw
 * on a value of the wrong type (a decode check runs first in the webhook, but the linter reports schema
 * errors and semantic errors side by side), so every access goes through these.
 */
export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function obj(v: unknown): Obj | undefined {
  return isObj(v) ? v : undefined;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function objs(v: unknown): Obj[] {
  return arr(v).map((x) => (isObj(x) ? x : {}));
}

export function strOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function numOf(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

/** Go's "non-nil": present and not JSON null. */
export function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

export function strMap(v: unknown): Array<[string, string]> {
  if (!isObj(v)) return [];
  return Object.keys(v)
    .sort()
    .map((k) => [k, typeof v[k] === 'string' ? (v[k] as string) : String(v[k] ?? '')]);
}

// Deep copy (several times faster than structuredClone, which matters per admission review), equality and
// the `__proto__`-safe setter are src/json's: one implementation for JSON data everywhere.
export { deepClone as clone, deepEqual, setOwn } from '../json/value.js';

/** Gets or creates a child object, replacing a non-object value (only used on objects being defaulted). */
export function child(parent: Obj, key: string): Obj {
  const v = parent[key];
  if (isObj(v)) return v;
  const created: Obj = {};
  parent[key] = created;
  return created;
}
