import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { ControlPlane, realScheduler } from '../../src/store/control-plane.js';
import { exponentialBuckets, KarmadaMetrics, karmadaObservations, schedulerEventOf, scheduleTypeOf, subjectOf } from '../../src/runtime/karmada-metrics.js';
import { Metrics } from '../../src/runtime/metrics.js';
import { refOf, type KObject } from '../../src/core/object.js';
import { runAlgorithm, createSnapshot, type ScheduleStep } from '../../src/scheduler/index.js';
import type { ReconcileDetail } from '../../src/runtime/runner.js';

/** The value of one series in the exposition text, or undefined when it is not there. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const deployment = (name: string, replicas = 2): KObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'shop', labels: { app: name } },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

const readyCluster = (name: string): KObject => ({
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name },
  spec: { syncMode: 'Push', apiEndpoint: `https://${name}.example:6443` },
  status: {
    conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', message: 'cluster is healthy and ready to accept workloads', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    apiEnablements: [{ groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] }],
  },
});

const policy = (clusters: string[]): KObject => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'web', namespace: 'shop' },
  // Divided: a Duplicated binding is scheduled again on every change of its spec, as Karmada does.
  spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }], placement: { clusterAffinity: { clusterNames: clusters }, replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted' } } },
});

/** The embedded control plane wired to Karmada's metrics the way the controller wires them. */
function instrumented() {
  const metrics = new Metrics();
  const karmada = metrics.karmada;
  let cp!: ControlPlane;
  cp = new ControlPlane({
    schedule: karmada.scheduler(realScheduler({ observe: karmada.algorithmObserver() }), (b) => cp.store.get(refOf(b), b.metadata.namespace, b.metadata.name ?? '') === b),
    onReconcile: (controller, seconds, error, detail) => karmada.observeReconcile(controller, seconds, error, detail, (key) => subjectOf(cp.store, controller, key)),
  });
  return { cp, metrics };
}

