// FederatedHPA admission (src/validation/federated-hpa.ts): Karmada's /validate-federatedhpa (its lift of
// Kubernetes' HPA validation) and /mutate-federatedhpa (autoscaling/v2 defaults), through the rules' entry point.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregate } from '../../src/validation/field-errors.js';
import { mutate, validate, MUTATED_KINDS, VALIDATED_KINDS } from '../../src/validation/rules.js';
import { ROUTES } from '../../src/webhook/review.js';

const object = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({ apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', metadata: { name: 'web', namespace: 'shop' }, spec, ...(status ? { status } : {}) });
const req = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({ operation: 'CREATE', namespace: 'shop', object: object(spec, status) });
const check = (spec: Record<string, unknown>, status?: Record<string, unknown>) => aggregate(validate('FederatedHPA', req(spec, status)));
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const cpu = (target: Record<string, unknown>) => ({ type: 'Resource', resource: { name: 'cpu', target } });

describe('FederatedHPA admission', () => {
  it('is served at Karmada\'s paths, mutating and validating', () => {
    expect(ROUTES.filter((r) => r.kind === 'FederatedHPA').map((r) => r.path)).toEqual(['/mutate-federatedhpa', '/validate-federatedhpa']);
    expect(MUTATED_KINDS.has('FederatedHPA') && VALIDATED_KINDS.has('FederatedHPA')).toBe(true);
  });

  it('accepts a complete autoscaler', () => {
    const behavior = { scaleDown: { stabilizationWindowSeconds: 0, selectPolicy: 'Min', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } };
    expect(validate('FederatedHPA', req({ scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, metrics: [cpu({ type: 'Utilization', averageUtilization: 50 }), { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } }], behavior }))).toEqual([]);
  });

  it('refuses bounds Karmada refuses: no scale to zero, max not below min', () => {
    expect(check({ scaleTargetRef: ref, minReplicas: 0, maxReplicas: 0 })).toBe('[spec.minReplicas: Invalid value: 0: must be greater than or equal to 1, spec.maxReplicas: Invalid value: 0: must be greater than 0]');
    expect(check({ scaleTargetRef: ref, minReplicas: 3, maxReplicas: 2 })).toBe('spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`');
    expect(check({ scaleTargetRef: { kind: '', name: 'a/b' }, maxReplicas: 2 })).toBe("[spec.scaleTargetRef.kind: Required value, spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/']");
  });

  it('refuses metrics Kubernetes refuses, in its words', () => {
    expect(check({ scaleTargetRef: ref, maxReplicas: 2, metrics: [cpu({ type: 'Utilization', averageUtilization: 50, averageValue: '1' })] })).toBe('spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization');
    expect(check({ scaleTargetRef: ref, maxReplicas: 2, metrics: [cpu({ type: 'Percent', averageUtilization: 0 })] })).toBe(
      '[spec.metrics[0].resource.target.type: Invalid value: "Percent": must be either Utilization, Value, or AverageValue, spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0]',
    );
    expect(check({ scaleTargetRef: ref, maxReplicas: 2, metrics: [{ type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '1' } } }] })).toBe(
      // Kubernetes reports it twice; the aggregate, as Go's ToAggregate, once
      'spec.metrics[0].type: Unsupported value: "External": supported values: "ContainerResource", "Object", "Pods", "Resource"',
    );
    expect(check({ scaleTargetRef: ref, maxReplicas: 2, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 5 } }, pods: { metric: { name: 'q' }, target: { type: 'AverageValue', averageValue: '1' } } }] })).toBe(
      'spec.metrics[0].pods: Forbidden: must populate the given metric source only',
    );
    expect(check({ scaleTargetRef: ref, maxReplicas: 2, metrics: [{ type: 'Pods' }] })).toBe('spec.metrics[0].pods: Required value: must populate information for the given metric source');
  });

  it('refuses behavior rules out of Kubernetes\' bounds', () => {
    const behavior = { scaleUp: { stabilizationWindowSeconds: 3601, selectPolicy: 'Most', policies: [] }, scaleDown: { policies: [{ type: 'Replicas', value: 0, periodSeconds: 1801 }] } };
    expect(check({ scaleTargetRef: ref, maxReplicas: 2, behavior })).toBe(
      '[spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600, spec.behavior.scaleUp.selectPolicy: Unsupported value: "Most": supported values: "Disabled", "Max", "Min", spec.behavior.scaleUp.policies: Required value: must specify at least one Policy, spec.behavior.scaleDown.policies[0].type: Unsupported value: "Replicas": supported values: "Percent", "Pods", spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero, spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800]',
    );
  });

  it('defaults as Karmada: minReplicas 1, cpu at 80%, the behavior\'s unset fields from the HPA defaults', () => {
    const bare = mutate('FederatedHPA', req({ scaleTargetRef: ref, maxReplicas: 3 })).object as any;
    expect(bare.spec).toEqual({ scaleTargetRef: ref, maxReplicas: 3, minReplicas: 1, metrics: [cpu({ type: 'Utilization', averageUtilization: 80 })] });
    const withBehavior = mutate('FederatedHPA', req({ scaleTargetRef: ref, minReplicas: 2, maxReplicas: 3, metrics: [cpu({ type: 'Utilization', averageUtilization: 50 })], behavior: { scaleDown: { stabilizationWindowSeconds: 0 } } })).object as any;
    expect(withBehavior.spec.minReplicas).toBe(2);
    expect(withBehavior.spec.behavior).toEqual({
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
    // defaulted objects pass validation, and defaulting twice changes nothing more
    expect(validate('FederatedHPA', { ...req({}), object: withBehavior })).toEqual([]);
    expect(mutate('FederatedHPA', { ...req({}), object: withBehavior }).object).toEqual(withBehavior);
  });

  it('never throws on arbitrary JSON under spec', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (spec) => {
        const r = { operation: 'CREATE', namespace: 'ns', object: { ...object({}), spec } };
        expect(Array.isArray(validate('FederatedHPA', { ...r, object: mutate('FederatedHPA', r).object }))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
