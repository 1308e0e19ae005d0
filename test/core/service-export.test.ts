// The MCS API flow (src/core/service-export.ts): Karmada's serviceExport, endpointSlice and serviceImport controllers.
import { describe, expect, it } from 'vitest';
import { coreControllers } from '../../src/core/controllers.js';
import { CLUSTER, SERVICE_EXPORT, SERVICE_IMPORT, WORK } from '../../src/core/kinds.js';
import { ENDPOINT_SLICE, reportedWork, SERVICE } from '../../src/core/multi-cluster-service.js';
import { refKey, type KObject } from '../../src/core/object.js';
import { withCoreDefaults, type ReconcileContext, type Write } from '../../src/core/ports.js';
import {
  exportKey,
  exportReportedWork,
  reconcileImportedEndpointSlice,
  reconcileServiceExport,
  reconcileServiceImport,
  SERVICE_EXPORT_CONTROLLER,
} from '../../src/core/service-export.js';
import { generateWorkName } from '../../src/api/constants.js';
import { EmbeddedStore } from '../../src/store/embedded.js';

const NOW = new Date('2024-01-01T00:10:00Z');
const ready = (status: 'True' | 'False') => [{ type: 'Ready', status, reason: 'r', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' }];
const cluster = (name: string, isReady = true): KObject => ({ ...CLUSTER, metadata: { name }, spec: { syncMode: 'Push' }, status: { conditions: ready(isReady ? 'True' : 'False') } });
const exportWork = (applied: boolean): KObject => ({
  ...WORK,
  metadata: { name: generateWorkName('ServiceExport', 'web', 'ns'), namespace: 'karmada-es-member1' },
  spec: { workload: { manifests: [{ ...SERVICE_EXPORT, metadata: { name: 'web', namespace: 'ns' } }] } },
  status: { conditions: [{ type: 'Applied', status: applied ? 'True' : 'False', reason: 'r', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' }] },
});
const slice = (name: string, ips: string[], managedBy = 'endpointslice-controller.k8s.io'): KObject => ({
  ...ENDPOINT_SLICE,
  metadata: { name, namespace: 'ns', labels: { 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': managedBy } },
  addressType: 'IPv4',
  endpoints: ips.map((ip) => ({ addresses: [ip] })),
});

function storeOf(objects: KObject[], members: Record<string, KObject[]> = {}): EmbeddedStore {
  const store = new EmbeddedStore();
  for (const o of objects) store.create(o);
  for (const [m, list] of Object.entries(members)) for (const o of list) store.create(o, m);
  return store;
}
const ctxOf = (store: EmbeddedStore): ReconcileContext => ({ reader: store, now: NOW, interpreter: {} as never, schedule: (() => ({})) as never, options: withCoreDefaults({ skippedPropagatingNamespaces: [] }) });
const created = (writes: Write[]) => writes.flatMap((w) => (w.op === 'create' ? [w.object] : []));
const KEY = exportKey('member1', 'ns', 'web');

describe('serviceExport: an applied ServiceExport reports its Service’s slices', () => {
  it('reports the member’s own slices once the export is applied; Karmada’s own are skipped', () => {
    const store = storeOf([cluster('member1'), exportWork(true)], { member1: [slice('web-a', ['10.0.0.1']), slice('imported-x', ['1.1.1.1'], 'endpointslice-controller.karmada.io')] });
    const works = created(reconcileServiceExport(ctxOf(store), KEY).writes);
    expect(works).toHaveLength(1);
    expect(works[0]!.metadata).toMatchObject({
      namespace: 'karmada-es-member1',
      labels: { 'endpointslice.karmada.io/namespace': 'ns', 'endpointslice.karmada.io/name': 'web', 'endpointslice.karmada.io/managed-by': 'ServiceExport' },
      finalizers: ['karmada.io/endpointslice-controller'],
    });
    expect(works[0]!.spec.suspendDispatching).toBe(true);
  });

  it('not applied yet, or withdrawn: nothing reported, what was is released', () => {
    const reported = exportReportedWork(slice('web-a', ['10.0.0.1']), 'member1', 'web');
    expect(reconcileServiceExport(ctxOf(storeOf([cluster('member1'), exportWork(false)], { member1: [slice('web-a', ['10.0.0.1'])] })), KEY).writes).toEqual([]);
    const gone = reconcileServiceExport(ctxOf(storeOf([cluster('member1'), reported])), KEY);
    expect(gone.writes).toEqual([{ op: 'delete', ref: expect.objectContaining({ name: reported.metadata.name }) }]);
  });

  it('a Work the MultiClusterService flow also keeps: both in its managed-by label; released by one, kept for the other', () => {
    const byMcs = reportedWork(slice('web-a', ['10.0.0.1']), 'member1');
    const store = storeOf([cluster('member1'), exportWork(true), byMcs], { member1: [slice('web-a', ['10.0.0.1'])] });
    const [w] = reconcileServiceExport(ctxOf(store), KEY).writes;
    expect(w?.op === 'update' && w.object.metadata.labels?.['endpointslice.karmada.io/managed-by']).toBe('MultiClusterService.ServiceExport');
    expect(w?.op === 'update' && w.object.metadata.finalizers).toEqual(['karmada.io/mcs-endpointslice-dispatch-controller', 'karmada.io/endpointslice-controller']);
    const both = store.update(w!.op === 'update' ? w.object : byMcs);
    const release = reconcileServiceExport(ctxOf(storeOf([cluster('member1'), { ...both, metadata: { ...both.metadata, resourceVersion: undefined } }])), KEY).writes[0];
    expect(release?.op).toBe('update');
    expect(release?.op === 'update' && release.object.metadata.labels).toMatchObject({ 'endpointslice.karmada.io/managed-by': 'MultiClusterService' });
    expect(release?.op === 'update' && release.object.metadata.labels?.['endpointslice.karmada.io/name']).toBeUndefined();
  });

  it('a member slice change wakes the export only where the ServiceExport has a Work', () => {
    const ctl = coreControllers({ skippedPropagatingNamespaces: [] }).find((c) => c.name === SERVICE_EXPORT_CONTROLLER)!;
    const store = storeOf([exportWork(true)]);
    expect(ctl.keysFor({ type: 'MODIFIED', object: slice('web-a', []), old: slice('web-a', ['1.1.1.1']), cluster: 'member1' }, store)).toEqual([KEY]);
    expect(ctl.keysFor({ type: 'ADDED', object: slice('web-a', []), cluster: 'member2' }, store)).toEqual([]);
  });
});

describe('endpointSlice: reported slices as control-plane slices of the derived Service', () => {
  it('imported-<cluster>-<name>, of derived-<service>, managed by Karmada’s endpointslice-controller; the Work gone, the slice goes', () => {
    const reported = exportReportedWork(slice('web-a', ['10.0.0.1']), 'member1', 'web');
    const store = storeOf([reported]);
    const key = refKey({ ...WORK, namespace: reported.metadata.namespace, name: reported.metadata.name! });
    const [w] = reconcileImportedEndpointSlice(ctxOf(store), key).writes;
    expect(w).toMatchObject({
      op: 'create',
      object: {
        kind: 'EndpointSlice',
        metadata: { name: 'imported-member1-web-a', namespace: 'ns', labels: { 'kubernetes.io/service-name': 'derived-web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.karmada.io' } },
        endpoints: [{ addresses: ['10.0.0.1'] }],
      },
    });
    if (w?.op !== 'create') throw new Error('no create');
    store.create(w.object);
    store.delete({ ...WORK, namespace: reported.metadata.namespace, name: reported.metadata.name! });
    const gone = reconcileImportedEndpointSlice(ctxOf(store), key).writes;
    expect(gone.map((x) => x.op)).toEqual(['delete', 'update']);
    expect(gone[0]).toMatchObject({ ref: { name: 'imported-member1-web-a' } });
  });
});

describe('serviceImport: the derived Service', () => {
  const si = (spec: Record<string, unknown>): KObject => ({ ...SERVICE_IMPORT, metadata: { name: 'web', namespace: 'ns' }, spec });
  const key = refKey({ ...SERVICE_IMPORT, namespace: 'ns', name: 'web' });

  it('ClusterSetIP: derived-<name> with the import’s ports and its IPs as ingress; Headless: none; the import gone, it goes', () => {
    const store = storeOf([si({ type: 'ClusterSetIP', ports: [{ name: 'http', port: 80 }], ips: ['10.9.9.9'] })]);
    const r = reconcileServiceImport(ctxOf(store), key);
    expect(r.writes[0]).toMatchObject({ op: 'create', object: { metadata: { name: 'derived-web' }, spec: { type: 'ClusterIP', ports: [{ name: 'http', protocol: 'TCP', port: 80 }] } } });
    expect(r.events.map((e) => [e.reason, e.message])).toEqual([['SyncDerivedServiceSucceed', 'Sync derived service for serviceImport(web) succeed.']]);
    const w = r.writes[0]!;
    if (w.op !== 'create') throw new Error('no create');
    expect(w.then!(store.create(w.object)).writes[0]).toMatchObject({ op: 'updateStatus', object: { status: { loadBalancer: { ingress: [{ ip: '10.9.9.9' }] } } } });
    expect(reconcileServiceImport(ctxOf(storeOf([si({ type: 'Headless', ports: [{ port: 80 }] })])), key).writes).toEqual([]);
    const orphan = storeOf([{ ...SERVICE, metadata: { name: 'derived-web', namespace: 'ns' }, spec: {} }]);
    expect(reconcileServiceImport(ctxOf(orphan), key).writes).toEqual([{ op: 'delete', ref: expect.objectContaining({ name: 'derived-web' }) }]);
  });
});

describe('dependencies: a ServiceImport’s imported EndpointSlices wake its binding', () => {
  it('an EndpointSlice of the derived Service, created after the binding recorded its dependencies, enqueues the binding', () => {
    const ctl = coreControllers({ skippedPropagatingNamespaces: [] }).find((c) => c.name === 'dependencies')!;
    expect(ctl.watches!(ENDPOINT_SLICE, undefined)).toBe(true);
    const deps = [{ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', namespace: 'ns', labelSelector: { matchLabels: { 'kubernetes.io/service-name': 'derived-web' } } }];
    const rb: KObject = { apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', metadata: { name: 'web-serviceimport', namespace: 'ns', annotations: { 'resourcebinding.karmada.io/dependencies': JSON.stringify(deps) } }, spec: { resource: { apiVersion: SERVICE_IMPORT.apiVersion, kind: SERVICE_IMPORT.kind, namespace: 'ns', name: 'web' } } };
    const store = storeOf([rb]);
    const imported = { ...ENDPOINT_SLICE, metadata: { name: 'imported-member1-web-a', namespace: 'ns', labels: { 'kubernetes.io/service-name': 'derived-web' } } };
    expect(ctl.keysFor({ type: 'ADDED', object: imported }, store)).toEqual([refKey({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', namespace: 'ns', name: 'web-serviceimport' })]);
  });
});
