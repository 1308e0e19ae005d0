// The namespace sync controller (src/core/namespace.ts): skip rules, the Work per cluster, deletion, the
// manifest a member namespace is created with when a namespaced object comes first, and the watches.
import { describe, expect, it } from 'vitest';
import { coreControllers } from '../../src/core/controllers.js';
import { CLUSTER, COP, NAMESPACE, WORK } from '../../src/core/kinds.js';
import { compileSkippedNamespaces, memberNamespaceManifest, NAMESPACE_SYNC, namespaceKey, namespaceShouldBeSynced, reconcileNamespace } from '../../src/core/namespace.js';
import type { KObject } from '../../src/core/object.js';
import { withCoreDefaults, type ReconcileContext } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';

const WORK_NAME = 'team-a-5cc7c7959b';
const skipped = compileSkippedNamespaces(['kube-.*']);

function setup(ns: KObject | undefined, extra: KObject[] = []) {
  const store = new EmbeddedStore();
  for (const name of ['m1', 'm2']) store.create({ ...CLUSTER, metadata: { name }, spec: {} });
  if (ns) store.create(ns);
  for (const o of extra) store.create(o);
  const ctx: ReconcileContext = { reader: store, now: new Date('2024-01-01T00:00:00Z'), interpreter: {} as never, schedule: (() => ({})) as never, options: withCoreDefaults({ skippedPropagatingNamespaces: skipped }) };
  return { store, ctx };
}

const nsObj = (name: string, labels?: Record<string, string>): KObject => ({ ...NAMESPACE, metadata: { name, ...(labels ? { labels } : {}) } });

describe('namespace sync: what is synced', () => {
  it("Karmada's reserved namespaces, default and the skipped patterns are not; others are", () => {
    for (const n of ['karmada-system', 'karmada-cluster', 'karmada-es-m1', 'default', 'kube-system', 'kube-x']) expect(namespaceShouldBeSynced(n, skipped), n).toBe(false);
    for (const n of ['team-a', 'kube', 'xkube-system', 'defaults']) expect(namespaceShouldBeSynced(n, skipped), n).toBe(true);
  });
  it('each --skipped-propagating-namespaces entry is anchored; a bad pattern names itself', () => {
    const re = compileSkippedNamespaces(['team', 'a|b']);
    expect(re.some((r) => r.test('team'))).toBe(true);
    expect(re.some((r) => r.test('team-x'))).toBe(false);
    expect(re.some((r) => r.test('b'))).toBe(true);
    expect(() => compileSkippedNamespaces(['('])).toThrow('"(" is not a regular expression');
  });
});

describe('namespace sync: reconcile', () => {
  it('creates one Work per cluster, owned by the namespace, its manifest decorated as Karmada does', () => {
    const { ctx, store } = setup(nsObj('team-a', { owner: 'alice' }));
    const uid = store.get(NAMESPACE, undefined, 'team-a')!.metadata.uid!;
    const r = reconcileNamespace(ctx, namespaceKey('team-a'));
    expect(r.error).toBeUndefined();
    expect(r.writes.map((w) => w.op)).toEqual(['create', 'create']);
    const w = (r.writes[0] as { object: KObject }).object;
    expect(w.metadata).toMatchObject({
      name: WORK_NAME,
      namespace: 'karmada-es-m1',
      finalizers: ['karmada.io/execution-controller'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'team-a', uid, controller: true, blockOwnerDeletion: true }],
    });
    const m = w.spec.workload.manifests[0] as KObject;
    expect(m.metadata.uid).toBeUndefined();
    expect(m.metadata.labels).toMatchObject({ owner: 'alice', 'karmada.io/managed': 'true', 'work.karmada.io/permanent-id': w.metadata.labels!['work.karmada.io/permanent-id'] });
    expect(m.metadata.annotations).toMatchObject({ 'resourcetemplate.karmada.io/uid': uid, 'work.karmada.io/name': WORK_NAME, 'work.karmada.io/namespace': 'karmada-es-m1' });
    expect(m.metadata.annotations!['work.karmada.io/conflict-resolution']).toBeUndefined();
  });

  it('writes nothing once the Works match', () => {
    const { ctx, store } = setup(nsObj('team-a'));
    for (const w of reconcileNamespace(ctx, namespaceKey('team-a')).writes) store.create((w as { object: KObject }).object);
    expect(reconcileNamespace(ctx, namespaceKey('team-a')).writes).toEqual([]);
  });

  it('a namespace labelled skip-auto-propagation (any case) or skipped gets no Work', () => {
    expect(reconcileNamespace(setup(nsObj('quiet', { 'namespace.karmada.io/skip-auto-propagation': 'TRUE' })).ctx, namespaceKey('quiet')).writes).toEqual([]);
    expect(reconcileNamespace(setup(nsObj('kube-x')).ctx, namespaceKey('kube-x')).writes).toEqual([]);
  });

  it('a terminating namespace has its own Works deleted (no garbage collector needed); a binding Work of the same name is left', () => {
    const { ctx, store } = setup({ ...nsObj('team-a'), metadata: { name: 'team-a', finalizers: ['kubernetes'] } });
    for (const w of reconcileNamespace(ctx, namespaceKey('team-a')).writes) store.create((w as { object: KObject }).object);
    store.delete({ ...NAMESPACE, name: 'team-a' });
    expect(store.get(NAMESPACE, undefined, 'team-a')?.metadata.deletionTimestamp).toBeDefined();
    expect(reconcileNamespace(ctx, namespaceKey('team-a')).writes).toMatchObject([
      { op: 'delete', ref: { ...WORK, namespace: 'karmada-es-m1', name: WORK_NAME } },
      { op: 'delete', ref: { ...WORK, namespace: 'karmada-es-m2', name: WORK_NAME } },
    ]);
    const crbWork: KObject = { ...WORK, metadata: { name: WORK_NAME, namespace: 'karmada-es-m1', annotations: { 'clusterresourcebinding.karmada.io/name': 'team-a-namespace' } }, spec: {} };
    const other = setup(nsObj('team-a'), [crbWork]);
    expect(reconcileNamespace(other.ctx, namespaceKey('team-a')).writes.map((w) => (w as { object: KObject }).object.metadata.namespace)).toEqual(['karmada-es-m2']);
    other.store.delete({ ...NAMESPACE, name: 'team-a' });
    expect(reconcileNamespace(other.ctx, namespaceKey('team-a')).writes).toEqual([]);
  });
});

