// One member's objects of one resource type, kept compact: each object once, as its JSON text (with the
// cached-from-cluster annotation already in it), beside only the fields lists, selectors and sorting read.
// Users report karmada-search holding gigabytes (Karmada #7439, #2518): a decoded object costs several
// times its JSON, a V8 string of JSON costs its length plus a small header.
import { CacheSourceAnnotation } from '../api/constants.js';
import { compareResourceVersions, type InformerCache } from '../kube/informer.js';
import { labelsOf, type Labels, type LabelMatcher } from '../scheduler/selector.js';
import { fieldMatches, type FieldSelector } from './selectors.js';

const NO_LABELS: Labels = new Map();

/** Text as its UTF-8 bytes, one per character: see CachedObject.json. Write such strings with 'latin1'. */
export const toBytes = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');
export const fromBytes = (bytes: string): string => Buffer.from(bytes, 'latin1').toString('utf8');

/** Namespaces repeat across millions of objects: one string each. */
const namespaces = new Map<string, string>();
function internNamespace(ns: string): string {
  let s = namespaces.get(ns);
  if (s === undefined) namespaces.set(ns, (s = ns));
  return s;
}

/**
 * A cached object. `metadata` is a getter on the prototype, not a field, so the informer can read the
 * resourceVersion it orders events by at no cost per object.
 */
export class CachedObject {
  constructor(
    readonly namespace: string,
    readonly name: string,
    readonly resourceVersion: string,
    readonly labels: Labels,
    /**
     * The object as JSON, annotated with the cluster it came from: its UTF-8 bytes held one per character
     * (a latin1 string), written out as latin1. JSON.stringify's own result is a tree of string parts that
     * costs ~270 bytes more per 2 KB object; this is one flat string of exactly one byte per byte.
     */
    readonly json: string,
  ) {}

  /** The object decoded (a get, a rewrite): a fresh copy. */
  get object(): any {
    return JSON.parse(fromBytes(this.json));
  }

  get metadata(): { namespace: string; name: string; resourceVersion: string } {
    return { namespace: this.namespace, name: this.name, resourceVersion: this.resourceVersion };
  }

  /** The JSON with `metadata.resourceVersion` replaced, without parsing when the value occurs once. */
  withResourceVersion(rv: string): string {
    const needle = `"resourceVersion":${JSON.stringify(this.resourceVersion)}`;
    const at = this.json.indexOf(needle);
    if (at >= 0 && this.json.indexOf(needle, at + 1) < 0) {
      return this.json.slice(0, at) + `"resourceVersion":${JSON.stringify(rv)}` + this.json.slice(at + needle.length);
    }
    const o = this.object;
    o.metadata.resourceVersion = rv;
    return toBytes(JSON.stringify(o));
  }
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: WatchEventType;
  object: CachedObject;
  /** The object a MODIFIED replaced: a filtered watch sends ADDED or DELETED when only one of them matches, as kube-apiserver's watch cache does. */
  old?: CachedObject;
}

export type StoreListener = (e: StoreEvent) => void;

export class TooOldResourceVersionError extends Error {
  readonly code = 410;
}

export interface StoreListOptions {
  namespace?: string;
  labels?: LabelMatcher;
  fields?: FieldSelector;
  /** Only these namespaces are visible (the proxy's registry namespaces); undefined is all. */
  visible?: ReadonlySet<string>;
  /** Start after this `namespace/name` key (our own continue within one cluster). */
  after?: string;
  limit?: number;
}

const keyOf = (ns: string, name: string) => `${ns}/${name}`;

/**
 * Also the informer's cache (InformerCache): the informer stores through `set` and `delete`, and reads
 * back only resourceVersions, which CachedObject answers without decoding.
 */
export class ResourceStore implements InformerCache {
  private readonly byNamespace = new Map<string, Map<string, CachedObject>>();
  private count = 0;
  /** Sorted by namespace then name, rebuilt after an insert or delete; updates keep it valid. */
  private order: Array<[string, string]> | undefined;
  /** Each watch's listener and what ends it. */
  private readonly listeners = new Map<StoreListener, () => void>();
  /** The latest events, for watches that resume from a resourceVersion (the watch cache's window). */
  private readonly history: StoreEvent[] = [];
  /** The resourceVersion of the oldest event the history can replay from. */
  private historyFloor = '';
  private labelSets = new Map<string, { labels: Labels; refs: number }>();
  /** The last resourceVersion the member reported (list or watch). */
  resourceVersion = '';

