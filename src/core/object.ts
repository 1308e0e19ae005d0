/**
 * Kubernetes-object helpers the reconcilers share: identity of objects, labels, annotations, finalizers
 * and conditions. Objects are JSON values (generic JSON helpers live in src/json/); nothing here knows
 * about a store.
 */
import type { Condition } from '../api/condition.js';
import type { ObjectMeta } from '../api/generated/types.js';
import { flat, interner } from '../json/strings.js';

/** Any Kubernetes-shaped object. Reconcilers treat what they are given as read-only. */
export interface KObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: any;
  status?: any;
  [field: string]: unknown;
}

/** What identifies an object in one cluster (control plane or member). */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
}

/** Never present at run time: the key of TypeRef's phantom object type (a symbol, so no KObject field can fill it). */
declare const objectType: unique symbol;

/**
 * A kind's apiVersion and kind, and (a phantom, types only) the shape of its objects: the one place a
 * read object gets its type. `reader.get(WORK, ...)` is a `Work`, narrowed once by the store that returns
 * it (it keeps objects by kind), so reconcilers need no cast. A plain `{ apiVersion, kind }` is a
 * `TypeRef<KObject>`: any kind, as templates are.
 */
export interface TypeRef<T extends KObject = KObject> {
  apiVersion: string;
  kind: string;
  readonly [objectType]?: T;
}

export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

export function versionOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? apiVersion : apiVersion.slice(i + 1);
}

/**
 * Storage identity of a type: group and kind, not version, since every served version of a kind is a
 * view of the same objects (autoscaling/v1 and v2 HorizontalPodAutoscaler are one resource).
 */
export function typeKey(t: TypeRef): string {
  return `${groupOf(t.apiVersion)}/${t.kind}`;
}

export function refOf(obj: KObject): ObjectRef {
  const r: ObjectRef = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? '' };
  if (obj.metadata.namespace) r.namespace = obj.metadata.namespace;
  if (obj.metadata.uid) r.uid = obj.metadata.uid;
  return r;
}

/** A string key for queues: `apiVersion|kind|namespace|name`. */
export function refKey(r: ObjectRef): string {
  return flat(`${r.apiVersion}|${r.kind}|${r.namespace ?? ''}|${r.name}`);
}

/**
 * `f` remembering its last answer: asked about the same object again, it answers without calling `f`.
 * For what several controllers derive from one watch event in a row (queue keys), and what a binding's
 * clusters derive from one template in a row (its Work name).
 */
export function lastOf<T>(f: (o: KObject) => T): (o: KObject) => T {
  let last: KObject | undefined;
  let value!: T;
  return (o) => {
    if (o !== last) {
      value = f(o);
      last = o;
    }
    return value;
  };
}

/**
 * The ref a queue key names. Every reconcile starts here, and then looks its object up by these
 * strings. apiVersion, kind and namespace come from the few strings the store's maps have already
 * hashed; the name is a slice of the key. (A map from every key to its ref, the earlier way, cost a
 * lookup in a map of every object's key per reconcile: slower at fleet scale than parsing, and memory.)
 */
export function parseRefKey(key: string): ObjectRef {
  const a = key.indexOf('|');
  const b = key.indexOf('|', a + 1);
  const c = key.indexOf('|', b + 1);
  const r: ObjectRef = { apiVersion: refPart(key.slice(0, a)), kind: refPart(key.slice(a + 1, b)), name: key.slice(c + 1) };
  if (c > b + 1) r.namespace = refPart(key.slice(b + 1, c));
  return r;
}

/** apiVersions, kinds and namespaces: few, so their own small map (intern's holds every Work name's worth of strings). */
const refPart = interner(10_000);

/** `Kind ns/name` for messages. */
export function describeRef(r: ObjectRef): string {
  return r.namespace ? `${r.kind} ${r.namespace}/${r.name}` : `${r.kind} ${r.name}`;
}