describe('namespace sync: a member namespace created for a namespaced object', () => {
  it("is the namespace Work's manifest when there is one, else built the same way", () => {
    const { ctx, store } = setup(nsObj('team-a', { owner: 'alice' }));
    const built = memberNamespaceManifest(store, 'team-a', 'm1', skipped);
    const work = (reconcileNamespace(ctx, namespaceKey('team-a')).writes[0] as { object: KObject }).object;
    expect(built).toEqual(work.spec.workload.manifests[0]);
    store.create(work);
    expect(memberNamespaceManifest(store, 'team-a', 'm1', skipped)).toEqual(store.get(WORK, 'karmada-es-m1', WORK_NAME)!.spec.workload?.manifests?.[0]);
  });
  it('is a bare namespace when the controller does not sync it, or the host has none', () => {
    const bare = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const { store } = setup(nsObj('kube-x'), [nsObj('quiet', { 'namespace.karmada.io/skip-auto-propagation': 'true' })]);
    expect(memberNamespaceManifest(store, 'kube-x', 'm1', skipped)).toEqual(bare('kube-x'));
    expect(memberNamespaceManifest(store, 'quiet', 'm1', skipped)).toEqual(bare('quiet'));
    expect(memberNamespaceManifest(store, 'nowhere', 'm1', skipped)).toEqual(bare('nowhere'));
  });
});

describe('namespace sync: watches', () => {
  const spec = coreControllers({ skippedPropagatingNamespaces: skipped }).find((c) => c.name === NAMESPACE_SYNC)!;
  const { store } = setup(nsObj('team-a'), [nsObj('team-b'), nsObj('kube-x')]);
  it('a namespace change wakes it, unless skipped or only its status changed', () => {
    const ns = store.get(NAMESPACE, undefined, 'team-a')!;
    expect(spec.keysFor({ type: 'ADDED', object: ns }, store)).toEqual([namespaceKey('team-a')]);
    expect(spec.keysFor({ type: 'DELETED', object: ns }, store)).toEqual([namespaceKey('team-a')]);
    expect(spec.keysFor({ type: 'MODIFIED', object: { ...ns, status: { phase: 'Active' } }, old: ns }, store)).toEqual([]);
    expect(spec.keysFor({ type: 'ADDED', object: store.get(NAMESPACE, undefined, 'kube-x')! }, store)).toEqual([]);
  });
  it('a new cluster wakes every synced namespace; a ClusterOverridePolicy the namespaces it selects', () => {
    const all = [namespaceKey('team-a'), namespaceKey('team-b')];
    expect(spec.keysFor({ type: 'ADDED', object: { ...CLUSTER, metadata: { name: 'm3' } } }, store).sort()).toEqual(all);
    expect(spec.keysFor({ type: 'MODIFIED', object: { ...CLUSTER, metadata: { name: 'm3' } } }, store)).toEqual([]);
    const cop = (selectors: unknown[]): KObject => ({ ...COP, metadata: { name: 'p' }, spec: { resourceSelectors: selectors } });
    expect(spec.keysFor({ type: 'ADDED', object: cop([{ apiVersion: 'v1', kind: 'Namespace', name: 'team-b' }]) }, store)).toEqual([namespaceKey('team-b')]);
    expect(spec.keysFor({ type: 'DELETED', object: cop([{ apiVersion: 'v1', kind: 'Namespace' }]) }, store).sort()).toEqual(all);
    expect(spec.keysFor({ type: 'ADDED', object: cop([{ apiVersion: 'apps/v1', kind: 'Deployment' }]) }, store)).toEqual([]);
  });
});
