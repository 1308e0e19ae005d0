import { afterEach, describe, expect, it } from 'vitest';
import { dashboardTitle, startDashboard, type Dashboard } from '../../src/dashboard/dashboard.js';
import type { FleetModel } from '../../src/report/model.js';
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
});
