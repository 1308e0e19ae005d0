// Replicas from members' HPAs: Karmada's HPA scale target marker and deployment replicas syncer, pure.
import { describe, expect, it } from 'vitest';
import { coreControllers, selectControllers } from '../../src/core/controllers.js';
import { DEPLOYMENT, DEPLOYMENT_REPLICAS_SYNCER, reconcileDeploymentReplicas, replicasNotCollected } from '../../src/core/deployment-replicas-syncer.js';
import { HPA_SCALE_TARGET_MARKER, reconcileHpaScaleTarget, scaleTargetKey } from '../../src/core/hpa-scale-target-marker.js';
import { RB } from '../../src/core/kinds.js';
import { refKey, type KObject } from '../../src/core/object.js';
import { withCoreDefaults, type ObjectChange, type ReconcileContext } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';

const RETAIN = 'resourcetemplate.karmada.io/retain-replicas';
const PP_ID = 'propagationpolicy.karmada.io/permanent-id';

function ctxOf(objects: KObject[]): ReconcileContext {
  const store = new EmbeddedStore();
  for (const o of objects) store.create(o);
  return { reader: store, now: new Date('2024-01-01T00:00:00Z'), interpreter: {} as never, schedule: (() => ({})) as never, options: withCoreDefaults({ skippedPropagatingNamespaces: [] }) };
}
const deployment = (name: string, spec: number, status?: number, labels?: Record<string, string>): KObject => ({
  ...DEPLOYMENT,
  metadata: { name, namespace: 'shop', ...(labels ? { labels } : {}) },
  spec: { replicas: spec },
  ...(status !== undefined ? { status: { replicas: status } } : {}),
});
const hpa = (name: string, target: string, labels?: Record<string, string>, apiVersion = 'autoscaling/v2'): KObject => ({
  apiVersion,
  kind: 'HorizontalPodAutoscaler',
  metadata: { name, namespace: 'shop', ...(labels ? { labels } : {}) },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target }, minReplicas: 3, maxReplicas: 10 },
});
const keyOf = (name: string) => refKey({ ...DEPLOYMENT, namespace: 'shop', name });
const labelsWritten = (r: ReturnType<typeof reconcileHpaScaleTarget>) => (r.writes[0] as { object: KObject } | undefined)?.object.metadata.labels;

describe('HPA scale target marker (Karmada hpaScaleTargetMarker)', () => {
  it('labels the workload a propagated HPA scales, of either autoscaling version', () => {
    for (const v of ['autoscaling/v2', 'autoscaling/v1']) {
      const r = reconcileHpaScaleTarget(ctxOf([deployment('web', 2, undefined, { app: 'web' }), hpa('web', 'web', { [PP_ID]: 'x' }, v)]), keyOf('web'));
      expect(labelsWritten(r)).toEqual({ app: 'web', [RETAIN]: 'true' });
    }
  });

  it('leaves it alone while the HPA is not propagated, or the label is there already', () => {
    expect(reconcileHpaScaleTarget(ctxOf([deployment('web', 2), hpa('web', 'web')]), keyOf('web')).writes).toEqual([]);
    expect(reconcileHpaScaleTarget(ctxOf([deployment('web', 2, undefined, { [RETAIN]: 'true' }), hpa('web', 'web')]), keyOf('web')).writes).toEqual([]);
    expect(reconcileHpaScaleTarget(ctxOf([deployment('web', 2, undefined, { [RETAIN]: 'true' }), hpa('web', 'web', { [PP_ID]: 'x' })]), keyOf('web')).writes).toEqual([]);
  });

  it('takes the label off once no HPA points at the workload any more (deleted, or pointed elsewhere)', () => {
    const r = reconcileHpaScaleTarget(ctxOf([deployment('web', 2, undefined, { [RETAIN]: 'true', app: 'web' }), hpa('other', 'api', { [PP_ID]: 'x' })]), keyOf('web'));
    expect(labelsWritten(r)).toEqual({ app: 'web' });
  });

  it('wakes the old and the new target when an HPA is pointed elsewhere', () => {
    const marker = coreControllers(withCoreDefaults()).find((c) => c.name === HPA_SCALE_TARGET_MARKER)!;
    const before = hpa('h', 'web', { [PP_ID]: 'x' });
    const after = hpa('h', 'api', { [PP_ID]: 'x' });
    const change: ObjectChange = { type: 'MODIFIED', object: after, old: before };
    expect(marker.keysFor(change, ctxOf([]).reader).sort()).toEqual([keyOf('api'), keyOf('web')].sort());
    expect(marker.keysFor({ type: 'MODIFIED', object: after, old: after }, ctxOf([]).reader)).toEqual([]);
    expect(scaleTargetKey(hpa('h', ''))).toBeUndefined();
  });
});

