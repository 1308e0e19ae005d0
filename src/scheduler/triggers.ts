/**
 * When a binding is (re)scheduled (spec §4, Karmada's `doScheduleBinding` checks and the event filter).
 */
import { rescheduleRequired } from './assignment.js';
import { CLUSTER_POLICY_PERMANENT_ID_LABEL, DEFAULT_SCHEDULER_NAME, MANAGED_BY_LABEL, POLICY_PERMANENT_ID_LABEL } from './messages.js';
import { compileClusterAffinity } from './selector.js';
import { clusterInfo, type ClusterSnapshot } from './snapshot.js';
import { isObject } from '../json/value.js';
import {
  parsePlacement,
  replicaSchedulingType,
  type Binding,
  type Cluster,
  type ClusterAffinityTerm,
  type Placement,
  type ResourceBindingSpec,
  type ResourceBindingStatus,
} from './types.js';

export type ScheduleTrigger = 'PlacementChanged' | 'ReplicasChanged' | 'RescheduleTriggered' | 'AlwaysReschedule' | 'TargetClusterDeleting';

/**
 * Structural equality of decoded JSON. A null field is the same as an absent one (Go decodes both to
 * nil); an empty list is not the same as an absent one (Go's DeepEqual tells a nil slice from an
 * empty one).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a == null || b == null) return a == null && b == null;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (!isObject(a) || !isObject(b)) return false;
  for (const k of Object.keys(a)) if (a[k] != null && !jsonEqual(a[k], b[k])) return false;
  for (const k of Object.keys(b)) if (b[k] != null && a[k] == null) return false;
  return true;
}

function findTerm(terms: readonly ClusterAffinityTerm[] | null | undefined, name: string): ClusterAffinityTerm | undefined {
  return terms?.find((t) => t.affinityName === name);
}

/**
 * `placementChanged`: compared with the applied-placement annotation. A missing annotation means
 * changed, an unparsable one unchanged. With clusterAffinities, only the observed term matters.
 */
export function placementChanged(placement: Placement, applied: string | undefined, observedAffinityName: string): boolean {
  if (!applied) return true;
  const old = parsePlacement(applied);
  if (!old) return false;
  if (jsonEqual(placement, old)) return false;
  if (
    !jsonEqual(placement.clusterAffinity, old.clusterAffinity) ||
    !jsonEqual(placement.clusterTolerations, old.clusterTolerations) ||
    !jsonEqual(placement.spreadConstraints, old.spreadConstraints) ||
    !jsonEqual(placement.replicaScheduling, old.replicaScheduling)
  ) {
    return true;
  }
  if (observedAffinityName === '') return true;
  const now = findTerm(placement.clusterAffinities, observedAffinityName);
  const before = findTerm(old.clusterAffinities, observedAffinityName);
  if (!now || !before) return true;
  return !jsonEqual(now, before);
}

/** `IsBindingReplicasChanged`. */
export function replicasChanged(spec: ResourceBindingSpec): boolean {
  const rs = spec.placement?.replicaScheduling;
  if (!rs) return false;
  const replicas = spec.replicas ?? 0;
  const targets = spec.clusters ?? [];
  const type = replicaSchedulingType(spec.placement);
  if (type === 'Duplicated') return targets.some((t) => (t.replicas ?? 0) !== replicas);
  if (type === 'Divided') {
    let sum = 0;
    for (const t of targets) sum += t.replicas ?? 0;
    return sum !== replicas;
  }
  return false;
}

/** The checks of `doScheduleBinding`, in Karmada's order; undefined when nothing calls for scheduling. */
export function scheduleTrigger(
  spec: ResourceBindingSpec,
  status: ResourceBindingStatus | null | undefined,
  appliedPlacement: string | undefined,
  snapshot: ClusterSnapshot,
): ScheduleTrigger | undefined {
  const placement = spec.placement ?? {};
  if (placementChanged(placement, appliedPlacement, status?.schedulerObservingAffinityName ?? '')) return 'PlacementChanged';
  if (replicasChanged(spec)) return 'ReplicasChanged';
  if (rescheduleRequired(spec.rescheduleTriggeredAt, status?.lastScheduledTime)) return 'RescheduleTriggered';
  // Karmada tests replicas == 0 here (not IsWorkload): a scaled-to-zero workload is re-run like a non-workload.
  if ((spec.replicas ?? 0) === 0 || replicaSchedulingType(placement) === 'Duplicated') return 'AlwaysReschedule';
  // A target missing from the snapshot altogether counts as deleting: Karmada always sees the
  // deletionTimestamp first (the cluster has a finalizer), a caller here may not pass such clusters.
  for (const t of spec.clusters ?? []) {
    const c = snapshot.byName.get(t.name);
    if (!c || c.deleting) return 'TargetClusterDeleting';
  }
  return undefined;
}

