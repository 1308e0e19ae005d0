/**
 * The boundary of the reconcile core. A reconciler is a pure function of what it reads (through an
 * ObjectReader), the time, and two evaluators (scheduler and interpreter); it returns the writes and
 * events it wants. Whoever runs it (the embedded control plane, the real controller) implements these
 * ports; the core never imports a store, a queue or a network client.
 */
import {
  DefaultClusterFailureThresholdSeconds,
  DefaultDeschedulingIntervalSeconds,
  DefaultGracefulEvictionTimeoutSeconds,
  DefaultSkippedPropagatingNamespaces,
  DefaultUnschedulableThresholdSeconds,
  type Health,
} from '../api/constants.js';
import type { KObject, ObjectRef, TypeRef } from './object.js';
import { is, isBinding, isPolicy, type Binding, type Policy } from './kinds.js';
import type { Cluster, ResourceBindingStatus } from '../api/generated/types.js';
import type { ReplicaRequirements } from '../scheduler/types.js';
import type { WorkloadGroupPeers } from '../scheduler/workload-affinity.js';
import type { MemberCapacity } from './node-estimator.js';
import type { MemberMetrics } from './federated-hpa.js';

// ---------------------------------------------------------------------------------------------
// Reading

export interface ListOptions {
  namespace?: string;
  /** Equality match on these labels; implementations index the permanent-id labels. */
  labels?: Record<string, string>;
}

/**
 * Thrown by an ObjectReader that cannot answer yet (e.g. a cache still being filled). Reconcilers let it
 * through rather than record it as a result: the reconcile then writes nothing and is retried.
 */
export class ReaderNotReadyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReaderNotReadyError';
  }
}

/**
 * A read the server refused (403: the identity may not list or watch that kind). Retried like a cache that
 * is filling, since the right may be granted at any time; a reconciler that reports failures on its object
 * (the execution controller's Applied=False) reports this one, which the user must act on.
 */
export class ReadForbiddenError extends ReaderNotReadyError {
  constructor(message: string) {
    super(message);
    this.name = 'ReadForbiddenError';
  }
}

/**
 * Read access to the control plane (cluster undefined) and to member clusters (cluster = its name).
 * Returned objects are shared with the store: never mutate them, copy first.
 */
export interface ObjectReader {
  /** An object of that type: `get(WORK, ...)` is a `Work` (the store narrows, it keeps objects by kind). */
  get<T extends KObject>(type: TypeRef<T>, namespace: string | undefined, name: string, cluster?: string): T | undefined;
  list<T extends KObject>(type: TypeRef<T>, opts?: ListOptions, cluster?: string): T[];
  /** Every type with at least one object in that cluster: the detector's view of "all templates". */
  types(cluster?: string): TypeRef[];
}

// ---------------------------------------------------------------------------------------------
// Writing

/**
 * A write a reconciler asks for. Updates carry metadata.resourceVersion for optimistic locking.
 * `then` continues with the object as stored (new resourceVersion, generation): Karmada builds a
 * binding from the template its claim update returned, and stamps schedulerObservedGeneration from
 * the binding its spec update returned. `orElse` stands in for `then` when `then` asked the
 * interpreter for answers it has yet to compute (a webhook or worker-pool call, see the runner's
 * deferrals); it must not ask the interpreter itself. Without it the rest of the reconcile is
 * dropped and the key retried once the answers are in.
 */
export type Write = (
  | { op: 'create'; object: KObject; cluster?: string; then?: Continuation; orElse?: Continuation }
  | { op: 'update'; object: KObject; cluster?: string; then?: Continuation; orElse?: Continuation }
  | { op: 'updateStatus'; object: KObject; cluster?: string }
  /** Deletion request; `ignoreNotFound` defaults to true (every Karmada delete path tolerates NotFound). */
  | { op: 'delete'; ref: ObjectRef; cluster?: string; ignoreNotFound?: boolean }
) & {
  /** Events to record when this write fails (the reconcile then ends with the write's error and is retried). */
  failureEvents?: CoreEvent[];
};

/** What follows a write, computed from the object as stored. */
export type Continuation = (written: KObject) => { writes: Write[]; events?: CoreEvent[] };

export interface CoreEvent {
  involvedObject: ObjectRef;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** The controller that reported it. */
  source: string;
}

