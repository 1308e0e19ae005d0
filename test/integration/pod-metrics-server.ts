// A metrics.k8s.io/v1beta1 server for a member of the test fleet, as metrics-server would be: discovery, and
// PodMetrics for the member's real Pods (listed from its apiserver, by namespace and label selector), with the
// usage the test sets; and custom.metrics.k8s.io/v1beta2 Pods metrics of those Pods, as a Prometheus adapter
// would serve them, with the values the test sets. Registered in the member as the APIServices
// v1beta1.metrics.k8s.io and v1beta2.custom.metrics.k8s.io behind an
// ExternalName Service to localhost (scripts/k8s/env.sh gives every apiserver the aggregation layer), the
// way aggregated-apiservice.ts registers karmada-lite's server on the host.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { RestClient } from '../../src/kube/rest.js';
import { get, ignoreConflict, waitFor } from './k8s-env.js';

const GV = 'metrics.k8s.io/v1beta1';
const CUSTOM_GV = 'custom.metrics.k8s.io/v1beta2';
const APISERVICES = [
  { name: 'v1beta1.metrics.k8s.io', group: 'metrics.k8s.io', version: 'v1beta1' },
  { name: 'v1beta2.custom.metrics.k8s.io', group: 'custom.metrics.k8s.io', version: 'v1beta2' },
];
const SERVICE = '/api/v1/namespaces/kube-system/services';
const SERVICE_NAME = 'karmada-lite-test-metrics';

/** Per-container usage of a Pod, e.g. `{ cpu: '150m', memory: '20Mi' }`; undefined: no metrics for it (as for a Pod metrics-server has not scraped). */
export type UsageOf = (pod: any) => Record<string, string> | undefined;

/** A Pod's value of a custom metric, e.g. `'30'` requests a second; undefined: the adapter has none for it. */
export type CustomOf = (pod: any, metric: string) => string | undefined;

export interface PodMetricsServer {
  port: number;
  /** Changes the usage the server reports from now on. */
  setUsage(usage: UsageOf): void;
  /** Changes the custom metrics' values from now on. */
  setCustom(custom: CustomOf): void;
  /** How many PodMetrics lists it answered (the controller asks it). */
  lists(): number;
  close(): Promise<void>;
}

