// The fault matrix, delay mode (issue 33): member1 joined as `slow` through a FaultProxy that holds every chunk,
// either way, for a while, and member2 healthy. Propagation converges through a slow link, only later, and the
// member stays Ready: each request of a probe (readiness, access, discovery, version) has 5 s of its own, so a
// slow round trip is slow, not an outage. Every
// version of the member copies is recorded by a watch on the members themselves (not through the proxy), so a
// write the controller repeated because an answer was late would show as an extra version on member1 that
// member2 lacks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cluster, waitFor } from './env.js';
import { clusterReady, joinThroughProxy, proxyFor, type FaultProxy } from './faults.js';
import { diagnose, edit, get, prepareHost, recordVersions, rest, startController, stopController, type Proc, type VersionRecord } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `fault-delay-${Date.now().toString(36)}`;
const SLOW = 'slow';
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const host = rest('host');
const cmPath = (name: string) => `/api/v1/namespaces/${NS}/configmaps/${name}`;
const ppPath = (name: string) => `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${name}`;

let ctrl: Proc | undefined;
let proxy: FaultProxy;
let leave: (() => Promise<void>) | undefined;
const created: string[] = [];

const readyOf = (c: any) => ((c?.status?.conditions ?? []) as any[]).find((x) => x.type === 'Ready');
/** The controller's probes of `name` so far: how many, and their total seconds (cluster_sync_status_duration_seconds). */
async function probes(name: string): Promise<{ count: number; sum: number }> {
  const text = await (await fetch(`http://127.0.0.1:${ctrl!.port}/metrics`)).text();
  const value = (suffix: string) => Number(text.split('\n').find((l) => l.startsWith(`cluster_sync_status_duration_seconds_${suffix}{member_cluster="${name}"}`))?.split(' ').pop() ?? 0);
  return { count: value('count'), sum: value('sum') };
}
const dataOn = async (m: 'member1' | 'member2', name: string): Promise<string | undefined> => (await get(rest(m), cmPath(name)))?.data?.v;

