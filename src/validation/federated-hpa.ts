/**
 * FederatedHPA admission (Karmada's `/validate-federatedhpa` and `/mutate-federatedhpa`, over its lift of
 * Kubernetes' HPA validation and autoscaling/v2 defaults). Validation: minReplicas at least 1 (Karmada does not
 * scale to zero), maxReplicas at least 1 and not below minReplicas, the target reference, each metric (one
 * source of its type, a target Kubernetes accepts; External is not among Karmada's types) and the behavior's
 * rules. Defaulting: minReplicas 1, cpu at 80% utilization when no metric is given, and a given behavior's
 * unset fields from the HPA defaults (scale-down's stabilization window stays unset: the controller's
 * 300 s fills it at run time, as in Kubernetes).
 */
import { tryParseQuantity } from '../quantity/quantity.js';
import { invalid, notSupported, required, scalar, str, type FieldError } from './field-errors.js';
import { clone, obj, objs, strOf, type Obj } from './json.js';
import type { Mutated } from './defaulting.js';

/** Kubernetes' MaxPeriodSeconds and MaxStabilizationWindowSeconds. */
export const MAX_PERIOD_SECONDS = 1800;
export const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
/** Kubernetes' DefaultCPUUtilization. */
export const DEFAULT_CPU_UTILIZATION = 80;

/** Sorted, as sets.String.List() gives them. */
const METRIC_SOURCE_TYPES = ['ContainerResource', 'Object', 'Pods', 'Resource'];
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const POLICY_TYPES = ['Percent', 'Pods'];

const int = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const forbidden = (path: string, detail: string): FieldError => ({ path, message: `Forbidden: ${detail}` });

/** apimachinery's IsValidPathSegmentName. */
function pathSegmentProblems(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

/** Kubernetes' ValidateCrossVersionObjectReference. */
export function crossVersionReferenceErrors(ref: Obj | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const field of ['kind', 'name'] as const) {
    const v = strOf(ref?.[field]);
    if (v === '') errs.push(required(`${path}.${field}`, ''));
    else for (const m of pathSegmentProblems(v)) errs.push(invalid(`${path}.${field}`, str(v), m));
  }
  return errs;
}

/** A quantity's sign: 1, 0, -1, or undefined when it does not parse (the API server refuses those first). */
function sign(v: unknown): number | undefined {
  if (typeof v === 'number') return Math.sign(v);
  if (typeof v !== 'string') return undefined;
  const q = tryParseQuantity(v);
  return typeof q === 'string' ? undefined : Math.sign(q.milliValue());
}

function metricTargetErrors(t: Obj | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = strOf(t?.type);
  if (type === '') errs.push(required(`${path}.type`, 'must specify a metric target type'));
  if (!['Utilization', 'Value', 'AverageValue'].includes(type)) errs.push(invalid(`${path}.type`, str(type), 'must be either Utilization, Value, or AverageValue'));
  for (const field of ['value', 'averageValue'] as const) {
    const v = t?.[field];
    if (v !== undefined && sign(v) !== 1) errs.push(invalid(`${path}.${field}`, typeof v === 'number' ? scalar(v) : str(String(v)), 'must be positive'));
  }
  const u = int(t?.averageUtilization);
  if (u !== undefined && u < 1) errs.push(invalid(`${path}.averageUtilization`, scalar(u), 'must be greater than 0'));
  return errs;
}

function metricIdentifierErrors(id: Obj | undefined, path: string): FieldError[] {
  const name = strOf(id?.name);
  if (name === '') return [required(`${path}.name`, 'must specify a metric name')];
  return pathSegmentProblems(name).map((m) => invalid(`${path}.name`, str(name), m));
}

