// An APIService of the host pointed at an aggregated apiserver on loopback, and taken away again, without
// vitest (the suites reach it through aggregated-harness.ts, bench/search.bench.ts directly). The aggregator
// reaches 127.0.0.1 through an ExternalName Service (localhost, the server's port): Endpoints refuse loopback
// addresses and no kube-proxy serves a ClusterIP here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RestClient } from '../../src/kube/rest.js';
import { get, ignoreConflict, waitFor } from './k8s-env.js';

const apiServiceName = (gv: string) => `${gv.split('/')[1]}.${gv.split('/')[0]}`;
const SERVICE = '/api/v1/namespaces/karmada-system/services';

/** Registers the APIService for a server on 127.0.0.1:`port` (its certificate from scripts/k8s/env.sh in `envDir`) and waits until it is Available. */
export async function registerApiService(host: RestClient, envDir: string, port: number, groupVersion: string): Promise<void> {
  const APISERVICE = apiServiceName(groupVersion);
  const [group, version] = groupVersion.split('/') as [string, string];
  const ca = readFileSync(path.join(envDir, 'host', 'pki', 'ca.crt')).toString('base64');
  await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'karmada-system' } } }));
  await host.request('DELETE', `${SERVICE}/karmada-aggregated-apiserver`).catch(() => undefined);
  await ignoreConflict(
    host.request('POST', SERVICE, {
      body: { metadata: { name: 'karmada-aggregated-apiserver' }, spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port, protocol: 'TCP' }] } },
    }),
  );
  const apiService = {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: APISERVICE },
    spec: {
      group,
      version,
      groupPriorityMinimum: 2000,
      versionPriority: 200,
      service: { name: 'karmada-aggregated-apiserver', namespace: 'karmada-system', port },
      caBundle: ca,
    },
  };
  // the CRD's own APIService of that name exists (automanaged); ours replaces it
  const cur = await get(host, `/apis/apiregistration.k8s.io/v1/apiservices/${APISERVICE}`);
  if (cur) await host.request('PUT', `/apis/apiregistration.k8s.io/v1/apiservices/${APISERVICE}`, { body: { ...apiService, metadata: { name: APISERVICE, resourceVersion: cur.metadata.resourceVersion } } });
  else await host.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', { body: apiService });
  await waitFor(
    'the APIService to be available',
    async () => {
      const s = await get(host, `/apis/apiregistration.k8s.io/v1/apiservices/${APISERVICE}`);
      return s?.spec?.service?.port === port && s?.status?.conditions?.some((c: any) => c.type === 'Available' && c.status === 'True') ? true : undefined;
    },
    60_000,
  );
}

/**
 * Back to the CRD: the APIService deleted, and waited for until the host's CRD registration serves the
 * group-version again, so that the next user finds the CRD path as it was.
 */
export async function unregisterApiService(host: RestClient, groupVersion: string): Promise<void> {
  const APISERVICE = apiServiceName(groupVersion);
  await host.request('DELETE', `/apis/apiregistration.k8s.io/v1/apiservices/${APISERVICE}`).catch(() => undefined);
  await host.request('DELETE', `${SERVICE}/karmada-aggregated-apiserver`).catch(() => undefined);
  await waitFor(
    `the CRD to serve ${groupVersion} again`,
    async () => {
      const s = await get(host, `/apis/apiregistration.k8s.io/v1/apiservices/${APISERVICE}`);
      return s && !s.spec.service && s.status?.conditions?.some((c: any) => c.type === 'Available' && c.status === 'True') ? true : undefined;
    },
    60_000,
  );
}
