// End to end: staged rollout (issue #21, spec.rolloutStrategy) by the real binary against the host, member1
// and member2 apiservers. The environment has two members (scripts/k8s/env.sh starts host, member1 and
// member2, and the host cannot be its own member: its copy would be the template itself), so the three
// stages here are member1, a stage whose selector matches no cluster (it passes as soon as it opens), and
// member2. The members' Deployment status, which the built-in health interpreter reads and the stage gates wait
// for, is their deployment controllers' (the kwok fleet runs the Pods). The Pods carry a readiness gate the test
// owns (test/integration/fleet.ts), so a member copy becomes healthy when the test opens the gate on its Pods,
// and never before: a stage's wait is the test's to end.
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import type { RestClient } from '../../src/kube/rest.js';
import { waitFor, type ClusterName } from './env.js';
import { gatedPodSpec, itWithFleet as it, openReadinessGate, withFleet } from './fleet.js';
import { createDeploymentWithPolicy, diagnose, edit, get, prepareHost, type Proc, removeDeployments, rest, startController, stopController } from './harness.js';

const NS = `rollout-e2e-${Date.now().toString(36)}`;
const MEMBERS = ['member1', 'member2'] as const;
/** Small, so the suite stays short; the assertions read the controller's own timestamps, never the test's clock. */
const MIN_HEALTHY = 3;
const TIMEOUT = 2;

const host = rest('host');
const member = (m: ClusterName) => rest(m);
const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;
const ppPath = (name: string) => `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${name}`;
const rbPath = (name: string) => `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${name}-deployment`;

const created: string[] = [];

/** Read-modify-write with the resourceVersion; a 409 (the controller wrote meanwhile) reads again. */
/** A Deployment on both members through a staged policy: canary (member1), an empty stage, rest (member2). */
async function createWorkload(name: string, gate: Record<string, unknown>): Promise<void> {
  created.push(name);
  await createDeploymentWithPolicy(NS, name, 2, {
    placement: { clusterAffinity: { clusterNames: [...MEMBERS] } },
    rolloutStrategy: {
      type: 'Staged',
      staged: {
        stages: [
          { name: 'canary', clusterNames: ['member1'] },
          { name: 'nobody', labelSelector: { matchLabels: { 'rollout-e2e/none': 'none' } } },
          { name: 'rest', clusterNames: ['member2'] },
        ],
        gate,
      },
    },
  }, gatedPodSpec);
}

/** A member copy made healthy: the readiness gate opened on its Pods until its controller reports it Available. */
const setHealthy = (c: RestClient, name: string) => openReadinessGate(c, NS, name);

const imageOf = (d: any) => d?.spec?.template?.spec?.containers?.[0]?.image as string | undefined;
const rolloutOf = (rb: any) => rb?.status?.rollout;
const clusterState = (rb: any, name: string) => ((rolloutOf(rb)?.clusters ?? []) as any[]).find((c) => c.name === name);
const rolloutCondition = (rb: any) => ((rb?.status?.conditions ?? []) as any[]).find((c) => c.type === 'Rollout');
const seconds = (t: string) => Date.parse(t) / 1000;
/**
 * How long from `from` to `to` at least, in whole seconds: some of the controller's times are RFC 3339 with
 * fractions and others are truncated to the second, so both are truncated before they are compared.
 */
const elapsedAtLeast = (from: string, to: string) => Math.floor(seconds(to)) - Math.floor(seconds(from));

const imageOn = (m: ClusterName, name: string, image: string) =>
  waitFor(`${image} on ${m}`, async () => {
    const d = await get(member(m), deployPath(name));
    return imageOf(d) === image ? d : undefined;
  });

const bindingWhere = (what: string, name: string, test: (rb: any) => boolean) =>
  waitFor(what, async () => {
    const rb = await get(host, rbPath(name));
    return rb && test(rb) ? rb : undefined;
  });

/** Long enough for the controller to have acted if it were going to: the pipeline takes well under a second here. */
const settle = () => new Promise((r) => setTimeout(r, 3000));

async function eventReasons(name: string): Promise<string[]> {
  const items = (await host.request('GET', `/api/v1/namespaces/${NS}/events`)).items as any[];
  return items.filter((e) => e.involvedObject?.name === `${name}-deployment` || e.involvedObject?.name === name).map((e) => e.reason as string);
}