export interface EnqueueRequest {
  controller: string;
  key: string;
}

export interface ReconcileResult {
  writes: Write[];
  events: CoreEvent[];
  /** Look at this key again after that many seconds (time-based waits: toleration, grace periods). */
  requeueAfterSeconds?: number;
  /** A failed reconcile: retried with rate limiting. Writes and events before the failure still apply. */
  error?: string;
  /** Other keys to look at (a policy change re-enqueues its templates). */
  enqueue?: EnqueueRequest[];
}

export function emptyResult(): ReconcileResult {
  return { writes: [], events: [] };
}

// ---------------------------------------------------------------------------------------------
// Scheduler port

export interface TargetCluster {
  name: string;
  replicas?: number;
}

/**
 * One scheduling pass over one binding, the shape src/scheduler's `schedule()` returns: what to write
 * (spec.clusters, the applied-placement annotation, the scheduler's status fields) and the events.
 */
export interface SchedulePass {
  action: 'Skipped' | 'Unchanged' | 'Scheduled' | 'Failed';
  /** New spec.clusters: null clears, undefined leaves as is. */
  clusters?: TargetCluster[] | null;
  appliedPlacement?: string;
  status: Pick<ResourceBindingStatus, 'conditions' | 'schedulerObservedGeneration' | 'lastScheduledTime' | 'schedulerObservingAffinityName'>;
  statusChanged: boolean;
  retry: boolean;
  error?: { kind: string; message: string };
  events: Array<{ object: 'binding' | 'resource'; type: 'Normal' | 'Warning'; reason: string; message: string }>;
  /** When an eviction-history block ends: a failed binding is looked at again then. */
  evictionBlockExpiresAt?: string;
}

/**
 * Karmada's scheduler-estimator, in process: how many replicas of these requirements fit in the member
 * cluster, or -1 (UnauthenticReplica) when it cannot tell (its Nodes and Pods not known yet).
 */
export type ReplicaEstimatorFn = (cluster: string, requirements: ReplicaRequirements | null) => number;

export interface ScheduleExtras {
  /** Estimators beside the general one (resource summary); each cluster gets the smallest answer given. */
  estimators?: readonly ReplicaEstimatorFn[];
  /** Feature gate WorkloadAffinity: what the other bindings of the binding's workload groups target. */
  workloadGroups?: WorkloadGroupPeers;
}

export type ScheduleFn = (binding: Binding, clusters: readonly Cluster[], now: Date, extras?: ScheduleExtras) => SchedulePass;


// ---------------------------------------------------------------------------------------------
// Interpreter port

export type InterpreterOperation =
  | 'InterpretReplica'
  | 'ReviseReplica'
  | 'Retain'
  | 'AggregateStatus'
  | 'InterpretStatus'
  | 'InterpretHealth'
  | 'InterpretDependency';

export interface DependentObjectReference {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
  labelSelector?: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
}

export interface AggregatedStatusItem {
  clusterName: string;
  status?: Record<string, unknown>;
  applied?: boolean;
  appliedMessage?: string;
  health?: Health;
  /** karmada-lite extension: what an Argo CD health check (`--health-checks`) said. */
  healthMessage?: string;
  settled?: boolean;
}

/**
 * The per-kind knowledge the core needs: user customizations first, then built-ins, then native.
 * Each operation throws on an interpreter error; callers turn that into the Karmada outcome.
 */
export interface Interpreter {
  hookEnabled(type: TypeRef, op: InterpreterOperation): boolean;
  getReplicas(obj: KObject): { replicas: number; replicaRequirements?: Record<string, unknown> | null };
  reviseReplica(obj: KObject, replicas: number): KObject;
  retain(desired: KObject, observed: KObject): KObject;
  reflectStatus(obj: KObject): Record<string, unknown> | undefined;
  interpretHealth(obj: KObject): boolean;
  /**
   * Tri-state health with the health check's message (`--health-checks`), or undefined when the answering
   * layer has no more to say than interpretHealth. An interpreter error is `{ health: 'Unknown', error }`.
   */
  healthDetail?(obj: KObject): { health: Health; message?: string; error?: string } | undefined;
  aggregateStatus(obj: KObject, items: readonly AggregatedStatusItem[]): KObject;
  getDependencies(obj: KObject): DependentObjectReference[];
  /**
   * How a user RIC's scripts fare, for its ScriptsHealthy condition (interpreter-health.ts). Only an
   * interpreter that keeps such records has it (the controller's worker pool); without, nothing is reported.
   */
  scriptHealth?(ric: string): ScriptHealth;
}

