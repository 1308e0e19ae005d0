/**
 * Every Karmada constant karmada-lite speaks: labels, annotations, finalizers, conditions, reasons,
 * messages, event reasons, controller names, namespaces, and the name functions built from them.
 * Values are Karmada's, verbatim: users, dashboards and other tools match on them. Each has exactly
 * one home, here; modules import them instead of spelling the strings again.
 */

// ---------------------------------------------------------------------------------------------
// Labels

export const PropagationPolicyPermanentIDLabel = 'propagationpolicy.karmada.io/permanent-id';
export const ClusterPropagationPolicyPermanentIDLabel = 'clusterpropagationpolicy.karmada.io/permanent-id';
export const ResourceBindingPermanentIDLabel = 'resourcebinding.karmada.io/permanent-id';
export const ClusterResourceBindingPermanentIDLabel = 'clusterresourcebinding.karmada.io/permanent-id';
export const WorkPermanentIDLabel = 'work.karmada.io/permanent-id';
export const ManagedLabel = 'karmada.io/managed';
export const ManagedLabelValue = 'true';
export const BindingManagedByLabel = 'binding.karmada.io/managed-by';
export const ResourceTemplateClaimedByLabel = 'resourcetemplate.karmada.io/claimed-by';
export const RetainReplicasLabel = 'resourcetemplate.karmada.io/retain-replicas';
export const RetainReplicasValue = 'true';
export const DeletionProtectionLabel = 'resourcetemplate.karmada.io/deletion-protected';
export const DeletionProtectionAlways = 'Always';
export const SkipAutoPropagationLabel = 'namespace.karmada.io/skip-auto-propagation';
export const KarmadaSystemLabel = 'karmada.io/system';
/**
 * Prefix of the label an attached (dependency) binding carries for each binding that requires it;
 * the suffix is a short hash of the requiring binding, the value its permanent id.
 */
export const DependedByLabelKeyPrefix = 'resourcebinding.karmada.io/depended-by-';

// ---------------------------------------------------------------------------------------------
// Annotations

export const PropagationPolicyNamespaceAnnotation = 'propagationpolicy.karmada.io/namespace';
export const PropagationPolicyNameAnnotation = 'propagationpolicy.karmada.io/name';
export const ClusterPropagationPolicyAnnotation = 'clusterpropagationpolicy.karmada.io/name';
export const ResourceBindingNamespaceAnnotation = 'resourcebinding.karmada.io/namespace';
export const ResourceBindingNameAnnotation = 'resourcebinding.karmada.io/name';
export const ClusterResourceBindingAnnotation = 'clusterresourcebinding.karmada.io/name';
/** karmada-search: the member an object served from its cache came from (CacheSourceAnnotationKey). */
export const CacheSourceAnnotation = 'resource.karmada.io/cached-from-cluster';
export const WorkNameAnnotation = 'work.karmada.io/name';
export const WorkNamespaceAnnotation = 'work.karmada.io/namespace';
export const ConflictResolutionAnnotation = 'work.karmada.io/conflict-resolution';
export const ConflictResolutionOverwrite = 'overwrite';
export const ConflictResolutionAbort = 'abort';
export const ResourceTemplateUIDAnnotation = 'resourcetemplate.karmada.io/uid';
export const ResourceTemplateGenerationAnnotation = 'resourcetemplate.karmada.io/generation';
export const ManagedLabelsAnnotation = 'resourcetemplate.karmada.io/managed-labels';
export const ManagedAnnotationsAnnotation = 'resourcetemplate.karmada.io/managed-annotations';
export const AppliedPlacementAnnotation = 'policy.karmada.io/applied-placement';
export const AppliedOverridesAnnotation = 'policy.karmada.io/applied-overrides';
export const AppliedClusterOverridesAnnotation = 'policy.karmada.io/applied-cluster-overrides';
export const BindingDependenciesAnnotation = 'resourcebinding.karmada.io/dependencies';
/**
 * karmada-lite (spec README point 2): application failover's clocks per cluster, as JSON
 * `{"<cluster>": {"statusSince": RFC3339, "unhealthySince": RFC3339}}`: when status was first
 * collected there (preConditions.delaySeconds) and when the workload was first seen Unhealthy there
 * (tolerationSeconds). Kept on the binding so the clocks survive a controller restart; Karmada keeps
 * the unhealthy clock in memory only.
 */
