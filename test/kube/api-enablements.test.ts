import { describe, expect, it } from 'vitest';
import { ApiDiscovery, enablementsOfAggregated, type AggregatedList } from '../../src/kube/api-enablements.js';
import { ApiError, type RequestOpts } from '../../src/kube/rest.js';

const res = (resource: string, kind: string) => ({ resource, responseKind: { group: '', version: 'v1', kind }, scope: 'Namespaced', verbs: ['get'] });
const coreDoc = { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', items: [{ metadata: {}, versions: [{ version: 'v1', resources: [res('pods', 'Pod'), res('configmaps', 'ConfigMap'), res('pods/status', 'Pod')], freshness: 'Current' }] }] };
const groupsDoc = (extra: NonNullable<AggregatedList['items']> = []): AggregatedList => ({
  kind: 'APIGroupDiscoveryList',
  apiVersion: 'apidiscovery.k8s.io/v2',
  items: [
    { metadata: { name: 'apps' }, versions: [{ version: 'v1', resources: [res('deployments', 'Deployment'), res('deployments/scale', 'Scale')] }] },
    { metadata: { name: 'metrics.k8s.io' }, versions: [{ version: 'v1beta1', resources: [res('pods', 'PodMetrics')], freshness: 'Stale' }] },
    ...extra,
  ],
});

describe('apiEnablements from aggregated discovery', () => {
  it('is Karmada shape: no subresources, resources and group-versions by name, stale versions left out', () => {
    expect(enablementsOfAggregated([coreDoc, groupsDoc()])).toEqual([
      { groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] },
      { groupVersion: 'v1', resources: [{ name: 'configmaps', kind: 'ConfigMap' }, { name: 'pods', kind: 'Pod' }] },
    ]);
  });
});

/** A discovery endpoint with ETags, as kube-apiserver serves /api and /apis. */
function server() {
  const docs: Record<string, { etag: string; body: unknown }> = { '/api': { etag: '"a1"', body: coreDoc }, '/apis': { etag: '"b1"', body: groupsDoc() } };
  const seen: Array<{ path: string; status: number }> = [];
  const request = async <T>(path: string, opts: RequestOpts): Promise<T> => {
    const d = docs[path]!;
    if (opts.headers?.['if-none-match'] === d.etag) {
      seen.push({ path, status: 304 });
      throw new ApiError(304, '', `GET ${path}: 304 `);
    }
    expect(opts.headers?.accept).toContain('as=APIGroupDiscoveryList');
    seen.push({ path, status: 200 });
    opts.onResponseHeaders?.({ etag: d.etag });
    return structuredClone(d.body) as T;
  };
  return { docs, seen, request };
}

describe('ApiDiscovery', () => {
  it('asks again every time with the last ETag; unchanged APIs cost two bodiless answers', async () => {
    const s = server();
    const d = new ApiDiscovery(s.request);
    const first = await d.refresh();
    expect(first.changed).toBe(false);
    const again = await d.refresh();
    expect(again).toEqual({ enablements: first.enablements, changed: false });
    expect(s.seen.slice(2)).toEqual([{ path: '/api', status: 304 }, { path: '/apis', status: 304 }]);
  });

  it('sees a CRD installed since the last time', async () => {
    const s = server();
    const d = new ApiDiscovery(s.request);
    await d.refresh();
    s.docs['/apis'] = { etag: '"b2"', body: groupsDoc([{ metadata: { name: 'example.com' }, versions: [{ version: 'v1', resources: [res('gadgets', 'Gadget')] }] }]) };
    const after = await d.refresh();
    expect(after.changed).toBe(true);
    expect(after.enablements.find((e) => e.groupVersion === 'example.com/v1')).toEqual({ groupVersion: 'example.com/v1', resources: [{ name: 'gadgets', kind: 'Gadget' }] });
  });

  it('lists a server without aggregated discovery one group-version at a time', async () => {
    const legacy: Record<string, unknown> = {
      '/api': { kind: 'APIVersions', versions: ['v1'] },
      '/apis': { kind: 'APIGroupList', groups: [{ name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }] }] },
      '/api/v1': { resources: [{ name: 'pods', kind: 'Pod' }, { name: 'pods/log', kind: 'Pod' }] },
      '/apis/apps/v1': { resources: [{ name: 'deployments', kind: 'Deployment' }] },
    };
    const d = new ApiDiscovery(async <T>(path: string) => legacy[path] as T);
    expect((await d.refresh()).enablements).toEqual([
      { groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] },
      { groupVersion: 'v1', resources: [{ name: 'pods', kind: 'Pod' }] },
    ]);
  });
});
