/** ResourceBinding admission rules (spec §3.2): the dependencies annotation and, behind a gate, components. */
import { invalid, str, type FieldError } from './field-errors.js';
import { isObj, obj, objs, strOf, type Obj } from './json.js';
import { BindingDependenciesAnnotation } from '../api/constants.js';

export interface FeatureGates {
  /** alpha in Karmada, off by default: validates spec.components names. */
  MultiplePodTemplatesScheduling?: boolean;
  /** alpha in Karmada, off by default: charges bindings against FederatedResourceQuotas. Not implemented here. */
  FederatedQuotaEnforcement?: boolean;
}

const REF_FIELDS = ['apiVersion', 'kind', 'namespace', 'name'];

/** What Go's json.Unmarshal into []{apiVersion,kind,namespace,name} accepts: null, or an array of objects of strings. */
function isDependencyList(raw: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return false;
  }
  if (parsed === null) return true;
  if (!Array.isArray(parsed)) return false;
  return parsed.every((item) => item === null || (isObj(item) && REF_FIELDS.every((f) => item[f] === undefined || item[f] === null || typeof item[f] === 'string')));
}

export function validateResourceBinding(object: Obj, gates: FeatureGates = {}): FieldError[] {
  const annotations = obj(obj(object.metadata)?.annotations);
  if (annotations && Object.prototype.hasOwnProperty.call(annotations, BindingDependenciesAnnotation)) {
    const raw = strOf(annotations[BindingDependenciesAnnotation]);
    if (!isDependencyList(raw)) {
      return [invalid(`metadata.annotations.${BindingDependenciesAnnotation}`, str(raw), 'annotation value must be a valid JSON')];
    }
  }
  if (gates.MultiplePodTemplatesScheduling) {
    const errs: FieldError[] = [];
    const seen = new Set<string>();
    objs(obj(object.spec)?.components).forEach((c, i) => {
      const name = strOf(c.name);
      if (name === '') errs.push(invalid(`spec.components[${i}].name`, str(''), 'component names must be non-empty'));
      else if (seen.has(name)) errs.push(invalid(`spec.components[${i}].name`, str(name), 'component names must be unique'));
      seen.add(name);
    });
    return errs;
  }
  return [];
}

const KNOWN_GATES = ['MultiplePodTemplatesScheduling', 'FederatedQuotaEnforcement'] as const;

/** `--feature-gates A=true,B=false`, as Karmada's components take them. Throws a usage message on a typo. */
export function parseFeatureGates(spec: string | undefined): FeatureGates {
  const gates: FeatureGates = {};
  if (!spec) return gates;
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, value = 'true'] = part.split('=');
    if (!(KNOWN_GATES as readonly string[]).includes(name!)) throw new Error(`unknown feature gate ${name}; known gates: ${KNOWN_GATES.join(', ')}`);
    if (value !== 'true' && value !== 'false') throw new Error(`feature gate ${name} must be true or false, got ${value}`);
    if (name === 'FederatedQuotaEnforcement' && value === 'true') {
      throw new Error('feature gate FederatedQuotaEnforcement is not implemented by karmada-lite: FederatedResourceQuota is not one of its kinds; leave the gate off');
    }
    gates[name as (typeof KNOWN_GATES)[number]] = value === 'true';
  }
  return gates;
}