export const FailoverClocksAnnotation = 'failover.karmada-lite.io/clocks';

/** Labels the execution controller strips from a preserved member object (Karmada's ManagedResourceLabels). */
export const ManagedResourceLabels: readonly string[] = [ResourceBindingPermanentIDLabel, WorkPermanentIDLabel, ManagedLabel];
/** Annotations stripped from a preserved member object (Karmada's ManagedResourceAnnotations). */
export const ManagedResourceAnnotations: readonly string[] = [
  ManagedAnnotationsAnnotation,
  ManagedLabelsAnnotation,
  ResourceBindingNamespaceAnnotation,
  ResourceBindingNameAnnotation,
  ResourceTemplateUIDAnnotation,
  ResourceTemplateGenerationAnnotation,
  WorkNameAnnotation,
  WorkNamespaceAnnotation,
];

// ---------------------------------------------------------------------------------------------
// Finalizers

export const PropagationPolicyControllerFinalizer = 'karmada.io/propagation-policy-controller';
export const ClusterPropagationPolicyControllerFinalizer = 'karmada.io/cluster-propagation-policy-controller';
export const BindingControllerFinalizer = 'karmada.io/binding-controller';
export const ClusterResourceBindingControllerFinalizer = 'karmada.io/cluster-resource-binding-controller';
export const ExecutionControllerFinalizer = 'karmada.io/execution-controller';
export const ClusterControllerFinalizer = 'karmada.io/cluster-controller';
export const BindingDependenciesDistributorFinalizer = 'karmada.io/binding-dependencies-distributor';

// ---------------------------------------------------------------------------------------------
// Conditions, reasons and messages

export const ConditionTrue = 'True';
export const ConditionFalse = 'False';
export const ConditionUnknown = 'Unknown';

export const WorkApplied = 'Applied';
export const WorkProgressing = 'Progressing';
export const WorkAvailable = 'Available';
export const WorkDegraded = 'Degraded';
export const WorkDispatching = 'Dispatching';

export const WorkAppliedSuccessfulReason = 'AppliedSuccessful';
export const WorkAppliedSuccessfulMessage = 'Manifest has been successfully applied';
export const WorkAppliedFailedReason = 'AppliedFailed';
export const workAppliedFailedMessage = (ok: number, total: number, errors: string): string => `Failed to apply all manifests (${ok}/${total}): ${errors}`;
export const WorkDispatchingReason = 'Dispatching';
export const WorkDispatchingMessage = 'Work is being dispatched to member clusters.';
export const WorkSuspendDispatchingReason = 'SuspendDispatching';
export const WorkSuspendDispatchingMessage = 'Work dispatching is in a suspended state.';

export const ClusterConditionReady = 'Ready';
/** The Ready condition's reasons, as Karmada's cluster status controller writes them. */
export const ClusterReadyReason = 'ClusterReady';
export const ClusterReadyMessage = 'cluster is healthy and ready to accept workloads';
export const ClusterNotReadyReason = 'ClusterNotReady';
export const ClusterNotReachableReason = 'ClusterNotReachable';
export const StatusCollectionFailedReason = 'StatusCollectionFailed';
/** Taint keys the cluster controller manages from the Ready condition: False (or none yet) and Unknown. */
export const TaintClusterNotReady = 'cluster.karmada.io/not-ready';
export const TaintClusterUnreachable = 'cluster.karmada.io/unreachable';
/** The taint `karmadactl cordon` adds (NoSchedule) and `uncordon` removes. */
export const TaintClusterUnscheduler = 'cluster.karmada.io/unschedulable';
export const TaintEffectNoSchedule = 'NoSchedule';
export const TaintEffectNoExecute = 'NoExecute';
/** ClusterTaintPolicy match operators. */
export const MatchConditionOpIn = 'In';
export const MatchConditionOpNotIn = 'NotIn';

export const BindingScheduled = 'Scheduled';
export const BindingReasonSuccess = 'Success';
export const BindingReasonSchedulerError = 'SchedulerError';
export const BindingReasonNoClusterFit = 'NoClusterFit';
export const BindingReasonUnschedulable = 'Unschedulable';
export const BindingReasonQuotaExceeded = 'QuotaExceeded';
export const BindingScheduledSuccessMessage = 'Binding has been scheduled successfully.';

