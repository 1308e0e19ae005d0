/**
 * Placement rules shared by PropagationPolicy and ClusterPropagationPolicy (spec §1.2 P1–P7), and the
 * field-selector check that OverridePolicy's targetCluster reuses.
 */
import { goQuote, invalid, json, notSupported, str, type FieldError } from './field-errors.js';
import { qualifiedNameErrors } from './labels.js';
import { arr, isObj, numOf, obj, objs, present, strOf, type Obj } from './json.js';

const FIELD_SELECTOR_KEYS = new Set(['provider', 'region', 'zone']);
const FIELD_SELECTOR_OPERATORS = new Set(['In', 'NotIn']);

/** Only the first bad expression is reported, and the value shown is the whole selector. */
export function validateFieldSelector(fieldSelector: unknown, path: string): FieldError[] {
  if (!isObj(fieldSelector)) return [];
  for (const expr of objs(fieldSelector.matchExpressions)) {
    const key = strOf(expr.key);
    if (!FIELD_SELECTOR_KEYS.has(key)) return [invalid(path, json(fieldSelector), `unsupported key ${goQuote(key)}, must be provider, region, or zone`)];
    const op = strOf(expr.operator);
    if (!FIELD_SELECTOR_OPERATORS.has(op)) return [invalid(path, json(fieldSelector), `unsupported operator ${goQuote(op)}, must be In or NotIn`)];
  }
  return [];
}

/** Overflow groups only make sense when replicas are divided by available capacity. */
function overflowAllowed(placement: Obj): boolean {
  const rs = obj(placement.replicaScheduling);
  if (!rs || rs.replicaSchedulingType !== 'Divided') return false;
  if (rs.replicaDivisionPreference === 'Aggregated') return true;
  return rs.replicaDivisionPreference === 'Weighted' && strOf(obj(rs.weightPreference)?.dynamicWeight) !== '';
}

function inlineAffinityEmpty(term: Obj): boolean {
  return !present(term.labelSelector) && !present(term.fieldSelector) && arr(term.clusterNames).length === 0 && arr(term.exclude).length === 0;
}

export function validatePlacement(placementValue: unknown, path = 'spec.placement'): FieldError[] {
  const placement = obj(placementValue);
  if (!placement) return [];
  const errs: FieldError[] = [];

  if (present(placement.clusterAffinity) && present(placement.clusterAffinities)) {
    errs.push(invalid(path, json(placement), 'clusterAffinities cannot co-exist with clusterAffinity'));
  }

  const terms = objs(placement.clusterAffinities);
  const canOverflow = overflowAllowed(placement);
  terms.forEach((term, i) => {
    if (present(term.overflowAffinities) && !canOverflow) {
      errs.push(invalid(`${path}.clusterAffinities[${i}].overflowAffinities`, json(term.overflowAffinities), 'overflowAffinities can only be used together with dynamic weight or aggregated scheduling'));
    }
  });

  errs.push(...validateFieldSelector(obj(placement.clusterAffinity)?.fieldSelector, `${path}.clusterAffinity.fieldSelector`));

  const seenNames = new Set<string>();
  terms.forEach((term, i) => {
    const termPath = `${path}.clusterAffinities[${i}]`;
    const name = strOf(term.affinityName);
    for (const m of qualifiedNameErrors(name)) errs.push(invalid(termPath, str(name), m));
    if (seenNames.has(name)) errs.push(invalid(`${path}.clusterAffinities`, json(placement.clusterAffinities), 'each affinity term in a policy must have a unique name'));
    seenNames.add(name);
    errs.push(...validateFieldSelector(term.fieldSelector, `${termPath}.fieldSelector`));
    if (present(term.overflowAffinities)) {
      if (inlineAffinityEmpty(term)) {
        errs.push(invalid(`${termPath}.overflowAffinities`, json(term.overflowAffinities), 'overflowAffinities can only be used together with the inline ClusterAffinity'));
      }
      const taken = new Set<string>([name]);
      objs(term.overflowAffinities).forEach((ov, j) => {
        const ovPath = `${termPath}.overflowAffinities[${j}]`;
        const ovName = strOf(ov.affinityName);
        for (const m of qualifiedNameErrors(ovName)) errs.push(invalid(`${ovPath}.affinityName`, str(ovName), m));
        if (taken.has(ovName)) {
          errs.push(invalid(`${ovPath}.affinityName`, str(ovName), "overflow affinity name must be unique and must not duplicate the primary group's affinityName"));
        }
        taken.add(ovName);
        errs.push(...validateFieldSelector(ov.fieldSelector, `${ovPath}.fieldSelector`));
      });
    }
  });

  errs.push(...validateSpreadConstraints(placement.spreadConstraints, `${path}.spreadConstraints`));
  errs.push(...validateWorkloadAffinity(placement.workloadAffinity, `${path}.workloadAffinity`));

  objs(placement.clusterTolerations).forEach((t, i) => {
    if (t.operator === 'Lt' || t.operator === 'Gt') {
      errs.push(notSupported(`${path}.clusterTolerations[${i}].operator`, json(t.operator), ['', 'Exists', 'Equal']));
    }
  });
  return errs;
}

function validateSpreadConstraints(value: unknown, path: string): FieldError[] {
  const list = objs(value);
  const errs: FieldError[] = [];
  const seenFields = new Set<string>();
  const reported = new Set<string>();
  let usesField = false;
  let hasCluster = false;
  list.forEach((c, i) => {
    const field = strOf(c.spreadByField);
    const label = strOf(c.spreadByLabel);
    const min = numOf(c.minGroups) ?? 0;
    const max = numOf(c.maxGroups) ?? 0;
    const at = `${path}[${i}]`;
    if (field !== '' && label !== '') errs.push(invalid(at, json(c), 'spreadByLabel should not co-exist with spreadByField'));
    if (min < 0) errs.push(invalid(at, json(c), 'minGroups lower than 0 is not allowed'));
    if (max < 0) errs.push(invalid(at, json(c), 'maxGroups lower than 0 is not allowed'));
    if (max > 0 && max < min) errs.push(invalid(at, json(c), 'maxGroups lower than minGroups is not allowed'));
    if (field !== '') {
      usesField = true;
      if (field === 'cluster') hasCluster = true;
      if (seenFields.has(field) && !reported.has(field)) {
        errs.push(invalid(path, json(value), `multiple ${field} spread constraints are not allowed`));
        reported.add(field);
      }
      seenFields.add(field);
    }
  });
  if (usesField && !hasCluster) {
    errs.push(invalid(path, json(value), 'the cluster spread constraint must be enabled in one of the constraints in case of SpreadByField is enabled'));
  }
  return errs;
}

function validateWorkloadAffinity(value: unknown, path: string): FieldError[] {
  const wa = obj(value);
  if (!wa) return [];
  const errs: FieldError[] = [];
  const affinity = obj(wa.affinity);
  const anti = obj(wa.antiAffinity);
  for (const [name, term] of [['affinity', affinity], ['antiAffinity', anti]] as const) {
    if (!term) continue;
    const key = strOf(term.groupByLabelKey);
    for (const m of qualifiedNameErrors(key)) errs.push(invalid(`${path}.${name}.groupByLabelKey`, str(key), m));
  }
  if (affinity && anti && strOf(affinity.groupByLabelKey) === strOf(anti.groupByLabelKey)) {
    errs.push(invalid(path, json(wa), 'affinity and antiAffinity must not use the same groupByLabelKey'));
  }
  return errs;
}
