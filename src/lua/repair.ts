/**
 * Karmada's empty-table repair (convertEmptySliceToEmptyStructPartly, spec §4), as a trie walk.
 *
 * Every empty Lua table encodes as `[]`; afterwards each one is turned into `{}` where a reference
 * object has an empty object at the same path, kept as `[]` where a reference has an empty array, and
 * deleted otherwise. Paths are object keys only (array indices ignored). Karmada spells paths as
 * escaped dotted strings; a trie of raw keys per reference object gives the same answers without
 * building a string per field.
 */

export interface TrieNode {
  obj: boolean;
  arr: boolean;
  kids: Map<string, TrieNode> | null;
}

/** Where a value sits: the trie nodes of every reference that has this path. */
export type Pos = readonly TrieNode[];

export const NOWHERE: Pos = [];

const newNode = (): TrieNode => ({ obj: false, arr: false, kids: null });

function child(node: TrieNode, key: string): TrieNode {
  if (node.kids === null) node.kids = new Map();
  let c = node.kids.get(key);
  if (c === undefined) {
    c = newNode();
    node.kids.set(key, c);
  }
  return c;
}

/**
 * The trie of a reference object's empty objects and arrays. Built per call: callers may change an
 * object between calls, so a cache keyed by identity could answer for an object that no longer exists.
 */
export function trieOf(ref: unknown): TrieNode {
  const root = newNode();
  const walk = (v: unknown, node: TrieNode, isRoot: boolean) => {
    if (Array.isArray(v)) {
      // Karmada reads the references' JSON, where a null still makes a list or map non-empty.
      for (const el of v) if (el !== null && typeof el === 'object') walk(el, node, false);
      if (v.length === 0 && !isRoot) node.arr = true;
      return;
    }
    if (v !== null && typeof v === 'object') {
      let any = false;
      for (const k in v as Record<string, unknown>) {
        any = true;
        const val = (v as Record<string, unknown>)[k];
        if (val !== null && typeof val === 'object') walk(val, child(node, k), false);
      }
      if (!any && !isRoot) node.obj = true;
    }
  };
  walk(ref, root, true);
  return root;
}

const extraCache = new Map<string, TrieNode>();

/** A trie marking extra empty-object paths, written `a.b.c` (a literal dot in a key as `\.`). */
export function trieOfPaths(paths: readonly string[]): TrieNode {
  const key = paths.join('\n');
  const hit = extraCache.get(key);
  if (hit) return hit;
  const root = newNode();
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
  return root;
}

export function rootPos(refs: readonly unknown[], extraEmptyObjects: readonly string[] = []): Pos {
  const out: TrieNode[] = [];
  for (const r of refs) {
    const t = trieOf(r);
    if (t.kids !== null) out.push(t);
  }
  if (extraEmptyObjects.length > 0) out.push(trieOfPaths(extraEmptyObjects));
  return out;
}

export function step(pos: Pos, key: string): Pos {
  if (pos.length === 0) return NOWHERE;
  if (pos.length === 1) {
    const c = pos[0]!.kids?.get(key);
    return c === undefined ? NOWHERE : [c];
  }
  const out: TrieNode[] = [];
  for (const n of pos) {
    const c = n.kids?.get(key);
    if (c !== undefined) out.push(c);
  }
  return out.length === 0 ? NOWHERE : out;
}

/** What an empty table at `pos` becomes: `{}`, `[]`, or undefined (deleted). The object form wins. */
export function emptyAt(pos: Pos): {} | [] | undefined {
  let arr = false;
  for (const n of pos) {
    if (n.obj) return {};
    if (n.arr) arr = true;
  }
  return arr ? [] : undefined;
}

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * A decoded-JSON value as it comes back from a Lua round trip and the repair: null members and
 * elements gone, empty objects and arrays decided by position. Returns undefined when the value itself
 * is an empty container to delete. Never mutates its input.
 */
export function normalizeRepair(v: unknown, pos: Pos): Json | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'object') return typeof v === 'bigint' ? Number(v) : (v as Json);
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
  const out: { [k: string]: Json } = {};
  let any = false;
  for (const k in v as Record<string, unknown>) {
    const val = (v as Record<string, unknown>)[k];
    if (val === null || val === undefined) continue;
    any = true;
    if (typeof val !== 'object') {
      out[k] = val as Json;
      continue;
    }
    const r = normalizeRepair(val, step(pos, k));
    if (r !== undefined) out[k] = r;
  }
  return any ? out : emptyAt(pos);
}
