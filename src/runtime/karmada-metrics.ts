/**
 * Karmada's own Prometheus metrics, beside karmada-lite's, under Karmada's names, types, labels and buckets
 * (pkg/scheduler/metrics, pkg/metrics/resource.go, pkg/metrics/version.go; the cluster gauges of
 * pkg/metrics/cluster.go are in metrics.ts), so that a dashboard built on Karmada's controller-manager and
 * scheduler reads this controller unchanged. The reconcilers stay pure: each series is read off what the
 * runner reports of a reconcile (its key, writes, failed write, events) and off the scheduler port's
 * answers. `karmadaObservations` is that mapping, pure; the class only records.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { EventReasonPreemptPolicyFailed, EventReasonPreemptPolicySucceed } from '../api/constants.js';
import { BINDING } from '../core/binding.js';
import { hasAnyClaim } from '../core/claim.js';
import { DETECTOR, LAZY_PREFIX } from '../core/detector.js';
import { EXECUTION } from '../core/execution.js';
import { CLUSTER, is, isBinding, isPolicy, WORK } from '../core/kinds.js';
import { parseRefKey, refKey, refOf, type KObject } from '../core/object.js';
import type { ObjectChange, ObjectReader, ScheduleFn, Write } from '../core/ports.js';
import { SCHEDULER } from '../core/scheduling.js';
import type { AlgorithmObserver, ScheduleStep } from '../scheduler/index.js';
import { VERSION } from '../version.js';
import { exponentialBuckets } from './buckets.js';
import type { ReconcileDetail } from './runner.js';

export { exponentialBuckets };

/** Karmada's Subsystem for the scheduler's own metrics (no Namespace: the names start with it). */
const SCHEDULER_SUBSYSTEM = 'karmada_scheduler';

/** Karmada's label for member clusters. */
const MEMBER_CLUSTER = 'member_cluster';

type Result = 'success' | 'error';

interface MemberWriteObservation {
  metric: 'member_write';
  op: 'create' | 'update' | 'delete';
  result: Result;
  apiVersion: string;
  kind: string;
  cluster: string;
}

/** What one reconcile stands for in Karmada's metrics. */
export type KarmadaObservation =
  | { metric: 'binding_sync_work'; result: Result; seconds: number }
  | { metric: 'work_sync_workload'; result: Result; seconds: number }
  | { metric: 'apply_policy'; result: Result; seconds: number }
  | { metric: 'policy_preemption'; result: Result }
  | MemberWriteObservation;

const resultOf = (error: unknown): Result => (error === undefined ? 'success' : 'error');

/** A write of the execution controller to a member object (Karmada's ObjectWatcher create, update, delete). */
function memberWrite(w: Write, result: Result): MemberWriteObservation | undefined {
  if (w.cluster === undefined || w.op === 'updateStatus') return undefined;
  const r = w.op === 'delete' ? w.ref : w.object;
  return { metric: 'member_write', op: w.op, result, apiVersion: r.apiVersion, kind: r.kind, cluster: w.cluster };
}

/**
 * Karmada's observations for one reconcile. `subject`: the object the key names, as the reader has it once
 * the reconcile is done (undefined when there is none). The rules, each where Karmada records:
 * - binding controller: `binding_sync_work_duration_seconds` for a binding that exists and is not being
 *   deleted (Karmada's syncBinding);
 * - execution controller: one `create/update_resource_to_cluster` or `delete_resource_from_cluster` per member
 *   write tried, and `work_sync_workload_duration_seconds` when it applied manifests (a member create or
 *   update tried) or wrote the Work's Applied status (Karmada's syncWork);
 * - detector: `policy_apply_attempts_total` and `resource_apply_policy_duration_seconds` when a policy claims
 *   the template or a binding was written for it (Karmada's ApplyPolicy), `policy_preemption_total` per
 *   preemption event.
 */
