// A plain node:http server that answers as the host apiserver and, under
// /apis/cluster.karmada.io/v1alpha1/clusters/<name>/proxy/, as each member would through the cluster proxy:
// discovery, Deployments as Tables or JSON lists, watches, pod logs and exec over WebSocket. It records
// every request so tests can check what the CLI sent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';

export interface FakeDeployment {
  name: string;
  namespace: string;
  labels?: Record<string, string>;
  ready?: string;
}

export interface FakeCluster {
  deployments: FakeDeployment[];
  /** Events a watch of deployments sends (after the list), then the stream ends. */
  watchEvents?: Array<{ type: string; deployment: FakeDeployment }>;
  /** Answer every request with this status (a member that is down behind the proxy). */
  down?: number;
  /** Never answer (a frozen member: the connection is accepted, nothing comes back). */
  hang?: boolean;
  /** Serves cluster.karmada.io (the host: its discovery lists the group). */
  karmada?: boolean;
  /** A Pull cluster with no apiEndpoint: the cluster proxy cannot reach it (500, as src/apiserver answers). */
  pull?: boolean;
  /** A ResourceRegistry caches its Deployments: the host's search cache serves them, annotated with the cluster. */
  cached?: boolean;
  logs?: (res: ServerResponse, query: URLSearchParams) => void;
  exec?: (ws: WebSocket, query: URLSearchParams) => void;
  pods?: Record<string, { containers: string[]; annotations?: Record<string, string> }>;
}

export interface Recorded {
  method: string;
  url: string;
  accept: string;
  authorization: string;
}

const DEPLOY_COLUMNS = [
  { name: 'Name', type: 'string', format: 'name', priority: 0 },
  { name: 'Ready', type: 'string', priority: 0 },
  { name: 'Up-to-date', type: 'integer', priority: 0 },
  { name: 'Available', type: 'integer', priority: 0 },
  { name: 'Age', type: 'string', priority: 0 },
  { name: 'Containers', type: 'string', priority: 1 },
];

const row = (d: FakeDeployment) => ({
  cells: [d.name, d.ready ?? '2/2', 2, 2, '5m', 'web'],
  object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: d.name, namespace: d.namespace, labels: d.labels } },
});
const object = (d: FakeDeployment) => ({ metadata: { name: d.name, namespace: d.namespace, labels: d.labels, resourceVersion: '7' }, spec: { replicas: 2 } });
const status = (res: ServerResponse, code: number, reason: string, message: string) => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message }));
};
const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

function selects(d: FakeDeployment, q: URLSearchParams): boolean {
  const ls = q.get('labelSelector');
  if (ls && !ls.split(',').every((t) => d.labels?.[t.split('=')[0]!] === t.split('=')[1])) return false;
  const fs = q.get('fieldSelector');
  if (fs && !fs.split(',').every((t) => !t.startsWith('metadata.name=') || t === `metadata.name=${d.name}`)) return false;
  return true;
}

