/**
 * The embedded control plane: an in-memory object store with the apiserver semantics the reconcilers
 * rely on (resourceVersion, generation, optimistic locking, finalizers, owner-reference garbage
 * collection, status subresource), plus the simulated member clusters, one namespace of objects each.
 */
import {
  ClusterPropagationPolicyPermanentIDLabel,
  ClusterResourceBindingPermanentIDLabel,
  DependedByLabelKeyPrefix,
  PropagationPolicyPermanentIDLabel,
  ResourceBindingPermanentIDLabel,
} from '../api/constants.js';
import type { CoreEvent, ListOptions } from '../core/ports.js';
import { deepClone, deepEqual, deepFreeze } from '../json/value.js';
import { describeRef, refKey, rfc3339, typeKey, type KObject, type ObjectRef, type TypeRef } from '../core/object.js';
import { flat, uuidShaped } from '../json/strings.js';
import { StoreError, type RecordedEvent, type Store, type WatchEvent, type WatchHandler } from '../runtime/store-port.js';

/** A mutating admission step run on control-plane creates and updates (the webhooks' defaulting). */
export type Admission = (op: 'create' | 'update', obj: KObject, old: KObject | undefined) => KObject;

export interface EmbeddedStoreOptions {
  /** Time source for timestamps; the embedded control plane runs on a virtual clock. */
  clock?: () => Date;
  /** Freeze stored objects so that any reconciler mutating what it read throws. Default true. */
  freeze?: boolean;
  /** Label keys with an equality index, for list({labels}). Default: the permanent-id labels. */
  indexedLabels?: readonly string[];
  /** Label key prefixes whose keys are all indexed. Default: the depended-by labels of attached bindings. */
  indexedLabelPrefixes?: readonly string[];
  admission?: Admission;
  /** Seed for generated uids, so repeated runs print the same ids. */
  uidSeed?: string;
  /**
   * The simulated member clusters' controllers: the status a member object has after a write of its
   * spec (undefined keeps the current status). Called for member-cluster creates and updates only.
   */
  memberStatus?: (cluster: string, obj: KObject) => unknown;
  /**
   * Copy objects on write (default true). Without it the store keeps what it is given, so writers must
   * never touch an object after writing it: the reconcile core builds fresh objects per write.
   */
  cloneOnWrite?: boolean;
  /** Keep at most this many events (oldest dropped first), as an apiserver's event TTL would. */
  maxEvents?: number;
}

/**
 * One stored object. An update replaces `obj` in the same entry, so the maps and indexes that hold the
 * entry stay as they are: most writes touch no map at all, and none builds a key string.
 */
interface Entry {
  obj: KObject;
}

interface TypeTable {
  apiVersion: string;
  kind: string;
  /** Every entry, in creation order (the order list() returns). */
  objects: Set<Entry>;
  /** namespace ('' for none) -> name -> entry: looked up by the two strings a caller has, without building a key. */
  byNamespace: Map<string, Map<string, Entry>>;
  /** label key -> value -> entries */
  labelIndex: Map<string, Map<string, Set<Entry>>>;
  /**
   * Member-cluster tables index a label key only once a list asks for it: the core never lists member
   * objects by label, and indexing every member object's permanent ids cost memory and time per write.
   */
  lazyIndex: boolean;
}

const CONTROL_PLANE = '';

/**
 * The labels the core lists by. Work permanent ids are not among them: nothing lists Works by their own
 * id, and a set per Work in the index cost a write's worth of time (a list by it scans instead).
 */
const DEFAULT_INDEXED = [
  PropagationPolicyPermanentIDLabel,
  ClusterPropagationPolicyPermanentIDLabel,
  ResourceBindingPermanentIDLabel,
  ClusterResourceBindingPermanentIDLabel,
];

