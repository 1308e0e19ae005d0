// karmada-search behind the real host kube-apiserver's aggregation layer: every request goes through the
// host, as kubectl's would. member1 and member2 registered, a ResourceRegistry applied through the host,
// Deployments and Pods made on the members; the search API lists both clusters' objects with the
// cached-from-cluster annotation, a proxy watch sees a member-side change, and a member that stops
// answering leaves the other's objects listable with a Warning naming it.
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CacheSourceAnnotation } from '../../src/api/constants.js';
import { kubeConfigUpstream, readAll, roundTrip } from '../../src/apiserver/upstream.js';
import { decodeMultiClusterRV } from '../../src/search/encoding.js';
import { startSearch, type Search } from '../../src/search/search.js';
import { serveAggregated, type Aggregated } from './aggregated-env.js';
import { cluster, kubeConfig, waitFor } from './env.js';
import { get, ignoreConflict, installCrds, registerMembers, rest } from './harness.js';
import { itWithFleet } from './fleet.js';

const SUFFIX = Date.now().toString(36);
const NS = `search-e2e-${SUFFIX}`;
const REGISTRY = `search-e2e-${SUFFIX}`;
const SEARCH = '/apis/search.karmada.io/v1alpha1/search/cache';
const PROXY = '/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy';

const host = rest('host');
const members = { member1: rest('member1'), member2: rest('member2') };
const member2Pid = () => Number(readFileSync(cluster('member2').pidFile, 'utf8').trim());
let aggregated: Aggregated | undefined;
let search: Search | undefined;

interface Answer {
  status: number;
  text: string;
  json: any;
  res: IncomingMessage;
}

/** A request to the host apiserver as its admin. */
async function viaHost(method: string, p: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const text = body === undefined ? undefined : JSON.stringify(body);
  if (text) headers['content-type'] = 'application/json';
  const res = await roundTrip(await kubeConfigUpstream(kubeConfig('host')).options(method, p, headers), text);
  const out = await readAll(res);
  let json: any;
  try {
    json = JSON.parse(out);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode ?? 0, text: out, json, res };
}