// FederatedResourceQuota (pkg/util/constants.go, pkg/events, pkg/webhook/resourcebinding).
export const FederatedResourceQuotaNamespaceLabel = 'federatedresourcequota.karmada.io/namespace';
export const FederatedResourceQuotaNameLabel = 'federatedresourcequota.karmada.io/name';
/** The metav1.Status reason of a binding refused for quota, which the scheduler turns into BindingReasonQuotaExceeded. */
export const QuotaExceededReason = 'QuotaExceeded';
/** The name of Karmada's ResourceBinding validating webhook, as the apiserver quotes it in a denial. */
export const ResourceBindingValidatingWebhookName = 'resourcebinding.karmada.io';
export const EventReasonCollectOverallStatusSucceed = 'CollectOverallStatusSucceed';
export const EventReasonCollectOverallStatusFailed = 'CollectOverallStatusFailed';

export const BindingFullyApplied = 'FullyApplied';
export const FullyAppliedSuccessReason = 'FullyAppliedSuccess';
export const FullyAppliedSuccessMessage = 'All works have been successfully applied';
export const FullyAppliedFailedReason = 'FullyAppliedFailed';
export const FullyAppliedFailedMessage = 'Failed to apply all works, see status.aggregatedStatus for details';
/**
 * karmada-lite (staged rollout): every Work not applied yet is held for its rollout stage, which is no failure.
 * The reason is Karmada's for a Work whose dispatching is suspended (WorkSuspendDispatchingReason).
 */
export const fullyAppliedHeldMessage = (clusters: readonly string[]): string =>
  `Work dispatching is in a suspended state on ${clusters.join(', ')} until the staged rollout reaches ${clusters.length === 1 ? 'it' : 'them'}; every other work has been applied`;

export type Health = 'Healthy' | 'Unhealthy' | 'Unknown';
export const ResourceHealthy: Health = 'Healthy';
export const ResourceUnhealthy: Health = 'Unhealthy';
export const ResourceUnknown: Health = 'Unknown';

// ---------------------------------------------------------------------------------------------
// Eviction

export const EvictionReasonApplicationFailure = 'ApplicationFailure';
export const EvictionReasonTaintUntolerated = 'TaintUntolerated';
export const EvictionProducerTaintManager = 'TaintManager';
export const PurgeModeDirectly = 'Directly';
export const PurgeModeGracefully = 'Gracefully';
export const PurgeModeNever = 'Never';

// ---------------------------------------------------------------------------------------------
// Event reasons