/** One apiserver (the host or a member): `rest` is the path after any proxy prefix. */
function serve(c: FakeCluster, rest: string, q: URLSearchParams, req: IncomingMessage, res: ServerResponse, name?: string): void {
  if (c.hang) return;
  if (c.pull) return status(res, 500, 'InternalError', `API endpoint of cluster ${name} should not be empty`);
  if (c.down) return status(res, c.down, 'ServiceUnavailable', 'the member does not answer');
  const table = (req.headers.accept ?? '').includes('as=Table');
  if (rest === '/api') return json(res, { kind: 'APIVersions', versions: ['v1'] });
  if (rest === '/apis') {
    const groups = [{ name: 'apps', preferredVersion: { groupVersion: 'apps/v1', version: 'v1' }, versions: [{ groupVersion: 'apps/v1', version: 'v1' }] }];
    if (c.karmada) groups.push({ name: 'cluster.karmada.io', preferredVersion: { groupVersion: 'cluster.karmada.io/v1alpha1', version: 'v1alpha1' }, versions: [{ groupVersion: 'cluster.karmada.io/v1alpha1', version: 'v1alpha1' }] });
    return json(res, { kind: 'APIGroupList', groups });
  }
  if (rest === '/apis/cluster.karmada.io/v1alpha1' && c.karmada)
    return json(res, { kind: 'APIResourceList', groupVersion: 'cluster.karmada.io/v1alpha1', resources: [{ name: 'clusters', singularName: 'cluster', namespaced: false, kind: 'Cluster', verbs: ['get', 'list', 'watch'] }] });
  if (rest === '/api/v1')
    return json(res, { kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list'], shortNames: ['po'] }, { name: 'pods/log', namespaced: true, kind: 'Pod', verbs: ['get'] }] });
  if (rest === '/apis/apps/v1')
    return json(res, { kind: 'APIResourceList', groupVersion: 'apps/v1', resources: [{ name: 'deployments', singularName: 'deployment', namespaced: true, kind: 'Deployment', verbs: ['get', 'list', 'watch'], shortNames: ['deploy'] }] });
  const m = /^\/apis\/apps\/v1(?:\/namespaces\/([^/]+))?\/deployments(?:\/([^/]+))?$/.exec(rest);
  if (m) {
    const [, ns, name] = m;
    const items = c.deployments.filter((d) => (!ns || d.namespace === ns) && (!name || d.name === name) && selects(d, q));
    if (q.get('watch')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (const e of c.watchEvents ?? []) {
        const obj = table ? { kind: 'Table', apiVersion: 'meta.k8s.io/v1', columnDefinitions: [], rows: [row(e.deployment)] } : object(e.deployment);
        res.write(JSON.stringify({ type: e.type, object: obj }) + '\n');
      }
      return void res.end();
    }
    if (name && items.length === 0) return status(res, 404, 'NotFound', `deployments.apps "${name}" not found`);
    if (name) return json(res, table ? { kind: 'Table', apiVersion: 'meta.k8s.io/v1', columnDefinitions: DEPLOY_COLUMNS, rows: items.map(row) } : { apiVersion: 'apps/v1', kind: 'Deployment', ...object(items[0]!) });
    return json(res, table ? { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '42' }, columnDefinitions: DEPLOY_COLUMNS, rows: items.map(row) } : { kind: 'DeploymentList', apiVersion: 'apps/v1', metadata: { resourceVersion: '42' }, items: items.map(object) });
  }
  const pod = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)(?:\/(log|exec))?$/.exec(rest);
  if (pod) {
    const p = c.pods?.[pod[2]!];
    if (!p) return status(res, 404, 'NotFound', `pods "${pod[2]}" not found`);
    if (pod[3] === 'log' && c.logs) return c.logs(res, q);
    return json(res, { kind: 'Pod', apiVersion: 'v1', metadata: { name: pod[2], namespace: pod[1], annotations: p.annotations }, spec: { containers: p.containers.map((name) => ({ name })) } });
  }
  status(res, 404, 'NotFound', 'the server could not find the requested resource');
}

export interface Fake {
  server: Server;
  kubeconfig: string;
  requests: Recorded[];
  close: () => Promise<void>;
}

