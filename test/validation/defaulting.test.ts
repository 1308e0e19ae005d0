import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readDocuments } from '../../src/io/documents.js';
import { KINDS } from '../../src/api/generated/kinds.js';
import { applySchemaDefaults, mutateBinding, mutatePropagationPolicy, mutateWork, MutationError } from '../../src/validation/defaulting.js';
import { isAdmissionKind, mutate, validate } from '../../src/validation/rules.js';
import { join } from 'node:path';

const ppSchema = KINDS.find((k) => k.kind === 'PropagationPolicy')!.schema;
const examples = join(import.meta.dirname, '..', 'fixtures', 'design-examples');

describe('CRD schema defaults (offline, where no API server applies them)', () => {
  it('fills top-level spec defaults and leaves absent parents absent', () => {
    const out = applySchemaDefaults(ppSchema, { metadata: { name: 'p' }, spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'Pod' }] } }) as any;
    expect(out.spec).toEqual({
      resourceSelectors: [{ apiVersion: 'v1', kind: 'Pod' }],
      conflictResolution: 'Abort',
      preemption: 'Never',
      priority: 0,
      schedulerName: 'default-scheduler',
    });
  });

  it('fills defaults inside objects that exist', () => {
    const out = applySchemaDefaults(ppSchema, { spec: { placement: { replicaScheduling: {} }, failover: { application: { decisionConditions: {} }, cluster: {} } } }) as any;
    expect(out.spec.placement.replicaScheduling.replicaSchedulingType).toBe('Divided');
    expect(out.spec.failover.application).toMatchObject({ decisionConditions: { tolerationSeconds: 300 }, purgeMode: 'Gracefully', blockPredecessorSeconds: 600 });
    expect(out.spec.failover.application.gracePeriodSeconds).toBeUndefined();
    expect(out.spec.failover.cluster.purgeMode).toBe('Gracefully');
  });

  it('defaults a null with a default and prunes a null without one', () => {
    const out = applySchemaDefaults(ppSchema, { spec: { priority: null, propagateDeps: null } }) as any;
    expect(out.spec.priority).toBe(0);
    expect('propagateDeps' in out.spec).toBe(false);
  });

  it('never changes its input', () => {
    const input = { spec: { placement: { replicaScheduling: {} } } };
    applySchemaDefaults(ppSchema, input);
    expect(input).toEqual({ spec: { placement: { replicaScheduling: {} } } });
  });
});

describe('mutating rules', () => {
  const fixed = () => '00000000-0000-4000-8000-000000000000';

  it('pin the permanent id through the injected uuid source', () => {
    const { object } = mutatePropagationPolicy({ metadata: { name: 'p' }, spec: {} }, false, { operation: 'CREATE', namespace: 'ns', uuid: fixed });
    expect((object.metadata as any).labels['propagationpolicy.karmada.io/permanent-id']).toBe(fixed());
  });

  it('keep an existing binding id and fill an empty one', () => {
    expect((mutateBinding({ metadata: { labels: { 'resourcebinding.karmada.io/permanent-id': 'x' } } }, false).object.metadata as any).labels).toEqual({ 'resourcebinding.karmada.io/permanent-id': 'x' });
    expect((mutateBinding({}, true, { uuid: fixed }).object.metadata as any).labels).toEqual({ 'clusterresourcebinding.karmada.io/permanent-id': fixed() });
  });

  it('refuse a Work manifest that is not an object', () => {
    expect(() => mutateWork({ spec: { workload: { manifests: ['x'] } } })).toThrow(MutationError);
  });

  it('are pure and idempotent on every example: mutating twice changes nothing more, and the input is untouched', () => {
    for (const doc of readDocuments([examples])) {
      const kind = doc.object.kind;
      if (!isAdmissionKind(kind)) continue;
      const before = structuredClone(doc.object);
      const req = { operation: 'UPDATE', namespace: 'default', object: doc.object };
      const once = mutate(kind, req).object;
      expect(doc.object).toEqual(before);
      expect(mutate(kind, { ...req, object: once }).object).toEqual(once);
    }
  });

  it('never throw on arbitrary JSON under spec, whatever its shape', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(...(['PropagationPolicy', 'ClusterPropagationPolicy', 'OverridePolicy', 'ClusterOverridePolicy', 'ResourceBinding', 'ResourceInterpreterCustomization'] as const)), (spec, kind) => {
        const object = { apiVersion: 'x/v1', kind, metadata: { name: 'n', labels: { 'propagationpolicy.karmada.io/permanent-id': 'a', 'clusterpropagationpolicy.karmada.io/permanent-id': 'a' } }, spec };
        const req = { operation: 'CREATE', namespace: 'ns', object };
        const mutated = mutate(kind, req).object;
        expect(Array.isArray(validate(kind, { ...req, object: mutated }))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
