import { describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded.js';
import type { WatchEvent } from '../../src/runtime/store-port.js';
import type { KObject } from '../../src/core/object.js';

const cm = (name: string, data: Record<string, string> = {}, extra: Partial<KObject['metadata']> = {}): KObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', ...extra },
  data,
});

describe('embedded store', () => {
  it('stamps uid, resourceVersion, generation and creationTimestamp on create, and refuses duplicates', () => {
    const s = new EmbeddedStore({ clock: () => new Date('2024-01-01T00:00:00Z') });
    const o = s.create(cm('a'));
    expect(o.metadata).toMatchObject({ resourceVersion: '1', generation: 1, creationTimestamp: '2024-01-01T00:00:00Z' });
    expect(o.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(() => s.create(cm('a'))).toThrow(/already exists/);
  });
  it('bumps generation only for changes outside metadata and status, and skips no-op updates', () => {
    const s = new EmbeddedStore();
    const a = s.create(cm('a', { k: '1' }));
    const b = s.update({ ...a, metadata: { ...a.metadata, labels: { x: 'y' } } });
    expect(b.metadata.generation).toBe(1);
    expect(b.metadata.resourceVersion).not.toBe(a.metadata.resourceVersion);
    const c = s.update({ ...b, data: { k: '2' } });
    expect(c.metadata.generation).toBe(2);
    const d = s.update(c);
    expect(d).toBe(c);
  });
  it('bumps a Deployment\'s generation on annotation changes too, as the API server does, in members as well', () => {
    const s = new EmbeddedStore();
    const dep = (name: string): KObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'default' }, spec: { replicas: 1 } });
    for (const cluster of [undefined, 'member1']) {
      const a = s.create(dep('d'), cluster);
      const b = s.update({ ...a, metadata: { ...a.metadata, labels: { x: 'y' } } }, cluster);
      expect(b.metadata.generation).toBe(1);
      const c = s.update({ ...b, metadata: { ...b.metadata, annotations: { note: 'a' } } }, cluster);
      expect(c.metadata.generation).toBe(2);
      // Dropping the last annotation is a change; an empty map is then no change from none.
      const d = s.update({ ...c, metadata: { ...c.metadata, annotations: {} } }, cluster);
      expect(d.metadata.generation).toBe(3);
      const e = s.update({ ...d, metadata: { ...d.metadata, annotations: undefined } }, cluster);
      expect(e.metadata.generation).toBe(3);
    }
    // Other kinds keep generation for metadata-only changes.
    const cm1 = s.create(cm('c'));
    expect(s.update({ ...cm1, metadata: { ...cm1.metadata, annotations: { note: 'a' } } }).metadata.generation).toBe(1);
  });
  it('rejects a stale resourceVersion with a Conflict', () => {
    const s = new EmbeddedStore();
    const a = s.create(cm('a'));
    s.update({ ...a, data: { k: '1' } });
    expect(() => s.update({ ...a, data: { k: '2' } })).toThrow(/has been modified/);
  });
  it('keeps status on update and changes only status on updateStatus', () => {
    const s = new EmbeddedStore();
    const a = s.create({ ...cm('a'), status: { phase: 'x' } });
    const b = s.update({ ...a, status: { phase: 'ignored' }, data: { k: 'v' } });
    expect(b.status).toEqual({ phase: 'x' });
    const c = s.updateStatus({ ...b, status: { phase: 'y' }, data: { k: 'ignored' } });
    expect(c.status).toEqual({ phase: 'y' });
    expect(c.data).toEqual({ k: 'v' });
    expect(c.metadata.generation).toBe(b.metadata.generation);
  });
  it('holds objects with finalizers in deletion until the last finalizer goes', () => {
    const s = new EmbeddedStore();
    const a = s.create(cm('a', {}, { finalizers: ['f'] }));
    s.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a' });
    const t = s.get(a, 'default', 'a')!;
    expect(t.metadata.deletionTimestamp).toBeDefined();
    expect(t.metadata.generation).toBe(2);
    s.update({ ...t, metadata: { ...t.metadata, finalizers: [] } });
    expect(s.get(a, 'default', 'a')).toBeUndefined();
  });
  it('garbage-collects dependents whose owner is gone, in the same cluster only', () => {
    const s = new EmbeddedStore();
    const owner = s.create(cm('owner'));
    s.create(cm('dep', {}, { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid, controller: true }] }));
    s.create(cm('dep', {}, { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }] }), 'member1');
    s.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'owner' });
    expect(s.get(owner, 'default', 'dep')).toBeUndefined();
    expect(s.get(owner, 'default', 'dep', 'member1')).toBeDefined();
  });
  it('lists by namespace and by indexed label, and keeps member clusters apart', () => {
    const s = new EmbeddedStore({ indexedLabels: ['id'] });
    s.create(cm('a', {}, { labels: { id: '1' } }));
    s.create({ ...cm('b', {}, { labels: { id: '2' } }), metadata: { name: 'b', namespace: 'other', labels: { id: '2' } } });
    s.create(cm('c', {}, { labels: { id: '1', x: 'y' } }), 'member1');
    const t = { apiVersion: 'v1', kind: 'ConfigMap' };
    expect(s.list(t, { labels: { id: '1' } }).map((o) => o.metadata.name)).toEqual(['a']);
    expect(s.list(t, { namespace: 'other' }).map((o) => o.metadata.name)).toEqual(['b']);
    expect(s.list(t, { labels: { x: 'y' } }, 'member1').map((o) => o.metadata.name)).toEqual(['c']);
    expect(s.types('member1')).toEqual([t]);
  });
  it('indexes member-cluster labels on first use and keeps the index up to date after', () => {
    const s = new EmbeddedStore({ indexedLabels: ['id'] });
    const t = { apiVersion: 'v1', kind: 'ConfigMap' };
    s.create(cm('a', {}, { labels: { id: '1' } }), 'member1');
    const b = s.create(cm('b', {}, { labels: { id: '2' } }), 'member1');
    expect(s.list(t, { labels: { id: '1' } }, 'member1').map((o) => o.metadata.name)).toEqual(['a']);
    s.update({ ...b, metadata: { ...b.metadata, labels: { id: '1' } } }, 'member1');
    s.create(cm('c', {}, { labels: { id: '1' } }), 'member1');
    s.delete({ ...t, namespace: 'default', name: 'a' }, 'member1');
    expect(s.list(t, { labels: { id: '1' } }, 'member1').map((o) => o.metadata.name)).toEqual(['b', 'c']);
    expect(s.list(t, { labels: { id: '2' } }, 'member1')).toEqual([]);
  });
  it('lists in creation order, which updates keep and a re-create moves to the end, also through the label index', () => {
    const s = new EmbeddedStore({ indexedLabels: ['id'] });
    const t = { apiVersion: 'v1', kind: 'ConfigMap' };
    const names = (l: KObject[]) => l.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    // A lookup before the type has a table must not hide objects created later.
    expect(s.get(t, 'default', 'a')).toBeUndefined();
    const a = s.create(cm('a', {}, { labels: { id: '1' } }));
    s.create({ ...cm('b'), metadata: { name: 'b', namespace: 'other', labels: { id: '1' } } });
    s.create(cm('c', {}, { labels: { id: '1' } }));
    const a2 = s.update({ ...a, data: { k: 'v' } });
    expect(s.get(t, 'default', 'a')).toBe(a2);
    expect(names(s.list(t))).toEqual(['default/a', 'other/b', 'default/c']);
    expect(names(s.list(t, { labels: { id: '1' } }))).toEqual(['default/a', 'other/b', 'default/c']);
    s.delete({ ...t, namespace: 'default', name: 'a' });
    expect(s.get(t, 'default', 'a')).toBeUndefined();
    const a3 = s.create(cm('a', {}, { labels: { id: '1' } }));
    expect(s.get(t, 'default', 'a')).toBe(a3);
    expect(names(s.list(t))).toEqual(['other/b', 'default/c', 'default/a']);
    expect(names(s.list(t, { labels: { id: '1' } }))).toEqual(['other/b', 'default/c', 'default/a']);
    expect(names(s.list(t, { namespace: 'default', labels: { id: '1' } }))).toEqual(['default/c', 'default/a']);
    expect(names(s.all())).toEqual(['default/a', 'default/c', 'other/b']);
  });
  it('treats versions of one group/kind as the same objects', () => {
    const s = new EmbeddedStore();
    s.create({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'default' } });
    expect(s.get({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler' }, 'default', 'h')).toBeDefined();
  });
  it('reports every change to watchers with the old object', () => {
    const s = new EmbeddedStore();
    const seen: WatchEvent[] = [];
    s.watch((e) => seen.push(e));
    const a = s.create(cm('a'));
    s.update({ ...a, data: { k: 'v' } });
    s.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a' });
    expect(seen.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(seen[1]!.old?.data).toEqual({});
  });
  it('freezes stored objects so that a reader cannot mutate them', () => {
    const s = new EmbeddedStore();
    const a = s.create(cm('a'));
    expect(() => {
      (a.metadata as Record<string, unknown>).name = 'b';
    }).toThrow();
  });
  it('aggregates repeated events into a count', () => {
    const s = new EmbeddedStore();
    const ev = { involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'a' }, type: 'Normal' as const, reason: 'R', message: 'm', source: 'x' };
    s.recordEvent(ev);
    s.recordEvent(ev);
    expect(s.events()).toHaveLength(1);
    expect(s.events()[0]!.count).toBe(2);
  });
});
