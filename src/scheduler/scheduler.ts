/**
 * `schedule(binding, clusters, previous, clock)`: one pass of Karmada's scheduler over one binding
 * (`doScheduleBinding` + `scheduleResourceBinding*`, spec §4 and §7), as a pure function. It returns
 * what the scheduler would write (spec.clusters, the applied-placement annotation, the status fields
 * it owns) and the events it would emit; the caller does the writing.
 */
import { FitError, runAlgorithm, type AlgorithmOptions, type AlgorithmTrace } from './generic.js';
import { UnschedulableError } from './division.js';
import { activeEvictionBlocks } from './filters.js';
import { rescheduleRequired } from './assignment.js';
import {
  APPLIED_PLACEMENT_ANNOTATION,
  CONDITION_SCHEDULED,
  DEFAULT_SCHEDULER_NAME,
  EVENT_SCHEDULE_FAILED,
  EVENT_SCHEDULE_SUCCEED,
  REASON_NO_CLUSTER_FIT,
  REASON_SCHEDULER_ERROR,
  REASON_SUCCESS,
  REASON_UNSCHEDULABLE,
  SUCCESSFUL_SCHEDULING_MESSAGE,
} from './messages.js';
import { toSnapshot, type ClusterSnapshot } from './snapshot.js';
import { scheduleTrigger, type ScheduleTrigger } from './triggers.js';
import {
  nowOf,
  type Binding,
  type Clock,
  type Cluster,
  type Condition,
  type ResourceBindingSpec,
  type ResourceBindingStatus,
  type TargetCluster,
} from './types.js';

export interface ScheduleOptions extends AlgorithmOptions {
  /** This scheduler's name; bindings for another scheduler are skipped. Default `default-scheduler`. */
  schedulerName?: string;
}

/**
 * The outcome of an earlier pass that has not been written back to the binding yet. Each field, when
 * present, replaces the binding's own value.
 */
export interface PreviousSchedule {
  clusters?: TargetCluster[] | null;
  appliedPlacement?: string;
  schedulerObservingAffinityName?: string;
  lastScheduledTime?: string | null;
  schedulerObservedGeneration?: number;
  conditions?: Condition[] | null;
}

