/**
 * What a member holds, as Karmada's cluster status controller posts it on the Cluster: `status.nodeSummary`
 * (getNodeSummary) and `status.resourceSummary` (getResourceSummary, getAllocatableModelings), from the
 * member's Nodes and Pods. Pure: the push status sync and the agent (src/kube) feed it from lean informers,
 * `plan` and `simulate` from a fleet file's nodes and pods.
 *
 * Karmada's field semantics, kept exactly:
 * - allocatable: every Node's `status.allocatable` added up, Ready or not;
 * - allocating: the requests of Pods without a node (any phase), and their count as `pods`;
 * - allocated: the requests of Pods with a node that have not Succeeded or Failed, and their count;
 * - a Pod's requests: its containers' requests added, its init containers' taken as a maximum, its overhead
 *   added (Karmada's Resource.AddPodRequest, applied to the running total of all Pods, so an init container
 *   only counts where it is larger than everything summed so far, as in Karmada);
 * - cpu in millicores, other resources in whole units, extended resources (a `/` in the name), hugepages
 *   and attachable volumes kept, any other name dropped; entries of zero left out, an empty list absent;
 * - allocatableModelings: per grade of the Cluster's resource models (Karmada's defaults when it names none),
 *   the Nodes whose free resources (allocatable minus their Pods' requests) fall in it; a Node with no room
 *   for another Pod ends the count (Karmada stops there too).
 *
 * The lean forms below are what the informers keep of a Node and a Pod: the fields read here and by the
 * estimators (node-estimator.ts, estimator.ts), nothing else.
 */
import { parseQuantity, Quantity } from '../quantity/quantity.js';
import { effectiveResourceModels } from '../scheduler/resource-models.js';
import type { ResourceModel } from '../scheduler/types.js';
import { isObject } from '../json/value.js';
import type { KObject } from './object.js';

export type ResourceList = Record<string, string>;

export interface NodeSummary {
  totalNum: number;
  readyNum: number;
}

export interface AllocatableModeling {
  grade: number;
  count: number;
}

export interface ClusterResourceSummary {
  allocatable?: ResourceList;
  allocating?: ResourceList;
  allocated?: ResourceList;
  allocatableModelings?: AllocatableModeling[];
}

// ---------------------------------------------------------------------------------------------
// Lean objects: what the member informers store

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const arr = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : []);

/** The first condition of this type in a list read from an object. */
const conditionOf = (conditions: unknown, type: string): unknown => arr(conditions).find((c) => isObject(c) && c.type === type);

function resourceList(v: unknown): ResourceList | undefined {
  if (!isObject(v)) return undefined;
  const out: ResourceList = {};
  let any = false;
  for (const [k, q] of Object.entries(v)) {
    if (typeof q === 'string' || typeof q === 'number') {
      out[k] = String(q);
      any = true;
    }
  }
  return any ? out : undefined;
}

/** A container's `resources.requests`, when it has any. */
const requestsOf = (c: unknown): ResourceList | undefined => (isObject(c) && isObject(c.resources) ? resourceList(c.resources.requests) : undefined);

/** A container as the estimators read it: its requests, and whether it is a sidecar (an init container that keeps running). */
function leanContainer(c: unknown, init: boolean): Record<string, unknown> {
  if (!isObject(c)) return {};
  const requests = requestsOf(c);
  const out: Record<string, unknown> = requests ? { resources: { requests } } : {};
  // A ContainerResource metric of the FederatedHPA finds its container's request by name.
  if (!init && typeof c.name === 'string') out.name = c.name;
  if (init && c.restartPolicy === 'Always') out.restartPolicy = 'Always';
  return out;
}

/**
 * A Node as the member informer keeps it: name, labels, unschedulable, taints, allocatable and the Ready
 * condition. Karmada's own transform keeps less (no labels or taints); the in-process estimator matches
 * node affinity and tolerations, so they stay.
 */
export function leanNode(node: KObject): KObject {
  const spec = node.spec ?? {};
  const status = node.status ?? {};
  const ready = conditionOf(status.conditions, 'Ready');
  const leanSpec: Record<string, unknown> = {};
  if (spec.unschedulable === true) leanSpec.unschedulable = true;
  if (Array.isArray(spec.taints) && spec.taints.length > 0) leanSpec.taints = spec.taints;
  const allocatable = resourceList(status.allocatable);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: node.metadata.name, ...(node.metadata.labels ? { labels: node.metadata.labels } : {}) },
    spec: leanSpec,
    status: {
      ...(allocatable ? { allocatable } : {}),
      ...(isObject(ready) ? { conditions: [{ type: 'Ready', status: ready.status }] } : {}),
    },
  };
}

