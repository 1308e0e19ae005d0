// Staged rollout admission (src/validation/rollout.ts) through the rules' entry points, its CRD schema and
// `validate` offline; the webhook's texts are pinned in conformance/webhook/pp-rollout.yaml.
import { describe, expect, it } from 'vitest';
import { errorText } from '../../src/validation/field-errors.js';
import { lintDocuments } from '../../src/validation/lint.js';
import { defaultRolloutStrategy, labelSelectorErrors, validateRolloutStrategy } from '../../src/validation/rollout.js';
import { mutate, validate } from '../../src/validation/rules.js';
import { findKind, validateSchema } from '../../src/validation/schema.js';

const SEL = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx', namespace: 'ns-1' }];
const pp = (rolloutStrategy: unknown) => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'pp', namespace: 'ns-1', labels: { 'propagationpolicy.karmada.io/permanent-id': 'id-1' } },
  spec: { resourceSelectors: SEL, rolloutStrategy },
});
const cpp = (rolloutStrategy: unknown) => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'ClusterPropagationPolicy',
  metadata: { name: 'cpp', labels: { 'clusterpropagationpolicy.karmada.io/permanent-id': 'id-1' } },
  spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'Namespace', name: 'apps' }], rolloutStrategy },
});
const texts = (rs: unknown) => validateRolloutStrategy(rs).map(errorText);
const admit = (object: Record<string, unknown>, kind: 'PropagationPolicy' | 'ClusterPropagationPolicy' = 'PropagationPolicy') =>
  validate(kind, { operation: 'CREATE', namespace: kind === 'PropagationPolicy' ? 'ns-1' : '', object }).map(errorText);

const FULL = {
  type: 'Staged',
  staged: {
    stages: [
      { name: 'canary', clusterNames: ['member1'], gate: { requiredConditions: ['SmokeTestsPassed'], minHealthySeconds: 60, timeoutSeconds: 600 } },
      { name: 'rest', labelSelector: { matchLabels: { tier: 'prod' } } },
    ],
    gate: { minHealthySeconds: 30 },
    onFailure: { action: 'Rollback' },
  },
};