export function nsName(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * A copy to change metadata on: metadata is copied, everything else shared. Label, annotation and
 * finalizer helpers replace those maps rather than mutate them, so shared values stay untouched.
 */
export function withMeta<T extends { metadata: ObjectMeta }>(o: T): T {
  return { ...o, metadata: { ...o.metadata } };
}

/** A copy to change metadata and top-level spec fields on. */
export function withMetaAndSpec(o: KObject): KObject {
  return { ...o, metadata: { ...o.metadata }, spec: { ...(o.spec ?? {}) } };
}

/**
 * withMetaAndSpec for an object of a generated kind: the copy keeps its type. (One function once every
 * caller of withMetaAndSpec writes the generated shapes back: a generic withMetaAndSpec would check them.)
 */
export function withMetaAndSpecOf<T extends { metadata: ObjectMeta; spec: object }>(o: T): T {
  return { ...o, metadata: { ...o.metadata }, spec: { ...o.spec } };
}

// ---------------------------------------------------------------------------------------------
// Labels and annotations

export function labelsOf(obj: { metadata?: ObjectMeta }): Record<string, string> {
  return obj.metadata?.labels ?? {};
}

export function annotationsOf(obj: { metadata?: ObjectMeta }): Record<string, string> {
  return obj.metadata?.annotations ?? {};
}

export function getLabel(obj: { metadata?: ObjectMeta }, key: string): string | undefined {
  return obj.metadata?.labels?.[key];
}

export function getAnnotation(obj: { metadata?: ObjectMeta }, key: string): string | undefined {
  return obj.metadata?.annotations?.[key];
}

/** Sets or (value undefined) removes a label on a mutable object, dropping the map when it empties. */
export function setLabel(obj: { metadata: ObjectMeta }, key: string, value: string | undefined): void {
  obj.metadata.labels = setKey(obj.metadata.labels, key, value);
  if (obj.metadata.labels === undefined) delete obj.metadata.labels;
}

export function setAnnotation(obj: { metadata: ObjectMeta }, key: string, value: string | undefined): void {
  obj.metadata.annotations = setKey(obj.metadata.annotations, key, value);
  if (obj.metadata.annotations === undefined) delete obj.metadata.annotations;
}

function setKey(map: Record<string, string> | undefined, key: string, value: string | undefined): Record<string, string> | undefined {
  if (value === undefined) {
    if (!map || !(key in map)) return map;
    const { [key]: _, ...rest } = map;
    return Object.keys(rest).length ? rest : undefined;
  }
  return { ...(map ?? {}), [key]: value };
}

export function hasFinalizer(obj: { metadata: ObjectMeta }, f: string): boolean {
  return obj.metadata.finalizers?.includes(f) ?? false;
}

export function addFinalizer(obj: { metadata: ObjectMeta }, f: string): void {
  if (!hasFinalizer(obj, f)) obj.metadata.finalizers = [...(obj.metadata.finalizers ?? []), f];
}

export function removeFinalizer(obj: { metadata: ObjectMeta }, f: string): void {
  const rest = (obj.metadata.finalizers ?? []).filter((x) => x !== f);
  if (rest.length) obj.metadata.finalizers = rest;
  else delete obj.metadata.finalizers;
}

export function isTerminating(obj: { metadata?: ObjectMeta } | undefined): boolean {
  return !!obj?.metadata?.deletionTimestamp;
}

// ---------------------------------------------------------------------------------------------
// Conditions

export type { Condition };

export function findCondition(conds: readonly Condition[] | undefined | null, type: string): Condition | undefined {
  // A plain loop: called several times per Work write (watch predicates, cluster readiness), where a
  // find() callback showed in profiles.
  if (!conds) return undefined;
  if (!Array.isArray(conds)) return conds.find((c) => c.type === type);
  for (let i = 0; i < conds.length; i++) if (conds[i]!.type === type) return conds[i];
  return undefined;
}

/**
 * Sets a condition the way apimachinery's SetStatusCondition does: lastTransitionTime moves only when
 * the status flips; reason and message are replaced. Returns a new list.
 */
export function setCondition(
  conds: readonly Condition[] | undefined | null,
  c: Omit<Condition, 'lastTransitionTime'>,
  now: Date,
): Condition[] {
  const list = [...(conds ?? [])];
  const i = list.findIndex((x) => x.type === c.type);
  if (i < 0) {
    list.push({ ...c, lastTransitionTime: rfc3339(now) });
    return list;
  }
  const old = list[i]!;
  // Named fields rather than a second spread: this runs for every Work and binding status write.
  const next: Condition = { ...old, type: c.type, status: c.status, reason: c.reason, message: c.message, lastTransitionTime: old.status === c.status ? old.lastTransitionTime : rfc3339(now) };
  if (c.observedGeneration !== undefined) next.observedGeneration = c.observedGeneration;
  list[i] = next;
  return list;
}

/** RFC 3339 with second precision, as Kubernetes serialises metav1.Time. */
/**
 * A clock reading kept to the millisecond (like a MicroTime): cut to the second, as metav1.Time is, a persisted
 * clock would let failover fire, or a rollout stage pass, up to a second before its seconds have passed.
 */
export function clockStamp(d: Date): string {
  const iso = d.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

export function rfc3339(d: Date): string {
  const sec = Math.floor(d.getTime() / 1000);
  // Reconcilers stamp many objects within the same second: format each second once.
  if (sec !== lastSecond) {
    lastSecond = sec;
    lastFormatted = new Date(sec * 1000).toISOString().replace('.000Z', 'Z');
  }
  return lastFormatted;
}
let lastSecond = Number.NaN;
let lastFormatted = '';

export function parseTime(s: string | undefined | null): number | undefined {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
}

