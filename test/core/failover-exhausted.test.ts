import { describe, expect, it } from 'vitest';
import { FailoverClocksAnnotation, FailoverExhaustedAnnotation } from '../../src/api/constants.js';
import { reconcileApplicationFailover } from '../../src/core/failover.js';
import type { Interpreter, ReconcileContext, SchedulePass, Write } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';
import { realScheduler } from '../../src/store/control-plane.js';

const KEY = 'work.karmada.io/v1alpha2|ResourceBinding|default|nginx-deployment';
const interpreter = { hookEnabled: () => true } as unknown as Interpreter;

/** Unhealthy on member2 (its only cluster) since 00:00:00, member1 evicted before and still blocked. */
function lastCluster(status: Record<string, unknown> = {}, annotations: Record<string, string> = {}) {
  const store = new EmbeddedStore();
  store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'member1' }, spec: {} });
  store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'member2' }, spec: {} });
  const b = store.create({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: 'nginx-deployment', namespace: 'default', annotations: { [FailoverClocksAnnotation]: JSON.stringify({ member2: { unhealthySince: '2024-01-01T00:00:00Z' } }), ...annotations } },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx', resourceVersion: '7' },
      propagateDeps: true,
      clusters: [{ name: 'member2', replicas: 2 }],
      activeEvictionHistory: [{ clusterName: 'member1', creationTimestamp: '2024-01-01T00:00:00Z', blockPredecessorSeconds: 600, reason: 'ApplicationFailure' }],
      failover: { application: { decisionConditions: { tolerationSeconds: 60 }, purgeMode: 'Directly' } },
    },
  });
  store.updateStatus({ ...b, status: { aggregatedStatus: [{ clusterName: 'member2', applied: true, health: 'Unhealthy' }], ...status } });
  return store;
}

function ctx(store: EmbeddedStore, now: string, pass: Partial<SchedulePass>, seen: unknown[] = []): ReconcileContext {
  return {
    reader: store,
    now: new Date(now),
    interpreter,
    schedule: ((b: unknown) => {
      seen.push(b);
      return { action: 'Scheduled', status: {}, statusChanged: false, retry: false, events: [], ...pass } as SchedulePass;
    }) as never,
    options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [] },
  };
}

const noFit: Partial<SchedulePass> = { action: 'Failed', error: { kind: 'NoClusterFit', message: '0/2 clusters are available: 2 cluster(s) is in the process of eviction.' } };
const objectOf = (w: Write | undefined) => (w as { object: { metadata: { annotations?: Record<string, string> }; spec: Record<string, unknown>; status?: Record<string, unknown> } }).object;

