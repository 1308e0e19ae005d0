/**
 * PropagationPolicy / ClusterPropagationPolicy admission rules (spec §1.2), including karmada-lite's
 * failover extensions (spec README point 4).
 */
import { invalid, json, notSupported, plain, scalar, str, type FieldError } from './field-errors.js';
import { qualifiedNameErrors } from './labels.js';
import { isObj, numOf, obj, objs, present, strOf, type Obj } from './json.js';
import { validatePlacement } from './placement.js';
import { canonicalPurgeMode } from './purge-mode.js';
import { validateRolloutStrategy } from './rollout.js';
import { ClusterPropagationPolicyPermanentIDLabel, PropagationPolicyPermanentIDLabel } from '../api/constants.js';

export interface PolicyAdmission {
  operation: string;
  /** request.namespace: "" for cluster-scoped kinds (and offline, when a file names no namespace). */
  namespace: string;
  object: Obj;
  oldObject?: Obj;
}

const labelsOf = (o: Obj | undefined): Obj => obj(obj(o?.metadata)?.labels) ?? {};

/** The whole validating handler: immutable fields on UPDATE, the permanent-id label, then the spec. */
export function validatePropagationPolicy(req: PolicyAdmission, clusterScoped: boolean): FieldError[] {
  const label = clusterScoped ? ClusterPropagationPolicyPermanentIDLabel : PropagationPolicyPermanentIDLabel;
  if (req.operation === 'UPDATE' && req.oldObject) {
    const spec = obj(req.object.spec);
    const oldSpec = obj(req.oldObject.spec);
    if (strOf(spec?.schedulerName) !== strOf(oldSpec?.schedulerName)) return [plain('the schedulerName should not be updated')];
    // An id appearing on a policy that had none is the mutating webhook's repair (defaulting.ts), not a client's edit.
    const oldId = strOf(labelsOf(req.oldObject)[label]);
    if (oldId !== '' && strOf(labelsOf(req.object)[label]) !== oldId) {
      return [plain(`label ${label} is immutable, it can only be set by the system during creation`)];
    }
  }
  if (!Object.prototype.hasOwnProperty.call(labelsOf(req.object), label)) {
    return [plain(`label ${label} is required, it should be set by the mutating admission webhook during creation`)];
  }
  return validatePropagationSpec(req.object.spec, clusterScoped ? '' : req.namespace);
}

/** ValidatePropagationSpec: every problem, in Karmada's order. */
export function validatePropagationSpec(specValue: unknown, namespace: string): FieldError[] {
  const spec = obj(specValue) ?? {};
  const errs: FieldError[] = [];
  errs.push(...validatePlacement(spec.placement, 'spec.placement'));

  const failover = obj(spec.failover);
  const app = obj(failover?.application);
  if (app && spec.propagateDeps !== true) {
    errs.push(invalid('spec.propagateDeps', scalar(false), 'application failover is set, propagateDeps must be true'));
  }
  if (failover) errs.push(...validateFailover(failover, 'spec.failover'));

  const selectors = objs(spec.resourceSelectors);
  if (namespace !== '') {
    selectors.forEach((s, i) => {
      const ns = strOf(s.namespace);
      if (ns !== namespace) {
        errs.push(invalid(`spec.resourceSelectors[${i}].namespace`, str(ns), 'namespace of resource selector must be the same as the namespace of the policy'));
      }
    });
  }
  if (spec.preemption === 'Always') {
    selectors.forEach((s, i) => {
      if (strOf(s.name) === '') {
        errs.push(invalid(`spec.resourceSelectors[${i}].name`, str(''), 'name cannot be empty if preemption is Always, the empty name may cause unexpected resources preemption'));
      }
    });
  }
  const suspension = obj(spec.suspension);
  if (suspension && suspension.dispatching === true) {
    const names = obj(suspension.dispatchingOnClusters)?.clusterNames;
    if (Array.isArray(names) && names.length > 0) {
      // "spec.suspension.suspension" is Karmada's path, doubled segment included.
      errs.push(invalid('spec.suspension.suspension', json(suspension), 'suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames'));
    }
  }
  errs.push(...validateRolloutStrategy(spec.rolloutStrategy));
  return errs;
}

/** Failover rules; shared with bindings' copies of the failover behaviour. */
export function validateFailover(failover: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const app = obj(failover.application);
  if (app) {
    const at = `${path}.application`;
    // Karmada dereferences tolerationSeconds unguarded; the CRD default (300) makes it present in a cluster.
    const toleration = numOf(obj(app.decisionConditions)?.tolerationSeconds) ?? 300;
    if (toleration < 0) errs.push(invalid(`${at}.decisionConditions.tolerationSeconds`, scalar(toleration), 'must be greater than or equal to 0'));
    const purgeMode = canonicalPurgeMode(strOf(app.purgeMode));
    const grace = app.gracePeriodSeconds;
    const gracePath = `${at}.gracePeriodSeconds`;
    if (purgeMode !== 'Gracefully' && present(grace)) errs.push(invalid(gracePath, scalar(Number(grace)), 'only takes effect when purgeMode is gracefully'));
    if (purgeMode === 'Gracefully' && !present(grace)) errs.push(invalid(gracePath, json(null), 'should not be empty when purgeMode is gracefully'));
    if (present(grace) && Number(grace) <= 0) errs.push(invalid(gracePath, scalar(Number(grace)), 'must be greater than 0'));
    errs.push(...validateStatePreservation(app.statePreservation, `${at}.statePreservation`));
    errs.push(...validateFailoverExtensions(app, at));
  }
  const cluster = obj(failover.cluster);
  if (cluster) errs.push(...validateStatePreservation(cluster.statePreservation, `${path}.cluster.statePreservation`));
  return errs;
}

function validateStatePreservation(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(obj(value)?.rules).forEach((rule, k) => {
    const alias = strOf(rule.aliasLabelName);
    for (const m of qualifiedNameErrors(alias)) errs.push(invalid(`${path}.rules[${k}].aliasLabelName`, str(alias), m));
  });
  return errs;
}

/**
 * preConditions and blockPredecessorSeconds come from the failover proposal, not from Karmada. The CRD schema
 * bounds them too; these checks give the same answer when the webhook runs without our CRDs.
 */
function validateFailoverExtensions(app: Obj, at: string): FieldError[] {
  const errs: FieldError[] = [];
  const pre = app.preConditions;
  if (isObj(pre)) {
    const delay = numOf(pre.delaySeconds);
    if (delay !== undefined && delay < 0) errs.push(invalid(`${at}.preConditions.delaySeconds`, scalar(delay), 'must be greater than or equal to 0'));
    if (present(pre.healthyState) && pre.healthyState !== '' && pre.healthyState !== 'Healthy') {
      errs.push(notSupported(`${at}.preConditions.healthyState`, json(pre.healthyState), ['Healthy']));
    }
  }
  const block = numOf(app.blockPredecessorSeconds);
  if (block !== undefined && block < 0) errs.push(invalid(`${at}.blockPredecessorSeconds`, scalar(block), 'must be greater than or equal to 0'));
  return errs;
}
