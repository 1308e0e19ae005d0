// The aggregated apiserver behind the real host kube-apiserver's aggregation layer (scripts/k8s/env.sh sets up
// the front proxy): every request goes through the host, as kubectl's would. The cluster proxy reaches the
// member as the caller; Clusters are served from the CRD's storage version; deleting the APIService gives
// v1alpha1 back to the CRD with the same objects (the way back of the migration).
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { createAggregatedApi } from '../../src/apiserver/setup.js';
import type { AggregatedServer } from '../../src/apiserver/server.js';
import { CLUSTER_STORAGE_VERSION } from '../../src/apiserver/cluster-storage.js';
import { kubeConfigUpstream, readAll, roundTrip } from '../../src/apiserver/upstream.js';
import { createLogger } from '../../src/runtime/log.js';
import { k8sEnv, kubeConfig, repoRoot, waitFor } from './env.js';
import { freePort, get, ignoreConflict, installCrds, registerMembers, rest } from './harness.js';
import { installApiService, uninstallApiService } from './aggregated-harness.js';

const SUFFIX = Date.now().toString(36);
const MARKER_NS = `aggregated-marker-${SUFFIX}`;
const STRANGER = `stranger-${SUFFIX}`; // no RBAC on the host at all
const PROXY_USER = `proxy-user-${SUFFIX}`; // clusters/proxy on member1 on the host, nothing on the member
const ROLE = `aggregated-e2e-${SUFFIX}`;
const PROXY = '/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy';

const host = rest('host');
const member1 = rest('member1');
const pki = path.join(k8sEnv().dir, 'host', 'pki');
let server: AggregatedServer | undefined;
let port = 0;

interface Answer {
  status: number;
  text: string;
  json: any;
  res: IncomingMessage;
}

/** A request to the host apiserver as its admin, optionally impersonating someone (as `kubectl --as`). */
async function viaHost(method: string, p: string, opts: { as?: string; groups?: string[]; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string | string[]> = { accept: 'application/json', ...opts.headers };
  if (opts.as) headers['Impersonate-User'] = opts.as;
  if (opts.groups) headers['Impersonate-Group'] = opts.groups;
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  if (body) headers['content-type'] = 'application/json';
  const res = await roundTrip(await kubeConfigUpstream(kubeConfig('host')).options(method, p, headers), body);
  const text = await readAll(res);
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode ?? 0, text, json, res };
}

const RBAC_KINDS = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];
const rbacPath = (d: any) =>
  d.kind === 'ServiceAccount'
    ? `/api/v1/namespaces/${d.metadata.namespace}/serviceaccounts`
    : `/apis/rbac.authorization.k8s.io/v1/${d.metadata.namespace ? `namespaces/${d.metadata.namespace}/` : ''}${d.kind.toLowerCase()}s`;

/**
 * The server runs as the ServiceAccount of deploy/aggregated-api/aggregated-apiserver.yaml with exactly its
 * RBAC, so that every test below also proves the manifest grants enough (and the admin is never needed).
 */
async function serverKubeConfig(): Promise<KubeConfig> {
  const docs = parseAllDocuments(readFileSync(path.join(repoRoot, 'deploy', 'aggregated-api', 'aggregated-apiserver.yaml'), 'utf8'))
    .map((d) => d.toJS())
    .filter((d) => d && RBAC_KINDS.includes(d.kind));
  for (const d of docs) {
    const cur = await get(host, `${rbacPath(d)}/${d.metadata.name}`);
    if (cur) await host.request('PUT', `${rbacPath(d)}/${d.metadata.name}`, { body: { ...d, metadata: { ...d.metadata, resourceVersion: cur.metadata.resourceVersion } } });
    else await host.request('POST', rbacPath(d), { body: d });
  }
  const sa = docs.find((d) => d.kind === 'ServiceAccount');
  const tr = await host.request('POST', `/api/v1/namespaces/${sa.metadata.namespace}/serviceaccounts/${sa.metadata.name}/token`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'host', server: kubeConfig('host').getCurrentCluster()!.server, caData: readFileSync(path.join(pki, 'ca.crt')).toString('base64') }],
    users: [{ name: 'sa', token: tr.status.token }],
    contexts: [{ name: 'sa', cluster: 'host', user: 'sa' }],
    currentContext: 'sa',
  });
  return kc;
}

