import { describe, expect, it } from 'vitest';
import { CacheFeed, fleetInputOfCaches } from '../../src/dashboard/snapshot.js';
import { EmbeddedStore } from '../../src/store/embedded.js';
import type { KObject } from '../../src/core/object.js';

const AT = new Date('2026-01-02T03:04:05Z');

/** What the controller's caches hold for one Deployment propagated to member1 with dispatching suspended. */
function caches(): EmbeddedStore {
  const s = new EmbeddedStore({ clock: () => AT });
  s.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'member1' }, spec: { syncMode: 'Push' } });
  s.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 2 } });
  s.create({ apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: 'web', namespace: 'shop' }, spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }] } });
  s.create({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: 'web-deployment', namespace: 'shop' },
    spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' }, clusters: [{ name: 'member1', replicas: 2 }] },
  });
  s.create({
    apiVersion: 'work.karmada.io/v1alpha1',
    kind: 'Work',
    metadata: { name: 'web-abc', namespace: 'karmada-es-member1', annotations: { 'resourcebinding.karmada.io/namespace': 'shop', 'resourcebinding.karmada.io/name': 'web-deployment' } },
    spec: { suspendDispatching: true, workload: { manifests: [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 2 } }] } },
  });
  return s;
}

describe('fleetInputOfCaches', () => {
  it('reads the bindings, their templates, the Works (as plan summarises them), Clusters and policies from the caches', () => {
    const input = fleetInputOfCaches(caches(), AT);
    expect(input.source).toBe('controller');
    expect(input.at).toBe('2026-01-02T03:04:05.000Z');
    expect(input.clusters.map((c) => c.metadata.name)).toEqual(['member1']);
    expect(input.bindings.map((b) => `${b.metadata.namespace}/${b.metadata.name}`)).toEqual(['shop/web-deployment']);
    expect(input.templates.map((t: KObject) => `${t.kind} ${t.metadata.namespace}/${t.metadata.name}`)).toEqual(['Deployment shop/web']);
    expect(input.policies?.map((p) => p.metadata.name)).toEqual(['web']);
    expect(input.works).toHaveLength(1);
    expect(input.works[0]).toMatchObject({ cluster: 'member1', namespace: 'karmada-es-member1', name: 'web-abc', binding: 'shop/web-deployment', dispatch: 'suspended' });
    expect(input.works[0]!.manifest?.spec).toEqual({ replicas: 2 });
  });

  it("gives the scheduler's reason for a cluster a binding is not on, as plan does", () => {
    const s = caches();
    s.create({
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'member2' },
      spec: { syncMode: 'Push' },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', message: '', lastTransitionTime: AT.toISOString() }], apiEnablements: [{ groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] }] },
    });
    const b = s.get({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding' }, 'shop', 'web-deployment')!;
    s.update({ ...b, spec: { ...b.spec, placement: { clusterAffinity: { clusterNames: ['member1'] } } } });
    const input = fleetInputOfCaches(s, AT);
    expect(input.absent).toEqual([expect.objectContaining({ binding: 'shop/web-deployment', cluster: 'member2', kind: 'filtered' })]);
    expect(input.absent![0]!.reason).toMatch(/^ClusterAffinity: /);
    const feed = new CacheFeed(() => AT);
    feed.attach(s);
    const model = feed.model();
    const cell = model.rows[0]!.cells.find((c) => c.cluster === 'member2')!;
    expect(cell.state).toBe('absent');
    expect(model.reasons[cell.reason!]).toBe(`filtered out: ${input.absent![0]!.reason}`);
  });

  it('is an empty fleet before the caches exist (a standby replica)', () => {
    const input = fleetInputOfCaches(undefined, AT);
    expect(input).toMatchObject({ clusters: [], bindings: [], works: [], templates: [], events: [], source: 'controller' });
  });
});

describe('CacheFeed', () => {
  it('signals a change for every host event and on attach, not for member-cluster events', () => {
    const s = caches();
    const feed = new CacheFeed(() => AT);
    let changes = 0;
    feed.subscribe(() => changes++);
    expect(feed.attached).toBe(false);
    feed.attach(s);
    expect(feed.attached).toBe(true);
    expect(changes).toBe(1);
    s.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' } }, 'member1');
    expect(changes).toBe(1);
    const w = s.get({ apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work' }, 'karmada-es-member1', 'web-abc')!;
    s.update({ ...w, spec: { ...w.spec, suspendDispatching: false } });
    expect(changes).toBe(2);
    feed.stop();
    s.update({ ...s.get({ apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work' }, 'karmada-es-member1', 'web-abc')!, spec: { suspendDispatching: true } });
    expect(changes).toBe(2);
  });
});
