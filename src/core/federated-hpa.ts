/**
 * Karmada's FederatedHPA controller (pkg/controllers/federatedhpa, borrowed from Kubernetes' HPA controller),
 * pure. From the FederatedHPA, its target template, the template's ResourceBinding (which Ready clusters
 * hold it), the member Pods its selector picks (`ctx.capacity`, the lean Pod informers) and the members'
 * PodMetrics and custom metrics (`ctx.metrics`, metrics.k8s.io and custom.metrics.k8s.io read by the shell),
 * and the clock: the template's new
 * spec.replicas and the FederatedHPA's status (currentReplicas, desiredReplicas, currentMetrics,
 * lastScaleTime, the AbleToScale / ScalingActive / ScalingLimited conditions), with Karmada's events.
 *
 * The replica calculator runs over all members' Pods together: utilization is the sum of the ready Pods'
 * usage over the sum of their requests, a change within the 0.1 tolerance is none, Pods without metrics or
 * not ready count as Kubernetes counts them. Resource metrics (cpu, memory; Utilization and AverageValue) are
 * served, for whole Pods or one container (ContainerResource); Pods and Object metrics from the members'
 * custom metrics APIs, gathered as karmada-metrics-adapter gathers them; External metrics get the adapter's
 * answer (not implemented).
 *
 * Karmada keeps each autoscaler's recent recommendations and scale events in the controller's memory. Here
 * they are in the status (`status.recommendations`, `status.scaleEvents`, karmada-lite fields), so the
 * reconcile stays a function of what it reads and a restarted controller keeps its stabilization window. To
 * write the status only when something changed, a recommendation is kept as a run: the replicas, since when
 * they were recommended and until when (the next different recommendation), not one entry per sync.
 */
