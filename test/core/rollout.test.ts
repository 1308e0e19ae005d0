import { describe, expect, it } from 'vitest';
import { RolloutAbortAnnotation, RolloutPauseAnnotation, RolloutPromoteAnnotation } from '../../src/api/constants.js';
import type { ResourceBinding, RolloutStatus, Work } from '../../src/api/generated/types.js';
import { coreControllers } from '../../src/core/controllers.js';
import type { KObject } from '../../src/core/object.js';
import { resolveStages, revisionOf, ROLLOUT } from '../../src/core/rollout.js';
import { Runner } from '../../src/runtime/runner.js';
import { ControlPlane, interpreterPort, realScheduler } from '../../src/store/control-plane.js';
import { createInterpreter } from '../../src/interpreter/interpreter.js';
import { withCoreDefaults } from '../../src/core/ports.js';
import { parseDocuments } from '../../src/io/documents.js';
import { formatPlanTable } from '../../src/store/plan-table.js';
import type { PlanOptions } from '../../src/store/plan.js';
import { fleet as planFleet, nginxDeployment, planned } from '../store/plan-fixtures.js';

const MEMBERS = ['member1', 'member2', 'member3'];
const DEP = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' };
const RB_REF = { apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', namespace: 'default', name: 'nginx-deployment' };

const deployment = nginxDeployment;

function policy(rolloutStrategy: Record<string, unknown> | undefined, clusters = MEMBERS, extra: Record<string, unknown> = {}): KObject {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: 'nginx', namespace: 'default' },
    spec: {
      resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }],
      placement: { clusterAffinity: { clusterNames: clusters }, replicaScheduling: { replicaSchedulingType: 'Duplicated' } },
      ...(rolloutStrategy ? { rolloutStrategy } : {}),
      ...extra,
    },
  };
}

const staged = (staged: Record<string, unknown> = {}) => ({ type: 'Staged', staged });

/** A fleet of three members with nginx:1.25 fully rolled out under `strategy`. */
function fleet(strategy: Record<string, unknown> | undefined, labels: Record<string, Record<string, string>> = {}): ControlPlane {
  const cp = new ControlPlane({ start: new Date('2024-01-01T00:00:00Z') });
  for (const name of MEMBERS) cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name, labels: labels[name] }, spec: { syncMode: 'Push' } });
  cp.apply(deployment('nginx:1.25'));
  cp.apply(policy(strategy));
  cp.settle();
  // The template's first revision goes stage by stage too: let it finish.
  cp.advance(3600);
  expect(rollout(cp).phase).toBe('Completed');
  return cp;
}

function binding(cp: ControlPlane): ResourceBinding {
  const b = cp.get(RB_REF);
  if (!b) throw new Error('no binding');
  return b as ResourceBinding;
}

function rollout(cp: ControlPlane): RolloutStatus {
  const r = binding(cp).status?.rollout;
  if (!r) throw new Error('no status.rollout on the binding');
  return r;
}

function image(cp: ControlPlane, cluster: string): string | undefined {
  return cp.get(DEP, cluster)?.spec?.template?.spec?.containers?.[0]?.image;
}

function images(cp: ControlPlane): Record<string, string | undefined> {
  return Object.fromEntries(MEMBERS.map((m) => [m, image(cp, m)]));
}

