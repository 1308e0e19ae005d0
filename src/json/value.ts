/**
 * JSON values as plain objects: deep copy, comparison and freezing, own-property writes that survive a
 * `__proto__` key, and dotted-path reads. The bottom layer: nothing here knows about Kubernetes.
 */

/**
 * Sets an own property, also for the key `__proto__`: user YAML may carry it as data, and a plain
 * assignment would replace the object's prototype instead.
 */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

export function deepClone<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = deepClone(v[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const k in v as Record<string, unknown>) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined) continue;
    if (k === '__proto__') setOwn(out, k, deepClone(x));
    else out[k] = deepClone(x);
  }
  return out as T;
}

/** Structural equality of JSON values; `undefined` fields count as absent. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let na = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    na++;
    if (!deepEqual(ao[k], bo[k])) return false;
  }
  let nb = 0;
  for (const k in bo) if (bo[k] !== undefined) nb++;
  return na === nb;
}

/**
 * deepEqual of two objects with some top-level keys left out, without building stripped copies (the
 * watch predicates run this on every write of the types they watch).
 */
export function deepEqualExcept(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined, skip: ReadonlySet<string>): boolean {
  if (a === b) return true;
  const ao = a ?? {};
  const bo = b ?? {};
  let na = 0;
  for (const k in ao) {
    if (ao[k] === undefined || skip.has(k)) continue;
    na++;
    if (!deepEqual(ao[k], bo[k])) return false;
  }
  let nb = 0;
  for (const k in bo) if (bo[k] !== undefined && !skip.has(k)) nb++;
  return na === nb;
}

/** Recursively freezes a value, so a reconciler that mutates what it read fails loudly in tests. */
export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k in v as Record<string, unknown>) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}


export function isObject(v: unknown): v is Record<string, any> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Reads a dotted path (`spec.replicas`) from a JSON value. */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const seg of path.split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[seg];
  }
  return cur;
}

