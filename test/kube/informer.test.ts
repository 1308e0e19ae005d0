import { describe, expect, it } from 'vitest';
import { compareResourceVersions, Informer } from '../../src/kube/informer.js';
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
  it('orders resourceVersions as numbers, and not at all when they are not canonical integers', () => {
    expect(compareResourceVersions('9', '10')).toBeLessThan(0);
    expect(compareResourceVersions('123', '122')).toBeGreaterThan(0);
    expect(compareResourceVersions('77', '77')).toBe(0);
    expect(compareResourceVersions('007', '8')).toBeUndefined();
    expect(compareResourceVersions('abc', '1')).toBeUndefined();
    expect(compareResourceVersions(undefined, '1')).toBeUndefined();
  });

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

  it("a write's answer arriving after the object's DELETED event does not bring it back", async () => {
    const inf = new Informer(fakeClient([{ items: [cm('w', '5')], rv: '5' }]), { path: '/x' });
    await inf.relist();
    const seen: string[] = [];
    inf.on((t, o) => seen.push(`${t} ${o.metadata.name}@${o.metadata.resourceVersion}`));
    // The last finalizer is removed: the watch reports the deletion before the PUT's answer is read.
    inf.applyWatchEvent('DELETED', cm('w', '7'));
    const answer = { ...cm('w', '6'), metadata: { ...cm('w', '6').metadata, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [] } };
    expect(inf.applyWrite(answer)).toBe(false);
    expect(inf.get('default', 'w')).toBeUndefined();
    expect(seen).toEqual(['DELETED w@7']);
  });

  it('an answer to removing the last finalizer is not added, even before the watch catches up', async () => {
    const inf = new Informer(fakeClient([{ items: [], rv: '5' }]), { path: '/x' });
    await inf.relist();
    const answer = { ...cm('w', '8'), metadata: { ...cm('w', '8').metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } };
    expect(inf.applyWrite(answer)).toBe(false);
    expect(inf.applyWrite(cm('new', '9'))).toBe(true);
    expect(inf.get('default', 'new')?.metadata.resourceVersion).toBe('9');
  });

  it('a write-through leaves the watch position alone, and older watch events do not roll the object back', async () => {
    const inf = new Informer(fakeClient([{ items: [cm('a', '1')], rv: '1' }]), { path: '/x' });
    await inf.relist();
    const seen: string[] = [];
    inf.on((t, o, old) => seen.push(`${t} ${o.metadata.name}@${o.metadata.resourceVersion}${old ? ` (was ${old.metadata.resourceVersion})` : ''}`));
    expect(inf.applyWrite(cm('a', '4', { v: 'mine' }))).toBe(true);
    // Events 2 and 3 (someone else's writes, to other objects and to this one) are still to come.
    expect(inf.lastResourceVersion).toBe('1');
    inf.applyWatchEvent('ADDED', cm('b', '2'));
    inf.applyWatchEvent('MODIFIED', cm('a', '3', { v: 'older' }));
    inf.applyWatchEvent('MODIFIED', cm('a', '4', { v: 'mine' }));
    expect(inf.get('default', 'a').data).toEqual({ v: 'mine' });
    expect(inf.lastResourceVersion).toBe('4');
    expect(seen).toEqual(['MODIFIED a@4 (was 1)', 'ADDED b@2']);
    // A stale answer (the cache is ahead) changes nothing.
    expect(inf.applyWrite(cm('a', '3', { v: 'older' }))).toBe(false);
  });

  it('a DELETED event older than the cached object ends an earlier object of the same name', async () => {
    const inf = new Informer(fakeClient([{ items: [cm('a', '1')], rv: '1' }]), { path: '/x' });
    await inf.relist();
    // Deleted at 2 and created again at 3 by this process; the watch delivers the deletion afterwards.
    inf.applyWatchEvent('DELETED', cm('a', '2'));
    expect(inf.applyWrite(cm('a', '3'))).toBe(true);
    inf.applyWatchEvent('ADDED', cm('a', '3'));
    expect(inf.get('default', 'a')?.metadata.resourceVersion).toBe('3');
    // The same deletion arriving only now (after the re-creation was written through) keeps the new object.
    const late = new Informer(fakeClient([{ items: [cm('a', '1')], rv: '1' }]), { path: '/x' });
    await late.relist();
    late.applyWrite(cm('a', '3'));
    late.applyWatchEvent('DELETED', cm('a', '2'));
    expect(late.get('default', 'a')?.metadata.resourceVersion).toBe('3');
  });
});

