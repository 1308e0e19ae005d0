// A binding whose template went while no controller watched (killed, or a host with no garbage collector):
// the binding controller treats it as that template's deletion on its next pass over the binding. Each case
// starts a second control plane from the first one's objects minus the template, as a controller started
// again finds them: no DELETED event ever comes for the template.
import { describe, expect, it } from 'vitest';
import { BINDING, templateGone } from '../../src/core/binding.js';
import { coreControllers } from '../../src/core/controllers.js';
import { refKey } from '../../src/core/object.js';
import { CRB, RB, WORK } from '../../src/core/kinds.js';
import type { KObject } from '../../src/core/object.js';
import type { ReconcileContext } from '../../src/core/ports.js';
import type { Work } from '../../src/api/generated/types.js';
import { ControlPlane } from '../../src/store/control-plane.js';

const START = new Date('2024-01-01T00:00:00Z');
const MEMBERS = ['member1', 'member2'];
const CM = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'web' };
const CR = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'viewer' };
const RB_REF = { apiVersion: RB.apiVersion, kind: RB.kind, namespace: 'default', name: 'web-configmap' };
const CRB_REF = { apiVersion: CRB.apiVersion, kind: CRB.kind, name: 'viewer-clusterrole' };

const configMap = (level: string): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'default' }, data: { level } });
const clusterRole: KObject = { apiVersion: CR.apiVersion, kind: CR.kind, metadata: { name: CR.name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };

/** member1 and member2, a ConfigMap under a PP and a ClusterRole under a CPP, propagated to both. */
function propagated(preserve = false): ControlPlane {
  const cp = new ControlPlane({ start: START });
  for (const name of MEMBERS) cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: { syncMode: 'Push' } });
  const placement = { clusterAffinity: { clusterNames: MEMBERS } };
  cp.apply({
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: 'web', namespace: 'default' },
    spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'web' }], placement, ...(preserve ? { preserveResourcesOnDeletion: true } : {}) },
  });
  cp.apply({ apiVersion: 'policy.karmada.io/v1alpha1', kind: 'ClusterPropagationPolicy', metadata: { name: 'viewer' }, spec: { resourceSelectors: [{ apiVersion: CR.apiVersion, kind: CR.kind, name: CR.name }], placement } });
  cp.apply(configMap('info'));
  cp.apply(clusterRole);
  cp.settle();
  for (const m of MEMBERS) {
    expect(cp.get(CM, m), `the ConfigMap on ${m}`).toBeDefined();
    expect(cp.get(CR, m), `the ClusterRole on ${m}`).toBeDefined();
  }
  return cp;
}

const isTemplate = (o: KObject, ref: { kind: string; name: string }) => o.kind === ref.kind && o.metadata.name === ref.name;

/**
 * A control plane started over what `old` stored, host and members, minus the objects `drop` names: the
 * controller's restart after they were deleted while it was down. Clusters first, as a list would find them.
 */
function restarted(old: ControlPlane, drop: (o: KObject) => boolean): ControlPlane {
  const cp = new ControlPlane({ start: START });
  const host = old.store.types().flatMap((t) => old.store.list(t));
  const order = (o: KObject) => (o.kind === 'Cluster' ? 0 : 1);
  for (const o of [...host].sort((a, b) => order(a) - order(b))) if (!drop(o)) cp.apply(o);
  for (const m of MEMBERS) for (const t of old.store.types(m)) for (const o of old.store.list(t, {}, m)) cp.apply(o, m);
  return cp;
}

const manifestKinds = (w: Work) => (w.spec?.workload?.manifests ?? []).map((m) => (m as KObject).kind);
const works = (cp: ControlPlane, kind?: string) => cp.store.list(WORK).filter((w) => manifestKinds(w).some((k) => (kind ? k === kind : k === 'ConfigMap' || k === 'ClusterRole')));
const binding = (cp: ControlPlane) => cp.store.get(RB, 'default', 'web-configmap');

