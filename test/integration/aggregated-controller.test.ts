// The controller with the aggregated apiserver in its own process (`controller --aggregated-apiserver`), the
// cluster.karmada.io APIService installed: a Cluster created, watched and deleted through the host's
// aggregator (that server, into the CRD's storage version) is joined and cleaned up by the controller, which
// reads the same storage version itself (aggregated-storage.test.ts shows it without the server).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterControllerFinalizer } from '../../src/api/constants.js';
import { CLUSTER_STORAGE_VERSION } from '../../src/apiserver/cluster-storage.js';
import { k8sEnv, waitFor } from './env.js';
import { freePort, get, prepareHost, rest, startController, stopController, type Proc } from './harness.js';
import { installApiService, uninstallApiService } from './aggregated-harness.js';

const NS = `aggregated-ctl-${Date.now().toString(36)}`;
const NAME = `via-aggregated-${Date.now().toString(36)}`;
const host = rest('host');
const pki = path.join(k8sEnv().dir, 'host', 'pki');
let controller: Proc | undefined;

beforeAll(async () => {
  await prepareHost(host, NS);
  const port = await freePort();
  controller = await startController([
    '--aggregated-apiserver',
    '--aggregated-apiserver-cert-file',
    path.join(pki, 'aggregated-serving.crt'),
    '--aggregated-apiserver-key-file',
    path.join(pki, 'aggregated-serving.key'),
    '--aggregated-apiserver-port',
    String(port),
    '--aggregated-apiserver-bind-address',
    '127.0.0.1',
  ]);
  await installApiService(port);
});

afterAll(async () => {
  // a failed run must not leave a second Cluster on member1's endpoint behind
  const left = await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${NAME}`).catch(() => undefined);
  if (left) {
    await host.request('PUT', `/apis/cluster.karmada.io/v1alpha1/clusters/${NAME}`, { body: { ...left, metadata: { ...left.metadata, finalizers: [] } } }).catch(() => undefined);
    await host.request('DELETE', `/apis/cluster.karmada.io/v1alpha1/clusters/${NAME}`).catch(() => undefined);
  }
  await uninstallApiService();
  await stopController(controller);
  await host.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
});

const readyOf = (c: any) => ((c?.status?.conditions ?? []) as any[]).find((x) => x.type === 'Ready');

describe('controller --aggregated-apiserver behind the cluster.karmada.io APIService', () => {
  it('joins a Cluster created through the aggregated API: execution namespace, Ready status, then its removal', async () => {
    const member1 = await host.request('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1');
    await host.request('POST', '/apis/cluster.karmada.io/v1alpha1/clusters', {
      // with the cluster controller's finalizer, which only the controller removes, after its clean-up
      body: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: NAME, finalizers: [ClusterControllerFinalizer] }, spec: { ...member1.spec } },
    });
    await waitFor(`the execution namespace karmada-es-${NAME}`, async () => ((await get(host, `/api/v1/namespaces/karmada-es-${NAME}`)) ? true : undefined), 60_000);
    // the Ready condition the controller wrote through clusters/status of the aggregated server
    const ready = await waitFor(`${NAME} Ready`, async () => readyOf(await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${NAME}`)), 60_000);
    expect(ready.status, JSON.stringify(ready)).toBe('True');
    const stored = await host.request('GET', `/apis/cluster.karmada.io/${CLUSTER_STORAGE_VERSION}/clusters/${NAME}`);
    expect(readyOf(stored)?.status).toBe('True');
    await host.request('DELETE', `/apis/cluster.karmada.io/v1alpha1/clusters/${NAME}`);
    // the controller's finalizer goes through the aggregated server too
    await waitFor(`${NAME} gone`, async () => ((await get(host, `/apis/cluster.karmada.io/${CLUSTER_STORAGE_VERSION}/clusters/${NAME}`)) ? undefined : true), 60_000);
  });

  it('serves the cluster proxy from the controller process', async () => {
    const r = await host.request('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member2/proxy/api/v1/namespaces/default');
    expect(r.metadata.name).toBe('default');
  });
});
