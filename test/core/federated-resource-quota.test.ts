// FederatedResourceQuota (src/core/federated-resource-quota.ts, src/validation/federated-resource-quota.ts): Karmada's
// /validate-federatedresourcequota texts, the sync controller's ResourceQuota Works, the status controller's
// aggregatedStatus / overall / overallUsed, the enforcement controller's count from bindings, and the charge the
// ResourceBinding webhook makes of a scheduled binding under FederatedQuotaEnforcement.
import { describe, expect, it } from 'vitest';
import type { FederatedResourceQuota, ResourceBinding, Work } from '../../src/api/generated/types.js';
import { coreControllers } from '../../src/core/controllers.js';
import {
  aggregatedQuotaStatus,
  bindingUsage,
  chargeBinding,
  chargeScheduledBinding,
  FRQ_ENFORCEMENT,
  FRQ_STATUS,
  FRQ_SYNC,
  frqKey,
  quotaWorkName,
  reconcileQuotaEnforcement,
  reconcileQuotaStatus,
  reconcileQuotaSync,
  sumUsed,
  usedByBindings,
} from '../../src/core/federated-resource-quota.js';
import type { KObject } from '../../src/core/object.js';
import { withCoreDefaults, type CoreOptions, type ReconcileContext } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';
import { aggregate, errorText } from '../../src/validation/field-errors.js';
import { validateFederatedResourceQuota } from '../../src/validation/federated-resource-quota.js';
import { validate, VALIDATED_KINDS } from '../../src/validation/rules.js';
import { findKind, validateSchema } from '../../src/validation/schema.js';
import { review, ROUTES } from '../../src/webhook/review.js';

const NOW = new Date('2024-01-01T00:00:00Z');
const KIND = 'FederatedResourceQuota';

const frq = (spec: Record<string, unknown>, status?: Record<string, unknown>, name = 'team-quota'): FederatedResourceQuota => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: KIND,
  metadata: { name, namespace: 'team', uid: `uid-${name}` },
  spec: spec as FederatedResourceQuota['spec'],
  ...(status ? { status } : {}),
});

const texts = (o: unknown) => validateFederatedResourceQuota(o as never).map(errorText);

