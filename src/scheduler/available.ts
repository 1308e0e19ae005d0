/**
 * Available replicas per cluster (spec §2.6): Karmada's general estimator over the cluster's resource
 * summary (or its resource models), combined with any other estimator by taking the minimum.
 */
import { parseQuantity, Quantity } from '../quantity/quantity.js';
import { MAX_INT32 as MAX_INT32_EXPORT } from './messages.js';
import type { ClusterInfo } from './snapshot.js';
import type { ReplicaRequirements, ResourceList, ResourceModel, ResourceSummary } from './types.js';

// A module-local copy: this module's loops read it per cluster, and imported bindings can be getters once transpiled.
const MAX_INT32 = MAX_INT32_EXPORT;

interface ParsedResource {
  /** allocatable − allocated − allocating, as a Quantity (built on demand). */
  avail(): Quantity;
  /** `Value()` of it: whole units, rounded away from zero. */
  availValue: number;
  availMilli: number;
}

interface ParsedModels {
  /** For each resource, the `min` of its range in every model, in model order. */
  minByResource: Map<string, Quantity[]>;
  modelCount: number;
  /** `allocatableModelings[i].count`, by position as Karmada indexes it. */
  counts: number[];
}

export interface ParsedSummary {
  allocatablePods: number;
  allocatedPods: number;
  allocatingPods: number;
  /** allocatable − allocated − allocating of one resource; null when the cluster has no allocatable entry for it. */
  resource(name: string): ParsedResource | null;
  models: ParsedModels | null;
  source: ResourceSummary;
  /**
   * Estimates already made from this summary, by requirements key: bindings of one workload shape
   * ask the same question of every cluster, and a summary never changes once parsed.
   */
  estimates: Map<number, number>;
}

export interface ParsedRequest {
  name: string;
  q: Quantity;
  value: number;
  milli: number;
}

/** Unparsable text cannot come from a real API server (it would refuse the object); it counts as absent. */
function q(v: unknown): Quantity | null {
  if (v === undefined || v === null) return null;
  try {
    return parseQuantity(v as string | number);
  } catch {
    return null;
  }
}