/** A script of a RIC that keeps failing for one target kind and operation. */
export interface ScriptFailure {
  operation: InterpreterOperation;
  apiVersion: string;
  kind: string;
  /** timeout and memory: it exceeded a budget; error: it raised one or returned something unusable. */
  failure: 'timeout' | 'memory' | 'error';
  /** The last failure's text, as the interpreter reported it. */
  message: string;
  /** Failures in a row. */
  failures: number;
}

export interface ScriptHealth {
  failures: readonly ScriptFailure[];
  /** A script of this RIC ran successfully since its last failure (or since the controller started). */
  succeeded: boolean;
}

// ---------------------------------------------------------------------------------------------
// What every reconciler gets

export interface CoreOptions {
  /** Feature gate PropagationPolicyPreemption (Karmada default off). */
  policyPreemption: boolean;
  /** `--graceful-eviction-timeout`, seconds. */
  gracefulEvictionTimeoutSeconds: number;
  /** `--skipped-propagating-namespaces`, anchored. */
  skippedPropagatingNamespaces: readonly RegExp[];
  /**
   * `--cluster-failure-threshold`, seconds: how long a Cluster's Ready condition may be False/Unknown
   * before it gets the NoExecute taint. Default 30 (DefaultClusterFailureThresholdSeconds).
   */
  clusterFailureThresholdSeconds?: number;
  /**
   * Feature gate StatefulFailoverInjection (Karmada default off): an application failover records the
   * evicted cluster's state (statePreservation rules) and the new cluster's manifest carries it as labels.
   */
  statefulFailoverInjection?: boolean;
  /** `--controllers`: which of the core's controllers run (`*`, names, `-name` to leave one out). Default all. */
  controllers?: readonly string[];
  /**
   * Whose Works the execution and work-status controllers take: 'Push' on the control plane (a Pull
   * cluster's agent executes its own), 'Pull' in `karmada-lite agent`. Unset: every cluster's (plan, embedded).
   */
  executionSyncMode?: 'Push' | 'Pull';
  /**
   * `--cluster-monitor-grace-period`, seconds: how long a Pull cluster's agent may be silent (no Lease renewal,
   * no Ready change) before Ready turns Unknown. Default 40 (pull-cluster.ts). Read only with executionSyncMode Push.
   */
  clusterMonitorGracePeriodSeconds?: number;
  /** `--cluster-startup-grace-period`, seconds: the same before the agent ever posted a Ready condition. Default 60. */
  clusterStartupGracePeriodSeconds?: number;
  /** `--descheduling-interval`, seconds: how often the descheduler looks again at a binding with replicas not ready. Default 120. */
  deschedulingIntervalSeconds?: number;
  /** `--unschedulable-threshold`, seconds: how long a replica stays unschedulable before the descheduler takes it away. Default 300. */
  unschedulableThresholdSeconds?: number;
  /**
   * Karmada's `--enable-scheduler-estimator`: the scheduler also asks the accurate estimator (node-estimator.ts,
   * in process over `capacity`). karmada-lite's default is on, since no estimator server needs deploying.
   */
  schedulerEstimator?: boolean;
  /** Feature gate ResourceQuotaEstimate (Alpha, off): members' ResourceQuotas of `replicaRequirements.namespace` bound the accurate estimate. */
  resourceQuotaEstimate?: boolean;
  /**
   * Feature gate Failover. Off: no NoExecute taint eviction at all (Karmada registers no taint manager)
   * and the cluster controller adds no NoExecute taint. karmada-lite's default is on (README "differs").
   */
  failover?: boolean;
  /**
   * `--enable-no-execute-taint-eviction`. Unset: karmada-lite's v1.2-style default (the cluster controller's
   * NoExecute taint after the failure threshold evicts the bindings whose policy sets failover.cluster).
   * true: current Karmada (every binding that does not tolerate a NoExecute taint is evicted; NoExecute
   * taints come from ClusterTaintPolicies and users). false: no NoExecute eviction (Karmada's default).
   */
  enableNoExecuteTaintEviction?: boolean;
  /** `--no-execute-taint-eviction-purge-mode`: the purge mode of a binding without failover.cluster. */
  noExecuteTaintEvictionPurgeMode?: string;
  /**
   * Feature gate FederatedQuotaEnforcement (Karmada default off): the scheduler's binding writes are charged
   * against the namespace's FederatedResourceQuotas, whose overall and overallUsed then come from the bindings.
   */
  federatedQuotaEnforcement?: boolean;
  /**
   * Feature gate MultiClusterService (alpha, off): the multiclusterservice, endpointsliceCollect and
   * endpointsliceDispatch controllers act (off, they see their objects and do nothing, as Karmada's do not start).
   */
  multiClusterService?: boolean;
  /**
   * Feature gate WorkloadAffinity (alpha, off): the detector records a binding's workload groups from the
   * policy's placement.workloadAffinity and the template's labels, and the scheduler keeps the groups together
   * or apart.
   */
  workloadAffinity?: boolean;
}

