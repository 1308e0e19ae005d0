// FederatedHPA (src/core/federated-hpa.ts): Karmada's replica calculator over all members' Pods, the
// stabilization windows and scaling policies, the conditions and events; and CronFederatedHPA rules that set
// a FederatedHPA's bounds.
import { describe, expect, it } from 'vitest';
import { coreControllers } from '../../src/core/controllers.js';
import { reconcileCronFederatedHPA } from '../../src/core/cron-federated-hpa.js';
import { FHPA_CONTROLLER, reconcileFederatedHPA, type CustomMetricsRead, type PodMetricsRead } from '../../src/core/federated-hpa.js';
import { selectorString } from '../../src/core/selectors.js';
import { CRON_FHPA, FHPA } from '../../src/core/kinds.js';
import { refKey, type KObject } from '../../src/core/object.js';
import { withCoreDefaults, type ReconcileContext, type ReconcileResult } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';

const NS = 'shop';
const KEY = refKey({ ...FHPA, namespace: NS, name: 'web' });
const T0 = '2024-01-01T00:00:00Z';

const cluster = (name: string, ready = true): KObject => ({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: {}, status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', reason: 'x', message: '', lastTransitionTime: T0 }] } });
const deploy = (replicas: number): KObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: NS }, spec: { replicas, selector: { matchLabels: { app: 'web' } } } });
const binding = (clusters: Array<{ name: string; replicas: number }>): KObject => ({
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name: 'web-deployment', namespace: NS },
  spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NS, name: 'web' }, replicas: 0, clusters },
});
const fhpa = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>): KObject => ({
  ...FHPA,
  metadata: { name: 'web', namespace: NS, generation: 1 },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 10, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }], ...spec },
  ...(status ? { status } : {}),
});
/** A Running, Ready pod started long ago, requesting 100m cpu. */
const pod = (name: string, more: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS, labels: { app: 'web' } },
  spec: { containers: [{ resources: { requests: { cpu: '100m', memory: '100Mi' } } }] },
  status: { phase: 'Running', startTime: '2023-12-31T00:00:00Z', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2023-12-31T00:00:10Z' }] },
  ...more,
});
const sample = (name: string, cpu: string, ts = T0) => ({ name, timestamp: ts, window: '15s', containers: [{ name: 'c', usage: { cpu, memory: '50Mi' } }] });

interface World {
  objects: KObject[];
  pods: Record<string, KObject[]>;
  metrics: Record<string, PodMetricsRead | undefined>;
  /** custom.metrics.k8s.io answers by cluster, path and query. */
  custom?: (cluster: string, path: string, query: Readonly<Record<string, string>>) => CustomMetricsRead | undefined;
}
function run(now: string, w: World, key = KEY): ReconcileResult {
  const store = new EmbeddedStore();
  for (const o of w.objects) store.create(o);
  const ctx: ReconcileContext = {
    reader: store,
    now: new Date(now),
    interpreter: {} as never,
    schedule: (() => ({})) as never,
    options: withCoreDefaults({ skippedPropagatingNamespaces: [] }),
    capacity: { nodeCapacity: () => undefined, pods: (c) => w.pods[c], resourceQuotas: () => undefined },
    metrics: {
      podMetrics: (c, ns, sel) => (ns === NS && sel === 'app=web' ? w.metrics[c] : { error: `unexpected ${ns} ${sel}` }),
      customMetrics: (c, p, q) => (w.custom ? w.custom(c, p, q) : { error: 'the server could not find the requested resource' }),
    },
  };
  return (key === KEY ? reconcileFederatedHPA : reconcileCronFederatedHPA)(ctx, key);
}
const statusOf = (r: ReconcileResult): any => (r.writes.find((w) => w.op === 'updateStatus') as { object: KObject } | undefined)?.object.status;
const scaledTo = (r: ReconcileResult): number | undefined => (r.writes.find((w) => w.op === 'update') as { object: KObject } | undefined)?.object.spec.replicas;
const cond = (r: ReconcileResult, type: string) => statusOf(r)?.conditions.find((c: any) => c.type === type);

/** Two members, 2 pods each, the template at 4 replicas. */
const fleet = (cpu: string[], f = fhpa(), more: Partial<World> = {}): World => ({
  objects: [cluster('m1'), cluster('m2'), deploy(4), binding([{ name: 'm1', replicas: 2 }, { name: 'm2', replicas: 2 }]), f],
  pods: { m1: [pod('a'), pod('b')], m2: [pod('a'), pod('c')] },
  metrics: { m1: { items: [sample('a', cpu[0]!), sample('b', cpu[1]!)] }, m2: { items: [sample('a', cpu[2]!), sample('c', cpu[3]!)] } },
  ...more,
});