function work(cp: ControlPlane, cluster: string): Work {
  const w = cp.store.list({ apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work' }, { namespace: `karmada-es-${cluster}` })[0];
  if (!w) throw new Error(`no Work in karmada-es-${cluster}`);
  return w as Work;
}

const workImage = (cp: ControlPlane, cluster: string) => (work(cp, cluster).spec?.workload?.manifests?.[0] as KObject | undefined)?.spec?.template?.spec?.containers?.[0]?.image;

function clusterState(cp: ControlPlane, name: string) {
  return rollout(cp).clusters.find((c) => c.name === name);
}

function condition(cp: ControlPlane) {
  return binding(cp).status?.conditions?.find((c) => c.type === 'Rollout');
}

function rolloutEvents(cp: ControlPlane): string[] {
  return cp
    .events()
    .filter((e) => e.reason.startsWith('Rollout') && e.involvedObject.kind === 'ResourceBinding')
    .map((e) => e.reason);
}

function annotate(cp: ControlPlane, key: string, value: string | undefined): void {
  const b = binding(cp);
  const annotations = { ...(b.metadata.annotations ?? {}) };
  if (value === undefined) delete annotations[key];
  else annotations[key] = value;
  cp.store.update({ ...b, metadata: { ...b.metadata, annotations } });
}

const unhealthy = (cp: ControlPlane, cluster: string) => cp.setMemberState(cluster, DEP, { health: 'Unhealthy' });
const healthy = (cp: ControlPlane, cluster: string) => cp.setMemberState(cluster, DEP, { health: 'Healthy' });

describe('staged rollout: stage by stage, gated on health', () => {
  it('dispatches a new revision to the first stage only; the others keep the previous manifest, not suspended', () => {
    const cp = fleet(staged({ gate: { minHealthySeconds: 60 } }));
    cp.apply(deployment('nginx:1.26'));
    cp.settle();
    expect(images(cp)).toEqual({ member1: 'nginx:1.26', member2: 'nginx:1.25', member3: 'nginx:1.25' });
    // Held clusters stay managed at the stable revision: their Work says what they run.
    expect(workImage(cp, 'member2')).toBe('nginx:1.25');
    expect(work(cp, 'member2').spec?.suspendDispatching).toBe(false);
    const r = rollout(cp);
    expect(r).toMatchObject({ revision: revisionOf(cp.get(DEP)!), stableRevision: expect.any(String), phase: 'Progressing', currentStage: 0 });
    expect(r.stages.map((s) => [s.name, s.clusters, s.openedAt !== undefined])).toEqual([
      ['member1', ['member1'], true],
      ['member2', ['member2'], false],
      ['member3', ['member3'], false],
    ]);
    expect(clusterState(cp, 'member1')).toMatchObject({ state: 'Healthy', revision: r.revision, healthySince: '2024-01-01T01:00:00Z' });
    expect(clusterState(cp, 'member2')).toMatchObject({ state: 'Waiting', revision: r.stableRevision, reason: 'StageNotOpen' });
    expect(condition(cp)).toMatchObject({ status: 'False', reason: 'Progressing' });
  });

  it('opens each stage once the previous one was healthy for minHealthySeconds without a break, and completes', () => {
    const cp = fleet(staged({ gate: { minHealthySeconds: 60 } }));
    cp.store.clearEvents();
    cp.apply(deployment('nginx:1.26'));
    cp.advance(59);
    expect(images(cp)).toEqual({ member1: 'nginx:1.26', member2: 'nginx:1.25', member3: 'nginx:1.25' });
    cp.advance(1);
    expect(images(cp)).toEqual({ member1: 'nginx:1.26', member2: 'nginx:1.26', member3: 'nginx:1.25' });
    expect(rollout(cp).stages[0]).toMatchObject({ passedAt: '2024-01-01T01:01:00Z', reason: 'GatePassed' });
    expect(rollout(cp).stages[1]).toMatchObject({ openedAt: '2024-01-01T01:01:00Z' });
    cp.advance(60);
    expect(image(cp, 'member3')).toBe('nginx:1.26');
    cp.advance(60);
    const r = rollout(cp);
    expect(r.phase).toBe('Completed');
    expect(r.stableRevision).toBe(r.revision);
    expect(r.currentStage).toBe(3);
    expect(condition(cp)).toMatchObject({ status: 'True', reason: 'Completed' });
    expect(rolloutEvents(cp)).toEqual(
      expect.arrayContaining(['RolloutStarted', 'RolloutStageOpened', 'RolloutStagePassed', 'RolloutCompleted']),
    );
  });

  it('asks to be woken when the bake time of the open stage ends', () => {
    const cp = fleet(staged({ gate: { minHealthySeconds: 90 } }));
    cp.apply(deployment('nginx:1.26'));
    cp.settle();
    expect(cp.runner.nextWakeAt()).toBe(new Date('2024-01-01T01:01:30Z').getTime());
  });

  it('restarts the bake time when a cluster of the open stage falls out of health', () => {
    const cp = fleet(staged({ gate: { minHealthySeconds: 60 } }));
    cp.apply(deployment('nginx:1.26'));
    cp.advance(30);
    unhealthy(cp, 'member1');
    cp.advance(10);
    expect(clusterState(cp, 'member1')).toMatchObject({ state: 'Progressing', reason: 'Unhealthy' });
    healthy(cp, 'member1');
    cp.settle();
    expect(clusterState(cp, 'member1')).toMatchObject({ state: 'Healthy', healthySince: '2024-01-01T01:00:40Z' });
    cp.advance(59);
    expect(image(cp, 'member2')).toBe('nginx:1.25');
    cp.advance(1);
    expect(image(cp, 'member2')).toBe('nginx:1.26');
  });

  it('waits for named conditions on the member object (requiredConditions)', () => {
    const cp = fleet(staged());
    cp.apply(policy(staged({ gate: { requiredConditions: ['SmokeTestsPassed'] } })));
    cp.apply(deployment('nginx:1.26'));
    cp.settle();
    expect(clusterState(cp, 'member1')).toMatchObject({ state: 'Progressing', reason: 'ConditionNotTrue', message: 'condition SmokeTestsPassed is missing' });
    const healthyStatus = (generation: number, smoke: string) => ({
      observedGeneration: generation,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      conditions: [{ type: 'SmokeTestsPassed', status: smoke, observedGeneration: generation }],
    });
    const gen = cp.get(DEP, 'member1')!.metadata.generation!;
    cp.setMemberState('member1', DEP, { status: healthyStatus(gen, 'False') });
    cp.settle();
    expect(clusterState(cp, 'member1')).toMatchObject({ reason: 'ConditionNotTrue', message: 'condition SmokeTestsPassed is False' });
    expect(image(cp, 'member2')).toBe('nginx:1.25');
    cp.setMemberState('member1', DEP, { status: healthyStatus(gen, 'True') });
    cp.settle();
    expect(image(cp, 'member2')).toBe('nginx:1.26');
  });
});

describe('staged rollout: failures', () => {
  it('pauses at a stage that never becomes healthy once timeoutSeconds passed (onFailure default Pause)', () => {
    const cp = fleet(staged({ gate: { timeoutSeconds: 120 } }));
    unhealthy(cp, 'member2');
    cp.store.clearEvents();
    cp.apply(deployment('nginx:1.26'));
    cp.advance(119);
    expect(clusterState(cp, 'member2')).toMatchObject({ state: 'Progressing', reason: 'Unhealthy' });
    cp.advance(1);
    expect(clusterState(cp, 'member2')).toMatchObject({ state: 'Failed', reason: 'GateTimeout' });
    expect(rollout(cp).phase).toBe('StageFailed');
    expect(condition(cp)).toMatchObject({ status: 'False', reason: 'StageFailed' });
    expect(condition(cp)!.message).toContain(RolloutPromoteAnnotation);
    expect(rolloutEvents(cp)).toContain('RolloutStageFailed');
    cp.advance(3600);
    // Paused for good: member3 never gets the revision, member2 keeps it (Pause rolls nothing back).
    expect(images(cp)).toEqual({ member1: 'nginx:1.26', member2: 'nginx:1.26', member3: 'nginx:1.25' });
  });

  it('promote annotation: opens the next stage of a failed rollout and is removed once acted on', () => {
    const cp = fleet(staged({ gate: { timeoutSeconds: 120 } }));
    unhealthy(cp, 'member2');
    cp.apply(deployment('nginx:1.26'));
    cp.advance(120);
    expect(rollout(cp).phase).toBe('StageFailed');
    annotate(cp, RolloutPromoteAnnotation, 'true');
    cp.settle();
    expect(image(cp, 'member3')).toBe('nginx:1.26');
    expect(rollout(cp).stages[1]).toMatchObject({ reason: 'Promoted' });
    expect(binding(cp).metadata.annotations?.[RolloutPromoteAnnotation]).toBeUndefined();
  });

  it('Rollback gives the failed stage its previous revision back and stops there', () => {
    const cp = fleet(staged({ gate: { timeoutSeconds: 120 }, onFailure: { action: 'Rollback' } }));
    unhealthy(cp, 'member2');
    cp.store.clearEvents();
    cp.apply(deployment('nginx:1.26'));
    cp.advance(120);
    expect(images(cp)).toEqual({ member1: 'nginx:1.26', member2: 'nginx:1.25', member3: 'nginx:1.25' });
    expect(rollout(cp).phase).toBe('RolledBack');
    expect(clusterState(cp, 'member2')).toMatchObject({ state: 'Failed', reason: 'RolledBack', revision: rollout(cp).stableRevision });
    expect(rolloutEvents(cp)).toEqual(expect.arrayContaining(['RolloutStageFailed', 'RolloutRolledBack']));
    cp.advance(3600);
    expect(image(cp, 'member3')).toBe('nginx:1.25');
  });

  it('Continue opens the next stage despite the failure', () => {
    const cp = fleet(staged({ gate: { timeoutSeconds: 120 }, onFailure: { action: 'Continue' } }));
    unhealthy(cp, 'member2');
    cp.apply(deployment('nginx:1.26'));
    cp.advance(120);
    expect(images(cp)).toEqual({ member1: 'nginx:1.26', member2: 'nginx:1.26', member3: 'nginx:1.26' });
    expect(rollout(cp).stages[1]).toMatchObject({ reason: 'Continued', failedAt: expect.any(String) });
    expect(rollout(cp).phase).toBe('Completed');
  });

  it('abort annotation: every cluster gets the stable revision back until the next template change', () => {
    const cp = fleet(staged({ gate: { minHealthySeconds: 60 } }));
    cp.apply(deployment('nginx:1.26'));
    cp.advance(60);
    expect(image(cp, 'member2')).toBe('nginx:1.26');
    annotate(cp, RolloutAbortAnnotation, 'true');
    cp.advance(600);
    expect(images(cp)).toEqual({ member1: 'nginx:1.25', member2: 'nginx:1.25', member3: 'nginx:1.25' });
    expect(rollout(cp).phase).toBe('Aborted');
    expect(binding(cp).metadata.annotations?.[RolloutAbortAnnotation]).toBeUndefined();
    cp.apply(deployment('nginx:1.27'));
    cp.settle();
    expect(images(cp)).toEqual({ member1: 'nginx:1.27', member2: 'nginx:1.25', member3: 'nginx:1.25' });
    expect(rollout(cp).phase).toBe('Progressing');
  });

  it('pause annotation: no stage opens while it is set; removing it resumes', () => {
    const cp = fleet(staged({ gate: { minHealthySeconds: 60 } }));
    cp.apply(deployment('nginx:1.26'));
    cp.settle();
    annotate(cp, RolloutPauseAnnotation, 'true');
    cp.advance(600);
    expect(image(cp, 'member2')).toBe('nginx:1.25');
    expect(rollout(cp).phase).toBe('Paused');
    expect(condition(cp)).toMatchObject({ reason: 'Paused' });
    annotate(cp, RolloutPauseAnnotation, undefined);
    cp.settle();
    expect(image(cp, 'member2')).toBe('nginx:1.26');
  });

  it('a cluster the user suspended holds its stage without failing it, whatever the timeout', () => {
    const cp = fleet(staged({ gate: { timeoutSeconds: 60 } }));
    cp.apply(policy(staged({ gate: { timeoutSeconds: 60 } }), MEMBERS, { suspension: { dispatchingOnClusters: { clusterNames: ['member2'] } } }));
    cp.settle();
    cp.apply(deployment('nginx:1.26'));
    cp.advance(600);
    expect(clusterState(cp, 'member2')).toMatchObject({ state: 'Progressing', reason: 'Suspended' });
    expect(rollout(cp).phase).toBe('Progressing');
    expect(images(cp)).toEqual({ member1: 'nginx:1.26', member2: 'nginx:1.25', member3: 'nginx:1.25' });
    // The suspension is the user's: the Work carries the revision, not dispatched.
    expect(work(cp, 'member2').spec?.suspendDispatching).toBe(true);
    expect(workImage(cp, 'member2')).toBe('nginx:1.26');
    cp.apply(policy(staged({ gate: { timeoutSeconds: 60 } })));
    cp.advance(1);
    expect(images(cp)).toEqual({ member1: 'nginx:1.26', member2: 'nginx:1.26', member3: 'nginx:1.26' });
  });
});

describe('staged rollout: changes during a rollout', () => {
  it('a new revision mid-rollout starts again from the first stage; clusters of later stages go back to the stable revision', () => {
    const cp = fleet(staged({ gate: { minHealthySeconds: 60 } }));
    cp.apply(deployment('nginx:1.26'));
    cp.advance(60);
    expect(images(cp)).toEqual({ member1: 'nginx:1.26', member2: 'nginx:1.26', member3: 'nginx:1.25' });
    cp.store.clearEvents();
    cp.apply(deployment('nginx:1.27'));
    cp.settle();
    expect(images(cp)).toEqual({ member1: 'nginx:1.27', member2: 'nginx:1.25', member3: 'nginx:1.25' });
    expect(rollout(cp)).toMatchObject({ phase: 'Progressing', currentStage: 0, startedAt: '2024-01-01T01:01:00Z' });
    expect(rolloutEvents(cp)).toContain('RolloutRestarted');
  });

  it('a cluster that leaves the placement mid-rollout leaves its stage; an empty stage passes', () => {
    const cp = fleet(staged({ gate: { minHealthySeconds: 60 }, stages: [{ name: 'canary', clusterNames: ['member1'] }, { name: 'eu', clusterNames: ['member2'] }, { name: 'rest', clusterNames: ['member3'] }] }));
    unhealthy(cp, 'member2');
    cp.apply(deployment('nginx:1.26'));
    cp.advance(120);
    expect(rollout(cp).currentStage).toBe(1);
    cp.apply(policy(staged({ gate: { minHealthySeconds: 60 }, stages: [{ name: 'canary', clusterNames: ['member1'] }, { name: 'eu', clusterNames: ['member2'] }, { name: 'rest', clusterNames: ['member3'] }] }), ['member1', 'member3']));
    cp.settle();
    const r = rollout(cp);
    expect(r.stages[1]).toMatchObject({ name: 'eu', clusters: [], reason: 'Empty' });
    expect(r.clusters.map((c) => c.name)).toEqual(['member1', 'member3']);
    expect(image(cp, 'member3')).toBe('nginx:1.26');
  });

  it('never holds the template deletion', () => {
    const cp = fleet(staged({ gate: { minHealthySeconds: 600 } }));
    cp.apply(deployment('nginx:1.26'));
    cp.settle();
    cp.delete(DEP);
    cp.settle();
    expect(MEMBERS.map((m) => cp.get(DEP, m))).toEqual([undefined, undefined, undefined]);
    expect(cp.get(RB_REF)).toBeUndefined();
  });

  it('survives a controller restart: a new runner over the same store continues from the binding status', () => {
    const cp = fleet(staged({ gate: { minHealthySeconds: 60 } }));
    cp.apply(deployment('nginx:1.26'));
    cp.advance(30);
    // The old controller goes away with its queues and timers; a new one lists everything and reconciles it.
    cp.runner.stop();
    const core = withCoreDefaults({ policyPreemption: false });
    const evaluators = { interpreter: interpreterPort(createInterpreter({ nowMs: () => cp.now.getTime(), builtin: true })), schedule: realScheduler(), options: core };
    const runner = new Runner(cp.store, coreControllers(core), { clock: () => cp.now, context: () => evaluators, immediateRetries: 5 });
    const existing = cp.store.types().flatMap((t) => cp.store.list(t).map((object) => ({ type: 'ADDED' as const, object })));
    runner.start(existing);
    runner.runUntilIdle();
    expect(image(cp, 'member2')).toBe('nginx:1.25');
    // The bake started before the restart: 30 more seconds, not 60.
    cp.setTime(new Date('2024-01-01T01:00:59Z'));
    runner.runUntilIdle();
    expect(image(cp, 'member2')).toBe('nginx:1.25');
    cp.setTime(new Date('2024-01-01T01:01:00Z'));
    runner.runUntilIdle();
    expect(image(cp, 'member2')).toBe('nginx:1.26');
    runner.stop();
  });
});

describe('staged rollout: adoption and the all-at-once default', () => {
  it('a policy without a rollout leaves the binding without rollout status or condition', () => {
    const cp = new ControlPlane({ start: new Date('2024-01-01T00:00:00Z') });
    for (const name of MEMBERS) cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: { syncMode: 'Push' } });
    cp.apply(deployment('nginx:1.25'));
    cp.apply(policy(undefined));
    cp.settle();
    cp.apply(deployment('nginx:1.26'));
    cp.settle();
    expect(images(cp)).toEqual({ member1: 'nginx:1.26', member2: 'nginx:1.26', member3: 'nginx:1.26' });
    expect(binding(cp).status?.rollout).toBeUndefined();
    expect(condition(cp)).toBeUndefined();
  });

  it('a policy that gains a rollout adopts what runs as the stable revision; the next change is staged', () => {
    const cp = new ControlPlane({ start: new Date('2024-01-01T00:00:00Z') });
    for (const name of MEMBERS) cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: { syncMode: 'Push' } });
    cp.apply(deployment('nginx:1.25'));
    cp.apply(policy(undefined));
    cp.settle();
    cp.apply(policy(staged({ gate: { minHealthySeconds: 60 } })));
    cp.settle();
    expect(rollout(cp).phase).toBe('Completed');
    cp.apply(deployment('nginx:1.26'));
    cp.settle();
    expect(images(cp)).toEqual({ member1: 'nginx:1.26', member2: 'nginx:1.25', member3: 'nginx:1.25' });
    // Dropping the rollout again: every cluster gets the current revision and the status goes.
    cp.apply(policy(undefined));
    const p = cp.get({ apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', namespace: 'default', name: 'nginx' })!;
    cp.store.update({ ...p, spec: { ...p.spec, rolloutStrategy: undefined } });
    cp.settle();
    expect(images(cp)).toEqual({ member1: 'nginx:1.26', member2: 'nginx:1.26', member3: 'nginx:1.26' });
    expect(binding(cp).status?.rollout).toBeUndefined();
  });

  it('the template first revision: later stages get a suspended Work, nothing on the member', () => {
    const cp = new ControlPlane({ start: new Date('2024-01-01T00:00:00Z') });
    for (const name of MEMBERS) cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: { syncMode: 'Push' } });
    cp.apply(deployment('nginx:1.25'));
    cp.apply(policy(staged({ gate: { minHealthySeconds: 60 } })));
    cp.settle();
    expect(images(cp)).toEqual({ member1: 'nginx:1.25', member2: undefined, member3: undefined });
    expect(work(cp, 'member2').spec?.suspendDispatching).toBe(true);
    expect(clusterState(cp, 'member2')).toMatchObject({ state: 'Waiting' });
    expect(clusterState(cp, 'member2')!.revision).toBeUndefined();
  });
});

