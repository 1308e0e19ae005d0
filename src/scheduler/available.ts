/**
 * Available replicas per cluster (spec §2.6): Karmada's general estimator over the cluster's resource
 * summary (or its resource models), combined with any other estimator by taking the minimum.
 */
import { parseQuantity, Quantity, simpleMilliValue } from '../quantity/quantity.js';
import { MAX_INT32 as MAX_INT32_EXPORT } from './messages.js';
import type { ClusterInfo } from './snapshot.js';
import type { Quantityish, ReplicaRequirements, ResourceList, ResourceModel, ResourceSummary } from './types.js';

// A module-local copy: this module's loops read it per cluster, and imported bindings can be getters once transpiled.
const MAX_INT32 = MAX_INT32_EXPORT;

export interface ParsedResource {
  /** allocatable − allocated − allocating, as a Quantity (built on demand). */
  avail(): Quantity;
  /** `Value()` of it: whole units, rounded away from zero. */
  readonly availValue: number;
  readonly availMilli: number;
}

interface ParsedModels {
  /** For each resource, the `min` of its range in every model, in model order. */
  minByResource: Map<string, Quantity[]>;
  modelCount: number;
  /** `allocatableModelings[i].count`, by position as Karmada indexes it. */
  counts: number[];
}

export interface ParsedSummary {
  readonly allocatablePods: number;
  readonly allocatedPods: number;
  readonly allocatingPods: number;
  /** allocatable − allocated − allocating of one resource; null when the cluster has no allocatable entry for it. */
  resource(name: string): ParsedResource | null;
  readonly models: ParsedModels | null;
  readonly source: ResourceSummary;
  /**
   * Estimates already made from this summary, by requirements key: bindings of one workload shape
   * ask the same question of every cluster, and a summary never changes once parsed.
   */
  cachedEstimate(key: number): number | undefined;
  cacheEstimate(key: number, value: number): void;
}

export interface ParsedRequest {
  name: string;
  q: Quantity;
  value: number;
  milli: number;
}

/** Unparsable text cannot come from a real API server (it would refuse the object); it counts as absent. */
function q(v: Quantityish | null | undefined): Quantity | null {
  if (v === undefined || v === null) return null;
  try {
    return parseQuantity(v);
  } catch {
    return null;
  }
}

/** Go's `Value()` of an exact milli amount: whole units, rounded away from zero. */
function valueOfMilli(milli: number): number {
  const r = milli % 1000;
  const q = (milli - r) / 1000;
  return r > 0 ? q + 1 : r < 0 ? q - 1 : q;
}

/*
 * Parsing every cluster's summary is the cold-start cost of a snapshot (the first binding over
 * thousands of new Cluster objects), so this path allocates little: the forms clusters report are
 * read as exact milli numbers (`simpleMilliValue`, no BigInt), only the resources a binding names are
 * read, and summaries and resources are class instances rather than objects of closures.
 */

/** A resource whose quantities were all simple: exact milli arithmetic on numbers. */
class MilliResource implements ParsedResource {
  readonly availValue: number;
  private built: Quantity | undefined = undefined;
  constructor(readonly availMilli: number) {
    this.availValue = valueOfMilli(availMilli);
  }
  avail(): Quantity {
    return (this.built ??= Quantity.fromMilli(this.availMilli));
  }
}

/** Any other resource: Quantity arithmetic, as Go does it. */
class QuantityResource implements ParsedResource {
  readonly availValue: number;
  readonly availMilli: number;
  constructor(private readonly quantity: Quantity) {
    this.availValue = quantity.value();
    this.availMilli = quantity.milliValue();
  }
  avail(): Quantity {
    return this.quantity;
  }
}

function podsValue(list: ResourceList | null | undefined): number {
  const raw = list?.pods;
  if (raw === undefined) return 0;
  const fast = simpleMilliValue(raw);
  if (fast !== null) return valueOfMilli(fast);
  const p = q(raw);
  return p ? p.value() : 0;
}

function parseResource(raw: Quantityish, usedRaw: Quantityish | undefined, pendingRaw: Quantityish | undefined): ParsedResource | null {
  const a = simpleMilliValue(raw);
  const u = usedRaw === undefined || usedRaw === null ? 0 : simpleMilliValue(usedRaw);
  const p = pendingRaw === undefined || pendingRaw === null ? 0 : simpleMilliValue(pendingRaw);
  if (a !== null && u !== null && p !== null) {
    const m = a - u - p;
    // Each term is a safe integer, but used + pending can push the difference past 2^53 (petabytes of memory
    // in milli-bytes): then only the Quantity arithmetic below is exact.
    if (Number.isSafeInteger(m)) return new MilliResource(m);
  }
  let avail = q(raw);
  if (!avail) return null;
  const used = q(usedRaw);
  if (used) avail = avail.sub(used);
  const pending = q(pendingRaw);
  if (pending) avail = avail.sub(pending);
  return new QuantityResource(avail);
}