export function karmadaObservations(controller: string, seconds: number, error: string | undefined, detail: ReconcileDetail, subject: KObject | undefined): KarmadaObservation[] {
  const out: KarmadaObservation[] = [];
  const result = resultOf(error);
  if (controller === BINDING) {
    if (subject && !subject.metadata.deletionTimestamp) out.push({ metric: 'binding_sync_work', result, seconds });
  } else if (controller === EXECUTION) {
    let synced = false;
    for (const w of detail.writes) {
      const m = memberWrite(w, 'success');
      if (m) out.push(m);
      if ((m && m.op !== 'delete') || (w.op === 'updateStatus' && w.cluster === undefined && is(w.object, WORK))) synced = true;
    }
    const failed = detail.failed && memberWrite(detail.failed, 'error');
    if (failed) out.push(failed);
    if (failed?.op === 'create' || failed?.op === 'update') synced = true;
    if (synced) out.push({ metric: 'work_sync_workload', result, seconds });
  } else if (controller === DETECTOR) {
    const bindingWritten = [...detail.writes, ...(detail.failed ? [detail.failed] : [])].some((w) => w.op !== 'delete' && w.cluster === undefined && isBinding(w.object));
    if (bindingWritten || (subject && hasAnyClaim(subject))) out.push({ metric: 'apply_policy', result, seconds });
    for (const e of detail.events) {
      if (e.reason === EventReasonPreemptPolicySucceed) out.push({ metric: 'policy_preemption', result: 'success' });
      else if (e.reason === EventReasonPreemptPolicyFailed) out.push({ metric: 'policy_preemption', result: 'error' });
    }
  }
  return out;
}

/** Karmada's scheduler event names (pkg/scheduler/metrics) for a change that puts bindings in the scheduler's queue. */
export function schedulerEventOf(change: ObjectChange): 'BindingAdd' | 'BindingUpdate' | 'ClusterChanged' | 'PolicyChanged' | undefined {
  if (change.cluster !== undefined) return undefined;
  if (isBinding(change.object)) return change.type === 'ADDED' ? 'BindingAdd' : change.type === 'MODIFIED' ? 'BindingUpdate' : undefined;
  if (is(change.object, CLUSTER)) return 'ClusterChanged';
  if (isPolicy(change.object)) return 'PolicyChanged';
  return undefined;
}

/** Karmada's schedule type for a scheduler trigger: a change of replicas is a ScaleSchedule, every other a ReconcileSchedule. */
export function scheduleTypeOf(trigger: string): 'ScaleSchedule' | 'ReconcileSchedule' {
  return trigger === 'ReplicasChanged' ? 'ScaleSchedule' : 'ReconcileSchedule';
}

/** What the scheduler port answered for a binding, kept until its reconcile ends. */
interface Attempt {
  trigger: string;
  failed: boolean;
}

export class KarmadaMetrics {
  // pkg/scheduler/metrics/metrics.go
  readonly scheduleAttempts: Counter<'result' | 'schedule_type'>;
  readonly e2eSchedulingSeconds: Histogram<'result' | 'schedule_type'>;
  readonly schedulingAlgorithmSeconds: Histogram<'schedule_step'>;
  readonly queueIncomingBindings: Counter<'event'>;
  readonly frameworkExtensionPointSeconds: Histogram<'extension_point' | 'result'>;
  // pkg/metrics/resource.go
  readonly applyPolicySeconds: Histogram<'result'>;
  readonly policyApplyAttempts: Counter<'result'>;
  readonly syncWorkSeconds: Histogram<'result'>;
  readonly syncWorkloadSeconds: Histogram<'result'>;
  readonly createResource: Counter<'result' | 'apiversion' | 'kind' | 'member_cluster' | 'recreate'>;
  readonly updateResource: Counter<'result' | 'apiversion' | 'kind' | 'member_cluster' | 'operationResult'>;
  readonly deleteResource: Counter<'result' | 'apiversion' | 'kind' | 'member_cluster'>;
  readonly policyPreemption: Counter<'result'>;
  // pkg/metrics/version.go
  readonly buildInfo: Gauge<string>;

  /** The scheduler port's answers by binding key, for the scheduler's reconcile of that key to take. */
  private readonly attempts = new Map<string, Attempt>();