export const EventReasonApplyPolicySucceed = 'ApplyPolicySucceed';
export const EventReasonApplyPolicyFailed = 'ApplyPolicyFailed';
export const EventReasonPreemptPolicySucceed = 'PreemptPolicySucceed';
export const EventReasonPreemptPolicyFailed = 'PreemptPolicyFailed';
export const EventReasonGetReplicasSucceed = 'GetReplicasSucceed';
export const EventReasonGetReplicasFailed = 'GetReplicasFailed';
export const EventReasonGetComponentsSucceed = 'GetComponentsSucceed';
export const EventReasonGetComponentsFailed = 'GetComponentsFailed';
export const EventReasonApplyOverridePolicySucceed = 'ApplyOverridePolicySucceed';
export const EventReasonApplyOverridePolicyFailed = 'ApplyOverridePolicyFailed';
export const EventReasonSyncWorkSucceed = 'SyncWorkSucceed';
export const EventReasonSyncWorkFailed = 'SyncWorkFailed';
export const EventReasonCleanupWorkFailed = 'CleanupWorkFailed';
export const EventReasonSyncSucceed = 'SyncSucceed';
export const EventReasonSyncFailed = 'SyncFailed';
export const EventReasonWorkDispatching = 'WorkDispatching';
export const EventReasonReflectStatusSucceed = 'ReflectStatusSucceed';
export const EventReasonReflectStatusFailed = 'ReflectStatusFailed';
export const EventReasonInterpretHealthSucceed = 'InterpretHealthSucceed';
export const EventReasonInterpretHealthFailed = 'InterpretHealthFailed';
export const EventReasonAggregateStatusSucceed = 'AggregateStatusSucceed';
export const EventReasonAggregateStatusFailed = 'AggregateStatusFailed';
export const EventReasonEvictWorkloadFromClusterSucceed = 'EvictWorkloadFromClusterSucceed';
export const EventReasonEvictWorkloadFromClusterFailed = 'EvictWorkloadFromClusterFailed';
export const EventReasonScheduleBindingSucceed = 'ScheduleBindingSucceed';
export const EventReasonScheduleBindingFailed = 'ScheduleBindingFailed';
export const EventReasonTaintClusterSucceed = 'TaintClusterSucceed';
export const EventReasonTaintClusterFailed = 'TaintClusterFailed';
// The cluster controller's removal of a deleted Cluster's execution space (karmada-es-<cluster>).
export const EventReasonRemoveExecutionSpaceSucceed = 'RemoveExecutionSpaceSucceed';
export const EventReasonRemoveExecutionSpaceFailed = 'RemoveExecutionSpaceFailed';
export const EventReasonDescheduleBindingSucceed = 'DescheduleBindingSucceed';
export const EventReasonDescheduleBindingFailed = 'DescheduleBindingFailed';
// The dependencies distributor (pkg/dependenciesdistributor): on the workload, its binding, and the attached binding.
export const EventReasonGetDependenciesSucceed = 'GetDependenciesSucceed';
export const EventReasonGetDependenciesFailed = 'GetDependenciesFailed';
export const EventReasonSyncScheduleResultToDependenciesSucceed = 'SyncScheduleResultToDependenciesSucceed';
export const EventReasonSyncScheduleResultToDependenciesFailed = 'SyncScheduleResultToDependenciesFailed';
export const EventReasonDependencyPolicyConflict = 'DependencyPolicyConflict';
export const SyncScheduleResultToDependenciesSucceedMessage = 'Sync schedule results to dependencies succeed.';
export const DependencyPolicyConflictMessagePrefix = 'Dependency policy conflict detected: ';
export const DependencyConflictResolutionConflicted = 'ConflictResolution conflicted (Overwrite vs Abort)';
export const DependencyPreserveOnDeletionConflicted = 'PreserveResourcesOnDeletion conflicted (true vs false)';
/** Karmada's refusal to take over an attached binding another object (an earlier one of the same name) owns. */
export function attachedBindingOwnerMismatchMessage(namespace: string, name: string): string {
  return `failed to update resourceBinding(${namespace}/${name}) due to different owner reference UID, will try again later after binding is garbage collected, see https://github.com/karmada-io/karmada/issues/6034`;
}
/** karmada-lite (spec README point 8): a preserved object was already gone when its Work was deleted. */
export const EventReasonPreserveSkippedMissing = 'PreserveResourceSkipped';
/** karmada-lite (spec README point 1): failover of a cluster waits because dispatching to it is suspended. */
export const EventReasonFailoverPausedBySuspension = 'FailoverPausedBySuspension';
/**
 * karmada-lite (spec README point 13): application failover found no cluster left to move to (every other one
 * was evicted from within blockPredecessorSeconds, or cannot take the workload): the binding keeps its last
 * placement, gets this condition (and an Event of the same reason), and is not evicted again until a cluster
 * reports the workload healthy or the user changes the template or the policy.
 */
export const BindingConditionFailoverExhausted = 'FailoverExhausted';
export const EventReasonFailoverExhausted = 'FailoverExhausted';
export const ReasonNoClusterLeft = 'NoClusterLeft';
/** What the user's inputs were when failover was exhausted (template resourceVersion, placement, failover): a change resumes it. */
export const FailoverExhaustedAnnotation = 'failover.karmada-lite.io/exhausted-for';
/**
 * karmada-lite (README "differs from Karmada"): a RIC's ScriptsHealthy condition, and the reasons of it and
 * of the Events beside it: a script of the RIC keeps exceeding its time or memory budget, or failing.
 */
export const RICConditionScriptsHealthy = 'ScriptsHealthy';
export const ReasonScriptTimeout = 'ScriptTimeout';
export const ReasonScriptMemoryLimit = 'ScriptMemoryLimit';
export const ReasonScriptError = 'ScriptError';
export const ReasonScriptsSucceeded = 'ScriptsSucceeded';

// ---------------------------------------------------------------------------------------------
// Controller names (event sources, eviction producers)