describe('application failover with no cluster left (FailoverExhausted, spec README point 13)', () => {
  it('asks the scheduler about the binding as it would be after the eviction, and evicts when some cluster can take it', () => {
    const seen: Array<{ spec: Record<string, unknown>; metadata: { generation: number } }> = [];
    const r = reconcileApplicationFailover(ctx(lastCluster(), '2024-01-01T00:01:01Z', { action: 'Scheduled', clusters: [{ name: 'member3' }] }, seen), KEY);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.spec.clusters).toBeUndefined();
    expect(seen[0]!.spec.gracefulEvictionTasks).toEqual([expect.objectContaining({ fromCluster: 'member2' })]);
    expect(objectOf(r.writes[0]).spec.clusters).toBeUndefined();
    expect(r.events.map((e) => e.reason)).not.toContain('FailoverExhausted');
  });
  it('keeps the last placement when the scheduler finds nowhere to go: condition, annotation and a Warning event on binding and template', () => {
    const r = reconcileApplicationFailover(ctx(lastCluster(), '2024-01-01T00:01:01Z', noFit), KEY);
    expect(r.writes).toHaveLength(1);
    const written = objectOf(r.writes[0]);
    expect(written.spec.clusters).toEqual([{ name: 'member2', replicas: 2 }]);
    expect(written.spec.gracefulEvictionTasks).toBeUndefined();
    expect(written.metadata.annotations?.[FailoverExhaustedAnnotation]).toMatch(/^7\//);
    // The condition is a status write, made once the metadata update went through.
    const then = (r.writes[0] as { then?: (o: unknown) => { writes: Write[] } }).then!;
    const status = then({ ...written, metadata: { ...written.metadata, resourceVersion: '99' } }).writes;
    expect(status).toHaveLength(1);
    expect(status[0]!.op).toBe('updateStatus');
    expect(objectOf(status[0]).status?.conditions).toEqual([
      expect.objectContaining({ type: 'FailoverExhausted', status: 'True', reason: 'NoClusterLeft', lastTransitionTime: '2024-01-01T00:01:01Z', message: expect.stringContaining('2 cluster(s) is in the process of eviction') }),
    ]);
    expect(r.events.map((e) => `${e.type} ${e.involvedObject.kind} ${e.reason}`)).toEqual(['Warning ResourceBinding FailoverExhausted', 'Warning Deployment FailoverExhausted']);
  });
  const exhausted = (health: string, rv = '7') => {
    const store = lastCluster({ conditions: [{ type: 'FailoverExhausted', status: 'True', reason: 'NoClusterLeft', message: 'm', lastTransitionTime: '2024-01-01T00:01:01Z' }] });
    const r = reconcileApplicationFailover(ctx(store, '2024-01-01T00:01:02Z', noFit), KEY);
    const marker = objectOf(r.writes[0]).metadata.annotations![FailoverExhaustedAnnotation]!;
    const b = store.get({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding' }, 'default', 'nginx-deployment')!;
    const withMarker = store.update({ ...b, metadata: { ...b.metadata, annotations: { ...b.metadata.annotations, [FailoverExhaustedAnnotation]: marker } }, spec: { ...b.spec, resource: { ...b.spec.resource, resourceVersion: rv } } });
    store.updateStatus({ ...withMarker, status: { ...withMarker.status, aggregatedStatus: [{ clusterName: 'member2', applied: true, health }] } });
    return store;
  };
  it('once exhausted, neither evicts nor asks the scheduler again while nothing changed', () => {
    const seen: unknown[] = [];
    const r = reconcileApplicationFailover(ctx(exhausted('Unhealthy'), '2024-01-01T02:00:00Z', { action: 'Scheduled', clusters: [{ name: 'member1' }] }, seen), KEY);
    expect(seen).toEqual([]);
    const evicted = r.writes.some((w) => w.op === 'update' && objectOf(w).spec.gracefulEvictionTasks);
    expect(evicted).toBe(false);
    expect(r.events).toEqual([]);
  });
  it('resumes when a cluster reports the workload healthy: the condition and the annotation go', () => {
    const r = reconcileApplicationFailover(ctx(exhausted('Healthy'), '2024-01-01T02:00:00Z', noFit), KEY);
    const written = objectOf(r.writes[0]);
    expect(written.metadata.annotations?.[FailoverExhaustedAnnotation]).toBeUndefined();
    const then = (r.writes[0] as { then?: (o: unknown) => { writes: Write[] } }).then!;
    expect(objectOf(then(written).writes[0]).status?.conditions).toBeUndefined();
  });
  it('drops the condition when the policy no longer asks for application failover', () => {
    const store = exhausted('Unhealthy');
    const b = store.get({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding' }, 'default', 'nginx-deployment')!;
    const { failover: _, ...spec } = b.spec;
    store.update({ ...b, spec });
    const r = reconcileApplicationFailover(ctx(store, '2024-01-01T02:00:00Z', noFit), KEY);
    const written = objectOf(r.writes[0]);
    expect(written.metadata.annotations?.[FailoverExhaustedAnnotation]).toBeUndefined();
    const then = (r.writes[0] as { then?: (o: unknown) => { writes: Write[] } }).then!;
    expect(objectOf(then(written).writes[0]).status?.conditions).toBeUndefined();
  });
  it('resumes when the user changed the template, counting the toleration afresh', () => {
    const r = reconcileApplicationFailover(ctx(exhausted('Unhealthy', '8'), '2024-01-01T02:00:00Z', { action: 'Scheduled', clusters: [{ name: 'member1' }] }), KEY);
    const written = objectOf(r.writes[0]);
    expect(written.spec.clusters).toEqual([{ name: 'member2', replicas: 2 }]);
    expect(JSON.parse(written.metadata.annotations![FailoverClocksAnnotation]!)).toEqual({ member2: { unhealthySince: '2024-01-01T02:00:00Z' } });
    expect(r.requeueAfterSeconds).toBe(60.001);
  });
});

describe('the FailoverExhausted message counts the clusters as they are (issue 33)', () => {
  it('with member1 in eviction and member2 the one failing, the real scheduler is quoted about member1 only: 1 cluster in eviction, not 2', () => {
    const store = new EmbeddedStore();
    const apiEnablements = [{ groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] }];
    for (const name of ['member1', 'member2']) store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: {}, status: { apiEnablements } });
    const b = store.create({
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ResourceBinding',
      metadata: { name: 'nginx-deployment', namespace: 'default', generation: 3, annotations: { [FailoverClocksAnnotation]: JSON.stringify({ member2: { unhealthySince: '2024-01-01T00:00:00Z' } }) } },
      spec: {
        resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx', resourceVersion: '7' },
        propagateDeps: true,
        replicas: 2,
        placement: { clusterAffinity: { clusterNames: ['member1', 'member2'] }, spreadConstraints: [{ spreadByField: 'cluster', maxGroups: 1, minGroups: 1 }] },
        clusters: [{ name: 'member2', replicas: 2 }],
        gracefulEvictionTasks: [{ fromCluster: 'member1', purgeMode: 'Directly', replicas: 2, reason: 'ApplicationFailure', producer: 'resource-binding-application-failover-controller', creationTimestamp: '2024-01-01T00:00:00Z' }],
        failover: { application: { decisionConditions: { tolerationSeconds: 60 }, purgeMode: 'Directly', blockPredecessorSeconds: 0 } },
      },
    });
    store.updateStatus({ ...b, status: { aggregatedStatus: [{ clusterName: 'member2', applied: true, health: 'Unhealthy' }] } });
    const c: ReconcileContext = { ...ctx(store, '2024-01-01T00:01:01Z', {}), schedule: realScheduler() };
    const r = reconcileApplicationFailover(c, KEY);
    const warning = r.events.find((e) => e.reason === 'FailoverExhausted');
    expect(warning?.message).toBe(
      'The workload is unhealthy on member2 and no other cluster can take it (0/1 clusters are available: 1 cluster(s) is in the process of eviction.); keeping the current placement until a cluster reports it healthy or the template or policy changes.',
    );
  });
});
