/**
 * Karmada's accurate scheduler-estimator (pkg/estimator/server), answered in process from a member's lean
 * Node and Pod informers instead of a gRPC server per member: how many replicas of a workload's replica
 * requirements fit in the member (MaxAvailableReplicas).
 *
 * - NodeResourceEstimator: per Node, its allocatable less the requests of the Pods bound to it that have
 *   not terminated (each resource floored at 0), and its `pods` less their number; Nodes that the
 *   requirements' node selector, required node affinity or tolerations exclude (an unschedulable Node needs
 *   a toleration of `node.kubernetes.io/unschedulable:NoSchedule`) count nothing; the others count the
 *   fewest replicas any requested resource allows, at most their free pod slots. The member's answer is the
 *   sum. A member without Nodes fits 0.
 * - ResourceQuotaEstimator (feature gate ResourceQuotaEstimate): each ResourceQuota of
 *   `replicaRequirements.namespace` whose scopes apply to the requirements' priority class bounds the answer
 *   by `status.hard` less `status.used` of the compute and extended resources it limits (`requests.` prefix
 *   read as the plain name, `limits.` ignored), as Karmada's plugin does.
 *
 * The estimators are combined as Karmada's framework does: the smallest answer.
 */
import { findUntoleratedTaint, toleratesTaint } from '../scheduler/filters.js';
import { compileLabelSelector, labelsOf, nodeSelectorRequirementsMatcher, type LabelMatcher } from '../scheduler/selector.js';
import type { LabelSelectorRequirement, ReplicaRequirements, Taint, Toleration } from '../scheduler/types.js';
import { isObject } from '../json/value.js';
import { amountOf, isScalarResourceName, type ResourceList } from './cluster-resource-summary.js';
import type { KObject } from './object.js';

const MAX_INT32 = 2147483647;
const MAX_INT64 = (1n << 63n) - 1n;

const arr = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : []);
const optStr = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A Node's taints as read from its spec: entries without a key or an effect are not taints and are skipped. */
export function taintsOf(v: unknown): Taint[] {
  const out: Taint[] = [];
  for (const t of arr(v)) {
    if (!isObject(t) || typeof t.key !== 'string' || typeof t.effect !== 'string') continue;
    out.push({ key: t.key, effect: t.effect, ...(typeof t.value === 'string' ? { value: t.value } : {}) });
  }
  return out;
}

/** Tolerations as read from a node claim. */
export function tolerationsOf(v: unknown): Toleration[] {
  return arr(v)
    .filter(isObject)
    .map((t) => ({ key: optStr(t.key), operator: optStr(t.operator), value: optStr(t.value), effect: optStr(t.effect) }));
}

/** Label selector requirements of a node selector term; null when one is not a requirement at all. */
function requirementsOf(v: readonly unknown[]): LabelSelectorRequirement[] | null {
  const out: LabelSelectorRequirement[] = [];
  for (const e of v) {
    if (!isObject(e) || typeof e.key !== 'string' || typeof e.operator !== 'string') return null;
    const values = arr(e.values);
    if (!values.every((x): x is string => typeof x === 'string')) return null;
    out.push({ key: e.key, operator: e.operator, values: [...values] });
  }
  return out;
}