  constructor(
    readonly cluster: string,
    private readonly historySize = 1000,
  ) {}

  get size(): number {
    return this.count;
  }

  // -- InformerCache -------------------------------------------------------------------------------

  get(key: string): CachedObject | undefined {
    const slash = key.indexOf('/');
    return this.byNamespace.get(key.slice(0, slash))?.get(key.slice(slash + 1));
  }

  set(_key: string, obj: any): this {
    this.put(obj);
    return this;
  }

  delete(key: string): boolean {
    const slash = key.indexOf('/');
    return this.take(key.slice(0, slash), key.slice(slash + 1)) !== undefined;
  }

  *values(): IterableIterator<CachedObject> {
    for (const m of this.byNamespace.values()) yield* m.values();
  }

  *[Symbol.iterator](): IterableIterator<[string, CachedObject]> {
    for (const [ns, m] of this.byNamespace) for (const [name, o] of m) yield [keyOf(ns, name), o];
  }

  /**
   * What the informer reports after it stored or deleted through the InformerCache side: the event for
   * the watches (a deletion carries the member's final state of the object).
   */
  informerEvent(type: WatchEventType, obj: any, old?: unknown): void {
    const md = obj?.metadata ?? {};
    const object = type === 'DELETED' ? this.encode(obj, false) : this.getObject(md.namespace ?? '', md.name ?? '');
    if (object) this.publish(type === 'MODIFIED' && old instanceof CachedObject ? { type, object, old } : { type, object });
  }

  // -- writes ----------------------------------------------------------------------------------------

  /** Stores a full decoded object from the member and tells the watches; an in-process source's entry. */
  upsert(obj: any): void {
    const { record, old } = this.put(obj);
    if (record !== old) this.publish(old ? { type: 'MODIFIED', object: record, old } : { type: 'ADDED', object: record });
  }

  remove(final: any): void {
    const md = final?.metadata ?? {};
    if (this.take(md.namespace ?? '', md.name ?? '')) this.publish({ type: 'DELETED', object: this.encode(final, false) });
  }

  /** Stores without telling anyone; returns the record kept and the one it replaced. */
  private put(obj: any): { record: CachedObject; old: CachedObject | undefined } {
    const record = this.encode(obj);
    let m = this.byNamespace.get(record.namespace);
    if (!m) this.byNamespace.set(record.namespace, (m = new Map()));
    const old = m.get(record.name);
    if (old && old.resourceVersion === record.resourceVersion && old.json === record.json) {
      this.releaseLabels(record.labels);
      return { record: old, old };
    }
    m.set(record.name, record);
    if (old) this.releaseLabels(old.labels);
    else {
      this.count++;
      this.order = undefined;
    }
    return { record, old };
  }

  private take(namespace: string, name: string): CachedObject | undefined {
    const m = this.byNamespace.get(namespace);
    const old = m?.get(name);
    if (!m || !old) return undefined;
    m.delete(name);
    if (m.size === 0) this.byNamespace.delete(namespace);
    this.count--;
    this.order = undefined;
    this.releaseLabels(old.labels);
    return old;
  }

  private encode(obj: any, keepLabels = true): CachedObject {
    const md = (obj.metadata ??= {});
    md.annotations = { ...(md.annotations ?? {}), [CacheSourceAnnotation]: this.cluster };
    const json = toBytes(JSON.stringify(obj));
    const labels = keepLabels ? this.internLabels(md.labels) : labelsOf(md.labels);
    return new CachedObject(internNamespace(md.namespace ?? ''), md.name ?? '', md.resourceVersion ?? '', labels, json);
  }

  /** Pods of one ReplicaSet share their labels: one Map per distinct set, counted so churn frees them. */
  private internLabels(l: Record<string, string> | undefined): Labels {
    if (!l) return NO_LABELS;
    const keys = Object.keys(l);
    if (keys.length === 0) return NO_LABELS;
    const sig = JSON.stringify(keys.sort().map((k) => [k, l[k]]));
    let e = this.labelSets.get(sig);
    if (!e) this.labelSets.set(sig, (e = { labels: labelsOf(l), refs: 0 }));
    e.refs++;
    return e.labels;
  }

