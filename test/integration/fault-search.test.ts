// The fault matrix, karmada-search (issue 33): the search server behind the real host's aggregation layer, as
// search-cache.test.ts runs it, and beside it the real controller, whose cluster status controller writes the
// Clusters' Ready condition as in a deployment. member1 is joined as `faulty` through a FaultProxy, member2 is
// healthy; a ResourceRegistry caches both clusters' ConfigMaps of the suite's namespace. What a user sees:
// lists keep answering at once from the cache; the member that stops answering is named in a Warning while its
// objects are shown as last seen, then, once the controller calls it not Ready, left out of the cache as
// Karmada's search does, and named as missing (a proxy get of its object is NotFound with that Warning); when
// it answers again it is listed again, with what changed on it meanwhile.
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CacheSourceAnnotation } from '../../src/api/constants.js';
import { kubeConfigUpstream, readAll, roundTrip } from '../../src/apiserver/upstream.js';
import { startSearch, type Search } from '../../src/search/search.js';
import { serveAggregated, type Aggregated } from './aggregated-env.js';
import { cluster, kubeConfig, waitFor } from './env.js';
import { clusterReady, freeze, joinThroughProxy, proxyFor, type FaultProxy } from './faults.js';
import { diagnose, get, ignoreConflict, prepareHost, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const SUFFIX = Date.now().toString(36);
const NS = `fault-search-${SUFFIX}`;
const REGISTRY = `fault-search-${SUFFIX}`;
const FAULTY = 'faulty';
const SEARCH = '/apis/search.karmada.io/v1alpha1/search/cache';
const PROXY = '/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy';
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const host = rest('host');
const members = { member1: rest('member1'), member2: rest('member2') };

let ctrl: Proc | undefined;
let proxy: FaultProxy;
let leave: (() => Promise<void>) | undefined;
let aggregated: Aggregated | undefined;
let search: Search | undefined;
let heal: (() => void) | undefined;

interface Answer {
  status: number;
  json: any;
  res: IncomingMessage;
  ms: number;
}

/** A request to the host apiserver as its admin, timed. */
async function viaHost(method: string, p: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const text = body === undefined ? undefined : JSON.stringify(body);
  if (text) headers['content-type'] = 'application/json';
  const t0 = Date.now();
  const res = await roundTrip(await kubeConfigUpstream(kubeConfig('host')).options(method, p, headers), text);
  const out = await readAll(res);
  let json: any;
  try {
    json = JSON.parse(out);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode ?? 0, json, res, ms: Date.now() - t0 };
}

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { v: '1' } });
/** The suite's ConfigMaps the search lists, as `cluster/name`, and the list's Warning header. */
async function listed(): Promise<{ names: string[]; warning: string; ms: number; status: number }> {
  const a = await viaHost('GET', `${SEARCH}/api/v1/namespaces/${NS}/configmaps`);
  const items = (a.json?.items ?? []) as any[];
  const names = items.filter((i) => i.metadata.name.startsWith('cm-')).map((i) => `${i.metadata.annotations?.[CacheSourceAnnotation]}/${i.metadata.name}`).sort();
  return { names, warning: String(a.res.headers.warning ?? ''), ms: a.ms, status: a.status };
}
const listedWhere = (what: string, pred: (l: Awaited<ReturnType<typeof listed>>) => boolean, timeoutMs = 60_000) =>
  waitFor(what, async () => {
    const l = await listed();
    return pred(l) ? l : undefined;
  }, timeoutMs);

