/**
 * The member side of Karmada's unschedulable-replica estimator (GetUnschedulableReplicas of the
 * scheduler estimator): how many replicas of a workload cannot be scheduled on one member, with the
 * time each has been so, for the descheduler to apply `--unschedulable-threshold` to.
 *
 * Karmada's estimator runs inside each member and counts the pods of the Deployment's newest ReplicaSet
 * whose PodScheduled condition is False with reason Unschedulable. karmada-lite reads the member through
 * the same reader as every other controller, so `plan`, the scenarios and the controller share this:
 *
 * - pods visible (the member's pods can be listed and the Deployment has some): Karmada's count, over the
 *   member's lean Pod informer (MemberCapacity) where the runner has one, as Karmada's estimator server
 *   lists its own;
 * - no pods to see (a member whose pods the credentials may not list, or a fleet without kubelets, as
 *   in `plan`): the Deployment's reported unavailable replicas, since its `Available` condition turned
 *   False, minus the replicas the Cluster's resource summary still has room for (a replica that would
 *   fit is not waiting for room). Without a resource summary or that condition nothing is known (-1).
 */
import { ClusterConditionReady } from '../api/constants.js';
import { calAvailableReplicas, clusterInfo } from '../scheduler/index.js';
import type { ObjectMeta, ResourceBindingSpec } from '../api/generated/types.js';
import type { ReplicaRequirements } from '../scheduler/types.js';
import type { UnschedulableEstimate } from '../scheduler/descheduler.js';
import { isObject } from '../json/value.js';
import { findCondition, parseTime, type KObject, type TypeRef } from './object.js';
import { ReaderNotReadyError, type ObjectReader } from './ports.js';
import { matchLabelSelector } from './selectors.js';
import type { ClusterView } from './taint.js';
import type { MemberCapacity } from './node-estimator.js';

export const POD: TypeRef = { apiVersion: 'v1', kind: 'Pod' };
export const REPLICA_SET: TypeRef = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };

const DEPLOYMENT_REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';

/** Where an estimate came from: shown in logs and tests, not written anywhere. */
export type EstimateSource = 'pods' | 'status' | 'unknown';

export interface MemberEstimate extends UnschedulableEstimate {
  source: EstimateSource;
}

/** Reads that a member cannot answer yet (cache filling, kind not allowed) count as "not visible". */
function tryRead<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch (e) {
    if (e instanceof ReaderNotReadyError) return undefined;
    throw e;
  }
}

interface ControllerRef {
  kind: string;
  name: string;
  uid?: string;
}

/** The controller owner reference of a member object; one without a kind and a name is none. */
function controllerOf(o: KObject): ControllerRef | undefined {
  const r = o.metadata.ownerReferences?.find((x) => x.controller);
  if (!r || typeof r.kind !== 'string' || typeof r.name !== 'string') return undefined;
  return typeof r.uid === 'string' ? { kind: r.kind, name: r.name, uid: r.uid } : { kind: r.kind, name: r.name };
}

/**
 * The pods of the Deployment's newest ReplicaSet (Karmada counts only those): when the ReplicaSets can be
 * read, the one with the highest revision; otherwise every pod a ReplicaSet of the Deployment controls.
 */
function deploymentPods(reader: ObjectReader, deploy: KObject, cluster: string, capacity: MemberCapacity | undefined): readonly KObject[] | undefined {
  const ns = deploy.metadata.namespace;
  const selector: unknown = deploy.spec?.selector;
  if (!isObject(selector) || (!selector.matchLabels && !selector.matchExpressions)) return undefined;
  // The member's lean Pod informer where the runner has one (what Karmada's estimator server lists), else the reader.
  const pods = capacity ? capacity.pods(cluster, ns ?? '') : tryRead(() => reader.list(POD, { namespace: ns }, cluster));
  if (pods === undefined) return undefined;
  const owned = (o: KObject, kind: string, owner: KObject) => {
    const c = controllerOf(o);
    return !!c && c.kind === kind && c.name.length > 0 && (c.uid && owner.metadata.uid ? c.uid === owner.metadata.uid : true);
  };
  const replicaSets = (tryRead(() => reader.list(REPLICA_SET, { namespace: ns }, cluster)) ?? []).filter((rs) => owned(rs, 'Deployment', deploy) && controllerOf(rs)!.name === deploy.metadata.name);
  let newest: KObject | undefined;
  for (const rs of replicaSets) {
    const rev = Number(rs.metadata.annotations?.[DEPLOYMENT_REVISION_ANNOTATION] ?? 0);
    if (!newest || rev > Number(newest.metadata.annotations?.[DEPLOYMENT_REVISION_ANNOTATION] ?? 0)) newest = rs;
  }
  return pods.filter((p) => {
    if (!matchLabelSelector(p.metadata.labels, selector)) return false;
    const c = controllerOf(p);
    if (!c || c.kind !== 'ReplicaSet') return false;
    return newest ? c.name === newest.metadata.name : c.name.startsWith(`${deploy.metadata.name}-`);
  });
}