  constructor(registry: Registry) {
    const registers = [registry];
    const name = (n: string) => `${SCHEDULER_SUBSYSTEM}_${n}`;
    this.scheduleAttempts = new Counter({ name: name('schedule_attempts_total'), help: 'Number of attempts to schedule a ResourceBinding or ClusterResourceBinding', labelNames: ['result', 'schedule_type'], registers });
    this.e2eSchedulingSeconds = new Histogram({ name: name('e2e_scheduling_duration_seconds'), help: 'E2e scheduling latency in seconds', labelNames: ['result', 'schedule_type'], buckets: exponentialBuckets(0.001, 2, 15), registers });
    this.schedulingAlgorithmSeconds = new Histogram({ name: name('scheduling_algorithm_duration_seconds'), help: 'Scheduling algorithm latency in seconds(exclude scale scheduler)', labelNames: ['schedule_step'], buckets: exponentialBuckets(0.001, 2, 15), registers });
    this.queueIncomingBindings = new Counter({ name: name('queue_incoming_bindings_total'), help: 'Number of ResourceBinding and ClusterResourceBinding objects added to scheduling queues by event type.', labelNames: ['event'], registers });
    this.frameworkExtensionPointSeconds = new Histogram({ name: name('framework_extension_point_duration_seconds'), help: 'Latency for running all plugins of a specific extension point.', labelNames: ['extension_point', 'result'], buckets: exponentialBuckets(0.0001, 2, 12), registers });

    const byResult = 'By the result, \'error\' means';
    this.applyPolicySeconds = new Histogram({ name: 'resource_apply_policy_duration_seconds', help: `Duration in seconds to apply a PropagationPolicy or ClusterPropagationPolicy for the resource templates. ${byResult} a resource template failed to apply the policy. Otherwise 'success'.`, labelNames: ['result'], buckets: exponentialBuckets(0.001, 2, 12), registers });
    this.policyApplyAttempts = new Counter({ name: 'policy_apply_attempts_total', help: `Number of attempts to be applied for a PropagationPolicy or ClusterPropagationPolicy. ${byResult} a resource template failed to apply the policy. Otherwise 'success'.`, labelNames: ['result'], registers });
    this.syncWorkSeconds = new Histogram({ name: 'binding_sync_work_duration_seconds', help: `Duration in seconds to sync works for ResourceBinding and ClusterResourceBinding objects. ${byResult} a binding failed to sync works. Otherwise 'success'.`, labelNames: ['result'], buckets: exponentialBuckets(0.001, 2, 12), registers });
    this.syncWorkloadSeconds = new Histogram({ name: 'work_sync_workload_duration_seconds', help: `Duration in seconds to sync the workload to a target cluster. ${byResult} a work failed to sync workloads. Otherwise 'success'.`, labelNames: ['result'], buckets: exponentialBuckets(0.001, 2, 12), registers });
    this.createResource = new Counter({
      name: 'create_resource_to_cluster',
      help: "Number of creation operations against a target member cluster. The 'result' label indicates outcome ('success' or 'error'), 'recreate' indicates whether the operation is recreated (true/false). Labels 'apiversion', 'kind', and 'member_cluster' specify the resource type, API version, and target cluster respectively.",
      labelNames: ['result', 'apiversion', 'kind', MEMBER_CLUSTER, 'recreate'],
      registers,
    });
    this.updateResource = new Counter({
      name: 'update_resource_to_cluster',
      help: "Number of updating operation of the resource to a target member cluster. By the result, 'error' means a resource updated failed. Otherwise 'success'. member_cluster means the target member cluster. operationResult means the result of the update operation.",
      labelNames: ['result', 'apiversion', 'kind', MEMBER_CLUSTER, 'operationResult'],
      registers,
    });
    this.deleteResource = new Counter({
      name: 'delete_resource_from_cluster',
      help: "Number of deletion operations against a target member cluster. The 'result' label indicates outcome ('success' or 'error'). Labels 'apiversion', 'kind', and 'member_cluster' specify the resource's API version, type, and source cluster respectively.",
      labelNames: ['result', 'apiversion', 'kind', MEMBER_CLUSTER],
      registers,
    });
    this.policyPreemption = new Counter({ name: 'policy_preemption_total', help: `Number of preemption for the resource template. ${byResult} a resource template failed to be preempted by other propagation policies. Otherwise 'success'.`, labelNames: ['result'], registers });

    // karmada-lite's build under Karmada's label set: the runtime stands where Karmada names Go.
    const build = {
      git_version: `karmada-lite-v${VERSION}`,
      git_commit: '',
      git_short_commit: '',
      git_tree_state: '',
      build_date: '',
      go_version: process.version,
      compiler: 'node',
      platform: `${process.platform}/${process.arch}`,
    };
    this.buildInfo = new Gauge({ name: 'karmada_build_info', help: 'Karmada build metadata exposed as labels with a constant value of 1.', labelNames: Object.keys(build), registers });
    this.buildInfo.set(build, 1);
  }

