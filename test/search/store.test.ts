import { describe, expect, it } from 'vitest';
import { CacheSourceAnnotation } from '../../src/api/constants.js';
import { ResourceStore, TooOldResourceVersionError, type StoreEvent } from '../../src/search/store.js';
import { parseFieldSelector, parseLabelSelector } from '../../src/search/selectors.js';

const pod = (ns: string, name: string, rv: string, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: ns, name, resourceVersion: rv, labels } });

describe('ResourceStore', () => {
  it('keeps each object as JSON annotated with its cluster, and lists by namespace, labels and fields', () => {
    const s = new ResourceStore('member1');
    s.upsert(pod('a', 'p1', '1', { app: 'web' }));
    s.upsert(pod('a', 'p2', '2', { app: 'db' }));
    s.upsert(pod('b', 'p1', '3', { app: 'web' }));
    expect(s.size).toBe(3);
    const o = s.getObject('a', 'p1')!.object;
    expect(o.metadata.annotations[CacheSourceAnnotation]).toBe('member1');
    const names = (l: { items: { namespace: string; name: string }[] }) => l.items.map((x) => `${x.namespace}/${x.name}`).sort();
    expect(names(s.list({ namespace: 'a' }))).toEqual(['a/p1', 'a/p2']);
    expect(names(s.list({ labels: parseLabelSelector('app=web') }))).toEqual(['a/p1', 'b/p1']);
    expect(names(s.list({ labels: parseLabelSelector('app in (db),app!=web') }))).toEqual(['a/p2']);
    expect(names(s.list({ fields: parseFieldSelector('metadata.namespace!=a') }))).toEqual(['b/p1']);
    expect(names(s.list({ visible: new Set(['b']) }))).toEqual(['b/p1']);
  });

  it('gives a MODIFIED the object it replaced, from an upsert and from an informer storing through the cache side', () => {
    const s = new ResourceStore('m');
    const seen: StoreEvent[] = [];
    s.watch('', (e) => seen.push(e));
    s.upsert(pod('ns', 'a', '1', { tier: 'front' }));
    s.upsert(pod('ns', 'a', '2', { tier: 'back' }));
    // what the informer does: reads the old entry, stores the new one, reports both
    const old = s.get('ns/b');
    s.set('ns/b', pod('ns', 'b', '3', { tier: 'front' }));
    s.informerEvent('ADDED', pod('ns', 'b', '3', { tier: 'front' }), old);
    const before = s.get('ns/b');
    s.set('ns/b', pod('ns', 'b', '4', { tier: 'back' }));
    s.informerEvent('MODIFIED', pod('ns', 'b', '4', { tier: 'back' }), before);
    expect(seen.map((e) => `${e.type} ${e.object.name} ${e.object.labels.get('tier')} ${e.old?.labels.get('tier') ?? '-'}`)).toEqual(['ADDED a front -', 'MODIFIED a back front', 'ADDED b front -', 'MODIFIED b back front']);
  });

  it('pages in namespace/name order and goes on after the last key', () => {
    const s = new ResourceStore('m');
    for (const n of ['c', 'a', 'b', 'd']) s.upsert(pod('ns', n, n));
    const p1 = s.list({ limit: 3 });
    expect(p1.items.map((x) => x.name)).toEqual(['a', 'b', 'c']);
    expect(p1.next).toBe('ns/c');
    const p2 = s.list({ limit: 3, after: p1.next });
    expect(p2.items.map((x) => x.name)).toEqual(['d']);
    expect(p2.next).toBeUndefined();
  });

  it('shares one label map between objects with the same labels and frees it with the last of them', () => {
    const s = new ResourceStore('m');
    s.upsert(pod('ns', 'a', '1', { app: 'web', tier: 'x' }));
    s.upsert(pod('ns', 'b', '2', { tier: 'x', app: 'web' }));
    expect(s.getObject('ns', 'a')!.labels).toBe(s.getObject('ns', 'b')!.labels);
  });

  it('replays changes after a resourceVersion and refuses one older than its history', () => {
    const s = new ResourceStore('m', 3);
    for (let i = 1; i <= 5; i++) s.upsert(pod('ns', `p${i}`, String(i)));
    const seen: StoreEvent[] = [];
    const stop = s.watch('3', (e) => seen.push(e));
    expect(seen.map((e) => `${e.type} ${e.object.name}`)).toEqual(['ADDED p4', 'ADDED p5']);
    s.remove(pod('ns', 'p4', '6'));
    expect(seen.at(-1)!.type).toBe('DELETED');
    expect(seen.at(-1)!.object.resourceVersion).toBe('6');
    stop();
    expect(() => s.watch('1', () => {})).toThrow(TooOldResourceVersionError);
    const all: string[] = [];
    s.watch('0', (e) => all.push(e.object.name));
    expect(all.sort()).toEqual(['p1', 'p2', 'p3', 'p5']);
  });

  it('replaces metadata.resourceVersion in the JSON without decoding it', () => {
    const s = new ResourceStore('m');
    s.upsert(pod('ns', 'a', '42'));
    const o = JSON.parse(s.getObject('ns', 'a')!.withResourceVersion('eyJtIjoiNDIifQ'));
    expect(o.metadata.resourceVersion).toBe('eyJtIjoiNDIifQ');
  });

  it('serves as the informer cache: set stores, delete removes, values and entries read back', () => {
    const s = new ResourceStore('m');
    s.set('ns/a', pod('ns', 'a', '1'));
    expect(s.get('ns/a')!.metadata.resourceVersion).toBe('1');
    expect([...s].map(([k]) => k)).toEqual(['ns/a']);
    expect(s.delete('ns/a')).toBe(true);
    expect(s.size).toBe(0);
  });
});
