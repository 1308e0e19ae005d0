/**
 * RFC 6902 JSON Patch: the diff a mutating webhook answers with (applying patches is src/json/jsonpatch.ts).
 * The diff is minimal for what the mutators do (add or replace fields, append to lists, remove fields);
 * a list that changes in any other way is replaced whole.
 */
import { escapePointerToken as escapePointer, type PatchOp } from '../json/jsonpatch.js';
import { deepEqual, isObj } from '../validation/json.js';

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