describe('deployment replicas syncer (Karmada deploymentReplicasSyncer)', () => {
  // generation 1: what the store gives an object it creates
  const binding = (over: { replicas?: number; generation?: number; observed?: number; clusters?: string[]; reported?: Array<[string, number | undefined]>; type?: string } = {}): KObject => ({
    ...RB,
    metadata: { name: 'web-deployment', namespace: 'shop', generation: over.generation ?? 1 },
    spec: {
      resource: { ...DEPLOYMENT, namespace: 'shop', name: 'web' },
      replicas: over.replicas ?? 2,
      placement: { replicaScheduling: { replicaSchedulingType: over.type ?? 'Divided' } },
      clusters: (over.clusters ?? ['m1', 'm2']).map((name) => ({ name, replicas: 1 })),
    },
    status: {
      schedulerObservedGeneration: over.observed ?? 1,
      aggregatedStatus: (over.reported ?? [['m1', 3], ['m2', 3]]).map(([clusterName, replicas]) => ({ clusterName, ...(replicas !== undefined ? { status: { replicas } } : {}) })),
    },
  });
  const retained = (spec: number, status: number) => deployment('web', spec, status, { [RETAIN]: 'true' });

  it("sets the template's spec.replicas to what the members run once the binding's status says the same", () => {
    const r = reconcileDeploymentReplicas(ctxOf([retained(2, 6), binding()]), keyOf('web'));
    expect(r.writes).toMatchObject([{ op: 'update', object: { metadata: { name: 'web' }, spec: { replicas: 6 } } }]);
  });

  it('waits for each thing Karmada waits for, in its order', () => {
    const d = retained(2, 6);
    expect(replicasNotCollected(d, binding({ replicas: 4 }) as never)).toBe('the binding carries 4 replicas, the template 2');
    expect(replicasNotCollected(d, binding({ observed: 0 }) as never)).toBe('the scheduler has not acted on the binding yet');
    expect(replicasNotCollected(d, binding({ reported: [['m1', 3]] }) as never)).toBe('1 of 2 clusters reported');
    expect(replicasNotCollected(d, binding({ reported: [['m1', 3], ['m2', undefined]] }) as never)).toBe('m2 has not reported its replicas');
    expect(replicasNotCollected(d, binding({ reported: [['m1', 3], ['m2', 0]] }) as never)).toBe('m2 has not reported its replicas');
    expect(replicasNotCollected(retained(2, 5), binding() as never)).toBe("the template's status.replicas 5 is not yet the members' 6");
    for (const b of [binding({ replicas: 4 }), binding({ observed: 0 })]) expect(reconcileDeploymentReplicas(ctxOf([d, b]), keyOf('web')).writes).toEqual([]);
  });

  it('leaves alone a template without the label, one already in step, and one not Divided', () => {
    expect(reconcileDeploymentReplicas(ctxOf([deployment('web', 2, 6), binding()]), keyOf('web')).writes).toEqual([]);
    expect(reconcileDeploymentReplicas(ctxOf([retained(6, 6), binding({ replicas: 6 })]), keyOf('web')).writes).toEqual([]);
    expect(reconcileDeploymentReplicas(ctxOf([retained(2, 6), binding({ type: 'Duplicated' })]), keyOf('web')).writes).toEqual([]);
    expect(reconcileDeploymentReplicas(ctxOf([retained(2, 6)]), keyOf('web')).writes).toEqual([]);
  });

  it('is woken by its binding collecting status, and by the template changing replicas', () => {
    const syncer = coreControllers(withCoreDefaults()).find((c) => c.name === DEPLOYMENT_REPLICAS_SYNCER)!;
    const reader = ctxOf([]).reader;
    const b = binding();
    expect(syncer.keysFor({ type: 'MODIFIED', object: b, old: binding({ reported: [['m1', 3], ['m2', 1]] }) }, reader)).toEqual([keyOf('web')]);
    expect(syncer.keysFor({ type: 'MODIFIED', object: b, old: b }, reader)).toEqual([]);
    expect(syncer.keysFor({ type: 'MODIFIED', object: retained(2, 6), old: retained(2, 4) }, reader)).toEqual([keyOf('web')]);
    expect(syncer.keysFor({ type: 'MODIFIED', object: deployment('web', 2, 6), old: deployment('web', 2, 4) }, reader)).toEqual([]);
  });
});

describe('controllers off by default, as Karmada', () => {
  it("'*' leaves out the marker and the syncer; naming them turns them on", () => {
    const all = coreControllers(withCoreDefaults());
    const names = (sel: string[]) => selectControllers(all, sel).map((c) => c.name);
    expect(names(['*'])).not.toContain(HPA_SCALE_TARGET_MARKER);
    expect(names(['*'])).not.toContain(DEPLOYMENT_REPLICAS_SYNCER);
    expect(names(['*', HPA_SCALE_TARGET_MARKER, DEPLOYMENT_REPLICAS_SYNCER])).toEqual(expect.arrayContaining([HPA_SCALE_TARGET_MARKER, DEPLOYMENT_REPLICAS_SYNCER, 'detector']));
  });
});