/**
 * A Pod as the member informer keeps it: name, namespace, labels, its controller reference and deletion
 * mark (the unschedulable-replica estimate finds a Deployment's Pods by them), the node, the containers'
 * requests, the overhead, the phase, the PodScheduled and Ready conditions and the start time.
 */
export function leanPod(pod: KObject): KObject {
  const m = pod.metadata;
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const owner = (m.ownerReferences ?? []).find((r) => r.controller);
  const scheduled = conditionOf(status.conditions, 'PodScheduled');
  const leanSpec: Record<string, unknown> = {};
  if (str(spec.nodeName)) leanSpec.nodeName = spec.nodeName;
  leanSpec.containers = Array.isArray(spec.containers) ? spec.containers.map((c: unknown) => leanContainer(c, false)) : [];
  if (Array.isArray(spec.initContainers) && spec.initContainers.length > 0) leanSpec.initContainers = spec.initContainers.map((c: unknown) => leanContainer(c, true));
  const overhead = resourceList(spec.overhead);
  if (overhead) leanSpec.overhead = overhead;
  const leanStatus: Record<string, unknown> = {};
  if (str(status.phase)) leanStatus.phase = status.phase;
  if (isObject(scheduled)) {
    const { type, status: s, reason, lastTransitionTime } = scheduled;
    leanStatus.conditions = [{ type, status: s, ...(reason !== undefined ? { reason } : {}), ...(lastTransitionTime !== undefined ? { lastTransitionTime } : {}) }];
  }
  // The FederatedHPA's replica calculator tells ready Pods from unready ones by these (federated-hpa.ts).
  const ready = conditionOf(status.conditions, 'Ready');
  if (isObject(ready)) leanStatus.conditions = [...(Array.isArray(leanStatus.conditions) ? leanStatus.conditions : []), { type: 'Ready', status: ready.status, ...(ready.lastTransitionTime !== undefined ? { lastTransitionTime: ready.lastTransitionTime } : {}) }];
  if (str(status.startTime)) leanStatus.startTime = status.startTime;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      ...(m.uid ? { uid: m.uid } : {}),
      ...(m.labels ? { labels: m.labels } : {}),
      ...(owner ? { ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid, controller: true }] } : {}),
      ...(m.deletionTimestamp ? { deletionTimestamp: m.deletionTimestamp } : {}),
    },
    spec: leanSpec,
    status: leanStatus,
  };
}

// ---------------------------------------------------------------------------------------------
// Karmada's util.Resource: exact integer amounts per resource

const HUGEPAGES = 'hugepages-';
const ATTACHABLE_VOLUMES = 'attachable-volumes-';

/** Karmada's IsScalarResourceName: extended (a `/`, not `requests.`-prefixed), prefixed native, hugepages, attachable volumes. */
export function isScalarResourceName(name: string): boolean {
  if (name.startsWith(HUGEPAGES) || name.startsWith(ATTACHABLE_VOLUMES)) return true;
  return name.includes('/') && !name.startsWith('requests.');
}

/** A quantity as Karmada's Resource struct holds it: cpu in millicores, the rest in units; undefined when it does not parse. */
export function amountOf(name: string, raw: unknown): bigint | undefined {
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  let q: Quantity;
  try {
    q = parseQuantity(raw);
  } catch {
    return undefined;
  }
  return name === 'cpu' ? q.milliValueBig() : q.valueBig();
}

/** Sums of requests per resource name (cpu in millicores), as Karmada's Resource struct keeps them. */
export class ResourceAmounts {
  readonly amounts = new Map<string, bigint>();

  private static counted(name: string): boolean {
    return name === 'cpu' || name === 'memory' || name === 'pods' || name === 'ephemeral-storage' || isScalarResourceName(name);
  }

  /** Resource.Add */
  add(list: ResourceList | undefined): this {
    for (const [name, raw] of Object.entries(list ?? {})) {
      if (!ResourceAmounts.counted(name)) continue;
      const v = amountOf(name, raw);
      if (v !== undefined) this.amounts.set(name, (this.amounts.get(name) ?? 0n) + v);
    }
    return this;
  }

  /** Resource.SetMaxResource */
  setMax(list: ResourceList | undefined): this {
    for (const [name, raw] of Object.entries(list ?? {})) {
      if (!ResourceAmounts.counted(name)) continue;
      const v = amountOf(name, raw);
      if (v !== undefined && v > (this.amounts.get(name) ?? 0n)) this.amounts.set(name, v);
    }
    return this;
  }