/** No controller runs here: the Clusters are marked Ready by hand, as the cluster controller would. */
async function markReady(name: string): Promise<void> {
  const c = await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${name}`);
  await host.request('PUT', `/apis/cluster.karmada.io/v1alpha1/clusters/${name}/status`, {
    body: { ...c, status: { ...(c.status ?? {}), conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', message: 'cluster is healthy and ready to accept workloads', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] } },
  });
}

const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: NS, labels: { app: name } },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } },
});
const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } });

beforeAll(async () => {
  await installCrds(host);
  await registerMembers(host);
  for (const m of ['member1', 'member2'] as const) {
    await markReady(m);
    await ignoreConflict(members[m].request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }));
    await members[m].request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, { body: deployment(`web-${m}`) });
    await members[m].request('POST', `/api/v1/namespaces/${NS}/pods`, { body: pod(`pod-${m}`) });
  }
  search = await startSearch(kubeConfig('host'), { probeMs: 1_000, statusIntervalMs: 200 });
  aggregated = await serveAggregated(['search.karmada.io/v1alpha1'], search);
  const created = await viaHost('POST', '/apis/search.karmada.io/v1alpha1/resourceregistries', {
    apiVersion: 'search.karmada.io/v1alpha1',
    kind: 'ResourceRegistry',
    metadata: { name: REGISTRY },
    spec: { targetCluster: { clusterNames: ['member1', 'member2'] }, resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }, { apiVersion: 'v1', kind: 'Pod', namespace: NS }] },
  });
  expect(created.status, created.text).toBe(201);
  expect(created.json.apiVersion).toBe('search.karmada.io/v1alpha1');
});

afterAll(async () => {
  try {
    process.kill(member2Pid(), 'SIGCONT');
  } catch {}
  await viaHost('DELETE', `/apis/search.karmada.io/v1alpha1/resourceregistries/${REGISTRY}`).catch(() => undefined);
  await aggregated?.stop();
  search?.close();
  for (const m of ['member1', 'member2'] as const) await members[m].request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
});

const inNs = (items: any[]) => items.filter((i) => i.metadata.namespace === NS);

describe('karmada-search through the host aggregator', () => {
  it('lists both clusters\' Deployments and Pods from the search cache, each with its cluster annotation', async () => {
    const list = await waitFor('both clusters\' Deployments in the search cache', async () => {
      const r = await viaHost('GET', `${SEARCH}/apis/apps/v1/deployments`);
      return r.status === 200 && inNs(r.json.items).length === 2 ? r : undefined;
    }, 60_000);
    expect(list.json).toMatchObject({ kind: 'DeploymentList', apiVersion: 'apps/v1' });
    expect(inNs(list.json.items).map((i: any) => `${i.metadata.annotations[CacheSourceAnnotation]}/${i.metadata.name}`).sort()).toEqual(['member1/web-member1', 'member2/web-member2']);
    const pods = await viaHost('GET', `${SEARCH}/api/v1/namespaces/${NS}/pods`);
    // the Pods this suite created (on the kwok fleet, the Deployments' own Pods are there too)
    expect(pods.json.items.filter((i: any) => i.metadata.name.startsWith('pod-')).map((i: any) => i.metadata.annotations[CacheSourceAnnotation]).sort()).toEqual(['member1', 'member2']);
    const selected = await viaHost('GET', `${SEARCH}/apis/apps/v1/deployments?labelSelector=app%3Dweb-member2`);
    expect(selected.json.items.map((i: any) => i.metadata.name)).toEqual(['web-member2']);
  });

  itWithFleet('sees the Pods the members\' own controllers made for their Deployments, Running', async () => {
    for (const m of ['member1', 'member2'] as const) {
      const running = await waitFor(`the Pod of web-${m} Running in the search cache`, async () => {
        const r = await viaHost('GET', `${SEARCH}/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb-${m}`);
        const items = (r.json?.items ?? []) as any[];
        return items.length === 1 && items[0].status?.phase === 'Running' ? items : undefined;
      }, 60_000);
      expect(running[0].metadata.annotations[CacheSourceAnnotation]).toBe(m);
      expect(running[0].metadata.ownerReferences?.[0]?.kind).toBe('ReplicaSet');
    }
  });

  it('says in the registry\'s status what is cached', async () => {
    const r = await waitFor('the Cached condition', async () => {
      const g = await viaHost('GET', `/apis/search.karmada.io/v1alpha1/resourceregistries/${REGISTRY}`);
      return g.json?.status?.conditions?.find((c: any) => c.type === 'Cached' && c.status === 'True') ? g : undefined;
    }, 60_000);
    expect(r.json.status.conditions[0].message).toContain('member1, member2');
  });

  it('a proxy watch through the host sees a member-side change, with the multi-cluster resourceVersion', async () => {
    const o = await kubeConfigUpstream(kubeConfig('host')).options('GET', `${PROXY}/apis/apps/v1/namespaces/${NS}/deployments?watch=true&timeoutSeconds=60`, { accept: 'application/json' });
    const event = await new Promise<any>((resolve, reject) => {
      const req = httpsRequest(o, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`watch answered ${res.statusCode}`));
        let buf = '';
        let changed = false;
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          for (const line of buf.split('\n').slice(0, -1)) {
            const ev = JSON.parse(line);
            if (ev.type === 'MODIFIED' && ev.object?.metadata?.labels?.changed === 'yes') {
              resolve(ev);
              req.destroy();
            }
            // the watch starts with the current objects: once they came, the change is made
            if (!changed && ev.type === 'ADDED') {
              changed = true;
              void members.member1.request('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/web-member1`, { contentType: 'application/merge-patch+json', body: { metadata: { labels: { changed: 'yes' } } } }).catch(reject);
            }
          }
          buf = buf.slice(buf.lastIndexOf('\n') + 1);
        });
      });
      req.on('error', (e) => (e.message.includes('aborted') || e.message.includes('socket hang up') ? undefined : reject(e)));
      req.end();
    });
    expect(event.object.metadata.annotations[CacheSourceAnnotation]).toBe('member1');
    expect(decodeMultiClusterRV(event.object.metadata.resourceVersion).byCluster.has('member1')).toBe(true);
  });

  it('keeps member1 listable while member2\'s apiserver does not answer, with a Warning naming member2', async () => {
    process.kill(member2Pid(), 'SIGSTOP');
    try {
      const r = await waitFor('the stale warning for member2', async () => {
        const a = await viaHost('GET', `${SEARCH}/apis/apps/v1/deployments`);
        return String(a.res.headers.warning ?? '').includes('member2') ? a : undefined;
      }, 60_000);
      expect(r.status).toBe(200);
      expect(String(r.res.headers.warning)).toMatch(/cluster member2 is stale/);
      expect(inNs(r.json.items).map((i: any) => i.metadata.name)).toContain('web-member1');
      const proxied = await viaHost('GET', `${PROXY}/apis/apps/v1/namespaces/${NS}/deployments/web-member1`);
      expect(proxied.status, proxied.text).toBe(200);
    } finally {
      process.kill(member2Pid(), 'SIGCONT');
    }
  });
});
