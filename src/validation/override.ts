/** OverridePolicy / ClusterOverridePolicy admission rules (spec §2.2). */
import { invalid, json, required, str, tooLong, type FieldError } from './field-errors.js';
import { jsonPointerError, labelValueErrors, qualifiedNameErrors } from './labels.js';
import { arr, obj, objs, present, strMap, strOf, type Obj } from './json.js';
import { validateFieldSelector } from './placement.js';
import type { PolicyAdmission } from './propagation.js';

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** The deprecated top-level overriders count as "set" through these lists only (fieldOverrider does not). */
const COUNTED_OVERRIDERS = ['plaintext', 'imageOverrider', 'commandOverrider', 'argsOverrider', 'labelsOverrider', 'annotationsOverrider'];

export function validateOverridePolicy(req: PolicyAdmission, clusterScoped: boolean): FieldError[] {
  return validateOverrideSpec(req.object.spec, clusterScoped ? '' : req.namespace);
}

export function validateOverrideSpec(specValue: unknown, namespace: string): FieldError[] {
  const spec = obj(specValue) ?? {};
  const errs: FieldError[] = [];
  if (present(spec.targetCluster)) errs.push(...validateFieldSelector(obj(spec.targetCluster)?.fieldSelector, 'spec.targetCluster.fieldSelector'));
  if (present(spec.targetCluster) && present(spec.overrideRules)) {
    errs.push(invalid('spec.targetCluster', json(spec.targetCluster), "overrideRules and targetCluster can't co-exist"));
  }
  const overriders = obj(spec.overriders);
  if (present(spec.overrideRules) && overriders && COUNTED_OVERRIDERS.some((k) => arr(overriders[k]).length > 0)) {
    errs.push(invalid('spec.overriders', json(spec.overriders), "overrideRules and overriders can't co-exist"));
  }
  objs(spec.overrideRules).forEach((rule, r) => {
    errs.push(...validateOverriders(obj(rule.overriders) ?? {}, `spec.overrideRules[${r}].overriders`));
    errs.push(...validateFieldSelector(obj(rule.targetCluster)?.fieldSelector, `spec.overrideRules[${r}].targetCluster.fieldSelector`));
  });
  if (namespace !== '') {
    objs(spec.resourceSelectors).forEach((s, i) => {
      const ns = strOf(s.namespace);
      if (ns !== namespace) {
        errs.push(invalid(`spec.resourceSelectors[${i}].namespace`, str(ns), 'namespace of resource selector must be the same as the namespace of the policy'));
      }
    });
  }
  return errs;
}

// Go iterates maps in random order; keys are sorted here so that messages are stable.
function validateOverriders(o: Obj, R: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(o.annotationsOverrider).forEach((a, i) => {
    const path = `${R}.annotationsOverrider[${i}].value`;
    let total = 0;
    for (const [k, v] of strMap(a.value)) {
      for (const m of qualifiedNameErrors(k.toLowerCase())) errs.push(invalid(path, str(k), m));
      total += Buffer.byteLength(k) + Buffer.byteLength(v);
    }
    if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  });
  objs(o.labelsOverrider).forEach((l, i) => {
    const path = `${R}.labelsOverrider[${i}].value`;
    for (const [k, v] of strMap(l.value)) {
      for (const m of qualifiedNameErrors(k)) errs.push(invalid(path, str(k), m));
      for (const m of labelValueErrors(v)) errs.push(invalid(path, str(v), m));
    }
  });
  objs(o.imageOverrider).forEach((m, i) => {
    const predicate = obj(m.predicate);
    if (!predicate) return;
    const p = strOf(predicate.path);
    const e = jsonPointerError(p);
    if (e) errs.push(invalid(`${R}.imageOverrider[${i}].predicate.path`, str(p), e));
  });
  objs(o.fieldOverrider).forEach((f, i) => {
    const at = `${R}.fieldOverrider[${i}]`;
    const jsonOps = objs(f.json);
    const yamlOps = objs(f.yaml);
    if (jsonOps.length > 0 && yamlOps.length > 0) errs.push(invalid(at, json(f), 'FieldOverrider has both YAML and JSON set. Only one is allowed'));
    if (jsonOps.length === 0 && yamlOps.length === 0) errs.push(required(at, 'FieldOverrider must have either JSON or YAML set'));
    const fp = strOf(f.fieldPath);
    const fpErr = jsonPointerError(fp);
    if (fpErr) errs.push(invalid(`${at}.fieldPath`, str(fp), fpErr));
    for (const [list, ops] of [['json', jsonOps], ['yaml', yamlOps]] as const) {
      ops.forEach((op, k) => {
        const opPath = `${at}.${list}[${k}]`;
        const sub = strOf(op.subPath);
        const subErr = jsonPointerError(sub);
        if (subErr) errs.push(invalid(`${opPath}.subPath`, str(sub), subErr));
        const hasValue = present(op.value);
        if ((op.operator === 'add' || op.operator === 'replace') && !hasValue) {
          errs.push(invalid(`${opPath}.value`, json(null), 'value is required for add or replace operation'));
        }
        if (op.operator === 'remove' && hasValue) errs.push(invalid(`${opPath}.value`, json(op.value), 'value is not allowed for remove operation'));
      });
    }
  });
  return errs;
}
