// deploy/aggregated-api/README.md's install, as a user runs it against a host whose Karmada CRDs are
// installed: `CA_BUNDLE=... envsubst < deploy/aggregated-api/apiservices.yaml | kubectl apply -f -`. The CRD
// registration already made an APIService of each name, labelled kube-aggregator.kubernetes.io/automanaged:
// "true"; kubectl's client-side apply of an object it did not create is a JSON merge patch of the file's
// object with its last-applied annotation (APIService is not in kubectl's built-in scheme), which this test
// sends through the real host apiserver. The aggregator must then route the group-version to the server,
// and keep doing so: kube-aggregator's autoregister controller puts back the spec of an APIService it manages.
// Then the server stops with the APIService still registered: the controller starts all the same.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAggregatedApi } from '../../src/apiserver/setup.js';
import type { AggregatedServer } from '../../src/apiserver/server.js';
import { createLogger } from '../../src/runtime/log.js';
import { unregisterApiService } from './aggregated-apiservice.js';
import { k8sEnv, kubeConfig, repoRoot, waitFor } from './env.js';
import { freePort, get, ignoreConflict, prepareHost, rest, startController, stopController, type Proc } from './harness.js';

const host = rest('host');
const pki = path.join(k8sEnv().dir, 'host', 'pki');
const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const SERVICE = '/api/v1/namespaces/karmada-system/services';
const GROUP_VERSIONS = ['cluster.karmada.io/v1alpha1', 'search.karmada.io/v1alpha1'];
// The manifest's Service port is 443. As root the server listens there, on a loopback address of its own
// (the ExternalName Service names it) so that nothing else on the machine is disturbed; otherwise on a free
// port, and that one number of the applied object is changed (the only difference from the file).
const privileged = process.getuid?.() === 0;
const address = `127.${50 + (process.pid % 150)}.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`;
let port = 443;
let server: AggregatedServer | undefined;
let controller: Proc | undefined;

/** `envsubst < deploy/aggregated-api/apiservices.yaml`: the documents with ${CA_BUNDLE} filled in. */
function manifest(): any[] {
  const ca = readFileSync(path.join(pki, 'ca.crt')).toString('base64');
  const text = readFileSync(path.join(repoRoot, 'deploy', 'aggregated-api', 'apiservices.yaml'), 'utf8').replaceAll('${CA_BUNDLE}', ca);
  return parseAllDocuments(text).map((d) => d.toJSON());
}

/** `kubectl apply -f -` of one object that exists and was never applied: a merge patch with the last-applied annotation. */
async function kubectlApply(obj: any): Promise<void> {
  const applied = { ...obj, metadata: { ...obj.metadata, annotations: { ...obj.metadata.annotations, 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(obj) + '\n' } } };
  await host.request('PATCH', `${APISERVICES}/${obj.metadata.name}`, { body: applied, contentType: 'application/merge-patch+json' });
}

const available = (s: any) => s?.status?.conditions?.some((c: any) => c.type === 'Available' && c.status === 'True');

beforeAll(async () => {
  // the binary (the controller is started below), the CRDs, member1 and member2
  await prepareHost(host, `aggregated-install-${Date.now().toString(36)}`);
  // the CRD registration's own APIServices, as a fresh host has them
  for (const gv of GROUP_VERSIONS) {
    const name = `${gv.split('/')[1]}.${gv.split('/')[0]}`;
    await waitFor(`the CRD's APIService ${name}`, async () => {
      const s = await get(host, `${APISERVICES}/${name}`);
      return s && !s.spec.service && s.metadata.labels?.['kube-aggregator.kubernetes.io/automanaged'] === 'true' ? true : undefined;
    });
  }
  if (!privileged) port = await freePort();
  server = await createAggregatedApi(kubeConfig('host'), {
    certFile: path.join(pki, 'aggregated-serving.crt'),
    keyFile: path.join(pki, 'aggregated-serving.key'),
    port,
    bindAddress: privileged ? address : '127.0.0.1',
    allowTtlMs: 10_000,
    denyTtlMs: 10_000,
    logger: createLogger({ level: 'error' }),
  });
  await server.start();
  await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'karmada-system' } } }));
  await host.request('DELETE', `${SERVICE}/karmada-aggregated-apiserver`).catch(() => undefined);
  await host.request('POST', SERVICE, {
    body: { metadata: { name: 'karmada-aggregated-apiserver' }, spec: { type: 'ExternalName', externalName: privileged ? address : 'localhost', ports: [{ name: 'https', port, protocol: 'TCP' }] } },
  });
});

afterAll(async () => {
  await stopController(controller);
  // back to the CRDs, waited for, so that the next suite finds the host as it was
  for (const gv of GROUP_VERSIONS) await unregisterApiService(host, gv);
  await server?.stop();
});

describe('the aggregated API installs as documented', () => {
  it('applying deploy/aggregated-api/apiservices.yaml over the CRD\'s APIServices takes effect and stays: the cluster proxy answers', async () => {
    const docs = manifest();
    expect(docs.map((d) => d.metadata.name)).toEqual(['v1alpha1.cluster.karmada.io', 'v1alpha1.search.karmada.io']);
    for (const d of docs) await kubectlApply(privileged ? d : { ...d, spec: { ...d.spec, service: { ...d.spec.service, port } } });
    const cluster = await waitFor(
      'v1alpha1.cluster.karmada.io to route to the server and be Available',
      async () => {
        const s = await get(host, `${APISERVICES}/v1alpha1.cluster.karmada.io`);
        return s?.spec?.service?.name === 'karmada-aggregated-apiserver' && available(s) ? s : undefined;
      },
      60_000,
    );
    expect(cluster.metadata.labels['kube-aggregator.kubernetes.io/automanaged']).toBe('false');
    // the proxy, through the real aggregator, reaches member1's apiserver
    const versions = await host.request('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy/api');
    expect(versions).toMatchObject({ kind: 'APIVersions' });
    // the search APIService was taken over too (this server serves no search: it is not Available, which is not asked here)
    const search = await get(host, `${APISERVICES}/v1alpha1.search.karmada.io`);
    expect(search.spec.service).toMatchObject({ name: 'karmada-aggregated-apiserver', namespace: 'karmada-system' });
    // it stays: a write the autoregister controller would react to is followed by the same routing
    await host.request('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy/api');
    expect((await get(host, `${APISERVICES}/v1alpha1.cluster.karmada.io`)).spec.service?.name).toBe('karmada-aggregated-apiserver');
  });

  it('the controller starts while the APIService is registered and its server is down, and reads the Clusters', async () => {
    await server!.stop();
    server = undefined;
    await waitFor('the APIService to be unavailable', async () => {
      const s = await get(host, `${APISERVICES}/v1alpha1.cluster.karmada.io`);
      return s?.spec?.service && !available(s) ? true : undefined;
    });
    controller = await startController();
    // ready means its caches are filled: the Clusters among them, read at the CRD's storage version
    expect(controller.child.exitCode).toBeNull();
    await waitFor('member1 Ready by the controller', async () => {
      const c = await get(host, '/apis/cluster.karmada.io/v1alpha1storage/clusters/member1');
      return c?.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? true : undefined;
    });
  });
});