beforeAll(async () => {
  await installCrds(host);
  await registerMembers(host);
  await ignoreConflict(member1.request('POST', '/api/v1/namespaces', { body: { metadata: { name: MARKER_NS } } }));
  // PROXY_USER may use the proxy of member1 on the host; the member grants it nothing
  await host.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    body: { metadata: { name: ROLE }, rules: [{ apiGroups: ['cluster.karmada.io'], resources: ['clusters/proxy'], resourceNames: ['member1'], verbs: ['*'] }] },
  });
  await host.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    body: { metadata: { name: ROLE }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: ROLE }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: PROXY_USER }] },
  });
  port = await freePort();
  server = await createAggregatedApi(await serverKubeConfig(), {
    certFile: path.join(pki, 'aggregated-serving.crt'),
    keyFile: path.join(pki, 'aggregated-serving.key'),
    port,
    bindAddress: '127.0.0.1',
    allowTtlMs: 10_000,
    denyTtlMs: 10_000,
    logger: createLogger({ level: 'error' }),
  });
  await server.start();
  await installApiService(port);
});

afterAll(async () => {
  await uninstallApiService();
  await server?.stop();
  await host.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${ROLE}`).catch(() => undefined);
  await host.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${ROLE}`).catch(() => undefined);
  await member1.request('DELETE', `/api/v1/namespaces/${MARKER_NS}`).catch(() => undefined);
});