describe('admission (/validate-federatedresourcequota)', () => {
  it('is served and admits a quota whose assignments fit in overall', () => {
    expect(VALIDATED_KINDS.has(KIND)).toBe(true);
    expect(ROUTES.find((r) => r.path === '/validate-federatedresourcequota')).toMatchObject({ mode: 'validate', kind: KIND });
    const ok = frq({ overall: { cpu: '10', memory: '20Gi', pods: '50' }, staticAssignments: [{ clusterName: 'member1', hard: { cpu: '4', memory: '8Gi' } }, { clusterName: 'member2', hard: { cpu: '6' } }] });
    expect(validate(KIND, { operation: 'CREATE', namespace: 'team', object: ok as never })).toEqual([]);
  });

  it('assignments above overall, and resources overall does not name, in Karmada\'s words', () => {
    const q = frq({ overall: { cpu: '5' }, staticAssignments: [{ clusterName: 'member1', hard: { cpu: '4', memory: '1Gi' } }, { clusterName: 'member2', hard: { cpu: '1500m' } }] });
    expect(texts(q)).toEqual([
      'spec.overall[cpu]: Invalid value: "5": overall is less than assignments',
      'spec.staticAssignments[0].hard[memory]: Invalid value: "memory": assignment resourceName is not exist in overall',
    ]);
  });

  it('resource names a quota takes, non-negative quantities, whole numbers for counted resources', () => {
    const q = frq({ overall: { cpu: '-1', 'count/deployments.apps': '2', pods: '1500m', bogus: '1', 'requests.nvidia.com/gpu': '2' } });
    expect(texts(q)).toEqual([
      'spec.overall[bogus]: Invalid value: "bogus": must be a standard resource type or fully qualified',
      'spec.overall[bogus]: Invalid value: "bogus": must be a standard resource for quota',
      'spec.overall[cpu]: Invalid value: "-1": must be greater than or equal to 0',
      'spec.overall[pods]: Invalid value: "1500m": must be an integer',
      // Karmada compares every overall entry with the assignments' sum, zero when none names it.
      'spec.overall[cpu]: Invalid value: "-1": overall is less than assignments',
    ]);
  });

  it('cluster names as ValidateClusterName checks them; a name that would not fit in a label value', () => {
    const q = { ...frq({ overall: { cpu: '1' }, staticAssignments: [{ clusterName: 'Member_1', hard: { cpu: '1' } }, { clusterName: 'm'.repeat(49), hard: {} }] }), metadata: { name: 'q'.repeat(64), namespace: 'team' } };
    const t = texts(q);
    expect(t[0]).toBe(`metadata.name: Invalid value: "${'q'.repeat(64)}": must be no more than 63 characters`);
    expect(t[1]).toMatch(/^spec\.staticAssignments\[0\]\.clusterName: Invalid value: "Member_1": a lowercase RFC 1123 label must consist of/);
    expect(t[2]).toBe(`spec.staticAssignments[1].clusterName: Invalid value: "${'m'.repeat(49)}": must be no more than 48 characters`);
    expect(t).toHaveLength(3);
  });

  it('the status lists are checked the same way', () => {
    const q = frq({ overall: { cpu: '1' } }, { overallUsed: { cpu: '-1' }, aggregatedStatus: [{ clusterName: '', used: { pods: '1' } }] });
    expect(texts(q)).toEqual(['status.overallUsed[cpu]: Invalid value: "-1": must be greater than or equal to 0', 'status.aggregatedStatus[0].clusterName: Invalid value: "": must be not empty']);
  });

  it('the webhook denies with the aggregated message', async () => {
    const object = frq({ overall: { cpu: '1' }, staticAssignments: [{ clusterName: 'member1', hard: { cpu: '2' } }] });
    const body = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u1', kind: { group: 'policy.karmada.io', version: 'v1alpha1', kind: KIND }, operation: 'CREATE', namespace: 'team', object } };
    const out = await review({ path: '/validate-federatedresourcequota', contentType: 'application/json', body: JSON.stringify(body) });
    expect(out.verdict).toBe('denied');
    expect(out.message).toBe('spec.overall[cpu]: Invalid value: "1": overall is less than assignments');
    const fine = { ...body, request: { ...body.request, object: frq({ overall: { cpu: '2' }, staticAssignments: [{ clusterName: 'member1', hard: { cpu: '2' } }] }) } };
    expect((await review({ path: '/validate-federatedresourcequota', contentType: 'application/json', body: JSON.stringify(fine) })).verdict).toBe('allowed');
  });

  it('the CRD schema: overall is required, quantities are quantities', () => {
    const info = findKind('policy.karmada.io/v1alpha1', KIND)!;
    expect(info.namespaced).toBe(true);
    expect(validateSchema(info, frq({ overall: { cpu: '1', memory: '2Gi', pods: 3 } }))).toEqual([]);
    expect(validateSchema(info, frq({})).length).toBeGreaterThan(0);
    expect(validateSchema(info, frq({ overall: { cpu: 'lots' } })).length).toBeGreaterThan(0);
    expect(aggregate([{ path: 'a', message: 'x' }])).toBe('a: x');
  });
});

// ---------------------------------------------------------------------------------------------
// Controllers

function setup(objects: KObject[], options: Partial<CoreOptions> = {}) {
  const store = new EmbeddedStore();
  for (const c of ['member1', 'member2']) store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: c }, spec: {} });
  for (const o of objects) {
    const made = store.create({ ...o, status: undefined });
    if (o.status) store.updateStatus({ ...made, status: o.status });
  }
  const ctx: ReconcileContext = { reader: store, now: NOW, interpreter: {} as never, schedule: (() => ({})) as never, options: withCoreDefaults(options) };
  return { store, ctx };
}

const KEY = frqKey('team', 'team-quota');
const ASSIGNED = frq({ overall: { cpu: '10', memory: '20Gi' }, staticAssignments: [{ clusterName: 'member1', hard: { cpu: '4', memory: '8Gi' } }] });

describe('sync controller', () => {
  it('one Work per assigned cluster carrying a ResourceQuota of the assigned hard limits; the event in Karmada\'s words', () => {
    const { ctx } = setup([ASSIGNED as KObject]);
    const r = reconcileQuotaSync(ctx, KEY);
    expect(r.writes).toHaveLength(1);
    const w = (r.writes[0] as { op: string; object: Work }).object;
    expect((r.writes[0] as { op: string }).op).toBe('create');
    expect(w.metadata).toMatchObject({ name: quotaWorkName('team', 'team-quota'), namespace: 'karmada-es-member1', labels: { 'federatedresourcequota.karmada.io/namespace': 'team', 'federatedresourcequota.karmada.io/name': 'team-quota' } });
    const manifest = w.spec!.workload!.manifests![0] as KObject;
    expect(manifest).toMatchObject({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'team-quota', namespace: 'team' }, spec: { hard: { cpu: '4', memory: '8Gi' } } });
    expect(r.events).toEqual([expect.objectContaining({ type: 'Normal', reason: 'SyncWorkSucceed', message: 'Sync works for FederatedResourceQuota(team/team-quota) succeed.' })]);
  });

  it('an unchanged Work is not written again; a cluster no longer assigned loses its Work; a deleted quota all of them', () => {
    const { store, ctx } = setup([ASSIGNED as KObject]);
    const w = (reconcileQuotaSync(ctx, KEY).writes[0] as { object: KObject }).object;
    store.create(w);
    expect(reconcileQuotaSync(ctx, KEY).writes).toEqual([]);
    const cur = store.get({ apiVersion: 'policy.karmada.io/v1alpha1', kind: KIND }, 'team', 'team-quota')!;
    store.update({ ...cur, spec: { ...cur.spec, staticAssignments: [{ clusterName: 'member2', hard: { cpu: '1' } }] } });
    const moved = reconcileQuotaSync(ctx, KEY).writes;
    expect(moved.map((x) => x.op)).toEqual(['delete', 'create']);
    expect((moved[1] as { object: KObject }).object.metadata.namespace).toBe('karmada-es-member2');
    store.delete(refOfQuota());
    expect(reconcileQuotaSync(ctx, KEY).writes).toEqual([{ op: 'delete', ref: expect.objectContaining({ kind: 'Work', namespace: 'karmada-es-member1' }) }]);
  });
});