describe('rollout strategy admission', () => {
  it('allows the documented example on both policy kinds, and AllAtOnce or no strategy at all', () => {
    expect(admit(pp(FULL))).toEqual([]);
    expect(admit(cpp(FULL), 'ClusterPropagationPolicy')).toEqual([]);
    expect(admit(pp({ type: 'AllAtOnce' }))).toEqual([]);
    expect(admit(pp(undefined))).toEqual([]);
    expect(admit(pp({ type: 'Staged', staged: {} }))).toEqual([]);
  });

  it('is wired into the policy rules: the errors come after the other spec errors, with their paths', () => {
    const object = pp({ type: 'Staged' });
    (object.spec as Record<string, unknown>).preemption = 'Always';
    (object.spec as Record<string, unknown>).resourceSelectors = [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ns-1' }];
    expect(admit(object)).toEqual([
      'spec.resourceSelectors[0].name: Invalid value: "": name cannot be empty if preemption is Always, the empty name may cause unexpected resources preemption',
      'spec.rolloutStrategy.staged: Required value: the stages and their gates must be set when type is Staged',
    ]);
    expect(admit(cpp({ type: 'Staged' }), 'ClusterPropagationPolicy')).toEqual(['spec.rolloutStrategy.staged: Required value: the stages and their gates must be set when type is Staged']);
  });

  it('names the stage already holding a cluster, and reports every later repeat', () => {
    expect(texts({ type: 'Staged', staged: { stages: [{ clusterNames: ['a', 'b'] }, { clusterNames: ['c'] }, { clusterNames: ['b', 'c', 'a'] }] } })).toEqual([
      'spec.rolloutStrategy.staged.stages[2].clusterNames[0]: Invalid value: "b": already in spec.rolloutStrategy.staged.stages[0]: a cluster belongs to one stage, remove it from one of them',
      'spec.rolloutStrategy.staged.stages[2].clusterNames[1]: Invalid value: "c": already in spec.rolloutStrategy.staged.stages[1]: a cluster belongs to one stage, remove it from one of them',
      'spec.rolloutStrategy.staged.stages[2].clusterNames[2]: Invalid value: "a": already in spec.rolloutStrategy.staged.stages[0]: a cluster belongs to one stage, remove it from one of them',
    ]);
  });

  it('accepts a stage that both names and selects clusters (the union), and refuses one that does neither', () => {
    expect(texts({ type: 'Staged', staged: { stages: [{ clusterNames: ['a'], labelSelector: { matchLabels: { tier: 'canary' } } }] } })).toEqual([]);
    const missing = 'Required value: a stage must name its clusters (clusterNames) or select them (labelSelector with matchLabels or matchExpressions)';
    expect(texts({ type: 'Staged', staged: { stages: [{}, { labelSelector: { matchLabels: {}, matchExpressions: [] } }, { clusterNames: [] }] } })).toEqual([
      `spec.rolloutStrategy.staged.stages[0]: ${missing}`,
      `spec.rolloutStrategy.staged.stages[1]: ${missing}`,
      `spec.rolloutStrategy.staged.stages[2]: ${missing}`,
    ]);
  });

  it('checks every gate where it is written: the default gate and each stage gate', () => {
    expect(
      texts({
        type: 'Staged',
        staged: { stages: [{ clusterNames: ['a'], gate: { minHealthySeconds: 10, timeoutSeconds: 10 } }, { clusterNames: ['b'], gate: { timeoutSeconds: 11, minHealthySeconds: 10 } }], gate: { minHealthySeconds: -1, timeoutSeconds: 5 } },
      }),
    ).toEqual([
      'spec.rolloutStrategy.staged.stages[0].gate.timeoutSeconds: Invalid value: 10: must be greater than minHealthySeconds (10), or the stage fails before its gate can pass',
      // A negative minHealthySeconds is its own error; the timeout is not compared with it.
      'spec.rolloutStrategy.staged.gate.minHealthySeconds: Invalid value: -1: must be greater than or equal to 0',
    ]);
    expect(texts({ type: 'Staged', staged: { gate: { timeoutSeconds: -3 } } })).toEqual(['spec.rolloutStrategy.staged.gate.timeoutSeconds: Invalid value: -3: must be greater than 0']);
  });

  it('checks required condition types as metav1.Condition types (qualified names) and refuses repeats', () => {
    expect(texts({ type: 'Staged', staged: { gate: { requiredConditions: ['Ready', 'example.com/SmokeTestsPassed'] } } })).toEqual([]);
    const errs = texts({ type: 'Staged', staged: { gate: { requiredConditions: ['', 'a/b/c', 'Ready', 'Ready'] } } });
    expect(errs[0]).toMatch(/^spec\.rolloutStrategy\.staged\.gate\.requiredConditions\[0\]: Invalid value: "": name part must be non-empty$/);
    expect(errs.some((e) => e.startsWith('spec.rolloutStrategy.staged.gate.requiredConditions[1]: Invalid value: "a/b/c": a valid label key must consist'))).toBe(true);
    expect(errs.at(-1)).toBe('spec.rolloutStrategy.staged.gate.requiredConditions[3]: Duplicate value: "Ready"');
  });

  it('validates label selectors as apimachinery does, matchLabels in key order', () => {
    const errs = labelSelectorErrors({ matchLabels: { 'z/y/x': 'ok', a: 'bad value' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['ok', '-bad'] }] }, 's').map(errorText);
    expect(errs).toHaveLength(3);
    expect(errs[0]).toMatch(/^s\.matchLabels: Invalid value: "bad value": a valid label must be an empty string/);
    expect(errs[1]).toMatch(/^s\.matchLabels: Invalid value: "z\/y\/x": a valid label key must consist/);
    expect(errs[2]).toMatch(/^s\.matchExpressions\[0\]\.values\[1\]: Invalid value: "-bad": a valid label must be/);
    expect(labelSelectorErrors({ matchExpressions: [{ key: 'k', operator: 'DoesNotExist' }, { key: 'k', operator: 'NotIn', values: ['a'] }] }, 's')).toEqual([]);
  });

  it('does not throw on values of the wrong type', () => {
    for (const rs of [3, 'x', [], { type: 3 }, { type: 'Staged', staged: 'x' }, { type: 'Staged', staged: { stages: 'x', gate: 4, onFailure: [] } }, { type: 'Staged', staged: { stages: [null, 3, { clusterNames: [7], gate: { requiredConditions: [1] }, labelSelector: { matchExpressions: [null] } }] } }]) {
      expect(() => validateRolloutStrategy(rs)).not.toThrow();
      expect(() => defaultRolloutStrategy({ rolloutStrategy: rs })).not.toThrow();
    }
    expect(texts({ type: 3 })).toEqual(['spec.rolloutStrategy.type: Unsupported value: 3: supported values: "AllAtOnce", "Staged"']);
  });
});