describe('FederatedHPA: the replica calculator over all members', () => {
  it('utilization is the sum of usage over the sum of requests of every member\'s ready pods (same pod names in two members count twice)', () => {
    // 4 pods × 100m requested, 400m used in all: 100% against a 50% target → 8 replicas
    const r = run('2024-01-01T00:00:05Z', fleet(['100m', '100m', '100m', '100m']));
    expect(scaledTo(r)).toBe(8);
    const s = statusOf(r);
    expect(s).toMatchObject({ currentReplicas: 4, desiredReplicas: 8, lastScaleTime: '2024-01-01T00:00:05Z', currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 100, averageValue: '100m' } } }] });
    expect(cond(r, 'AbleToScale')).toMatchObject({ status: 'True', reason: 'SucceededRescale', message: 'the HPA controller was able to update the target scale to 8' });
    expect(cond(r, 'ScalingActive')).toMatchObject({ status: 'True', reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' });
    expect(cond(r, 'ScalingLimited')).toMatchObject({ status: 'False', reason: 'DesiredWithinRange' });
    expect(r.events).toMatchObject([{ type: 'Normal', reason: 'SuccessfulRescale', message: 'New size: 8; reason: cpu resource utilization (percentage of request) above target' }]);
    expect(r.writes.map((w) => w.op)).toEqual(['update', 'updateStatus']);
    expect(r.requeueAfterSeconds).toBe(15);
  });

  it('within the 0.1 tolerance nothing changes; a scale-up is limited to twice the replicas and maxReplicas', () => {
    expect(scaledTo(run('2024-01-01T00:00:05Z', fleet(['54m', '54m', '54m', '54m'])))).toBeUndefined();
    const r = run('2024-01-01T00:00:05Z', fleet(['500m', '500m', '500m', '500m']));
    // 500% vs 50% → 40, limited to 2 × 4 = 8 (below maxReplicas 10): ScaleUpLimit
    expect(scaledTo(r)).toBe(8);
    expect(cond(r, 'ScalingLimited')).toMatchObject({ status: 'True', reason: 'ScaleUpLimit' });
    const r2 = run('2024-01-01T00:00:05Z', fleet(['500m', '500m', '500m', '500m'], fhpa({ maxReplicas: 6 })));
    expect(scaledTo(r2)).toBe(6);
    expect(cond(r2, 'ScalingLimited')).toMatchObject({ status: 'True', reason: 'TooManyReplicas' });
  });

  it('a pod without metrics counts as using nothing on a scale-up; a Pending one is left out', () => {
    const w = fleet(['100m', '100m', '100m', '100m']);
    w.metrics.m2 = { items: [sample('a', '100m')] }; // m2/c missing
    w.pods.m1!.push(pod('p', { status: { phase: 'Pending' } }));
    // ready with metrics: 3 at 100% → ratio 2; with c at 0: 300/400 = 75% → 1.5 × 4 = 6
    expect(scaledTo(run('2024-01-01T00:00:05Z', w))).toBe(6);
  });

  it('AverageValue targets average the raw usage', () => {
    const r = run('2024-01-01T00:00:05Z', fleet(['200m', '200m', '200m', '200m'], fhpa({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '100m' } } }] })));
    expect(scaledTo(r)).toBe(8);
    expect(statusOf(r).currentMetrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '200m' } } }]);
  });

  it('the downscale stabilization window (300 s) keeps the highest recent recommendation', () => {
    const status = { currentReplicas: 4, desiredReplicas: 4, recommendations: [{ replicas: 4, since: T0 }] };
    const r = run('2024-01-01T00:01:00Z', fleet(['10m', '10m', '10m', '10m'], fhpa({}, status)));
    expect(scaledTo(r)).toBeUndefined();
    expect(cond(r, 'AbleToScale')).toMatchObject({ status: 'True', reason: 'ScaleDownStabilized' });
    expect(statusOf(r).recommendations).toEqual([{ replicas: 4, since: T0, until: '2024-01-01T00:01:00Z' }, { replicas: 1, since: '2024-01-01T00:01:00Z' }]);
    // five minutes after the 4 was last recommended: down to 1 (minReplicas)
    const later = run('2024-01-01T00:06:01Z', fleet(['10m', '10m', '10m', '10m'], fhpa({}, statusOf(r))));
    expect(scaledTo(later)).toBe(1);
    expect(later.events[0]).toMatchObject({ reason: 'SuccessfulRescale', message: 'New size: 1; reason: All metrics below target' });
  });

  it('behavior: a zero scale-down window scales down at once, within the policies\' rate', () => {
    const behavior = { scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } };
    const r = run('2024-01-01T00:00:05Z', fleet(['10m', '10m', '10m', '10m'], fhpa({ behavior })));
    expect(scaledTo(r)).toBe(3);
    expect(cond(r, 'ScalingLimited')).toMatchObject({ status: 'True', reason: 'ScaleDownLimit' });
    expect(statusOf(r).scaleEvents).toEqual([{ change: -1, time: '2024-01-01T00:00:05Z' }]);
    // 30 s later the period still holds that event: no further step; 61 s later one more
    const w = fleet(['10m', '10m', '10m'], fhpa({ behavior }, statusOf(r)));
    w.objects[2] = deploy(3);
    w.objects[3] = binding([{ name: 'm1', replicas: 2 }, { name: 'm2', replicas: 1 }]);
    w.pods.m2 = [pod('a')];
    w.metrics.m2 = { items: [sample('a', '10m')] };
    expect(scaledTo(run('2024-01-01T00:00:35Z', w))).toBeUndefined();
    expect(scaledTo(run('2024-01-01T00:01:06Z', w))).toBe(2);
  });

  it('below minReplicas or above maxReplicas: to the bound, before any metric', () => {
    const r = run('2024-01-01T00:00:05Z', fleet(['100m', '100m', '100m', '100m'], fhpa({ minReplicas: 6 })));
    expect(scaledTo(r)).toBe(6);
    expect(r.events[0]?.message).toBe('New size: 6; reason: Current number of replicas below Spec.MinReplicas');
    expect(statusOf(r).currentMetrics).toBeUndefined();
    const above = run('2024-01-01T00:00:05Z', fleet(['1m', '1m', '1m', '1m'], fhpa({ maxReplicas: 3 })));
    expect(scaledTo(above)).toBe(3);
    expect(above.events[0]?.message).toBe('New size: 3; reason: Current number of replicas above Spec.MaxReplicas');
  });

  it('metrics still being fetched: nothing decided, back in a second', () => {
    const w = fleet(['100m', '100m', '100m', '100m']);
    w.metrics.m2 = undefined;
    expect(run('2024-01-01T00:00:05Z', w)).toEqual({ writes: [], events: [], requeueAfterSeconds: 1 });
  });

  it('no metrics API in the members: ScalingActive False with the reason, and a warning', () => {
    const w = fleet(['1m', '1m', '1m', '1m']);
    w.metrics = { m1: { error: 'the server could not find the requested resource' }, m2: { error: 'the server could not find the requested resource' } };
    const r = run('2024-01-01T00:00:05Z', w);
    expect(scaledTo(r)).toBeUndefined();
    expect(cond(r, 'ScalingActive')).toMatchObject({ status: 'False', reason: 'FailedGetResourceMetric' });
    expect(cond(r, 'ScalingActive').message).toContain('unable to fetch metrics from resource metrics API: the server could not find the requested resource');
    expect(r.events.map((e) => e.reason)).toEqual(['FailedGetResourceMetric', 'FailedComputeMetricsReplicas']);
  });

  it('ContainerResource: one container\'s usage over its request', () => {
    const w = fleet(['100m', '100m', '100m', '100m'], fhpa({ metrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 50 } } }] }));
    const twoContainers = (name: string) => pod(name, { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '100m' } } }, { name: 'sidecar', resources: { requests: { cpu: '900m' } } }] } });
    w.pods = { m1: [twoContainers('a'), twoContainers('b')], m2: [twoContainers('a'), twoContainers('c')] };
    const usage = (name: string) => ({ name, timestamp: T0, window: '15s', containers: [{ name: 'app', usage: { cpu: '100m' } }, { name: 'sidecar', usage: { cpu: '10m' } }] });
    w.metrics = { m1: { items: [usage('a'), usage('b')] }, m2: { items: [usage('a'), usage('c')] } };
    // the app container at 100% of its 100m (the sidecar's 900m request does not count): 8
    const r = run('2024-01-01T00:00:05Z', w);
    expect(scaledTo(r)).toBe(8);
    expect(statusOf(r).currentMetrics).toEqual([{ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', current: { averageUtilization: 100, averageValue: '100m' } } }]);
    expect(cond(r, 'ScalingActive')?.message).toBe('the HPA was able to successfully calculate a replica count from cpu container resource utilization (percentage of request)');
    // a container the metrics do not have
    w.metrics.m2 = { items: [{ ...usage('c'), containers: [{ name: 'other', usage: { cpu: '1m' } }] }] };
    const missing = run('2024-01-01T00:00:05Z', w);
    expect(cond(missing, 'ScalingActive')).toMatchObject({ status: 'False', reason: 'FailedGetContainerResourceMetric' });
    expect(cond(missing, 'ScalingActive').message).toContain('container app not present in metrics for pod shop/c');
  });

  it('a Pods metric averages each member Pod\'s custom.metrics.k8s.io value against the target', () => {
    const asked: string[] = [];
    const custom = (c: string, p: string, q: Readonly<Record<string, string>>): CustomMetricsRead => {
      asked.push(`${c} ${p} ${JSON.stringify(q)}`);
      return { items: (c === 'm1' ? ['a', 'b'] : ['a', 'c']).map((object) => ({ object, value: '15', timestamp: T0 })) };
    };
    const spec = { metrics: [{ type: 'Pods', pods: { metric: { name: 'qps', selector: { matchLabels: { verb: 'GET' } } }, target: { type: 'AverageValue', averageValue: '10' } } }] };
    const r = run('2024-01-01T00:00:05Z', fleet(['1m', '1m', '1m', '1m'], fhpa(spec), { custom }));
    // 15 against 10 on 4 ready pods → 6
    expect(scaledTo(r)).toBe(6);
    expect(asked).toEqual(['m1 namespaces/shop/pods/*/qps {"labelSelector":"app=web","metricLabelSelector":"verb=GET"}', 'm2 namespaces/shop/pods/*/qps {"labelSelector":"app=web","metricLabelSelector":"verb=GET"}']);
    expect(statusOf(r).currentMetrics).toEqual([{ type: 'Pods', pods: { metric: { name: 'qps', selector: { matchLabels: { verb: 'GET' } } }, current: { averageValue: '15' } } }]);
    expect(cond(r, 'ScalingActive')).toMatchObject({ status: 'True', message: 'the HPA was able to successfully calculate a replica count from pods metric qps' });
  });

  it('a custom metric still being fetched decides nothing; none answering is FailedGetPodsMetric', () => {
    const spec = { metrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } }] };
    const pending = run('2024-01-01T00:00:05Z', fleet(['1m', '1m', '1m', '1m'], fhpa(spec), { custom: (c) => (c === 'm1' ? undefined : { items: [] }) }));
    expect(pending).toEqual({ writes: [], events: [], requeueAfterSeconds: 1 });
    const r = run('2024-01-01T00:00:05Z', fleet(['1m', '1m', '1m', '1m'], fhpa(spec)));
    expect(cond(r, 'ScalingActive')).toMatchObject({ status: 'False', reason: 'FailedGetPodsMetric' });
    expect(cond(r, 'ScalingActive').message).toContain('unable to fetch metrics from custom metrics API: the server could not find the requested resource');
  });

  it('an Object metric sums the object\'s value over the members (a member that fails is left out) and scales by the ready pods', () => {
    const custom = (c: string, p: string): CustomMetricsRead => (p !== 'namespaces/shop/ingresses.networking.k8s.io/main/rps' ? { error: `unexpected ${p}` } : c === 'm1' ? { items: [{ object: 'main', value: '300' }] } : { items: [{ object: 'main', value: '300' }] });
    const spec = (target: Record<string, unknown>) => ({ metrics: [{ type: 'Object', object: { describedObject: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'main' }, metric: { name: 'rps' }, target } }] });
    // 600 against a value of 400 → 1.5 × 4 ready pods = 6
    const r = run('2024-01-01T00:00:05Z', fleet(['1m', '1m', '1m', '1m'], fhpa(spec({ type: 'Value', value: '400' })), { custom }));
    expect(scaledTo(r)).toBe(6);
    expect(statusOf(r).currentMetrics).toEqual([{ type: 'Object', object: { describedObject: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'main' }, metric: { name: 'rps' }, current: { value: '600' } } }]);
    // one member failing: 300 against 400 → 0.75 × 4 = 3
    const oneDown = run('2024-01-01T00:00:05Z', fleet(['1m', '1m', '1m', '1m'], fhpa(spec({ type: 'Value', value: '400' }), { currentReplicas: 4, desiredReplicas: 4, recommendations: [{ replicas: 3, since: T0 }] }), { custom: (c, p) => (c === 'm2' ? { error: 'no' } : custom(c, p)) }));
    expect(statusOf(oneDown).currentMetrics[0].object.current).toEqual({ value: '300' });
    // AverageValue: 600 over 4 replicas is 150 a replica against 100 → ceil(600 / 100) = 6
    const avg = run('2024-01-01T00:00:05Z', fleet(['1m', '1m', '1m', '1m'], fhpa(spec({ type: 'AverageValue', averageValue: '100' })), { custom }));
    expect(scaledTo(avg)).toBe(6);
    expect(statusOf(avg).currentMetrics[0].object.current).toEqual({ averageValue: '150' });
  });

  it('External metrics are answered as karmada-metrics-adapter answers them: not implemented', () => {
    const r = run('2024-01-01T00:00:05Z', fleet(['1m', '1m', '1m', '1m'], fhpa({ metrics: [{ type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '10' } } }] })));
    expect(cond(r, 'ScalingActive')).toMatchObject({ status: 'False', reason: 'FailedGetExternalMetric' });
    expect(cond(r, 'ScalingActive').message).toContain('karmada-metrics-adapter still not implement it');
  });

  it('a target or binding not there: AbleToScale False, in Karmada\'s words', () => {
    const w = fleet(['1m', '1m', '1m', '1m']);
    const noTarget = run('2024-01-01T00:00:05Z', { ...w, objects: w.objects.filter((o) => o.kind !== 'Deployment') });
    expect(cond(noTarget, 'AbleToScale')).toMatchObject({ status: 'False', reason: 'FailedGetScaleTargetRef', message: 'the HPA controller was unable to get the target reference object: deployments.apps "web" not found' });
    const noBinding = run('2024-01-01T00:00:05Z', { ...w, objects: w.objects.filter((o) => o.kind !== 'ResourceBinding') });
    expect(cond(noBinding, 'AbleToScale')).toMatchObject({ status: 'False', reason: 'FailedGetBinding' });
    expect(noBinding.events).toMatchObject([{ type: 'Warning', reason: 'FailedGetBindings' }]);
  });

  it('a member that is not Ready is left out of the pods and the scale', () => {
    const w = fleet(['100m', '100m', '900m', '900m']);
    w.objects[1] = cluster('m2', false);
    // m1 only: 2 pods at 100% vs 50% → 4 pods, calibrated by the member's 2 of the template's 4 → 8
    expect(scaledTo(run('2024-01-01T00:00:05Z', w))).toBe(8);
  });

  it('is a core controller; selectors are written as labels.Selector does', () => {
    expect(coreControllers(withCoreDefaults()).map((c) => c.name)).toContain(FHPA_CONTROLLER);
    expect(selectorString({ matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 't', operator: 'In', values: ['y', 'x'] }, { key: 'g', operator: 'DoesNotExist' }] })).toBe('a=1,b=2,t in (x,y),!g');
  });
});

