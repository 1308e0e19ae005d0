/**
 * FederatedResourceQuota (policy.karmada.io/v1alpha1), Karmada's pkg/controllers/federatedresourcequota and
 * the quota arithmetic of its ResourceBinding webhook, pure:
 *
 * - sync: each `spec.staticAssignments` entry becomes a ResourceQuota (the quota's namespace and name,
 *   `spec.hard` as assigned) in a Work in `karmada-es-<cluster>`, labelled with the quota's namespace and
 *   name; Works of clusters no longer assigned, or of a quota that is gone, are deleted.
 * - status: `status.aggregatedStatus` from those Works' collected ResourceQuota status (Applied ones only,
 *   sorted by cluster); with FederatedQuotaEnforcement off also `overall` (the spec's) and `overallUsed` (the
 *   members' `used` summed).
 * - enforcement (FederatedQuotaEnforcement on): `overall` and `overallUsed` from the namespace's
 *   ResourceBindings (requests × scheduled replicas), on a quota's creation or a change of its `overall`, a
 *   binding's deletion, and every `--federated-resource-quota-sync-period` (5 minutes).
 * - the charge (`chargeBinding`): what Karmada's `/validate-resourcebinding` decides when a binding's
 *   scheduled usage changes. Karmada's scheduler meets it as the webhook's refusal of its spec update; here
 *   the scheduler asks before it writes (scheduling.ts). karmada-lite's ResourceBinding webhook does not ask
 *   it (yet): a binding written by anything but the scheduler is not charged until the periodic recount.
 */
import {
  BindingReasonQuotaExceeded,
  BindingScheduled,
  EventReasonAggregateStatusSucceed,
  EventReasonCollectOverallStatusSucceed,
  EventReasonScheduleBindingFailed,
  EventReasonSyncWorkFailed,
  EventReasonSyncWorkSucceed,
  ExecutionControllerFinalizer,
  ExecutionSpacePrefix,
  FederatedResourceQuotaNameLabel,
  FederatedResourceQuotaNamespaceLabel,
  generateExecutionSpaceName,
  generateWorkName,
  ManagedLabel,
  ManagedLabelValue,
  ResourceBindingValidatingWebhookName,
  ResourceTemplateUIDAnnotation,
  SchedulerName,
  WorkApplied,
  WorkGroupVersion,
  WorkNameAnnotation,
  WorkNamespaceAnnotation,
  WorkPermanentIDLabel,
} from '../api/constants.js';
import type { FederatedResourceQuota, ResourceList, Work } from '../api/generated/types.js';
import { isHugePageResourceName, isScalarResourceName } from '../api/resource-names.js';
import { deepEqual, isObject } from '../json/value.js';
import { Quantity, tryParseQuantity } from '../quantity/quantity.js';
import { setManagedKeys, workPermanentId } from './binding.js';
import { CLUSTER, FRQ, is, RB, WORK, type Binding } from './kinds.js';
import { findCondition, getLabel, isTerminating, parseRefKey, refKey, refOf, setCondition, withMeta, type KObject } from './object.js';
import { emptyResult, isChangeOf, type ControllerSpec, type CoreEvent, type ObjectReader, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';

/** Controller names (--controllers): Karmada's federatedResourceQuotaSync, -Status and -Enforcement. */
export const FRQ_SYNC = 'federated-resource-quota-sync';
export const FRQ_STATUS = 'federated-resource-quota-status';
export const FRQ_ENFORCEMENT = 'federated-resource-quota-enforcement';

/** Karmada's `--federated-resource-quota-sync-period` default: the enforcement controller's full recount. */
export const DefaultFederatedResourceQuotaSyncPeriodSeconds = 300;

const RESOURCE_QUOTA_KIND = 'ResourceQuota';

export const frqKey = (namespace: string, name: string): string => refKey({ apiVersion: FRQ.apiVersion, kind: FRQ.kind, namespace, name });

// ---------------------------------------------------------------------------------------------
// Resource lists

/** A ResourceList read as quantities; an entry that is not a quantity (the schema refuses it) is left out. */
export function quantitiesOf(list: ResourceList | undefined): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  for (const [name, raw] of Object.entries(list ?? {})) {
    const q = tryParseQuantity(String(raw));
    if (typeof q !== 'string') out.set(name, q);
  }
  return out;
}