  /**
   * The scheduler port, watched: what it answered for the binding the store holds (not a copy another
   * controller probes with, as application failover does) is kept for that binding's scheduler reconcile.
   */
  scheduler(inner: ScheduleFn, stored: (binding: KObject) => boolean): ScheduleFn {
    // The estimators (extras) go through untouched: the scheduler's answer is what is observed, not made.
    return (binding, clusters, now, extras) => {
      const pass = inner(binding, clusters, now, extras);
      const trigger = (pass as { trigger?: string }).trigger;
      if (trigger !== undefined && stored(binding)) this.attempts.set(refKey(refOf(binding)), { trigger, failed: pass.action === 'Failed' });
      return pass;
    };
  }

  /** The scheduling algorithm's timings (scheduling_algorithm_duration_seconds, the Filter extension point). */
  algorithmObserver(): AlgorithmObserver {
    return {
      now: () => performance.now(),
      step: (step: ScheduleStep, ms: number) => this.schedulingAlgorithmSeconds.observe({ schedule_step: step }, ms / 1000),
      filtered: (fits, ms) => this.frameworkExtensionPointSeconds.observe({ extension_point: 'Filter', result: fits ? 'Success' : 'Unschedulable' }, ms / 1000),
    };
  }

  /** The scheduler's keys for a change, counted in queue_incoming_bindings_total by the change's event. */
  countedKeys(change: ObjectChange, keys: string[]): string[] {
    const event = keys.length > 0 ? schedulerEventOf(change) : undefined;
    if (event) this.queueIncomingBindings.inc({ event }, keys.length);
    return keys;
  }

  /** One finished reconcile; `subject` is looked up only for the controllers whose rules read it. */
  observeReconcile(controller: string, seconds: number, error: string | undefined, detail: ReconcileDetail, subject: (key: string) => KObject | undefined): void {
    if (controller === SCHEDULER) return this.observeSchedule(seconds, error, detail.key);
    if (controller !== BINDING && controller !== EXECUTION && controller !== DETECTOR) return;
    const needsSubject = controller !== EXECUTION;
    for (const o of karmadaObservations(controller, seconds, error, detail, needsSubject ? subject(detail.key) : undefined)) this.record(o);
  }

  private observeSchedule(seconds: number, error: string | undefined, key: string): void {
    const attempt = this.attempts.get(key);
    this.attempts.delete(key);
    const failed = error !== undefined || attempt?.failed === true;
    // Karmada's handleErr: every scheduling error puts the binding back in the queue, and counts it.
    if (failed) this.queueIncomingBindings.inc({ event: 'ScheduleAttemptFailure' });
    if (!attempt) return;
    const labels = { result: failed ? 'error' : 'scheduled', schedule_type: scheduleTypeOf(attempt.trigger) };
    this.scheduleAttempts.inc(labels);
    this.e2eSchedulingSeconds.observe(labels, seconds);
  }

  private record(o: KarmadaObservation): void {
    switch (o.metric) {
      case 'binding_sync_work':
        return this.syncWorkSeconds.observe({ result: o.result }, o.seconds);
      case 'work_sync_workload':
        return this.syncWorkloadSeconds.observe({ result: o.result }, o.seconds);
      case 'apply_policy':
        this.applyPolicySeconds.observe({ result: o.result }, o.seconds);
        return this.policyApplyAttempts.inc({ result: o.result });
      case 'policy_preemption':
        return this.policyPreemption.inc({ result: o.result });
      case 'member_write': {
        const labels = { result: o.result, apiversion: o.apiVersion, kind: o.kind, [MEMBER_CLUSTER]: o.cluster };
        // The core sends no update that would leave a member object as it is, so a done update changed it: Karmada's "updated"; a failed one did nothing ("none").
        if (o.op === 'create') return this.createResource.inc({ ...labels, recreate: 'false' });
        if (o.op === 'update') return this.updateResource.inc({ ...labels, operationResult: o.result === 'success' ? 'updated' : 'none' });
        return this.deleteResource.inc(labels);
      }
    }
  }
}

/** The object a key of the binding controller or the detector names (a binding, a template), as the reader has it now. */
export function subjectOf(reader: ObjectReader, controller: string, key: string): KObject | undefined {
  const ref = parseRefKey(controller === DETECTOR && key.startsWith(LAZY_PREFIX) ? key.slice(LAZY_PREFIX.length) : key);
  try {
    return reader.get(ref, ref.namespace, ref.name);
  } catch {
    // A cache still filling: no subject, no observation.
    return undefined;
  }
}
