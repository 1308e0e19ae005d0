// MultiClusterService (src/core/multi-cluster-service.ts): Karmada's multiclusterservice, endpointsliceCollect and
// endpointsliceDispatch controllers as pure reconcilers.
import { describe, expect, it } from 'vitest';
import { coreControllers } from '../../src/core/controllers.js';
import { CLUSTER, MCS, WORK } from '../../src/core/kinds.js';
import {
  dispatchedWork,
  ENDPOINT_SLICE,
  ENDPOINTSLICE_COLLECT,
  ENDPOINTSLICE_DISPATCH,
  markerKeyOf,
  markerWork,
  MCS_CONTROLLER,
  reconcileEndpointSliceCollect,
  reconcileEndpointSliceDispatch,
  reconcileMultiClusterService,
  reportedWork,
  SERVICE,
} from '../../src/core/multi-cluster-service.js';
import { refKey, type KObject } from '../../src/core/object.js';
import { withCoreDefaults, type ReconcileContext, type Write } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';
import type { MultiClusterService, Work } from '../../src/api/generated/types.js';

const NOW = new Date('2024-01-01T00:10:00Z');
const ready = { type: 'Ready', status: 'True', reason: 'ClusterReady', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' };
const cluster = (name: string, isReady = true): KObject => ({ ...CLUSTER, metadata: { name }, spec: { syncMode: 'Push' }, status: { conditions: [{ ...ready, status: isReady ? 'True' : 'False' }] } });
const mcs = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}): KObject => ({
  ...MCS,
  metadata: { name: 'web', namespace: 'ns', labels: { 'multiclusterservice.karmada.io/permanent-id': 'id-1' }, finalizers: ['karmada.io/multiclusterservice-controller'], ...extra },
  spec: { types: ['CrossCluster'], ...spec },
});
const service: KObject = { ...SERVICE, metadata: { name: 'web', namespace: 'ns' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } };
const memberSlice = (name: string, ips: string[], labels: Record<string, string> = {}): KObject => ({
  ...ENDPOINT_SLICE,
  metadata: { name, namespace: 'ns', uid: 'member-uid', ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'svc-uid' }], labels: { 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', ...labels } },
  addressType: 'IPv4',
  endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
  ports: [{ port: 80, protocol: 'TCP' }],
});

function storeOf(objects: KObject[], members: Record<string, KObject[]> = {}): EmbeddedStore {
  const store = new EmbeddedStore();
  for (const o of objects) store.create(o);
  for (const [m, list] of Object.entries(members)) for (const o of list) store.create(o, m);
  return store;
}
const ctxOf = (store: EmbeddedStore, gate = true): ReconcileContext => ({
  reader: store,
  now: NOW,
  interpreter: {} as never,
  schedule: (() => ({})) as never,
  options: withCoreDefaults({ skippedPropagatingNamespaces: [], multiClusterService: gate }),
});
const mcsKey = refKey({ apiVersion: MCS.apiVersion, kind: MCS.kind, namespace: 'ns', name: 'web' });
const workKey = (w: { metadata: { namespace?: string; name?: string } }) => refKey({ apiVersion: WORK.apiVersion, kind: WORK.kind, namespace: w.metadata.namespace, name: w.metadata.name! });
const created = (writes: Write[]) => writes.flatMap((w) => (w.op === 'create' ? [w.object] : []));

