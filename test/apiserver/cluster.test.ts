import { describe, expect, it } from 'vitest';
import { toPublic, toStorage } from '../../src/apiserver/cluster-storage.js';
import { impersonationHeaders, proxyTarget } from '../../src/apiserver/cluster-proxy.js';

describe('Cluster storage version rewriting', () => {
  it('turns the public apiVersion into the storage one and back, and nothing that only starts the same', () => {
    const body = '{"apiVersion":"cluster.karmada.io/v1alpha1","kind":"Cluster","metadata":{"annotations":{"x":"cluster.karmada.io/v1alpha10"}}}';
    const stored = toStorage(body);
    expect(JSON.parse(stored).apiVersion).toBe('cluster.karmada.io/v1alpha1storage');
    expect(stored).toContain('cluster.karmada.io/v1alpha10');
    expect(toPublic(stored)).toBe(body);
    expect(toPublic('apiVersion: cluster.karmada.io/v1alpha1storage\nkind: ClusterList\n')).toBe('apiVersion: cluster.karmada.io/v1alpha1\nkind: ClusterList\n');
  });
});

describe('cluster proxy', () => {
  it("impersonates the caller's name and groups, never system:authenticated or system:unauthenticated, no extras", () => {
    expect(impersonationHeaders({ name: 'alice', groups: ['system:authenticated', 'team-a', 'system:unauthenticated', 'system:masters'], extra: { scopes: ['x'] }, uid: 'u' })).toEqual({
      'Impersonate-User': 'alice',
      'Impersonate-Group': ['team-a', 'system:masters'],
    });
    expect(impersonationHeaders({ name: 'bob', groups: ['system:authenticated'], extra: {} })).toEqual({ 'Impersonate-User': 'bob' });
    expect(() => impersonationHeaders({ name: '', groups: [], extra: {} })).toThrow('no user found for request');
  });

  it('splits the URL into the cluster and the member path with its query unchanged', () => {
    expect(proxyTarget('/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy/api/v1/pods?watch=true&labelSelector=a%3Db')).toEqual({ name: 'member1', path: '/api/v1/pods?watch=true&labelSelector=a%3Db' });
    expect(proxyTarget('/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy')).toEqual({ name: 'member1', path: '/' });
    expect(proxyTarget('/apis/cluster.karmada.io/v1alpha1/clusters/member1/status')).toBeUndefined();
  });
});
