/**
 * The admission rules of every kind behind one entry point, shared by the webhook and the offline linter:
 * `mutate` is what the mutating webhook does, `validate` what the validating webhook does.
 */
import type { FieldError } from './field-errors.js';
import { isObj, type Obj } from './json.js';
import { validateResourceBinding, type FeatureGates } from './binding.js';
import { mutateBinding, mutateOverridePolicy, mutatePropagationPolicy, mutateWork, type Mutated } from './defaulting.js';
import { validateClusterTaintPolicy } from './cluster-taint-policy.js';
import { validateCronFederatedHPA } from './cron-federated-hpa.js';
import { mutateFederatedHPA, validateFederatedHPA } from './federated-hpa.js';
import { validateFederatedResourceQuota } from './federated-resource-quota.js';
import { mutateMultiClusterService, validateMultiClusterService } from './multi-cluster-service.js';
import { validateInterpreterWebhookConfiguration } from './interpreter-webhook.js';
import { validateOverridePolicy } from './override.js';
import { validatePropagationPolicy, type PolicyAdmission } from './propagation.js';
import { validateRic, type LuaCompile } from './ric.js';

export type { FeatureGates, LuaCompile, PolicyAdmission };

export interface RuleContext {
  gates?: FeatureGates;
  /** RICs already in the cluster (or earlier in the linted files), for the conflict check. */
  existingRics?: Iterable<Obj>;
  /**
   * Needed for ResourceInterpreterCustomizations only: `luaCompile` of ./lua-compile.ts. Passed in, not
   * imported here, so that a process that never sees a RIC (the webhook) never loads the Lua VM.
   */
  compileLua?: LuaCompile;
  uuid?: () => string;
  /** `--allow-no-execute-taint-policy`: ClusterTaintPolicies may carry NoExecute taints. */
  allowNoExecuteTaintPolicy?: boolean;
}

export type AdmissionKind =
  | 'PropagationPolicy'
  | 'ClusterPropagationPolicy'
  | 'OverridePolicy'
  | 'ClusterOverridePolicy'
  | 'ResourceBinding'
  | 'ClusterResourceBinding'
  | 'Work'
  | 'ResourceInterpreterCustomization'
  | 'ClusterTaintPolicy'
  | 'ResourceInterpreterWebhookConfiguration'
  | 'FederatedResourceQuota'
  | 'CronFederatedHPA'
  | 'FederatedHPA'
  | 'MultiClusterService';

export const ADMISSION_KINDS: readonly AdmissionKind[] = [
  'PropagationPolicy',
  'ClusterPropagationPolicy',
  'OverridePolicy',
  'ClusterOverridePolicy',
  'ResourceBinding',
  'ClusterResourceBinding',
  'Work',
  'ResourceInterpreterCustomization',
  'ClusterTaintPolicy',
  'ResourceInterpreterWebhookConfiguration',
  'FederatedResourceQuota',
  'CronFederatedHPA',
  'FederatedHPA',
  'MultiClusterService',
];

export function isAdmissionKind(kind: unknown): kind is AdmissionKind {
  return ADMISSION_KINDS.includes(kind as AdmissionKind);
}

/** Kinds Karmada has a mutating webhook for. */
export const MUTATED_KINDS: ReadonlySet<AdmissionKind> = new Set(['PropagationPolicy', 'ClusterPropagationPolicy', 'OverridePolicy', 'ResourceBinding', 'ClusterResourceBinding', 'Work', 'FederatedHPA', 'MultiClusterService']);
/** Kinds Karmada has a validating webhook for. */
export const VALIDATED_KINDS: ReadonlySet<AdmissionKind> = new Set(['PropagationPolicy', 'ClusterPropagationPolicy', 'OverridePolicy', 'ClusterOverridePolicy', 'ResourceBinding', 'ResourceInterpreterCustomization', 'ClusterTaintPolicy', 'ResourceInterpreterWebhookConfiguration', 'FederatedResourceQuota', 'CronFederatedHPA', 'FederatedHPA', 'MultiClusterService']);

/** The mutating webhook's change for one object; may throw MutationError (Work manifests without a kind). */
export function mutate(kind: AdmissionKind, req: PolicyAdmission, ctx: RuleContext = {}): Mutated {
  const opts = { operation: req.operation, namespace: req.namespace, uuid: ctx.uuid, oldObject: req.oldObject };
  switch (kind) {
    case 'PropagationPolicy':
      return mutatePropagationPolicy(req.object, false, opts);
    case 'ClusterPropagationPolicy':
      return mutatePropagationPolicy(req.object, true, opts);
    case 'OverridePolicy':
      return mutateOverridePolicy(req.object, opts);
    case 'ResourceBinding':
      return mutateBinding(req.object, false, opts);
    case 'ClusterResourceBinding':
      return mutateBinding(req.object, true, opts);
    case 'Work':
      return mutateWork(req.object, opts);
    case 'FederatedHPA':
      return mutateFederatedHPA(req.object);
    case 'MultiClusterService':
      return mutateMultiClusterService(req.object, { uuid: ctx.uuid });
    default:
      return { object: req.object, warnings: [] };
  }
}

const noLuaCompiler: LuaCompile = () => {
  throw new Error('validating a ResourceInterpreterCustomization needs RuleContext.compileLua: pass luaCompile from src/validation/lua-compile.ts');
};

/** The validating webhook's verdict for one object: no errors means allowed. */
export function validate(kind: AdmissionKind, req: PolicyAdmission, ctx: RuleContext = {}): FieldError[] {
  switch (kind) {
    case 'PropagationPolicy':
      return validatePropagationPolicy(req, false);
    case 'ClusterPropagationPolicy':
      return validatePropagationPolicy(req, true);
    case 'OverridePolicy':
      return validateOverridePolicy(req, false);
    case 'ClusterOverridePolicy':
      return validateOverridePolicy(req, true);
    case 'ResourceBinding':
      return validateResourceBinding(req.object, ctx.gates);
    case 'ResourceInterpreterCustomization':
      return validateRic(req.object, ctx.existingRics ?? [], ctx.compileLua ?? noLuaCompiler);
    case 'ClusterTaintPolicy':
      return validateClusterTaintPolicy(req.object, { allowNoExecuteTaintPolicy: ctx.allowNoExecuteTaintPolicy });
    case 'ResourceInterpreterWebhookConfiguration':
      return validateInterpreterWebhookConfiguration(req.object);
    case 'FederatedResourceQuota':
      return validateFederatedResourceQuota(req.object);
    case 'CronFederatedHPA':
      return validateCronFederatedHPA(req.object);
    case 'FederatedHPA':
      return validateFederatedHPA(req.object);
    case 'MultiClusterService':
      return validateMultiClusterService(req);
    default:
      return [];
  }
}

export function asObj(v: unknown): Obj | undefined {
  return isObj(v) ? v : undefined;
}
