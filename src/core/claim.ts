/**
 * Claim metadata: which policy owns a template (and its binding). A PP claim is a permanent-id label
 * plus namespace/name annotations; a CPP claim is a permanent-id label plus a name annotation.
 */
import {
  ClusterPropagationPolicyAnnotation,
  ClusterPropagationPolicyPermanentIDLabel,
  ClusterResourceBindingPermanentIDLabel,
  PropagationPolicyNameAnnotation,
  PropagationPolicyNamespaceAnnotation,
  PropagationPolicyPermanentIDLabel,
  ResourceBindingPermanentIDLabel,
} from '../api/constants.js';
import { withMeta, getAnnotation, getLabel, setAnnotation, setLabel, type KObject } from './object.js';

export const PP_KIND = 'PropagationPolicy';
export const CPP_KIND = 'ClusterPropagationPolicy';

export function isClusterPolicy(policy: KObject): boolean {
  return policy.kind === CPP_KIND;
}

/**
 * A policy's permanent id: the label the mutating webhook stamps at creation. Policies loaded without
 * the webhook fall back to their uid, which is just as stable for the object's lifetime.
 */
export function policyId(policy: KObject): string {
  const label = isClusterPolicy(policy) ? ClusterPropagationPolicyPermanentIDLabel : PropagationPolicyPermanentIDLabel;
  return getLabel(policy, label) || policy.metadata.uid || '';
}

/** A binding's permanent id (label stamped by the binding webhook), uid as fallback. */
export function bindingId(binding: KObject): string {
  const label = binding.kind === 'ClusterResourceBinding' ? ClusterResourceBindingPermanentIDLabel : ResourceBindingPermanentIDLabel;
  return getLabel(binding, label) || binding.metadata.uid || '';
}

export function bindingIdLabel(binding: KObject): string {
  return binding.kind === 'ClusterResourceBinding' ? ClusterResourceBindingPermanentIDLabel : ResourceBindingPermanentIDLabel;
}

export interface PPClaim {
  namespace: string;
  name: string;
  id: string;
}

export function ppClaimOf(obj: KObject): PPClaim | undefined {
  const namespace = getAnnotation(obj, PropagationPolicyNamespaceAnnotation);
  const name = getAnnotation(obj, PropagationPolicyNameAnnotation);
  const id = getLabel(obj, PropagationPolicyPermanentIDLabel);
  return namespace && name && id ? { namespace, name, id } : undefined;
}

export function cppClaimOf(obj: KObject): { name: string; id: string } | undefined {
  const name = getAnnotation(obj, ClusterPropagationPolicyAnnotation);
  const id = getLabel(obj, ClusterPropagationPolicyPermanentIDLabel);
  return name && id ? { name, id } : undefined;
}

export function hasAnyClaim(obj: KObject): boolean {
  return !!(
    getLabel(obj, PropagationPolicyPermanentIDLabel) ||
    getLabel(obj, ClusterPropagationPolicyPermanentIDLabel)
  );
}

/** Whether obj already carries exactly this policy's claim. */
export function isClaimedBy(obj: KObject, policy: KObject): boolean {
  const id = policyId(policy);
  if (isClusterPolicy(policy)) {
    return getLabel(obj, ClusterPropagationPolicyPermanentIDLabel) === id && getAnnotation(obj, ClusterPropagationPolicyAnnotation) === policy.metadata.name;
  }
  return (
    getLabel(obj, PropagationPolicyPermanentIDLabel) === id &&
    getAnnotation(obj, PropagationPolicyNamespaceAnnotation) === policy.metadata.namespace &&
    getAnnotation(obj, PropagationPolicyNameAnnotation) === policy.metadata.name &&
    !getLabel(obj, ClusterPropagationPolicyPermanentIDLabel)
  );
}

/** Sets the policy's claim on a mutable copy; a PP claim drops any CPP claim in the same update. */
export function setClaim(obj: KObject, policy: KObject): void {
  const id = policyId(policy);
  if (isClusterPolicy(policy)) {
    removePPClaim(obj);
    setLabel(obj, ClusterPropagationPolicyPermanentIDLabel, id);
    setAnnotation(obj, ClusterPropagationPolicyAnnotation, policy.metadata.name);
    return;
  }
  removeCPPClaim(obj);
  setLabel(obj, PropagationPolicyPermanentIDLabel, id);
  setAnnotation(obj, PropagationPolicyNamespaceAnnotation, policy.metadata.namespace);
  setAnnotation(obj, PropagationPolicyNameAnnotation, policy.metadata.name);
}

export function removePPClaim(obj: KObject): void {
  setLabel(obj, PropagationPolicyPermanentIDLabel, undefined);
  setAnnotation(obj, PropagationPolicyNamespaceAnnotation, undefined);
  setAnnotation(obj, PropagationPolicyNameAnnotation, undefined);
}

export function removeCPPClaim(obj: KObject): void {
  setLabel(obj, ClusterPropagationPolicyPermanentIDLabel, undefined);
  setAnnotation(obj, ClusterPropagationPolicyAnnotation, undefined);
}

/**
 * A copy of obj without the claim of the policy kind given, or undefined when obj does not carry that
 * policy id (the guard that protects a newer claim).
 */
export function withoutClaim<T extends KObject>(obj: T, cluster: boolean, id: string): T | undefined {
  const label = cluster ? ClusterPropagationPolicyPermanentIDLabel : PropagationPolicyPermanentIDLabel;
  if (getLabel(obj, label) !== id) return undefined;
  const copy = withMeta(obj);
  if (cluster) removeCPPClaim(copy);
  else removePPClaim(copy);
  return copy;
}
