/**
 * CronFederatedHPA admission (Karmada's `/validate-cronfederatedhpa`): a scale target Karmada can scale (a
 * workload, or a FederatedHPA of autoscaling.karmada.io/v1alpha1 and no other kind of that group), unique rule
 * names, schedules and time zones the controller can run, and per rule the replicas its target needs
 * (targetReplicas for a workload, targetMinReplicas/targetMaxReplicas for a FederatedHPA). Karmada has no
 * mutating webhook for the kind.
 */
import { AutoscalingGroupVersion } from '../api/constants.js';
import { cronScheduleProblem, timeZoneProblem } from '../api/cron-schedule.js';
import { goQuote, invalid, required, str, type FieldError } from './field-errors.js';
import { obj, objs, strOf, type Obj } from './json.js';
import { crossVersionReferenceErrors } from './federated-hpa.js';

const int = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

function replicasErrors(rule: Obj, scaleFHPA: boolean, kind: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (scaleFHPA) {
    const min = int(rule.targetMinReplicas);
    const max = int(rule.targetMaxReplicas);
    if (min === undefined && max === undefined) errs.push(invalid(`${path}.targetMaxReplicas`, str(''), 'targetMinReplicas and targetMaxReplicas cannot be nil at the same time if you want to scale FederatedHPA'));
    if ((min ?? 1) <= 0) errs.push(invalid(`${path}.targetMinReplicas`, str(''), 'targetMinReplicas should be larger than 0'));
    if ((max ?? 2 ** 31 - 1) <= 0) errs.push(invalid(`${path}.targetMaxReplicas`, str(''), 'targetMaxReplicas should be larger than 0'));
    if ((min ?? 1) > (max ?? 2 ** 31 - 1)) errs.push(invalid(`${path}.targetMinReplicas`, str(''), 'targetMaxReplicas should be larger than or equal to targetMinReplicas'));
    return errs;
  }
  const replicas = int(rule.targetReplicas);
  if (replicas === undefined) errs.push(invalid(`${path}.targetReplicas`, str(''), `targetReplicas cannot be nil if you want to scale ${kind}`));
  // Scaling to 0 is allowed: no replicas at the weekend.
  if ((replicas ?? 0) < 0) errs.push(invalid(`${path}.targetReplicas`, str(''), 'targetReplicas should be larger than or equal to 0'));
  return errs;
}

export function validateCronFederatedHPA(object: Obj): FieldError[] {
  const spec = obj(object.spec);
  const ref = obj(spec?.scaleTargetRef);
  const kind = strOf(ref?.kind);
  let scaleFHPA = false;
  if (strOf(ref?.apiVersion) === AutoscalingGroupVersion) {
    // Karmada stops at this one: nothing else is checked against a target it cannot scale.
    if (kind !== 'FederatedHPA') return [invalid('spec.scaleTargetRef.kind', str(kind), `invalid scaleTargetRef kind: ${kind}, only support FederatedHPA`)];
    scaleFHPA = true;
  }
  const errs = crossVersionReferenceErrors(ref, 'spec.scaleTargetRef');
  const seen = new Set<string>();
  objs(spec?.rules).forEach((rule, i) => {
    const path = `spec.rules[${i}]`;
    const name = strOf(rule.name);
    if (seen.has(name)) errs.push({ path: `${path}.name`, message: `Duplicate value: ${goQuote(name)}` });
    seen.add(name);
    const schedule = strOf(rule.schedule);
    const scheduleProblem = cronScheduleProblem(schedule);
    if (scheduleProblem) errs.push(invalid(`${path}.schedule`, str(schedule), scheduleProblem));
    if (typeof rule.timeZone === 'string') {
      const zoneProblem = timeZoneProblem(rule.timeZone);
      if (zoneProblem) errs.push(invalid(`${path}.timeZone`, str(rule.timeZone), zoneProblem));
    }
    errs.push(...replicasErrors(rule, scaleFHPA, kind, path));
  });
  return errs;
}