describe('fault matrix: a member link delayed', () => {
  beforeAll(async () => {
    await prepareHost(host, NS);
    for (const m of ['member1', 'member2'] as const) await rest(m).request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }).catch(() => undefined);
    proxy = await proxyFor(cluster('member1'));
    leave = await joinThroughProxy(host, SLOW, proxy, 'member1');
    ctrl = await startController(['--cluster-failure-threshold', '3s']);
    await waitFor(`${SLOW} Ready`, async () => ((await clusterReady(host, SLOW)) === 'True' ? true : undefined), 60_000);
  }, scaled(180_000));

  afterAll(async () => {
    proxy?.pass();
    for (const n of created) {
      await host.request('DELETE', cmPath(n)).catch(() => undefined);
      await host.request('DELETE', ppPath(n)).catch(() => undefined);
    }
    await leave?.();
    await waitFor(`${SLOW} gone`, async () => ((await get(host, `${CLUSTERS}/${SLOW}`)) === undefined ? true : undefined), 30_000).catch(() => undefined);
    const code = await stopController(ctrl);
    await proxy?.stop();
    for (const m of ['member1', 'member2'] as const) await rest(m).request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
    await host.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-80).join('\n'));
  }, scaled(120_000));

  /** A ConfigMap created, then changed, through the slow link; resolves with how long each took to reach it. */
  async function propagateThrough(name: string, records: Record<'member1' | 'member2', VersionRecord>): Promise<{ onHealthy: number; created: number; changed: number }> {
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
      body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', name }], placement: { clusterAffinity: { clusterNames: [SLOW, 'member2'] } } } },
    });
    const t1 = Date.now();
    await host.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { v: '1' } } });
    await waitFor(`${name} on member2`, async () => ((await dataOn('member2', name)) === '1' ? true : undefined));
    const onHealthy = Date.now() - t1;
    await waitFor(`${name} on ${SLOW}`, async () => ((await dataOn('member1', name)) === '1' ? true : undefined), 60_000);
    const created = Date.now() - t1;
    const t2 = Date.now();
    await edit(host, cmPath(name), (o) => (o.data.v = '2'));
    await waitFor(`${name} v2 on ${SLOW}`, async () => ((await dataOn('member1', name)) === '2' ? true : undefined), 60_000);
    const changed = Date.now() - t2;
    await waitFor(`${name} v2 on member2`, async () => ((await dataOn('member2', name)) === '2' ? true : undefined));
    // The Work reports Applied for the slow member, as for the healthy one.
    await waitFor(`the Work for ${SLOW} Applied`, async () => {
      const works = (await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${SLOW}/works`)).items as any[];
      const w = works.find((x) => x.metadata.annotations?.['resourcebinding.karmada.io/name'] === `${name}-configmap`);
      return ((w?.status?.conditions ?? []) as any[]).find((c) => c.type === 'Applied')?.status === 'True' ? true : undefined;
    }, 60_000);
    // Nothing more to write: what each member holds is what the controller wrote, once per change, on one object.
    await waitFor('both watches caught up', async () => (records.member1.versions.at(-1)?.data?.v === '2' && records.member2.versions.at(-1)?.data?.v === '2' ? true : undefined));
    expect([...new Set(records.member1.versions.map((o) => o.data?.v))]).toEqual(['1', '2']);
    expect(new Set(records.member1.versions.map((o) => o.metadata.uid)).size).toBe(1);
    expect(records.member1.versions.length).toBe(records.member2.versions.length);
    return { onHealthy, created, changed };
  }

  /** Runs `fn` with the link delayed `delayMs` each way, the member copies' versions recorded; the link passes again after. */
  async function withDelay(name: string, delayMs: number, fn: (records: Record<'member1' | 'member2', VersionRecord>) => Promise<void>): Promise<void> {
    created.push(name);
    const records = { member1: recordVersions(rest('member1'), `/api/v1/namespaces/${NS}/configmaps`, name), member2: recordVersions(rest('member2'), `/api/v1/namespaces/${NS}/configmaps`, name) };
    try {
      await waitFor(`${SLOW} Ready`, async () => ((await clusterReady(host, SLOW)) === 'True' ? true : undefined), 60_000);
      proxy.set({ mode: 'delay', delayMs });
      await fn(records);
    } catch (e) {
      console.error(await diagnose(ctrl));
      console.error(JSON.stringify({ member1: records.member1.versions.map((o) => [o.metadata.resourceVersion, o.data]), member2: records.member2.versions.map((o) => [o.metadata.resourceVersion, o.data]) }));
      throw e;
    } finally {
      proxy.pass();
      records.member1.stop();
      records.member2.stop();
    }
  }

  /** The link delayed `delayMs` each way: Ready throughout, every probe answered in time; a new object and a change converge. */
  async function staysReady(name: string, delayMs: number): Promise<void> {
    const clusterVersions = recordVersions(host, CLUSTERS, SLOW);
    try {
      await withDelay(name, delayMs, async (records) => {
        const before = await probes(SLOW);
        const t = await propagateThrough(name, records);
        // A few probes more through the slow link, each of them answered in time.
        await waitFor('3 probes through the slow link', async () => ((await probes(SLOW)).count - before.count >= 3 ? true : undefined), 60_000);
        const after = await probes(SLOW);
        const meanProbe = (after.sum - before.sum) / (after.count - before.count);
        // Each probe waited for the slow link: a round trip at least.
        expect(meanProbe).toBeGreaterThanOrEqual((2 * delayMs) / 1000);
        expect(clusterVersions.versions.filter((c) => readyOf(c)?.status !== 'True')).toEqual([]);
        expect(await clusterReady(host, SLOW)).toBe('True');
        console.log(`delay ${delayMs} ms each way: created on member2 in ${t.onHealthy} ms, on ${SLOW} in ${t.created} ms, change on ${SLOW} in ${t.changed} ms; ${after.count - before.count} probes, ${meanProbe.toFixed(2)} s each on average, Ready throughout`);
      });
    } finally {
      clusterVersions.stop();
    }
  }

  it('100 ms each way: the member stays Ready; a new object and a change reach it, written as often as on the healthy member', () => staysReady('slightly-slow', 100), scaled(180_000));

  it('1 s each way: still Ready (each request of a probe has 5 s of its own, a probe as a whole may take longer); propagation converges, written once', () => staysReady('very-slow', 1_000), scaled(240_000));
});
