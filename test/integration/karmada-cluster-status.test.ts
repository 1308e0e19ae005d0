// End to end on the real host apiserver with crds/ installed: Cluster status written the way Karmada's own
// clients and tests write it is accepted, as Karmada's aggregated apiserver's Cluster status strategy
// validates nothing. A Go client's metav1.Condition with no reason or time set marshals as
// {"type":"NetworkReady","status":"False","lastTransitionTime":null,"reason":"","message":""}.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrds, rest } from './harness.js';
import { scaled } from '../time-scale.js';

const NAME = `status-e2e-${Date.now().toString(36)}`;
const CLUSTER = `/apis/cluster.karmada.io/v1alpha1/clusters/${NAME}`;

describe('Cluster status accepts what Karmada accepts', () => {
  const host = rest('host');

  beforeAll(async () => {
    await installCrds(host);
    await host.request('POST', '/apis/cluster.karmada.io/v1alpha1/clusters', {
      body: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: NAME }, spec: { syncMode: 'Push', apiEndpoint: 'https://127.0.0.1:1' } },
    });
  }, scaled(120_000));

  afterAll(async () => {
    await host.request('DELETE', CLUSTER).catch(() => undefined);
    await host.request('DELETE', `${CLUSTER}-id`).catch(() => undefined);
  });

  const writeStatus = async (status: unknown) => {
    const cur = await host.request('GET', CLUSTER);
    return host.request('PUT', `${CLUSTER}/status`, { body: { ...cur, status } });
  };

  it('takes a condition with an empty reason and a null lastTransitionTime, as a Go client sends it', async () => {
    const cond = { type: 'NetworkReady', status: 'False', lastTransitionTime: null, reason: '', message: '' };
    const stored = await writeStatus({ conditions: [cond] });
    expect(stored.status.conditions).toEqual([cond]);
    expect((await host.request('GET', CLUSTER)).status.conditions).toEqual([cond]);
  });

  it('takes a condition with only type and status, beside the Ready condition Karmada writes', async () => {
    const ready = { type: 'Ready', status: 'True', reason: 'ClusterReady', message: 'cluster is healthy and ready to accept workloads', lastTransitionTime: '2026-12-07T04:00:00Z' };
    const stored = await writeStatus({ conditions: [ready, { type: 'NetworkReady', status: 'False' }], kubernetesVersion: 'v1.34.4' });
    expect(stored.status.conditions).toEqual([ready, { type: 'NetworkReady', status: 'False' }]);
  });

  it('takes a spec.id of any length, as the ValidateClusterSpec of Karmada checks none', async () => {
    const id = 'x'.repeat(200);
    const created = await host.request('POST', '/apis/cluster.karmada.io/v1alpha1/clusters', {
      body: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: `${NAME}-id` }, spec: { syncMode: 'Pull', id } },
    });
    expect(created.spec.id).toBe(id);
  });
});
