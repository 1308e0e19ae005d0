// ClusterTaintPolicy admission (src/validation/cluster-taint-policy.ts) through the rules' entry point, its
// CRD schema, and `validate` offline; the webhook's texts are pinned in conformance/webhook/clustertaintpolicy.yaml.
import { describe, expect, it } from 'vitest';
import { validateClusterTaintPolicy } from '../../src/validation/cluster-taint-policy.js';
import { errorText } from '../../src/validation/field-errors.js';
import { lintDocuments } from '../../src/validation/lint.js';
import { ADMISSION_KINDS, validate, VALIDATED_KINDS } from '../../src/validation/rules.js';
import { findKind, validateSchema } from '../../src/validation/schema.js';
import { ROUTES } from '../../src/webhook/review.js';

const ctp = (taints: unknown[], extra: Record<string, unknown> = {}) => ({ apiVersion: 'policy.karmada.io/v1alpha1', kind: 'ClusterTaintPolicy', metadata: { name: 'p' }, spec: { taints, ...extra } });
const FORBIDDEN = 'Forbidden: Configuring taint with NoExecute effect is not allowed, this capability must be explicitly enabled by administrators through command-line flags';

describe('ClusterTaintPolicy admission', () => {
  it('is a validated kind served at /validate-clustertaintpolicy for CREATE and UPDATE', () => {
    expect(ADMISSION_KINDS).toContain('ClusterTaintPolicy');
    expect(VALIDATED_KINDS.has('ClusterTaintPolicy')).toBe(true);
    expect(ROUTES.find((r) => r.path === '/validate-clustertaintpolicy')).toMatchObject({ mode: 'validate', kind: 'ClusterTaintPolicy', operations: ['CREATE', 'UPDATE'] });
  });
  it('refuses NoExecute unless allowed, each taint on its own path', () => {
    const obj = ctp([{ key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'NoExecute' }]);
    expect(validate('ClusterTaintPolicy', { operation: 'CREATE', namespace: '', object: obj }).map(errorText)).toEqual([`spec.taints[1]: ${FORBIDDEN}`]);
    expect(validate('ClusterTaintPolicy', { operation: 'CREATE', namespace: '', object: obj }, { allowNoExecuteTaintPolicy: true })).toEqual([]);
  });
  it('refuses a second taint with the same key and effect once per earlier taint; other effects or keys are fine', () => {
    const errs = validateClusterTaintPolicy(ctp([{ key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'PreferNoSchedule' }, { key: 'b', effect: 'NoSchedule' }]));
    expect(errs.map(errorText)).toEqual([
      'spec.taints[0]: Duplicate value: "Duplicate taint with the same key(a) and effect(NoSchedule) is not allowed"',
      'spec.taints[1]: Duplicate value: "Duplicate taint with the same key(a) and effect(NoSchedule) is not allowed"',
    ]);
  });
  it('does not throw on values of the wrong type', () => {
    expect(validateClusterTaintPolicy({ spec: { taints: 'x' } })).toEqual([]);
    expect(validateClusterTaintPolicy({ spec: { taints: [null, 3] } }).map(errorText)).toEqual(['spec.taints[0]: Duplicate value: "Duplicate taint with the same key() and effect() is not allowed"']);
  });
  it('the CRD schema wants at least one taint with a key and an effect, and match conditions complete', () => {
    const info = findKind('policy.karmada.io/v1alpha1', 'ClusterTaintPolicy')!;
    expect(info).toBeDefined();
    expect(validateSchema(info, ctp([{ key: 'a', effect: 'NoSchedule' }], { addOnConditions: [{ conditionType: 'Ready', operator: 'In', statusValues: ['False'] }] }))).toEqual([]);
    expect(validateSchema(info, ctp([])).length).toBeGreaterThan(0);
    expect(validateSchema(info, ctp([{ key: 'a' }])).length).toBeGreaterThan(0);
    expect(validateSchema(info, ctp([{ key: 'a', effect: 'NoSchedule' }], { removeOnConditions: [{ conditionType: 'Ready' }] })).length).toBeGreaterThan(0);
  });
  it('validate offline reports the same errors', () => {
    const [r] = lintDocuments([{ file: 'ctp.yaml', index: 0, object: ctp([{ key: 'a', effect: 'NoExecute' }]) }]);
    expect(r).toMatchObject({ status: 'invalid', kind: 'ClusterTaintPolicy' });
    expect(r!.errors.map(errorText)).toEqual([`spec.taints[0]: ${FORBIDDEN}`]);
    const [allowed] = lintDocuments([{ file: 'ctp.yaml', index: 0, object: ctp([{ key: 'a', effect: 'NoExecute' }]) }], { allowNoExecuteTaintPolicy: true });
    expect(allowed).toMatchObject({ status: 'valid', errors: [] });
  });
});