export const BindingControllerName = 'binding-controller';
export const ClusterResourceBindingControllerName = 'cluster-resource-binding-controller';
export const ExecutionControllerName = 'execution-controller';
export const WorkStatusControllerName = 'work-status-controller';
export const ResourceBindingStatusControllerName = 'resource-binding-status-controller';
export const ClusterResourceBindingStatusControllerName = 'cluster-resource-binding-status-controller';
export const RBApplicationFailoverControllerName = 'resource-binding-application-failover-controller';
export const CRBApplicationFailoverControllerName = 'cluster-resource-binding-application-failover-controller';
export const RBGracefulEvictionControllerName = 'resource-binding-graceful-eviction-controller';
export const CRBGracefulEvictionControllerName = 'cluster-resource-binding-graceful-eviction-controller';
export const ResourceDetectorName = 'resource-detector';
export const SchedulerName = 'default-scheduler';
export const DependenciesDistributorName = 'dependencies-distributor';
export const ClusterControllerName = 'cluster-controller';
export const InterpreterHealthControllerName = 'interpreter-health-controller';
export const ClusterTaintPolicyControllerName = 'cluster-taint-policy-controller';
/** The source of the descheduler's Events (Karmada's KarmadaDeschedulerComponentName). */
export const DeschedulerComponentName = 'karmada-descheduler';
export const WorkloadRebalancerControllerName = 'workload-rebalancer';

// ---------------------------------------------------------------------------------------------
// Staged rollout (karmada-lite extension, Karmada proposal #7891; README "Staged rollout")

export const RolloutControllerName = 'rollout-controller';
export const RolloutTypeStaged = 'Staged';
/** The binding condition of a staged rollout: True once every stage passed. */
export const BindingRollout = 'Rollout';
export const RolloutReasonProgressing = 'Progressing';
export const RolloutReasonPaused = 'Paused';
export const RolloutReasonStageFailed = 'StageFailed';
export const RolloutReasonRolledBack = 'RolledBack';
export const RolloutReasonAborted = 'Aborted';
export const RolloutReasonCompleted = 'Completed';
/** Binding annotations an operator sets: open the next stage now / hold / give every cluster the stable revision back. */
export const RolloutPromoteAnnotation = 'rollout.karmada-lite.io/promote';
export const RolloutPauseAnnotation = 'rollout.karmada-lite.io/pause';
export const RolloutAbortAnnotation = 'rollout.karmada-lite.io/abort';
export const EventReasonRolloutStarted = 'RolloutStarted';
export const EventReasonRolloutRestarted = 'RolloutRestarted';
export const EventReasonRolloutStageOpened = 'RolloutStageOpened';
export const EventReasonRolloutStagePassed = 'RolloutStagePassed';
export const EventReasonRolloutStageFailed = 'RolloutStageFailed';
export const EventReasonRolloutPromoted = 'RolloutPromoted';
export const EventReasonRolloutPaused = 'RolloutPaused';
export const EventReasonRolloutResumed = 'RolloutResumed';
export const EventReasonRolloutRolledBack = 'RolloutRolledBack';
export const EventReasonRolloutAborted = 'RolloutAborted';
export const EventReasonRolloutCompleted = 'RolloutCompleted';

// ---------------------------------------------------------------------------------------------
// Defaults

export const DefaultSchedulerName = 'default-scheduler';
export const DefaultTolerationSeconds = 300;
export const DefaultGracePeriodSeconds = 600;
export const DefaultBlockPredecessorSeconds = 600;
/** `--graceful-eviction-timeout` default. */
export const DefaultGracefulEvictionTimeoutSeconds = 600;
/** `--cluster-failure-threshold` default: how long Ready may be False/Unknown before the NoExecute taint. */
export const DefaultClusterFailureThresholdSeconds = 30;
/** `--descheduling-interval` default: how often the descheduler looks at a binding with replicas not ready. */
export const DefaultDeschedulingIntervalSeconds = 120;
/** `--unschedulable-threshold` default: how long a replica must stay unschedulable before it is descheduled. */
export const DefaultUnschedulableThresholdSeconds = 300;
/** How often a binding waiting for a `Directly` eviction's Work to disappear is looked at again. */
export const DirectlyPurgeRequeueSeconds = 5;

// ---------------------------------------------------------------------------------------------
// Namespaces

