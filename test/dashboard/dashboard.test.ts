import { afterEach, describe, expect, it } from 'vitest';
import { dashboardTitle, startDashboard, type Dashboard } from '../../src/dashboard/dashboard.js';
import type { FleetEvent, FleetModel, FleetRowDetail } from '../../src/report/model.js';
import { openStream } from './sse-client.js';
import { waitFor } from '../integration/k8s-env.js';
import { EmbeddedStore } from '../../src/store/embedded.js';

let served: Dashboard | undefined;
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

describe('startDashboard', () => {
  it("serves the report's page live from the caches it is given, naming the replica and whether it leads", async () => {
    let leader = false;
    served = await startDashboard({ port: 0, identity: 'pod-a', isLeader: () => leader });
    const url = `http://127.0.0.1:${served.address.port}`;
    const before = await (await fetch(`${url}/`)).text();
    expect(before).toContain(dashboardTitle('pod-a', false, false));
    expect(((await (await fetch(`${url}/model.json`)).json()) as FleetModel).rows).toEqual([]);

    const store = new EmbeddedStore();
    store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'member1' } });
    store.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 1 } });
    store.create({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', metadata: { name: 'web-deployment', namespace: 'shop' }, spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' } } });
    leader = true;
    served.feed.attach(store);
    const page = await (await fetch(`${url}/`)).text();
    expect(page).toContain('karmada-lite dashboard — replica pod-a, leader: yes');
    expect(page).not.toContain('standby');
    // the stream is relative to the page, so a proxy path prefix keeps working
    expect(page).toContain('"streamUrl":"events"');
    const model = (await (await fetch(`${url}/model.json`)).json()) as FleetModel;
    expect(model.source).toBe('controller');
    expect(model.clusters).toEqual(['member1']);
    expect(model.rows.map((r) => `${r.namespace}/${r.name}`)).toEqual(['shop/web']);
  });

  it('updates the leader flag in the heading live: the stream carries the title, and leading (caches filled) pushes a model', async () => {
    let leader = false;
    served = await startDashboard({ port: 0, identity: 'pod-b', isLeader: () => leader });
    const url = `http://127.0.0.1:${served.address.port}`;
    const s = openStream(`${url}/events`);
    try {
      await waitFor('the first model', async () => s.messages.length > 0 || undefined, 10_000, 5);
      expect((JSON.parse(s.messages[0]!.data) as FleetModel).title).toBe(dashboardTitle('pod-b', false, false));
      const store = new EmbeddedStore();
      store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'member1' } });
      leader = true;
      served.feed.attach(store);
      await waitFor('a model from the leader', async () => s.messages.some((m) => (JSON.parse(m.data) as FleetModel).title === dashboardTitle('pod-b', true, true)) || undefined, 10_000, 5);
    } finally {
      s.close();
    }
  });

  it("answers a row's detail and the events on demand, from the same caches", async () => {
    served = await startDashboard({ port: 0, identity: 'pod-c', isLeader: () => true });
    const url = `http://127.0.0.1:${served.address.port}`;
    const store = new EmbeddedStore();
    store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'member1' } });
    store.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 1 } });
    store.create({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', metadata: { name: 'web-deployment', namespace: 'shop' }, spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' } } });
    served.feed.attach(store);
    const d = (await (await fetch(`${url}/detail?row=${encodeURIComponent('Deployment/shop/web')}`)).json()) as FleetRowDetail;
    expect(d.key).toBe('Deployment/shop/web');
    expect(d.bindingObject?.metadata.name).toBe('web-deployment');
    expect((await fetch(`${url}/detail?row=${encodeURIComponent('Deployment/shop/other')}`)).status).toBe(404);
    expect((await (await fetch(`${url}/timeline.json`)).json()) as FleetEvent[]).toEqual([]);
    // the matrix itself carries no detail
    const model = (await (await fetch(`${url}/model.json`)).json()) as FleetModel & { rows: Array<Record<string, unknown>> };
    expect(model.rows[0]).not.toHaveProperty('works');
  });
});
