import { describe, expect, it } from 'vitest';
import { stripKarmadaMetadata } from '../../src/core/execution.js';
import { setManagedKeys } from '../../src/core/binding.js';

describe('preserved member objects', () => {
  it('lose exactly the managed labels and annotations and the PP claim; CRB keys and conflict-resolution stay', () => {
    const m = stripKarmadaMetadata({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'nginx',
        namespace: 'default',
        labels: { app: 'nginx', 'karmada.io/managed': 'true', 'resourcebinding.karmada.io/permanent-id': 'x', 'work.karmada.io/permanent-id': 'y', 'propagationpolicy.karmada.io/permanent-id': 'z', 'clusterresourcebinding.karmada.io/permanent-id': 'c' },
        annotations: {
          'work.karmada.io/name': 'w',
          'work.karmada.io/namespace': 'karmada-es-member1',
          'work.karmada.io/conflict-resolution': 'abort',
          'resourcebinding.karmada.io/name': 'b',
          'resourcebinding.karmada.io/namespace': 'default',
          'resourcetemplate.karmada.io/uid': 'u',
          'resourcetemplate.karmada.io/generation': '1',
          'resourcetemplate.karmada.io/managed-labels': 'a',
          'resourcetemplate.karmada.io/managed-annotations': 'b',
          'propagationpolicy.karmada.io/name': 'p',
          'propagationpolicy.karmada.io/namespace': 'default',
          'clusterpropagationpolicy.karmada.io/name': 'cpp',
          mine: 'kept',
        },
      },
    });
    expect(m.metadata.labels).toEqual({ app: 'nginx', 'clusterresourcebinding.karmada.io/permanent-id': 'c' });
    expect(m.metadata.annotations).toEqual({ 'work.karmada.io/conflict-resolution': 'abort', 'clusterpropagationpolicy.karmada.io/name': 'cpp', mine: 'kept' });
  });
});

describe('managed key records', () => {
  it('list every annotation key including both records, and every label key, sorted', () => {
    const m = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { z: '1', a: '2' }, annotations: { b: 'x' } } };
    setManagedKeys(m);
    expect(m.metadata.annotations).toEqual({
      b: 'x',
      'resourcetemplate.karmada.io/managed-annotations': 'b,resourcetemplate.karmada.io/managed-annotations,resourcetemplate.karmada.io/managed-labels',
      'resourcetemplate.karmada.io/managed-labels': 'a,z',
    });
  });
});