describe('rollout strategy defaults (the mutating webhook)', () => {
  const mutated = (rs: unknown) => (mutate('PropagationPolicy', { operation: 'CREATE', namespace: 'ns-1', object: pp(rs) }).object.spec as Record<string, unknown>).rolloutStrategy;

  it('names unnamed stages by their index, fills the failure action and the default gate, and copies no gate into stages', () => {
    expect(mutated({ type: 'Staged', staged: { stages: [{ clusterNames: ['a'] }, { name: 'two', clusterNames: ['b'], gate: { requiredConditions: ['Ok'] } }, { name: '', clusterNames: ['c'] }] } })).toEqual({
      type: 'Staged',
      staged: {
        stages: [
          { name: 'stage-0', clusterNames: ['a'] },
          { name: 'two', clusterNames: ['b'], gate: { requiredConditions: ['Ok'], requireHealthy: true, minHealthySeconds: 0 } },
          { name: 'stage-2', clusterNames: ['c'] },
        ],
        gate: { requireHealthy: true, minHealthySeconds: 0 },
        onFailure: { action: 'Pause' },
      },
    });
  });

  it('keeps what the user set, is idempotent, and leaves AllAtOnce and a misplaced staged section for validation to refuse', () => {
    const once = mutated(FULL);
    expect(once).toMatchObject({ staged: { gate: { minHealthySeconds: 30, requireHealthy: true }, onFailure: { action: 'Rollback' } } });
    expect(mutated(once)).toEqual(once);
    expect(mutated({ type: 'AllAtOnce' })).toEqual({ type: 'AllAtOnce' });
    expect(mutated({ type: 'AllAtOnce', staged: { stages: [{}] } })).toEqual({ type: 'AllAtOnce', staged: { stages: [{}] } });
  });

  it('never changes its input', () => {
    const input = pp({ type: 'Staged', staged: { stages: [{ clusterNames: ['a'] }] } });
    const before = JSON.stringify(input);
    mutate('PropagationPolicy', { operation: 'CREATE', namespace: 'ns-1', object: input });
    expect(JSON.stringify(input)).toBe(before);
  });
});

describe('rollout strategy offline (validate) and in the CRD schema', () => {
  const lint = (object: Record<string, unknown>) => lintDocuments([{ file: 'pp.yaml', index: 0, object }])[0]!;

  it('reports the webhook rules for a schema-valid policy, after the same defaults', () => {
    const r = lint(pp({ type: 'Staged', staged: { stages: [{ clusterNames: ['member1'] }, { clusterNames: ['member1'] }] } }));
    expect(r).toMatchObject({ status: 'invalid', kind: 'PropagationPolicy' });
    expect(r.errors.map(errorText)).toEqual(['spec.rolloutStrategy.staged.stages[1].clusterNames[0]: Invalid value: "member1": already in spec.rolloutStrategy.staged.stages[0]: a cluster belongs to one stage, remove it from one of them']);
    expect(lint(pp(FULL))).toMatchObject({ status: 'valid', errors: [] });
  });

  it('a staged section without type gets the CRD default AllAtOnce first, so the message says to set the type', () => {
    expect(lint(pp({ staged: { stages: [{ clusterNames: ['a'] }] } })).errors.map(errorText)).toEqual([
      'spec.rolloutStrategy.staged: Forbidden: only read when type is Staged: set spec.rolloutStrategy.type to Staged, or remove staged',
    ]);
  });

  it('stops at the schema, as the API server does, for enums and minimums', () => {
    const r = lint(pp({ type: 'Staged', staged: { gate: { minHealthySeconds: -1 }, onFailure: { action: 'Retry' } } }));
    expect(r.status).toBe('invalid');
    expect(r.errors.map((e) => e.path).sort()).toEqual(['spec.rolloutStrategy.staged.gate.minHealthySeconds', 'spec.rolloutStrategy.staged.onFailure.action']);
  });

  it('the schema carries the defaults the API server applies', () => {
    const info = findKind('policy.karmada.io/v1alpha1', 'PropagationPolicy')!;
    expect(validateSchema(info, pp(FULL))).toEqual([]);
    expect(validateSchema(info, pp({ type: 'Staged', staged: { gate: { timeoutSeconds: 0 } } })).map((e) => e.path)).toEqual(['spec.rolloutStrategy.staged.gate.timeoutSeconds']);
  });
});