const SUFFIX: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const SIMPLE = /^(\d{1,15})(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

/**
 * The exact value in milli-units of the quantities clusters report most (`16`, `500m`, `64Gi`), or
 * null for any other form, which goes through the full Quantity parser. Parsing thousands of cluster
 * summaries is the cold-start cost of a snapshot, and BigInt arithmetic dominates it.
 */
function fastMilli(raw: unknown): number | null {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 0 && raw <= 2 ** 43 ? raw * 1000 : null;
  if (typeof raw !== 'string') return null;
  const m = SIMPLE.exec(raw);
  if (!m) return null;
  const n = Number(m[1]);
  if (m[2] === 'm') return n;
  const milli = n * SUFFIX[m[2] ?? '']! * 1000;
  return Number.isSafeInteger(milli) ? milli : null;
}

/** Go's `Value()` of an exact milli amount: whole units, rounded away from zero. */
function valueOfMilli(milli: number): number {
  const r = milli % 1000;
  const q = (milli - r) / 1000;
  return r > 0 ? q + 1 : r < 0 ? q - 1 : q;
}

function podsValue(list: ResourceList | null | undefined): number {
  const raw = list?.pods;
  const fast = fastMilli(raw);
  if (fast !== null) return valueOfMilli(fast);
  const p = q(raw);
  return p ? p.value() : 0;
}

function parseResource(raw: unknown, usedRaw: unknown, pendingRaw: unknown): ParsedResource | null {
  const a = fastMilli(raw);
  const u = usedRaw === undefined || usedRaw === null ? 0 : fastMilli(usedRaw);
  const p = pendingRaw === undefined || pendingRaw === null ? 0 : fastMilli(pendingRaw);
  if (a !== null && u !== null && p !== null) {
    const milli = a - u - p;
    let built: Quantity | undefined;
    return { availMilli: milli, availValue: valueOfMilli(milli), avail: () => (built ??= Quantity.fromMilli(milli)) };
  }
  let avail = q(raw);
  if (!avail) return null;
  const used = q(usedRaw);
  if (used) avail = avail.sub(used);
  const pending = q(pendingRaw);
  if (pending) avail = avail.sub(pending);
  const fixed = avail;
  return { availValue: fixed.value(), availMilli: fixed.milliValue(), avail: () => fixed };
}

export function parseSummary(rs: ResourceSummary, models: ResourceModel[] | null): ParsedSummary {
  // Parsed per resource on first request: clusters report many resources, workloads request a few.
  const resources = new Map<string, ParsedResource | null>();
  const resource = (name: string): ParsedResource | null => {
    let r = resources.get(name);
    if (r === undefined) {
      const raw = rs.allocatable
        ? Object.prototype.hasOwnProperty.call(rs.allocatable, name)
          ? rs.allocatable[name]
          : undefined
        : undefined;
      r = raw === undefined ? null : parseResource(raw, rs.allocated?.[name], rs.allocating?.[name]);
      resources.set(name, r);
    }
    return r;
  };
  let parsedModels: ParsedModels | null = null;
  if (models && models.length > 0 && rs.allocatableModelings && rs.allocatableModelings.length > 0) {
    const minByResource = new Map<string, Quantity[]>();
    for (const m of models) {
      for (const r of m.ranges ?? []) {
        const min = q(r.min) ?? Quantity.zero();
        const arr = minByResource.get(r.name);
        if (arr) arr.push(min);
        else minByResource.set(r.name, [min]);
      }
    }
    parsedModels = {
      minByResource,
      modelCount: models.length,
      counts: rs.allocatableModelings.map((m) => m.count ?? 0),
    };
  }
  return {
    allocatablePods: podsValue(rs.allocatable),
    allocatedPods: podsValue(rs.allocated),
    allocatingPods: podsValue(rs.allocating),
    resource,
    models: parsedModels,
    source: rs,
    estimates: new Map(),
  };
}

const requestCache = new Map<string, ParsedRequest | null>();

function parseRequest(name: string, raw: unknown): ParsedRequest | null {
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
  const cached = summary.estimates.get(key);
  if (cached !== undefined) return cached;
  let n: number | null = null;
  if (modeling) n = byModels(summary.models!, requests);
  if (n === null) n = bySummary(summary, requests);
  const result = Math.min(max, n, MAX_INT32);
  if (summary.estimates.size >= 512) summary.estimates.clear();
  summary.estimates.set(key, result);
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
  const resource = (name: string): ParsedResource | null => {
    const res = s.resource(name);
    const extra = allocating[name];
    if (!res || !extra) return res;
    const avail = res.avail().sub(extra);
    return { avail: () => avail, availValue: avail.value(), availMilli: avail.milliValue() };
  };
  return { ...s, allocatingPods: s.allocatingPods + pods, resource, estimates: new Map() };
}

export interface AvailabilityOptions extends EstimatorOptions {
  /** Results of other estimators (e.g. an accurate scheduler-estimator), per cluster; -1 means unknown. */
  extraEstimates?: ReadonlyArray<Readonly<Record<string, number>>>;
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
  for (let i = 0; i < clusters.length; i++) {
    const c = clusters[i]!;
    let summary = c.summary();
    const assumed = assumedBy?.get(c.name);
    if (summary && assumed) summary = withAssumed(summary, assumed);
    const key = modelingOn && summary?.models ? keyWithModels : keyWithoutModels;
    let v = generalEstimate(summary, requirements, requests, opts, key);
    for (const extra of opts.extraEstimates ?? []) {
      const e = extra[c.name];
      if (e === undefined || e < 0) continue;
      if (e < v) v = e;
    }
    out[i] = v;
  }
  return out;
}