import { generateBindingName } from '../api/constants.js';
import { isClusterReady } from './execution.js';
import type { FederatedHPA } from '../api/generated/types.js';
import { findBuiltinKind } from '../api/kubernetes-kinds.js';
import { deepEqual } from '../json/value.js';
import { Quantity, tryParseQuantity } from '../quantity/quantity.js';
import { CLUSTER, FHPA, RB } from './kinds.js';
import { findCondition, groupOf, parseRefKey, refOf, rfc3339, withMetaAndSpec, type KObject } from './object.js';
import { emptyResult, type CoreEvent, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';
import { matchLabelSelector, selectorString, type LabelSelector } from './selectors.js';
import { parseGoDuration } from './duration.js';

/** The name karmada-lite's --controllers knows it by (Karmada's federatedHorizontalPodAutoscaler). */
export const FHPA_CONTROLLER = 'federated-hpa';
/** `--horizontal-pod-autoscaler-sync-period`'s default: every FederatedHPA is looked at again this often. */
export const FHPA_SYNC_PERIOD_SECONDS = 15;
/** `--horizontal-pod-autoscaler-downscale-stabilization`'s default. */
export const DOWNSCALE_STABILIZATION_SECONDS = 300;
/** `--horizontal-pod-autoscaler-tolerance`'s default. */
export const TOLERANCE = 0.1;
/** `--horizontal-pod-autoscaler-cpu-initialization-period` and `-initial-readiness-delay` defaults. */
export const CPU_INITIALIZATION_PERIOD_SECONDS = 300;
export const INITIAL_READINESS_DELAY_SECONDS = 30;
/** A metrics answer still being fetched: the reconcile is tried again this soon. */
export const METRICS_PENDING_RETRY_SECONDS = 1;

const SCALE_UP_LIMIT_FACTOR = 2;
const SCALE_UP_LIMIT_MINIMUM = 4;

// ---------------------------------------------------------------------------------------------
// The metrics port

/** One Pod's metrics.k8s.io/v1beta1 PodMetrics, as much of it as the calculator reads. */
export interface PodMetricsSample {
  name: string;
  /** When the sample was taken (RFC 3339). */
  timestamp?: string;
  /** The sample's window, a Go duration (`30s`). */
  window?: string;
  containers: ReadonlyArray<{ name?: string; usage?: Readonly<Record<string, string | number>> }>;
}

/** A member's answer to `GET /apis/metrics.k8s.io/v1beta1/namespaces/<ns>/pods?labelSelector=`, or why there is none. */
export type PodMetricsRead = { items: readonly PodMetricsSample[] } | { error: string };

/**
 * The members' resource metrics. undefined: not fetched yet (the shell fetches and the reconcile comes back).
 * Answers may be a sync period old, as the metrics pipeline's are.
 */
export interface MemberMetrics {
  podMetrics(cluster: string, namespace: string, labelSelector: string): PodMetricsRead | undefined;
  /**
   * A member's answer to `GET /apis/custom.metrics.k8s.io/v1beta2/<path>`: `namespaces/<ns>/pods/<name>/<metric>`
   * with the name `*` and a `labelSelector` for a Pods metric, `namespaces/<ns>/<resource>/<name>/<metric>` for an object's;
   * `metricLabelSelector` when the metric has a selector.
   */
  customMetrics(cluster: string, path: string, query: Readonly<Record<string, string>>): CustomMetricsRead | undefined;
}

/** One item of a custom.metrics.k8s.io/v1beta2 MetricValueList: the name of the object it describes, its value. */
export interface CustomMetricSample {
  object: string;
  value: string | number;
  timestamp?: string;
  windowSeconds?: number;
}

export type CustomMetricsRead = { items: readonly CustomMetricSample[] } | { error: string };

// ---------------------------------------------------------------------------------------------
// Types

type Spec = FederatedHPA['spec'];
type Status = NonNullable<FederatedHPA['status']>;
type MetricSpec = NonNullable<Spec['metrics']>[number];
type MetricStatus = NonNullable<Status['currentMetrics']>[number];
type HpaCondition = NonNullable<Status['conditions']>[number];
type Recommendation = NonNullable<Status['recommendations']>[number];
type ScaleEvent = NonNullable<Status['scaleEvents']>[number];
type Rules = NonNullable<NonNullable<Spec['behavior']>['scaleUp']>;
type Policy = NonNullable<Rules['policies']>[number];

/** A member Pod with the cluster it runs in (Pod names repeat across members). */
interface MemberPod {
  key: string;
  pod: KObject;
}

interface PodMetric {
  value: number;
  timestamp: number;
  windowMs: number;
}

/** A metric's proposal, or why it has none. */
type Proposal = { replicas: number; name: string; status: MetricStatus } | { error: string; reason: string } | { pending: true };

// ---------------------------------------------------------------------------------------------
// Small helpers

const milli = (v: string | number | undefined): number | undefined => {
  if (v === undefined) return undefined;
  const q = tryParseQuantity(String(v));
  return typeof q === 'string' ? undefined : q.milliValue();
};

/** A milli-value as resource.NewMilliQuantity(v, DecimalSI) prints it. */
const milliQuantity = (v: number): string => Quantity.fromMilli(Math.trunc(v)).toString();


const isLabelSelector = (v: unknown): v is LabelSelector => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The status's conditions, set as Kubernetes' setCondition does (the transition time moves with the status). */
class Conditions {
  list: HpaCondition[];
  constructor(
    old: readonly HpaCondition[] | undefined,
    private readonly now: Date,
  ) {
    this.list = (old ?? []).map((c) => ({ ...c }));
  }
  set(type: string, status: 'True' | 'False', reason: string, message: string): void {
    const c = this.list.find((x) => x.type === type);
    if (!c) {
      this.list.push({ type, status, lastTransitionTime: rfc3339(this.now), reason, message });
      return;
    }
    if (c.status !== status) c.lastTransitionTime = rfc3339(this.now);
    c.status = status;
    c.reason = reason;
    c.message = message;
  }
}

// ---------------------------------------------------------------------------------------------
// The replica calculator (Kubernetes' GetResourceReplicas / GetRawResourceReplicas)

interface Grouped {
  readyPodCount: number;
  unready: Set<string>;
  missing: Set<string>;
  ignored: Set<string>;
}

/** groupPods: which Pods count, which are unready, which have no metrics, which are ignored. */
function groupPods(pods: readonly MemberPod[], metrics: Map<string, PodMetric>, resource: string, now: number): Grouped {
  const g: Grouped = { readyPodCount: 0, unready: new Set(), missing: new Set(), ignored: new Set() };
  for (const { key, pod } of pods) {
    const phase = pod.status?.phase;
    if (pod.metadata.deletionTimestamp || phase === 'Failed') {
      g.ignored.add(key);
      continue;
    }
    if (phase === 'Pending') {
      g.unready.add(key);
      continue;
    }
    const metric = metrics.get(key);
    if (!metric) {
      g.missing.add(key);
      continue;
    }
    if (resource === 'cpu') {
      const cond = findCondition(pod.status?.conditions, 'Ready');
      const start = typeof pod.status?.startTime === 'string' ? Date.parse(pod.status.startTime) : NaN;
      let unready: boolean;
      if (!cond || Number.isNaN(start)) unready = true;
      else {
        const transition = Date.parse(cond.lastTransitionTime ?? '') || 0;
        // Within the initialisation period a sample taken before one window after readiness is skipped;
        // after it, only a Pod that has never been ready.
        if (start + CPU_INITIALIZATION_PERIOD_SECONDS * 1000 > now) unready = cond.status === 'False' || metric.timestamp < transition + metric.windowMs;
        else unready = cond.status === 'False' && start + INITIAL_READINESS_DELAY_SECONDS * 1000 > transition;
      }
      if (unready) {
        g.unready.add(key);
        continue;
      }
    }
    g.readyPodCount++;
  }
  return g;
}

/** calculatePodRequests: each Pod's summed request of the resource (of one container, if named), or the first container without one. */
function podRequests(pods: readonly MemberPod[], resource: string, container: string | undefined): Map<string, number> | string {
  const out = new Map<string, number>();
  for (const { key, pod } of pods) {
    let sum = 0;
    const containers: unknown[] = Array.isArray(pod.spec?.containers) ? pod.spec.containers : [];
    for (const c of containers) {
      const name = typeof c === 'object' && c !== null && 'name' in c && typeof c.name === 'string' ? c.name : '';
      if (container !== undefined && name !== container) continue;
      const requests = typeof c === 'object' && c !== null && 'resources' in c ? c.resources : undefined;
      const req = typeof requests === 'object' && requests !== null && 'requests' in requests ? requests.requests : undefined;
      const raw = typeof req === 'object' && req !== null && resource in req ? Object.getOwnPropertyDescriptor(req, resource)?.value : undefined;
      const v = typeof raw === 'string' || typeof raw === 'number' ? milli(raw) : undefined;
      if (v === undefined) return `missing request for ${resource} in container ${name} of Pod ${pod.metadata.name}`;
      sum += v;
    }
    out.set(key, sum);
  }
  return out;
}

/** GetResourceUtilizationRatio. */
function utilizationRatio(metrics: Map<string, PodMetric>, requests: Map<string, number>, target: number): { ratio: number; utilization: number; raw: number } | string {
  let total = 0;
  let requested = 0;
  let n = 0;
  for (const [k, m] of metrics) {
    const r = requests.get(k);
    if (r === undefined) continue;
    total += m.value;
    requested += r;
    n++;
  }
  if (requested === 0) return 'no metrics returned matched known pods';
  const utilization = Math.trunc((total * 100) / requested);
  return { ratio: utilization / target, utilization, raw: Math.trunc(total / n) };
}

/** The part of both calculators after the first ratio: missing and unready Pods, then the direction checks. */
function adjustedReplicas(
  current: number,
  ratio: number,
  g: Grouped,
  metrics: Map<string, PodMetric>,
  calibration: number,
  missingOnScaleDown: (key: string) => number,
  recompute: () => number,
): number {
  const scaleUpWithUnready = g.unready.size > 0 && ratio > 1;
  if (!scaleUpWithUnready && g.missing.size === 0) {
    if (Math.abs(1 - ratio) <= TOLERANCE) return current;
    return Math.ceil((ratio * g.readyPodCount) / calibration);
  }
  if (g.missing.size > 0) {
    for (const k of g.missing) {
      if (ratio < 1) metrics.set(k, { value: missingOnScaleDown(k), timestamp: 0, windowMs: 0 });
      else if (ratio > 1) metrics.set(k, { value: 0, timestamp: 0, windowMs: 0 });
    }
  }
  if (scaleUpWithUnready) for (const k of g.unready) metrics.set(k, { value: 0, timestamp: 0, windowMs: 0 });
  const newRatio = recompute();
  if (Math.abs(1 - newRatio) <= TOLERANCE || (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1)) return current;
  const replicas = Math.ceil((newRatio * metrics.size) / calibration);
  if ((newRatio < 1 && replicas > current) || (newRatio > 1 && replicas < current)) return current;
  return replicas;
}

/** The resource metric of each member Pod (the sum over its containers, or one named container's), or why there is none. */
function resourceMetrics(reads: ReadonlyArray<{ cluster: string; read: PodMetricsRead }>, resource: string, namespace: string, container: string | undefined): Map<string, PodMetric> | string {
  const out = new Map<string, PodMetric>();
  const errors: string[] = [];
  let items = 0;
  let containerMissing: string | undefined;
  for (const { cluster, read } of reads) {
    if ('error' in read) {
      errors.push(read.error);
      continue;
    }
    for (const m of read.items) {
      items++;
      if (container !== undefined) {
        const c = m.containers.find((x) => x.name === container);
        if (!c) containerMissing ??= `failed to get container metrics: container ${container} not present in metrics for pod ${namespace}/${m.name}`;
        const v = milli(c?.usage?.[resource]);
        if (v !== undefined) out.set(`${cluster}/${m.name}`, { value: v, timestamp: Date.parse(m.timestamp ?? '') || 0, windowMs: parseGoDuration(m.window ?? '') ?? 0 });
        continue;
      }
      let sum = 0;
      let missing = m.containers.length === 0;
      for (const c of m.containers) {
        const v = milli(c.usage?.[resource]);
        if (v === undefined) {
          missing = true;
          break;
        }
        sum += v;
      }
      if (!missing) out.set(`${cluster}/${m.name}`, { value: sum, timestamp: Date.parse(m.timestamp ?? '') || 0, windowMs: parseGoDuration(m.window ?? '') ?? 0 });
    }
  }
  if (items === 0 && errors.length > 0) return `unable to fetch metrics from resource metrics API: ${errors[0]}`;
  if (items === 0) return 'no metrics returned from resource metrics API';
  return containerMissing ?? out;
}

interface CalcInput {
  current: number;
  pods: readonly MemberPod[];
  reads: ReadonlyArray<{ cluster: string; read: PodMetricsRead }>;
  calibration: number;
  now: number;
  namespace: string;
  /** The Ready members the custom metrics are asked of, the template's selector, and the port. */
  clusters: readonly string[];
  labelSelector: string;
  metrics: MemberMetrics | undefined;
}

/** A Resource or ContainerResource metric's proposal (computeStatusForResourceMetricGeneric). */
function resourceProposal(spec: NonNullable<MetricSpec['resource']> & { container?: string }, input: CalcInput): Proposal {
  const resource = spec.name;
  const container = spec.container;
  const fail = (msg: string): Proposal =>
    container === undefined
      ? { error: `failed to get ${resource} resource metric value: failed to get ${resource} utilization: ${msg}`, reason: 'FailedGetResourceMetric' }
      : { error: `failed to get ${container} container metric value: failed to get ${resource} utilization: ${msg}`, reason: 'FailedGetContainerResourceMetric' };
  const statusOf = (current: NonNullable<MetricStatus['resource']>['current']): MetricStatus =>
    container === undefined ? { type: 'Resource', resource: { name: resource, current } } : { type: 'ContainerResource', containerResource: { name: resource, container, current } };
  const metrics = resourceMetrics(input.reads, resource, input.namespace, container);
  if (typeof metrics === 'string') return fail(`unable to get metrics for resource ${resource}: ${metrics}`);
  if (input.pods.length === 0) return fail('no pods returned by selector while calculating replica count');
  const g = groupPods(input.pods, metrics, resource, input.now);
  for (const k of [...g.ignored, ...g.unready]) metrics.delete(k);
  const averageValue = milli(spec.target.averageValue);
  if (averageValue !== undefined) {
    // GetRawResourceReplicas: a plain average of the usage against the target value.
    if (metrics.size === 0) return fail('did not receive metrics for any ready pods');
    const plain = plainReplicas(metrics, g, averageValue, input);
    return { replicas: plain.replicas, name: `${resource} resource`, status: statusOf({ averageValue: milliQuantity(plain.usage) }) };
  }
  const target = spec.target.averageUtilization;
  if (target === undefined) return fail('invalid resource metric source: neither an average utilization target nor an average value target was set');
  const requests = podRequests(input.pods, resource, container);
  if (typeof requests === 'string') return fail(requests);
  if (metrics.size === 0) return fail('did not receive metrics for any ready pods');
  const first = utilizationRatio(metrics, requests, target);
  if (typeof first === 'string') return fail(first);
  const fallback = Math.max(100, target);
  const replicas = adjustedReplicas(
    input.current,
    first.ratio,
    g,
    metrics,
    input.calibration,
    (k) => Math.trunc(((requests.get(k) ?? 0) * fallback) / 100),
    () => {
      const r = utilizationRatio(metrics, requests, target);
      return typeof r === 'string' ? first.ratio : r.ratio;
    },
  );
  return {
    replicas,
    name: `${resource} ${container === undefined ? '' : 'container '}resource utilization (percentage of request)`,
    status: statusOf({ averageUtilization: first.utilization, averageValue: milliQuantity(first.raw) }),
  };
}

/** calcPlainMetricReplicas after the Pods are grouped: the average against the target, missing and unready Pods as Kubernetes counts them. */
function plainReplicas(metrics: Map<string, PodMetric>, g: Grouped, target: number, input: CalcInput): { replicas: number; usage: number } {
  const usageRatio = (m: Map<string, PodMetric>) => {
    let t = 0;
    for (const x of m.values()) t += x.value;
    const usage = Math.trunc(t / m.size);
    return { ratio: usage / target, usage };
  };
  const first = usageRatio(metrics);
  return { replicas: adjustedReplicas(input.current, first.ratio, g, metrics, input.calibration, () => target, () => usageRatio(metrics).ratio), usage: first.usage };
}

/** metrics-server's window, which the HPA assumes for a custom metric that names none. */
const DEFAULT_METRIC_WINDOW_MS = 60_000;

/**
 * Every Ready member's answer for one custom metric, as karmada-metrics-adapter gathers them: a member that
 * fails is left out, as the adapter only logs it; none answering is the error. undefined: still being fetched.
 */
function customReads(input: CalcInput, path: string, query: Record<string, string>): Array<{ cluster: string; items: readonly CustomMetricSample[] }> | string | undefined {
  if (!input.metrics) return "no custom.metrics.k8s.io to read here: `karmada-lite controller` reads the members' metrics";
  const out: Array<{ cluster: string; items: readonly CustomMetricSample[] }> = [];
  const errors: string[] = [];
  let pending = false;
  for (const cluster of input.clusters) {
    const read = input.metrics.customMetrics(cluster, path, query);
    if (read === undefined) pending = true;
    else if ('error' in read) errors.push(read.error);
    else out.push({ cluster, items: read.items });
  }
  if (pending) return undefined;
  if (out.length === 0) return `unable to fetch metrics from custom metrics API: ${errors[0] ?? 'no member is ready'}`;
  return out;
}

/** The selector of a metric as the custom metrics API takes it (`metricLabelSelector`), none when unset. */
function metricQuery(selector: unknown): Record<string, string> {
  return isLabelSelector(selector) ? { metricLabelSelector: selectorString(selector) } : {};
}

/** A Pods metric (computeStatusForPodsMetric, GetMetricReplicas): each Pod's value from custom.metrics.k8s.io against the target average. */
function podsProposal(spec: NonNullable<MetricSpec['pods']>, input: CalcInput): Proposal {
  const name = spec.metric.name;
  const fail = (msg: string): Proposal => ({ error: `failed to get pods metric value: unable to get metric ${name}: ${msg}`, reason: 'FailedGetPodsMetric' });
  const target = milli(spec.target.averageValue);
  if (target === undefined) return fail('invalid pods metric source: an average value target must be set');
  const reads = customReads(input, `namespaces/${input.namespace}/pods/*/${name}`, { labelSelector: input.labelSelector, ...metricQuery(spec.metric.selector) });
  if (reads === undefined) return { pending: true };
  if (typeof reads === 'string') return fail(reads);
  const metrics = new Map<string, PodMetric>();
  for (const { cluster, items } of reads) {
    for (const it of items) {
      const v = milli(it.value);
      if (v !== undefined) metrics.set(`${cluster}/${it.object}`, { value: v, timestamp: Date.parse(it.timestamp ?? '') || 0, windowMs: it.windowSeconds !== undefined ? it.windowSeconds * 1000 : DEFAULT_METRIC_WINDOW_MS });
    }
  }
  if (metrics.size === 0) return fail('no metrics returned from custom metrics API');
  if (input.pods.length === 0) return fail('no pods returned by selector while calculating replica count');
  const g = groupPods(input.pods, metrics, '', input.now);
  for (const k of [...g.ignored, ...g.unready]) metrics.delete(k);
  if (metrics.size === 0) return fail('did not receive metrics for targeted pods (pods might be unready)');
  const plain = plainReplicas(metrics, g, target, input);
  return {
    replicas: plain.replicas,
    name: `pods metric ${name}`,
    status: { type: 'Pods', pods: { metric: { name, ...(spec.metric.selector ? { selector: spec.metric.selector } : {}) }, current: { averageValue: milliQuantity(plain.usage) } } },
  };
}

/** getReadyPodsCount: Running and Ready. */
function readyPodCount(pods: readonly MemberPod[]): number {
  return pods.filter(({ pod }) => pod.status?.phase === 'Running' && findCondition(pod.status?.conditions, 'Ready')?.status === 'True').length;
}

/**
 * An Object metric (computeStatusForObjectMetric): the described object's value summed over the members, as
 * karmada-metrics-adapter sums one object's metric across clusters; against a Value target by the ready Pods, or
 * against an AverageValue target per replica (GetObjectPerPodMetricReplicas, whose calibration Karmada applies
 * twice when the count changes: kept, as the contract is Karmada's behaviour).
 */
function objectProposal(spec: NonNullable<MetricSpec['object']>, input: CalcInput): Proposal {
  const name = spec.metric.name;
  const obj = spec.describedObject;
  const fail = (msg: string): Proposal => ({ error: `failed to get object metric value: unable to get metric ${name}: ${obj.kind} on ${input.namespace} ${obj.name}/${msg}`, reason: 'FailedGetObjectMetric' });
  const apiVersion = obj.apiVersion ?? 'v1';
  const group = groupOf(apiVersion);
  const namespaceObject = obj.kind === 'Namespace' && group === '';
  const resource = `${findBuiltinKind(apiVersion, obj.kind)?.plural ?? `${obj.kind.toLowerCase()}s`}${group ? `.${group}` : ''}`;
  // A Namespace's own metrics are root-scoped, at the HPA's namespace: the reference cannot leave it.
  const path = namespaceObject ? `namespaces/${input.namespace}/metrics/${name}` : `namespaces/${input.namespace}/${resource}/${obj.name}/${name}`;
  const reads = customReads(input, path, metricQuery(spec.metric.selector));
  if (reads === undefined) return { pending: true };
  if (typeof reads === 'string') return fail(reads);
  let usage = 0;
  let found = false;
  for (const { items } of reads) {
    const v = milli(items[0]?.value);
    if (v === undefined) continue;
    usage += v;
    found = true;
  }
  if (!found) return fail('unable to fetch metrics from custom metrics API: the server could not find the metric');
  const metric = { name, ...(spec.metric.selector ? { selector: spec.metric.selector } : {}) };
  const value = milli(spec.target.value);
  if (value !== undefined) {
    const ratio = usage / value;
    let replicas: number;
    if (input.current === 0) replicas = Math.ceil(ratio);
    else if (Math.abs(1 - ratio) <= TOLERANCE) replicas = input.current;
    else {
      if (input.pods.length === 0) return fail('no pods returned by selector while calculating replica count');
      replicas = Math.ceil((ratio * readyPodCount(input.pods)) / input.calibration);
    }
    return { replicas, name: `${obj.kind} metric ${name}`, status: { type: 'Object', object: { describedObject: obj, metric, current: { value: milliQuantity(usage) } } } };
  }
  const average = milli(spec.target.averageValue);
  if (average === undefined) return fail('invalid object metric source: neither a value target nor an average value target was set');
  let replicas = input.current;
  if (Math.abs(1 - usage / (average * replicas)) > TOLERANCE) replicas = Math.ceil(usage / average / input.calibration);
  return {
    replicas: Math.ceil(replicas / input.calibration),
    name: `external metric ${name}(${spec.metric.selector ? JSON.stringify(spec.metric.selector) : '<nil>'})`,
    status: { type: 'Object', object: { describedObject: obj, metric, current: { averageValue: milliQuantity(Math.ceil(usage / input.current)) } } },
  };
}

function proposal(spec: MetricSpec, input: CalcInput): Proposal {
  if (spec.type === 'Resource' && spec.resource) return resourceProposal(spec.resource, input);
  if (spec.type === 'ContainerResource' && spec.containerResource) return resourceProposal(spec.containerResource, input);
  if (spec.type === 'Pods' && spec.pods) return podsProposal(spec.pods, input);
  if (spec.type === 'Object' && spec.object) return objectProposal(spec.object, input);
  // karmada-metrics-adapter serves no external metrics ("still not implement it"): the same answer here.
  if (spec.type === 'External') return { error: `failed to get external metric value: unable to get external metric ${input.namespace}/${spec.external?.metric.name ?? ''}: karmada-metrics-adapter still not implement it`, reason: 'FailedGetExternalMetric' };
  return { error: `unknown metric source type "${spec.type}"`, reason: 'InvalidMetricSourceType' };
}

// ---------------------------------------------------------------------------------------------
// Normalization: stabilization windows and scaling policies

/** When a recommendation was last made: until the next different one, or still now. */
const lastMade = (r: Recommendation, now: number): number => (r.until ? Date.parse(r.until) : now);

/** Appends the unstabilized recommendation: the open run goes on, or a different value starts a new one. */
function record(recs: Recommendation[], replicas: number, now: Date, keepMs: number): Recommendation[] {
  const t = now.getTime();
  const open = recs[recs.length - 1];
  const kept = recs.filter((r) => r.until === undefined || Date.parse(r.until) >= t - keepMs);
  if (open && open.until === undefined && open.replicas === replicas) return kept;
  return [...kept.map((r) => (r.until === undefined ? { ...r, until: rfc3339(now) } : r)), { replicas, since: rfc3339(now) }];
}

/** The replicas added (up) or removed (down) within a period, from the kept scale events. */
function changeInPeriod(events: readonly ScaleEvent[], periodSeconds: number, up: boolean, now: number): number {
  let n = 0;
  for (const e of events) if ((up ? e.change > 0 : e.change < 0) && Date.parse(e.time) > now - periodSeconds * 1000) n += Math.abs(e.change);
  return n;
}

function scaleUpLimit(current: number, events: readonly ScaleEvent[], rules: Rules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const useMin = rules.selectPolicy === 'Min';
  let result = useMin ? Infinity : -Infinity;
  for (const p of rules.policies ?? []) {
    const start = current - changeInPeriod(events, p.periodSeconds, true, now) + changeInPeriod(events, p.periodSeconds, false, now);
    const proposed = p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100));
    result = useMin ? Math.min(result, proposed) : Math.max(result, proposed);
  }
  return result;
}