describe('a template deleted while the controller was down', () => {
  it('takes its binding, its Works and the member copies at the next start, ResourceBinding and ClusterResourceBinding alike', () => {
    const cp = restarted(propagated(), (o) => isTemplate(o, CM) || isTemplate(o, CR));
    // What the restarted controller finds: bindings and Works, no template.
    expect(cp.get(RB_REF)).toBeDefined();
    expect(cp.get(CRB_REF)).toBeDefined();
    expect(works(cp)).toHaveLength(4);
    cp.settle();
    expect(cp.get(RB_REF)).toBeUndefined();
    expect(cp.get(CRB_REF)).toBeUndefined();
    expect(works(cp)).toEqual([]);
    for (const m of MEMBERS) {
      expect(cp.get(CM, m), `the ConfigMap on ${m}`).toBeUndefined();
      expect(cp.get(CR, m), `the ClusterRole on ${m}`).toBeUndefined();
    }
  });

  it('leaves the member copies, without Karmada\'s marks, under preserveResourcesOnDeletion', () => {
    const cp = restarted(propagated(true), (o) => isTemplate(o, CM));
    cp.settle();
    expect(cp.get(RB_REF)).toBeUndefined();
    for (const m of MEMBERS) {
      const copy = cp.get(CM, m);
      expect(copy?.data).toEqual({ level: 'info' });
      expect(copy?.metadata.labels?.['karmada.io/managed']).toBeUndefined();
    }
    // The ClusterRole's template is still there: its binding and copies stay.
    expect(cp.get(CRB_REF)).toBeDefined();
    for (const m of MEMBERS) expect(cp.get(CR, m)).toBeDefined();
  });

  it('deleted and created again under the same name (another uid): the new template is propagated, not lost', () => {
    const old = propagated();
    const oldUid = old.get(CM)!.metadata.uid;
    const cp = restarted(old, (o) => isTemplate(o, CM));
    const fresh = cp.apply(configMap('debug'));
    expect(fresh.metadata.uid).not.toBe(oldUid);
    cp.settle();
    const b = binding(cp)!;
    expect(b.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'ConfigMap', name: 'web', uid: fresh.metadata.uid })]);
    expect(b.spec.resource.uid).toBe(fresh.metadata.uid);
    expect(b.metadata.deletionTimestamp).toBeUndefined();
    for (const m of MEMBERS) {
      const copy = cp.get(CM, m)!;
      expect(copy.data, `the ConfigMap on ${m}`).toEqual({ level: 'debug' });
      expect(copy.metadata.annotations?.['resourcetemplate.karmada.io/uid']).toBe(fresh.metadata.uid);
    }
    expect(works(cp, 'ConfigMap')).toHaveLength(2);
  });
});

describe('templateGone', () => {
  const ctx = (cp: ControlPlane): ReconcileContext => ({ reader: cp.store, now: START, interpreter: {} as never, schedule: (() => ({})) as never, options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [] } });

  it('is the garbage collector\'s rule: the controller owner absent, or present under another uid', () => {
    const cp = propagated();
    const b = binding(cp)!;
    expect(templateGone(ctx(cp), b)).toBe(false);
    const owner = b.metadata.ownerReferences![0]!;
    expect(templateGone(ctx(cp), { ...b, metadata: { ...b.metadata, ownerReferences: [{ ...owner, uid: 'another' }] } })).toBe(true);
    expect(templateGone(ctx(cp), { ...b, spec: { ...b.spec, resource: { ...b.spec.resource, name: 'gone' } }, metadata: { ...b.metadata, ownerReferences: [{ ...owner, name: 'gone' }] } })).toBe(true);
  });

  it('is never true of a binding nobody owns (one written by hand), whose template is missing', () => {
    const cp = propagated();
    const b = binding(cp)!;
    const byHand = { ...b, spec: { ...b.spec, resource: { ...b.spec.resource, name: 'gone' } }, metadata: { ...b.metadata, ownerReferences: undefined } };
    expect(templateGone(ctx(cp), byHand)).toBe(false);
  });

  it('waits while the template is terminating, as the collector does', () => {
    const cp = propagated();
    cp.apply({ ...configMap('info'), metadata: { ...configMap('info').metadata, finalizers: ['example.com/hold'] } });
    cp.delete(CM);
    cp.settle();
    expect(cp.get(CM)?.metadata.deletionTimestamp).toBeDefined();
    expect(templateGone(ctx(cp), binding(cp)!)).toBe(false);
    expect(cp.get(RB_REF)).toBeDefined();
  });
});

describe('a template deleted while the controller runs', () => {
  it('wakes the binding controller for the bindings it owns, so that a failed delete of them is retried like any reconcile', () => {
    const cp = propagated();
    const spec = coreControllers({ skippedPropagatingNamespaces: [] }).find((c) => c.name === BINDING)!;
    const cm = cp.get(CM)!;
    const cr = cp.get(CR)!;
    expect(spec.keysFor({ type: 'DELETED', object: cm }, cp.store)).toEqual([refKey(RB_REF)]);
    expect(spec.keysFor({ type: 'DELETED', object: cr }, cp.store)).toEqual([refKey(CRB_REF)]);
    // Only deletions: a template's other changes are the detector's.
    expect(spec.keysFor({ type: 'MODIFIED', object: cm, old: cm }, cp.store)).toEqual([]);
    // Another object under the same name (another uid) owns nothing.
    expect(spec.keysFor({ type: 'DELETED', object: { ...cm, metadata: { ...cm.metadata, uid: 'another' } } }, cp.store)).toEqual([]);
  });
});