/** Starts the fake on a loopback port; `clusters` maps member names to what they hold. */
export async function startFake(host: FakeCluster, members: Record<string, FakeCluster>): Promise<Fake> {
  const requests: Recorded[] = [];
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (protocols) => (protocols.has('v5.channel.k8s.io') ? 'v5.channel.k8s.io' : false) });
  const route = (url: URL): { c: FakeCluster; rest: string; name?: string } | undefined => {
    const proxy = /^\/apis\/cluster\.karmada\.io\/v1alpha1\/clusters\/([^/]+)\/proxy(\/.*)$/.exec(url.pathname);
    if (!proxy) return { c: host, rest: url.pathname };
    const name = decodeURIComponent(proxy[1]!);
    const c = members[name];
    return c ? { c, rest: proxy[2]!, name } : undefined;
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    requests.push({ method: req.method!, url: req.url!, accept: String(req.headers.accept ?? ''), authorization: String(req.headers.authorization ?? '') });
    if (url.pathname === '/apis/cluster.karmada.io/v1alpha1/clusters') {
      const items = Object.entries(members).map(([name, m]) => ({
        apiVersion: 'cluster.karmada.io/v1alpha1',
        kind: 'Cluster',
        metadata: { name, resourceVersion: '3' },
        spec: m.pull ? { syncMode: 'Pull' } : { syncMode: 'Push', apiEndpoint: `https://${name}.example:6443` },
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      }));
      if (!String(req.headers.accept ?? '').includes('as=Table')) return json(res, { kind: 'ClusterList', apiVersion: 'cluster.karmada.io/v1alpha1', metadata: { resourceVersion: '9' }, items });
      const columnDefinitions = [{ name: 'Name', type: 'string', priority: 0 }, { name: 'Mode', type: 'string', priority: 0 }];
      return json(res, { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '9' }, columnDefinitions, rows: items.map((c) => ({ cells: [c.metadata.name, 'Push'], object: { metadata: c.metadata } })) });
    }
    const cachedNames = Object.keys(members).filter((n) => members[n]!.cached);
    if (url.pathname === '/apis/search.karmada.io/v1alpha1/resourceregistries') {
      const items = cachedNames.length ? [{ metadata: { name: 'deployments' }, spec: { targetCluster: { clusterNames: cachedNames }, resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }] } }] : [];
      return json(res, { kind: 'ResourceRegistryList', apiVersion: 'search.karmada.io/v1alpha1', items });
    }
    const search = /^\/apis\/search\.karmada\.io\/v1alpha1\/search\/cache\/apis\/apps\/v1(?:\/namespaces\/([^/]+))?\/deployments$/.exec(url.pathname);
    if (search) {
      const found = cachedNames.flatMap((n) => members[n]!.deployments.filter((d) => (!search[1] || d.namespace === search[1]) && selects(d, url.searchParams)).map((d) => ({ n, d })));
      const annotated = ({ n, d }: { n: string; d: FakeDeployment }) => ({ ...object(d), metadata: { ...object(d).metadata, annotations: { 'resource.karmada.io/cached-from-cluster': n } } });
      if (!String(req.headers.accept ?? '').includes('as=Table')) return json(res, { kind: 'List', apiVersion: 'v1', metadata: {}, items: found.map((x) => ({ apiVersion: 'apps/v1', kind: 'Deployment', ...annotated(x) })) });
      const columnDefinitions = [{ name: 'Name', type: 'string', format: 'name', priority: 0 }, { name: 'Created At', type: 'date', priority: 0 }];
      return json(res, { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: {}, columnDefinitions, rows: found.map((x) => ({ cells: [x.d.name, '2026-12-07T04:00:00Z'], object: { metadata: annotated(x).metadata } })) });
    }
    const one = /^\/apis\/cluster\.karmada\.io\/v1alpha1\/clusters\/([^/]+)$/.exec(url.pathname);
    if (one) return members[one[1]!] ? json(res, { kind: 'Cluster', metadata: { name: one[1] } }) : status(res, 404, 'NotFound', `clusters.cluster.karmada.io "${one[1]}" not found`);
    const r = route(url);
    if (!r) return status(res, 404, 'NotFound', `clusters.cluster.karmada.io "${url.pathname.split('/')[5]}" not found`);
    serve(r.c, r.rest, url.searchParams, req, res, r.name);
  });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url!, 'http://x');
    requests.push({ method: req.method!, url: req.url!, accept: String(req.headers['sec-websocket-protocol'] ?? ''), authorization: String(req.headers.authorization ?? '') });
    const r = route(url);
    const exec = r?.c.exec;
    if (!exec || !r.rest.endsWith('/exec')) {
      socket.end('HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n\r\n' + JSON.stringify({ kind: 'Status', status: 'Failure', code: 400, reason: 'BadRequest', message: 'pod web-1 does not have a host assigned' }));
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => exec(ws, url.searchParams));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const dir = mkdtempSync(path.join(tmpdir(), 'fleet-fake-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters: [{name: host, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]
users: [{name: admin, user: {token: fake-token}}]
contexts: [{name: host, context: {cluster: host, user: admin, namespace: default}}]
current-context: host
`,
  );
  return {
    server,
    kubeconfig,
    requests,
    close: () =>
      new Promise((resolve) => {
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
        rmSync(dir, { recursive: true, force: true });
      }),
  };
}