describe('CronFederatedHPA rules targeting a FederatedHPA', () => {
  it('set its minReplicas and maxReplicas and record them', () => {
    const cron: KObject = {
      ...CRON_FHPA,
      metadata: { name: 'scale', namespace: NS },
      spec: { scaleTargetRef: { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', name: 'web' }, rules: [{ name: 'peak', schedule: '0 8 * * *', targetMinReplicas: 5, targetMaxReplicas: 20 }] },
      status: { executionHistories: [{ ruleName: 'peak', nextExecutionTime: '2024-01-01T08:00:00Z' }] },
    };
    const r = run('2024-01-01T08:00:01Z', { objects: [fhpa(), cron], pods: {}, metrics: {} }, refKey({ ...CRON_FHPA, namespace: NS, name: 'scale' }));
    const updated = (r.writes.find((w) => w.op === 'update') as { object: KObject }).object;
    expect(updated.kind).toBe('FederatedHPA');
    expect(updated.spec).toMatchObject({ minReplicas: 5, maxReplicas: 20 });
    expect(statusOf(r).executionHistories[0].successfulExecutions[0]).toMatchObject({ appliedMinReplicas: 5, appliedMaxReplicas: 20 });
  });

  it('a FederatedHPA not there is a failed run', () => {
    const cron: KObject = {
      ...CRON_FHPA,
      metadata: { name: 'scale', namespace: NS },
      spec: { scaleTargetRef: { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', name: 'nope' }, rules: [{ name: 'peak', schedule: '0 8 * * *', targetMinReplicas: 5 }] },
      status: { executionHistories: [{ ruleName: 'peak', nextExecutionTime: '2024-01-01T08:00:00Z' }] },
    };
    const r = run('2024-01-01T08:00:01Z', { objects: [cron], pods: {}, metrics: {} }, refKey({ ...CRON_FHPA, namespace: NS, name: 'scale' }));
    expect(statusOf(r).executionHistories[0].failedExecutions[0].message).toBe('federatedhpas.autoscaling.karmada.io "nope" not found');
  });
});
