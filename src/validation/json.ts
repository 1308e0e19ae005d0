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

/** Deep copy of JSON data; several times faster than structuredClone, which matters per admission review. */
export function clone<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(clone) as T;
  const out: Obj = {};
  for (const k of Object.keys(v)) setOwn(out, k, clone((v as Obj)[k]));
  return out as T;
}

/**
 * Sets an own property even for the key `__proto__`, which JSON.parse yields as plain data but plain
 * assignment would treat as the object's prototype.
 */
export function setOwn(o: Obj, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a as Obj);
  const bk = Object.keys(b as Obj);
  if (ak.length !== bk.length) return false;
  return ak.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as Obj)[k], (b as Obj)[k]));
}

/** Gets or creates a child object, replacing a non-object value (only used on objects being defaulted). */
export function child(parent: Obj, key: string): Obj {
  const v = parent[key];
  if (isObj(v)) return v;
  const created: Obj = {};
  parent[key] = created;
  return created;
}
