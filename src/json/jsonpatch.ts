/**
 * RFC 6902 add/remove/replace over RFC 6901 pointers, strict like the Go library Karmada uses: a
 * missing parent, or removing/replacing a missing member, is an error naming the path. createPatch is
 * the other direction: the patch a webhook answers with (the admission and the interpreter webhooks).
 */
import { deepClone, deepEqual, isObject, setOwn } from './value.js';

export interface PatchOp {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`invalid JSON pointer "${pointer}": it must be empty or start with "/"`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function escapePointerToken(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function getPointer(doc: unknown, pointer: string): { found: boolean; value?: unknown } {
  let cur: unknown = doc;
  for (const seg of parsePointer(pointer)) {
    if (Array.isArray(cur)) {
      const i = Number(seg);
      if (!/^\d+$/.test(seg) || i >= cur.length) return { found: false };
      cur = cur[i];
    } else if (isObject(cur)) {
      if (!Object.prototype.hasOwnProperty.call(cur, seg)) return { found: false };
      cur = cur[seg];
    } else return { found: false };
  }
  return { found: true, value: cur };
}

/** Applies the operations in order to a copy of doc and returns it. */
export function applyPatch<T>(doc: T, ops: readonly PatchOp[]): T {
  let root: unknown = deepClone(doc);
  for (const op of ops) root = applyOne(root, op);
  return root as T;
}

function applyOne(root: unknown, op: PatchOp): unknown {
  const segs = parsePointer(op.path);
  if (segs.length === 0) {
    if (op.op === 'remove') throw new Error('remove operation does not apply to the whole document');
    return deepClone(op.value);
  }
  const parentPath = segs.slice(0, -1);
  const last = segs[segs.length - 1]!;
  let parent: unknown = root;
  for (const seg of parentPath) {
    if (Array.isArray(parent)) {
      const i = Number(seg);
      if (!/^\d+$/.test(seg) || i >= parent.length) throw missing(op);
      parent = parent[i];
    } else if (isObject(parent)) {
      if (!Object.prototype.hasOwnProperty.call(parent, seg)) throw missing(op);
      parent = parent[seg];
    } else throw missing(op);
  }
  if (Array.isArray(parent)) {
    if (op.op === 'add') {
      if (last === '-') parent.push(deepClone(op.value));
      else {
        const i = Number(last);
        if (!/^\d+$/.test(last) || i > parent.length) throw missing(op);
        parent.splice(i, 0, deepClone(op.value));
      }
      return root;
    }
    const i = Number(last);
    if (!/^\d+$/.test(last) || i >= parent.length) throw missing(op);
    if (op.op === 'remove') parent.splice(i, 1);
    else parent[i] = deepClone(op.value);
    return root;
  }
  if (!isObject(parent)) throw missing(op);
  const has = Object.prototype.hasOwnProperty.call(parent, last);
  if (op.op === 'add') setOwn(parent, last, deepClone(op.value));
  else if (!has) throw missing(op);
  else if (op.op === 'remove') delete parent[last];
  else setOwn(parent, last, deepClone(op.value));
  return root;
}

function missing(op: PatchOp): Error {
  return new Error(`${op.op} operation does not apply: doc is missing path: "${op.path}"`);
}

/**
 * The RFC 6902 patch from one JSON value to another. Minimal for what webhooks change (fields added,
 * replaced or removed, lists appended to); a list that changes in any other way is replaced whole.
 */
export function createPatch(from: unknown, to: unknown, path = '', out: PatchOp[] = []): PatchOp[] {
  if (deepEqual(from, to)) return out;
  if (isObject(from) && isObject(to)) {
    for (const k of Object.keys(from)) if (!Object.prototype.hasOwnProperty.call(to, k)) out.push({ op: 'remove', path: `${path}/${escapePointerToken(k)}` });
    for (const k of Object.keys(to)) {
      const p = `${path}/${escapePointerToken(k)}`;
      if (!Object.prototype.hasOwnProperty.call(from, k)) out.push({ op: 'add', path: p, value: to[k] });
      else createPatch(from[k], to[k], p, out);
    }
    return out;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    if (from.length === to.length) {
      from.forEach((x, i) => createPatch(x, to[i], `${path}/${i}`, out));
      return out;
    }
    if (to.length > from.length && from.every((x, i) => deepEqual(x, to[i]))) {
      for (let i = from.length; i < to.length; i++) out.push({ op: 'add', path: `${path}/${i}`, value: to[i] });
      return out;
    }
  }
  if (path === '') throw new Error('cannot patch the document root to a value of another type');
  out.push({ op: 'replace', path, value: to });
  return out;
}
