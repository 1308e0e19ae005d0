/** The Karmada kinds the core reads and writes, and what counts as a resource template. */
import {
  AppsGroupVersion,
  AutoscalingGroupVersion,
  BindingGroupVersion,
  ClusterGroupVersion,
  ConfigGroupVersion,
  ExecutionSpacePrefix,
  KarmadaClusterNamespace,
  KarmadaSystemNamespace,
  MultiClusterGroupVersion,
  NetworkingGroupVersion,
  PolicyGroupVersion,
  RemedyGroupVersion,
  WorkGroupVersion,
} from '../api/constants.js';
import type {
  Cluster,
  ClusterOverridePolicy,
  ClusterPropagationPolicy,
  ClusterResourceBinding,
  ClusterTaintPolicy,
  CronFederatedHPA,
  FederatedHPA,
  FederatedResourceQuota,
  MultiClusterService,
  OverridePolicy,
  PropagationPolicy,
  Remedy,
  ResourceBinding,
  ResourceBindingSpec,
  ResourceInterpreterCustomization,
  ServiceExport,
  ServiceImport,
  Work,
  WorkloadRebalancer,
} from '../api/generated/types.js';
import { groupOf, type KObject, type TypeRef } from './object.js';

export const PP: TypeRef<PropagationPolicy> = { apiVersion: PolicyGroupVersion, kind: 'PropagationPolicy' };
export const CPP: TypeRef<ClusterPropagationPolicy> = { apiVersion: PolicyGroupVersion, kind: 'ClusterPropagationPolicy' };
export const OP: TypeRef<OverridePolicy> = { apiVersion: PolicyGroupVersion, kind: 'OverridePolicy' };
export const COP: TypeRef<ClusterOverridePolicy> = { apiVersion: PolicyGroupVersion, kind: 'ClusterOverridePolicy' };
export const RB: TypeRef<ResourceBinding> = { apiVersion: BindingGroupVersion, kind: 'ResourceBinding' };
export const CRB: TypeRef<ClusterResourceBinding> = { apiVersion: BindingGroupVersion, kind: 'ClusterResourceBinding' };
export const WORK: TypeRef<Work> = { apiVersion: WorkGroupVersion, kind: 'Work' };
export const CLUSTER: TypeRef<Cluster> = { apiVersion: ClusterGroupVersion, kind: 'Cluster' };
export const RIC: TypeRef<ResourceInterpreterCustomization> = { apiVersion: ConfigGroupVersion, kind: 'ResourceInterpreterCustomization' };
export const CTP: TypeRef<ClusterTaintPolicy> = { apiVersion: PolicyGroupVersion, kind: 'ClusterTaintPolicy' };
export const NAMESPACE: TypeRef = { apiVersion: 'v1', kind: 'Namespace' };
export const WORKLOAD_REBALANCER: TypeRef<WorkloadRebalancer> = { apiVersion: AppsGroupVersion, kind: 'WorkloadRebalancer' };
export const REMEDY: TypeRef<Remedy> = { apiVersion: RemedyGroupVersion, kind: 'Remedy' };
export const CRON_FHPA: TypeRef<CronFederatedHPA> = { apiVersion: AutoscalingGroupVersion, kind: 'CronFederatedHPA' };
export const FHPA: TypeRef<FederatedHPA> = { apiVersion: AutoscalingGroupVersion, kind: 'FederatedHPA' };
export const FRQ: TypeRef<FederatedResourceQuota> = { apiVersion: PolicyGroupVersion, kind: 'FederatedResourceQuota' };
export const MCS: TypeRef<MultiClusterService> = { apiVersion: NetworkingGroupVersion, kind: 'MultiClusterService' };
/** The MCS API's kinds: templates like any other (a policy propagates ServiceExports and ServiceImports). */
export const SERVICE_EXPORT: TypeRef<ServiceExport> = { apiVersion: MultiClusterGroupVersion, kind: 'ServiceExport' };
export const SERVICE_IMPORT: TypeRef<ServiceImport> = { apiVersion: MultiClusterGroupVersion, kind: 'ServiceImport' };

/** Either binding kind: what the binding-side reconcilers read (their specs share one schema). */
export type Binding = ResourceBinding | ClusterResourceBinding;
/** One of a binding's target clusters (spec.clusters, requiredBy[].clusters). */
export type BindingTarget = NonNullable<ResourceBindingSpec['clusters']>[number];
/** One of a binding's spec.gracefulEvictionTasks. */
export type GracefulEvictionTask = NonNullable<ResourceBindingSpec['gracefulEvictionTasks']>[number];
/** Either propagation policy kind. */
export type Policy = PropagationPolicy | ClusterPropagationPolicy;
/** Either override policy kind. */
export type Override = OverridePolicy | ClusterOverridePolicy;

const KARMADA_GROUPS = new Set(['policy.karmada.io', 'work.karmada.io', 'cluster.karmada.io', 'config.karmada.io', 'apps.karmada.io', 'remedy.karmada.io', 'autoscaling.karmada.io', 'networking.karmada.io']);

export function isKarmadaType(t: TypeRef): boolean {
  return KARMADA_GROUPS.has(groupOf(t.apiVersion));
}

export function is(obj: TypeRef, t: TypeRef): boolean {
  if (obj.kind !== t.kind) return false;
  // Same apiVersion, same group: the common case, without slicing out the groups (every watch predicate asks).
  return obj.apiVersion === t.apiVersion || groupOf(obj.apiVersion) === groupOf(t.apiVersion);
}

/** `is` as a narrowing: a watched object of that kind is of its type, as the store's objects are. */
export function isOf<T extends KObject>(obj: KObject, t: TypeRef<T>): obj is T {
  return is(obj, t);
}

export function isBinding(t: TypeRef): boolean {
  return is(t, RB) || is(t, CRB);
}

/** The binding kind a binding key names, to read it typed: `reader.get(bindingType(ref), ...)` is a Binding. */
export function bindingType(t: TypeRef): TypeRef<Binding> {
  return is(t, CRB) ? CRB : RB;
}

/** The policy kind a policy key names, to read it typed. */
export function policyType(t: TypeRef): TypeRef<Policy> {
  return is(t, CPP) ? CPP : PP;
}

export function isPolicy(t: TypeRef): boolean {
  return is(t, PP) || is(t, CPP);
}

/** Objects the detector never propagates: Karmada's own kinds, events, and reserved namespaces. */
export function isTemplateType(t: TypeRef): boolean {
  if (isKarmadaType(t)) return false;
  if (t.kind === 'Event' && (t.apiVersion === 'v1' || groupOf(t.apiVersion) === 'events.k8s.io')) return false;
  return true;
}

export function isIgnoredNamespace(ns: string | undefined, skipped: readonly RegExp[]): boolean {
  if (!ns) return false;
  if (ns === KarmadaSystemNamespace || ns === KarmadaClusterNamespace || ns.startsWith(ExecutionSpacePrefix)) return true;
  return skipped.some((r) => r.test(ns));
}

export function isNamespaced(obj: KObject): boolean {
  return !!obj.metadata.namespace;
}
