import { describe, expect, it } from 'vitest';
import { removeIrrelevantFields } from '../../src/core/prune.js';
import { createInterpreter } from '../../src/interpreter/interpreter.js';

describe('removeIrrelevantFields (spec §8 examples)', () => {
  it('drops server-set metadata and status', () => {
    const out = removeIrrelevantFields({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', creationTimestamp: 'x', deletionTimestamp: 'x', deletionGracePeriodSeconds: 1, generation: 1, managedFields: [], resourceVersion: '1', selfLink: 'x', uid: 'u', ownerReferences: [], finalizers: [], labels: { a: 'b' } },
      status: {},
    });
    expect(out).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { a: 'b' } } });
  });

  it('handles Service, Job, ServiceAccount, Secret, PVC and Deployment rules', () => {
    expect(removeIrrelevantFields({ kind: 'Service', spec: { clusterIP: '10.10.10.10', clusterIPs: ['10.10.10.10'] } })).toEqual({ kind: 'Service', spec: {} });
    expect(removeIrrelevantFields({ kind: 'Service', spec: { clusterIP: 'None', clusterIPs: ['None'] } }).spec).toEqual({ clusterIP: 'None', clusterIPs: ['None'] });
    expect(
      removeIrrelevantFields(
        {
          kind: 'Job',
          spec: {
            ttlSecondsAfterFinished: 10,
            selector: { matchLabels: { foo: 'bar', 'controller-uid': 'x' } },
            template: { metadata: { labels: { 'controller-uid': 'x', 'job-name': 'j', foo: 'bar' } } },
          },
        },
        { jobTTL: true },
      ).spec,
    ).toEqual({ selector: { matchLabels: { foo: 'bar' } }, template: { metadata: { labels: { foo: 'bar' } } } });
    expect(removeIrrelevantFields({ kind: 'ServiceAccount', metadata: { name: 'foo' }, secrets: [{ name: 'foo-token-6pgxf' }, { name: 'foo-dockercfg-zdr2j' }] }).secrets).toEqual([{ name: 'foo-dockercfg-zdr2j' }]);
    expect(removeIrrelevantFields({ kind: 'ServiceAccount', metadata: { name: 'foo' }, secrets: [{ name: 'foo-token-a' }, { name: 'foo-token-b' }] }).secrets).toEqual([{ name: 'foo-token-b' }]);
    expect(removeIrrelevantFields({ kind: 'Secret', type: 'kubernetes.io/service-account-token', data: { token: 'abc' } }).data).toBeNull();
    expect(removeIrrelevantFields({ kind: 'Secret', type: 'kubernetes.io/basic-auth', data: { a: 'b' } }).data).toEqual({ a: 'b' });
    expect(removeIrrelevantFields({ kind: 'PersistentVolumeClaim', metadata: { annotations: { 'volume.kubernetes.io/selected-node': 'node1' } } }).metadata).toEqual({ annotations: {} });
    expect(
      removeIrrelevantFields({ kind: 'Deployment', metadata: { annotations: { 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/revision-history': '1', keep: 'x' } } }).metadata,
    ).toEqual({ annotations: { keep: 'x' } });
  });
});

describe('defaults when no layer defines an operation', () => {
  it('answers as Karmada callers do', () => {
    const interp = createInterpreter({ builtin: false });
    const w = { apiVersion: 'example.io/v1', kind: 'Widget', spec: { replicas: 3 } };
    expect(interp.orDefault.getReplicas(w)).toEqual({ replicas: 0, requirements: null });
    expect(interp.orDefault.reviseReplica(w, 5)).toBe(w);
    expect(interp.orDefault.retain(w, w)).toBe(w);
    expect(interp.orDefault.aggregateStatus(w, [])).toBe(w);
    expect(interp.orDefault.getDependencies(w)).toEqual([]);
    expect(interp.orDefault.getComponents(w)).toEqual([]);
  });
});
