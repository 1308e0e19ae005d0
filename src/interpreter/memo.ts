/**
 * Results of Lua operations remembered by what the script read of its argument.
 *
 * A customization script is a pure function of the fields it reads: it runs with fresh globals, and the
 * library calls that see anything else (the clock, random numbers, table addresses, print) mark the call
 * impure (LuaSandbox.impureCalls), which is then never remembered. So a call that reads the same values
 * along the same path of reads takes the same steps and returns the same result. The memo keeps those
 * paths as a trie: each node is one read (a field, a field's presence, or an object's keys), each edge
 * one answer; a leaf is the result. A lookup replays the reads against the new argument and follows the
 * answers; a miss runs the script on a recording proxy of the argument and adds its reads to the trie.
 *
 * This is what lets a fleet's thousands of member Deployments, which differ in name, labels and
 * timestamps but share their few replica counters, cost one ReflectStatus and one InterpretHealth run per
 * distinct set of counters rather than one per object.
 */
import { deepClone } from '../json/value.js';

/** An answer: a scalar as itself, anything else as one of these markers (or an object's key list). */
const UNDEFINED = Symbol('undefined');
const NULL = Symbol('null');
const OBJECT = Symbol('object');
const ARRAY = Symbol('array');
const NEGATIVE_ZERO = Symbol('-0');

const enum Kind {
  /** obj[key] */
  Get,
  /** Object.getOwnPropertyDescriptor(obj, key): presence. */
  Own,
  /** key in obj */
  Has,
  /** Reflect.ownKeys(obj) */
  Keys,
}

interface Read {
  /** Keys from the argument to the object read. */
  path: readonly string[];
  kind: Kind;
  key: string;
}

interface Node extends Read {
  next: Map<unknown, Node | Leaf>;
}

interface Leaf {
  leaf: true;
  value: unknown;
}

const hasOwn = Object.prototype.hasOwnProperty;

function answerOf(v: unknown): unknown {
  if (v === undefined) return UNDEFINED;
  if (v === null) return NULL;
  if (typeof v === 'object') return Array.isArray(v) ? ARRAY : OBJECT;
  if (v === 0 && Object.is(v, -0)) return NEGATIVE_ZERO;
  return v;
}

function keysAnswer(obj: object): string {
  let s = '';
  for (const k of Reflect.ownKeys(obj)) if (typeof k === 'string') s += k + '\0';
  return s;
}

/** The answer a read gives on `obj` (the object at the read's path). */
function answer(obj: Record<string, unknown>, kind: Kind, key: string): unknown {
  switch (kind) {
    case Kind.Get:
      return answerOf(obj[key]);
    case Kind.Own:
      return hasOwn.call(obj, key);
    case Kind.Has:
      return key in obj;
    case Kind.Keys:
      return keysAnswer(obj);
  }
}

function resolve(root: unknown, path: readonly string[]): Record<string, unknown> {
  let v = root as Record<string, unknown>;
  for (let i = 0; i < path.length; i++) v = v[path[i]!] as Record<string, unknown>;
  return v;
}

/**
 * A proxy of `real` that logs every read into `log`; children are proxied once per path. The proxy's
 * own target is an empty stand-in (an array for an array, so that Array.isArray holds): the store
 * freezes what it holds, and a proxy of a frozen object must hand out the object's own children,
 * not proxies of them.
 */
function recorder(real: object, path: readonly string[], log: Array<Read & { answer: unknown }>, state: { wrote: boolean }): object {
  const obj = real as Record<string, unknown>;
  const children = new Map<string, object>();
  const child = (key: string, v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    let p = children.get(key);
    if (!p) children.set(key, (p = recorder(v, [...path, key], log, state)));
    return p;
  };
  const written = (r: boolean) => {
    state.wrote = true;
    return r;
  };
  return new Proxy(Array.isArray(real) ? [] : {}, {
    get(_t, key) {
      // Symbol-keyed reads (an array's iterator) are the same for every object of its kind, which its
      // parent's answer fixed.
      if (typeof key === 'symbol') return Reflect.get(real, key);
      const v = obj[key];
      log.push({ path, kind: Kind.Get, key, answer: answerOf(v) });
      return hasOwn.call(real, key) ? child(key, v) : v;
    },
    // Presence only: hasOwnProperty, for-in and Object.keys ask this, and whoever wants the value
    // reads it (a get, recorded on its own). Our conversions never take a value from a descriptor.
    getOwnPropertyDescriptor(t, key) {
      const d = Reflect.getOwnPropertyDescriptor(real, key);
      if (typeof key !== 'symbol') log.push({ path, kind: Kind.Own, key, answer: d !== undefined });
      if (d === undefined) return undefined;
      // Reported as the stand-in allows: configurable unless the stand-in has it (an array's length).
      const own = Reflect.getOwnPropertyDescriptor(t, key);
      if (own && !own.configurable) return { ...own, value: d.value };
      return { value: d.value, writable: true, enumerable: d.enumerable, configurable: true };
    },
    has(_t, key) {
      const r = Reflect.has(real, key);
      if (typeof key !== 'symbol') log.push({ path, kind: Kind.Has, key, answer: r });
      return r;
    },
    ownKeys(t) {
      log.push({ path, kind: Kind.Keys, key: '', answer: keysAnswer(real) });
      const keys = Reflect.ownKeys(real);
      // The stand-in's own non-configurable keys (an array's length) must be listed.
      for (const k of Reflect.ownKeys(t)) if (!keys.includes(k)) keys.push(k);
      return keys;
    },
    getPrototypeOf() {
      return Reflect.getPrototypeOf(real);
    },
    // Scripts get lazy copies and never write to their argument; should anything try, the call is not
    // remembered (and the write goes to the real object, as it would without the memo).
    set(_t, key, v) {
      return written(Reflect.set(real, key, v));
    },
    deleteProperty(_t, key) {
      return written(Reflect.deleteProperty(real, key));
    },
    defineProperty(_t, key, d) {
      return written(Reflect.defineProperty(real, key, d));
    },
  });
}