export class EmbeddedStore implements Store {
  /** cluster ('' for the control plane) -> group/kind -> table */
  private readonly clusters = new Map<string, Map<string, TypeTable>>();
  /** cluster -> apiVersion -> kind -> table: the same tables, reached from an object's own strings. */
  private readonly tableCache = new Map<string, Map<string, Map<string, TypeTable>>>();
  private readonly handlers = new Set<WatchHandler>();
  /** Recorded events and, at the same index, when: two arrays rather than a wrapper object per event. */
  private readonly rawEvents: CoreEvent[] = [];
  private readonly rawEventTimes: string[] = [];
  private folded?: RecordedEvent[];
  /** owner uid -> dependents, for garbage collection. Key: cluster \0 refKey */
  private readonly dependents = new Map<string, Set<string>>();
  private rv = 0;
  private uidCounter = 0;
  private readonly clock: () => Date;
  private readonly freeze: boolean;
  private readonly indexed: Set<string>;
  private readonly indexedPrefixes: readonly string[];
  private readonly admission?: Admission;
  private readonly uidSeed: string;
  private readonly seedHash: number;
  private readonly memberStatus?: (cluster: string, obj: KObject) => unknown;
  private readonly clone: <T>(v: T) => T;
  private readonly copyOnWrite: boolean;
  private readonly maxEvents: number;
  private eventHead = 0;

  constructor(opts: EmbeddedStoreOptions = {}) {
    this.clock = opts.clock ?? (() => new Date());
    this.freeze = opts.freeze ?? true;
    this.indexed = new Set(opts.indexedLabels ?? DEFAULT_INDEXED);
    this.indexedPrefixes = opts.indexedLabelPrefixes ?? [DependedByLabelKeyPrefix];
    this.admission = opts.admission;
    this.uidSeed = opts.uidSeed ?? 'karmada-lite';
    let h = 0x811c9dc5;
    for (let i = 0; i < this.uidSeed.length; i++) h = Math.imul(h ^ this.uidSeed.charCodeAt(i), 0x01000193) >>> 0;
    this.seedHash = h;
    this.memberStatus = opts.memberStatus;
    this.copyOnWrite = opts.cloneOnWrite !== false;
    this.clone = this.copyOnWrite ? deepClone : shallowCopy;
    this.maxEvents = opts.maxEvents ?? Number.POSITIVE_INFINITY;
  }

  // -------------------------------------------------------------------------------------------
  // Reading

  // The typed boundary: a table holds one kind, so its objects are of the type asked for.
  get<T extends KObject>(type: TypeRef<T>, namespace: string | undefined, name: string, cluster?: string): T | undefined {
    // Names built by concatenation compare slowly against the flat keys (json/strings.ts flat()).
    return this.table(type, cluster, false)?.byNamespace.get(flat(namespace ?? ''))?.get(flat(name))?.obj as T | undefined;
  }

  list<T extends KObject>(type: TypeRef<T>, opts: ListOptions = {}, cluster?: string): T[] {
    const t = this.table(type, cluster, false);
    if (!t) return [];
    const labels = opts.labels ?? {};
    let indexedKey: string | undefined;
    for (const k in labels) {
      if (this.isIndexed(k)) {
        indexedKey = k;
        break;
      }
    }
    let candidates: Iterable<Entry>;
    if (indexedKey !== undefined) {
      if (t.lazyIndex && !t.labelIndex.has(indexedKey)) this.buildIndex(t, indexedKey);
      const hits = t.labelIndex.get(indexedKey)?.get(labels[indexedKey]!);
      if (!hits) return [];
      candidates = hits;
    } else if (opts.namespace !== undefined) {
      candidates = t.byNamespace.get(opts.namespace)?.values() ?? [];
    } else {
      candidates = t.objects;
    }
    const out: T[] = [];
    for (const e of candidates) {
      const o = e.obj;
      if (opts.namespace !== undefined && (o.metadata.namespace ?? '') !== opts.namespace) continue;
      if (!matchesLabels(o, labels)) continue;
      out.push(o as T);
    }
    return out;
  }

  types(cluster?: string): TypeRef[] {
    const c = this.clusters.get(cluster ?? CONTROL_PLANE);
    if (!c) return [];
    const out: TypeRef[] = [];
    for (const t of c.values()) if (t.objects.size) out.push({ apiVersion: t.apiVersion, kind: t.kind });
    return out;
  }

  /** Member clusters that have ever held an object. */
  memberClusters(): string[] {
    return [...this.clusters.keys()].filter((c) => c !== CONTROL_PLANE).sort();
  }

