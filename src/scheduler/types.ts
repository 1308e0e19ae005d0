/**
 * The narrow structural view of Karmada objects that the scheduler reads and writes. Field names are
 * Karmada's (work.karmada.io/v1alpha2 ResourceBinding, cluster.karmada.io/v1alpha1 Cluster), so the
 * generated API types in src/api/generated are assignable to these: the scheduler never needs more,
 * and tests or conformance fixtures can build small objects without filling required fields that
 * the scheduler ignores. `null` is accepted wherever Go would decode a nil slice or pointer. Where
 * a generated type is already exactly this view (object references, resource models), it is used
 * as it is.
 */
import type { Condition } from '../api/condition.js';
import type { Cluster as ClusterObject, ResourceBindingSpec as GeneratedBindingSpec } from '../api/generated/types.js';

type ResourceSummaryOf = NonNullable<NonNullable<ClusterObject['status']>['resourceSummary']>;

export type Quantityish = string | number;
export type ResourceList = Record<string, Quantityish>;

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[] | null;
}

export interface LabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirement[] | null;
}

/** corev1.NodeSelectorRequirement as used by `fieldSelector` (In, NotIn, Exists, DoesNotExist, Gt, Lt). */
export interface FieldSelector {
  matchExpressions?: LabelSelectorRequirement[] | null;
}

export interface ClusterAffinity {
  labelSelector?: LabelSelector | null;
  fieldSelector?: FieldSelector | null;
  clusterNames?: string[] | null;
  exclude?: string[] | null;
}

export interface OverflowAffinity extends ClusterAffinity {
  affinityName: string;
}

export interface ClusterAffinityTerm extends ClusterAffinity {
  affinityName: string;
  overflowAffinities?: OverflowAffinity[] | null;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number | null;
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string | null;
}

export type SpreadFieldValue = 'cluster' | 'region' | 'zone' | 'provider';

export interface SpreadConstraint {
  spreadByField?: SpreadFieldValue | string;
  spreadByLabel?: string;
  maxGroups?: number;
  minGroups?: number;
}

export interface StaticClusterWeight {
  targetCluster: ClusterAffinity;
  weight: number;
}

export interface ClusterPreferences {
  staticWeightList?: StaticClusterWeight[] | null;
  dynamicWeight?: string;
}

export interface ReplicaSchedulingStrategy {
  replicaSchedulingType?: 'Duplicated' | 'Divided' | string;
  replicaDivisionPreference?: 'Aggregated' | 'Weighted' | string;
  weightPreference?: ClusterPreferences | null;
}

export interface Placement {
  clusterAffinity?: ClusterAffinity | null;
  clusterAffinities?: ClusterAffinityTerm[] | null;
  clusterTolerations?: Toleration[] | null;
  spreadConstraints?: SpreadConstraint[] | null;
  replicaScheduling?: ReplicaSchedulingStrategy | null;
  workloadAffinity?: unknown;
}

export interface TargetCluster {
  name: string;
  replicas?: number;
  components?: Array<{ name: string; replicas: number }> | null;
}

export interface ReplicaRequirements {
  resourceRequest?: ResourceList | null;
  nodeClaim?: unknown;
  priorityClassName?: string;
  namespace?: string;
}

export interface GracefulEvictionTask {
  fromCluster: string;
  purgeMode?: string;
  replicas?: number;
  reason?: string;
  message?: string;
  producer?: string;
  gracePeriodSeconds?: number;
  suppressDeletion?: boolean;
  creationTimestamp?: string;
  clustersBeforeFailover?: string[];
}

/**
 * karmada-lite extension (spec/README.md point 4): clusters an application was evicted from, kept
 * while their block period runs. `creationTimestamp` is accepted as an alias of `evictedAt`, the
 * spelling used in the design documents' example.
 */
export interface EvictionHistoryEntry {
  clusterName: string;
  evictedAt?: string;
  creationTimestamp?: string;
  blockPredecessorSeconds?: number;
  reason?: string;
}

export type ObjectReference = GeneratedBindingSpec['resource'];

export interface ResourceBindingSpec {
  resource: ObjectReference;
  replicas?: number;
  replicaRequirements?: ReplicaRequirements | null;
  components?: Array<{ name: string; replicas: number; replicaRequirements?: ReplicaRequirements }> | null;
  clusters?: TargetCluster[] | null;
  placement?: Placement | null;
  gracefulEvictionTasks?: GracefulEvictionTask[] | null;
  activeEvictionHistory?: EvictionHistoryEntry[] | null;
  failover?: { application?: { blockPredecessorSeconds?: number } | null } | null;
  rescheduleTriggeredAt?: string | null;
  schedulerName?: string;
  suspension?: { scheduling?: boolean } | null;
  workloadAffinityGroups?: { affinityGroup?: string; antiAffinityGroup?: string } | null;
}

export type { Condition };

export interface AggregatedStatusItem {
  clusterName: string;
  status?: Record<string, unknown> | null;
  applied?: boolean;
  health?: string;
}

export interface ResourceBindingStatus {
  schedulerObservedGeneration?: number;
  schedulerObservingAffinityName?: string;
  lastScheduledTime?: string | null;
  conditions?: Condition[] | null;
  aggregatedStatus?: AggregatedStatusItem[] | null;
}

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  deletionTimestamp?: string | null;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
}

/** A ResourceBinding or ClusterResourceBinding (told apart by `kind`, else by the absence of a namespace). */
export interface Binding {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: ResourceBindingSpec;
  status?: ResourceBindingStatus | null;
}

export interface APIEnablement {
  groupVersion: string;
  resources?: Array<{ name: string; kind: string }> | null;
}

export type AllocatableModeling = NonNullable<ResourceSummaryOf['allocatableModelings']>[number];

export interface ResourceSummary {
  allocatable?: ResourceList | null;
  allocating?: ResourceList | null;
  allocated?: ResourceList | null;
  allocatableModelings?: AllocatableModeling[] | null;
}

export type ResourceModel = NonNullable<NonNullable<ClusterObject['spec']>['resourceModels']>[number];

export interface Cluster {
  metadata: ObjectMeta;
  spec?: {
    provider?: string;
    region?: string;
    zone?: string;
    zones?: string[] | null;
    taints?: Taint[] | null;
    resourceModels?: ResourceModel[] | null;
  } | null;
  status?: {
    apiEnablements?: APIEnablement[] | null;
    conditions?: Array<{ type: string; status: string }> | null;
    resourceSummary?: ResourceSummary | null;
  } | null;
}

/**
 * The applied-placement annotation decoded, the one place its JSON becomes a Placement: undefined
 * when it is not JSON, or is null or a scalar (Go's decoder refuses those; the callers then treat
 * the annotation as unusable).
 */
export function parsePlacement(raw: string): Placement | undefined {
  let v: Placement | null;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  return v !== null && typeof v === 'object' ? v : undefined;
}

/**
 * `Placement.ReplicaSchedulingType()`: Duplicated without a strategy; otherwise the field, where an
 * absent value is the CRD's default (Divided), which the API server fills in on every write.
 */
export function replicaSchedulingType(placement: Placement | null | undefined): string {
  const rs = placement?.replicaScheduling;
  if (!rs) return 'Duplicated';
  return rs.replicaSchedulingType || 'Divided';
}

/** Time comes in as an argument: a fixed instant or something that reads the current one. */
export type Clock = Date | { now(): Date };

export function nowOf(clock: Clock): Date {
  return clock instanceof Date ? clock : clock.now();
}
