import { describe, expect, it } from 'vitest';
import { MultiClusterCache, type MemberConnector } from '../../src/search/cache.js';
import { POD } from '../../src/search/memory-feed.js';
import { cluster, fleet, registry, until } from './fixtures.js';

const deploy = (ns: string, name: string) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: ns, name, labels: { app: name } } });


describe('MultiClusterCache', () => {
  it('fills one store per (cluster, type), shared by overlapping registries', async () => {
    const { members, cache } = fleet(['m1', 'm2']);
    members.get('m1')!.apply('deployments', deploy('default', 'a'));
    members.get('m2')!.apply('deployments', deploy('default', 'b'));
    const regs = [registry('r1', {}, [{ apiVersion: 'apps/v1', kind: 'Deployment' }]), registry('r2', { clusterNames: ['m1'] }, [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default' }])];
    cache.update(regs, [cluster('m1'), cluster('m2')]);
    await until(() => cache.entriesFor('apps', 'v1', 'deployments').every((e) => e.phase === 'Cached') && cache.entriesFor('apps', 'v1', 'deployments').length === 2);
    const entries = cache.entriesFor('apps', 'v1', 'deployments');
    expect(entries.map((e) => e.cluster)).toEqual(['m1', 'm2']);
    expect(entries.map((e) => e.store!.size)).toEqual([1, 1]);
    expect(cache.entries()).toHaveLength(2);
    members.get('m2')!.apply('deployments', deploy('default', 'c'));
    expect(entries[1]!.store!.size).toBe(2);
    cache.close();
  });

  it('starts and stops watches as registries and clusters change, and ends open watches when a cluster joins', async () => {
    const { cache } = fleet(['m1', 'm2']);
    const reg = registry('r', {}, [{ apiVersion: 'v1', kind: 'Pod' }]);
    cache.update([reg], [cluster('m1')]);
    await until(() => cache.entriesFor('', 'v1', 'pods').length === 1);
    let closed = 0;
    cache.trackWatch(() => closed++);
    cache.update([reg], [cluster('m1'), cluster('m2')]);
    expect(closed).toBe(1);
    await until(() => cache.entriesFor('', 'v1', 'pods').length === 2);
    cache.update([reg], [cluster('m1'), cluster('m2', { ready: false })]);
    expect(cache.entriesFor('', 'v1', 'pods').map((e) => e.cluster)).toEqual(['m1']);
    cache.update([], [cluster('m1')]);
    expect(cache.entries()).toHaveLength(0);
    expect(cache.isRegistered('', 'v1', 'pods')).toBe(false);
    cache.close();
  });

  it('starts a type once the member serves it (a CRD installed), without a restart', async () => {
    const { members, cache } = fleet(['m1']);
    cache.update([registry('r', {}, [{ apiVersion: 'example.io/v1', kind: 'Widget' }])], [cluster('m1')]);
    await until(() => cache.state('m1', 'example.io/v1', 'Widget')?.phase === 'Failed');
    expect(cache.state('m1', 'example.io/v1', 'Widget')!.message).toContain('does not serve');
    members.get('m1')!.serve({ group: 'example.io', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });
    await until(() => cache.state('m1', 'example.io/v1', 'Widget')?.phase === 'Cached');
    cache.close();
  });

  it('marks a failing member and keeps its last objects; names it as unhealthy until it answers again', async () => {
    const { members, cache } = fleet(['m1', 'm2']);
    members.get('m2')!.apply('pods', { metadata: { namespace: 'ns', name: 'p' } });
    cache.update([registry('r', {}, [{ apiVersion: 'v1', kind: 'Pod' }])], [cluster('m1'), cluster('m2')]);
    await until(() => cache.entriesFor('', 'v1', 'pods').length === 2 && cache.unhealthyFor('', 'v1', 'pods').length === 0);
    members.get('m2')!.fail();
    expect(cache.unhealthyFor('', 'v1', 'pods').map((e) => e.cluster)).toEqual(['m2']);
    expect(cache.entriesFor('', 'v1', 'pods')[1]!.store!.size).toBe(1);
    members.get('m2')!.recover();
    expect(cache.unhealthyFor('', 'v1', 'pods')).toEqual([]);
    cache.close();
  });

  it('makes the connection again when the member refuses its token (401: a rotated Secret)', async () => {
    let connects = 0;
    const connector: MemberConnector = {
      signature: () => '',
      connect: async () => {
        const n = ++connects;
        return {
          resolve: async () => POD,
          start: (_info, _store, report) => {
            report(n === 1 ? { ok: false, error: Object.assign(new Error('Unauthorized'), { code: 401 }) } : { ok: true });
            return () => {};
          },
          close: () => {},
        };
      },
    };
    const cache = new MultiClusterCache({ connector, resolveRetryMs: 5 });
    cache.update([registry('r', {}, [{ apiVersion: 'v1', kind: 'Pod' }])], [cluster('m1')]);
    await until(() => cache.state('m1', 'v1', 'Pod')?.phase === 'Cached');
    expect(connects).toBe(2);
    cache.close();
  });
});