export const ExecutionSpacePrefix = 'karmada-es-';
export const KarmadaSystemNamespace = 'karmada-system';
export const KarmadaClusterNamespace = 'karmada-cluster';
/** Never propagated by the namespace sync controller: every member has its own. */
export const NamespaceDefault = 'default';
/** `--skipped-propagating-namespaces` default, as the flag spells it (each entry is anchored: ^(entry)$). */
export const DefaultSkippedPropagatingNamespacesFlag = 'kube-.*';
/** `--skipped-propagating-namespaces` default, anchored. */
export const DefaultSkippedPropagatingNamespaces: readonly RegExp[] = [/^kube-.*$/];
/** `--no-execute-taint-eviction-purge-mode` default. */
export const DefaultNoExecuteTaintEvictionPurgeMode = PurgeModeGracefully;

// ---------------------------------------------------------------------------------------------
// API groups and kinds of the objects the core reads and writes

export const PolicyGroupVersion = 'policy.karmada.io/v1alpha1';
export const WorkGroupVersion = 'work.karmada.io/v1alpha1';
export const BindingGroupVersion = 'work.karmada.io/v1alpha2';
export const ClusterGroupVersion = 'cluster.karmada.io/v1alpha1';
export const ConfigGroupVersion = 'config.karmada.io/v1alpha1';
export const AppsGroupVersion = 'apps.karmada.io/v1alpha1';
export const RemedyGroupVersion = 'remedy.karmada.io/v1alpha1';
export const AutoscalingGroupVersion = 'autoscaling.karmada.io/v1alpha1';

/** WorkloadRebalancer's status.observedWorkloads[].result and reason. */
export const RebalanceSuccessful = 'Successful';
export const RebalanceFailed = 'Failed';
export const RebalanceObjectNotFound = 'ReferencedBindingNotFound';

// ---------------------------------------------------------------------------------------------
// Name functions

/** `<name>-<kind>`, lowercased, with `:` in the name turned into `.` (ClusterRole `system::tom` -> `system..tom-clusterrole`). */
export function generateBindingName(kind: string, name: string): string {
  return `${name.replace(/:/g, '.')}-${kind}`.toLowerCase();
}

/** `karmada-es-<cluster>`: the control-plane namespace holding the Works of one member cluster. */
export function generateExecutionSpaceName(clusterName: string): string {
  return ExecutionSpacePrefix + clusterName;
}

/** The cluster of an execution namespace; throws for any other namespace, since the caller misrouted a Work. */
export function getClusterName(executionSpaceName: string): string {
  if (!executionSpaceName.startsWith(ExecutionSpacePrefix)) {
    throw new Error(`the namespace ${executionSpaceName} does not start with ${ExecutionSpacePrefix}: Works live in karmada-es-<cluster> namespaces`);
  }
  return executionSpaceName.slice(ExecutionSpacePrefix.length);
}

/** FNV-1a, 32 bit, over the UTF-8 bytes. */
export function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) {
      ascii = false;
      break;
    }
    h = Math.imul(h ^ c, 0x01000193) >>> 0;
  }
  if (ascii) return h >>> 0;
  h = 0x811c9dc5;
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Karmada's "safe" alphabet: no vowels, no 0/1/3, so generated names never spell words. */
const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** Maps each character through the safe alphabet by its code point, as Karmada's SafeEncodeString does. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += SAFE_ALPHANUMS[s.charCodeAt(i) % SAFE_ALPHANUMS.length];
  return out;
}

/**
 * The Work name for a template: `<name>-<hash>`, the hash being FNV-1a of `<ns>-<name>-<kind>` (or
 * `<name>-<kind>` for cluster-scoped templates), lowercased. Deployment default/nginx -> `nginx-687f7fb96f`.
 */
export function generateWorkName(kind: string, name: string, namespace?: string): string {
  const n = name.replace(/:/g, '.').toLowerCase();
  const key = (namespace ? `${namespace}-${n}-${kind}` : `${n}-${kind}`).toLowerCase();
  return `${n}-${safeEncodeString(String(fnv32a(key)))}`;
}

/**
 * The name `karmadactl promote` and `apply --all-clusters` give the policy they make for one object:
 * `<name>-<hash>`, the hash FNV-1a of namespace + the Go GroupVersionKind string (`apps/v1, Kind=Deployment`,
 * `/v1, Kind=ConfigMap`), `:` in the name made `.` (RBAC names), lowercased.
 */
export function generatePolicyName(namespace: string, name: string, gvk: string): string {
  return `${name.replace(/:/g, '.')}-${safeEncodeString(String(fnv32a(namespace + gvk)))}`.toLowerCase();
}