export interface MemoOptions {
  /** Results kept before the memo starts over (each is one path of reads). Default 4096. */
  maxResults?: number;
  /** Where to count (several memos may share one); default: the memo's own. */
  stats?: MemoStats;
  /**
   * After this many misses, a memo with fewer hits than misses turns itself off for good: a script
   * whose reads differ per object (one that converts the whole pod template, names included) would
   * only pay for the recording. Default 200.
   */
  trialMisses?: number;
}

export interface MemoStats {
  hits: number;
  misses: number;
  /** Calls that were run but not remembered: impure, or with an argument that is not an object. Failed calls are not counted. */
  unremembered: number;
  /** Results held now. */
  results: number;
}

/**
 * The memo of one script's operation. `run(arg)` runs the script on what it is given (the argument or
 * its recording proxy) and reports whether the call stayed pure. Each caller gets its own deep copy of a
 * remembered result.
 */
export class OperationMemo<T> {
  private root: Node | Leaf | undefined;
  private readonly maxResults: number;
  private size = 0;
  private hits = 0;
  private misses = 0;
  private off = false;
  private readonly trialMisses: number;
  readonly stats: MemoStats;

  constructor(opts: MemoOptions = {}) {
    this.maxResults = opts.maxResults ?? 4096;
    this.stats = opts.stats ?? { hits: 0, misses: 0, unremembered: 0, results: 0 };
    this.trialMisses = opts.trialMisses ?? 200;
  }

  /** False once the memo has turned itself off. */
  get active(): boolean {
    return !this.off;
  }

  call(arg: unknown, run: (arg: unknown) => { value: T; pure: boolean }): T {
    if (this.off) return run(arg).value;
    if (arg === null || typeof arg !== 'object') {
      this.stats.unremembered++;
      return run(arg).value;
    }
    const found = this.lookup(arg);
    if (found !== undefined) {
      this.hits++;
      this.stats.hits++;
      return deepClone(found.value as T);
    }
    const log: Array<Read & { answer: unknown }> = [];
    const state = { wrote: false };
    // A failure throws past the recording: errors are never remembered.
    const { value, pure } = run(recorder(arg, [], log, state));
    if (!pure || state.wrote) {
      this.stats.unremembered++;
      return value;
    }
    this.stats.misses++;
    if (++this.misses >= this.trialMisses && this.hits < this.misses) {
      this.off = true;
      this.clear();
      return value;
    }
    this.insert(log, deepClone(value));
    return value;
  }

  private grow(): void {
    this.size++;
    this.stats.results++;
  }

  private clear(): void {
    this.root = undefined;
    this.stats.results -= this.size;
    this.size = 0;
  }

  private lookup(arg: unknown): Leaf | undefined {
    let n = this.root;
    while (n !== undefined) {
      if ('leaf' in n) return n;
      n = n.next.get(answer(resolve(arg, n.path), n.kind, n.key));
    }
    return undefined;
  }

  private insert(log: ReadonlyArray<Read & { answer: unknown }>, value: T): void {
    if (this.size >= this.maxResults) this.clear();
    const leaf: Leaf = { leaf: true, value };
    const build = (i: number): Node | Leaf => {
      if (i === log.length) return leaf;
      const r = log[i]!;
      return { path: r.path, kind: r.kind, key: r.key, next: new Map([[r.answer, build(i + 1)]]) };
    };
    if (this.root === undefined) {
      this.root = build(0);
      this.grow();
      return;
    }
    let n: Node | Leaf = this.root;
    for (let i = 0; ; i++) {
      // The same answers so far mean the same reads so far; a difference means the script was not pure
      // after all, and the memo stops trusting what it holds.
      if ('leaf' in n || i === log.length || !sameRead(n, log[i]!)) {
        this.clear();
        return;
      }
      const next: Node | Leaf | undefined = n.next.get(log[i]!.answer);
      if (next === undefined) {
        n.next.set(log[i]!.answer, build(i + 1));
        this.grow();
        return;
      }
      n = next;
    }
  }
}

function sameRead(a: Read, b: Read): boolean {
  if (a.kind !== b.kind || a.key !== b.key || a.path.length !== b.path.length) return false;
  for (let i = 0; i < a.path.length; i++) if (a.path[i] !== b.path[i]) return false;
  return true;
}
