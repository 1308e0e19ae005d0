import { describe, expect, it } from 'vitest';
import { bestPolicy, buildBinding } from '../../src/core/detector.js';
import type { KObject } from '../../src/core/object.js';
import type { PropagationPolicy } from '../../src/api/generated/types.js';

const tpl: KObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx', namespace: 'default', uid: 'u1', resourceVersion: '7', labels: { app: 'nginx' } }, spec: { replicas: 2 } };
const pp = (name: string, spec: PropagationPolicy['spec'], extra: Partial<KObject['metadata']> = {}): PropagationPolicy => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, ...extra },
  spec,
});

describe('policy selection', () => {
  it('orders by explicit priority, then implicit priority, then name, skipping terminating and non-matching policies', () => {
    const byName = pp('z', { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }] });
    const byKind = pp('y', { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }] });
    const byKindHigh = pp('x', { priority: 1, resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }] });
    const terminating = pp('a', { priority: 9, resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }] }, { deletionTimestamp: '2024-01-01T00:00:00Z' });
    const other = pp('b', { priority: 9, resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'StatefulSet' }] });
    expect(bestPolicy(tpl, [byName, byKind])?.metadata.name).toBe('z');
    expect(bestPolicy(tpl, [byName, byKind, byKindHigh, terminating, other])?.metadata.name).toBe('x');
    expect(bestPolicy(tpl, [pp('b2', byName.spec), pp('a2', byName.spec)])?.metadata.name).toBe('a2');
    expect(bestPolicy(tpl, [other])).toBeUndefined();
  });
  it('defaults a PP selector without namespace to the policy namespace', () => {
    const elsewhere = { ...pp('p', { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }] }), metadata: { name: 'p', namespace: 'other' } };
    expect(bestPolicy(tpl, [elsewhere])).toBeUndefined();
  });
});

describe('binding build', () => {
  const policy = pp('p', {
    resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }],
    placement: { clusterAffinity: { clusterNames: ['member1'] } },
    propagateDeps: true,
    preserveResourcesOnDeletion: true,
    conflictResolution: 'Overwrite',
    suspension: { dispatching: true },
  }, { labels: { 'propagationpolicy.karmada.io/permanent-id': 'pid' } });

  it('copies the policy spec, claim, owner and finalizer', () => {
    const b = buildBinding(tpl, policy, undefined, { replicas: 2 });
    expect(b).toMatchObject({
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ResourceBinding',
      metadata: {
        name: 'nginx-deployment',
        namespace: 'default',
        finalizers: ['karmada.io/binding-controller'],
        labels: { 'propagationpolicy.karmada.io/permanent-id': 'pid' },
        annotations: { 'propagationpolicy.karmada.io/namespace': 'default', 'propagationpolicy.karmada.io/name': 'p' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx', uid: 'u1', controller: true, blockOwnerDeletion: true }],
      },
      spec: {
        resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx', uid: 'u1', resourceVersion: '7' },
        replicas: 2,
        schedulerName: 'default-scheduler',
        propagateDeps: true,
        preserveResourcesOnDeletion: true,
        conflictResolution: 'Overwrite',
        suspension: { dispatching: true },
      },
    });
  });
  it('keeps scheduling results, eviction tasks, requiredBy, status and suspension.scheduling on update', () => {
    const existing = buildBinding(tpl, policy, undefined, { replicas: 2 });
    existing.spec.clusters = [{ name: 'member1', replicas: 2 }];
    existing.spec.requiredBy = [{ name: 'x' }];
    existing.spec.suspension = { dispatching: true, scheduling: true };
    existing.status = { lastScheduledTime: 't' };
    const noSuspension = { ...policy, spec: { ...policy.spec, suspension: undefined } };
    const b = buildBinding(tpl, noSuspension, existing, { replicas: 3 });
    expect(b.spec.clusters).toEqual([{ name: 'member1', replicas: 2 }]);
    expect(b.spec.requiredBy).toEqual([{ name: 'x' }]);
    expect(b.spec.suspension).toEqual({ scheduling: true });
    expect(b.spec.replicas).toBe(3);
    expect(b.status).toEqual({ lastScheduledTime: 't' });
  });
  it('never refreshes propagateDeps of an existing ClusterResourceBinding', () => {
    const role: KObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r', uid: 'u' } };
    const cpp = { ...policy, kind: 'ClusterPropagationPolicy', metadata: { name: 'c', uid: 'cu' }, spec: { ...policy.spec, propagateDeps: false } };
    const first = buildBinding(role, cpp, undefined, undefined);
    expect(first.kind).toBe('ClusterResourceBinding');
    expect(first.spec.propagateDeps).toBe(false);
    const later = buildBinding(role, { ...cpp, spec: { ...cpp.spec, propagateDeps: true } }, first, undefined);
    expect(later.spec.propagateDeps).toBe(false);
  });
});
