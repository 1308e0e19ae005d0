/**
 * Karmada's scheduler strings, verbatim: users grep logs and conditions for them, and other tools
 * match on the reasons. Only the last group (eviction history) is karmada-lite's own.
 */
import {
  AppliedPlacementAnnotation,
  BindingManagedByLabel,
  BindingReasonNoClusterFit,
  BindingReasonQuotaExceeded,
  BindingReasonSchedulerError,
  BindingReasonSuccess,
  BindingReasonUnschedulable,
  BindingScheduled,
  BindingScheduledSuccessMessage,
  ClusterPropagationPolicyPermanentIDLabel,
  DefaultBlockPredecessorSeconds,
  DefaultSchedulerName,
  EventReasonDescheduleBindingSucceed,
  EventReasonScheduleBindingFailed,
  EventReasonScheduleBindingSucceed,
  PropagationPolicyPermanentIDLabel,
} from '../api/constants.js';

// Constants shared with the rest of karmada-lite live in src/api/constants.ts; these are the
// scheduler's names for them.
export const DEFAULT_SCHEDULER_NAME = DefaultSchedulerName;
export const APPLIED_PLACEMENT_ANNOTATION = AppliedPlacementAnnotation;
export const POLICY_PERMANENT_ID_LABEL = PropagationPolicyPermanentIDLabel;
export const CLUSTER_POLICY_PERMANENT_ID_LABEL = ClusterPropagationPolicyPermanentIDLabel;
export const MANAGED_BY_LABEL = BindingManagedByLabel;

export const CONDITION_SCHEDULED = BindingScheduled;
export const REASON_SUCCESS = BindingReasonSuccess;
export const REASON_UNSCHEDULABLE = BindingReasonUnschedulable;
export const REASON_NO_CLUSTER_FIT = BindingReasonNoClusterFit;
export const REASON_SCHEDULER_ERROR = BindingReasonSchedulerError;
export const REASON_QUOTA_EXCEEDED = BindingReasonQuotaExceeded;
export const SUCCESSFUL_SCHEDULING_MESSAGE = BindingScheduledSuccessMessage;

export const EVENT_SCHEDULE_SUCCEED = EventReasonScheduleBindingSucceed;
export const EVENT_SCHEDULE_FAILED = EventReasonScheduleBindingFailed;
export const EVENT_DESCHEDULE_SUCCEED = EventReasonDescheduleBindingSucceed;

export const MAX_CLUSTER_SCORE = 100;
export const MIN_CLUSTER_SCORE = 0;
export const MAX_INT32 = 2147483647;

// Filter plugin names, as registered in Karmada.
export const PLUGIN_API_ENABLEMENT = 'APIEnablement';
export const PLUGIN_CLUSTER_AFFINITY = 'ClusterAffinity';
export const PLUGIN_CLUSTER_EVICTION = 'ClusterEviction';
export const PLUGIN_SPREAD_CONSTRAINT = 'SpreadConstraint';
export const PLUGIN_TAINT_TOLERATION = 'TaintToleration';
export const PLUGIN_CLUSTER_LOCALITY = 'ClusterLocality';
export const PLUGIN_WORKLOAD_AFFINITY = 'WorkloadAffinity';
export const PLUGIN_WORKLOAD_ANTI_AFFINITY = 'WorkloadAntiAffinity';

// Filter failure reasons.
export const REASON_API_DISABLED = 'cluster(s) did not have the API resource';
export const REASON_AFFINITY_MISMATCH = 'cluster(s) did not match the placement cluster affinity constraint';
export const REASON_IN_EVICTION = 'cluster(s) is in the process of eviction';
export const REASON_NO_PROVIDER = 'cluster(s) did not have provider property';
export const REASON_NO_REGION = 'cluster(s) did not have region property';
export const REASON_NO_ZONES = 'cluster(s) did not have zones property';
export const REASON_WORKLOAD_AFFINITY = 'ResourceBinding with the same affinity group does not target this cluster';
export const REASON_WORKLOAD_ANTI_AFFINITY = 'cluster already has workload with the same anti-affinity group';
export const untoleratedTaintReason = (t: { key: string; value?: string; effect: string }): string =>
  `cluster(s) had untolerated taint {${t.value ? `${t.key}=${t.value}` : t.key}:${t.effect}}`;

// Selection and assignment errors.
export const ERR_CLUSTERS_LESS_THAN_MIN = 'the number of feasible clusters is less than spreadConstraint.MinGroups';
export const ERR_REGIONS_LESS_THAN_MIN = 'the number of feasible region is less than spreadConstraint.MinGroups';
export const ERR_CLUSTERS_LESS_THAN_CLUSTER_MIN = 'the number of clusters is less than the cluster spreadConstraint.MinGroups';
export const ERR_UNSUPPORTED_SPREAD = 'just support cluster and region spread constraint';
export const errNoEnoughResource = (n: number): string => `no enough resource when selecting ${n} clusters`;
export const ERR_NO_CLUSTERS_AVAILABLE = 'no clusters available to schedule';
export const errUnsupportedStrategy = (type: string, pref: string): string =>
  `unsupported replica scheduling strategy, replicaSchedulingType: ${type}, replicaDivisionPreference: ${pref}, please try another scheduling strategy`;
export const errNotEnoughReplicas = (sum: number): string => `Clusters available replicas ${sum} are not enough to schedule.`;
export const ERR_OVERFLOW_NOT_ENOUGH = 'Clusters available replicas are not enough to schedule.';
export const noClusterAvailable = (n: number): string => `0/${n} clusters are available`;

// karmada-lite extension: ClusterEviction also honours spec.activeEvictionHistory.
export const REASON_RECENTLY_EVICTED = 'cluster(s) was evicted from recently and is blocked for scheduling';
export const DEFAULT_BLOCK_PREDECESSOR_SECONDS = DefaultBlockPredecessorSeconds;