const refOfQuota = () => ({ apiVersion: 'policy.karmada.io/v1alpha1', kind: KIND, namespace: 'team', name: 'team-quota' });

const quotaWork = (cluster: string, applied: 'True' | 'False', status?: Record<string, unknown>): Work => ({
  apiVersion: 'work.karmada.io/v1alpha1',
  kind: 'Work',
  metadata: { name: quotaWorkName('team', 'team-quota'), namespace: `karmada-es-${cluster}`, labels: { 'federatedresourcequota.karmada.io/namespace': 'team', 'federatedresourcequota.karmada.io/name': 'team-quota' } },
  spec: { workload: { manifests: [] } },
  status: {
    conditions: [{ type: 'Applied', status: applied, reason: 'r', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' }],
    ...(status ? { manifestStatuses: [{ identifier: { ordinal: 0, version: 'v1', kind: 'ResourceQuota', namespace: 'team', name: 'team-quota', group: '', resource: '' }, status }] } : {}),
  },
});

describe('status controller', () => {
  const works = [
    quotaWork('member2', 'True', { hard: { cpu: '6' }, used: { cpu: '1500m', memory: '1Gi' } }),
    quotaWork('member1', 'True', { hard: { cpu: '4', memory: '8Gi' }, used: { cpu: '500m', memory: '512Mi' } }),
    // Not applied: left out, as Karmada does.
    { ...quotaWork('member3', 'False', { hard: { cpu: '1' }, used: { cpu: '1' } }), metadata: { ...quotaWork('member3', 'False').metadata, namespace: 'karmada-es-member3' } },
  ];

  it('aggregatedStatus: the Applied Works\' collected ResourceQuota status, by cluster name; overallUsed their sum', () => {
    const agg = aggregatedQuotaStatus(works);
    expect(agg).toEqual([
      { clusterName: 'member1', hard: { cpu: '4', memory: '8Gi' }, used: { cpu: '500m', memory: '512Mi' } },
      { clusterName: 'member2', hard: { cpu: '6' }, used: { cpu: '1500m', memory: '1Gi' } },
    ]);
    expect(sumUsed(agg)).toEqual({ cpu: '2', memory: '1536Mi' });
  });

  it('writes aggregatedStatus, overall (the spec\'s) and overallUsed with FederatedQuotaEnforcement off', () => {
    const { ctx } = setup([ASSIGNED as KObject, ...(works as KObject[])]);
    const r = reconcileQuotaStatus(ctx, KEY);
    expect((r.writes[0] as { op: string }).op).toBe('updateStatus');
    expect((r.writes[0] as { object: FederatedResourceQuota }).object.status).toEqual({
      overall: { cpu: '10', memory: '20Gi' },
      overallUsed: { cpu: '2', memory: '1536Mi' },
      aggregatedStatus: [
        { clusterName: 'member1', hard: { cpu: '4', memory: '8Gi' }, used: { cpu: '500m', memory: '512Mi' } },
        { clusterName: 'member2', hard: { cpu: '6' }, used: { cpu: '1500m', memory: '1Gi' } },
      ],
    });
    expect(r.events[0]).toMatchObject({ reason: 'AggregateStatusSucceed', message: 'Collect status of FederatedResourceQuota(team/team-quota) succeed.' });
  });

  it('with FederatedQuotaEnforcement on, only aggregatedStatus (the enforcement controller owns overall and overallUsed)', () => {
    const { ctx } = setup([ASSIGNED as KObject, ...(works as KObject[])], { federatedQuotaEnforcement: true });
    const status = (reconcileQuotaStatus(ctx, KEY).writes[0] as { object: FederatedResourceQuota }).object.status!;
    expect(status.overall).toBeUndefined();
    expect(status.overallUsed).toBeUndefined();
    expect(status.aggregatedStatus).toHaveLength(2);
  });
});

// ---------------------------------------------------------------------------------------------
// Enforcement and the charge

const rb = (name: string, cpu: string, clusters: Array<[string, number]>): ResourceBinding => ({
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name, namespace: 'team' },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'team', name },
    replicas: clusters.reduce((n, [, r]) => n + r, 0),
    replicaRequirements: { resourceRequest: { cpu, memory: '128Mi' } },
    clusters: clusters.map(([n, replicas]) => ({ name: n, replicas })),
  },
});