describe('staged rollout: stages and revisions', () => {
  const b = (clusters: string[]) => ({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', metadata: { name: 'x', namespace: 'default' }, spec: { resource: { apiVersion: 'v1', kind: 'ConfigMap', name: 'x' }, clusters: clusters.map((name) => ({ name })) } }) as ResourceBinding;
  const reader = (labels: Record<string, Record<string, string>>) => ({
    get: (_t: unknown, _ns: unknown, name: string) => (labels[name] ? { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name, labels: labels[name] } } : undefined),
    list: () => [],
    types: () => [],
  }) as never;

  it('puts a cluster in the first stage that names or selects it, and the unnamed ones in the last stage', () => {
    const stages = resolveStages(
      { stages: [{ name: 'canary', clusterNames: ['c'] }, { name: 'gold', labelSelector: { matchLabels: { tier: 'gold' } } }, { name: 'rest', clusterNames: ['a'] }] },
      b(['a', 'b', 'c', 'd']),
      reader({ a: { tier: 'gold' }, b: {}, c: { tier: 'gold' }, d: {} }),
    );
    expect(stages.map((s) => [s.name, s.clusters])).toEqual([
      ['canary', ['c']],
      ['gold', ['a']],
      ['rest', ['b', 'd']],
    ]);
  });

  it('defaults to one stage per cluster, named after it, with staged.gate', () => {
    const stages = resolveStages({ gate: { minHealthySeconds: 5, requireHealthy: false } }, b(['m2', 'm1']), reader({}));
    expect(stages).toEqual([
      { name: 'm2', clusters: ['m2'], gate: { requireHealthy: false, requiredConditions: [], minHealthySeconds: 5 } },
      { name: 'm1', clusters: ['m1'], gate: { requireHealthy: false, requiredConditions: [], minHealthySeconds: 5 } },
    ]);
  });

  it('a revision is the generation, or a hash of the content for a kind without one', () => {
    const cm = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', resourceVersion: String(Math.random()) }, data });
    expect(revisionOf({ ...cm({ a: '1' }), metadata: { name: 'x', generation: 7 } })).toBe('7');
    expect(revisionOf(cm({ a: '1', b: '2' }))).toBe(revisionOf(cm({ b: '2', a: '1' })));
    expect(revisionOf(cm({ a: '1' }))).not.toBe(revisionOf(cm({ a: '2' })));
    expect(revisionOf(cm({ a: '1' }))).toMatch(/^h[0-9a-f]+$/);
  });

  it('names the controller as rollout', () => {
    expect(coreControllers({ skippedPropagatingNamespaces: [] }).map((c) => c.name)).toContain(ROLLOUT);
  });
});

describe('staged rollout: plan preview', () => {
  const app = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec: {replicas: 2, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: "web:2.0"}]}}}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement: {clusterAffinity: {clusterNames: [member1, member2, member3]}, replicaScheduling: {replicaSchedulingType: Duplicated}}
  rolloutStrategy:
    type: Staged
    staged:
      gate: {minHealthySeconds: 300, timeoutSeconds: 900}
      stages: [{name: canary, clusterNames: [member1]}, {name: eu, clusterNames: [member2]}, {name: rest, clusterNames: [member3]}]
