/** The scheduler's public surface; see README.md beside this file. */
export { schedule, formatTime, setCondition } from './scheduler.js';
export type {
  ScheduleOptions,
  ScheduleResult,
  ScheduleEvent,
  PreviousSchedule,
  SchedulerStatus,
  ErrorKind,
  ExplainedCluster,
} from './scheduler.js';
export {
  deschedule,
  descheduledReplicas,
  qualifiesForDescheduling,
  undesiredClusters,
  DEFAULT_DESCHEDULING_INTERVAL_SECONDS,
  DEFAULT_UNSCHEDULABLE_THRESHOLD_SECONDS,
} from './descheduler.js';
export type { DescheduleResult, DescheduledBinding, DeschedulerOptions, UnschedulableEstimate } from './descheduler.js';
export {
  bindingEventFilter,
  bindingUpdateMatters,
  bindingsAffectedByClusterEvent,
  clusterUpdateMatters,
  placementChanged,
  replicasChanged,
  scheduleTrigger,
} from './triggers.js';
export type { ScheduleTrigger } from './triggers.js';
export { runAlgorithm, FitError, fitErrorMessage } from './generic.js';
export type { AlgorithmObserver, ScheduleStep } from './generic.js';
export { UnschedulableError } from './division.js';
export { createSnapshot, clusterInfo } from './snapshot.js';
export type { ClusterSnapshot, ClusterInfo } from './snapshot.js';
export { clusterMatches, compileClusterAffinity, compileLabelSelector } from './selector.js';
export { calAvailableReplicas, generalEstimate } from './available.js';
export { allocateWebsterSeats, fnv1a32, tieBreakerFor } from './webster.js';
export { FILTER_PLUGIN_ORDER, activeEvictionBlocks } from './filters.js';
export { groupPeers } from './workload-affinity.js';
export type { WorkloadGroupPeers, WorkloadAffinityGroups } from './workload-affinity.js';
export * from './messages.js';
export type * from './types.js';
