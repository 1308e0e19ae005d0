/**
 * The Go-JSON rule: what Go's encoding/json makes of a value that went through a Kubernetes struct, applied
 * to a Lua result (typed-output `goType`, interpreters/README.md). Karmada's native interpreters build
 * their results as Go structs, so in their output:
 *
 * - a map or slice field tagged `omitempty` disappears when empty;
 * - a struct-valued field never disappears once set (`{}` stays `{}`), nor does an empty list element;
 * - an empty map or slice without `omitempty` stays (`{}`, `[]`).
 *
 * A Lua result cannot say any of this (every empty table is the same), so the field tags of the Go types
 * (go-types.ts, derived from k8s.io/api) decide wherever they know the position; elsewhere (fields the
 * types do not list, values of a type with its own JSON form) Karmada's empty-table repair against the
 * reference objects decides, as for any script.
 *
 * `unstructured` is for results Karmada edits in place as unstructured maps (Retain, ReviseReplica):
 * nothing is dropped for `omitempty`; an empty field is kept where a reference has it, and the type only
 * says whether it is a list or an object.
 */
import { emptyAt, normalizeRepair, put, type Json, type Pos } from '../lua/repair.js';
import { GO_TYPES } from './go-types.js';

/** A Go type: a struct (its JSON fields), a map or a slice (its element); null: no rule applies. */
export interface GoType {
  kind: 'S' | 'M' | 'L';
  elem: GoType | null;
  fields: Map<string, GoField> | null;
}

interface GoField {
  type: GoType | null;
  /** Tagged omitempty and a map or slice: gone when empty. */
  dropEmpty: boolean;
}

const compiled = new Map<string, GoType | null>();

/** The compiled type of a go-types.ts spelling ('S<struct>', 'M<elem>', 'L<elem>', '' none). */
function typeOf(ref: string): GoType | null {
  const hit = compiled.get(ref);
  if (hit !== undefined) return hit;
  if (ref === '') return null;
  const kind = ref[0] as GoType['kind'];
  const t: GoType = { kind, elem: null, fields: null };
  // Stored before its parts: struct types may refer to themselves.
  compiled.set(ref, t);
  if (kind === 'S') {
    t.fields = new Map();
    for (const [name, [fref, omit]] of Object.entries(GO_TYPES[ref.slice(1)] ?? {})) {
      t.fields.set(name, { type: typeOf(fref), dropEmpty: omit === 1 && (fref[0] === 'M' || fref[0] === 'L') });
    }
  } else t.elem = typeOf(ref.slice(1));
  return t;
}

/** The struct type of a name in go-types.ts (e.g. "apps/v1.Deployment"), or null when unknown. */
export function goStruct(name: string): GoType | null {
  return Object.hasOwn(GO_TYPES, name) ? typeOf(`S${name}`) : null;
}

/** The type of a struct's field; null when the table does not list it (a scalar, or a field it does not know). */
export function goField(t: GoType | null, key: string): GoType | null {
  return t?.fields?.get(key)?.type ?? null;
}

/**
 * One walk: the reference root and the object keys from it to the current value. Positions are
 * stepped only where the repair decides (a value the types do not cover, or an empty one in an
 * unstructured result), not for every member.
 */
interface Walk {
  root: Pos;
  keys: string[];
  unstructured: boolean;
}

function posOf(w: Walk): Pos {
  let p = w.root;
  for (let i = 0; i < w.keys.length && p !== null; i++) p = p.step(w.keys[i]!);
  return p;
}

/** A value with nothing in it once nulls are gone: an empty table, or `{}`/`[]`/all-null in raw input. */
function isHollow(v: object): boolean {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (v[i] !== null && v[i] !== undefined) return false;
    return true;
  }
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== null && x !== undefined) return false;
  }
  return true;
}

function isEmptyJson(v: Json): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.length === 0;
  for (const _ in v) return false;
  return true;
}

function walk(v: unknown, t: GoType | null, w: Walk, element: boolean): Json | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'object') return typeof v === 'bigint' ? Number(v) : (v as Json);
  if (t === null) return normalizeRepair(v, posOf(w));
  if (isHollow(v)) {
    if (w.unstructured && !element && emptyAt(posOf(w)) === undefined) return undefined;
    return t.kind === 'L' ? [] : {};
  }
  if (Array.isArray(v)) {
    // A list where Go has an object: the type cannot help.
    if (t.kind !== 'L') return normalizeRepair(v, posOf(w));
    const out: Json[] = [];
    for (let i = 0; i < v.length; i++) {
      const r = walk(v[i], t.elem, w, true);
      if (r !== undefined) out.push(r);
    }
    return out;
  }
  if (t.kind === 'L') return normalizeRepair(v, posOf(w));
  const out: { [k: string]: Json } = {};
  const fields = t.fields;
  for (const k in v as Record<string, unknown>) {
    const val = (v as Record<string, unknown>)[k];
    if (val === null || val === undefined) continue;
    if (typeof val !== 'object') {
      put(out, k, typeof val === 'bigint' ? Number(val) : (val as Json));
      continue;
    }
    const f = fields === null ? undefined : fields.get(k);
    w.keys.push(k);
    const r = walk(val, fields === null ? t.elem : (f?.type ?? null), w, false);
    w.keys.pop();
    if (r === undefined || (!w.unstructured && f !== undefined && f.dropEmpty && isEmptyJson(r))) continue;
    put(out, k, r);
  }
  return out;
}

/**
 * Applies the rule to `v`, a result encoded without the repair (every empty table `[]`; untouched
 * input parts may come as they are, with nulls and `{}`), of type `t` with reference root `pos`.
 * Never mutates its input. Undefined: v disappears.
 */
export function goJsonValue(v: unknown, t: GoType | null, pos: Pos, unstructured: boolean): Json | undefined {
  return walk(v, t, { root: pos, keys: [], unstructured }, false);
}
