import { describe, expect, it } from 'vitest';
import { planCache, registryConditions } from '../../src/search/registry.js';
import { cluster, registry } from './fixtures.js';

describe('planCache', () => {
  it('unions registries per Ready cluster their targetCluster selects; all namespaces absorb a list', () => {
    const clusters = [cluster('m1', { labels: { env: 'prod' } }), cluster('m2'), cluster('m3', { ready: false })];
    const plan = planCache(
      [
        registry('a', { labelSelector: { matchLabels: { env: 'prod' } } }, [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default' }]),
        registry('b', {}, [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'kube-system' }, { apiVersion: 'v1', kind: 'Pod' }]),
        registry('c', { clusterNames: ['m1'] }, [{ apiVersion: 'v1', kind: 'Pod', namespace: 'x' }]),
      ],
      clusters,
    );
    expect([...plan.keys()].sort()).toEqual(['m1', 'm2']);
    expect([...plan.get('m1')!.get('apps/v1/Deployment')!.namespaces!].sort()).toEqual(['default', 'kube-system']);
    expect(plan.get('m1')!.get('v1/Pod')!.namespaces).toBeUndefined();
    expect([...plan.get('m2')!.get('apps/v1/Deployment')!.namespaces!]).toEqual(['kube-system']);
  });

  it('skips a type the cluster reports as not enabled, and keeps one it cannot decide', () => {
    const c = cluster('m1', { apis: [{ groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] }] });
    const plan = planCache([registry('a', {}, [{ apiVersion: 'apps/v1', kind: 'StatefulSet' }, { apiVersion: 'example.io/v1', kind: 'Widget' }])], [c]);
    expect([...plan.get('m1')!.keys()]).toEqual(['example.io/v1/Widget']);
  });
});

describe('registryConditions', () => {
  const now = '2026-01-01T00:00:00Z';
  it('is True when every selected pair is cached, naming the clusters', () => {
    const [c] = registryConditions(registry('a', {}, [{ apiVersion: 'v1', kind: 'Pod' }]), [cluster('m1')], () => ({ phase: 'Cached' }), now);
    expect(c).toMatchObject({ type: 'Cached', status: 'True', reason: 'AllCached' });
    expect(c!.message).toContain('m1');
  });

  it('says per cluster why not: not Ready, failing member, not listed yet', () => {
    const [c] = registryConditions(
      registry('a', {}, [{ apiVersion: 'v1', kind: 'Pod' }]),
      [cluster('m1'), cluster('m2'), cluster('m3', { ready: false }), cluster('m4')],
      (name) => (name === 'm1' ? { phase: 'Cached' } : name === 'm2' ? { phase: 'Failed', message: 'connection refused' } : undefined),
      now,
    );
    expect(c).toMatchObject({ status: 'False', reason: 'PartiallyCached' });
    expect(c!.message).toContain('m2 v1 Pod: connection refused');
    expect(c!.message).toContain('m3: cluster is not Ready');
    expect(c!.message).toContain('m4 v1 Pod: not listed yet');
  });

  it('says so when the targetCluster selects nothing', () => {
    const [c] = registryConditions(registry('a', { clusterNames: ['nope'] }, []), [cluster('m1')], () => undefined, now);
    expect(c).toMatchObject({ status: 'False', reason: 'NoClusterSelected' });
  });
});