/** Since when a pod has been unschedulable, or undefined when it is not (Karmada's podUnschedulable). */
export function unschedulableSince(pod: KObject): string | undefined {
  const c = findCondition(pod.status?.conditions, 'PodScheduled');
  if (!c || c.status !== 'False' || c.reason !== 'Unschedulable') return undefined;
  return parseTime(c.lastTransitionTime) === undefined ? undefined : c.lastTransitionTime;
}

/** Replicas of this many the cluster's resource summary still has room for; undefined without a summary. */
function roomFor(cluster: ClusterView, replicas: number, requirements: ReplicaRequirements | null | undefined): number | undefined {
  if (!cluster.status?.resourceSummary) return undefined;
  const ready = findCondition(cluster.status?.conditions, ClusterConditionReady)?.status === 'True';
  if (!ready) return undefined;
  return calAvailableReplicas([clusterInfo(cluster)], { replicas: Math.max(replicas, 1), replicaRequirements: requirements ?? null })[0];
}

/** The estimate from the Deployment's status and the cluster's resource summary (no pods to count). */
function fromStatus(deploy: KObject, cluster: ClusterView, requirements: ReplicaRequirements | null | undefined): { since?: string; replicas: number } {
  const st = deploy.status;
  if (!st) return { replicas: -1 };
  const replicas: unknown = deploy.spec?.replicas;
  const want = typeof replicas === 'number' ? replicas : 1;
  const unavailableReplicas: unknown = st.unavailableReplicas;
  // Number() is the coercion `-` applied to the raw field before.
  const unavailable = typeof unavailableReplicas === 'number' ? unavailableReplicas : Math.max(0, want - Number(st.availableReplicas ?? 0));
  if (unavailable <= 0) return { replicas: 0 };
  const available = findCondition(st.conditions, 'Available');
  if (!available) return { replicas: -1 };
  if (available.status !== 'False' || parseTime(available.lastTransitionTime) === undefined) return { replicas: 0 };
  const room = roomFor(cluster, unavailable, requirements);
  if (room === undefined) return { replicas: -1 };
  return { since: available.lastTransitionTime, replicas: Math.max(0, unavailable - room) };
}

/**
 * The member runs the share the binding gives it, and its status describes that spec. Until then what it
 * reports is about an earlier share: right after a deschedule the same pending pods would be counted again.
 */
function caughtUp(deploy: KObject, binding: BindingView, cluster: string): boolean {
  const target = (binding.spec?.clusters ?? []).find((t) => t.name === cluster);
  if (target && typeof deploy.spec?.replicas === 'number' && deploy.spec.replicas !== (target.replicas ?? 0)) return false;
  const observed = deploy.status?.observedGeneration;
  return !(typeof observed === 'number' && typeof deploy.metadata.generation === 'number' && observed < deploy.metadata.generation);
}

/** What the estimator reads of a ResourceBinding: the generated kind, or an object read as one. */
export interface BindingView {
  metadata: ObjectMeta;
  spec?: Partial<ResourceBindingSpec>;
}

/**
 * The estimate for one binding on one member. The binding's `spec.resource` names the workload; the
 * Cluster object is the member's (its resource summary bounds the status-based estimate).
 */
export function estimateUnschedulable(reader: ObjectReader, binding: BindingView, cluster: ClusterView, capacity?: MemberCapacity): MemberEstimate {
  const name = cluster.metadata.name!;
  const base = { namespace: binding.metadata.namespace ?? '', name: binding.metadata.name!, cluster: name };
  const res = binding.spec?.resource;
  const unknown: MemberEstimate = { ...base, unschedulableReplicas: -1, source: 'unknown' };
  if (!res || res.apiVersion !== 'apps/v1' || res.kind !== 'Deployment') return unknown;
  const deploy = tryRead(() => reader.get(res, res.namespace, res.name, name));
  if (!deploy || !caughtUp(deploy, binding, name)) return unknown;
  const pods = deploymentPods(reader, deploy, name, capacity);
  if (pods && pods.length > 0) {
    const pendingSince = pods.map(unschedulableSince).filter((s): s is string => s !== undefined);
    return { ...base, pendingSince, source: 'pods' };
  }
  const s = fromStatus(deploy, cluster, binding.spec?.replicaRequirements);
  if (s.replicas < 0) return unknown;
  return { ...base, pendingSince: new Array<string>(s.replicas).fill(s.since ?? ''), source: 'status' };
}
