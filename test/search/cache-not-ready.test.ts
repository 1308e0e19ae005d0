// A cluster the registries select that turns not Ready (issue 33): its objects leave the cache, as in
// Karmada's search, and every list of the type, and a proxy get that finds nothing, still says it is missing
// instead of leaving it out silently.
// test/integration/fault-search.test.ts is the same on the real fleet.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { requestInfo } from '../../src/apiserver/request-info.js';
import { statusBody, StatusError } from '../../src/apiserver/status.js';
import { searchHandlers, staleWarnings } from '../../src/search/handlers.js';
import { cluster, fleet, registry, until } from './fixtures.js';

describe('MultiClusterCache: a selected cluster that is not Ready', () => {
  it('is not cached and is named as missing in lists of the types selected on it, until it is Ready again', async () => {
    const { members, cache } = fleet(['m1', 'm2']);
    for (const m of ['m1', 'm2']) members.get(m)!.apply('pods', { metadata: { namespace: 'ns', name: `p-${m}` } });
    const regs = [registry('r', {}, [{ apiVersion: 'v1', kind: 'Pod' }])];
    cache.update(regs, [cluster('m1'), cluster('m2')]);
    await until(() => cache.entriesFor('', 'v1', 'pods').length === 2 && cache.unhealthyFor('', 'v1', 'pods').length === 0);

    cache.update(regs, [cluster('m1'), cluster('m2', { ready: false })]);
    expect(cache.entriesFor('', 'v1', 'pods').map((e) => e.cluster)).toEqual(['m1']);
    const missing = cache.unhealthyFor('', 'v1', 'pods');
    expect(missing.map((e) => [e.cluster, e.kind, e.message])).toEqual([['m2', 'Pod', 'cluster is not Ready']]);
    expect(staleWarnings(missing)).toEqual(['299 karmada-search "cluster m2 is missing: none of its Pod objects are listed (cluster is not Ready)"']);
    // Not for a type no registry selects on it.
    expect(cache.unhealthyFor('apps', 'v1', 'deployments')).toEqual([]);
    // Nor for a cluster no registry selects.
    cache.update([registry('r', { clusterNames: ['m1'] }, [{ apiVersion: 'v1', kind: 'Pod' }])], [cluster('m1'), cluster('m2', { ready: false })]);
    expect(cache.unhealthyFor('', 'v1', 'pods')).toEqual([]);

    cache.update(regs, [cluster('m1'), cluster('m2')]);
    await until(() => cache.entriesFor('', 'v1', 'pods').length === 2 && cache.unhealthyFor('', 'v1', 'pods').length === 0);
    cache.close();
  });
});

describe('the search proxy: a get for an object no cached cluster holds', () => {
  it('is NotFound with a Warning naming the cluster that is not Ready, whose objects are not cached', async () => {
    const { members, cache } = fleet(['m1', 'm2']);
    members.get('m2')!.apply('pods', { metadata: { namespace: 'ns', name: 'only-on-m2' } });
    const regs = [registry('r', {}, [{ apiVersion: 'v1', kind: 'Pod' }])];
    cache.update(regs, [cluster('m1'), cluster('m2')]);
    await until(() => cache.entriesFor('', 'v1', 'pods').length === 2 && cache.unhealthyFor('', 'v1', 'pods').length === 0);
    const handlers = searchHandlers({ cache }).handlers;
    const server = createServer((req, res) => {
      const h = handlers.find((x) => (req.url ?? '').startsWith(x.prefix))!;
      Promise.resolve(h.handle(req, res, { user: { name: 'alice', groups: [], extra: {} }, info: requestInfo('GET', req.url ?? '/'), signal: new AbortController().signal })).catch((e) => {
        const code = e instanceof StatusError ? e.code : 500;
        res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(statusBody(code, e.message)));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy/api/v1/namespaces/ns/pods/only-on-m2`;
    try {
      expect((await fetch(url)).status).toBe(200);
      cache.update(regs, [cluster('m1'), cluster('m2', { ready: false })]);
      const r = await fetch(url);
      expect(r.status).toBe(404);
      expect(((await r.json()) as { reason: string }).reason).toBe('NotFound');
      expect(r.headers.get('warning')).toBe('299 karmada-search "cluster m2 is missing: none of its Pod objects are listed (cluster is not Ready)"');
      // Every cluster cached: a plain NotFound.
      cache.update(regs, [cluster('m1')]);
      const plain = await fetch(url);
      expect(plain.status).toBe(404);
      expect(plain.headers.get('warning')).toBeNull();
    } finally {
      server.close();
      cache.close();
    }
  });
});