  private releaseLabels(labels: Labels): void {
    if (labels === NO_LABELS) return;
    const sig = JSON.stringify([...labels.keys()].sort().map((k) => [k, labels.get(k)]));
    const e = this.labelSets.get(sig);
    if (e && --e.refs <= 0) this.labelSets.delete(sig);
  }

  private publish(e: StoreEvent): void {
    if ((compareResourceVersions(e.object.resourceVersion, this.resourceVersion) ?? 1) > 0) this.resourceVersion = e.object.resourceVersion;
    this.history.push(e);
    if (this.history.length > this.historySize) {
      this.history.splice(0, this.history.length - this.historySize);
      this.historyFloor = this.history[0]!.object.resourceVersion;
    }
    for (const l of this.listeners.keys()) l(e);
  }

  // -- reads ---------------------------------------------------------------------------------------

  getObject(namespace: string, name: string): CachedObject | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }

  private sorted(): Array<[string, string]> {
    if (!this.order) {
      const out: Array<[string, string]> = [];
      for (const ns of [...this.byNamespace.keys()].sort()) {
        for (const name of [...this.byNamespace.get(ns)!.keys()].sort()) out.push([ns, name]);
      }
      this.order = out;
    }
    return this.order;
  }

  /**
   * Objects in namespace/name order, filtered. Returns the key to continue after when `limit` stopped
   * the list with more left.
   */
  list(o: StoreListOptions = {}): { items: CachedObject[]; next?: string } {
    const items: CachedObject[] = [];
    const visible = (ns: string) => !o.visible || o.visible.has(ns);
    const accept = (ns: string, obj: CachedObject) => visible(ns) && (!o.labels || o.labels(obj.labels)) && (!o.fields || fieldMatches(o.fields, ns, obj.name));
    // An unpaged list needs no order: map order is enough and skips the sort after churn.
    if (!o.limit && !o.after) {
      const spaces = o.namespace !== undefined ? [[o.namespace, this.byNamespace.get(o.namespace)] as const] : [...this.byNamespace];
      for (const [ns, m] of spaces) if (m) for (const obj of m.values()) if (accept(ns, obj)) items.push(obj);
      return { items };
    }
    const order = this.sorted();
    let i = 0;
    if (o.after) {
      const slash = o.after.indexOf('/');
      const ans = o.after.slice(0, slash);
      const aname = o.after.slice(slash + 1);
      let lo = 0;
      let hi = order.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const [ns, name] = order[mid]!;
        if (ns < ans || (ns === ans && name <= aname)) lo = mid + 1;
        else hi = mid;
      }
      i = lo;
    }
    for (; i < order.length; i++) {
      const [ns, name] = order[i]!;
      if (o.namespace !== undefined && ns !== o.namespace) continue;
      const obj = this.byNamespace.get(ns)?.get(name);
      if (!obj || !accept(ns, obj)) continue;
      if (o.limit && items.length >= o.limit) return { items, next: keyOf(items[items.length - 1]!.namespace, items[items.length - 1]!.name) };
      items.push(obj);
    }
    return { items };
  }

  /**
   * A watch from memory. `fromRV` empty or "0": the current objects as ADDED first, then changes; a
   * resourceVersion: the changes after it, or TooOldResourceVersionError when the history no longer
   * reaches back that far. Returns the function that ends it.
   */
  watch(fromRV: string, listener: StoreListener, onEnd: () => void = () => {}): () => void {
    const backlog: StoreEvent[] = [];
    if (!fromRV || fromRV === '0') {
      for (const o of this.values()) backlog.push({ type: 'ADDED', object: o });
    } else if (fromRV !== this.resourceVersion) {
      const floor = this.historyFloor;
      if (floor && (compareResourceVersions(fromRV, floor) ?? 0) < 0) throw new TooOldResourceVersionError(`too old resource version: ${fromRV} (${floor})`);
      for (const e of this.history) if ((compareResourceVersions(e.object.resourceVersion, fromRV) ?? 1) > 0) backlog.push(e);
    }
    for (const e of backlog) listener(e);
    this.listeners.set(listener, onEnd);
    return () => this.listeners.delete(listener);
  }

  /** The store is going away (its cluster or type left the plan): every watch on it ends. */
  closeWatches(): void {
    const ends = [...this.listeners.values()];
    this.listeners.clear();
    for (const end of ends) end();
  }

  get watchers(): number {
    return this.listeners.size;
  }
}
