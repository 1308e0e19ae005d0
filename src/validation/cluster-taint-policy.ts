/**
 * ClusterTaintPolicy admission (Karmada's `/validate-clustertaintpolicy`): a NoExecute taint is refused
 * unless the webhook runs with `--allow-no-execute-taint-policy` (such a taint evicts every workload that
 * does not tolerate it), and two taints with the same key and effect are refused.
 */
import { TaintEffectNoExecute } from '../api/constants.js';
import { goQuote, type FieldError } from './field-errors.js';
import { obj, objs, strOf, type Obj } from './json.js';

export interface TaintPolicyAdmission {
  /** `--allow-no-execute-taint-policy` (Karmada's default: off). */
  allowNoExecuteTaintPolicy?: boolean;
}

export function validateClusterTaintPolicy(object: Obj, opts: TaintPolicyAdmission = {}): FieldError[] {
  const taints = objs(obj(object.spec)?.taints);
  const errors: FieldError[] = [];
  taints.forEach((t, i) => {
    const path = `spec.taints[${i}]`;
    if (!opts.allowNoExecuteTaintPolicy && t.effect === TaintEffectNoExecute) {
      errors.push({ path, message: 'Forbidden: Configuring taint with NoExecute effect is not allowed, this capability must be explicitly enabled by administrators through command-line flags' });
    }
    // One error per taint that has a later twin, as Karmada reports it (the message is the "value").
    if (taints.slice(i + 1).some((u) => u.key === t.key && u.effect === t.effect)) {
      errors.push({ path, message: `Duplicate value: ${goQuote(`Duplicate taint with the same key(${strOf(t.key)}) and effect(${strOf(t.effect)}) is not allowed`)}` });
    }
  });
  return errors;
}