const RESOURCES = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: GV,
  resources: [
    { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
    { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
  ],
};

function send(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const notFound = (res: ServerResponse, what: string) => send(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `${what} not found` });

/** Starts the server on 127.0.0.1 with the member's serving certificate; its Pods come from `member`. */
export async function startPodMetricsServer(member: RestClient, envDir: string, memberName: string, initial: UsageOf, initialCustom: CustomOf = () => undefined): Promise<PodMetricsServer> {
  let usageOf = initial;
  let customOf = initialCustom;
  let lists = 0;
  const pki = path.join(envDir, memberName, 'pki');
  const podMetrics = (pod: any) => {
    const usage = pod.status?.phase === 'Running' && !pod.metadata.deletionTimestamp ? usageOf(pod) : undefined;
    if (!usage) return undefined;
    return {
      kind: 'PodMetrics',
      apiVersion: GV,
      metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace, labels: pod.metadata.labels ?? {}, creationTimestamp: new Date().toISOString() },
      timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      window: '1s',
      containers: (pod.spec?.containers ?? []).map((c: any) => ({ name: c.name, usage })),
    };
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    // The aggregator passes the Pods metrics' name `*` escaped (%2A), as the custom metrics server library reads it.
    const p = decodeURIComponent(url.pathname).replace(/\/$/, '');
    if (p === `/apis/${GV}`) return send(res, 200, RESOURCES);
    if (p === `/apis/${CUSTOM_GV}`) return send(res, 200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: CUSTOM_GV, resources: [{ name: 'pods/*', singularName: '', namespaced: true, kind: 'MetricValueList', verbs: ['get'] }] });
    const custom = /^\/apis\/custom\.metrics\.k8s\.io\/v1beta2\/namespaces\/([^/]+)\/pods\/\*\/([^/]+)$/.exec(p);
    if (custom) {
      const [, ns, metric] = custom;
      const labelSelector = url.searchParams.get('labelSelector') ?? undefined;
      const list = await member.request('GET', `/api/v1/namespaces/${ns}/pods`, { query: labelSelector ? { labelSelector } : {} });
      const items = (list.items as any[])
        .filter((pod) => pod.status?.phase === 'Running' && !pod.metadata.deletionTimestamp)
        .map((pod) => ({ pod, value: customOf(pod, metric!) }))
        .filter((x) => x.value !== undefined)
        .map(({ pod, value }) => ({
          describedObject: { kind: 'Pod', namespace: ns, name: pod.metadata.name, apiVersion: '/v1' },
          metric: { name: metric },
          timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          windowSeconds: 1,
          value,
        }));
      lists++;
      return send(res, 200, { kind: 'MetricValueList', apiVersion: CUSTOM_GV, metadata: {}, items });
    }
    if (p === '/healthz' || p === '/readyz' || p === '/livez') return send(res, 200, 'ok');
    const m = /^\/apis\/metrics\.k8s\.io\/v1beta1\/(?:namespaces\/([^/]+)\/)?(pods|nodes)(?:\/([^/]+))?$/.exec(p);
    if (!m) return notFound(res, p);
    const [, ns, resource, name] = m;
    if (resource === 'nodes') return name ? notFound(res, `nodemetrics "${name}"`) : send(res, 200, { kind: 'NodeMetricsList', apiVersion: GV, metadata: {}, items: [] });
    const labelSelector = url.searchParams.get('labelSelector') ?? undefined;
    const podsPath = ns ? `/api/v1/namespaces/${ns}/pods` : '/api/v1/pods';
    if (name) {
      const pod = await get(member, `${podsPath}/${name}`);
      const pm = pod && podMetrics(pod);
      return pm ? send(res, 200, pm) : notFound(res, `podmetrics.metrics.k8s.io "${name}"`);
    }
    lists++;
    const list = await member.request('GET', podsPath, { query: labelSelector ? { labelSelector } : {} });
    send(res, 200, { kind: 'PodMetricsList', apiVersion: GV, metadata: {}, items: (list.items as any[]).map(podMetrics).filter(Boolean) });
  };
  const server: Server = createServer({ key: readFileSync(path.join(pki, 'serving.key')), cert: readFileSync(path.join(pki, 'serving.crt')) }, (req, res) => {
    handle(req, res).catch((e) => send(res, 500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, message: String(e?.message ?? e) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    setUsage: (u) => {
      usageOf = u;
    },
    setCustom: (c) => {
      customOf = c;
    },
    lists: () => lists,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Registers the member's APIServices v1beta1.metrics.k8s.io and v1beta2.custom.metrics.k8s.io for a server on 127.0.0.1:`port`, and waits until they are Available. */
export async function registerMetricsApiService(member: RestClient, port: number): Promise<void> {
  await member.request('DELETE', `${SERVICE}/${SERVICE_NAME}`).catch(() => undefined);
  await ignoreConflict(member.request('POST', SERVICE, { body: { metadata: { name: SERVICE_NAME }, spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port, protocol: 'TCP' }] } } }));
  for (const { name, group, version } of APISERVICES) {
    const apiService = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name },
      // The aggregator checks the serving name <service>.<namespace>.svc, which the member's certificate does not carry.
      spec: { group, version, groupPriorityMinimum: 100, versionPriority: 100, insecureSkipTLSVerify: true, service: { name: SERVICE_NAME, namespace: 'kube-system', port } },
    };
    const cur = await get(member, `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
    if (cur) await member.request('PUT', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`, { body: { ...apiService, metadata: { name, resourceVersion: cur.metadata.resourceVersion } } });
    else await member.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', { body: apiService });
  }
  await waitFor(
    'the metrics APIServices to be available',
    async () => {
      for (const { name } of APISERVICES) {
        const s = await get(member, `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
        if (!(s?.spec?.service?.port === port && s?.status?.conditions?.some((c: any) => c.type === 'Available' && c.status === 'True'))) return undefined;
      }
      return true;
    },
    60_000,
  );
}

/** Takes the APIServices away again: an unavailable aggregated API would hold up the member's namespace deletions. */
export async function unregisterMetricsApiService(member: RestClient): Promise<void> {
  for (const { name } of APISERVICES) await member.request('DELETE', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`).catch(() => undefined);
  await member.request('DELETE', `${SERVICE}/${SERVICE_NAME}`).catch(() => undefined);
}