/** Karmada's defaults for whatever is not given (gates off). */
export function withCoreDefaults(o: Partial<CoreOptions> = {}): CoreOptions {
  return {
    ...o,
    policyPreemption: o.policyPreemption ?? false,
    gracefulEvictionTimeoutSeconds: o.gracefulEvictionTimeoutSeconds ?? DefaultGracefulEvictionTimeoutSeconds,
    skippedPropagatingNamespaces: o.skippedPropagatingNamespaces ?? DefaultSkippedPropagatingNamespaces,
    clusterFailureThresholdSeconds: o.clusterFailureThresholdSeconds ?? DefaultClusterFailureThresholdSeconds,
    statefulFailoverInjection: o.statefulFailoverInjection ?? false,
    deschedulingIntervalSeconds: o.deschedulingIntervalSeconds ?? DefaultDeschedulingIntervalSeconds,
    unschedulableThresholdSeconds: o.unschedulableThresholdSeconds ?? DefaultUnschedulableThresholdSeconds,
    failover: o.failover ?? true,
  };
}

export interface ReconcileContext {
  reader: ObjectReader;
  now: Date;
  interpreter: Interpreter;
  schedule: ScheduleFn;
  options: CoreOptions;
  /** The members' Nodes and Pods, where the runner has them (the controller's lean informers, a fleet file's nodes and pods). */
  capacity?: MemberCapacity;
  /** The members' resource metrics (metrics.k8s.io), where the runner reads them: the FederatedHPA's input. */
  metrics?: MemberMetrics;
}

export type Reconcile = (ctx: ReconcileContext, key: string) => ReconcileResult;

// ---------------------------------------------------------------------------------------------
// Controllers: a reconciler and what wakes it up

/** A change the store reports (the store's watch event, seen from the core). */
export interface ObjectChange<T extends KObject = KObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: T;
  old?: T;
  cluster?: string;
  /** The controller whose write caused the change; undefined for users and simulations. */
  origin?: string;
}

/** A change to an object of that kind: its object and old object have the kind's type (a kind's watch events are of one kind). */
export function isChangeOf<T extends KObject>(c: ObjectChange, t: TypeRef<T>): c is ObjectChange<T> {
  return is(c.object, t);
}

/** A change to a ResourceBinding or ClusterResourceBinding. */
export function isBindingChange(c: ObjectChange): c is ObjectChange<Binding> {
  return isBinding(c.object);
}

/** A change to a PropagationPolicy or ClusterPropagationPolicy. */
export function isPolicyChange(c: ObjectChange): c is ObjectChange<Policy> {
  return isPolicy(c.object);
}

export interface ControllerSpec {
  name: string;
  reconcile: Reconcile;
  /** The keys of this controller a change concerns (its watches and predicates). */
  keysFor(change: ObjectChange, reader: ObjectReader): string[];
  /**
   * Which types this controller watches at all (cluster: undefined for the control plane, a name for a
   * member). The answer is cached per type, so keysFor only sees changes it may care about.
   */
  watches?(type: TypeRef, cluster: string | undefined): boolean;
  /** Not part of `--controllers '*'`: runs only when named, as Karmada's controllersDisabledByDefault. */
  disabledByDefault?: boolean;
}
