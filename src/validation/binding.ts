/** ResourceBinding admission rules (spec §3.2): the dependencies annotation and, behind a gate, components. */
import { parseFeatureGates as parseGateFlag, unsupportedGatesWarning, KarmadaFeatureGates, type KarmadaGate } from '../api/feature-gates.js';
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

/** The gates admission does not depend on, or follows (MultiplePodTemplatesScheduling): all but FederatedQuotaEnforcement. */
const WEBHOOK_GATES = (Object.keys(KarmadaFeatureGates) as KarmadaGate[]).filter((g) => g !== 'FederatedQuotaEnforcement');

/**
 * `--feature-gates` of the webhook and `validate`: any gate Karmada knows; FederatedQuotaEnforcement on is
 * told to `onWarning` (FederatedResourceQuota is not one of karmada-lite's kinds). Throws on a name Karmada
 * does not know.
 */
export function parseFeatureGates(spec: string | undefined, onWarning?: (message: string) => void): FeatureGates {
  const g = parseGateFlag(spec);
  const warning = unsupportedGatesWarning(g, WEBHOOK_GATES);
  if (warning) onWarning?.(warning);
  return { MultiplePodTemplatesScheduling: g.enabled('MultiplePodTemplatesScheduling') };
}