describe('enforcement (FederatedQuotaEnforcement)', () => {
  it("a binding's usage: its requests × the replicas scheduled in all", () => {
    const u = bindingUsage(rb('a', '250m', [['member1', 2], ['member2', 2]]));
    expect(Object.fromEntries([...u].map(([k, q]) => [k, q.toString()]))).toEqual({ cpu: '1', memory: '512Mi' });
  });

  it("overallUsed from the namespace's bindings, for the resources overall names only", () => {
    expect(usedByBindings([rb('a', '250m', [['member1', 2]]), rb('b', '1', [['member2', 3]])], { cpu: '10' })).toEqual({ cpu: '3500m' });
    const { ctx } = setup([ASSIGNED as KObject, rb('a', '250m', [['member1', 2]]) as KObject], { federatedQuotaEnforcement: true });
    const r = reconcileQuotaEnforcement(ctx, KEY);
    expect((r.writes[0] as { object: FederatedResourceQuota }).object.status).toEqual({ overall: { cpu: '10', memory: '20Gi' }, overallUsed: { cpu: '500m', memory: '256Mi' } });
    expect(r.requeueAfterSeconds).toBe(300);
    expect(reconcileQuotaEnforcement(setup([ASSIGNED as KObject]).ctx, KEY)).toMatchObject({ writes: [] });
  });

  it("the charge: admitted within overall (overallUsed moves by the change); refused past it with Karmada's message", () => {
    const quota = frq({ overall: { cpu: '1' } }, { overall: { cpu: '1' }, overallUsed: { cpu: '600m' } });
    const old = rb('a', '100m', [['member1', 2]]);
    const ok = chargeBinding([quota], old, rb('a', '100m', [['member1', 6]]));
    expect(ok.denied).toBeUndefined();
    expect(ok.updates.map((q) => q.status?.overallUsed)).toEqual([{ cpu: '1' }]);
    const no = chargeBinding([quota], old, rb('a', '100m', [['member1', 7]]));
    expect(no.denied?.message).toBe('FederatedResourceQuota(team/team-quota) exceeded for resource cpu: requested sum 1100m, limit 1.');
    // A change that leaves requests and replicas alone is not charged.
    expect(chargeBinding([quota], old, rb('a', '100m', [['member2', 2]]))).toEqual({ updates: [] });
  });

  it("the scheduler meets a refusal as Karmada's does: Scheduled False, QuotaExceeded, the apiserver's words", () => {
    const quota = frq({ overall: { cpu: '1' } }, { overall: { cpu: '1' }, overallUsed: { cpu: '0' } });
    const b = rb('a', '500m', []);
    const { ctx } = setup([quota as KObject], { federatedQuotaEnforcement: true });
    const r = chargeScheduledBinding(ctx, b as never, rb('a', '500m', [['member1', 3]]) as never);
    const message = 'admission webhook "resourcebinding.karmada.io" denied the request: FederatedResourceQuota(team/team-quota) exceeded for resource cpu: requested sum 1500m, limit 1.';
    expect(r.refused?.error).toBe(message);
    expect((r.refused?.writes[0] as { object: ResourceBinding }).object.status?.conditions).toEqual([expect.objectContaining({ type: 'Scheduled', status: 'False', reason: 'QuotaExceeded', message })]);
    expect(r.refused?.events.map((e) => e.reason)).toEqual(['ScheduleBindingFailed', 'ScheduleBindingFailed']);
    // Gate off: nothing is charged.
    expect(chargeScheduledBinding(setup([quota as KObject]).ctx, b as never, rb('a', '500m', [['member1', 3]]) as never)).toEqual({ writes: [] });
  });
});

describe('wiring', () => {
  it('the three controllers run among the core\'s', () => {
    const names = coreControllers(withCoreDefaults()).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining([FRQ_SYNC, FRQ_STATUS, FRQ_ENFORCEMENT]));
  });
});
