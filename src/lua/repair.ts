/**
 * Karmada's empty-table repair (convertEmptySliceToEmptyStructPartly, spec §4), walked lazily.
 *
 * Every empty Lua table encodes as `[]`; afterwards each one is turned into `{}` where a reference
 * object has an empty object at the same path, kept as `[]` where a reference has an empty array, and
 * deleted otherwise. Paths are object keys only (array indices ignored). Karmada spells paths as
 * escaped dotted strings and collects every path of every reference up front; here a position holds
 * the reference values found at the result's path and steps into them only where the result goes, so a
 * call pays for the parts of the references its result shares, not for whole objects (Retain and
 * ReviseReplica pass whole Deployments as references).
 */
import { setOwn } from '../json/value.js';

/** Extra empty-object paths (typed-output `emptyObjects`), as a trie of raw keys. */
export interface TrieNode {
  obj: boolean;
  arr: boolean;
  kids: Map<string, TrieNode> | null;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Stepping a position with more reference values than this remembers its children (array elements repeat keys). */
const MEMO_ABOVE = 2;

/**
 * The reference values at one path: their objects (arrays flattened into their object elements, as
 * the path ignores indices) and the extra-path trie nodes; `obj`/`arr` say whether any of them is an
 * empty object/array there.
 */
export class PosNode {
  obj = false;
  arr = false;
  readonly vals: object[] = [];
  tries: TrieNode[] | null = null;
  private memo: Map<string, Pos> | null = null;

  /** Adds a reference value found at this path (the root's own emptiness does not count). */
  add(v: object, isRoot: boolean): void {
    if (Array.isArray(v)) {
      if (v.length === 0) {
        if (!isRoot) this.arr = true;
        return;
      }
      // Karmada reads the references' JSON, where a null still makes a list non-empty.
      for (let i = 0; i < v.length; i++) {
        const el = v[i];
        if (el !== null && typeof el === 'object') this.add(el, false);
      }
      return;
    }
    for (const _ in v) {
      this.vals.push(v);
      return;
    }
    if (!isRoot) this.obj = true;
  }

  addTrie(n: TrieNode): void {
    if (n.obj) this.obj = true;
    if (n.arr) this.arr = true;
    if (n.kids !== null) (this.tries ??= []).push(n);
  }

  step(key: string): Pos {
    const memo = this.memo;
    if (memo !== null) {
      const hit = memo.get(key);
      if (hit !== undefined) return hit;
    }
    let out: PosNode | null = null;
    const vals = this.vals;
    for (let i = 0; i < vals.length; i++) {
      const v = vals[i] as Record<string, unknown>;
      if (!hasOwn.call(v, key)) continue;
      const c = v[key];
      if (c !== null && typeof c === 'object') (out ??= new PosNode()).add(c, false);
    }
    const tries = this.tries;
    if (tries !== null) {
      for (const n of tries) {
        const c = n.kids!.get(key);
        if (c !== undefined) (out ??= new PosNode()).addTrie(c);
      }
    }
    if (out !== null && !out.obj && !out.arr && out.vals.length === 0 && out.tries === null) out = null;
    if (vals.length > MEMO_ABOVE) (this.memo ??= new Map()).set(key, out);
    return out;
  }
}

/** Where a value sits; null: no reference has this path. */
export type Pos = PosNode | null;

export const NOWHERE: Pos = null;

function child(node: TrieNode, key: string): TrieNode {
  if (node.kids === null) node.kids = new Map();
  let c = node.kids.get(key);
  if (c === undefined) {
    c = { obj: false, arr: false, kids: null };
    node.kids.set(key, c);
  }
  return c;
}

const extraCache = new Map<string, TrieNode>();
// A RIC's typed-output lists are frozen and passed on every call: found by identity, no key to build.
const extraByList = new WeakMap<readonly string[], TrieNode>();

/** A trie marking extra empty-object paths, written `a.b.c` (a literal dot in a key as `\.`). */
export function trieOfPaths(paths: readonly string[]): TrieNode {
  const same = extraByList.get(paths);
  if (same !== undefined) return same;
  const key = paths.join('\n');
  const hit = extraCache.get(key);
  if (hit) {
    if (Object.isFrozen(paths)) extraByList.set(paths, hit);
    return hit;
  }
  const root: TrieNode = { obj: false, arr: false, kids: null };
  for (const p of paths) {
    const segments: string[] = [];
    let cur = '';
    for (let i = 0; i < p.length; i++) {
      const c = p[i]!;
      if (c === '\\' && i + 1 < p.length) cur += p[++i];
      else if (c === '.') {
        segments.push(cur);
        cur = '';
      } else cur += c;
    }
    segments.push(cur);
    let node = root;
    for (const s of segments) node = child(node, s);
    node.obj = true;
  }
  if (extraCache.size < 1000) extraCache.set(key, root);
  if (Object.isFrozen(paths)) extraByList.set(paths, root);
  return root;
}

/**
 * The root position for references and extra empty-object paths. The references are read while the
 * result is walked, so they must not change before that walk ends (callers encode at once).
 */
export function rootPos(refs: readonly unknown[], extraEmptyObjects: readonly string[] = []): Pos {
  let root: PosNode | null = null;
  for (const r of refs) if (r !== null && typeof r === 'object') (root ??= new PosNode()).add(r, true);
  if (extraEmptyObjects.length > 0) (root ??= new PosNode()).addTrie(trieOfPaths(extraEmptyObjects));
  return root;
}

export function step(pos: Pos, key: string): Pos {
  return pos === null ? null : pos.step(key);
}

/** What an empty table at `pos` becomes: `{}`, `[]`, or undefined (deleted). The object form wins. */
export function emptyAt(pos: Pos): {} | [] | undefined {
  if (pos === null) return undefined;
  if (pos.obj) return {};
  return pos.arr ? [] : undefined;
}

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * A decoded-JSON value as it comes back from a Lua round trip and the repair: null members and
 * elements gone, empty objects and arrays decided by position. Returns undefined when the value itself
 * is an empty container to delete. Never mutates its input.
 */
/** out[k] = v, as an own member even for `__proto__` (an assignment would replace the prototype). */
export function put(out: { [k: string]: unknown }, k: string, v: unknown): void {
  if (k === '__proto__') setOwn(out, k, v);
  else out[k] = v;
}

export function normalizeRepair(v: unknown, pos: Pos): Json | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'object') return typeof v === 'bigint' ? Number(v) : (v as Json);
  if (pos === null) return bare(v);
  if (Array.isArray(v)) {
    const out: Json[] = [];
    let any = false;
    for (const el of v) {
      if (el === null || el === undefined) continue;
      any = true;
      const r = normalizeRepair(el, pos);
      if (r !== undefined) out.push(r);
    }
    return any ? out : emptyAt(pos);
  }
  if (pos.tries === null) {
    const vals = pos.vals;
    if (vals.length === 1 && vals[0] === v) return selfCopy(v, emptyAt(pos));
    if (vals.length === 2 && (vals[0] === v || vals[1] === v)) return pairCopy(v, (vals[0] === v ? vals[1] : vals[0]) as Record<string, unknown>, emptyAt(pos));
  }
  const out: { [k: string]: Json } = {};
  let any = false;
  for (const k in v as Record<string, unknown>) {
    const val = (v as Record<string, unknown>)[k];
    if (val === null || val === undefined) continue;
    any = true;
    if (typeof val !== 'object') {
      put(out, k, val as Json);
      continue;
    }
    const r = normalizeRepair(val, pos.step(k));
    if (r !== undefined) put(out, k, r);
  }
  return any ? out : emptyAt(pos);
}

