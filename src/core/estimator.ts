/**
 * The member side of Karmada's unschedulable-replica estimator (GetUnschedulableReplicas of the
 * scheduler estimator): how many replicas of a workload cannot be scheduled on one member, with the
 * time each has been so, for the descheduler to apply `--unschedulable-threshold` to.
 *
 * Karmada's estimator runs inside each member and counts the pods of the Deployment's newest ReplicaSet
 * whose PodScheduled condition is False with reason Unschedulable. karmada-lite reads the member through
 * the same reader as every other controller, so `plan`, the scenarios and the controller share this:
 *
 * - pods visible (the member's pods can be listed and the Deployment has some): Karmada's count;
 * - no pods to see (a member whose pods the credentials may not list, or a fleet without kubelets, as
 *   in `plan`): the Deployment's reported unavailable replicas, since its `Available` condition turned
 *   False, minus the replicas the Cluster's resource summary still has room for (a replica that would
 *   fit is not waiting for room). Without a resource summary or that condition nothing is known (-1).
 */
import { ClusterConditionReady } from '../api/constants.js';
import { calAvailableReplicas, clusterInfo } from '../scheduler/index.js';
import type { Cluster, ReplicaRequirements } from '../scheduler/types.js';
import type { UnschedulableEstimate } from '../scheduler/descheduler.js';
import { findCondition, parseTime, type Condition, type KObject, type TypeRef } from './object.js';
import { ReaderNotReadyError, type ObjectReader } from './ports.js';
import { matchLabelSelector, type LabelSelector } from './selectors.js';

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

const controllerOf = (o: KObject) => (o.metadata.ownerReferences as Array<{ kind: string; name: string; uid?: string; controller?: boolean }> | undefined)?.find((r) => r.controller);

/**
 * The pods of the Deployment's newest ReplicaSet (Karmada counts only those): when the ReplicaSets can be
 * read, the one with the highest revision; otherwise every pod a ReplicaSet of the Deployment controls.
 */
function deploymentPods(reader: ObjectReader, deploy: KObject, cluster: string): KObject[] | undefined {
  const ns = deploy.metadata.namespace;
  const selector = deploy.spec?.selector as LabelSelector | undefined;
  if (!selector || (!selector.matchLabels && !selector.matchExpressions)) return undefined;
  const pods = tryRead(() => reader.list(POD, { namespace: ns }, cluster));
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
  const c = findCondition(pod.status?.conditions as Condition[] | undefined, 'PodScheduled');
  if (!c || c.status !== 'False' || c.reason !== 'Unschedulable') return undefined;
  return parseTime(c.lastTransitionTime) === undefined ? undefined : c.lastTransitionTime;
}

/** Replicas of this many the cluster's resource summary still has room for; undefined without a summary. */
function roomFor(cluster: KObject, replicas: number, requirements: ReplicaRequirements | null | undefined): number | undefined {
  if (!cluster.status?.resourceSummary) return undefined;
  const ready = findCondition(cluster.status?.conditions as Condition[] | undefined, ClusterConditionReady)?.status === 'True';
  if (!ready) return undefined;
  return calAvailableReplicas([clusterInfo(cluster as unknown as Cluster)], { replicas: Math.max(replicas, 1), replicaRequirements: requirements ?? null })[0];
}

/** The estimate from the Deployment's status and the cluster's resource summary (no pods to count). */
function fromStatus(deploy: KObject, cluster: KObject, requirements: ReplicaRequirements | null | undefined): { since?: string; replicas: number } {
  const st = deploy.status;
  if (!st) return { replicas: -1 };
  const want = typeof deploy.spec?.replicas === 'number' ? (deploy.spec.replicas as number) : 1;
  const unavailable = typeof st.unavailableReplicas === 'number' ? (st.unavailableReplicas as number) : Math.max(0, want - ((st.availableReplicas as number | undefined) ?? 0));
  if (unavailable <= 0) return { replicas: 0 };
  const available = findCondition(st.conditions as Condition[] | undefined, 'Available');
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
function caughtUp(deploy: KObject, binding: KObject, cluster: string): boolean {
  const target = ((binding.spec?.clusters ?? []) as Array<{ name: string; replicas?: number }>).find((t) => t.name === cluster);
  if (target && typeof deploy.spec?.replicas === 'number' && deploy.spec.replicas !== (target.replicas ?? 0)) return false;
  const observed = deploy.status?.observedGeneration;
  return !(typeof observed === 'number' && typeof deploy.metadata.generation === 'number' && observed < deploy.metadata.generation);
}

/**
 * The estimate for one binding on one member. The binding's `spec.resource` names the workload; the
 * Cluster object is the member's (its resource summary bounds the status-based estimate).
 */
export function estimateUnschedulable(reader: ObjectReader, binding: KObject, cluster: KObject): MemberEstimate {
  const name = cluster.metadata.name!;
  const base = { namespace: binding.metadata.namespace ?? '', name: binding.metadata.name!, cluster: name };
  const res = binding.spec?.resource as { apiVersion: string; kind: string; namespace?: string; name: string } | undefined;
  const unknown: MemberEstimate = { ...base, unschedulableReplicas: -1, source: 'unknown' };
  if (!res || res.apiVersion !== 'apps/v1' || res.kind !== 'Deployment') return unknown;
  const deploy = tryRead(() => reader.get(res, res.namespace, res.name, name));
  if (!deploy || !caughtUp(deploy, binding, name)) return unknown;
  const pods = deploymentPods(reader, deploy, name);
  if (pods && pods.length > 0) {
    const pendingSince = pods.map(unschedulableSince).filter((s): s is string => s !== undefined);
    return { ...base, pendingSince, source: 'pods' };
  }
  const s = fromStatus(deploy, cluster, binding.spec?.replicaRequirements as ReplicaRequirements | undefined);
  if (s.replicas < 0) return unknown;
  return { ...base, pendingSince: new Array<string>(s.replicas).fill(s.since ?? ''), source: 'status' };
}