export interface EventFilterResult {
  accept: boolean;
  reason?: string;
}

/**
 * The scheduler's event filter: which bindings it watches at all. A binding must come from a policy
 * (or be managed by karmada-lite), be meant for this scheduler, and not have scheduling suspended.
 */
export function bindingEventFilter(binding: Binding, schedulerName: string = DEFAULT_SCHEDULER_NAME): EventFilterResult {
  const labels = binding.metadata.labels ?? {};
  if (!(POLICY_PERMANENT_ID_LABEL in labels) && !(CLUSTER_POLICY_PERMANENT_ID_LABEL in labels) && !(MANAGED_BY_LABEL in labels)) {
    return { accept: false, reason: 'binding carries none of the policy labels' };
  }
  const own = binding.spec.schedulerName || DEFAULT_SCHEDULER_NAME;
  if (own !== schedulerName) return { accept: false, reason: `binding is for scheduler ${own}` };
  if (binding.spec.suspension?.scheduling === true) return { accept: false, reason: 'scheduling is suspended' };
  return { accept: true };
}

/** Whether a cluster update is one the scheduler reacts to: deletion starting, labels or generation changing. */
export function clusterUpdateMatters(oldCluster: Cluster, newCluster: Cluster): { matters: boolean; evaluateOld: boolean } {
  const deletionStarted = !oldCluster.metadata.deletionTimestamp && !!newCluster.metadata.deletionTimestamp;
  const labelsChanged = !jsonEqual(oldCluster.metadata.labels ?? {}, newCluster.metadata.labels ?? {});
  const generationChanged = (oldCluster.metadata.generation ?? 0) !== (newCluster.metadata.generation ?? 0);
  return { matters: deletionStarted || labelsChanged || generationChanged, evaluateOld: labelsChanged || generationChanged };
}

function affectedBy(binding: Binding, cluster: Cluster): boolean {
  const p = binding.spec.placement ?? {};
  let affinity = p.clusterAffinity ?? null;
  if (p.clusterAffinities) {
    if ((binding.status?.schedulerObservedGeneration ?? 0) !== (binding.metadata.generation ?? 0)) return true;
    const name = binding.status?.schedulerObservingAffinityName ?? '';
    affinity = p.clusterAffinities.find((t) => t.affinityName === name) ?? null;
  }
  return !affinity || compileClusterAffinity(affinity)(clusterInfo(cluster));
}

/**
 * The cluster event handler (spec §4): which bindings a cluster event puts back on the scheduling
 * queue. Adding a cluster requeues nothing; an update requeues the bindings whose affinity is empty or
 * matches the cluster (before or after a label or generation change). `schedule` then decides, and a
 * Divided binding is usually left as it is.
 */
export function bindingsAffectedByClusterEvent(
  event: 'add' | 'update',
  oldCluster: Cluster | null,
  newCluster: Cluster,
  bindings: readonly Binding[],
): Binding[] {
  if (event === 'add' || !oldCluster) return [];
  const { matters, evaluateOld } = clusterUpdateMatters(oldCluster, newCluster);
  if (!matters) return [];
  return bindings.filter((b) => affectedBy(b, newCluster) || (evaluateOld && affectedBy(b, oldCluster)));
}

/** Binding updates reach the scheduler only when the generation changes: status-only updates are ignored. */
export function bindingUpdateMatters(oldBinding: Binding, newBinding: Binding): boolean {
  return (oldBinding.metadata.generation ?? 0) !== (newBinding.metadata.generation ?? 0);
}
