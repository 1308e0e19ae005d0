import { describe, expect, it } from 'vitest';
import { microTime, renewedClusterLease } from '../../src/kube/cluster-lease.js';

const now = new Date('2026-12-02T16:00:00.123Z');

describe('renewedClusterLease', () => {
  it('creates the Lease karmada-cluster/<cluster> held by the cluster, owned by its Cluster', () => {
    expect(renewedClusterLease(undefined, 'edge-1', 'uid-1', now, 40)).toEqual({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'edge-1', namespace: 'karmada-cluster', ownerReferences: [{ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', name: 'edge-1', uid: 'uid-1' }] },
      spec: { holderIdentity: 'edge-1', leaseDurationSeconds: 40, renewTime: '2026-12-02T16:00:00.123000Z' },
    });
  });

  it('renews an existing Lease: renewTime and duration move, its resourceVersion and other fields stay', () => {
    const current = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'edge-1', namespace: 'karmada-cluster', resourceVersion: '7', ownerReferences: [{ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', name: 'edge-1', uid: 'old' }] },
      spec: { holderIdentity: 'edge-1', leaseDurationSeconds: 10, renewTime: '2026-12-02T15:59:00.000000Z', acquireTime: '2026-12-01T00:00:00.000000Z' },
    };
    const out = renewedClusterLease(current, 'edge-1', 'uid-1', now, 40);
    expect(out.metadata.resourceVersion).toBe('7');
    // an owner reference once set is kept (Karmada sets it only while there is none)
    expect(out.metadata.ownerReferences).toEqual(current.metadata.ownerReferences);
    expect(out.spec).toEqual({ holderIdentity: 'edge-1', leaseDurationSeconds: 40, renewTime: '2026-12-02T16:00:00.123000Z', acquireTime: '2026-12-01T00:00:00.000000Z' });
    // the input is not changed
    expect(current.spec.renewTime).toBe('2026-12-02T15:59:00.000000Z');
  });

  it('leaves the owner reference out until the Cluster uid is known, and adds it at a later renewal', () => {
    const first = renewedClusterLease(undefined, 'edge-1', undefined, now, 40);
    expect(first.metadata.ownerReferences).toBeUndefined();
    const second = renewedClusterLease({ ...first, metadata: { ...first.metadata, resourceVersion: '3' } }, 'edge-1', 'uid-9', now, 40);
    expect(second.metadata.ownerReferences).toEqual([{ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', name: 'edge-1', uid: 'uid-9' }]);
  });

  it('writes MicroTime with six fractional digits', () => {
    expect(microTime(new Date('2026-01-02T03:04:05.006Z'))).toBe('2026-01-02T03:04:05.006000Z');
  });
});
