/**
 * The compiled path's Lua table: one insertion-ordered map, as fengari's ltable (a JS Map of entries in a
 * doubly linked list), so `next`/`pairs` visit keys in the same order, `#` finds the same border and a key
 * deleted during a traversal can still be passed to `next` until the next insert (fengari's dead keys).
 *
 * A table converted from a JSON object is lazy as convert.ts's are: a field is copied in when first read
 * (objects and arrays stored, scalars answered without storing), a key the script assigned or a field it
 * read as a table is remembered, and `next`/`pairs` first copy every remaining field in the object's own
 * key order. Strings are byte strings held as latin1 JS strings (one code unit per byte).
 */

export interface Entry {
  k: unknown;
  v: unknown;
  n: Entry | null;
  p: Entry | null;
  dead: boolean;
}

export interface LazySource {
  obj: Record<string, unknown>;
  seen: Set<string> | null;
  full: boolean;
}

/** A write to a protected (library) table, undone when the call ends. */
export interface UndoLog {
  push(t: LuaTable, k: unknown, had: boolean, old: unknown): void;
}

const hasOwn = Object.prototype.hasOwnProperty;
/** Whether every code unit is ASCII: then the JS string and its byte string are the same. */
export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 127) return false;
  return true;
}

/** A JS (UTF-16) string as the byte string fengari's to_luastring makes of it: its UTF-8 bytes, one per code unit. */
export function toByteString(s: string): string {
  return isAscii(s) ? s : Buffer.from(s, 'utf8').toString('latin1');
}

/** A byte string decoded as fengari's to_jsstring decodes it (UTF-8). */
export function fromByteString(s: string): string {
  return isAscii(s) ? s : Buffer.from(s, 'latin1').toString('utf8');
}

export class LuaTable {
  m: Map<unknown, Entry> = new Map();
  f: Entry | null = null;
  l: Entry | null = null;
  dead: Map<unknown, Entry> | null = null;
  lazy: LazySource | null = null;
  /** Library tables: writes are logged and undone after the call. */
  undo: UndoLog | null = null;

  get(k: unknown): unknown {
    const e = this.m.get(k);
    if (e !== undefined) return e.v;
    if (this.lazy !== null && typeof k === 'string') return this.lazyGet(k);
    return undefined;
  }

  /** A raw read: no lazy source. */
  rawget(k: unknown): unknown {
    const e = this.m.get(k);
    return e === undefined ? undefined : e.v;
  }

  /** An assignment as the VM makes it (the lazy source's __newindex included); the key is checked by the caller. */
  set(k: unknown, v: unknown): void {
    const e = this.m.get(k);
    if (e === undefined && this.lazy !== null && !this.lazy.full && typeof k === 'string') {
      const lz = this.lazy;
      if (lz.seen === null) lz.seen = new Set();
      lz.seen.add(fromByteString(k));
    }
    if (this.undo !== null) this.undo.push(this, k, e !== undefined, e === undefined ? undefined : e.v);
    this.rawsetEntry(e, k, v);
  }

  rawset(k: unknown, v: unknown): void {
    this.rawsetEntry(this.m.get(k), k, v);
  }

  private rawsetEntry(e: Entry | undefined, k: unknown, v: unknown): void {
    if (v === undefined) {
      if (e === undefined) return;
      // fengari's mark_dead: out of the map and the list, but `next` can still start from it.
      e.dead = true;
      const n = e.n;
      const p = e.p;
      if (p !== null) p.n = n;
      if (n !== null) n.p = p;
      if (this.f === e) this.f = n;
      if (this.l === e) this.l = p;
      this.m.delete(k);
      (this.dead ??= new Map()).set(k, e);
      return;
    }
    if (e !== undefined) {
      e.v = v;
      return;
    }
    if (this.dead !== null && this.dead.size !== 0) this.dead.clear();
    const prev = this.l;
    const ne: Entry = { k, v, n: null, p: prev, dead: false };
    if (this.f === null) this.f = ne;
    if (prev !== null) prev.n = ne;
    this.m.set(k, ne);
    this.l = ne;
  }

  /** convert.ts lazyIndex: a field not copied in yet. */
  private lazyGet(bk: string): unknown {
    const info = this.lazy!;
    if (info.full) return undefined;
    const key = fromByteString(bk);
    const seen = info.seen;
    if (seen !== null && seen.has(key)) return undefined;
    if (!hasOwn.call(info.obj, key)) return undefined;
    const v = info.obj[key];
    switch (typeof v) {
      case 'string':
        return toByteString(v);
      case 'number':
        return v;
      case 'boolean':
        return v;
      case 'object':
        if (v === null) return undefined;
        break;
      default:
        return undefined;
    }
    if (seen === null) info.seen = new Set([key]);
    else seen.add(key);
    const t = fromJs(v);
    this.rawset(bk, t);
    return t;
  }

  /** convert.ts materialize: every field not read yet copied in, for raw iteration. */
  materialize(): void {
    const info = this.lazy;
    if (info === null || info.full) return;
    for (const key of Object.keys(info.obj)) {
      const v = info.obj[key];
      if (v === null || v === undefined || info.seen?.has(key)) continue;
      this.rawset(toByteString(key), fromJs(v));
    }
    info.full = true;
    info.seen = null;
  }

  /** fengari's luaH_getn. */
  length(): number {
    let i = 0;
    let j = this.m.size + 1;
    while (this.m.get(j) !== undefined) {
      i = j;
      if (j > Number.MAX_SAFE_INTEGER / 2) {
        i = 1;
        while (this.m.get(i) !== undefined) i++;
        return i - 1;
      }
      j *= 2;
    }
    while (j - i > 1) {
      const mid = Math.floor((i + j) / 2);
      if (this.m.get(mid) === undefined) j = mid;
      else i = mid;
    }
    return i;
  }

  /** The entry after key `k` (undefined: the first), null at the end; 'invalid' for a key never in the table. */
  nextEntry(k: unknown): Entry | null | 'invalid' {
    if (k === undefined) return this.f;
    const e = this.m.get(k);
    if (e !== undefined) return e.n;
    let d = this.dead?.get(k);
    if (d === undefined) return 'invalid';
    do {
      d = d.n!;
      if (d === null) return null;
    } while (d.dead);
    return d;
  }
}

/** A decoded JSON value as the compiled path's Lua value (convert.ts pushJs). */
export function fromJs(v: unknown): unknown {
  switch (typeof v) {
    case 'string':
      return toByteString(v);
    case 'number':
    case 'boolean':
      return v;
    case 'bigint':
      return Number(v);
    case 'object': {
      if (v === null) return undefined;
      const t = new LuaTable();
      if (Array.isArray(v)) {
        let n = 0;
        for (const el of v) {
          if (el === null || el === undefined) continue;
          t.rawset(++n, fromJs(el));
        }
        return t;
      }
      t.lazy = { obj: v as Record<string, unknown>, seen: null, full: false };
      return t;
    }
    default:
      return undefined;
  }
}

/** An eager conversion (convert.ts pushJsEager): library results the script may iterate freely. */
export function fromJsEager(v: unknown): unknown {
  if (v !== null && typeof v === 'object') {
    const t = new LuaTable();
    if (Array.isArray(v)) {
      let n = 0;
      for (const el of v) {
        if (el === null || el === undefined) continue;
        t.rawset(++n, fromJsEager(el));
      }
      return t;
    }
    for (const [k, val] of Object.entries(v)) {
      if (val === null || val === undefined) continue;
      t.rawset(toByteString(k), fromJsEager(val));
    }
    return t;
  }
  return fromJs(v);
}