describe('multiclusterservice: the Service propagated to providers and consumers', () => {
  it('marks each Ready provider with a suspended Work, claims the Service and binds it to providers ∪ consumers', () => {
    const store = storeOf([cluster('member1'), cluster('member2'), cluster('member3', false), mcs({ providerClusters: [{ name: 'member1' }, { name: 'member3' }], consumerClusters: [{ name: 'member2' }] }), service]);
    const r = reconcileMultiClusterService(ctxOf(store), mcsKey);
    const works = created(r.writes).filter((o) => o.kind === 'Work');
    expect(works.map((w) => w.metadata.namespace)).toEqual(['karmada-es-member1']);
    expect(works[0]).toMatchObject({ spec: { suspendDispatching: true, workload: { manifests: [{ kind: 'MultiClusterService', metadata: { name: 'web' } }] } } });
    expect(works[0]!.metadata.labels).toEqual({ 'multiclusterservice.karmada.io/permanent-id': 'id-1', 'multiclusterservice.karmada.io/namespace': 'ns', 'multiclusterservice.karmada.io/name': 'web' });
    // member3 is not ready: a warning, no marker.
    expect(r.events.filter((e) => e.type === 'Warning').map((e) => [e.reason, e.message])).toEqual([['SyncServiceFailed', 'Provider cluster member3 is not ready, skip to propagate MultiClusterService']]);
    const claim = r.writes.find((w) => w.op === 'update' && w.object.kind === 'Service');
    expect(claim).toBeDefined();
    if (claim?.op !== 'update') throw new Error('no claim');
    expect(claim.object.metadata.labels).toMatchObject({ 'resourcetemplate.karmada.io/claimed-by': 'MultiClusterService', 'multiclusterservice.karmada.io/permanent-id': 'id-1' });
    const stored = store.update(claim.object);
    const rb = claim.then!(stored).writes[0]!;
    expect(rb).toMatchObject({ op: 'create', object: { kind: 'ResourceBinding', metadata: { name: 'web-service', labels: { 'binding.karmada.io/managed-by': 'MultiClusterService' } }, spec: { placement: { clusterAffinity: { clusterNames: ['member1', 'member2', 'member3'] } }, conflictResolution: 'Overwrite' } } });
    const status = r.writes.find((w) => w.op === 'updateStatus');
    expect(status).toMatchObject({ object: { status: { conditions: [{ type: 'ServiceApplied', status: 'True', reason: 'ServiceAppliedSucceed' }] } } });
    expect(r.events.some((e) => e.reason === 'SyncServiceSucceed')).toBe(true);
  });

  it('without its Service: ServiceApplied=False, SyncServiceFailed, retried', () => {
    const r = reconcileMultiClusterService(ctxOf(storeOf([cluster('member1'), mcs({})])), mcsKey);
    expect(r.error).toBe('services "web" not found');
    expect(r.writes.find((w) => w.op === 'updateStatus')).toMatchObject({ object: { status: { conditions: [{ type: 'ServiceApplied', status: 'False', reason: 'ServiceAppliedFailed' }] } } });
    expect(r.events.map((e) => e.reason)).toContain('SyncServiceFailed');
  });

  it('empty provider and consumer lists mean every cluster; a named cluster that does not exist is ClusterNotFound', () => {
    const all = reconcileMultiClusterService(ctxOf(storeOf([cluster('member1'), cluster('member2'), mcs({}), service])), mcsKey);
    expect(created(all.writes).filter((o) => o.kind === 'Work').map((w) => w.metadata.namespace)).toEqual(['karmada-es-member1', 'karmada-es-member2']);
    const missing = reconcileMultiClusterService(ctxOf(storeOf([cluster('member1'), mcs({ providerClusters: [{ name: 'ghost' }] }), service])), mcsKey);
    expect(missing.events.find((e) => e.reason === 'ClusterNotFound')?.message).toBe('Provider cluster ghost is not found');
  });

  it('deleted: the markers and what they reported go, the Service and its binding are let go, then the finalizer', () => {
    const m = mcs({ providerClusters: [{ name: 'member1' }] });
    const marker = markerWork(m as MultiClusterService, 'member1');
    const reported = reportedWork(memberSlice('web-abc', ['10.0.0.1']), 'member1');
    const claimedSvc = { ...service, metadata: { ...service.metadata, labels: { 'resourcetemplate.karmada.io/claimed-by': 'MultiClusterService', 'multiclusterservice.karmada.io/permanent-id': 'id-1' } } };
    const store = storeOf([cluster('member1'), m, marker, reported, claimedSvc]);
    store.delete({ ...MCS, namespace: 'ns', name: 'web' });
    const r = reconcileMultiClusterService(ctxOf(store), mcsKey);
    expect(r.writes.filter((w) => w.op === 'delete').map((w) => (w.op === 'delete' ? w.ref.name : ''))).toEqual([reported.metadata.name, marker.metadata.name]);
    const svc = r.writes.find((w) => w.op === 'update' && w.object.kind === 'Service');
    expect(svc?.op === 'update' && svc.object.metadata.labels).toBeFalsy();
    const last = r.writes[r.writes.length - 1]!;
    expect(last.op === 'update' && last.object.kind === 'MultiClusterService' && last.object.metadata.finalizers).toBeFalsy();
  });

  it('behind its feature gate: nothing happens while MultiClusterService is off', () => {
    const ctl = coreControllers({ skippedPropagatingNamespaces: [] }).find((c) => c.name === MCS_CONTROLLER)!;
    expect(ctl.reconcile(ctxOf(storeOf([cluster('member1'), mcs({}), service]), false), mcsKey)).toEqual({ writes: [], events: [] });
  });
});

