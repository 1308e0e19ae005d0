// End to end: a MultiClusterService of type CrossCluster in the real binary, on the kwok fleet. As in Karmada's
// e2e (test/e2e/suites/base/mcs_test.go), a Deployment goes to member1 by a policy and the MultiClusterService
// propagates the Service itself; member1's kube-controller-manager writes the EndpointSlice of the Service from
// the Pods kwok made Ready (never this test), and the controller dispatches it to member2 as
// `member1-<slice>` with Karmada's labels. Deleting the MultiClusterService takes the dispatched slice away.
// The MCS API flow (second case, Karmada's "Export Service from source-clusters, import Service to
// destination-clusters"): a ServiceExport propagated with the Service to member1, a ServiceImport to member2; member2
// gets the Service derived-<name> and member1's slice as imported-member1-<slice>.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot, waitFor } from './env.js';
import { createDeploymentWithPolicy, diagnose, get, ignoreConflict, prepareHost, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';

const ID = Date.now().toString(36);
const NS = `mcs-e2e-${ID}`;
const NAME = `web-${ID}`;
const MCS_PATH = `/apis/networking.karmada.io/v1alpha1/namespaces/${NS}/multiclusterservices`;
const SLICES = `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`;
const SERVICES = `/api/v1/namespaces/${NS}/services`;

interface Slice {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  endpoints?: Array<{ addresses: string[] }>;
}

const EXPORTED = `api-${ID}`;

/** The MCS API's CRDs on a member, as Karmada's members have them (crds/multicluster.x-k8s.io_*). */
async function installMcsApi(member: ReturnType<typeof rest>): Promise<void> {
  for (const f of ['multicluster.x-k8s.io_serviceexports.yaml', 'multicluster.x-k8s.io_serviceimports.yaml']) {
    const crd = parse(readFileSync(path.join(repoRoot, 'crds', f), 'utf8'));
    await ignoreConflict(member.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd }));
    await waitFor(`CRD ${crd.metadata.name} established`, async () => {
      const cur = await member.request<any>('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
      return cur.status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True') ? true : undefined;
    });
  }
  member.resetDiscovery();
}