describe('the cluster proxy through the host aggregator', () => {
  it("answers GET .../clusters/member1/proxy/api/v1/namespaces with the member's namespaces", async () => {
    const r = await viaHost('GET', `${PROXY}/api/v1/namespaces`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.kind).toBe('NamespaceList');
    expect(r.json.items.map((n: any) => n.metadata.name)).toContain(MARKER_NS);
    const m2 = await viaHost('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member2/proxy/api/v1/namespaces');
    expect(m2.json.items.map((n: any) => n.metadata.name)).not.toContain(MARKER_NS);
  });

  it('refuses a user without RBAC on the host with 403 in kubectl wording, and shows nothing of the member', async () => {
    const r = await viaHost('GET', `${PROXY}/api/v1/namespaces`, { as: STRANGER });
    expect(r.status, r.text).toBe(403);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(r.json.message).toContain(`User "${STRANGER}" cannot get resource "clusters/proxy" in API group "cluster.karmada.io"`);
    expect(r.text).not.toContain(MARKER_NS);
    const list = await viaHost('GET', '/apis/cluster.karmada.io/v1alpha1/clusters', { as: STRANGER });
    expect(list.status).toBe(403);
  });

  it("impersonates the caller on the member: the member's SelfSubjectReview names them, its RBAC refuses them", async () => {
    const review = await viaHost('POST', `${PROXY}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
      as: PROXY_USER,
      groups: ['team-a'],
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(review.status, review.text).toBe(201);
    expect(review.json.status.userInfo.username).toBe(PROXY_USER);
    expect(review.json.status.userInfo.groups).toContain('team-a');
    const r = await viaHost('GET', `${PROXY}/api/v1/namespaces`, { as: PROXY_USER });
    expect(r.status, r.text).toBe(403);
    expect(r.json.message).toContain(`User "${PROXY_USER}" cannot list resource "namespaces"`);
    // only member1 was granted on the host
    const other = await viaHost('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member2/proxy/api/v1/namespaces', { as: PROXY_USER });
    expect(other.status).toBe(403);
    expect(other.json.message).toContain('clusters/proxy');
  });

  it('streams a watch: a change on the member arrives while the request is open', async () => {
    const name = `watched-${SUFFIX}`;
    const o = await kubeConfigUpstream(kubeConfig('host')).options('GET', `${PROXY}/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=60`, { accept: 'application/json' });
    const seen = new Promise<any>((resolve, reject) => {
      const req = httpsRequest(o, (res) => {
        if (res.statusCode !== 200) reject(new Error(`watch through the proxy answered ${res.statusCode}`));
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          for (const line of buf.split('\n').slice(0, -1)) {
            const ev = JSON.parse(line);
            if (ev.object?.metadata?.name === name) {
              resolve(ev);
              req.destroy();
            }
          }
          buf = buf.slice(buf.lastIndexOf('\n') + 1);
        });
        // the watch is open once the headers came; only then is the change made
        void member1.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name }, data: { a: '1' } } }).catch(reject);
      });
      req.on('error', (e) => (e.message.includes('aborted') ? undefined : reject(e)));
      req.end();
    });
    const ev = await seen;
    expect(ev.type).toBe('ADDED');
    await member1.request('DELETE', `/api/v1/namespaces/default/configmaps/${name}`);
  });

  // A node selector no Node matches: the pod never gets a node, with a scheduler (the kwok fleet) or without.
  const NO_NODE = { 'karmada-lite.test/no-such-node': 'true' };

  it("returns the logs of a pod with no node, and of a pod that is not there, as the member's own answers", async () => {
    const pod = `no-node-${SUFFIX}`;
    await member1.request('POST', '/api/v1/namespaces/default/pods', { body: { metadata: { name: pod }, spec: { nodeSelector: NO_NODE, containers: [{ name: 'c', image: 'busybox' }] } } });
    try {
      for (const p of [`/api/v1/namespaces/default/pods/${pod}/log?follow=true`, `/api/v1/namespaces/default/pods/missing-${SUFFIX}/log?follow=true`]) {
        const direct = await roundTrip(await kubeConfigUpstream(kubeConfig('member1')).options('GET', p, { accept: 'application/json' }));
        const directText = await readAll(direct);
        const r = await viaHost('GET', `${PROXY}${p}`);
        expect(r.status, p).toBe(direct.statusCode);
        expect(r.text, p).toBe(directText);
      }
      // kube-apiserver 1.34 answers a pod with no node with an empty 204; a missing pod is its 404 Status
      const missing = await viaHost('GET', `${PROXY}/api/v1/namespaces/default/pods/missing-${SUFFIX}/log`);
      expect(missing.json).toMatchObject({ kind: 'Status', code: 404, message: `pods "missing-${SUFFIX}" not found` });
    } finally {
      await member1.request('DELETE', `/api/v1/namespaces/default/pods/${pod}`, { query: { gracePeriodSeconds: 0 } });
    }
  });

  it("passes an upgrade request (exec) through: the member's refusal comes back as it is", async () => {
    const pod = `exec-${SUFFIX}`;
    await member1.request('POST', '/api/v1/namespaces/default/pods', { body: { metadata: { name: pod }, spec: { nodeSelector: NO_NODE, containers: [{ name: 'c', image: 'busybox' }] } } });
    try {
      const o = await kubeConfigUpstream(kubeConfig('host')).options('POST', `${PROXY}/api/v1/namespaces/default/pods/${pod}/exec?command=ls&stdout=true`, {
        connection: 'Upgrade',
        upgrade: 'SPDY/3.1',
        'X-Stream-Protocol-Version': 'v4.channel.k8s.io',
      });
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = httpsRequest(o);
        req.on('response', (res) => void readAll(res).then((text) => resolve({ status: res.statusCode ?? 0, text })));
        req.on('upgrade', (res, socket) => {
          socket.destroy();
          resolve({ status: res.statusCode ?? 0, text: '' });
        });
        req.on('error', reject);
        req.end();
      });
      // the pod has no node: the member refuses the exec
      expect(answer.status, answer.text).toBe(400);
      expect(answer.text).toContain('does not have a host assigned');
    } finally {
      await member1.request('DELETE', `/api/v1/namespaces/default/pods/${pod}`, { query: { gracePeriodSeconds: 0 } });
    }
  });

  it('answers for all clusters at once under the name *: the one owner of a named object, joined lists, Karmada\'s refusals', async () => {
    const ALL = '/apis/cluster.karmada.io/v1alpha1/clusters/*/proxy';
    const clusters = (await viaHost('GET', '/apis/cluster.karmada.io/v1alpha1/clusters')).json.items as any[];
    const aliases = clusters.filter((c) => c.metadata.name !== 'member1' && c.spec.apiEndpoint === clusters.find((x) => x.metadata.name === 'member1')?.spec.apiEndpoint);
    expect(aliases.map((c) => c.metadata.name), "other Clusters point at member1's apiserver (left by another suite)").toEqual([]);
    const owned = await viaHost('GET', `${ALL}/api/v1/namespaces/${MARKER_NS}`);
    expect(owned.status, owned.text).toBe(200);
    expect(owned.json.metadata.name).toBe(MARKER_NS);
    const both = await viaHost('GET', `${ALL}/api/v1/namespaces/default`);
    expect(both.status, both.text).toBe(409);
    expect(both.text).toMatch(/^conflict resource, exist in more than one cluster: /);
    expect(both.text).toContain('member1');
    expect(both.text).toContain('member2');
    const list = await viaHost('GET', `${ALL}/api/v1/namespaces`);
    expect(list.status, list.text).toBe(200);
    const names = list.json.items.map((n: any) => n.metadata.name);
    expect(names).toContain(MARKER_NS);
    expect(names.filter((n: string) => n === 'default').length).toBeGreaterThanOrEqual(2);
    const missing = await viaHost('GET', `${ALL}/api/v1/namespaces/nowhere-${SUFFIX}`);
    expect(missing).toMatchObject({ status: 404, text: "resource not found or don't have permission to get it" });
    const watch = await viaHost('GET', `${ALL}/api/v1/namespaces?watch=true`);
    expect(watch).toMatchObject({ status: 405, text: 'Request verb watch is not support' });
    const version = await viaHost('GET', `${ALL}/version`);
    expect(version.status).toBe(200);
    expect(version.json.gitVersion).toMatch(/^v1\./);
  });

  it('answers 404 with Karmada\'s message for a cluster that does not exist', async () => {
    const r = await viaHost('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/nowhere/proxy/api');
    expect(r.status, r.text).toBe(404);
    expect(r.json.message).toBe('clusters.cluster.karmada.io "nowhere" not found');
  });
});

describe('straight to the server, around the host', () => {
  const direct = (opts: { cert?: Buffer; key?: Buffer }) =>
    new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port, path: `${PROXY}/api/v1/namespaces`, ca: readFileSync(path.join(pki, 'ca.crt')), headers: { 'X-Remote-User': 'system:admin', 'X-Remote-Group': 'system:masters' }, ...opts },
        (res) => (res.resume(), resolve(res.statusCode ?? 0)),
      );
      req.on('error', reject);
      req.end();
    });

  it('refuses a request without the front-proxy client certificate, whatever headers it sends', async () => {
    expect(await direct({})).toBe(401);
    // the host admin's certificate is signed by the host CA, not by the front-proxy CA
    expect(await direct({ cert: readFileSync(path.join(pki, 'admin.crt')), key: readFileSync(path.join(pki, 'admin.key')) })).toBe(401);
  });
});

describe('Clusters under the aggregated cluster.karmada.io/v1alpha1', () => {
  it('announces clusters, clusters/status and clusters/proxy in discovery through the host', async () => {
    const r = await viaHost('GET', '/apis/cluster.karmada.io/v1alpha1');
    expect(r.status, r.text).toBe(200);
    expect(r.json.resources.map((x: any) => x.name)).toEqual(expect.arrayContaining(['clusters', 'clusters/status', 'clusters/proxy']));
  });

  it('serves the Clusters of the CRD storage as v1alpha1, the same objects (uid) with no copy', async () => {
    const stored = await host.request('GET', `/apis/cluster.karmada.io/${CLUSTER_STORAGE_VERSION}/clusters/member1`);
    const r = await viaHost('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1');
    expect(r.status, r.text).toBe(200);
    expect(r.json.apiVersion).toBe('cluster.karmada.io/v1alpha1');
    expect(r.json.metadata.uid).toBe(stored.metadata.uid);
    const list = await viaHost('GET', '/apis/cluster.karmada.io/v1alpha1/clusters');
    expect(list.json.kind).toBe('ClusterList');
    expect(list.json.apiVersion).toBe('cluster.karmada.io/v1alpha1');
    expect(list.json.items.map((c: any) => c.metadata.name)).toEqual(expect.arrayContaining(['member1', 'member2']));
  });

  it('creates, updates the status of, watches and deletes a Cluster through the aggregated API', async () => {
    const name = `aggregated-${SUFFIX}`;
    const created = await viaHost('POST', '/apis/cluster.karmada.io/v1alpha1/clusters', {
      body: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: { apiEndpoint: 'https://127.0.0.1:1', syncMode: 'Push' } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.apiVersion).toBe('cluster.karmada.io/v1alpha1');
    const status = await viaHost('PUT', `/apis/cluster.karmada.io/v1alpha1/clusters/${name}/status`, {
      body: { ...created.json, status: { kubernetesVersion: 'v9.9.9' } },
    });
    expect(status.status, status.text).toBe(200);
    const stored = await host.request('GET', `/apis/cluster.karmada.io/${CLUSTER_STORAGE_VERSION}/clusters/${name}`);
    expect(stored.status.kubernetesVersion).toBe('v9.9.9');
    const w = await viaHost('GET', `/apis/cluster.karmada.io/v1alpha1/clusters?watch=true&fieldSelector=metadata.name%3D${name}&timeoutSeconds=1`);
    expect(w.status).toBe(200);
    const ev = JSON.parse(w.text.split('\n')[0]!);
    expect(ev).toMatchObject({ type: 'ADDED', object: { apiVersion: 'cluster.karmada.io/v1alpha1', metadata: { name } } });
    const del = await viaHost('DELETE', `/apis/cluster.karmada.io/v1alpha1/clusters/${name}`);
    expect(del.status, del.text).toBe(200);
    expect(await get(host, `/apis/cluster.karmada.io/${CLUSTER_STORAGE_VERSION}/clusters/${name}`)).toBeUndefined();
  });

  it('gives v1alpha1 back to the CRD when the APIService is deleted, every Cluster as it was', async () => {
    const before = (await viaHost('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1')).json;
    await uninstallApiService();
    const after = await host.request('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1');
    expect(after.metadata.uid).toBe(before.metadata.uid);
    expect(after.apiVersion).toBe('cluster.karmada.io/v1alpha1');
    // and over again: the migration is repeatable
    await installApiService(port);
    const again = await viaHost('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1');
    expect(again.json.metadata.uid).toBe(before.metadata.uid);
  });
});
