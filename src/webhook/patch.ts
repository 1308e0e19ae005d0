/**
 * RFC 6902 JSON Patch: the diff a mutating webhook answers with, and an applier for tests and tools.
 * The diff is minimal for what the mutators do (add or replace fields, append to lists, remove fields);
 * a list that changes in any other way is replaced whole.
 */
import { clone, deepEqual, isObj, setOwn } from '../validation/json.js';

export type PatchOp =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

/** RFC 6901: `~` -> `~0`, `/` -> `~1`. */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function createPatch(from: unknown, to: unknown, path = '', out: PatchOp[] = []): PatchOp[] {
  if (deepEqual(from, to)) return out;
  if (isObj(from) && isObj(to)) {
    for (const k of Object.keys(from)) if (!Object.prototype.hasOwnProperty.call(to, k)) out.push({ op: 'remove', path: `${path}/${escapePointer(k)}` });
    for (const k of Object.keys(to)) {
      const p = `${path}/${escapePointer(k)}`;
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

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`JSON pointer ${JSON.stringify(pointer)} must start with "/"`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Applies a patch to a copy of `doc`; throws on a path that does not exist (RFC 6902 semantics). */
export function applyPatch<T>(doc: T, ops: PatchOp[]): T {
  const root = { doc: clone(doc) } as Record<string, unknown>;
  for (const op of ops) {
    const segs = ['doc', ...parsePointer(op.path)];
    const last = segs.pop()!;
    let parent: unknown = root;
    for (const s of segs) {
      parent = Array.isArray(parent) ? parent[Number(s)] : isObj(parent) && Object.prototype.hasOwnProperty.call(parent, s) ? parent[s] : undefined;
      if (parent === undefined) throw new Error(`patch path ${op.path} does not exist`);
    }
    if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : Number(last);
      if (op.op === 'add') parent.splice(i, 0, clone(op.value));
      else if (op.op === 'replace') parent[i] = clone(op.value);
      else parent.splice(i, 1);
    } else if (isObj(parent)) {
      if (op.op === 'remove' || op.op === 'replace') {
        if (!Object.prototype.hasOwnProperty.call(parent, last)) throw new Error(`patch path ${op.path} does not exist`);
      }
      if (op.op === 'remove') delete parent[last];
      else setOwn(parent, last, clone(op.value));
    } else {
      throw new Error(`patch path ${op.path} does not exist`);
    }
  }
  return root.doc as T;
}
