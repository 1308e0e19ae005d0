/**
 * FederatedResourceQuota admission (Karmada's `/validate-federatedresourcequota`): a name that fits a label
 * value (the name goes into the Works' labels), resource names a ResourceQuota takes, non-negative quantities
 * (whole ones for counted resources), assigned clusters with valid names, assignments that stay within
 * `overall` and name only resources it names; the status's lists checked the same way. Karmada has no
 * mutating webhook for the kind: nothing is defaulted.
 */
import { isIntegerResourceName, isStandardQuotaResourceName, isStandardResourceName } from '../api/resource-names.js';
import { Quantity, tryParseQuantity } from '../quantity/quantity.js';
import { invalid, str, type FieldError } from './field-errors.js';
import { isObj, obj, objs, strOf, type Obj } from './json.js';
import { dns1123LabelErrors, qualifiedNameErrors } from './labels.js';

const DNS1123_LABEL_MAX = 63;
const CLUSTER_NAME_MAX = 48;

/** Karmada's ValidateClusterName. */
function clusterNameErrors(name: string): string[] {
  if (name.length === 0) return ['must be not empty'];
  if (name.length > CLUSTER_NAME_MAX) return [`must be no more than ${CLUSTER_NAME_MAX} characters`];
  return dns1123LabelErrors(name);
}

/** ValidateResourceQuotaResourceName: a qualified name; without a `/`, a standard resource and one quota takes. */
function resourceNameErrors(name: string, path: string): FieldError[] {
  const errs = qualifiedNameErrors(name).map((m) => invalid(path, str(name), m));
  if (errs.length === 0 && !name.includes('/') && !isStandardResourceName(name)) errs.push(invalid(path, str(name), 'must be a standard resource type or fully qualified'));
  if (!name.includes('/') && !isStandardQuotaResourceName(name)) errs.push(invalid(path, str(name), 'must be a standard resource for quota'));
  return errs;
}

const quantity = (v: unknown): Quantity | undefined => {
  const q = tryParseQuantity(String(v));
  return typeof q === 'string' ? undefined : q;
};

/** Entries by name, sorted: Go ranges over the map in no set order, karmada-lite in one. */
const entries = (list: unknown): Array<[string, unknown]> => (isObj(list) ? Object.entries(list).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : []);

/** validateResourceList: each name, and each value (ValidateResourceQuantityValue). */
function resourceListErrors(list: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, raw] of entries(list)) {
    const p = `${path}[${name}]`;
    errs.push(...resourceNameErrors(name, p));
    const q = quantity(raw);
    if (!q) continue;
    if (q.sign() < 0) errs.push(invalid(p, str(q.toString()), 'must be greater than or equal to 0'));
    if (isIntegerResourceName(name) && q.milliValueBig() % 1000n !== 0n) errs.push(invalid(p, str(q.toString()), 'must be an integer'));
  }
  return errs;
}

/** The assignments' sum of one resource. */
function assigned(assignments: Obj[], name: string): Quantity {
  let sum = Quantity.zero();
  for (const a of assignments) {
    const hard = obj(a.hard);
    if (hard && Object.hasOwn(hard, name)) {
      const q = quantity(hard[name]);
      if (q) sum = sum.add(q);
    }
  }
  return sum;
}

export function validateFederatedResourceQuota(object: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const name = strOf(obj(object.metadata)?.name);
  if (name.length > DNS1123_LABEL_MAX) errs.push(invalid('metadata.name', str(name), `must be no more than ${DNS1123_LABEL_MAX} characters`));

  const spec = obj(object.spec) ?? {};
  errs.push(...resourceListErrors(spec.overall, 'spec.overall'));
  const assignments = objs(spec.staticAssignments);
  assignments.forEach((a, i) => {
    const cluster = strOf(a.clusterName);
    const msgs = clusterNameErrors(cluster);
    if (msgs.length) errs.push(invalid(`spec.staticAssignments[${i}].clusterName`, str(cluster), msgs.join(',')));
    errs.push(...resourceListErrors(a.hard, `spec.staticAssignments[${i}].hard`));
  });
  const overall = obj(spec.overall) ?? {};
  for (const [res, raw] of entries(overall)) {
    const q = quantity(raw);
    if (q && q.cmp(assigned(assignments, res)) < 0) errs.push(invalid(`spec.overall[${res}]`, str(q.toString()), 'overall is less than assignments'));
  }
  assignments.forEach((a, i) => {
    for (const [res] of entries(a.hard)) {
      if (!Object.hasOwn(overall, res)) errs.push(invalid(`spec.staticAssignments[${i}].hard[${res}]`, str(res), 'assignment resourceName is not exist in overall'));
    }
  });

  const status = obj(object.status) ?? {};
  errs.push(...resourceListErrors(status.overall, 'status.overall'));
  errs.push(...resourceListErrors(status.overallUsed, 'status.overallUsed'));
  objs(status.aggregatedStatus).forEach((s, i) => {
    const cluster = strOf(s.clusterName);
    const msgs = clusterNameErrors(cluster);
    if (msgs.length) errs.push(invalid(`status.aggregatedStatus[${i}].clusterName`, str(cluster), msgs.join(',')));
    errs.push(...resourceListErrors(s.hard, `status.aggregatedStatus[${i}].hard`));
    errs.push(...resourceListErrors(s.used, `status.aggregatedStatus[${i}].used`));
  });
  return errs;
}