  /** Every object of a cluster, sorted by type, namespace and name: for printing and snapshots. */
  all(cluster?: string): KObject[] {
    const c = this.clusters.get(cluster ?? CONTROL_PLANE);
    if (!c) return [];
    const out: KObject[] = [];
    for (const t of c.values()) for (const e of t.objects) out.push(e.obj);
    return out.sort(
      (a, b) =>
        cmp(a.kind, b.kind) || cmp(a.metadata.namespace ?? '', b.metadata.namespace ?? '') || cmp(a.metadata.name ?? '', b.metadata.name ?? ''),
    );
  }

  // -------------------------------------------------------------------------------------------
  // Writing

  /**
   * `keepUid`: an object loaded from outside (a live object given to `plan`) keeps the uid it came with,
   * since Karmada breaks static-weight ties by the template's uid. A uid is still drawn, so the generated
   * ids of every other object do not depend on which inputs carried one.
   */
  create(input: KObject, cluster?: string, opts?: { keepUid?: boolean }): KObject {
    const t = this.table(input, cluster, true)!;
    let obj = this.clone(input);
    if (!obj.metadata) obj.metadata = {};
    if (!obj.metadata.name) {
      if (obj.metadata.generateName) obj.metadata.name = obj.metadata.generateName + this.suffix();
      else throw new StoreError('Invalid', `${obj.kind}: metadata.name is required`);
    }
    const ns = flat(obj.metadata.namespace ?? '');
    const name = flat(obj.metadata.name);
    let byName = t.byNamespace.get(ns);
    if (byName?.has(name)) {
      throw new StoreError('AlreadyExists', `${describeRef({ ...obj, name: obj.metadata.name, namespace: obj.metadata.namespace })} already exists${where(cluster)}`);
    }
    if (!cluster && this.admission) obj = this.admission('create', obj, undefined);
    const generated = this.newUid();
    const given = input.metadata?.uid;
    obj.metadata.uid = opts?.keepUid && typeof given === 'string' && given !== '' ? given : generated;
    obj.metadata.resourceVersion = String(++this.rv);
    obj.metadata.generation = 1;
    obj.metadata.creationTimestamp = rfc3339(this.clock());
    delete obj.metadata.deletionTimestamp;
    if (cluster && this.memberStatus) {
      const st = this.memberStatus(cluster, obj);
      if (st !== undefined) obj.status = st;
    }
    const entry: Entry = { obj };
    t.objects.add(entry);
    if (!byName) t.byNamespace.set(ns, (byName = new Map()));
    byName.set(name, entry);
    this.put(t, entry, obj, undefined, cluster);
    this.emit({ type: 'ADDED', object: obj, cluster });
    return obj;
  }

  update(input: KObject, cluster?: string): KObject {
    return this.replace(input, cluster, false);
  }

  updateStatus(input: KObject, cluster?: string): KObject {
    return this.replace(input, cluster, true);
  }

  delete(ref: ObjectRef, cluster?: string): void {
    const t = this.table(ref, cluster, false);
    const entry = t?.byNamespace.get(ref.namespace ?? '')?.get(ref.name);
    const old = entry?.obj;
    if (!t || !entry || !old) throw new StoreError('NotFound', `${describeRef(ref)} not found${where(cluster)}`);
    if (ref.uid && old.metadata.uid !== ref.uid) throw new StoreError('Conflict', `${describeRef(ref)}: uid precondition failed${where(cluster)}`);
    if (old.metadata.finalizers?.length) {
      if (old.metadata.deletionTimestamp) return;
      const obj = deepClone(old);
      obj.metadata.deletionTimestamp = rfc3339(this.clock());
      obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
      obj.metadata.resourceVersion = String(++this.rv);
      this.put(t, entry, obj, old, cluster);
      this.emit({ type: 'MODIFIED', object: obj, old, cluster });
      return;
    }
    this.remove(t, entry, old, cluster);
  }

