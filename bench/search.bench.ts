/**
 * karmada-search cache benchmark: `node --max-old-space-size=8192 --import tsx bench/search.bench.ts` (plain
 * script; figures in bench/README.md, "Search cache").
 *
 * 1. Fill and memory: 100 simulated members, SEARCH_BENCH_PODS Pods in total (default 1,000,000), fed into
 *    the cache through an in-process source (no apiserver: the objects are made on the fly, so only the
 *    cache holds them). Heap + external bytes per cached object against its JSON size, at four fill levels
 *    (growth linear?), fill time, peak RSS.
 * 2. List latency: 100,000 Deployments over 100 members, `labelSelector` matching 1 %, through the search
 *    API handler over loopback HTTP (node:http, no TLS, no aggregator): p50 / p99.
 * 2b. `list-host`: the same list three ways, side by side: the handler over loopback HTTP (as 2), the
 *    aggregated server over TLS with the front proxy's client certificate (request-header authentication,
 *    SubjectAccessReview, no aggregator), and through the real host kube-apiserver's aggregation layer as
 *    kubectl sends it (the search.karmada.io APIService pointed at that server). Needs scripts/k8s/env.sh's
 *    environment: the one in $KARMADA_LITE_ENV_DIR, started (and stopped afterwards) when not running.
 * 3. Watch fan-out: 1,000 changes/s for 10 s into the cache, 10 proxy watches over loopback HTTP; latency
 *    from the change entering the store to its event being parsed by the client: p50 / p99.
 */
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, createServer, request, type Server } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { loadavg } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { requestInfo } from '../src/apiserver/request-info.js';
import { SarAuthorizer } from '../src/apiserver/authz.js';
import { AggregatedServer } from '../src/apiserver/server.js';
import { requestHeaderSource } from '../src/apiserver/setup.js';
import { errorMessage } from '../src/json/error.js';
import { RestClient } from '../src/kube/rest.js';
import { createLogger } from '../src/runtime/log.js';
import type { ApiHandler } from '../src/apiserver/types.js';
import { MultiClusterCache, type MemberConnector, type ResourceInfo } from '../src/search/cache.js';
import { SEARCH_GROUP_VERSION, searchHandlers } from '../src/search/handlers.js';
import { DEPLOYMENT, POD } from '../src/search/memory-feed.js';
import type { ResourceStore } from '../src/search/store.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MEMBERS = 100;
const PODS = Number(process.env.SEARCH_BENCH_PODS ?? 1_000_000);
const only = process.argv[2];