  addPods(n: number): this {
    this.amounts.set('pods', (this.amounts.get('pods') ?? 0n) + BigInt(n));
    return this;
  }

  /** Resource.AddPodRequest: containers added, init containers as a maximum, overhead added. */
  addPodRequest(pod: KObject): this {
    const spec = pod.spec ?? {};
    for (const c of arr(spec.containers)) this.add(requestsOf(c));
    for (const c of arr(spec.initContainers)) this.setMax(requestsOf(c));
    this.add(resourceList(spec.overhead));
    return this;
  }

  get(name: string): bigint {
    return this.amounts.get(name) ?? 0n;
  }

  /** Resource.ResourceList: the positive amounts, as Go prints them; undefined when none is. */
  toList(): ResourceList | undefined {
    const names = [...this.amounts.keys()].filter((n) => this.amounts.get(n)! > 0n).sort();
    if (names.length === 0) return undefined;
    const out: ResourceList = {};
    for (const n of names) out[n] = quantityOf(n, this.amounts.get(n)!).toString();
    return out;
  }

  quantities(): Map<string, Quantity> {
    const out = new Map<string, Quantity>();
    for (const [n, v] of this.amounts) if (v > 0n) out.set(n, quantityOf(n, v));
    return out;
  }
}

/** The Quantity Karmada's ResourceList builds for an amount: cpu as milli DecimalSI, memory and storage BinarySI. */
function quantityOf(name: string, v: bigint): Quantity {
  if (name === 'cpu') return Quantity.fromMilli(v, 'DecimalSI');
  if (name === 'memory' || name === 'ephemeral-storage' || name.startsWith(HUGEPAGES)) return Quantity.fromInt(v, 'BinarySI');
  return Quantity.fromInt(v, 'DecimalSI');
}

// ---------------------------------------------------------------------------------------------
// The summaries

const conditionStatus = (o: KObject, type: string): unknown => conditionOf(o.status?.conditions, type);

/** Karmada's helper.NodeReady: the Ready condition is True. */
export function nodeReady(node: KObject): boolean {
  const c = conditionStatus(node, 'Ready');
  return isObject(c) && c.status === 'True';
}

export function nodeSummary(nodes: readonly KObject[]): NodeSummary {
  let ready = 0;
  for (const n of nodes) if (nodeReady(n)) ready++;
  return { totalNum: nodes.length, readyNum: ready };
}