/** Resource and ContainerResource: a utilization or a raw value, not both. */
function resourceTargetErrors(target: Obj | undefined, path: string): FieldError[] {
  const errs = metricTargetErrors(target, path);
  if (target?.averageUtilization === undefined && target?.averageValue === undefined) errs.push(required(`${path}.averageUtilization`, 'must set either a target raw value or a target utilization'));
  if (target?.averageUtilization !== undefined && target?.averageValue !== undefined) errs.push(forbidden(`${path}.averageValue`, 'may not set both a target raw value and a target utilization'));
  return errs;
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function sourceErrors(kind: string, src: Obj, path: string): FieldError[] {
  switch (kind) {
    case 'object': {
      const errs = [...crossVersionReferenceErrors(obj(src.describedObject), `${path}.describedObject`), ...metricIdentifierErrors(obj(src.metric), `${path}.metric`), ...metricTargetErrors(obj(src.target), `${path}.target`)];
      const t = obj(src.target);
      if (t?.value === undefined && t?.averageValue === undefined) errs.push(required(`${path}.target.averageValue`, 'must set either a target value or averageValue'));
      return errs;
    }
    case 'pods': {
      const errs = [...metricIdentifierErrors(obj(src.metric), `${path}.metric`), ...metricTargetErrors(obj(src.target), `${path}.target`)];
      if (obj(src.target)?.averageValue === undefined) errs.push(required(`${path}.target.averageValue`, 'must specify a positive target averageValue'));
      return errs;
    }
    case 'resource': {
      const errs = strOf(src.name) === '' ? [required(`${path}.name`, 'must specify a resource name')] : [];
      return [...errs, ...resourceTargetErrors(obj(src.target), `${path}.target`)];
    }
    default: {
      const errs: FieldError[] = [];
      if (strOf(src.name) === '') errs.push(required(`${path}.name`, 'must specify a resource name'));
      const container = strOf(src.container);
      if (container === '') errs.push(required(`${path}.container`, 'must specify a container'));
      else if (container.length > 63 || !DNS1123_LABEL.test(container)) errs.push(invalid(`${path}.container`, str(container), "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
      return [...errs, ...resourceTargetErrors(obj(src.target), `${path}.target`)];
    }
  }
}

const SOURCE_FIELD: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', ContainerResource: 'containerResource' };

function metricSpecErrors(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = strOf(spec.type);
  if (type === '') errs.push(required(`${path}.type`, 'must specify a metric source type'));
  if (!METRIC_SOURCE_TYPES.includes(type)) errs.push(notSupported(`${path}.type`, str(type), METRIC_SOURCE_TYPES));
  // Only the first source present is checked, in Kubernetes' order.
  const present = ['object', 'pods', 'resource', 'containerResource'].filter((f) => obj(spec[f]) !== undefined);
  if (present.length > 0) errs.push(...sourceErrors(present[0]!, obj(spec[present[0]!])!, `${path}.${present[0]}`));
  const expected = SOURCE_FIELD[type];
  if (expected !== undefined && obj(spec[expected]) === undefined) errs.push(required(`${path}.${expected}`, 'must populate information for the given metric source'));
  if (expected === undefined) errs.push(notSupported(`${path}.type`, str(type), METRIC_SOURCE_TYPES));
  if (present.length !== 1) for (const f of present.filter((p) => p !== expected)) errs.push(forbidden(`${path}.${f}`, 'must populate the given metric source only'));
  return errs;
}

function scalingRulesErrors(rules: Obj | undefined, path: string): FieldError[] {
  if (!rules) return [];
  const errs: FieldError[] = [];
  const window = int(rules.stabilizationWindowSeconds);
  if (window !== undefined && window < 0) errs.push(invalid(`${path}.stabilizationWindowSeconds`, scalar(window), 'must be greater than or equal to zero'));
  if (window !== undefined && window > MAX_STABILIZATION_WINDOW_SECONDS) errs.push(invalid(`${path}.stabilizationWindowSeconds`, scalar(window), `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
  if (rules.selectPolicy !== undefined && !SELECT_POLICIES.includes(strOf(rules.selectPolicy))) errs.push(notSupported(`${path}.selectPolicy`, str(strOf(rules.selectPolicy)), SELECT_POLICIES));
  const policies = objs(rules.policies);
  if (policies.length === 0) errs.push(required(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((p, i) => {
    const pp = `${path}.policies[${i}]`;
    const type = strOf(p.type);
    if (!POLICY_TYPES.includes(type)) errs.push(notSupported(`${pp}.type`, str(type), POLICY_TYPES));
    const value = int(p.value) ?? 0;
    if (value <= 0) errs.push(invalid(`${pp}.value`, scalar(value), 'must be greater than zero'));
    const period = int(p.periodSeconds) ?? 0;
    if (period <= 0) errs.push(invalid(`${pp}.periodSeconds`, scalar(period), 'must be greater than zero'));
    if (period > MAX_PERIOD_SECONDS) errs.push(invalid(`${pp}.periodSeconds`, scalar(period), `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  });
  return errs;
}

export function validateFederatedHPA(object: Obj): FieldError[] {
  const spec = obj(object.spec);
  const errs: FieldError[] = [];
  const min = int(spec?.minReplicas);
  const max = int(spec?.maxReplicas) ?? 0;
  if (min !== undefined && min < 1) errs.push(invalid('spec.minReplicas', scalar(min), 'must be greater than or equal to 1'));
  if (max < 1) errs.push(invalid('spec.maxReplicas', scalar(max), 'must be greater than 0'));
  if (min !== undefined && max < min) errs.push(invalid('spec.maxReplicas', scalar(max), 'must be greater than or equal to `minReplicas`'));
  errs.push(...crossVersionReferenceErrors(obj(spec?.scaleTargetRef), 'spec.scaleTargetRef'));
  objs(spec?.metrics).forEach((m, i) => errs.push(...metricSpecErrors(m, `spec.metrics[${i}]`)));
  const behavior = obj(spec?.behavior);
  errs.push(...scalingRulesErrors(obj(behavior?.scaleUp), 'spec.behavior.scaleUp'), ...scalingRulesErrors(obj(behavior?.scaleDown), 'spec.behavior.scaleDown'));
  const status = obj(object.status);
  for (const field of ['currentReplicas', 'desiredReplicas'] as const) {
    const v = int(status?.[field]);
    if (v !== undefined && v < 0) errs.push(invalid(`status.${field}`, scalar(v), 'must be greater than or equal to 0'));
  }
  return errs;
}

/** Kubernetes' default scale-up rules: no window, the larger of 4 pods or 100% per 15 s. */
export const DEFAULT_SCALE_UP = { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] };
/** Kubernetes' default scale-down rules: 100% per 15 s; the window is the controller's (300 s). */
export const DEFAULT_SCALE_DOWN = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

/** copyHPAScalingRules: the given non-nil fields over the defaults. */
export function scalingRulesWithDefaults(given: Obj | undefined, defaults: Obj): Obj {
  const out = clone(defaults);
  if (!given) return out;
  for (const f of ['selectPolicy', 'stabilizationWindowSeconds', 'policies']) if (given[f] !== undefined && given[f] !== null) out[f] = clone(given[f]);
  return out;
}

/** Karmada's SetDefaultsFederatedHPA. */
export function mutateFederatedHPA(input: Obj): Mutated {
  const object = clone(input);
  const spec = obj(object.spec);
  if (!spec) return { object, warnings: [] };
  if (spec.minReplicas === undefined || spec.minReplicas === null) spec.minReplicas = 1;
  if (objs(spec.metrics).length === 0) spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  const behavior = obj(spec.behavior);
  if (behavior) {
    behavior.scaleUp = scalingRulesWithDefaults(obj(behavior.scaleUp), DEFAULT_SCALE_UP);
    behavior.scaleDown = scalingRulesWithDefaults(obj(behavior.scaleDown), DEFAULT_SCALE_DOWN);
  }
  return { object, warnings: [] };
}