describe('staged rollout end to end', () => {
  let ctrl: Proc | undefined;

  beforeAll(async () => {
    if (!withFleet()) return;
    await prepareHost(host, NS);
    ctrl = await startController();
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail') return;
    console.error((ctrl?.logs ?? []).slice(-200).join('\n'));
    console.error(await diagnose(ctrl));
    for (const n of created) console.error(JSON.stringify(rolloutOf(await get(host, rbPath(n))), null, 1));
  });

  afterAll(async () => {
    if (!withFleet()) return;
    await removeDeployments(NS, created);
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
  });

  it('a change reaches the next stage only after the stage before was healthy for minHealthySeconds, and the binding says so', async () => {
    const name = 'staged';
    await createWorkload(name, { minHealthySeconds: MIN_HEALTHY });

    // The first revision: member1 gets it, member2 nothing until its stage opens.
    await imageOn('member1', name, 'nginx:1.25');
    // The revision is the template's generation, read back: claiming a Deployment adds annotations, and the
    // apiserver moves a Deployment's generation on annotation changes too (so the first rollout may restart once).
    const firstGen = await waitFor('the template claimed', async () => {
      const d = await get(host, deployPath(name));
      return d?.metadata?.annotations?.['propagationpolicy.karmada.io/name'] ? String(d.metadata.generation) : undefined;
    });
    let rb = await bindingWhere('the rollout in the binding status', name, (b) => rolloutOf(b)?.revision === firstGen && clusterState(b, 'member1')?.state === 'Progressing');
    expect(rolloutOf(rb)).toMatchObject({ revision: firstGen, currentStage: 0 });
    expect(rolloutOf(rb).stages.map((s: any) => [s.name, s.clusters])).toEqual([
      ['canary', ['member1']],
      ['nobody', []],
      ['rest', ['member2']],
    ]);
    expect(clusterState(rb, 'member2')).toMatchObject({ stage: 2, state: 'Waiting' });
    expect(rolloutCondition(rb)).toMatchObject({ status: 'False', reason: 'Progressing' });
    await settle();
    expect(await get(member('member2'), deployPath(name))).toBeUndefined();

    await setHealthy(member('member1'), name);
    await imageOn('member2', name, 'nginx:1.25');
    await setHealthy(member('member2'), name);
    rb = await bindingWhere('the first revision completed', name, (b) => rolloutCondition(b)?.status === 'True');
    expect(rolloutCondition(rb)).toMatchObject({ reason: 'Completed' });

    // The second revision: member2 keeps nginx:1.25 while member1 runs nginx:1.26 and is not healthy yet.
    const newGen = (await edit(host, deployPath(name), (d) => (d.spec.template.spec.containers[0].image = 'nginx:1.26'))).metadata.generation;
    await imageOn('member1', name, 'nginx:1.26');
    rb = await bindingWhere('the second revision rolling out', name, (b) => rolloutOf(b)?.revision === String(newGen) && rolloutCondition(b)?.status === 'False');
    expect(rolloutOf(rb)).toMatchObject({ stableRevision: firstGen, currentStage: 0 });
    expect(clusterState(rb, 'member2')).toMatchObject({ state: 'Waiting', revision: firstGen });
    await settle();
    expect(imageOf(await get(member('member2'), deployPath(name)))).toBe('nginx:1.25');

    await setHealthy(member('member1'), name);
    const healthy = await bindingWhere('member1 Healthy in the rollout status', name, (b) => clusterState(b, 'member1')?.state === 'Healthy');
    const healthySince = clusterState(healthy, 'member1').healthySince as string;
    expect(healthySince).toBeTruthy();
    // Until the bake time is over, the next stages stay shut.
    if (rolloutOf(healthy).currentStage === 0) expect(imageOf(await get(member('member2'), deployPath(name)))).toBe('nginx:1.25');

    await imageOn('member2', name, 'nginx:1.26');
    rb = await get(host, rbPath(name));
    const [canary, nobody, restStage] = rolloutOf(rb).stages as any[];
    // The controller's own clock: the canary passed no earlier than minHealthySeconds after it became healthy.
    expect(elapsedAtLeast(healthySince, canary.passedAt)).toBeGreaterThanOrEqual(MIN_HEALTHY);
    expect(canary).toMatchObject({ reason: 'GatePassed' });
    expect(nobody).toMatchObject({ reason: 'Empty' });
    expect(restStage.openedAt).toBeTruthy();
    expect(clusterState(rb, 'member2')).toMatchObject({ state: 'Progressing', revision: String(newGen) });

    await setHealthy(member('member2'), name);
    rb = await bindingWhere('the second revision completed', name, (b) => rolloutOf(b)?.revision === String(newGen) && rolloutCondition(b)?.status === 'True');
    expect(rolloutOf(rb)).toMatchObject({ stableRevision: String(newGen), currentStage: 3 });
    expect(rolloutCondition(rb)).toMatchObject({ reason: 'Completed' });
    const reasons = await waitFor('the rollout events', async () => {
      const r = await eventReasons(name);
      return r.includes('RolloutCompleted') && r.includes('RolloutStagePassed') && r.includes('RolloutStageOpened') ? r : undefined;
    });
    expect(reasons).toContain('RolloutStarted');
  });

  it('a stage that times out pauses the rollout; the promote annotation on the binding opens the next stage at once', async () => {
    const name = 'paused';
    await createWorkload(name, { timeoutSeconds: TIMEOUT });
    // member1 is never reported healthy: its stage fails after timeoutSeconds and the rollout stops there.
    await imageOn('member1', name, 'nginx:1.25');
    let rb = await bindingWhere('the canary failed', name, (b) => rolloutCondition(b)?.reason === 'StageFailed');
    expect(rolloutCondition(rb).status).toBe('False');
    expect(clusterState(rb, 'member1')).toMatchObject({ state: 'Failed', reason: 'GateTimeout' });
    expect(rolloutOf(rb).stages[0].failedAt).toBeTruthy();
    expect(elapsedAtLeast(clusterState(rb, 'member1').progressingSince, rolloutOf(rb).stages[0].failedAt)).toBeGreaterThanOrEqual(TIMEOUT);
    expect(clusterState(rb, 'member2')).toMatchObject({ state: 'Waiting' });
    await waitFor('the RolloutStageFailed event', async () => ((await eventReasons(name)).includes('RolloutStageFailed') ? true : undefined));
    await settle();
    expect(await get(member('member2'), deployPath(name))).toBeUndefined();

    const t0 = Date.now();
    await host.request('PATCH', rbPath(name), { body: { metadata: { annotations: { 'rollout.karmada-lite.io/promote': 'true' } } }, contentType: 'application/merge-patch+json' });
    await imageOn('member2', name, 'nginx:1.25');
    console.log(`rollout promote: ${Date.now() - t0} ms from the annotation to the next stage's member object (polled every 200 ms)`);
    rb = await bindingWhere('the promote annotation acted on and removed', name, (b) => b.metadata.annotations?.['rollout.karmada-lite.io/promote'] === undefined);
    expect(rolloutOf(rb).stages[0]).toMatchObject({ reason: 'Promoted' });
    expect(rolloutOf(rb).currentStage).toBeGreaterThanOrEqual(2);
    await waitFor('the RolloutPromoted event', async () => ((await eventReasons(name)).includes('RolloutPromoted') ? true : undefined));
  });

  it('with onFailure Rollback, a stage that times out gets the previous revision back and the rollout stops', async () => {
    const name = 'rollback';
    // No timeout for the first revision: it completes however slow this machine is.
    await createWorkload(name, {});
    await imageOn('member1', name, 'nginx:1.25');
    await setHealthy(member('member1'), name);
    await imageOn('member2', name, 'nginx:1.25');
    await setHealthy(member('member2'), name);
    await bindingWhere('the first revision completed', name, (b) => rolloutCondition(b)?.status === 'True');
    await edit(host, ppPath(name), (pp) => {
      pp.spec.rolloutStrategy.staged.gate = { timeoutSeconds: TIMEOUT };
      pp.spec.rolloutStrategy.staged.onFailure = { action: 'Rollback' };
    });

    // member1 takes nginx:1.26 and is never healthy with it (its status is of the older generation).
    await edit(host, deployPath(name), (d) => (d.spec.template.spec.containers[0].image = 'nginx:1.26'));
    await imageOn('member1', name, 'nginx:1.26');
    const rb = await bindingWhere('the canary rolled back', name, (b) => rolloutCondition(b)?.reason === 'RolledBack');
    expect(rolloutCondition(rb).status).toBe('False');
    expect(clusterState(rb, 'member1')).toMatchObject({ state: 'Failed', reason: 'RolledBack', revision: rolloutOf(rb).stableRevision });
    await imageOn('member1', name, 'nginx:1.25');
    await settle();
    expect(imageOf(await get(member('member2'), deployPath(name)))).toBe('nginx:1.25');
    await waitFor('the RolloutRolledBack event', async () => ((await eventReasons(name)).includes('RolloutRolledBack') ? true : undefined));
  });
});