/** A map of strings (a node selector), or undefined when it has a value that is not a string. */
function stringMap(v: unknown): Record<string, string> | undefined {
  if (!isObject(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') return undefined;
    out[k] = x;
  }
  return out;
}

interface NodeEntry {
  name: string;
  labels: ReturnType<typeof labelsOf>;
  taints: Taint[];
  unschedulable: boolean;
  /** allocatable − requested, per resource (cpu in millicores), floored at 0. */
  free: Map<string, bigint>;
  freePods: bigint;
}


/** The names Karmada's Resource struct keeps (and so NodeInfo and MaxDivided see). */
const counted = (name: string): boolean => name === 'cpu' || name === 'memory' || name === 'ephemeral-storage' || name === 'pods' || isScalarResourceName(name);

function addList(to: Map<string, bigint>, list: unknown): void {
  if (!isObject(list)) return;
  for (const [name, raw] of Object.entries(list)) {
    if (!counted(name)) continue;
    const v = amountOf(name, raw);
    if (v !== undefined) to.set(name, (to.get(name) ?? 0n) + v);
  }
}

function maxInto(to: Map<string, bigint>, from: Map<string, bigint>): void {
  for (const [n, v] of from) if (v > (to.get(n) ?? 0n)) to.set(n, v);
}

const requestsOf = (c: unknown): unknown => (isObject(c) && isObject(c.resources) ? c.resources.requests : undefined);

/**
 * A Pod's requests as kube-scheduler's NodeInfo counts them (resourcehelper.PodRequests): containers added,
 * each init container taken as a maximum together with the sidecars started before it, sidecars added,
 * overhead added.
 */
export function podRequests(pod: KObject): Map<string, bigint> {
  const spec = pod.spec ?? {};
  const reqs = new Map<string, bigint>();
  for (const c of arr(spec.containers)) addList(reqs, requestsOf(c));
  const sidecars = new Map<string, bigint>();
  const init = new Map<string, bigint>();
  for (const c of arr(spec.initContainers)) {
    let these: Map<string, bigint>;
    if (isObject(c) && c.restartPolicy === 'Always') {
      addList(reqs, requestsOf(c));
      addList(sidecars, requestsOf(c));
      these = sidecars;
    } else {
      these = new Map();
      addList(these, requestsOf(c));
      for (const [n, v] of sidecars) these.set(n, (these.get(n) ?? 0n) + v);
    }
    maxInto(init, these);
  }
  maxInto(reqs, init);
  addList(reqs, spec.overhead);
  return reqs;
}

const terminated = (p: KObject): boolean => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/**
 * A member's Nodes with what is free on each: built once per change of the member's Nodes or Pods and asked
 * for every estimate until the next change. Estimates of one shape of requirements are remembered.
 */
export class NodeCapacity {
  readonly nodes: readonly NodeEntry[];
  private readonly memo = new Map<string, number>();

  constructor(nodes: readonly KObject[], pods: readonly KObject[]) {
    const requested = new Map<string, { reqs: Map<string, bigint>; count: number }>();
    for (const p of pods) {
      const node = typeof p.spec?.nodeName === 'string' ? p.spec.nodeName : '';
      // The estimator's Pod informer lists bound Pods that have not terminated.
      if (node === '' || terminated(p)) continue;
      let r = requested.get(node);
      if (!r) requested.set(node, (r = { reqs: new Map(), count: 0 }));
      for (const [n, v] of podRequests(p)) r.reqs.set(n, (r.reqs.get(n) ?? 0n) + v);
      r.count++;
    }
    this.nodes = nodes.map((n) => {
      const name = n.metadata.name ?? '';
      const allocatable = new Map<string, bigint>();
      addList(allocatable, n.status?.allocatable);
      const used = requested.get(name);
      const free = new Map<string, bigint>();
      for (const [res, v] of allocatable) {
        if (res === 'pods') continue;
        const u = used?.reqs.get(res) ?? 0n;
        free.set(res, v - u > 0n ? v - u : 0n);
      }
      const pods = (allocatable.get('pods') ?? 0n) - BigInt(used?.count ?? 0);
      return {
        name,
        labels: labelsOf(n.metadata.labels),
        taints: taintsOf(n.spec?.taints),
        unschedulable: n.spec?.unschedulable === true,
        free,
        freePods: pods > 0n ? pods : 0n,
      };
    });
  }

  /** NodeResourceEstimator.Estimate: replicas of these requirements that fit, summed over the matching Nodes. */
  maxAvailableReplicas(requirements: ReplicaRequirements | null | undefined): number {
    if (this.nodes.length === 0) return 0;
    const key = requirements ? JSON.stringify([requirements.resourceRequest ?? null, requirements.nodeClaim ?? null]) : '';
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    const match = nodeMatcher(requirements?.nodeClaim);
    const requests: Array<[string, bigint]> = [];
    for (const [name, raw] of Object.entries(requirements?.resourceRequest ?? {})) {
      const v = amountOf(name, raw);
      // MaxDivided reads cpu, memory, ephemeral-storage and scalar resources; a zero request bounds nothing.
      if (v === undefined || v <= 0n || name === 'pods' || !counted(name)) continue;
      requests.push([name, v]);
    }
    let total = 0;
    for (const n of this.nodes) {
      if (!match(n)) continue;
      let fit = MAX_INT64;
      for (const [name, v] of requests) {
        const per = (n.free.get(name) ?? 0n) / v;
        if (per < fit) fit = per;
      }
      if (n.freePods < fit) fit = n.freePods;
      total += Number(fit);
    }
    // Karmada adds the per-node answers into an int32.
    const result = total > MAX_INT32 ? MAX_INT32 : total;
    if (this.memo.size > 256) this.memo.clear();
    this.memo.set(key, result);
    return result;
  }
}

// ---------------------------------------------------------------------------------------------
// Node claim: node selector, required node affinity, tolerations (component-helpers' nodeaffinity)

const UNSCHEDULABLE_TAINT: Taint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

type NodeMatch = (n: NodeEntry) => boolean;

/** One node selector term: its label expressions and its `metadata.name` fields; null when it does not parse. */
function compileTerm(term: unknown): NodeMatch | null {
  if (!isObject(term)) return null;
  const exprs = Array.isArray(term.matchExpressions) ? term.matchExpressions : [];
  const fields = Array.isArray(term.matchFields) ? term.matchFields : [];
  let labels: LabelMatcher | undefined;
  if (exprs.length > 0) {
    const reqs = requirementsOf(exprs);
    const m = reqs && nodeSelectorRequirementsMatcher(reqs);
    if (!m) return null;
    labels = m;
  }
  let names: ((name: string) => boolean) | undefined;
  if (fields.length > 0) {
    const checks: Array<(name: string) => boolean> = [];
    for (const f of fields) {
      if (!isObject(f) || f.key !== 'metadata.name' || !Array.isArray(f.values) || f.values.length !== 1 || typeof f.values[0] !== 'string') return null;
      const v = f.values[0];
      if (f.operator === 'In') checks.push((n) => n === v);
      else if (f.operator === 'NotIn') checks.push((n) => n !== v);
      else return null;
    }
    names = (n) => checks.every((c) => c(n));
  }
  if (!labels && !names) return () => false;
  return (n) => (!labels || labels(n.labels)) && (!names || names(n.name));
}

/** estimator.MatchNode: the claim's node selector and required affinity, then its tolerations. */
export function nodeMatcher(claim: unknown): NodeMatch {
  if (!isObject(claim)) return (n) => tolerated(n, []);
  const nodeSelector = stringMap(claim.nodeSelector);
  // A selector with a value that is not a string matches no Node (the API server would not have stored it).
  const selector = isObject(claim.nodeSelector) && !nodeSelector ? () => false : nodeSelector && Object.keys(nodeSelector).length > 0 ? compileLabelSelector({ matchLabels: nodeSelector }) : undefined;
  const affinity = isObject(claim.hardNodeAffinity) ? claim.hardNodeAffinity : undefined;
  let terms: NodeMatch[] | undefined;
  if (affinity) {
    terms = [];
    for (const t of Array.isArray(affinity.nodeSelectorTerms) ? affinity.nodeSelectorTerms : []) {
      const m = compileTerm(t);
      // A term that does not parse is left out (LazyErrorNodeSelector); the rest still match.
      if (m) terms.push(m);
    }
  }
  const tolerations = tolerationsOf(claim.tolerations);
  return (n) => {
    if (selector && !selector(n.labels)) return false;
    if (terms && !terms.some((t) => t(n))) return false;
    return tolerated(n, tolerations);
  };
}

function tolerated(n: NodeEntry, tolerations: readonly Toleration[]): boolean {
  if (n.unschedulable && !tolerations.some((t) => toleratesTaint(t, UNSCHEDULABLE_TAINT))) return false;
  return findUntoleratedTaint(n.taints, tolerations) === null;
}

// ---------------------------------------------------------------------------------------------
// ResourceQuotaEstimator

const NO_QUOTA_CONSTRAINT = MAX_INT32;
const COMPUTE = ['cpu', 'limits.cpu', 'limits.memory', 'memory', 'requests.cpu', 'requests.memory'];

/** Karmada's IsExtendedResourceName: a name with a `/` that is not a `kubernetes.io/` one nor `requests.`-prefixed. */
const isExtended = (name: string): boolean => name.includes('/') && !name.includes('kubernetes.io/') && !name.startsWith('requests.');

function quotaResources(hard: Record<string, unknown>): string[] {
  const names = Object.keys(hard);
  const out = COMPUTE.filter((c) => names.includes(c));
  for (const n of names) {
    if (isExtended(n)) out.push(n);
    else if (n.startsWith('requests.') && isExtended(n.slice('requests.'.length))) out.push(n);
    else if (n.startsWith('limits.') && isExtended(n.slice('limits.'.length))) out.push(n);
  }
  return out;
}

interface ScopeRequirement {
  scopeName?: string;
  operator?: string;
  values?: string[];
}

function scopeApplies(s: ScopeRequirement, priorityClassName: string): boolean {
  if (s.scopeName !== 'PriorityClass') return false;
  const values = s.values ?? [];
  switch (s.operator) {
    case 'Exists':
      return priorityClassName !== '';
    case 'DoesNotExist':
      return priorityClassName === '';
    case 'In':
      return priorityClassName !== '' && values.includes(priorityClassName);
    case 'NotIn':
      return priorityClassName === '' || !values.includes(priorityClassName);
    default:
      return false;
  }
}

/** evaluateReplicasAgainstQuota: replicas one ResourceQuota still admits (NO_QUOTA_CONSTRAINT when it bounds nothing). */
export function replicasUnderQuota(rq: KObject, requirements: ReplicaRequirements): number {
  const spec = rq.spec ?? {};
  const selectors: ScopeRequirement[] = [
    ...arr(spec.scopes)
      .filter((s): s is string => typeof s === 'string')
      .map((s) => ({ scopeName: s, operator: 'Exists' })),
    ...arr(isObject(spec.scopeSelector) ? spec.scopeSelector.matchExpressions : undefined)
      .filter(isObject)
      .map((e) => ({ scopeName: optStr(e.scopeName), operator: optStr(e.operator), values: arr(e.values).filter((x): x is string => typeof x === 'string') })),
  ];
  if (selectors.length > 0 && !selectors.some((s) => scopeApplies(s, requirements.priorityClassName ?? ''))) return NO_QUOTA_CONSTRAINT;
  const hard: Record<string, unknown> = isObject(rq.status?.hard) ? rq.status.hard : {};
  const used: Record<string, unknown> = isObject(rq.status?.used) ? rq.status.used : {};
  const free = new Map<string, bigint>();
  for (const name of quotaResources(hard)) {
    if (name.startsWith('limits.')) continue;
    const plain = name.startsWith('requests.') ? name.slice('requests.'.length) : name;
    if (hard[name] === undefined || used[name] === undefined) continue;
    const h = amountOf(plain, hard[name]);
    const u = amountOf(plain, used[name]);
    if (h === undefined || u === undefined) continue;
    free.set(plain, h - u);
  }
  if (free.size === 0) return NO_QUOTA_CONSTRAINT;
  let allowed = MAX_INT64;
  let constrained = false;
  for (const [name, raw] of Object.entries(requirements.resourceRequest ?? {})) {
    const f = free.get(name);
    if (f === undefined) continue;
    constrained = true;
    const v = amountOf(name, raw);
    if (v === undefined || v <= 0n) continue;
    // Go's integer division truncates toward zero; a quota already overspent admits none.
    const per = f < 0n ? 0n : f / v;
    if (per < allowed) allowed = per;
  }
  if (!constrained || allowed > BigInt(MAX_INT32)) return NO_QUOTA_CONSTRAINT;
  return Number(allowed);
}

/** ResourceQuotaEstimator.Estimate over the quotas of the requirements' namespace. */
export function replicasUnderQuotas(quotas: readonly KObject[], requirements: ReplicaRequirements | null | undefined): number {
  if (!requirements) return NO_QUOTA_CONSTRAINT;
  let replicas = NO_QUOTA_CONSTRAINT;
  for (const rq of quotas) replicas = Math.min(replicas, replicasUnderQuota(rq, requirements));
  return replicas;
}

/**
 * What the members hold, from lean informers on their Nodes, Pods and ResourceQuotas: the accurate
 * estimator's input and the Pods the unschedulable-replica estimate counts (estimator.ts). An undefined
 * answer: that member's informers have not filled yet (or it is not connected).
 */
export interface MemberCapacity {
  nodeCapacity(cluster: string): NodeCapacity | undefined;
  /** The member's lean Pods of a namespace. */
  pods(cluster: string, namespace: string): readonly KObject[] | undefined;
  /** The member's ResourceQuotas of a namespace (asked only with the ResourceQuotaEstimate gate). */
  resourceQuotas(cluster: string, namespace: string): readonly KObject[] | undefined;
}

export interface AccurateEstimatorOptions {
  /** Feature gate ResourceQuotaEstimate: the ResourceQuotaEstimator plugin runs. */
  resourceQuotaEstimate?: boolean;
}

/**
 * The accurate estimator over the members (Karmada's SchedulerEstimator client and server in one): per
 * cluster the smallest of its plugins' answers; -1 (UnauthenticReplica) where the member's data is not
 * there, as a member estimator that does not answer is to Karmada's scheduler.
 */
export function accurateEstimator(capacity: MemberCapacity, opts: AccurateEstimatorOptions = {}): (cluster: string, requirements: ReplicaRequirements | null) => number {
  return (cluster, requirements) => {
    const nodes = capacity.nodeCapacity(cluster);
    if (!nodes) return -1;
    let n = nodes.maxAvailableReplicas(requirements);
    if (opts.resourceQuotaEstimate && requirements) {
      const quotas = capacity.resourceQuotas(cluster, requirements.namespace ?? '');
      if (quotas === undefined) return -1;
      n = Math.min(n, replicasUnderQuotas(quotas, requirements));
    }
    return n;
  };
}

export type { ResourceList };
