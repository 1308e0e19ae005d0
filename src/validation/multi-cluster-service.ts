/**
 * MultiClusterService admission (Karmada's pkg/webhook/multiclusterservice): the name a DNS-1035 label (it is
 * the Service's name), each port's name a unique DNS-1123 label and its number 1-65535, the types known and
 * one only, provider and consumer cluster names as Karmada's ValidateClusterName, and the types immutable.
 * The mutating webhook stamps the permanent id.
 */
import { randomUUID } from 'node:crypto';
import { MultiClusterServicePermanentIDLabel } from '../api/constants.js';
import type { Mutated } from './defaulting.js';
import { goQuote, invalid, json, scalar, str, type FieldError } from './field-errors.js';
import { dns1035LabelErrors, dns1123LabelErrors } from './labels.js';
import { arr, child, clone, deepEqual, obj, objs, strOf, type Obj } from './json.js';
import type { PolicyAdmission } from './propagation.js';

const CLUSTER_NAME_MAX = 48;
const EXPOSURE_TYPES = ['CrossCluster', 'LoadBalancer'];

/** Karmada's ValidateClusterName. */
function clusterNameErrors(name: string): string[] {
  if (name.length === 0) return ['must be not empty'];
  if (name.length > CLUSTER_NAME_MAX) return [`must be no more than ${CLUSTER_NAME_MAX} characters`];
  return dns1123LabelErrors(name);
}

function specErrors(spec: Obj | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(spec?.ports).forEach((p, i) => {
    const path = `spec.ports[${i}]`;
    const name = strOf(p.name);
    if (name !== '') {
      for (const m of dns1123LabelErrors(name)) errs.push(invalid(`${path}.name`, str(name), m));
      if (names.has(name)) errs.push({ path: `${path}.name`, message: `Duplicate value: ${goQuote(name)}` });
      names.add(name);
    }
    const port = typeof p.port === 'number' ? p.port : 0;
    if (!Number.isInteger(port) || port < 1 || port > 65535) errs.push(invalid(`${path}.port`, scalar(port), 'must be between 1 and 65535, inclusive'));
  });
  const types = arr(spec?.types).map(strOf);
  types.forEach((t, i) => {
    if (!EXPOSURE_TYPES.includes(t)) errs.push(invalid(`spec.types[${i}]`, str(t), 'ExposureType Error'));
  });
  if (new Set(types).size > 1) errs.push(invalid('spec.types', json(types), 'MultiClusterService types should not contain more than one type'));
  // Karmada's paths for these two (spec.range.*), kept so its error texts match.
  for (const field of ['providerClusters', 'consumerClusters'] as const) {
    objs(spec?.[field]).forEach((c, i) => {
      const name = strOf(c.name);
      const problems = clusterNameErrors(name);
      if (problems.length) errs.push(invalid(`spec.range.${field}[${i}]`, str(name), problems.join(',')));
    });
  }
  return errs;
}

export function validateMultiClusterService(req: PolicyAdmission): FieldError[] {
  const errs: FieldError[] = [];
  const name = strOf(obj(req.object.metadata)?.name);
  if (name !== '') for (const m of dns1035LabelErrors(name)) errs.push(invalid('metadata.name', str(name), m));
  if (req.operation === 'UPDATE' && req.oldObject) {
    const before = arr(obj(req.oldObject.spec)?.types);
    if (!deepEqual(before, arr(obj(req.object.spec)?.types))) errs.push(invalid('spec.types', json(before), 'MultiClusterService types are immutable'));
  }
  errs.push(...specErrors(obj(req.object.spec)));
  return errs;
}

/** The mutating webhook: a permanent id, once. */
export function mutateMultiClusterService(input: Obj, opts: { uuid?: () => string } = {}): Mutated {
  const object = clone(input);
  const labels = child(child(object, 'metadata'), 'labels');
  if (strOf(labels[MultiClusterServicePermanentIDLabel]) === '') labels[MultiClusterServicePermanentIDLabel] = (opts.uuid ?? randomUUID)();
  return { object, warnings: [] };
}