export interface ScheduleEvent {
  /** Karmada records each event on the binding and again on the resource template. */
  object: 'binding' | 'resource';
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export type ErrorKind = 'FitError' | 'Unschedulable' | 'SchedulerError';

/** The status fields the scheduler owns, as they stand after this pass. */
export interface SchedulerStatus {
  conditions?: Condition[];
  schedulerObservedGeneration?: number;
  lastScheduledTime?: string;
  schedulerObservingAffinityName?: string;
}

export interface ExplainedCluster {
  name: string;
  score: number;
  allocatable: number;
  available: number;
  overflowOrder: number;
}

export interface ScheduleResult {
  /**
   * Skipped: the binding is being deleted, not ours, or suspended. Unchanged: nothing called for
   * scheduling. Scheduled / Failed: the algorithm ran.
   */
  action: 'Skipped' | 'Unchanged' | 'Scheduled' | 'Failed';
  trigger?: ScheduleTrigger;
  skipReason?: string;
  /** The new `spec.clusters`: null clears it (no cluster fits); undefined leaves it as it is. */
  clusters?: TargetCluster[] | null;
  /** The new value of the `policy.karmada.io/applied-placement` annotation; undefined leaves it. */
  appliedPlacement?: string;
  /** The clusterAffinities term in use after this pass (`status.schedulerObservingAffinityName`). */
  affinityName?: string;
  /** The Scheduled condition, when this pass set it. */
  condition?: Condition;
  status: SchedulerStatus;
  /** Whether `status` differs from the binding's: Karmada sends no patch otherwise. */
  statusChanged: boolean;
  error?: { kind: ErrorKind; message: string };
  /** Whether Karmada would requeue the binding (FitError is not retried; the next event re-runs it). */
  retry: boolean;
  events: ScheduleEvent[];
  /** Why each rejected cluster was filtered out, for the reported attempt (on failure, or with `options.explain`). */
  diagnosis?: Record<string, string>;
  /** With `options.explain`: the feasible clusters in the global order, with the figures that ordered them. */
  feasible?: ExplainedCluster[];
  /**
   * karmada-lite: the earliest time an eviction-history block ends, so a controller can requeue a
   * binding that failed while clusters were blocked.
   */
  evictionBlockExpiresAt?: string;
}

let lastSecond = NaN;
let lastFormatted = '';

/** metav1.Time serialises to whole seconds. */
export function formatTime(d: Date): string {
  const second = Math.floor(d.getTime() / 1000);
  if (second !== lastSecond) {
    lastFormatted = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastSecond = second;
  }
  return lastFormatted;
}

function isClusterScoped(b: Binding): boolean {
  return b.kind === 'ClusterResourceBinding' || (b.kind === undefined && !b.metadata.namespace);
}

function bindingKey(b: Binding): string {
  return isClusterScoped(b) ? (b.metadata.name ?? '') : `${b.metadata.namespace ?? ''}/${b.metadata.name ?? ''}`;
}

function errorKind(e: Error): ErrorKind {
  if (e instanceof FitError) return 'FitError';
  if (e instanceof UnschedulableError) return 'Unschedulable';
  return 'SchedulerError';
}

/** `meta.SetStatusCondition`: the transition time moves only when the status flips. */
export function setCondition(
  conditions: readonly Condition[] | null | undefined,
  c: Omit<Condition, 'lastTransitionTime'>,
  now: string,
): Condition[] {
  const out = (conditions ?? []).map((x) => ({ ...x }));
  const i = out.findIndex((x) => x.type === c.type);
  if (i < 0) {
    out.push({ type: c.type, status: c.status, reason: c.reason, message: c.message, lastTransitionTime: now });
    return out;
  }
  const old = out[i]!;
  const next: Condition = {
    type: c.type,
    status: c.status,
    reason: c.reason,
    message: c.message,
    lastTransitionTime: old.status !== c.status || !old.lastTransitionTime ? now : old.lastTransitionTime,
  };
  out[i] = next;
  return out;
}

function resultString(clusters: readonly TargetCluster[] | null): string {
  let out = '';
  for (const c of clusters ?? []) out += `${out === '' ? '' : ', '}${c.name}:${c.replicas ?? 0}`;
  return out;
}

function explain(
  trace: AlgorithmTrace | undefined,
  withFeasible: boolean,
  failed: boolean,
): Pick<ScheduleResult, 'diagnosis' | 'feasible'> {
  if (!trace || (!withFeasible && !failed)) return {};
  const diagnosis: Record<string, string> = {};
  for (const r of trace.rejected) diagnosis[r.name] = r.failure.reason;
  if (!withFeasible) return { diagnosis };
  return {
    diagnosis,
    feasible: trace.feasible.map((d) => ({
      name: d.name,
      score: d.score,
      allocatable: d.allocatable,
      available: d.available,
      overflowOrder: d.overflowOrder,
    })),
  };
}

function sameCondition(a: Condition, b: Condition): boolean {
  return (
    a.type === b.type &&
    a.status === b.status &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.lastTransitionTime === b.lastTransitionTime &&
    a.observedGeneration === b.observedGeneration
  );
}

function sameStatus(a: SchedulerStatus, b: SchedulerStatus): boolean {
  if (
    a.schedulerObservedGeneration !== b.schedulerObservedGeneration ||
    a.lastScheduledTime !== b.lastScheduledTime ||
    a.schedulerObservingAffinityName !== b.schedulerObservingAffinityName
  ) {
    return false;
  }
  const ca = a.conditions ?? [];
  const cb = b.conditions ?? [];
  return ca.length === cb.length && ca.every((c, i) => sameCondition(c, cb[i]!));
}

function ownStatus(s: ResourceBindingStatus): SchedulerStatus {
  const o: SchedulerStatus = {};
  if (s.conditions) o.conditions = s.conditions;
  if (s.schedulerObservedGeneration !== undefined) o.schedulerObservedGeneration = s.schedulerObservedGeneration;
  if (s.lastScheduledTime) o.lastScheduledTime = s.lastScheduledTime;
  if (s.schedulerObservingAffinityName) o.schedulerObservingAffinityName = s.schedulerObservingAffinityName;
  return o;
}

/** Karmada records each scheduling event twice: on the binding and on the resource template. */
function emit(events: ScheduleEvent[], type: 'Normal' | 'Warning', reason: string, message: string): void {
  events.push({ object: 'binding', type, reason, message }, { object: 'resource', type, reason, message });
}

function unchanged(
  action: ScheduleResult['action'],
  status: SchedulerStatus,
  events: ScheduleEvent[],
  affinityName: string | undefined,
  extra: Partial<ScheduleResult> = {},
): ScheduleResult {
  return { action, status, statusChanged: false, retry: false, events, affinityName, ...extra };
}

/** What one scheduling pass decided, before it is turned into writes. */
interface Attempt {
  /** New spec.clusters: null clears them (FitError), undefined leaves them. */
  clusters?: TargetCluster[] | null;
  patchAnnotation: boolean;
  affinityName: string;
  error?: Error;
  trace?: AlgorithmTrace;
}

interface AttemptContext {
  spec: ResourceBindingSpec;
  status: ResourceBindingStatus;
  snapshot: ClusterSnapshot;
  now: number;
  options: ScheduleOptions;
  events: ScheduleEvent[];
  /** `ResourceBinding(ns/name)` or `ClusterResourceBinding(name)`, as in Karmada's messages. */
  label: string;
}

/**
 * `scheduleResourceBindingWithClusterAffinity`: a FitError still writes its (empty) result and the
 * applied placement; any other error leaves the binding alone.
 */
function withClusterAffinity(ctx: AttemptContext): Attempt {
  const res = runAlgorithm(ctx.spec, ctx.status, ctx.snapshot, ctx.now, ctx.options);
  const observed = ctx.status.schedulerObservingAffinityName ?? '';
  if (res.ok) return { clusters: res.clusters, patchAnnotation: true, affinityName: observed, trace: res.trace };
  emit(ctx.events, 'Warning', EVENT_SCHEDULE_FAILED, res.error.message);
  if (res.error instanceof FitError)
    return { clusters: null, patchAnnotation: true, affinityName: observed, error: res.error, trace: res.trace };
  return { patchAnnotation: false, affinityName: observed, error: res.error, trace: res.trace };
}

/**
 * `scheduleResourceBindingWithClusterAffinities`: tries the observed term, then each later one; only
 * an explicit reschedule starts again from the first. When all fail, the first error is reported and
 * the observed term is kept.
 */
function withClusterAffinities(ctx: AttemptContext): Attempt {
  const { spec, status } = ctx;
  const terms = spec.placement!.clusterAffinities!;
  const observed = status.schedulerObservingAffinityName ?? '';
  let index = Math.max(
    0,
    terms.findIndex((t) => t.affinityName === observed),
  );
  if (rescheduleRequired(spec.rescheduleTriggeredAt, status.lastScheduledTime)) index = 0;
  let firstErr: Error | undefined;
  let firstTrace: AlgorithmTrace | undefined;
  for (; index < terms.length; index++) {
    const name = terms[index]!.affinityName;
    const res = runAlgorithm(spec, { ...status, schedulerObservingAffinityName: name }, ctx.snapshot, ctx.now, ctx.options);
    if (res.ok) return { clusters: res.clusters, patchAnnotation: true, affinityName: name, trace: res.trace };
    if (!firstErr) {
      firstErr = res.error;
      firstTrace = res.trace;
    }
    emit(
      ctx.events,
      'Warning',
      EVENT_SCHEDULE_FAILED,
      `failed to schedule ${ctx.label} with clusterAffiliates index(${index}): ${res.error.message}`,
    );
  }
  // No term at all (an empty, non-nil list): Karmada returns without error and writes nothing.
  if (!firstErr) return { patchAnnotation: false, affinityName: observed };
  if (!(firstErr instanceof FitError)) return { patchAnnotation: false, affinityName: observed, error: firstErr, trace: firstTrace };
  emit(ctx.events, 'Warning', EVENT_SCHEDULE_FAILED, firstErr.message);
  return { clusters: null, patchAnnotation: true, affinityName: observed, error: firstErr, trace: firstTrace };
}

export function schedule(
  binding: Binding,
  clusters: readonly Cluster[] | ClusterSnapshot,
  previous?: PreviousSchedule | null,
  clock: Clock = new Date(),
  options: ScheduleOptions = {},
): ScheduleResult {
  const nowDate = nowOf(clock);
  const now = nowDate.getTime();
  const nowStr = formatTime(nowDate);
  const key = bindingKey(binding);
  const crb = isClusterScoped(binding);
  const kindWord = crb ? 'ClusterResourceBinding' : 'ResourceBinding';

  const spec: ResourceBindingSpec = previous?.clusters !== undefined ? { ...binding.spec, clusters: previous.clusters } : binding.spec;
  const baseStatus: ResourceBindingStatus = { ...(binding.status ?? {}) };
  if (previous) {
    if (previous.schedulerObservingAffinityName !== undefined) baseStatus.schedulerObservingAffinityName = previous.schedulerObservingAffinityName;
    if (previous.lastScheduledTime !== undefined) baseStatus.lastScheduledTime = previous.lastScheduledTime;
    if (previous.schedulerObservedGeneration !== undefined) baseStatus.schedulerObservedGeneration = previous.schedulerObservedGeneration;
    if (previous.conditions !== undefined) baseStatus.conditions = previous.conditions;
  }
  const applied = previous?.appliedPlacement ?? binding.metadata.annotations?.[APPLIED_PLACEMENT_ANNOTATION];
  const generation = binding.metadata.generation ?? 0;

  const before = ownStatus(baseStatus);
  const events: ScheduleEvent[] = [];
  const observedName = baseStatus.schedulerObservingAffinityName;

  if (binding.metadata.deletionTimestamp) {
    emit(events, 'Warning', EVENT_SCHEDULE_FAILED, `skip schedule deleting ${crb ? 'clusterResourceBinding' : 'resourceBinding'}: ${key}`);
    return unchanged('Skipped', before, events, observedName, { skipReason: 'binding is being deleted' });
  }
  const schedulerName = options.schedulerName ?? DEFAULT_SCHEDULER_NAME;
  if ((spec.schedulerName || DEFAULT_SCHEDULER_NAME) !== schedulerName) {
    return unchanged('Skipped', before, events, observedName, { skipReason: `binding is for scheduler ${spec.schedulerName}` });
  }
  if (spec.suspension?.scheduling === true)
    return unchanged('Skipped', before, events, observedName, { skipReason: 'scheduling is suspended' });
  if (!spec.placement) {
    const message = `failed to get placement from ${crb ? 'clusterResourceBinding' : 'resourceBinding'}(${key})`;
    return unchanged('Failed', before, events, observedName, { error: { kind: 'SchedulerError', message }, retry: true });
  }

  const snapshot = toSnapshot(clusters);
  const trigger = scheduleTrigger(spec, baseStatus, applied, snapshot);
  if (!trigger) {
    if (generation === (baseStatus.schedulerObservedGeneration ?? 0)) return unchanged('Unchanged', before, events, observedName);
    const status = { ...before, schedulerObservedGeneration: generation };
    return { ...unchanged('Unchanged', before, events, observedName), status, statusChanged: true };
  }

  const placementJSON = JSON.stringify(spec.placement);
  const ctx: AttemptContext = { spec, status: baseStatus, snapshot, now, options, events, label: `${kindWord}(${key})` };
  const attempt = spec.placement.clusterAffinities != null ? withClusterAffinities(ctx) : withClusterAffinity(ctx);

  if (!attempt.error && attempt.clusters !== undefined) {
    const sep = crb ? ' Result {' : ' Result: {';
    emit(events, 'Normal', EVENT_SCHEDULE_SUCCEED, `${SUCCESSFUL_SCHEDULING_MESSAGE}${sep}${resultString(attempt.clusters)}}`);
  }

  const err = attempt.error;
  const kind = err ? errorKind(err) : undefined;
  const reason = !err
    ? REASON_SUCCESS
    : kind === 'FitError'
      ? REASON_NO_CLUSTER_FIT
      : kind === 'Unschedulable'
        ? REASON_UNSCHEDULABLE
        : REASON_SCHEDULER_ERROR;
  const conditionStatus = err ? 'False' : 'True';
  const conditions = setCondition(
    baseStatus.conditions,
    { type: CONDITION_SCHEDULED, status: conditionStatus, reason, message: err ? err.message : SUCCESSFUL_SCHEDULING_MESSAGE },
    nowStr,
  );
  const condition = conditions.find((c) => c.type === CONDITION_SCHEDULED)!;
  const status: SchedulerStatus = { ...before, conditions };
  if (!err) {
    status.schedulerObservedGeneration = generation;
    status.lastScheduledTime = nowStr;
  }
  if (attempt.affinityName) status.schedulerObservingAffinityName = attempt.affinityName;

  const blocks = activeEvictionBlocks(spec, now).filter((b) => Number.isFinite(b.until));
  const result: ScheduleResult = {
    action: err ? 'Failed' : 'Scheduled',
    trigger,
    affinityName: attempt.affinityName || undefined,
    condition,
    status,
    statusChanged: !sameStatus(before, status),
    retry: !!err && kind !== 'FitError',
    events,
    ...explain(attempt.trace, options.explain === true, !!err),
  };
  if (attempt.clusters !== undefined) result.clusters = attempt.clusters;
  if (attempt.patchAnnotation) result.appliedPlacement = placementJSON;
  if (err) result.error = { kind: kind!, message: err.message };
  if (blocks.length > 0) result.evictionBlockExpiresAt = formatTime(new Date(Math.min(...blocks.map((b) => b.until))));
  return result;
}