describe('endpointsliceCollect: a provider member’s EndpointSlices reported as suspended Works', () => {
  const m = mcs({ providerClusters: [{ name: 'member1' }] });
  const marker = markerWork(m as MultiClusterService, 'member1');

  it('the member’s own slices reported, without what the member stamped; Karmada’s dispatched ones skipped', () => {
    const store = storeOf([cluster('member1'), m, marker], {
      member1: [memberSlice('web-abc', ['10.0.0.1', '10.0.0.2']), memberSlice('member2-web-x', ['10.1.0.1'], { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-dispatch-controller.karmada.io' })],
    });
    const r = reconcileEndpointSliceCollect(ctxOf(store), workKey(marker));
    const works = created(r.writes);
    expect(works).toHaveLength(1);
    const w = works[0]!;
    expect(w.metadata).toMatchObject({ namespace: 'karmada-es-member1', finalizers: ['karmada.io/mcs-endpointslice-dispatch-controller'], labels: { 'endpointslice.karmada.io/managed-by': 'MultiClusterService', 'multiclusterservice.karmada.io/name': 'web' } });
    expect(w.spec.suspendDispatching).toBe(true);
    const slice = w.spec.workload.manifests[0];
    expect(slice.metadata).toEqual({ name: 'web-abc', namespace: 'ns', labels: { ...memberSlice('web-abc', []).metadata.labels, 'karmada.io/managed': 'true' } });
    expect(slice.endpoints.map((e: any) => e.addresses[0])).toEqual(['10.0.0.1', '10.0.0.2']);
  });

  it('a slice gone from the member: its reported Work deleted; a provider not ready: retried', () => {
    const stale = reportedWork(memberSlice('web-old', ['10.0.0.9']), 'member1');
    const r = reconcileEndpointSliceCollect(ctxOf(storeOf([cluster('member1'), m, marker, stale], { member1: [] })), workKey(marker));
    expect(r.writes).toEqual([{ op: 'delete', ref: expect.objectContaining({ name: stale.metadata.name }) }]);
    expect(reconcileEndpointSliceCollect(ctxOf(storeOf([cluster('member1', false), m, marker])), workKey(marker)).error).toBe('cluster(member1) not ready');
  });

  it('a member slice change wakes the marker of its Service’s MultiClusterService', () => {
    expect(markerKeyOf(memberSlice('web-abc', []), 'member1')).toBe(workKey(marker));
    const ctl = coreControllers({ skippedPropagatingNamespaces: [] }).find((c) => c.name === ENDPOINTSLICE_COLLECT)!;
    const store = storeOf([marker]);
    expect(ctl.keysFor({ type: 'ADDED', object: memberSlice('web-abc', []), cluster: 'member1' }, store)).toEqual([workKey(marker)]);
    expect(ctl.keysFor({ type: 'ADDED', object: memberSlice('web-abc', []), cluster: 'member2' }, store)).toEqual([]);
  });
});

describe('endpointsliceDispatch: reported slices sent to the consumers', () => {
  const m = mcs({ providerClusters: [{ name: 'member1' }], consumerClusters: [{ name: 'member1' }, { name: 'member2' }] });
  const reported = reportedWork(memberSlice('web-abc', ['10.0.0.1']), 'member1');

  it('to every consumer but the provider, as <provider>-<name> with Karmada’s labels; EndpointSliceDispatched=True', () => {
    const r = reconcileEndpointSliceDispatch(ctxOf(storeOf([cluster('member1'), cluster('member2'), m, reported])), workKey(reported));
    const works = created(r.writes);
    expect(works.map((w) => w.metadata.namespace)).toEqual(['karmada-es-member2']);
    expect(works[0]!.metadata).toMatchObject({ name: reported.metadata.name, finalizers: ['karmada.io/execution-controller'], annotations: { 'endpointslice.karmada.io/provision-cluster': 'member1' } });
    const slice = (works[0] as Work).spec.workload!.manifests![0]!;
    expect(slice.metadata).toEqual({
      name: 'member1-web-abc',
      namespace: 'ns',
      labels: { 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-dispatch-controller.karmada.io', 'karmada.io/managed': 'true' },
      annotations: { 'endpointslice.karmada.io/provision-cluster': 'member1' },
    });
    expect(r.writes.find((w) => w.op === 'updateStatus')).toMatchObject({ object: { status: { conditions: [{ type: 'EndpointSliceDispatched', status: 'True', reason: 'EndpointSliceDispatchedSucceed' }] } } });
    expect(r.events.map((e) => e.reason)).toEqual(['DispatchEndpointSliceSucceed']);
  });

  it('a consumer dropped: its copy deleted; the reported Work deleted: every copy, then the dispatch finalizer', () => {
    const copy = dispatchedWork(reported, m as MultiClusterService, 'member1', 'member2')!;
    const narrowed = mcs({ providerClusters: [{ name: 'member1' }], consumerClusters: [{ name: 'member1' }] });
    const r = reconcileEndpointSliceDispatch(ctxOf(storeOf([cluster('member1'), cluster('member2'), narrowed, reported, copy])), workKey(reported));
    expect(r.writes.filter((w) => w.op === 'delete')).toEqual([{ op: 'delete', ref: expect.objectContaining({ namespace: 'karmada-es-member2', name: copy.metadata.name }) }]);
    const goingStore = storeOf([cluster('member2'), reported, copy]);
    goingStore.delete({ ...WORK, namespace: reported.metadata.namespace, name: reported.metadata.name! });
    const d = reconcileEndpointSliceDispatch(ctxOf(goingStore), workKey(reported));
    expect(d.writes.map((w) => w.op)).toEqual(['delete', 'update']);
    const release = d.writes[1]!;
    expect(release.op === 'update' && release.object.metadata.finalizers).toBeFalsy();
  });

  it('a MultiClusterService change wakes its reported Works, not the dispatched copies', () => {
    const copy = dispatchedWork(reported, m as MultiClusterService, 'member1', 'member2')!;
    const ctl = coreControllers({ skippedPropagatingNamespaces: [] }).find((c) => c.name === ENDPOINTSLICE_DISPATCH)!;
    const store = storeOf([reported, copy]);
    const old = mcs({ consumerClusters: [{ name: 'member2' }] });
    expect(ctl.keysFor({ type: 'MODIFIED', object: m, old }, store)).toEqual([workKey(reported)]);
    expect(ctl.keysFor({ type: 'MODIFIED', object: m, old: m }, store)).toEqual([]);
  });
});