  watch(handler: WatchHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  recordEvent(ev: CoreEvent): void {
    // Recording is on every reconcile's path: append only; repeats are folded when events are read.
    this.rawEvents.push(ev);
    this.rawEventTimes.push(rfc3339(this.clock()));
    this.folded = undefined;
    if (this.rawEvents.length - this.eventHead > this.maxEvents) {
      // Dropped now, not at the next splice: the event is garbage from here on.
      (this.rawEvents as unknown[])[this.eventHead] = undefined;
      this.eventHead++;
      if (this.eventHead > 4096 && this.eventHead * 2 > this.rawEvents.length) {
        this.rawEvents.splice(0, this.eventHead);
        this.rawEventTimes.splice(0, this.eventHead);
        this.eventHead = 0;
      }
    }
  }

  /** Events, oldest first, with repeats (same object, type, reason, message, source) folded into a count. */
  events(): readonly RecordedEvent[] {
    if (this.folded) return this.folded;
    const out: RecordedEvent[] = [];
    const index = new Map<string, RecordedEvent>();
    for (let i = this.eventHead; i < this.rawEvents.length; i++) {
      const ev = this.rawEvents[i]!;
      const at = this.rawEventTimes[i]!;
      const r = ev.involvedObject;
      const key = `${r.apiVersion}\0${r.kind}\0${r.namespace ?? ''}\0${r.name}\0${ev.type}\0${ev.reason}\0${ev.message}\0${ev.source}`;
      const seen = index.get(key);
      if (seen) {
        seen.count++;
        seen.lastTimestamp = at;
        continue;
      }
      const rec: RecordedEvent = { ...ev, count: 1, firstTimestamp: at, lastTimestamp: at };
      index.set(key, rec);
      out.push(rec);
    }
    this.folded = out;
    return out;
  }

  /** Forgets recorded events (scenarios check the events of one step at a time). */
  clearEvents(): void {
    this.rawEvents.length = 0;
    this.rawEventTimes.length = 0;
    this.eventHead = 0;
    this.folded = undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Internals

  private replace(input: KObject, cluster: string | undefined, statusOnly: boolean): KObject {
    const t = this.table(input, cluster, false);
    const name = input.metadata?.name ?? '';
    const entry = t?.byNamespace.get(input.metadata?.namespace ?? '')?.get(name);
    const old = entry?.obj;
    if (!t || !entry || !old) throw new StoreError('NotFound', `${describeRef({ ...input, name, namespace: input.metadata?.namespace })} not found${where(cluster)}`);
    const rv = input.metadata.resourceVersion;
    if (rv !== undefined && rv !== old.metadata.resourceVersion) {
      throw new StoreError(
        'Conflict',
        `Operation cannot be fulfilled on ${describeRef({ ...input, name, namespace: input.metadata.namespace })}${where(cluster)}: the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    let obj: KObject;
    if (statusOnly) {
      if (deepEqual(input.status, old.status)) return old;
      // The status differs, so this is a write: only metadata is copied, for the new resourceVersion.
      obj = { ...old, metadata: { ...old.metadata } };
      if (input.status === undefined) delete obj.status;
      // Without copy-on-write the writer hands the status over (it never touches it again): keep it as it is.
      else obj.status = this.copyOnWrite ? deepClone(input.status) : input.status;
    } else {
      const copy = this.clone(input);
      obj = copy;
      if (old.status === undefined) delete obj.status;
      else obj.status = old.status;
      if (!cluster && this.admission) obj = this.admission('update', obj, old);
      // Both clone modes give the copy its own metadata; anything else (admission's result) is copied
      // once here, then the server-owned fields are set on it.
      if (obj !== copy || !obj.metadata || obj.metadata === input.metadata) obj.metadata = { ...obj.metadata };
      // Fields the server owns.
      const meta = obj.metadata;
      meta.uid = old.metadata.uid;
      meta.creationTimestamp = old.metadata.creationTimestamp;
      meta.generation = old.metadata.generation;
      if (old.metadata.deletionTimestamp) meta.deletionTimestamp = old.metadata.deletionTimestamp;
      else delete meta.deletionTimestamp;
      const specSame = specEqual(old, obj);
      if (!specSame || (annotationsMoveGeneration(obj) && !deepEqual(old.metadata.annotations ?? {}, meta.annotations ?? {}))) {
        meta.generation = (old.metadata.generation ?? 0) + 1;
      }
      if (cluster && this.memberStatus) {
        const st = this.memberStatus(cluster, obj);
        if (st !== undefined) obj.status = st;
      }
      meta.resourceVersion = old.metadata.resourceVersion;
      // Unchanged objects are not written: no new resourceVersion, no event (what makes "settled" reachable).
      if (specSame && deepEqual(meta, old.metadata) && deepEqual(obj.status, old.status)) return old;
    }
    if (obj.metadata.deletionTimestamp && !obj.metadata.finalizers?.length) {
      this.remove(t, entry, old, cluster);
      return obj;
    }
    obj.metadata.resourceVersion = String(++this.rv);
    this.put(t, entry, obj, old, cluster);
    this.emit({ type: 'MODIFIED', object: obj, old, cluster });
    return obj;
  }

  /** Stores obj in its (already listed) entry and brings the label and owner indexes up to date. */
  private put(t: TypeTable, entry: Entry, obj: KObject, old: KObject | undefined, cluster: string | undefined): void {
    if (this.freeze) deepFreeze(obj);
    entry.obj = obj;
    // Most writes (status above all) keep labels and owners: their index entries stay as they are.
    const sameLabels = !!old && (old.metadata.labels === obj.metadata.labels || deepEqual(old.metadata.labels, obj.metadata.labels));
    const sameOwners = !!old && (old.metadata.ownerReferences === obj.metadata.ownerReferences || deepEqual(old.metadata.ownerReferences, obj.metadata.ownerReferences));
    if (old) this.unindex(t, entry, old, cluster, !sameLabels, !sameOwners);
    const labels = sameLabels ? undefined : obj.metadata.labels;
    if (labels) {
      for (const k in labels) {
        if (!this.isIndexed(k)) continue;
        if (t.lazyIndex && !t.labelIndex.has(k)) continue;
        let byValue = t.labelIndex.get(k);
        if (!byValue) t.labelIndex.set(k, (byValue = new Map()));
        let hits = byValue.get(labels[k]!);
        if (!hits) byValue.set(labels[k]!, (hits = new Set()));
        hits.add(entry);
      }
    }
    for (const owner of sameOwners ? [] : (obj.metadata.ownerReferences ?? [])) {
      const uid = owner.uid;
      if (typeof uid !== 'string') continue;
      const gk = gcKey(cluster, uid);
      let set = this.dependents.get(gk);
      if (!set) this.dependents.set(gk, (set = new Set()));
      set.add(`${cluster ?? CONTROL_PLANE}\0${refKey({ apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name! })}`);
    }
  }

  private unindex(t: TypeTable, entry: Entry, old: KObject, cluster: string | undefined, labelsToo = true, ownersToo = true): void {
    if (!labelsToo && !ownersToo) return;
    const labels = labelsToo ? old.metadata.labels : undefined;
    if (labels) for (const k in labels) t.labelIndex.get(k)?.get(labels[k]!)?.delete(entry);
    for (const owner of ownersToo ? (old.metadata.ownerReferences ?? []) : []) {
      if (typeof owner.uid === 'string') {
        this.dependents
          .get(gcKey(cluster, owner.uid))
          ?.delete(`${cluster ?? CONTROL_PLANE}\0${refKey({ apiVersion: old.apiVersion, kind: old.kind, namespace: old.metadata.namespace, name: old.metadata.name! })}`);
      }
    }
  }

  private remove(t: TypeTable, entry: Entry, old: KObject, cluster: string | undefined): void {
    this.unindex(t, entry, old, cluster);
    t.byNamespace.get(old.metadata.namespace ?? '')?.delete(old.metadata.name!);
    t.objects.delete(entry);
    this.emit({ type: 'DELETED', object: old, old, cluster });
    // Background cascading deletion: dependents whose owner is gone are deleted in turn.
    const uid = old.metadata.uid;
    if (!uid) return;
    const deps = this.dependents.get(gcKey(cluster, uid));
    if (!deps) return;
    this.dependents.delete(gcKey(cluster, uid));
    for (const d of [...deps]) {
      const [, rk] = d.split('\0') as [string, string];
      const [apiVersion, kind, namespace, name] = rk.split('|') as [string, string, string, string];
      const dep = this.get({ apiVersion, kind }, namespace || undefined, name, cluster);
      if (!dep || !dep.metadata.ownerReferences?.some((o) => o.uid === uid)) continue;
      this.delete({ apiVersion, kind, namespace: namespace || undefined, name }, cluster);
    }
  }

  /** Indexes one label key of a lazily indexed table, from its objects; put() keeps it up to date from then on. */
  private buildIndex(t: TypeTable, labelKey: string): void {
    const byValue = new Map<string, Set<Entry>>();
    t.labelIndex.set(labelKey, byValue);
    for (const e of t.objects) {
      const labels = e.obj.metadata.labels;
      if (!labels || !(labelKey in labels)) continue;
      let hits = byValue.get(labels[labelKey]!);
      if (!hits) byValue.set(labels[labelKey]!, (hits = new Set()));
      hits.add(e);
    }
  }

  private isIndexed(labelKey: string): boolean {
    if (this.indexed.has(labelKey)) return true;
    for (const p of this.indexedPrefixes) if (labelKey.startsWith(p)) return true;
    return false;
  }

  private emit(ev: WatchEvent): void {
    for (const h of this.handlers) h(ev);
  }

  private table(t: TypeRef, cluster: string | undefined, create: boolean): TypeTable | undefined {
    // Every get, list and write starts here: three lookups by strings the caller already has.
    const hit = this.tableCache.get(cluster ?? CONTROL_PLANE)?.get(t.apiVersion)?.get(t.kind);
    if (hit) return hit;
    const ck = cluster ?? CONTROL_PLANE;
    let c = this.clusters.get(ck);
    if (!c) {
      if (!create) return undefined;
      this.clusters.set(ck, (c = new Map()));
    }
    const tk = typeKey(t);
    let table = c.get(tk);
    if (!table) {
      if (!create) return undefined;
      table = { apiVersion: t.apiVersion, kind: t.kind, objects: new Set(), byNamespace: new Map(), labelIndex: new Map(), lazyIndex: ck !== CONTROL_PLANE };
      c.set(tk, table);
    }
    // Only tables that exist are cached: a miss stays a miss until a create makes the table.
    let byVersion = this.tableCache.get(ck);
    if (!byVersion) this.tableCache.set(ck, (byVersion = new Map()));
    let byKind = byVersion.get(t.apiVersion);
    if (!byKind) byVersion.set(t.apiVersion, (byKind = new Map()));
    byKind.set(t.kind, table);
    return table;
  }

  private newUid(): string {
    const n = ++this.uidCounter;
    // Deterministic but well spread: a seeded hash mixed with the counter (splitmix-style).
    const mix = (x: number) => {
      x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
      x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
      return (x ^ (x >>> 16)) >>> 0;
    };
    return uuidShaped(mix(this.seedHash ^ n), mix(this.seedHash + n * 0x9e3779b9), mix(n ^ 0x85ebca6b), mix(this.seedHash ^ (n * 0xc2b2ae35)), 'a');
  }

  /** Deterministic uuid-shaped ids for the admission step (permanent ids). */
  nextId(): string {
    return this.newUid();
  }

  private suffix(): string {
    return this.newUid().slice(0, 5);
  }
}

function shallowCopy<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  const o = { ...(v as Record<string, unknown>) } as Record<string, unknown>;
  if (o.metadata && typeof o.metadata === 'object') o.metadata = { ...(o.metadata as Record<string, unknown>) };
  return o as T;
}

function gcKey(cluster: string | undefined, uid: string): string {
  return `${cluster ?? CONTROL_PLANE}\0${uid}`;
}

function where(cluster: string | undefined): string {
  return cluster ? ` in member cluster ${cluster}` : '';
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function matchesLabels(o: KObject, labels: Record<string, string>): boolean {
  for (const k in labels) if (o.metadata.labels?.[k] !== labels[k]) return false;
  return true;
}

/**
 * Kinds whose generation an annotation change moves too, as the API server's update strategy for
 * Deployments does (their annotations are copied to their ReplicaSets). A missing map and an empty
 * one are the same there.
 */
function annotationsMoveGeneration(o: KObject): boolean {
  return o.kind === 'Deployment' && o.apiVersion === 'apps/v1';
}

/** Everything but metadata and status: what moves metadata.generation. */
function specEqual(a: KObject, b: KObject): boolean {
  // Every key of either side, without building the union (this runs on every update).
  for (const k in a) {
    if (k === 'metadata' || k === 'status') continue;
    if (!deepEqual(a[k], b[k])) return false;
  }
  for (const k in b) {
    if (k === 'metadata' || k === 'status' || Object.prototype.hasOwnProperty.call(a, k)) continue;
    if (!deepEqual(a[k], b[k])) return false;
  }
  return true;
}