function scaleDownLimit(current: number, events: readonly ScaleEvent[], rules: Rules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const useMin = rules.selectPolicy === 'Min';
  let result = useMin ? -Infinity : Infinity;
  for (const p of rules.policies ?? []) {
    const start = current - changeInPeriod(events, p.periodSeconds, true, now) + changeInPeriod(events, p.periodSeconds, false, now);
    const proposed = p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100));
    result = useMin ? Math.max(result, proposed) : Math.min(result, proposed);
  }
  return result;
}

const DEFAULT_UP: Rules = { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] };
const DEFAULT_DOWN: Rules = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

/** The behavior's rules with the webhook's defaults under them (an object admitted without the webhook still works). */
function rulesOf(given: Rules | undefined, defaults: Rules): Rules {
  return { ...defaults, ...Object.fromEntries(Object.entries(given ?? {}).filter(([, v]) => v !== undefined && v !== null)) };
}

const longestPeriod = (rules: Rules): number => Math.max(0, ...(rules.policies ?? []).map((p: Policy) => p.periodSeconds));

interface Normalized {
  desired: number;
  recommendations: Recommendation[];
}

// ---------------------------------------------------------------------------------------------
// The reconciler

export function reconcileFederatedHPA(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const fhpa = ctx.reader.get(FHPA, ref.namespace, ref.name);
  if (!fhpa || fhpa.metadata.deletionTimestamp) return emptyResult();
  const now = ctx.now;
  const t = now.getTime();
  const ns = fhpa.metadata.namespace ?? '';
  const spec = fhpa.spec;
  const old = fhpa.status ?? {};
  const conds = new Conditions(old.conditions, now);
  const events: CoreEvent[] = [];
  const event = (type: 'Normal' | 'Warning', reason: string, message: string) => events.push({ involvedObject: refOf(fhpa), type, reason, message, source: FHPA_CONTROLLER });
  const requeue = { requeueAfterSeconds: FHPA_SYNC_PERIOD_SECONDS };
  const statusWrite = (status: Status): Write[] => (deepEqual(old, status) ? [] : [{ op: 'updateStatus', object: { ...fhpa, status } }]);
  /** A failure before any scale: AbleToScale False, the rest of the status as it was. */
  const cannotScale = (eventReason: string, condReason: string, prefix: string, err: string): ReconcileResult => {
    event('Warning', eventReason, err);
    conds.set('AbleToScale', 'False', condReason, `${prefix}: ${err}`);
    return { writes: statusWrite({ ...old, conditions: conds.list }), events, ...requeue };
  };

  const targetRef = spec.scaleTargetRef;
  const apiVersion = targetRef.apiVersion ?? '';
  if (apiVersion === '' || apiVersion.split('/').length > 2) return cannotScale('FailedGetScale', 'FailedGetScale', "the HPA controller was unable to get the target's current scale", `unexpected GroupVersion string: ${apiVersion}`);
  const before = ctx.reader.get({ apiVersion, kind: targetRef.kind }, ns, targetRef.name);
  if (!before) {
    const plural = findBuiltinKind(apiVersion, targetRef.kind)?.plural ?? `${targetRef.kind.toLowerCase()}s`;
    const group = groupOf(apiVersion);
    return cannotScale('FailedGetScaleTargetRef', 'FailedGetScaleTargetRef', 'the HPA controller was unable to get the target reference object', `${plural}${group ? `.${group}` : ''} "${targetRef.name}" not found`);
  }
  const bindingName = generateBindingName(targetRef.kind, targetRef.name);
  const binding = ctx.reader.get(RB, ns, bindingName);
  if (!binding) return cannotScale('FailedGetBindings', 'FailedGetBinding', 'the HPA controller was unable to get the binding by scaleTargetRef', `resourcebindings.work.karmada.io "${bindingName}" not found`);
  const targets = binding.spec.clusters ?? [];
  if (targets.length === 0) return cannotScale('FailedGetTargetClusters', 'FailedGetTargetClusters', 'the HPA controller was unable to get the target clusters from binding', 'binding has no schedulable clusters');
  const currentReplicas = typeof before.spec?.replicas === 'number' ? before.spec.replicas : undefined;
  if (currentReplicas === undefined) return cannotScale('FailedGetScale', 'FailedGetScale', "the HPA controller was unable to get the target's current scale", `${targetRef.kind} ${targetRef.name} has no scale (spec.replicas)`);
  const ready = targets.filter((c) => isClusterReady(ctx.reader.get(CLUSTER, undefined, c.name)));
  // The members' scales: what the binding gives each Ready member (a Duplicated binding, the template's replicas).
  const memberReplicas = ready.reduce((n, c) => n + (c.replicas ?? currentReplicas), 0);
  if (memberReplicas === 0 && currentReplicas !== 0) return cannotScale('FailedGetScale', 'FailedGetScale', "the HPA controller was unable to get the target's current scale", 'failed to get replicas in any of clusters, possibly because all of clusters are not ready');

  const selector = before.spec?.selector;
  if (!isLabelSelector(selector)) {
    event('Warning', 'SelectorRequired', 'selector is required');
    conds.set('ScalingActive', 'False', 'InvalidSelector', "the HPA target's scale is missing a selector");
  }
  const labelSelector = isLabelSelector(selector) ? selectorString(selector) : '';
  const pods: MemberPod[] = [];
  const reads: Array<{ cluster: string; read: PodMetricsRead }> = [];
  let pending = false;
  for (const c of ready) {
    const memberPods = ctx.capacity?.pods(c.name, ns);
    if (ctx.capacity && memberPods === undefined) pending = true;
    if (isLabelSelector(selector)) for (const p of memberPods ?? []) if (matchLabelSelector(p.metadata.labels, selector)) pods.push({ key: `${c.name}/${p.metadata.name}`, pod: p });
    const read = ctx.metrics ? ctx.metrics.podMetrics(c.name, ns, labelSelector) : { error: 'no metrics.k8s.io to read here: `karmada-lite controller` reads the members\' metrics' };
    if (read === undefined) pending = true;
    else reads.push({ cluster: c.name, read });
  }
  // The members' Pods or metrics are still being fetched: nothing is decided on half of them.
  if (pending) return { writes: [], events: [], requeueAfterSeconds: METRICS_PENDING_RETRY_SECONDS };

  conds.set('AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale");
  const minReplicas = spec.minReplicas ?? 1;
  const behavior = spec.behavior;
  const up = rulesOf(behavior?.scaleUp, DEFAULT_UP);
  const down = rulesOf(behavior?.scaleDown, { ...DEFAULT_DOWN, stabilizationWindowSeconds: DOWNSCALE_STABILIZATION_SECONDS });
  const upWindow = up.stabilizationWindowSeconds ?? 0;
  const downWindow = behavior ? (down.stabilizationWindowSeconds ?? DOWNSCALE_STABILIZATION_SECONDS) : DOWNSCALE_STABILIZATION_SECONDS;
  // recordInitialRecommendation: the current replicas, the first time the autoscaler is seen.
  let recs: Recommendation[] = old.recommendations?.length ? [...old.recommendations] : [{ replicas: currentReplicas, since: rfc3339(now) }];
  let scaleEvents: ScaleEvent[] = (old.scaleEvents ?? []).filter((e) => Date.parse(e.time) > t - Math.max(longestPeriod(up), longestPeriod(down)) * 1000);

  let desired = 0;
  let rescaleReason = '';
  let rescale = true;
  // Only a metrics pass reports metrics (a scale to a bound reads none, as in Kubernetes).
  const metricStatuses: MetricStatus[] = [];
  if (memberReplicas === 0 && minReplicas !== 0) {
    rescale = false;
    conds.set('ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
  } else if (currentReplicas > spec.maxReplicas) {
    rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
    desired = spec.maxReplicas;
  } else if (currentReplicas < minReplicas) {
    rescaleReason = 'Current number of replicas below Spec.MinReplicas';
    desired = minReplicas;
  } else if (!isLabelSelector(selector)) {
    const message = "failed to compute desired number of replicas based on listed metrics: the HPA target's scale is missing a selector";
    event('Warning', 'FailedComputeMetricsReplicas', message);
    return { writes: statusWrite({ ...old, currentReplicas, conditions: conds.list }), events, ...requeue };
  } else {
    const input: CalcInput = { current: currentReplicas, pods, reads, calibration: memberReplicas / currentReplicas, now: t, namespace: ns, clusters: ready.map((c) => c.name), labelSelector, metrics: ctx.metrics };
    const metrics = spec.metrics?.length ? spec.metrics : [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
    let proposed = 0;
    let metricName = '';
    let invalid = 0;
    let firstError: { error: string; reason: string } | undefined;
    const proposals = metrics.map((m) => proposal(m, input));
    // A custom metric still being fetched: nothing is decided on part of the metrics.
    if (proposals.some((p) => 'pending' in p)) return { writes: [], events: [], requeueAfterSeconds: METRICS_PENDING_RETRY_SECONDS };
    for (const p of proposals) {
      if ('pending' in p) continue;
      if ('error' in p) {
        event('Warning', p.reason, p.error);
        firstError ??= p;
        invalid++;
        continue;
      }
      metricStatuses.push(p.status);
      if (proposed === 0 || p.replicas > proposed) {
        proposed = p.replicas;
        metricName = p.name;
      }
    }
    if (firstError && (invalid >= metrics.length || proposed < currentReplicas)) {
      conds.set('ScalingActive', 'False', firstError.reason, `the HPA was unable to compute the replica count: ${firstError.error}`);
      event('Warning', 'FailedComputeMetricsReplicas', `invalid metrics (${invalid} invalid out of ${metrics.length}), first error is: ${firstError.error}`);
      return { writes: statusWrite({ ...old, currentReplicas, desiredReplicas: old.desiredReplicas ?? 0, conditions: conds.list, recommendations: recs }), events, ...requeue };
    }
    conds.set('ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${metricName}`);
    desired = proposed;
    if (desired > currentReplicas) rescaleReason = `${metricName} above target`;
    if (desired < currentReplicas) rescaleReason = 'All metrics below target';
    const n = behavior
      ? normalizeWithBehaviors(conds, recs, scaleEvents, { current: currentReplicas, desired, min: minReplicas, max: spec.maxReplicas, up, down, upWindow, downWindow }, now)
      : normalize(conds, recs, { current: currentReplicas, desired, min: minReplicas, max: spec.maxReplicas }, now);
    desired = n.desired;
    recs = n.recommendations;
    rescale = desired !== currentReplicas;
  }

  const writes: Write[] = [];
  let lastScaleTime = old.lastScaleTime;
  if (rescale) {
    const target = withMetaAndSpec(before);
    target.spec.replicas = desired;
    const failed: CoreEvent = { involvedObject: refOf(fhpa), type: 'Warning', reason: 'FailedRescale', message: `New size: ${desired}; reason: ${rescaleReason}`, source: FHPA_CONTROLLER };
    writes.push({ op: 'update', object: target, failureEvents: [failed] });
    conds.set('AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desired}`);
    event('Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${rescaleReason}`);
    if (behavior) scaleEvents = [...scaleEvents, { change: desired - currentReplicas, time: rfc3339(now) }];
    lastScaleTime = rfc3339(now);
  } else desired = currentReplicas;

  const status: Status = {
    ...(lastScaleTime ? { lastScaleTime } : {}),
    currentReplicas,
    desiredReplicas: desired,
    ...(metricStatuses.length ? { currentMetrics: metricStatuses } : {}),
    conditions: conds.list,
    recommendations: recs,
    ...(scaleEvents.length ? { scaleEvents } : {}),
  };
  writes.push(...statusWrite(status));
  return { writes, events, ...requeue };
}

/** normalizeDesiredReplicas: the downscale stabilization window, then the min/max and the 2x scale-up limit. */
function normalize(conds: Conditions, recs: Recommendation[], a: { current: number; desired: number; min: number; max: number }, now: Date): Normalized {
  const t = now.getTime();
  const cutoff = t - DOWNSCALE_STABILIZATION_SECONDS * 1000;
  let stabilized = a.desired;
  for (const r of recs) if (lastMade(r, t) >= cutoff) stabilized = Math.max(stabilized, r.replicas);
  const recommendations = record(recs, a.desired, now, DOWNSCALE_STABILIZATION_SECONDS * 1000);
  if (stabilized !== a.desired) conds.set('AbleToScale', 'True', 'ScaleDownStabilized', 'recent recommendations were higher than current one, applying the highest recent recommendation');
  else conds.set('AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size');
  const upLimit = Math.max(SCALE_UP_LIMIT_FACTOR * a.current, SCALE_UP_LIMIT_MINIMUM);
  const rateLimited = a.max > upLimit;
  let desired = stabilized;
  let reason = 'DesiredWithinRange';
  let message = 'the desired count is within the acceptable range';
  if (stabilized < a.min) {
    desired = a.min;
    reason = 'TooFewReplicas';
    message = 'the desired replica count is less than the minimum replica count';
  } else if (stabilized > (rateLimited ? upLimit : a.max)) {
    desired = rateLimited ? upLimit : a.max;
    reason = rateLimited ? 'ScaleUpLimit' : 'TooManyReplicas';
    message = rateLimited ? 'the desired replica count is increasing faster than the maximum scale rate' : 'the desired replica count is more than the maximum replica count';
  }
  conds.set('ScalingLimited', desired === stabilized ? 'False' : 'True', reason, message);
  return { desired, recommendations };
}

interface BehaviorArgs {
  current: number;
  desired: number;
  min: number;
  max: number;
  up: Rules;
  down: Rules;
  upWindow: number;
  downWindow: number;
}

/** normalizeDesiredReplicasWithBehaviors: both stabilization windows, then the policies' rate limits. */
function normalizeWithBehaviors(conds: Conditions, recs: Recommendation[], events: readonly ScaleEvent[], a: BehaviorArgs, now: Date): Normalized {
  const t = now.getTime();
  const upCutoff = t - a.upWindow * 1000;
  const downCutoff = t - a.downWindow * 1000;
  let upRec = a.desired;
  let downRec = a.desired;
  for (const r of recs) {
    const last = lastMade(r, t);
    if (last > upCutoff) upRec = Math.min(upRec, r.replicas);
    if (last > downCutoff) downRec = Math.max(downRec, r.replicas);
  }
  const stabilized = Math.min(Math.max(a.current, upRec), downRec);
  const recommendations = record(recs, a.desired, now, Math.max(a.upWindow, a.downWindow) * 1000);
  if (stabilized !== a.desired) {
    if (a.desired >= a.current) conds.set('AbleToScale', 'True', 'ScaleUpStabilized', 'recent recommendations were lower than current one, applying the lowest recent recommendation');
    else conds.set('AbleToScale', 'True', 'ScaleDownStabilized', 'recent recommendations were higher than current one, applying the highest recent recommendation');
  } else conds.set('AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size');

  let desired = stabilized;
  let reason = 'DesiredWithinRange';
  let message = 'the desired count is within the acceptable range';
  if (stabilized > a.current) {
    const limit = Math.max(scaleUpLimit(a.current, events, a.up, t), a.current);
    const rateLimited = a.max > limit;
    const maxAllowed = rateLimited ? limit : a.max;
    if (stabilized > maxAllowed) {
      desired = maxAllowed;
      reason = rateLimited ? 'ScaleUpLimit' : 'TooManyReplicas';
      message = rateLimited ? 'the desired replica count is increasing faster than the maximum scale rate' : 'the desired replica count is more than the maximum replica count';
    }
  } else if (stabilized < a.current) {
    const limit = Math.min(scaleDownLimit(a.current, events, a.down, t), a.current);
    const rateLimited = a.min < limit;
    const minAllowed = rateLimited ? limit : a.min;
    if (stabilized < minAllowed) {
      desired = minAllowed;
      reason = rateLimited ? 'ScaleDownLimit' : 'TooFewReplicas';
      message = rateLimited ? 'the desired replica count is decreasing faster than the maximum scale rate' : 'the desired replica count is less than the minimum replica count';
    }
  }
  conds.set('ScalingLimited', desired === stabilized ? 'False' : 'True', reason, message);
  return { desired, recommendations };
}