`;
  const docs = () => [...planFleet(MEMBERS), ...parseDocuments(app, 'app.yaml')];
  const rows = (opts: PlanOptions) => formatPlanTable(planned(docs(), opts)).trimEnd().split('\n').map((l) => l.replace(/\s+/g, ' '));

  it('plays the rollout through virtual time: each stage, its gate state and when it opened', () => {
    const status = parseDocuments('{cluster: member2, apiVersion: apps/v1, kind: Deployment, namespace: default, name: web, health: Unhealthy}\n', 's.yaml');
    expect(rows({ status, runForSeconds: 1800 }).slice(1)).toEqual([
      'Deployment/default/web default/web member1 2 dispatched yes Healthy web:2.0 -',
      'Deployment/default/web default/web member2 2 dispatched yes Unhealthy web:2.0 -',
      'Deployment/default/web default/web member3 2 held (stage 2) - Unknown web:2.0 -',
      'Deployment/default/web default/web rollout revision 2: StageFailed at stage 1 of 3, started 2024-01-01T00:00:00Z',
      'Deployment/default/web default/web stage 0 canary member1: passed; opened 2024-01-01T00:00:00Z, passed 2024-01-01T00:05:00Z',
      'Deployment/default/web default/web stage 1 eu member2: failed; opened 2024-01-01T00:05:00Z, failed 2024-01-01T00:20:00Z; member2 Failed (GateTimeout: not through the gate within 900s: health is Unhealthy)',
      'Deployment/default/web default/web stage 2 rest member3: waiting',
    ]);
  });

  it('at the start only the first stage is open', () => {
    expect(rows({}).filter((r) => r.includes('default/web stage '))).toEqual([
      'Deployment/default/web default/web stage 0 canary member1: gating; opened 2024-01-01T00:00:00Z; member1 Healthy since 2024-01-01T00:00:00Z',
      'Deployment/default/web default/web stage 1 eu member2: waiting',
      'Deployment/default/web default/web stage 2 rest member3: waiting',
    ]);
  });
});