/** Quantities as a ResourceList, each in Go's canonical form, names sorted (Go's JSON sorts map keys). */
export function resourceListOf(q: ReadonlyMap<string, Quantity>): ResourceList {
  return Object.fromEntries([...q.keys()].sort().map((k) => [k, q.get(k)!.toString()]));
}

/** `Quantity.Mul(n)`: an int64 amount that would overflow becomes a decimal, as in Go. */
function times(q: Quantity, n: number): Quantity {
  const unscaled = q.unscaled * BigInt(n);
  const fits = unscaled <= 9223372036854775807n && unscaled >= -9223372036854775808n;
  return new Quantity(unscaled, q.exp, q.format, q.dec || !fits);
}

function addInto(into: Map<string, Quantity>, name: string, q: Quantity): void {
  const had = into.get(name);
  into.set(name, had ? had.add(q) : q);
}

/**
 * Karmada's CalculateResourceUsage: with components, each component's requests × its replicas, summed,
 * × the number of scheduled clusters; otherwise the replica requests × the replicas scheduled in all.
 */
export function bindingUsage(b: Binding): Map<string, Quantity> {
  const usage = new Map<string, Quantity>();
  const clusters = b.spec?.clusters ?? [];
  const components = b.spec?.components ?? [];
  if (components.length > 0) {
    if (clusters.length === 0) return usage;
    const perSet = new Map<string, Quantity>();
    for (const c of components) {
      const replicas = c.replicas ?? 0;
      if (replicas === 0) continue;
      for (const [name, q] of quantitiesOf(c.replicaRequirements?.resourceRequest)) {
        if (!q.isZero()) addInto(perSet, name, times(q, replicas));
      }
    }
    for (const [name, q] of perSet) if (!q.isZero()) usage.set(name, times(q, clusters.length));
    return usage;
  }
  const requests = quantitiesOf(b.spec?.replicaRequirements?.resourceRequest);
  const replicas = clusters.reduce((n, c) => n + (c.replicas ?? 0), 0);
  if (requests.size === 0 || replicas === 0) return usage;
  for (const [name, q] of requests) if (!q.isZero()) usage.set(name, times(q, replicas));
  return usage;
}

