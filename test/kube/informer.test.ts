import { describe, expect, it } from 'vitest';
import { Informer } from '../../src/kube/informer.js';
import type { RestClient } from '../../src/kube/rest.js';

const cm = (name: string, rv: string, data = {}) => ({ metadata: { name, namespace: 'default', resourceVersion: rv }, data });

function fakeClient(lists: Array<{ items: any[]; rv: string }>): RestClient {
  let i = 0;
  return {
    request: async () => {
      const l = lists[Math.min(i++, lists.length - 1)]!;
      return { items: l.items, metadata: { resourceVersion: l.rv } };
    },
  } as unknown as RestClient;
}

describe('Informer cache logic', () => {
  it('emits ADDED for the first list and only differences on a relist', async () => {
    const inf = new Informer(fakeClient([{ items: [cm('a', '1'), cm('b', '2')], rv: '2' }, { items: [cm('a', '1'), cm('c', '5'), cm('b', '4')], rv: '5' }]), { path: '/api/v1/configmaps' });
    const seen: string[] = [];
    inf.on((t, o) => seen.push(`${t} ${o.metadata.name}@${o.metadata.resourceVersion}`));
    await inf.relist();
    expect(seen).toEqual(['ADDED a@1', 'ADDED b@2']);
    seen.length = 0;
    await inf.relist();
    expect(seen).toEqual(['ADDED c@5', 'MODIFIED b@4']);
    expect(inf.lastResourceVersion).toBe('5');
    expect(inf.hasSynced).toBe(true);
  });

  it('reports objects that vanished between two lists as DELETED', async () => {
    const inf = new Informer(fakeClient([{ items: [cm('a', '1'), cm('b', '2')], rv: '2' }, { items: [cm('b', '2')], rv: '7' }]), { path: '/x' });
    const seen: string[] = [];
    await inf.relist();
    inf.on((t, o) => seen.push(`${t} ${o.metadata.name}`));
    await inf.relist();
    expect(seen).toEqual(['DELETED a']);
    expect(inf.list().map((o) => o.metadata.name)).toEqual(['b']);
  });

  it('skips a replayed watch event, follows bookmarks, and asks for a relist on 410', async () => {
    const inf = new Informer(fakeClient([{ items: [cm('a', '1')], rv: '1' }]), { path: '/x' });
    await inf.relist();
    const seen: string[] = [];
    inf.on((t, o, old) => seen.push(`${t} ${o.metadata.name}@${o.metadata.resourceVersion}${old ? ` (was ${old.metadata.resourceVersion})` : ''}`));
    expect(inf.applyWatchEvent('ADDED', cm('a', '1'))).toBe(true); // replay of what the list gave
    expect(inf.applyWatchEvent('MODIFIED', cm('a', '3'))).toBe(true);
    expect(inf.applyWatchEvent('BOOKMARK', { metadata: { resourceVersion: '9' } })).toBe(true);
    expect(inf.lastResourceVersion).toBe('9');
    expect(inf.applyWatchEvent('DELETED', cm('a', '10'))).toBe(true);
    expect(inf.applyWatchEvent('DELETED', cm('a', '11'))).toBe(true); // already gone: no second event
    expect(inf.applyWatchEvent('ERROR', { code: 410, reason: 'Expired' })).toBe(false);
    expect(seen).toEqual(['MODIFIED a@3 (was 1)', 'DELETED a@10 (was 3)']);
  });

  it('keeps serving when a handler throws', async () => {
    const errors: unknown[] = [];
    const inf = new Informer(fakeClient([{ items: [cm('a', '1')], rv: '1' }]), { path: '/x', onError: (e) => errors.push(e) });
    const seen: string[] = [];
    inf.on(() => {
      throw new Error('handler bug');
    });
    inf.on((t) => seen.push(t));
    await inf.relist();
    expect(seen).toEqual(['ADDED']);
    expect(errors).toHaveLength(1);
  });
});