describe('karmada-lite controller: MultiClusterService and the MCS API', () => {
  const host = rest('host');
  const member1 = rest('member1');
  const member2 = rest('member2');
  let ctrl: Proc | undefined;

  beforeAll(async () => {
    await prepareHost(host, NS);
    ctrl = await startController(['--feature-gates=MultiClusterService=true']);
  });

  afterAll(async () => {
    await host.request('DELETE', `${MCS_PATH}/${NAME}`).catch(() => undefined);
    await host.request('DELETE', `${SERVICES}/${NAME}`).catch(() => undefined);
    for (const p of [`/apis/multicluster.x-k8s.io/v1alpha1/namespaces/${NS}/serviceexports/${EXPORTED}`, `/apis/multicluster.x-k8s.io/v1alpha1/namespaces/${NS}/serviceimports/${EXPORTED}`, `${SERVICES}/${EXPORTED}`]) await host.request('DELETE', p).catch(() => undefined);
    for (const p of ['serviceexports', 'serviceimports']) await host.request('DELETE', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${p}`).catch(() => undefined);
    await removeDeployments(NS, [NAME, EXPORTED]);
    const code = await stopController(ctrl);
    if (code !== 0) console.error(await diagnose(ctrl));
    await host.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
    // The members as other suites expect them: without the MCS API.
    for (const m of [member1, member2]) for (const crd of ['serviceexports.multicluster.x-k8s.io', 'serviceimports.multicluster.x-k8s.io']) await m.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`).catch(() => undefined);
  });

  const slicesOf = async (c: typeof host): Promise<Slice[]> =>
    ((await c.request<{ items: Slice[] }>('GET', `${SLICES}?labelSelector=${encodeURIComponent(`kubernetes.io/service-name=${NAME}`)}`)).items ?? []);
  const addresses = (s: readonly Slice[]) => s.flatMap((x) => (x.endpoints ?? []).flatMap((e) => e.addresses)).sort();

  it("member1's EndpointSlice reaches member2 with Karmada's name and labels; the MultiClusterService deleted, it goes", async () => {
    await createDeploymentWithPolicy(NS, NAME, 2, { placement: { clusterAffinity: { clusterNames: ['member1'] } } });
    await host.request('POST', SERVICES, {
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name: NAME, namespace: NS }, spec: { selector: { app: NAME }, ports: [{ port: 80, targetPort: 80 }] } },
    });
    await host.request('POST', MCS_PATH, {
      body: {
        apiVersion: 'networking.karmada.io/v1alpha1',
        kind: 'MultiClusterService',
        metadata: { name: NAME, namespace: NS },
        spec: { types: ['CrossCluster'], providerClusters: [{ name: 'member1' }], consumerClusters: [{ name: 'member2' }] },
      },
    });

    // The Service itself is propagated by the MultiClusterService to provider and consumer.
    for (const m of [member1, member2]) await waitFor('the Service on both members', async () => ((await get(m, `${SERVICES}/${NAME}`)) ? true : undefined));
    // member1's own slice, with the IPs kwok gave its Ready Pods.
    const podIps = await waitFor("member1's EndpointSlice with both Pods' IPs", async () => {
      const own = (await slicesOf(member1)).filter((s) => s.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === 'endpointslice-controller.k8s.io');
      const ips = addresses(own);
      return ips.length === 2 ? { ips, names: own.map((s) => s.metadata.name) } : undefined;
    });
    const dispatched = await waitFor('the dispatched EndpointSlice on member2', async () => {
      const found = (await slicesOf(member2)).filter((s) => s.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === 'endpointslice-dispatch-controller.karmada.io');
      return found.length && deepIps(found, podIps.ips) ? found : undefined;
    });
    expect(dispatched.map((s) => s.metadata.name).sort()).toEqual(podIps.names.map((n) => `member1-${n}`).sort());
    for (const s of dispatched) {
      expect(s.metadata.labels?.['kubernetes.io/service-name']).toBe(NAME);
      expect(s.metadata.annotations?.['endpointslice.karmada.io/provision-cluster']).toBe('member1');
    }
    // Nothing goes back to the provider.
    expect((await slicesOf(member1)).some((s) => s.metadata.name.startsWith('member1-'))).toBe(false);

    const mcs = await get(host, `${MCS_PATH}/${NAME}`);
    const conditions = (mcs.status?.conditions ?? []) as Array<{ type: string; status: string; reason: string }>;
    expect(conditions.find((c) => c.type === 'ServiceApplied')).toMatchObject({ status: 'True', reason: 'ServiceAppliedSucceed' });
    await waitFor('EndpointSliceDispatched=True', async () => {
      const m = await get(host, `${MCS_PATH}/${NAME}`);
      return (m.status?.conditions ?? []).some((c: any) => c.type === 'EndpointSliceDispatched' && c.status === 'True') ? true : undefined;
    });
    const events = await waitFor('the SyncServiceSucceed and DispatchEndpointSliceSucceed events', async () => {
      const list = (await host.request<{ items: Array<{ reason: string; involvedObject: { kind: string; name: string } }> }>('GET', `/api/v1/namespaces/${NS}/events`)).items;
      const reasons = new Set(list.filter((e) => e.involvedObject.kind === 'MultiClusterService' && e.involvedObject.name === NAME).map((e) => e.reason));
      return reasons.has('SyncServiceSucceed') && reasons.has('DispatchEndpointSliceSucceed') ? reasons : undefined;
    });
    expect(events.has('SyncServiceFailed')).toBe(false);

    // Scaled up on member1: the new Pod's IP reaches member2 too.
    await host.request('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/${NAME}`, { body: { spec: { replicas: 3 } }, contentType: 'application/merge-patch+json' });
    await waitFor('three addresses on member2', async () => (addresses(dispatchedOn(await slicesOf(member2))).length === 3 ? true : undefined));

    await host.request('DELETE', `${MCS_PATH}/${NAME}`);
    await waitFor('the dispatched EndpointSlice gone from member2', async () => (dispatchedOn(await slicesOf(member2)).length === 0 ? true : undefined));
    await waitFor('the MultiClusterService gone (finalizer released)', async () => ((await get(host, `${MCS_PATH}/${NAME}`)) ? undefined : true));
    // member1's own slice is the member's, untouched.
    expect(addresses(await slicesOf(member1)).length).toBe(3);
  });

  const MC = `/apis/multicluster.x-k8s.io/v1alpha1/namespaces/${NS}`;
  const PPS = `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`;

  it("member1's exported Service reaches member2 as derived-<name> with member1's endpoints as imported-member1-<slice>", async () => {
    await installMcsApi(member1);
    await installMcsApi(member2);
    await createDeploymentWithPolicy(NS, EXPORTED, 2, { placement: { clusterAffinity: { clusterNames: ['member1'] } } });
    await host.request('POST', SERVICES, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: EXPORTED, namespace: NS }, spec: { selector: { app: EXPORTED }, ports: [{ port: 80, targetPort: 80 }] } } });
    await host.request('POST', `${MC}/serviceexports`, { body: { apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceExport', metadata: { name: EXPORTED, namespace: NS } } });
    await host.request('POST', `${MC}/serviceimports`, { body: { apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceImport', metadata: { name: EXPORTED, namespace: NS }, spec: { type: 'ClusterSetIP', ports: [{ port: 80, protocol: 'TCP' }] } } });
    await host.request('POST', PPS, {
      body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: 'serviceexports', namespace: NS }, spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'Service', name: EXPORTED }, { apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceExport', name: EXPORTED }], placement: { clusterAffinity: { clusterNames: ['member1'] } } } },
    });
    // propagateDeps as Karmada's mutating webhook sets it for a policy selecting a ServiceImport (no webhook here).
    await host.request('POST', PPS, {
      body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: 'serviceimports', namespace: NS }, spec: { resourceSelectors: [{ apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceImport', name: EXPORTED }], propagateDeps: true, placement: { clusterAffinity: { clusterNames: ['member2'] } } } },
    });
    const sliceList = async (c: typeof host, service: string) =>
      ((await c.request<{ items: Slice[] }>('GET', `${SLICES}?labelSelector=${encodeURIComponent(`kubernetes.io/service-name=${service}`)}`)).items ?? []);
    const own = await waitFor("member1's EndpointSlice with both Pods' IPs", async () => {
      const list = (await sliceList(member1, EXPORTED)).filter((s) => s.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === 'endpointslice-controller.k8s.io');
      return list.flatMap((x) => (x.endpoints ?? []).flatMap((e) => e.addresses)).length === 2 ? list : undefined;
    });
    const derived = `derived-${EXPORTED}`;
    const svc = await waitFor('the derived Service on member2', async () => get(member2, `${SERVICES}/${derived}`));
    expect(svc.spec.ports.map((p: any) => p.port)).toEqual([80]);
    const imported = await waitFor('the imported EndpointSlice on member2', async () => {
      const list = await sliceList(member2, derived);
      return list.length && deepIps(list, own.flatMap((x) => (x.endpoints ?? []).flatMap((e) => e.addresses)).sort()) ? list : undefined;
    });
    expect(imported.map((s) => s.metadata.name).sort()).toEqual(own.map((s) => `imported-member1-${s.metadata.name}`).sort());
    expect(imported.every((s) => s.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === 'endpointslice-controller.karmada.io')).toBe(true);

    // The export withdrawn: the imported slice goes from the control plane, and so from member2.
    await host.request('DELETE', `${MC}/serviceexports/${EXPORTED}`);
    await waitFor('the imported EndpointSlice gone from member2', async () => ((await sliceList(member2, derived)).length === 0 ? true : undefined));
  });
});

const dispatchedOn = (s: readonly Slice[]) => s.filter((x) => x.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === 'endpointslice-dispatch-controller.karmada.io');

function deepIps(found: readonly Slice[], ips: readonly string[]): boolean {
  const got = found.flatMap((x) => (x.endpoints ?? []).flatMap((e) => e.addresses)).sort();
  return got.length === ips.length && got.every((v, i) => v === ips[i]);
}
