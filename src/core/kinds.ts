/** The Karmada kinds the core reads and writes, and what counts as a resource template. */
import {
  AppsGroupVersion,
  BindingGroupVersion,
  ClusterGroupVersion,
  ConfigGroupVersion,
  ExecutionSpacePrefix,
  KarmadaClusterNamespace,
  KarmadaSystemNamespace,
  PolicyGroupVersion,
  WorkGroupVersion,
} from '../api/constants.js';
import { groupOf, type KObject, type TypeRef } from './object.js';

export const PP: TypeRef = { apiVersion: PolicyGroupVersion, kind: 'PropagationPolicy' };
export const CPP: TypeRef = { apiVersion: PolicyGroupVersion, kind: 'ClusterPropagationPolicy' };
export const OP: TypeRef = { apiVersion: PolicyGroupVersion, kind: 'OverridePolicy' };
export const COP: TypeRef = { apiVersion: PolicyGroupVersion, kind: 'ClusterOverridePolicy' };
export const RB: TypeRef = { apiVersion: BindingGroupVersion, kind: 'ResourceBinding' };
export const CRB: TypeRef = { apiVersion: BindingGroupVersion, kind: 'ClusterResourceBinding' };
export const WORK: TypeRef = { apiVersion: WorkGroupVersion, kind: 'Work' };
export const CLUSTER: TypeRef = { apiVersion: ClusterGroupVersion, kind: 'Cluster' };
export const RIC: TypeRef = { apiVersion: ConfigGroupVersion, kind: 'ResourceInterpreterCustomization' };
export const CTP: TypeRef = { apiVersion: PolicyGroupVersion, kind: 'ClusterTaintPolicy' };
export const NAMESPACE: TypeRef = { apiVersion: 'v1', kind: 'Namespace' };
export const WORKLOAD_REBALANCER: TypeRef = { apiVersion: AppsGroupVersion, kind: 'WorkloadRebalancer' };

const KARMADA_GROUPS = new Set(['policy.karmada.io', 'work.karmada.io', 'cluster.karmada.io', 'config.karmada.io', 'apps.karmada.io']);

export function isKarmadaType(t: TypeRef): boolean {
  return KARMADA_GROUPS.has(groupOf(t.apiVersion));
}

export function is(obj: TypeRef, t: TypeRef): boolean {
  if (obj.kind !== t.kind) return false;
  // Same apiVersion, same group: the common case, without slicing out the groups (every watch predicate asks).
  return obj.apiVersion === t.apiVersion || groupOf(obj.apiVersion) === groupOf(t.apiVersion);
}

export function isBinding(t: TypeRef): boolean {
  return is(t, RB) || is(t, CRB);
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