const nodeNameOf = (p: KObject): string => str(p.spec?.nodeName) ?? '';
const terminated = (p: KObject): boolean => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** Karmada's getClusterAllocatable: every Node's allocatable added up with Quantity arithmetic (the first Node's format kept). */
function clusterAllocatable(nodes: readonly KObject[]): ResourceList | undefined {
  const sums = new Map<string, Quantity>();
  for (const n of nodes) {
    for (const [name, raw] of Object.entries(resourceList(n.status?.allocatable) ?? {})) {
      let q: Quantity;
      try {
        q = parseQuantity(raw);
      } catch {
        continue;
      }
      const cur = sums.get(name);
      sums.set(name, cur ? cur.add(q) : q);
    }
  }
  const out: ResourceList = {};
  for (const name of [...sums.keys()].sort()) out[name] = sums.get(name)!.toString();
  return out;
}

/** Karmada's getAllocatingResource: Pods not bound to a node. */
function allocating(pods: readonly KObject[]): ResourceList | undefined {
  const r = new ResourceAmounts();
  let n = 0;
  for (const p of pods) {
    if (nodeNameOf(p) !== '') continue;
    r.addPodRequest(p);
    n++;
  }
  return r.addPods(n).toList();
}

/** Karmada's getAllocatedResource: Pods bound to a node that have not terminated. */
function allocated(pods: readonly KObject[]): ResourceList | undefined {
  const r = new ResourceAmounts();
  let n = 0;
  for (const p of pods) {
    if (nodeNameOf(p) === '' || terminated(p)) continue;
    r.addPodRequest(p);
    n++;
  }
  return r.addPods(n).toList();
}

/** One index per resource name of the models (Karmada's InitSummary), or null when the models are inconsistent. */
interface ModelIndex {
  names: string[];
  /** Per name, each grade's minimum, in grade order. */
  mins: Quantity[][];
}

function modelIndex(models: readonly ResourceModel[]): ModelIndex | null {
  const names: string[] = [];
  const byGrade: Array<Map<string, Quantity>> = [];
  for (const m of models) {
    const mins = new Map<string, Quantity>();
    for (const r of m.ranges ?? []) {
      // InitSummary takes the names of the first model whose range count differs from what it has so far.
      if (names.length !== (m.ranges ?? []).length) names.push(r.name);
      let q: Quantity;
      try {
        q = parseQuantity(r.min);
      } catch {
        q = Quantity.zero();
      }
      mins.set(r.name, q);
    }
    byGrade.push(mins);
  }
  if (names.length !== 0 && byGrade.length !== 0 && names.length !== byGrade[0]!.size) return null;
  return { names, mins: names.map((n) => byGrade.map((g) => g.get(n) ?? Quantity.zero())) };
}

/** Karmada's searchLastLessElement: the last grade whose minimum is at most the target, -1 when none. */
function lastAtMost(mins: readonly Quantity[], target: Quantity): number {
  let lo = 0;
  let hi = mins.length - 1;
  while (lo <= hi) {
    const mid = lo + ((hi - lo) >> 1);
    if (mins[mid]!.cmp(target) < 1) {
      if (mid === mins.length - 1 || mins[mid + 1]!.cmp(target) === 1) return mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return -1;
}

/**
 * Karmada's getNodeAvailable: the node's allocatable less its Pods' requests; null when it has no room
 * for another Pod.
 */
function nodeAvailable(node: KObject, used: ResourceAmounts | undefined): Map<string, Quantity> | null {
  const avail = new Map<string, Quantity>();
  for (const [name, raw] of Object.entries(resourceList(node.status?.allocatable) ?? {})) {
    try {
      avail.set(name, parseQuantity(raw));
    } catch {
      // An allocatable the API server would not have stored counts as absent.
    }
  }
  if (!used) return avail;
  const usedList = used.quantities();
  if (usedList.size === 0) return avail;
  const allowedPods = (avail.get('pods')?.valueBig() ?? 0n) - (usedList.get('pods')?.valueBig() ?? 0n);
  if (allowedPods <= 0n) return null;
  for (const [name, q] of usedList) {
    const a = avail.get(name);
    if (a) avail.set(name, a.sub(q));
  }
  return avail;
}

/** Karmada's getAllocatableModelings, over the models the Cluster has (defaulted and standardized as Karmada stores them). */
export function allocatableModelings(models: readonly ResourceModel[], nodes: readonly KObject[], pods: readonly KObject[]): AllocatableModeling[] | undefined {
  if (models.length === 0) return undefined;
  const index = modelIndex(models);
  if (!index) return undefined;
  const perNode = new Map<string, ResourceAmounts>();
  for (const p of pods) {
    const node = nodeNameOf(p);
    if (node === '' || terminated(p)) continue;
    let r = perNode.get(node);
    if (!r) perNode.set(node, (r = new ResourceAmounts()));
    r.addPodRequest(p).addPods(1);
  }
  const counts = new Array<number>(models.length).fill(0);
  for (const node of nodes) {
    const avail = nodeAvailable(node, perNode.get(node.metadata.name ?? ''));
    if (avail === null) break;
    let grade = Number.MAX_SAFE_INTEGER;
    for (let i = 0; i < index.names.length; i++) {
      const g = lastAtMost(index.mins[i]!, avail.get(index.names[i]!) ?? Quantity.zero());
      if (g < grade) grade = g;
    }
    if (grade === -1 || grade === Number.MAX_SAFE_INTEGER) continue;
    counts[grade]!++;
  }
  return models.map((m, i) => ({ grade: m.grade, count: counts[i]! }));
}

export interface ResourceSummaryOptions {
  /** Feature gate CustomizedClusterResourceModeling (Beta, on by default): add allocatableModelings. */
  customizedClusterResourceModeling?: boolean;
}

/**
 * The Cluster's `status.resourceSummary` from its member's Nodes and Pods. Nodes are taken in name order
 * (Karmada's lister order is its cache's, which only matters for the modelings' early stop).
 */
export function clusterResourceSummary(
  nodes: readonly KObject[],
  pods: readonly KObject[],
  resourceModels: readonly ResourceModel[] | null | undefined,
  opts: ResourceSummaryOptions = {},
): ClusterResourceSummary {
  const sorted = [...nodes].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0));
  const out: ClusterResourceSummary = {};
  const a = clusterAllocatable(sorted);
  if (a && Object.keys(a).length > 0) out.allocatable = a;
  const ing = allocating(pods);
  if (ing) out.allocating = ing;
  const ed = allocated(pods);
  if (ed) out.allocated = ed;
  if (opts.customizedClusterResourceModeling !== false) {
    const m = allocatableModelings(effectiveResourceModels(resourceModels), sorted, pods);
    if (m) out.allocatableModelings = m;
  }
  return out;
}