describe("Karmada's metrics, read off the reconciles", () => {
  it('a propagated Deployment: one policy application, a ReconcileSchedule, the binding synced, one create per member', async () => {
    const { cp, metrics } = instrumented();
    for (const c of ['member1', 'member2']) cp.apply(readyCluster(c));
    cp.apply(policy(['member1', 'member2']));
    cp.apply(deployment('web'));
    cp.settle();
    expect(cp.store.list({ apiVersion: 'apps/v1', kind: 'Deployment' }, {}, 'member1')).toHaveLength(1);
    const text = await metrics.registry.metrics();
    expect(sample(text, 'karmada_scheduler_schedule_attempts_total{result="scheduled",schedule_type="ReconcileSchedule"}')).toBe(1);
    expect(sample(text, 'karmada_scheduler_e2e_scheduling_duration_seconds_count{result="scheduled",schedule_type="ReconcileSchedule"}')).toBe(1);
    for (const step of ['Filter', 'Score', 'Select', 'AssignReplicas']) expect(sample(text, `karmada_scheduler_scheduling_algorithm_duration_seconds_count{schedule_step="${step}"}`)).toBe(1);
    // Every filter plugin for each of the two clusters: Karmada's Filter extension point runs per cluster.
    expect(sample(text, 'karmada_scheduler_framework_extension_point_duration_seconds_count{extension_point="Filter",result="Success"}')).toBe(2);
    expect(sample(text, 'policy_apply_attempts_total{result="success"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'resource_apply_policy_duration_seconds_count{result="success"}')).toBe(sample(text, 'policy_apply_attempts_total{result="success"}'));
    expect(sample(text, 'binding_sync_work_duration_seconds_count{result="success"}')).toBeGreaterThanOrEqual(1);
    for (const m of ['member1', 'member2']) {
      expect(sample(text, `create_resource_to_cluster{result="success",apiversion="apps/v1",kind="Deployment",member_cluster="${m}",recreate="false"}`)).toBe(1);
    }
    expect(sample(text, 'work_sync_workload_duration_seconds_count{result="success"}')).toBeGreaterThanOrEqual(2);
    expect(text).not.toMatch(/^update_resource_to_cluster\{/m);

    // A new replica count is a ScaleSchedule; the image change reaches both members as updates.
    const d = deployment('web', 4);
    (d.spec as any).template.spec.containers[0].image = 'nginx:2';
    cp.apply(d);
    cp.settle();
    const after = await metrics.registry.metrics();
    expect(sample(after, 'karmada_scheduler_schedule_attempts_total{result="scheduled",schedule_type="ScaleSchedule"}')).toBe(1);
    for (const m of ['member1', 'member2']) {
      expect(sample(after, `update_resource_to_cluster{result="success",apiversion="apps/v1",kind="Deployment",member_cluster="${m}",operationResult="updated"}`)).toBeGreaterThanOrEqual(1);
    }

    // Deleting the template removes the member objects: one delete per member.
    cp.delete(refOf(d));
    cp.settle();
    const gone = await metrics.registry.metrics();
    for (const m of ['member1', 'member2']) expect(sample(gone, `delete_resource_from_cluster{result="success",apiversion="apps/v1",kind="Deployment",member_cluster="${m}"}`)).toBe(1);
  });

  it('a binding no cluster fits is a failed attempt, and goes back to the queue as ScheduleAttemptFailure', async () => {
    const { cp, metrics } = instrumented();
    cp.apply(readyCluster('member1'));
    cp.apply(policy(['member9']));
    cp.apply(deployment('web'));
    cp.settle();
    const text = await metrics.registry.metrics();
    expect(sample(text, 'karmada_scheduler_schedule_attempts_total{result="error",schedule_type="ReconcileSchedule"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'karmada_scheduler_queue_incoming_bindings_total{event="ScheduleAttemptFailure"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'karmada_scheduler_framework_extension_point_duration_seconds_count{extension_point="Filter",result="Unschedulable"}')).toBeGreaterThanOrEqual(1);
    expect(text).not.toMatch(/^create_resource_to_cluster\{/m);
  });

  it('watching the scheduler port hands the estimators on: what is observed is what the scheduler answered with them', () => {
    const karmada = new Metrics().karmada;
    const seen: unknown[] = [];
    const inner = ((_b: unknown, _c: unknown, _n: unknown, extras: unknown) => (seen.push(extras), { action: 'Unchanged' })) as never;
    const extras = { estimators: [() => 3] };
    karmada.scheduler(inner, () => true)(deployment('x') as never, [], new Date(), extras);
    expect(seen).toEqual([extras]);
  });

  it("exports karmada_build_info with Karmada's labels, naming karmada-lite's build", async () => {
    const text = await new Metrics().registry.metrics();
    expect(text).toMatch(/^karmada_build_info\{git_version="karmada-lite-v[^"]+",git_commit="",git_short_commit="",git_tree_state="",build_date="",go_version="v\d+[^"]*",compiler="node",platform="[a-z0-9]+\/[a-z0-9]+"\} 1$/m);
  });
});

describe("Karmada's metric rules, pure", () => {
  const work = (ns: string): KObject => ({ apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work', metadata: { name: 'w', namespace: ns } });
  const detail = (d: Partial<ReconcileDetail>): ReconcileDetail => ({ key: 'k', writes: [], events: [], ...d });
  const member = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' } };

  it('execution: a failed member update is counted as an error and makes the Work sync an error', () => {
    const obs = karmadaObservations('execution', 0.5, 'Conflict', detail({ failed: { op: 'update', object: member, cluster: 'member1' } }), undefined);
    expect(obs).toEqual([
      { metric: 'member_write', op: 'update', result: 'error', apiVersion: 'apps/v1', kind: 'Deployment', cluster: 'member1' },
      { metric: 'work_sync_workload', result: 'error', seconds: 0.5 },
    ]);
  });

  it('execution: a delete alone is no workload sync; a status write of the Work is', () => {
    expect(karmadaObservations('execution', 1, undefined, detail({ writes: [{ op: 'delete', ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' }, cluster: 'm' }] }), undefined).map((o) => o.metric)).toEqual(['member_write']);
    expect(karmadaObservations('execution', 1, undefined, detail({ writes: [{ op: 'updateStatus', object: work('karmada-es-m') }] }), undefined)).toEqual([{ metric: 'work_sync_workload', result: 'success', seconds: 1 }]);
  });

  it('binding: a binding being deleted or gone is not a work sync', () => {
    const rb: KObject = { apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', metadata: { name: 'web-deployment', namespace: 'shop' } };
    expect(karmadaObservations('binding', 1, undefined, detail({}), rb)).toEqual([{ metric: 'binding_sync_work', result: 'success', seconds: 1 }]);
    expect(karmadaObservations('binding', 1, undefined, detail({}), { ...rb, metadata: { ...rb.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } })).toEqual([]);
    expect(karmadaObservations('binding', 1, undefined, detail({}), undefined)).toEqual([]);
  });

  it('detector: no policy, no attempt; preemption events are counted by outcome', () => {
    expect(karmadaObservations('detector', 1, undefined, detail({}), member)).toEqual([]);
    const ev = (reason: string) => ({ involvedObject: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, type: 'Normal' as const, reason, message: '', source: 'detector' });
    const obs = karmadaObservations('detector', 1, undefined, detail({ events: [ev('PreemptPolicySucceed'), ev('PreemptPolicyFailed')] }), { ...member, metadata: { ...member.metadata, labels: { 'propagationpolicy.karmada.io/permanent-id': 'x' } } });
    expect(obs).toEqual([
      { metric: 'apply_policy', result: 'success', seconds: 1 },
      { metric: 'policy_preemption', result: 'success' },
      { metric: 'policy_preemption', result: 'error' },
    ]);
  });

  it("names the scheduler's queue events and schedule types as Karmada does", () => {
    const rb: KObject = { apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', metadata: { name: 'b', namespace: 'n' } };
    expect(schedulerEventOf({ type: 'ADDED', object: rb })).toBe('BindingAdd');
    expect(schedulerEventOf({ type: 'MODIFIED', object: rb, old: rb })).toBe('BindingUpdate');
    expect(schedulerEventOf({ type: 'MODIFIED', object: readyCluster('m') })).toBe('ClusterChanged');
    expect(schedulerEventOf({ type: 'ADDED', object: member, cluster: 'm' })).toBeUndefined();
    expect(scheduleTypeOf('ReplicasChanged')).toBe('ScaleSchedule');
    expect(scheduleTypeOf('PlacementChanged')).toBe('ReconcileSchedule');
    const k = new KarmadaMetrics(new Registry());
    expect(k.countedKeys({ type: 'ADDED', object: rb }, ['a', 'b'])).toEqual(['a', 'b']);
    expect(k.countedKeys({ type: 'ADDED', object: rb }, [])).toEqual([]);
  });

  it("computes client_golang's exponential buckets as Go prints them", () => {
    expect(exponentialBuckets(0.001, 2, 15).at(-1)).toBe(16.384);
    expect(exponentialBuckets(10e-9, 10, 12)).toEqual([1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100, 1000]);
    expect(exponentialBuckets(0.0001, 2, 12)[11]).toBe(0.2048);
  });

  it("times the algorithm's steps with the observer's clock, and each cluster's filters", () => {
    let t = 0;
    const steps: ScheduleStep[] = [];
    const fits: boolean[] = [];
    const clusters = [readyCluster('a'), readyCluster('b')] as never;
    const spec = { resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' }, replicas: 2, placement: { clusterAffinity: { clusterNames: ['a'] } } };
    const res = runAlgorithm(spec as never, undefined, createSnapshot(clusters), 0, { observe: { now: () => (t += 1), step: (s) => steps.push(s), filtered: (f) => fits.push(f) } });
    expect(res.ok).toBe(true);
    expect(steps).toEqual(['Filter', 'Score', 'Select', 'AssignReplicas']);
    expect(fits).toEqual([true, false]);
  });
});
