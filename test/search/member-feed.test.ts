import { describe, expect, it } from 'vitest';
import { CacheSourceAnnotation } from '../../src/api/constants.js';
import type { RestClient } from '../../src/kube/rest.js';
import { collectionPath, memberFeed } from '../../src/search/member-feed.js';
import { ResourceStore } from '../../src/search/store.js';
import type { FeedReport } from '../../src/search/cache.js';
import { until } from './fixtures.js';

/** A member whose list answers until `down`, and whose watch sends `events` then stays open. */
function fakeMember() {
  const state = { down: false, events: [] as Array<[string, any]> };
  const client = {
    resourceFor: async (apiVersion: string, kind: string) => {
      if (kind !== 'Deployment') throw new Error(`the server does not serve ${kind} in ${apiVersion}`);
      return { name: 'deployments', kind, namespaced: true, verbs: [] };
    },
    resetDiscovery: () => {},
    request: async (_m: string, path: string) => {
      if (state.down) throw new Error('connect ECONNREFUSED');
      expect(path).toBe('/apis/apps/v1/deployments');
      return { kind: 'DeploymentList', apiVersion: 'apps/v1', metadata: { resourceVersion: '10' }, items: [{ metadata: { namespace: 'ns', name: 'a', resourceVersion: '9' } }] };
    },
    watch: async (_p: string, _q: unknown, onEvent: (t: string, o: any) => void, signal: AbortSignal) => {
      for (const [t, o] of state.events.splice(0)) onEvent(t, o);
      await new Promise<void>((r) => signal.addEventListener('abort', () => r()));
    },
    close: () => {},
  } as unknown as RestClient;
  return { client, state };
}

describe('memberFeed', () => {
  it('resolves a kind through discovery, fills the store through the informer, and annotates what it keeps', async () => {
    const { client, state } = fakeMember();
    const feed = memberFeed(client, { probeMs: 5 });
    const info = await feed.resolve('apps/v1', 'Deployment');
    expect(collectionPath(info)).toBe('/apis/apps/v1/deployments');
    await expect(feed.resolve('apps/v1', 'Widget')).rejects.toThrow('does not serve');
    state.events.push(['ADDED', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'ns', name: 'b', resourceVersion: '11' } }]);
    const store = new ResourceStore('member1');
    const reports: FeedReport[] = [];
    const stop = feed.start(info, store, (r) => reports.push(r));
    await until(() => store.size === 2);
    expect(reports[0]).toEqual({ ok: true });
    expect(store.resourceVersion).toBe('11');
    expect(store.getObject('ns', 'a')!.object.metadata.annotations[CacheSourceAnnotation]).toBe('member1');
    // the member stops answering: the probe says so, and says so again when it is back
    state.down = true;
    await until(() => reports.some((r) => !r.ok));
    state.down = false;
    await until(() => reports.at(-1)!.ok);
    stop();
    feed.close();
  });
});