function hasMembers(v: object): boolean {
  for (const _ in v) return true;
  return false;
}

/**
 * normalizeRepair of an object that is one of exactly two reference values at its position, `other`
 * the second (Retain: the template's untouched subtrees against the member object's). The positions
 * below are the same pair as long as both sides are objects, so none is built until an array comes.
 * `ifEmpty` is what the object becomes when all its members are null.
 */
function pairCopy(v: object, other: Record<string, unknown>, ifEmpty: {} | [] | undefined): Json | undefined {
  let out: { [k: string]: Json } | null = null;
  let any = false;
  for (const k in v as Record<string, unknown>) {
    const val = (v as Record<string, unknown>)[k];
    if (val === null || val === undefined) continue;
    any = true;
    let r: Json | undefined;
    if (typeof val !== 'object') r = val as Json;
    else {
      const o = hasOwn.call(other, k) ? other[k] : undefined;
      if (Array.isArray(val) || (Array.isArray(o) && o.length > 0)) {
        const p = new PosNode();
        p.add(val, false);
        if (o !== null && typeof o === 'object') p.add(o, false);
        r = normalizeRepair(val, p);
      } else if (!hasMembers(val)) r = {};
      else if (o === null || typeof o !== 'object') r = selfCopy(val, undefined);
      else if (Array.isArray(o)) r = selfCopy(val, []);
      else r = hasMembers(o) ? pairCopy(val, o as Record<string, unknown>, undefined) : selfCopy(val, {});
    }
    if (r !== undefined) put((out ??= {}), k, r);
  }
  return any ? (out ?? {}) : ifEmpty;
}

/**
 * normalizeRepair of an object that is the only reference value at its position (ReviseReplica's
 * untouched subtrees, which are their own reference): below it, an object's position holds just that
 * object, so no position needs to be built except for arrays, whose elements share one.
 * `ifEmpty` is what the object becomes when all its members are null.
 */
function selfCopy(v: object, ifEmpty: {} | [] | undefined): Json | undefined {
  let out: { [k: string]: Json } | null = null;
  let any = false;
  for (const k in v as Record<string, unknown>) {
    const val = (v as Record<string, unknown>)[k];
    if (val === null || val === undefined) continue;
    any = true;
    let r: Json | undefined;
    if (typeof val !== 'object') r = val as Json;
    else if (Array.isArray(val)) {
      const p = new PosNode();
      p.add(val, false);
      r = normalizeRepair(val, p);
    } else {
      // An object with no members is an empty-object reference at its own path: it stays {}.
      r = hasMembers(val) ? selfCopy(val, undefined) : {};
    }
    if (r !== undefined) put((out ??= {}), k, r);
  }
  return any ? (out ?? {}) : ifEmpty;
}

/** normalizeRepair where no reference reaches: every empty container is deleted. */
function bare(v: object): Json | undefined {
  if (Array.isArray(v)) {
    const out: Json[] = [];
    let any = false;
    for (let i = 0; i < v.length; i++) {
      const el: unknown = v[i];
      if (el === null || el === undefined) continue;
      any = true;
      if (typeof el !== 'object') out.push(typeof el === 'bigint' ? Number(el) : (el as Json));
      else {
        const r = bare(el);
        if (r !== undefined) out.push(r);
      }
    }
    return any ? out : undefined;
  }
  // Allocated at the first kept member: managedFields are mostly empty objects, which vanish here.
  let out: { [k: string]: Json } | null = null;
  let any = false;
  for (const k in v as Record<string, unknown>) {
    const val = (v as Record<string, unknown>)[k];
    if (val === null || val === undefined) continue;
    any = true;
    if (typeof val !== 'object') put((out ??= {}), k, val as Json);
    else {
      const r = bare(val);
      if (r !== undefined) put((out ??= {}), k, r);
    }
  }
  return any ? (out ?? {}) : undefined;
}