describe('fault matrix: karmada-search with a member that stops answering', () => {
  beforeAll(async () => {
    await prepareHost(host, NS);
    proxy = await proxyFor(cluster('member1'));
    leave = await joinThroughProxy(host, FAULTY, proxy, 'member1');
    ctrl = await startController();
    for (const c of [FAULTY, 'member2']) await waitFor(`${c} Ready`, async () => ((await clusterReady(host, c)) === 'True' ? true : undefined), 60_000);
    for (const m of ['member1', 'member2'] as const) {
      await ignoreConflict(members[m].request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }));
      await members[m].request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: configMap(`cm-${m}`) });
    }
    search = await startSearch(kubeConfig('host'), { probeMs: 1_000, statusIntervalMs: 200 });
    aggregated = await serveAggregated(['search.karmada.io/v1alpha1'], search);
    const created = await viaHost('POST', '/apis/search.karmada.io/v1alpha1/resourceregistries', {
      apiVersion: 'search.karmada.io/v1alpha1',
      kind: 'ResourceRegistry',
      metadata: { name: REGISTRY },
      spec: { targetCluster: { clusterNames: [FAULTY, 'member2'] }, resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS }] },
    });
    expect(created.status).toBe(201);
    await listedWhere('both clusters\' ConfigMaps listed', (l) => l.names.join() === `${FAULTY}/cm-member1,member2/cm-member2` && !l.warning);
  }, scaled(240_000));

  afterAll(async () => {
    heal?.();
    proxy?.pass();
    await viaHost('DELETE', `/apis/search.karmada.io/v1alpha1/resourceregistries/${REGISTRY}`).catch(() => undefined);
    await aggregated?.stop();
    search?.close();
    await leave?.();
    await waitFor(`${FAULTY} gone`, async () => ((await get(host, `${CLUSTERS}/${FAULTY}`)) === undefined ? true : undefined), 30_000).catch(() => undefined);
    const code = await stopController(ctrl);
    await proxy?.stop();
    for (const m of ['member1', 'member2'] as const) await members[m].request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
    await host.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-80).join('\n'));
  }, scaled(120_000));

  const cases = [
    ['freeze', 'apiserver frozen (SIGSTOP)'],
    ['blackhole', 'link blackholed'],
  ] as const;
  for (const [fault, what] of cases) {
    it(`${what}: lists and proxy gets answer at once, the member named stale, then left out and named missing once not Ready; back, it is listed again with what changed meanwhile`, async () => {
      const late = `cm-late-${fault}`;
      try {
        await listedWhere(`${FAULTY} listed, no warning`, (l) => l.names.includes(`${FAULTY}/cm-member1`) && !l.warning);
        const t0 = Date.now();
        if (fault === 'freeze') heal = freeze(cluster('member1'));
        else {
          proxy.set({ mode: 'blackhole' });
          heal = () => proxy.pass();
        }
        // First the search's own probe: the member's objects as last seen, and a Warning naming it.
        const stale = await listedWhere(`a Warning naming ${FAULTY}`, (l) => l.warning.includes(`cluster ${FAULTY} is`), 60_000);
        const staleMs = Date.now() - t0;
        expect(stale.status).toBe(200);
        expect(stale.warning).toMatch(new RegExp(`299 karmada-search "cluster ${FAULTY} is stale since \\S+: its ConfigMap objects are as last seen`));
        expect(stale.names).toContain('member2/cm-member2');
        const proxiedStale = await viaHost('GET', `${PROXY}/api/v1/namespaces/${NS}/configmaps/cm-member1`);
        // Then the controller's probe: not Ready after its timeout, and the search leaves the member out.
        await waitFor(`${FAULTY} not Ready`, async () => ((await clusterReady(host, FAULTY)) === 'False' ? true : undefined), 60_000);
        const notReadyMs = Date.now() - t0;
        const out = await listedWhere(`${FAULTY} left out of the list`, (l) => !l.names.some((n) => n.startsWith(`${FAULTY}/`)), 60_000);
        const outMs = Date.now() - t0;
        expect(out.status).toBe(200);
        expect(out.names).toEqual(['member2/cm-member2']);
        // Left out, not silently: the list still names it.
        expect(out.warning).toBe(`299 karmada-search "cluster ${FAULTY} is missing: none of its ConfigMap objects are listed (cluster is not Ready)"`);
        // The proxy: a get of the member's object is answered from the cache as last seen, then NotFound, saying why.
        expect(proxiedStale.status).toBe(200);
        expect(proxiedStale.json.metadata.name).toBe('cm-member1');
        expect(String(proxiedStale.res.headers.warning)).toContain(`cluster ${FAULTY} is stale since`);
        const proxiedOut = await viaHost('GET', `${PROXY}/api/v1/namespaces/${NS}/configmaps/cm-member1`);
        expect(proxiedOut.status).toBe(404);
        expect(proxiedOut.res.headers.warning).toBe(out.warning);
        // Every list meanwhile answered from the cache, without waiting for the member.
        const timings: number[] = [];
        for (let i = 0; i < 5; i++) timings.push((await listed()).ms);
        expect(Math.max(...timings)).toBeLessThan(2_000);
        const registry = await waitFor('the registry status naming the member', async () => {
          const r = await viaHost('GET', `/apis/search.karmada.io/v1alpha1/resourceregistries/${REGISTRY}`);
          const c = ((r.json?.status?.conditions ?? []) as any[]).find((x) => x.type === 'Cached');
          return c?.status === 'False' && String(c.message).includes(`${FAULTY}: cluster is not Ready`) ? c : undefined;
        });
        expect(registry).toMatchObject({ reason: 'PartiallyCached' });

        // A change the member takes meanwhile (a blackholed link leaves the apiserver itself answering).
        if (fault === 'blackhole') await members.member1.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: configMap(late) });
        const t1 = Date.now();
        heal();
        heal = undefined;
        if (fault === 'freeze') await members.member1.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: configMap(late) });
        const back = await listedWhere(`${FAULTY} listed again with ${late}, no warning`, (l) => l.names.includes(`${FAULTY}/${late}`) && l.names.includes(`${FAULTY}/cm-member1`) && !l.warning, 60_000);
        const backMs = Date.now() - t1;
        expect(back.names).toEqual([`${FAULTY}/cm-member1`, `${FAULTY}/${late}`, 'member2/cm-member2'].sort());
        console.log(
          `search: ${fault}: Warning after ${staleMs} ms, ${FAULTY} not Ready after ${notReadyMs} ms, left out after ${outMs} ms; lists meanwhile ${Math.min(...timings)}-${Math.max(...timings)} ms; listed again ${backMs} ms after the heal`,
        );
      } catch (e) {
        console.error(await diagnose(ctrl));
        throw e;
      } finally {
        heal?.();
        heal = undefined;
        await members.member1.request('DELETE', `/api/v1/namespaces/${NS}/configmaps/${late}`).catch(() => undefined);
      }
    }, scaled(180_000));
  }
});