function parseModels(rs: ResourceSummary, models: ResourceModel[] | null): ParsedModels | null {
  if (!models || models.length === 0 || !rs.allocatableModelings || rs.allocatableModelings.length === 0) return null;
  const minByResource = new Map<string, Quantity[]>();
  for (const m of models) {
    for (const r of m.ranges ?? []) {
      const min = q(r.min) ?? Quantity.zero();
      const arr = minByResource.get(r.name);
      if (arr) arr.push(min);
      else minByResource.set(r.name, [min]);
    }
  }
  return { minByResource, modelCount: models.length, counts: rs.allocatableModelings.map((m) => m.count ?? 0) };
}

const MAX_CACHED_ESTIMATES = 512;

/** The estimate memo: one slot inline (a cold pass asks one question per summary), a map beyond it. */
abstract class EstimateMemo {
  private firstKey = -1;
  private firstValue = 0;
  private more: Map<number, number> | undefined = undefined;

  cachedEstimate(key: number): number | undefined {
    if (key === this.firstKey) return this.firstValue;
    return this.more === undefined ? undefined : this.more.get(key);
  }

  cacheEstimate(key: number, value: number): void {
    if (this.firstKey === -1) {
      this.firstKey = key;
      this.firstValue = value;
      return;
    }
    this.more ??= new Map();
    if (this.more.size >= MAX_CACHED_ESTIMATES) this.more.clear();
    this.more.set(key, value);
  }
}

class Summary extends EstimateMemo implements ParsedSummary {
  readonly allocatablePods: number;
  readonly allocatedPods: number;
  readonly allocatingPods: number;
  readonly models: ParsedModels | null;
  // Resources are parsed on first request (clusters report many, workloads request a few);
  // undefined: not read yet.
  private cpu: ParsedResource | null | undefined = undefined;
  private memory: ParsedResource | null | undefined = undefined;
  private others: Map<string, ParsedResource | null> | undefined = undefined;

  constructor(
    readonly source: ResourceSummary,
    models: ResourceModel[] | null,
  ) {
    super();
    this.allocatablePods = podsValue(source.allocatable);
    this.allocatedPods = podsValue(source.allocated);
    this.allocatingPods = podsValue(source.allocating);
    this.models = parseModels(source, models);
  }

  resource(name: string): ParsedResource | null {
    if (name === 'cpu') return this.cpu !== undefined ? this.cpu : (this.cpu = this.read(name));
    if (name === 'memory') return this.memory !== undefined ? this.memory : (this.memory = this.read(name));
    this.others ??= new Map();
    let r = this.others.get(name);
    if (r === undefined) {
      r = this.read(name);
      this.others.set(name, r);
    }
    return r;
  }

  private read(name: string): ParsedResource | null {
    const rs = this.source;
    const raw = rs.allocatable ? (Object.prototype.hasOwnProperty.call(rs.allocatable, name) ? rs.allocatable[name] : undefined) : undefined;
    return raw === undefined ? null : parseResource(raw, rs.allocated?.[name], rs.allocating?.[name]);
  }
}

export function parseSummary(rs: ResourceSummary, models: ResourceModel[] | null): ParsedSummary {
  return new Summary(rs, models);
}

const requestCache = new Map<string, ParsedRequest | null>();

function parseRequest(name: string, raw: Quantityish): ParsedRequest | null {
  const key = `${name}\u0000${String(raw)}`;
  let r = requestCache.get(key);
  if (r !== undefined) return r;
  const quantity = q(raw);
  r = quantity ? { name, q: quantity, value: quantity.value(), milli: quantity.milliValue() } : null;
  if (requestCache.size > 10_000) requestCache.clear();
  requestCache.set(key, r);
  return r;
}

const keyIds = new Map<string, number>();
let nextKeyId = 0;

/**
 * A small integer that identifies the requests (and the estimation path) for the estimate cache.
 * Ids are never reused, so forgetting old keys only costs cache misses.
 */
function requestsKey(requests: readonly ParsedRequest[], modeling: boolean): number {
  let k = modeling ? 'm' : 's';
  for (const r of requests) k += `|${r.name}=${r.q.toString()}`;
  let id = keyIds.get(k);
  if (id === undefined) {
    if (keyIds.size >= 10_000) keyIds.clear();
    id = nextKeyId++;
    keyIds.set(k, id);
  }
  return id;
}