const clusterObj = (name: string) => ({ metadata: { name }, spec: { apiEndpoint: `https://${name}` }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
const registry = (apiVersion: string, kind: string) => ({ metadata: { name: kind }, spec: { targetCluster: {}, resourceSelectors: [{ apiVersion, kind }] } });

/** A Pod as a Deployment's ReplicaSet makes it, scheduled and running: the size of a real one. */
function pod(cluster: number, i: number, rv: number): any {
  const app = `app-${i % 500}`;
  const hash = (i % 500).toString(16).padStart(10, '7');
  const name = `${app}-${hash}-${(i * 2654435761 >>> 0).toString(36).slice(0, 5)}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      generateName: `${app}-${hash}-`,
      namespace: `ns-${i % 20}`,
      uid: `${cluster.toString(16).padStart(8, '0')}-${(i >>> 16).toString(16).padStart(4, '0')}-4${(i & 0xfff).toString(16).padStart(3, '0')}-8000-${i.toString(16).padStart(12, '0')}`,
      resourceVersion: String(rv),
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app, 'pod-template-hash': hash },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-${hash}`, uid: `rs-${cluster}-${i % 500}`, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      containers: [{ name: 'app', image: `registry.example.com/team/${app}:1.4.2`, ports: [{ containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } }, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      nodeName: `node-${i % 50}`,
      schedulerName: 'default-scheduler',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' }, { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      hostIP: `10.0.${i % 50}.1`,
      podIP: `10.244.${(i >> 8) & 255}.${i & 255}`,
      startTime: '2026-01-01T00:00:00Z',
      containerStatuses: [{ name: 'app', ready: true, restartCount: 0, image: `registry.example.com/team/${app}:1.4.2`, imageID: `registry.example.com/team/${app}@sha256:${'ab'.repeat(32)}`, containerID: `containerd://${'cd'.repeat(32)}`, started: true, state: { running: { startedAt: '2026-01-01T00:00:04Z' } } }],
      qosClass: 'Burstable',
    },
  };
}

function deployment(cluster: number, i: number, rv: number): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `deploy-${i}`, namespace: `ns-${i % 20}`, uid: `d-${cluster}-${i}`, resourceVersion: String(rv), generation: 1, labels: { app: `deploy-${i}`, group: `g-${i % 100}` } },
    spec: { replicas: 2, selector: { matchLabels: { app: `deploy-${i}` } }, template: { metadata: { labels: { app: `deploy-${i}` } }, spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1' }] } } },
    status: { replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2, observedGeneration: 1 },
  };
}

/** Members that make their objects on the fly straight into the stores; `feeds` reaches each store later. */
function generatedMembers(perMember: number, info: ResourceInfo, make: (cluster: number, i: number, rv: number) => any) {
  const stores = new Map<string, ResourceStore>();
  const connector: MemberConnector = {
    signature: () => '',
    connect: async (c) => {
      const n = Number(String(c.metadata.name).slice(1));
      return {
        resolve: async () => info,
        start: (_info, store, report) => {
          stores.set(c.metadata.name, store);
          for (let i = 0; i < perMember; i++) store.upsert(make(n, i, i + 1));
          store.resourceVersion = String(perMember);
          report({ ok: true });
          return () => {};
        },
        close: () => {},
      };
    },
  };
  return { connector, stores };
}

const clusters = Array.from({ length: MEMBERS }, (_, i) => clusterObj(`m${String(i).padStart(3, '0')}`));

async function filled(cache: MultiClusterCache, expected: number, count: () => number): Promise<void> {
  while (count() < expected || cache.entries().some((e) => e.phase !== 'Cached')) await new Promise((r) => setTimeout(r, 5));
}

const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function fillAndMemory(): Promise<void> {
  console.log(`\n## 1. Fill and memory: ${MEMBERS} members, ${PODS.toLocaleString()} Pods (in-process source)`);
  const sample = JSON.stringify({ ...pod(1, 12345, 12345), metadata: { ...pod(1, 12345, 12345).metadata, annotations: { 'resource.karmada.io/cached-from-cluster': 'm001' } } });
  console.log(`JSON size of one cached Pod (with the annotation): ${sample.length} bytes`);
  const steps = [0.25, 0.5, 1];
  let prevHeap = 0;
  gc();
  const base = process.memoryUsage();
  const cache = new MultiClusterCache({ connector: generatedMembers(0, POD, pod).connector });
  cache.close();
  for (const step of steps) {
    const total = Math.round(PODS * step);
    const perMember = Math.floor(total / MEMBERS);
    const gen = generatedMembers(perMember, POD, pod);
    gc();
    const before = process.memoryUsage();
    const c = new MultiClusterCache({ connector: gen.connector });
    const t0 = performance.now();
    c.update([registry('v1', 'Pod')], clusters);
    await filled(c, perMember * MEMBERS, () => [...gen.stores.values()].reduce((n, s) => n + s.size, 0));
    const ms = performance.now() - t0;
    gc();
    const after = process.memoryUsage();
    const objects = perMember * MEMBERS;
    let jsonBytes = 0;
    for (const s of gen.stores.values()) for (const o of s.values()) jsonBytes += o.json.length;
    const bytes = after.heapUsed + after.external - (before.heapUsed + before.external);
    const perObject = bytes / objects;
    const overhead = perObject - jsonBytes / objects;
    console.log(
      `${objects.toLocaleString().padStart(9)} objects: fill ${(ms / 1000).toFixed(1)} s (${Math.round(objects / (ms / 1000)).toLocaleString()}/s), ` +
        `heap+external ${mb(bytes)} = ${perObject.toFixed(0)} B/object, JSON ${(jsonBytes / objects).toFixed(0)} B/object, overhead ${overhead.toFixed(0)} B/object; RSS now ${mb(process.memoryUsage().rss)}`,
    );
    prevHeap = bytes;
    c.close();
    gen.stores.clear();
  }
  void prevHeap;
  void base;
  console.log(`peak RSS of the run: ${mb(process.resourceUsage().maxRSS * 1024)}`);
}

function serve(handlers: ApiHandler[]): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const h = handlers.find((x) => (req.url ?? '').startsWith(x.prefix))!;
    const ac = new AbortController();
    res.once('close', () => ac.abort());
    void h.handle(req, res, { user: { name: 'bench', groups: [], extra: {} }, info: requestInfo(req.method ?? 'GET', req.url ?? '/'), signal: ac.signal });
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

async function listLatency(): Promise<void> {
  const total = 100_000;
  console.log(`\n## 2. List latency: ${total.toLocaleString()} Deployments over ${MEMBERS} members, labelSelector matching 1 % (search API over loopback HTTP)`);
  const gen = generatedMembers(total / MEMBERS, DEPLOYMENT, deployment);
  const cache = new MultiClusterCache({ connector: gen.connector });
  cache.update([registry('apps/v1', 'Deployment')], clusters);
  await filled(cache, total, () => [...gen.stores.values()].reduce((n, s) => n + s.size, 0));
  const { url, server } = await serve(searchHandlers({ cache }).handlers);
  const path = '/apis/search.karmada.io/v1alpha1/search/cache/apis/apps/v1/deployments?labelSelector=group%3Dg-7';
  const times: number[] = [];
  let items = 0;
  for (let i = 0; i < 220; i++) {
    const t0 = performance.now();
    const r = await fetch(url + path);
    const body = (await r.json()) as { items: unknown[] };
    if (i >= 20) times.push(performance.now() - t0);
    items = body.items.length;
  }
  times.sort((a, b) => a - b);
  console.log(`${items} items per answer; p50 ${pct(times, 50).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms (200 sequential requests after 20 warm-up)`);
  const all: number[] = [];
  for (let i = 0; i < 12; i++) {
    const t0 = performance.now();
    const r = await fetch(url + '/apis/search.karmada.io/v1alpha1/search/cache/apis/apps/v1/deployments');
    await r.arrayBuffer();
    if (i >= 2) all.push(performance.now() - t0);
  }
  all.sort((a, b) => a - b);
  console.log(`for scale, the whole list (${total.toLocaleString()} items): p50 ${pct(all, 50).toFixed(0)} ms`);
  server.close();
  cache.close();
}

/**
 * Sequential GETs of one list by each way in turn (one request of each per round, so that load and JIT
 * changes during the run fall on all of them alike): p50 / p99 per way over `n` rounds after `warm`.
 */
async function timedSideBySide(ways: Array<() => Promise<{ items: unknown[] }>>, n = 200, warm = 20): Promise<Array<{ p50: number; p99: number; items: number }>> {
  const times = ways.map(() => [] as number[]);
  const items = ways.map(() => 0);
  for (let i = 0; i < warm + n; i++) {
    for (const [w, get] of ways.entries()) {
      const t0 = performance.now();
      const body = await get();
      if (i >= warm) times[w]!.push(performance.now() - t0);
      items[w] = body.items.length;
    }
  }
  return times.map((t, w) => {
    t.sort((a, b) => a - b);
    return { p50: pct(t, 50), p99: pct(t, 99), items: items[w]! };
  });
}

/** A GET over a keep-alive agent, its JSON answer parsed (as a client would), failing on anything but 200. */
function getJson(agent: HttpsAgent | HttpAgent, url: string, headers: Record<string, string> = {}): Promise<{ items: unknown[] }> {
  return new Promise((resolve, reject) => {
    const req = (url.startsWith('https:') ? httpsRequest : request)(url, { agent, headers: { accept: 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) reject(new Error(`GET ${url}: ${res.statusCode} ${text.slice(0, 300)}`));
        else resolve(JSON.parse(text) as { items: unknown[] });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function listThroughHost(): Promise<void> {
  const total = 100_000;
  const { envDir, envRunning, envStart, envStop, installCrds, kubeConfigOf, readEnv } = await import('./controller-env.js');
  const { registerApiService, unregisterApiService } = await import('../test/integration/aggregated-apiservice.js');
  console.log(`\n## 2b. List latency through the host kube-apiserver: ${total.toLocaleString()} Deployments over ${MEMBERS} members, labelSelector matching 1 %`);
  const startedEnv = !envRunning();
  if (startedEnv) envStart();
  const env = readEnv();
  const pki = path.join(envDir(), 'host', 'pki');
  const kc = kubeConfigOf(env, 'host');
  const host = new RestClient(kc);
  await installCrds(host);
  const gen = generatedMembers(total / MEMBERS, DEPLOYMENT, deployment);
  const cache = new MultiClusterCache({ connector: gen.connector });
  cache.update([registry('apps/v1', 'Deployment')], clusters);
  await filled(cache, total, () => [...gen.stores.values()].reduce((n, s) => n + s.size, 0));
  const search = searchHandlers({ cache });
  const plain = await serve(search.handlers);
  const logger = createLogger({ level: 'error' });
  const serverOpts = { certFile: path.join(pki, 'aggregated-serving.crt'), keyFile: path.join(pki, 'aggregated-serving.key'), port: 0, bindAddress: '127.0.0.1', allowTtlMs: 10_000, denyTtlMs: 10_000, logger };
  const server = new AggregatedServer({ ...serverOpts, handlers: search.handlers, discovery: search.discovery, requestHeader: requestHeaderSource(serverOpts, host), authorizer: new SarAuthorizer(host, { allowTtlMs: 10_000, denyTtlMs: 10_000 }), logger });
  const { port } = await server.start();
  try {
    await registerApiService(host, envDir(), port, SEARCH_GROUP_VERSION);
    const path_ = '/apis/search.karmada.io/v1alpha1/search/cache/apis/apps/v1/deployments?labelSelector=group%3Dg-7';
    const plainAgent = new HttpAgent({ keepAlive: true });
    // what the aggregator presents: the front proxy's client certificate and the caller in headers
    const frontProxy = new HttpsAgent({ keepAlive: true, ca: readFileSync(path.join(pki, 'ca.crt')), cert: readFileSync(path.join(pki, 'front-proxy-client.crt')), key: readFileSync(path.join(pki, 'front-proxy-client.key')), servername: 'karmada-aggregated-apiserver.karmada-system.svc' });
    const caller = { 'X-Remote-User': 'bench-admin', 'X-Remote-Group': 'system:masters' };
    const ways: Array<[string, () => Promise<{ items: unknown[] }>]> = [
      ['search handler, loopback HTTP', () => getJson(plainAgent, plain.url + path_)],
      ['aggregated server, TLS + request-header authn + SubjectAccessReview', () => getJson(frontProxy, `https://127.0.0.1:${port}${path_}`, caller)],
      // kubectl's way: the host's client (keep-alive, the admin's certificate), through the aggregator
      ['host kube-apiserver → aggregator → aggregated server', () => host.request('GET', path_)],
    ];
    const results = await timedSideBySide(ways.map(([, get]) => get));
    const rows = ways.map(([what], i) => [what, results[i]!] as const);
    const base = rows[0]![1].p50;
    for (const [what, r] of rows) console.log(`${what.padEnd(72)} ${r.items} items; p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms (${(r.p50 / base).toFixed(2)}× the handler's p50)`);
    console.log(`200 rounds of one request each way, after 20 warm-up rounds; load average after ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    plainAgent.destroy();
    frontProxy.destroy();
  } finally {
    await unregisterApiService(host, SEARCH_GROUP_VERSION).catch((e) => console.error(`cannot remove the APIService: ${errorMessage(e)}`));
    await server.stop();
    plain.server.close();
    cache.close();
    host.close();
    if (startedEnv) envStop();
  }
}

async function watchFanOut(): Promise<void> {
  const rate = 1000;
  const seconds = 10;
  const watchers = 10;
  console.log(`\n## 3. Watch fan-out: ${rate}/s changes for ${seconds} s, ${watchers} proxy watches (loopback HTTP)`);
  const gen = generatedMembers(1_000, DEPLOYMENT, deployment);
  const cache = new MultiClusterCache({ connector: gen.connector });
  cache.update([registry('apps/v1', 'Deployment')], clusters.slice(0, 10));
  await filled(cache, 10_000, () => [...gen.stores.values()].reduce((n, s) => n + s.size, 0));
  const { url, server } = await serve(searchHandlers({ cache }).handlers);
  const sent = new Map<string, number>();
  const latencies: number[] = [];
  const listRV = ((await (await fetch(url + '/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy/apis/apps/v1/deployments')).json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const conns: Array<() => void> = [];
  await Promise.all(
    Array.from({ length: watchers }, () =>
      new Promise<void>((ready) => {
        const req = request(`${url}/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy/apis/apps/v1/deployments?watch=true&resourceVersion=${listRV}`, (res) => {
          ready();
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            buf += c;
            let nl: number;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const ev = JSON.parse(buf.slice(0, nl));
              buf = buf.slice(nl + 1);
              const t = sent.get(ev.object.metadata.labels.seq);
              if (t !== undefined) latencies.push(performance.now() - t);
            }
          });
        });
        req.end();
        conns.push(() => req.destroy());
      }),
    ),
  );
  const stores = [...gen.stores.values()];
  const start = performance.now();
  let seq = 0;
  await new Promise<void>((done) => {
    const tick = setInterval(() => {
      const due = Math.min(rate * seconds, Math.floor(((performance.now() - start) / 1000) * rate));
      for (; seq < due; seq++) {
        const store = stores[seq % stores.length]!;
        const d = deployment(0, seq % 1000, 2000 + seq);
        d.metadata.labels.seq = String(seq);
        sent.set(String(seq), performance.now());
        store.upsert(d);
      }
      if (seq >= rate * seconds) {
        clearInterval(tick);
        done();
      }
    }, 1);
  });
  const expected = rate * seconds * watchers;
  const t0 = performance.now();
  while (latencies.length < expected && performance.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 10));
  latencies.sort((a, b) => a - b);
  console.log(`${latencies.length.toLocaleString()} of ${expected.toLocaleString()} events received; p50 ${pct(latencies, 50).toFixed(2)} ms, p99 ${pct(latencies, 99).toFixed(2)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`);
  for (const c of conns) c();
  server.close();
  cache.close();
}

console.log(`node ${process.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
if (!only || only === 'fill') await fillAndMemory();
if (!only || only === 'list') await listLatency();
// not in the default run: it needs the apiservers of scripts/k8s/env.sh
if (only === 'list-host') await listThroughHost();
if (!only || only === 'watch') await watchFanOut();
