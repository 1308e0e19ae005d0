// The controller's cache of members' PodMetrics (src/kube/member-metrics.ts): a read answers from what was
// fetched while it is fresh, starts a fetch and reads "not yet" otherwise, and keeps failures as answers.
import { describe, expect, it } from 'vitest';
import { MemberMetricsCache, podMetricsSamples } from '../../src/kube/member-metrics.js';
import type { RestClient } from '../../src/kube/rest.js';

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('MemberMetricsCache', () => {
  it('fetches on the first read, answers while fresh, fetches again once stale', async () => {
    let now = 0;
    const calls: Array<{ path: string; query: unknown }> = [];
    let cpu = '10m';
    const rest = {
      request: async (_m: string, path: string, opts: { query?: unknown }) => {
        calls.push({ path, query: opts.query });
        return { kind: 'PodMetricsList', items: [{ metadata: { name: 'p' }, timestamp: 't', window: '1s', containers: [{ name: 'c', usage: { cpu } }] }] };
      },
    } as unknown as RestClient;
    const cache = new MemberMetricsCache((c) => (c === 'm1' ? rest : undefined), { maxAgeMs: 1000, now: () => now });
    expect(cache.podMetrics('m1', 'shop', 'app=web')).toBeUndefined();
    await settle();
    expect(calls).toEqual([{ path: '/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods', query: { labelSelector: 'app=web' } }]);
    expect(cache.podMetrics('m1', 'shop', 'app=web')).toEqual({ items: [{ name: 'p', timestamp: 't', window: '1s', containers: [{ name: 'c', usage: { cpu: '10m' } }] }] });
    cpu = '20m';
    now = 1500;
    expect(cache.podMetrics('m1', 'shop', 'app=web')).toBeUndefined();
    await settle();
    expect(calls).toHaveLength(2);
    expect(cache.podMetrics('m1', 'shop', 'app=web')).toMatchObject({ items: [{ containers: [{ usage: { cpu: '20m' } }] }] });
    // a member not connected answers with why
    expect(cache.podMetrics('m9', 'shop', 'app=web')).toBeUndefined();
    await settle();
    expect(cache.podMetrics('m9', 'shop', 'app=web')).toEqual({ error: 'cluster m9 is not connected' });
  });

  it('custom metrics: the MetricValueList of a path, kept apart from the PodMetrics of the same member', async () => {
    const calls: Array<{ path: string; query: unknown }> = [];
    const rest = {
      request: async (_m: string, path: string, opts: { query?: unknown }) => {
        calls.push({ path, query: opts.query });
        return path.startsWith('/apis/custom.metrics.k8s.io/')
          ? { kind: 'MetricValueList', items: [{ describedObject: { kind: 'Pod', name: 'p' }, metric: { name: 'qps' }, timestamp: 't', windowSeconds: 30, value: '12' }, { describedObject: {}, value: '1' }] }
          : { kind: 'PodMetricsList', items: [] };
      },
    } as unknown as RestClient;
    const cache = new MemberMetricsCache(() => rest);
    expect(cache.customMetrics('m1', 'namespaces/shop/pods/*/qps', { labelSelector: 'app=web' })).toBeUndefined();
    expect(cache.podMetrics('m1', 'shop', 'app=web')).toBeUndefined();
    await settle();
    expect(calls).toEqual([
      { path: '/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/pods/*/qps', query: { labelSelector: 'app=web' } },
      { path: '/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods', query: { labelSelector: 'app=web' } },
    ]);
    // an item that describes no object is dropped
    expect(cache.customMetrics('m1', 'namespaces/shop/pods/*/qps', { labelSelector: 'app=web' })).toEqual({ items: [{ object: 'p', value: '12', timestamp: 't', windowSeconds: 30 }] });
    expect(cache.podMetrics('m1', 'shop', 'app=web')).toEqual({ items: [] });
  });

  it('a failed fetch is an answer: the error', async () => {
    const rest = { request: async () => Promise.reject(new Error('the server could not find the requested resource')) } as unknown as RestClient;
    const cache = new MemberMetricsCache(() => rest);
    cache.podMetrics('m1', 'ns', '');
    await settle();
    await settle();
    expect(cache.podMetrics('m1', 'ns', '')).toEqual({ error: 'the server could not find the requested resource' });
  });

  it('keeps only what the calculator reads of an answer', () => {
    expect(podMetricsSamples({ items: [{ metadata: { name: 'a', labels: { x: 'y' } }, containers: [{ name: 'c', usage: { cpu: '1m', bad: {} } }] }, { metadata: {} }, 'x'] })).toEqual([{ name: 'a', containers: [{ name: 'c', usage: { cpu: '1m' } }] }]);
    expect(podMetricsSamples(undefined)).toEqual([]);
  });
});