// Karmada's util.Resource, through which the webhook adds a binding's delta to overallUsed: cpu in
// millicores, memory, pods, ephemeral-storage and scalar resources as whole units, other names dropped,
// and only positive totals kept.
const NATIVE_COUNTED = new Set(['cpu', 'memory', 'pods', 'ephemeral-storage']);
/** `util.NewResource(a).Add(b).ResourceList()`. */
function addAsResource(a: ReadonlyMap<string, Quantity>, b: ReadonlyMap<string, Quantity>): Map<string, Quantity> {
  const sums = new Map<string, bigint>();
  for (const list of [a, b]) {
    for (const [name, q] of list) {
      if (!NATIVE_COUNTED.has(name) && !isScalarResourceName(name)) continue;
      sums.set(name, (sums.get(name) ?? 0n) + (name === 'cpu' ? q.milliValueBig() : q.valueBig()));
    }
  }
  const out = new Map<string, Quantity>();
  for (const [name, v] of sums) {
    if (v <= 0n) continue;
    if (name === 'cpu') out.set(name, Quantity.fromMilli(v, 'DecimalSI'));
    else if (name === 'memory' || name === 'ephemeral-storage' || isHugePageResourceName(name)) out.set(name, Quantity.fromInt(v, 'BinarySI'));
    else out.set(name, Quantity.fromInt(v, 'DecimalSI'));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The charge of a binding (Karmada's /validate-resourcebinding with FederatedQuotaEnforcement)

export interface QuotaCharge {
  /** The first quota the change would exceed, in Karmada's words; the binding is refused. */
  denied?: { quota: FederatedResourceQuota; message: string };
  /** The quotas whose overallUsed the change moves: their status to write when the binding is admitted. */
  updates: FederatedResourceQuota[];
}

const replicasOf = (b: Binding | undefined) => (b?.spec?.clusters ?? []).reduce((n, c) => n + (c.replicas ?? 0), 0);

function sameQuantities(a: ResourceList | undefined, b: ResourceList | undefined): boolean {
  const qa = quantitiesOf(a);
  const qb = quantitiesOf(b);
  if (qa.size !== qb.size) return false;
  for (const [k, v] of qa) {
    const w = qb.get(k);
    if (!w || v.cmp(w) !== 0) return false;
  }
  return true;
}

/** Karmada's isQuotaRelevantFieldChanged: requests, scheduled replicas, and with components the clusters or components. */
export function quotaRelevantChange(old: Binding | undefined, next: Binding): boolean {
  if (!old) return true;
  if (!sameQuantities(old.spec?.replicaRequirements?.resourceRequest, next.spec?.replicaRequirements?.resourceRequest)) return true;
  if (replicasOf(old) !== replicasOf(next)) return true;
  const oc = old.spec?.components ?? [];
  const nc = next.spec?.components ?? [];
  if (oc.length || nc.length) {
    const names = new Set((old.spec?.clusters ?? []).map((c) => c.name));
    const clustersChanged = (old.spec?.clusters ?? []).length !== (next.spec?.clusters ?? []).length || (next.spec?.clusters ?? []).some((c) => !names.has(c.name));
    if (clustersChanged) return true;
  }
  if (oc.length !== nc.length) return true;
  return oc.some((o, i) => {
    const n = nc[i]!;
    if (o.replicas !== n.replicas) return true;
    if (!o.replicaRequirements !== !n.replicaRequirements) return true;
    return !!o.replicaRequirements && !sameQuantities(o.replicaRequirements.resourceRequest, n.replicaRequirements?.resourceRequest);
  });
}

/** What the ResourceBinding webhook says of `next` (old: the stored binding, undefined on create). */
export function chargeBinding(quotas: readonly FederatedResourceQuota[], old: Binding | undefined, next: Binding): QuotaCharge {
  const none: QuotaCharge = { updates: [] };
  if (!old && (next.spec?.clusters ?? []).length === 0) return none;
  if (old && !quotaRelevantChange(old, next)) return none;
  const after = bindingUsage(next);
  const before = old ? bindingUsage(old) : new Map<string, Quantity>();
  const delta = new Map<string, Quantity>();
  for (const name of new Set([...after.keys(), ...before.keys()])) {
    const d = (after.get(name) ?? Quantity.zero()).sub(before.get(name) ?? Quantity.zero());
    if (!d.isZero()) delta.set(name, d);
  }
  if (delta.size === 0) return none;
  const updates: FederatedResourceQuota[] = [];
  // The apiserver lists them by name; the first quota exceeded is the one the message names.
  for (const quota of [...quotas].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))) {
    const overall = overallOf(quota.spec?.overall);
    if (!overall) continue;
    const mine = new Map([...delta].filter(([name]) => overall.has(name)));
    if ([...mine.values()].every((q) => q.isZero())) continue;
    const potential = addAsResource(quantitiesOf(quota.status?.overallUsed), mine);
    for (const name of [...potential.keys()].sort()) {
      const requested = potential.get(name)!;
      const limit = overall.get(name);
      if (requested.isZero() || !limit) continue;
      if (requested.cmp(limit) > 0) {
        const message = `FederatedResourceQuota(${quota.metadata.namespace}/${quota.metadata.name}) exceeded for resource ${name}: requested sum ${requested.toString()}, limit ${limit.toString()}.`;
        return { denied: { quota, message }, updates: [] };
      }
    }
    updates.push({ ...quota, status: { ...(quota.status ?? {}), overallUsed: resourceListOf(potential) } });
  }
  return { updates };
}

function overallOf(list: ResourceList | undefined): Map<string, Quantity> | undefined {
  return list === undefined || list === null ? undefined : quantitiesOf(list);
}

/** The quotas a namespaced binding is charged against (a ClusterResourceBinding has none). */
export function quotasFor(reader: ObjectReader, b: Binding): FederatedResourceQuota[] {
  const ns = b.metadata.namespace;
  return ns ? reader.list(FRQ, { namespace: ns }) : [];
}

// ---------------------------------------------------------------------------------------------
// Sync controller

/** The cluster's hard limits, or undefined when the quota assigns it nothing (Karmada's extractClusterHardResourceList). */
export function assignedHard(quota: FederatedResourceQuota, cluster: string): ResourceList | undefined {
  return (quota.spec?.staticAssignments ?? []).find((a) => a.clusterName === cluster)?.hard;
}

export const quotaWorkName = (namespace: string, name: string): string => generateWorkName(RESOURCE_QUOTA_KIND, name, namespace);

const quotaLabels = (namespace: string, name: string) => ({ [FederatedResourceQuotaNamespaceLabel]: namespace, [FederatedResourceQuotaNameLabel]: name });

/** The Works a quota made, wherever they are. */
export function worksOfQuota(reader: ObjectReader, namespace: string, name: string): Work[] {
  return reader.list(WORK, { labels: quotaLabels(namespace, name) });
}

/** The Work that carries the quota's ResourceQuota to `cluster`, or undefined when `existing` already is it. */
function quotaWork(quota: FederatedResourceQuota, cluster: string, hard: ResourceList, existing: Work | undefined): Work | undefined {
  const namespace = quota.metadata.namespace!;
  const name = quota.metadata.name!;
  const workName = quotaWorkName(namespace, name);
  const workNs = generateExecutionSpaceName(cluster);
  const workId = (existing && getLabel(existing, WorkPermanentIDLabel)) || workPermanentId(quota.metadata.uid ?? frqKey(namespace, name), cluster);
  // CreateOrUpdateWork's decoration; the ResourceQuota is built afresh, so it has no uid of its own.
  const manifest: KObject = {
    apiVersion: 'v1',
    kind: RESOURCE_QUOTA_KIND,
    metadata: {
      name,
      namespace,
      labels: { [ManagedLabel]: ManagedLabelValue, [WorkPermanentIDLabel]: workId },
      annotations: { [ResourceTemplateUIDAnnotation]: '', [WorkNameAnnotation]: workName, [WorkNamespaceAnnotation]: workNs },
    },
    spec: { hard },
  };
  setManagedKeys(manifest);
  const spec = { workload: { manifests: [manifest] } };
  const labels = { ...quotaLabels(namespace, name), [WorkPermanentIDLabel]: workId };
  if (!existing) {
    return { apiVersion: WorkGroupVersion, kind: 'Work', metadata: { name: workName, namespace: workNs, finalizers: [ExecutionControllerFinalizer], labels }, spec };
  }
  const w = withMeta(existing);
  w.metadata.labels = { ...(w.metadata.labels ?? {}), ...labels };
  if (!w.metadata.finalizers?.includes(ExecutionControllerFinalizer)) w.metadata.finalizers = [...(w.metadata.finalizers ?? []), ExecutionControllerFinalizer];
  w.spec = spec;
  return deepEqual(w, existing) ? undefined : w;
}

export function reconcileQuotaSync(ctx: ReconcileContext, key: string): ReconcileResult {
  const { namespace = '', name } = parseRefKey(key);
  const quota = ctx.reader.get(FRQ, namespace, name);
  const works = worksOfQuota(ctx.reader, namespace, name);
  const writes: Write[] = [];
  if (!quota) {
    for (const w of works) if (!isTerminating(w)) writes.push({ op: 'delete', ref: refOf(w) });
    return { writes, events: [] };
  }
  const assigned = new Set((quota.spec?.staticAssignments ?? []).map((a) => generateExecutionSpaceName(a.clusterName)));
  for (const w of works) if (!assigned.has(w.metadata.namespace ?? '') && !isTerminating(w)) writes.push({ op: 'delete', ref: refOf(w) });
  const errors: string[] = [];
  for (const cluster of ctx.reader.list(CLUSTER)) {
    const clusterName = cluster.metadata.name!;
    const hard = assignedHard(quota, clusterName);
    if (!hard) continue;
    const existing = ctx.reader.get(WORK, generateExecutionSpaceName(clusterName), quotaWorkName(namespace, name));
    if (existing && isTerminating(existing)) {
      errors.push(`work ${existing.metadata.namespace}/${existing.metadata.name} is being deleted`);
      continue;
    }
    const w = quotaWork(quota, clusterName, hard, existing);
    if (w) writes.push({ op: existing ? 'update' : 'create', object: w });
  }
  const involved = refOf(quota);
  if (errors.length) {
    const message = errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
    return { writes, events: [{ involvedObject: involved, type: 'Warning', reason: EventReasonSyncWorkFailed, message, source: FRQ_SYNC }], error: message };
  }
  const events: CoreEvent[] = [{ involvedObject: involved, type: 'Normal', reason: EventReasonSyncWorkSucceed, message: `Sync works for FederatedResourceQuota(${namespace}/${name}) succeed.`, source: FRQ_SYNC }];
  return { writes, events };
}

// ---------------------------------------------------------------------------------------------
// Status controller

type ClusterQuotaStatus = NonNullable<NonNullable<FederatedResourceQuota['status']>['aggregatedStatus']>[number];

/** A ResourceList read from a collected status: only quantity-like values (numbers, strings). */
function resourceListIn(v: unknown): ResourceList | undefined {
  if (!isObject(v)) return undefined;
  const out: ResourceList = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string' || typeof x === 'number') out[k] = x;
  return out;
}

/** The hard and used lists of a member ResourceQuota's collected status. */
function quotaStatusOf(v: unknown): { hard?: ResourceList; used?: ResourceList } | undefined {
  if (!isObject(v)) return undefined;
  return { hard: resourceListIn(v.hard), used: resourceListIn(v.used) };
}

/** Karmada's aggregatedStatusFormWorks: Applied Works with a collected status, by cluster name. */
export function aggregatedQuotaStatus(works: readonly Work[]): ClusterQuotaStatus[] {
  const out: ClusterQuotaStatus[] = [];
  for (const w of works) {
    if (findCondition(w.status?.conditions, WorkApplied)?.status !== 'True') continue;
    const collected = quotaStatusOf((w.status?.manifestStatuses ?? [])[0]?.status);
    if (!(w.status?.manifestStatuses ?? []).length) continue;
    const ns = w.metadata.namespace ?? '';
    if (!ns.startsWith(ExecutionSpacePrefix)) continue;
    const item: ClusterQuotaStatus = { clusterName: ns.slice(ExecutionSpacePrefix.length) };
    if (collected?.hard && Object.keys(collected.hard).length) item.hard = collected.hard;
    if (collected?.used && Object.keys(collected.used).length) item.used = collected.used;
    out.push(item);
  }
  return out.sort((a, b) => (a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0));
}

/** Karmada's calculateUsed: the members' `used`, summed per resource. */
export function sumUsed(items: readonly ClusterQuotaStatus[]): ResourceList {
  const total = new Map<string, Quantity>();
  for (const item of items) for (const [name, q] of quantitiesOf(item.used)) addInto(total, name, q);
  return resourceListOf(total);
}

/** A status with empty lists and maps left out, as Go's omitempty writes it. */
function compact(status: NonNullable<FederatedResourceQuota['status']>): NonNullable<FederatedResourceQuota['status']> {
  const out: NonNullable<FederatedResourceQuota['status']> = {};
  if (status.overall && Object.keys(status.overall).length) out.overall = status.overall;
  if (status.overallUsed && Object.keys(status.overallUsed).length) out.overallUsed = status.overallUsed;
  if (status.aggregatedStatus?.length) out.aggregatedStatus = status.aggregatedStatus;
  return out;
}

function statusWrite(quota: FederatedResourceQuota, status: NonNullable<FederatedResourceQuota['status']>): Write[] {
  const next = compact(status);
  return deepEqual(next, compact(quota.status ?? {})) ? [] : [{ op: 'updateStatus', object: { ...quota, status: next } }];
}

export function reconcileQuotaStatus(ctx: ReconcileContext, key: string): ReconcileResult {
  const { namespace = '', name } = parseRefKey(key);
  const quota = ctx.reader.get(FRQ, namespace, name);
  if (!quota || isTerminating(quota)) return emptyResult();
  const aggregatedStatus = aggregatedQuotaStatus(worksOfQuota(ctx.reader, namespace, name));
  const status = { ...(quota.status ?? {}), aggregatedStatus };
  if (!ctx.options.federatedQuotaEnforcement) {
    status.overall = quota.spec?.overall;
    status.overallUsed = sumUsed(aggregatedStatus);
  }
  const message = `Collect status of FederatedResourceQuota(${namespace}/${name}) succeed.`;
  return { writes: statusWrite(quota, status), events: [{ involvedObject: refOf(quota), type: 'Normal', reason: EventReasonAggregateStatusSucceed, message, source: FRQ_STATUS }] };
}

// ---------------------------------------------------------------------------------------------
// Enforcement controller (FederatedQuotaEnforcement)

/** Karmada's calculateUsedWithResourceBinding: the namespace's bindings' usage, for the resources `overall` names. */
export function usedByBindings(bindings: readonly Binding[], overall: ResourceList | undefined): ResourceList {
  const total = new Map<string, Quantity>();
  for (const b of bindings) for (const [n, q] of bindingUsage(b)) addInto(total, n, q);
  const keys = Object.keys(overall ?? {});
  return resourceListOf(new Map(keys.filter((k) => total.has(k)).map((k) => [k, total.get(k)!])));
}

export function reconcileQuotaEnforcement(ctx: ReconcileContext, key: string): ReconcileResult {
  if (!ctx.options.federatedQuotaEnforcement) return emptyResult();
  const { namespace = '', name } = parseRefKey(key);
  const quota = ctx.reader.get(FRQ, namespace, name);
  if (!quota || isTerminating(quota)) return emptyResult();
  const status = { ...(quota.status ?? {}), overall: quota.spec?.overall, overallUsed: usedByBindings(ctx.reader.list(RB, { namespace }), quota.spec?.overall) };
  const message = `Collect status of FederatedResourceQuota(${namespace}/${name}) succeed.`;
  return {
    writes: statusWrite(quota, status),
    events: [{ involvedObject: refOf(quota), type: 'Normal', reason: EventReasonCollectOverallStatusSucceed, message, source: FRQ_ENFORCEMENT }],
    // The periodic recount that corrects what a refused or failed binding write left counted.
    requeueAfterSeconds: DefaultFederatedResourceQuotaSyncPeriodSeconds,
  };
}

/** The key of the quota a Work was made for, from its labels. */
export function quotaKeyOfWork(w: KObject): string | undefined {
  const ns = getLabel(w, FederatedResourceQuotaNamespaceLabel);
  const name = getLabel(w, FederatedResourceQuotaNameLabel);
  return ns && name ? frqKey(ns, name) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Watches (Karmada's predicates)

const keyOfQuota = (q: KObject) => frqKey(q.metadata.namespace ?? '', q.metadata.name!);

/** The three controllers with their watches, in the order controllers.ts lists them. */
export function federatedResourceQuotaControllers(): ControllerSpec[] {
  return [
    {
      name: FRQ_SYNC,
      watches: (t, cluster) => cluster === undefined && (is(t, FRQ) || is(t, CLUSTER)),
      reconcile: reconcileQuotaSync,
      keysFor(c, reader) {
        if (c.cluster !== undefined) return [];
        if (isChangeOf(c, FRQ)) {
          if (c.type === 'MODIFIED' && c.old && deepEqual(c.old.spec?.staticAssignments, c.object.spec?.staticAssignments)) return [];
          return [keyOfQuota(c.object)];
        }
        // A new cluster gets the ResourceQuotas assigned to it.
        if (isChangeOf(c, CLUSTER) && c.type === 'ADDED') {
          return reader.list(FRQ).filter((q) => assignedHard(q, c.object.metadata.name!) !== undefined).map(keyOfQuota);
        }
        return [];
      },
    },
    {
      name: FRQ_STATUS,
      watches: (t, cluster) => cluster === undefined && (is(t, FRQ) || is(t, WORK)),
      reconcile: reconcileQuotaStatus,
      keysFor(c) {
        if (c.cluster !== undefined) return [];
        if (isChangeOf(c, FRQ)) return [keyOfQuota(c.object)];
        if (isChangeOf(c, WORK)) {
          const k = quotaKeyOfWork(c.object);
          if (!k || c.type === 'ADDED') return [];
          if (c.type === 'MODIFIED' && c.old && deepEqual(c.old.status, c.object.status)) return [];
          return [k];
        }
        return [];
      },
    },
    {
      name: FRQ_ENFORCEMENT,
      watches: (t, cluster) => cluster === undefined && (is(t, FRQ) || is(t, RB)),
      reconcile: reconcileQuotaEnforcement,
      keysFor(c, reader) {
        if (c.cluster !== undefined) return [];
        if (isChangeOf(c, FRQ)) {
          if (c.type === 'DELETED') return [];
          if (c.type === 'MODIFIED' && c.old && deepEqual(c.old.spec?.overall, c.object.spec?.overall)) return [];
          return [keyOfQuota(c.object)];
        }
        if (isChangeOf(c, RB) && c.type === 'DELETED') return reader.list(FRQ, { namespace: c.object.metadata.namespace }).map(keyOfQuota);
        return [];
      },
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// The scheduler's write

/** The apiserver's words for a validating webhook's denial (k8s.io/apiserver's ToStatusErr). */
export function webhookDenial(message: string): string {
  return `admission webhook "${ResourceBindingValidatingWebhookName}" denied the request: ${message}`;
}

/**
 * The scheduler's spec update of `b` to `next` under FederatedQuotaEnforcement. Admitted: the quota status
 * writes that go first (the webhook's side effect). Refused: what Karmada's scheduler does with the webhook's
 * QuotaExceeded answer: Scheduled False with reason QuotaExceeded and the apiserver's message, the
 * ScheduleBindingFailed events, no spec change, and a retry.
 */
export function chargeScheduledBinding(ctx: ReconcileContext, b: Binding, next: Binding): { writes: Write[]; refused?: ReconcileResult } {
  if (!ctx.options.federatedQuotaEnforcement) return { writes: [] };
  const charge = chargeBinding(quotasFor(ctx.reader, b), b, next);
  if (!charge.denied) return { writes: charge.updates.map((q) => ({ op: 'updateStatus', object: q })) };
  const message = webhookDenial(charge.denied.message);
  const conditions = setCondition(b.status?.conditions, { type: BindingScheduled, status: 'False', reason: BindingReasonQuotaExceeded, message }, ctx.now);
  const writes: Write[] = deepEqual(conditions, b.status?.conditions) ? [] : [{ op: 'updateStatus', object: { ...b, status: { ...(b.status ?? {}), conditions } } }];
  const events: CoreEvent[] = [{ involvedObject: refOf(b), type: 'Warning', reason: EventReasonScheduleBindingFailed, message, source: SchedulerName }];
  if (b.spec?.resource) events.push({ involvedObject: b.spec.resource, type: 'Warning', reason: EventReasonScheduleBindingFailed, message, source: SchedulerName });
  return { writes: [], refused: { writes, events, error: message } };
}