/** The requests that bound replicas: those whose whole-unit (rounded up) value is positive. */
export function parseRequests(rr: ReplicaRequirements): ParsedRequest[] {
  const out: ParsedRequest[] = [];
  for (const [name, raw] of Object.entries(rr.resourceRequest ?? {})) {
    const r = parseRequest(name, raw);
    if (r && r.value > 0) out.push(r);
  }
  return out;
}

const intDiv = (a: number, b: number): number => (a - (a % b)) / b;

function bySummary(s: ParsedSummary, requests: readonly ParsedRequest[]): number {
  let max = Number.MAX_SAFE_INTEGER;
  for (const r of requests) {
    const res = s.resource(r.name);
    if (!res) return 0;
    if (res.availValue <= 0) return 0;
    const n = r.name === 'cpu' ? intDiv(res.availMilli, r.milli) : intDiv(res.availValue, r.value);
    if (n < max) max = n;
  }
  return max;
}

/**
 * Resource-model estimate: the smallest model grade whose every `min` is at least the request is the
 * first compliant one; nodes of that grade and above each fit as many replicas as their grade's
 * minimum allows. Null when a requested resource has no model (Karmada then falls back to the summary).
 */
function byModels(m: ParsedModels, requests: readonly ParsedRequest[]): number | null {
  let minIndex = 0;
  for (const r of requests) {
    const mins = m.minByResource.get(r.name);
    if (!mins) return null;
    for (let i = 0; i < mins.length; i++) {
      if (mins[i]!.cmp(r.q) > 0) {
        if (i - 1 > minIndex) minIndex = i - 1;
        break;
      }
      if (i === mins.length - 1 && i > minIndex) minIndex = i;
    }
  }
  let total = 0;
  for (let i = minIndex; i < m.modelCount; i++) {
    const count = m.counts[i] ?? 0;
    if (count === 0) continue;
    let perNode = Number.MAX_SAFE_INTEGER;
    for (const r of requests) {
      const min = m.minByResource.get(r.name)![i];
      const n = !min ? 0 : r.name === 'cpu' ? intDiv(Math.max(0, min.milliValue()), r.milli) : intDiv(Math.max(0, min.value()), r.value);
      if (n < perNode) perNode = n;
    }
    if (perNode === Number.MAX_SAFE_INTEGER) perNode = 0;
    total += count * perNode;
  }
  return total;
}

export interface EstimatorOptions {
  /**
   * Karmada feature gate CustomizedClusterResourceModeling (Beta, on by default): use the cluster's
   * resource models when it reports `allocatableModelings`.
   */
  customizedClusterResourceModeling?: boolean;
}

/** The general estimator for one cluster (`maxAvailableReplicas`). */
export function generalEstimate(
  summary: ParsedSummary | null,
  requirements: ReplicaRequirements | null | undefined,
  requests: readonly ParsedRequest[],
  opts: EstimatorOptions = {},
  cacheKey?: number,
): number {
  if (!summary) return 0;
  let max = summary.allocatablePods - summary.allocatedPods - summary.allocatingPods;
  if (max <= 0) return 0;
  if (!requirements) return Math.min(max, MAX_INT32);
  const modeling = opts.customizedClusterResourceModeling !== false && summary.models !== null;
  const key = cacheKey ?? requestsKey(requests, modeling);
  const cached = summary.cachedEstimate(key);
  if (cached !== undefined) return cached;
  let n: number | null = null;
  if (modeling) n = byModels(summary.models!, requests);
  if (n === null) n = bySummary(summary, requests);
  const result = Math.min(max, n, MAX_INT32);
  summary.cacheEstimate(key, result);
  return result;
}

/**
 * In-flight replicas that the cluster's summary does not show yet (feature gate
 * SchedulingOvercommitProtection): they count as allocating.
 */
export interface AssumedWorkload {
  cluster: string;
  replicas: number;
  replicaRequirements?: ReplicaRequirements | null;
}

function withAssumed(s: ParsedSummary, assumed: readonly AssumedWorkload[]): ParsedSummary {
  const allocating: Record<string, Quantity> = {};
  let pods = 0;
  for (const a of assumed) {
    pods += a.replicas;
    for (const [name, raw] of Object.entries(a.replicaRequirements?.resourceRequest ?? {})) {
      const r = q(raw);
      if (!r) continue;
      let total = Quantity.zero();
      for (let i = 0; i < a.replicas; i++) total = total.add(r);
      allocating[name] = allocating[name] ? allocating[name]!.add(total) : total;
    }
  }
  return new AssumedSummary(s, allocating, pods);
}

/** A summary with in-flight replicas counted as allocating; its estimates are its own. */
class AssumedSummary extends EstimateMemo implements ParsedSummary {
  readonly allocatablePods: number;
  readonly allocatedPods: number;
  readonly allocatingPods: number;
  readonly models: ParsedModels | null;
  readonly source: ResourceSummary;