/** The label key an attached binding carries for one binding that depends on it. */
export function dependedByLabelKey(bindingNamespace: string | undefined, bindingName: string): string {
  return DependedByLabelKeyPrefix + safeEncodeString(String(fnv32a(`${bindingNamespace ?? ''}/${bindingName}`))).slice(0, 10);
}

/** CronFederatedHPA: a rule's run that could not scale its target (Karmada's cronfederatedhpa job). */
export const EventReasonScaleFailed = 'ScaleFailed';

// MultiClusterService (networking.karmada.io/v1alpha1) and the MCS API (multicluster.x-k8s.io/v1alpha1):
// Karmada's pkg/apis/networking/v1alpha1, pkg/util/constants.go and pkg/events.
export const NetworkingGroupVersion = 'networking.karmada.io/v1alpha1';
export const MultiClusterGroupVersion = 'multicluster.x-k8s.io/v1alpha1';
export const MultiClusterServiceKind = 'MultiClusterService';
export const MultiClusterServicePermanentIDLabel = 'multiclusterservice.karmada.io/permanent-id';
export const MultiClusterServiceNameAnnotation = 'multiclusterservice.karmada.io/name';
export const MultiClusterServiceNamespaceAnnotation = 'multiclusterservice.karmada.io/namespace';
/** On Works: the MultiClusterService the Work is managed for (labels, same keys as the annotations). */
export const MultiClusterServiceNameLabel = 'multiclusterservice.karmada.io/name';
export const MultiClusterServiceNamespaceLabel = 'multiclusterservice.karmada.io/namespace';
/** On a Work of EndpointSlices collected from a member: which controllers keep it, '.'-joined. */
export const EndpointSliceWorkManagedByLabel = 'endpointslice.karmada.io/managed-by';
/** On a Work of EndpointSlices collected by the ServiceExport flow: the Service they belong to. */
export const ServiceNamespaceLabel = 'endpointslice.karmada.io/namespace';
export const ServiceNameLabel = 'endpointslice.karmada.io/name';
/** On a dispatched EndpointSlice and its Work: the member it was collected from. */
export const EndpointSliceProvisionClusterAnnotation = 'endpointslice.karmada.io/provision-cluster';
/** discovery.k8s.io's well-known labels. */
export const EndpointSliceServiceNameLabel = 'kubernetes.io/service-name';
export const EndpointSliceManagedByLabel = 'endpointslice.kubernetes.io/managed-by';
export const EndpointSliceDispatchControllerLabelValue = 'endpointslice-dispatch-controller.karmada.io';
export const EndpointSliceControllerLabelValue = 'endpointslice-controller.karmada.io';
export const MCSControllerFinalizer = 'karmada.io/multiclusterservice-controller';
export const MCSEndpointSliceDispatchControllerFinalizer = 'karmada.io/mcs-endpointslice-dispatch-controller';
export const EndpointSliceControllerFinalizer = 'karmada.io/endpointslice-controller';
/** MultiClusterService status conditions, their reasons. */
export const MCSServiceAppliedConditionType = 'ServiceApplied';
export const MCSServiceAppliedSucceedReason = 'ServiceAppliedSucceed';
export const MCSServiceAppliedFailedReason = 'ServiceAppliedFailed';
export const MCSServiceAppliedMessage = 'Service is propagated to target clusters.';
export const EndpointSliceDispatchedConditionType = 'EndpointSliceDispatched';
export const EndpointSliceDispatchedSucceedReason = 'EndpointSliceDispatchedSucceed';
export const EndpointSliceDispatchedFailedReason = 'EndpointSliceDispatchedFailed';
export const EndpointSliceDispatchedMessage = 'EndpointSlice are dispatched successfully';
export const EventReasonSyncServiceSucceed = 'SyncServiceSucceed';
export const EventReasonSyncServiceFailed = 'SyncServiceFailed';
export const EventReasonDispatchEndpointSliceSucceed = 'DispatchEndpointSliceSucceed';
export const EventReasonDispatchEndpointSliceFailed = 'DispatchEndpointSliceFailed';
export const EventReasonClusterNotFound = 'ClusterNotFound';
export const EventReasonAPIIncompatible = 'APIIncompatible';
export const EventReasonSyncDerivedServiceSucceed = 'SyncDerivedServiceSucceed';
export const EventReasonSyncDerivedServiceFailed = 'SyncDerivedServiceFailed';