  constructor(
    private readonly base: ParsedSummary,
    private readonly allocating: Record<string, Quantity>,
    pods: number,
  ) {
    super();
    this.allocatablePods = base.allocatablePods;
    this.allocatedPods = base.allocatedPods;
    this.allocatingPods = base.allocatingPods + pods;
    this.models = base.models;
    this.source = base.source;
  }

  resource(name: string): ParsedResource | null {
    const res = this.base.resource(name);
    const extra = this.allocating[name];
    if (!res || !extra) return res;
    return new QuantityResource(res.avail().sub(extra));
  }
}

/**
 * Another replica estimator, asked per cluster (Karmada's accurate scheduler-estimator): how many replicas of
 * these requirements fit in the cluster, or -1 (UnauthenticReplica) when it cannot tell.
 */
export type ReplicaEstimator = (cluster: string, requirements: ReplicaRequirements | null) => number;

export interface AvailabilityOptions extends EstimatorOptions {
  /** Results of other estimators (e.g. an accurate scheduler-estimator), per cluster; -1 means unknown. */
  extraEstimates?: ReadonlyArray<Readonly<Record<string, number>>>;
  /** Other estimators asked for each feasible cluster; combined with the general one as `extraEstimates` are. */
  estimators?: readonly ReplicaEstimator[];
  assumedWorkloads?: readonly AssumedWorkload[];
}

export interface AvailabilitySpec {
  replicas?: number;
  replicaRequirements?: ReplicaRequirements | null;
  components?: readonly unknown[] | null;
}

/**
 * `calAvailableReplicas`: MaxInt32 for non-workloads (no estimation at all); otherwise the minimum over
 * estimators, where a cluster no estimator could bound gets `spec.replicas`.
 */
export function calAvailableReplicas(clusters: readonly ClusterInfo[], spec: AvailabilitySpec, opts: AvailabilityOptions = {}): number[] {
  const raw = estimateReplicas(clusters, spec, opts);
  const replicas = spec.replicas ?? 0;
  if (replicas === 0 && (spec.components?.length ?? 0) === 0) return raw;
  for (let i = 0; i < raw.length; i++) if (raw[i] === MAX_INT32) raw[i] = replicas;
  return raw;
}

/**
 * The estimators' minimum per cluster, MaxInt32 where none could bound it (`calAvailableReplicas`
 * before it substitutes `spec.replicas`). Depends on the spec's replicas only through the
 * non-workload test, so an overflow tier can reuse it with its own share.
 */
export function estimateReplicas(clusters: readonly ClusterInfo[], spec: AvailabilitySpec, opts: AvailabilityOptions = {}): number[] {
  const replicas = spec.replicas ?? 0;
  const out = new Array<number>(clusters.length);
  if (replicas === 0 && (spec.components?.length ?? 0) === 0) return out.fill(MAX_INT32);
  const requirements = spec.replicaRequirements ?? null;
  const requests = requirements ? parseRequests(requirements) : [];
  const keyWithModels = requestsKey(requests, true);
  const keyWithoutModels = requestsKey(requests, false);
  const modelingOn = opts.customizedClusterResourceModeling !== false;
  let assumedBy: Map<string, AssumedWorkload[]> | null = null;
  if (opts.assumedWorkloads && opts.assumedWorkloads.length > 0) {
    assumedBy = new Map();
    for (const a of opts.assumedWorkloads) {
      const l = assumedBy.get(a.cluster);
      if (l) l.push(a);
      else assumedBy.set(a.cluster, [a]);
    }
  }
  const extras = opts.extraEstimates ?? [];
  // Components (multiple pod templates) are estimated as component sets, which the other estimators do not answer.
  const estimators = (spec.components?.length ?? 0) > 0 ? [] : (opts.estimators ?? []);
  for (let i = 0; i < clusters.length; i++) {
    const c = clusters[i]!;
    let summary = c.summary();
    if (assumedBy !== null) {
      const assumed = assumedBy.get(c.name);
      if (summary && assumed) summary = withAssumed(summary, assumed);
    }
    const key = modelingOn && summary !== null && summary.models !== null ? keyWithModels : keyWithoutModels;
    let v = generalEstimate(summary, requirements, requests, opts, key);
    for (let j = 0; j < extras.length; j++) {
      const e = extras[j]![c.name];
      if (e === undefined || e < 0) continue;
      if (e < v) v = e;
    }
    // Karmada's calAvailableReplicas: each estimator's answer where it has one, the smallest kept.
    for (let j = 0; j < estimators.length; j++) {
      const e = estimators[j]!(c.name, requirements);
      if (e < 0) continue;
      if (e < v) v = e;
    }
    out[i] = v;
  }
  return out;
}
