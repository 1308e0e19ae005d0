// The fault matrix, staged rollout (issue 33): a Staged policy whose first stage, canary, is member1 joined as
// `faulty` through a FaultProxy, and whose second, rest, is member2. The Pods carry the readiness gate the test
// owns (test/integration/fleet.ts), so a member copy turns healthy only when the test says so. A member of the
// open stage that stops answering mid-rollout holds the rollout: its gate cannot pass on a status nobody can
// read, the next stage stays shut (member2 keeps the stable revision), and once the member answers again and
// turns healthy the rollout goes on where it stopped; no member copy is re-created.
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { cluster, waitFor, type ClusterName } from './env.js';
import { clusterReady, freeze, joinThroughProxy, proxyFor, type FaultProxy } from './faults.js';
import { gatedPodSpec, itWithFleet as it, openReadinessGate, withFleet } from './fleet.js';
import { createDeploymentWithPolicy, diagnose, edit, get, prepareHost, recordVersions, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `fault-rollout-${Date.now().toString(36)}`;
const FAULTY = 'faulty';
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const host = rest('host');
const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;
const rbPath = (name: string) => `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${name}-deployment`;

let ctrl: Proc | undefined;
let proxy: FaultProxy;
let leave: (() => Promise<void>) | undefined;
let heal: (() => void) | undefined;
const created: string[] = [];

const imageOf = (d: any) => d?.spec?.template?.spec?.containers?.[0]?.image as string | undefined;
const rolloutOf = (rb: any) => rb?.status?.rollout;
const clusterState = (rb: any, name: string) => ((rolloutOf(rb)?.clusters ?? []) as any[]).find((c) => c.name === name);
const rolloutCondition = (rb: any) => ((rb?.status?.conditions ?? []) as any[]).find((c) => c.type === 'Rollout');
const imageOn = (m: ClusterName, name: string, image: string, timeoutMs = 60_000) =>
  waitFor(`${image} on ${m}`, async () => {
    const d = await get(rest(m), deployPath(name));
    return imageOf(d) === image ? d : undefined;
  }, timeoutMs);
const bindingWhere = (what: string, name: string, test: (rb: any) => boolean, timeoutMs = 60_000) =>
  waitFor(what, async () => {
    const rb = await get(host, rbPath(name));
    return rb && test(rb) ? rb : undefined;
  }, timeoutMs);

describe('fault matrix: staged rollout with a member of the open stage that stops answering', () => {
  beforeAll(async () => {
    if (!withFleet()) return;
    await prepareHost(host, NS);
    proxy = await proxyFor(cluster('member1'));
    leave = await joinThroughProxy(host, FAULTY, proxy, 'member1');
    ctrl = await startController(['--cluster-failure-threshold', '3s']);
    await waitFor(`${FAULTY} Ready`, async () => ((await clusterReady(host, FAULTY)) === 'True' ? true : undefined), 60_000);
  }, scaled(180_000));

  afterEach(async (ctx) => {
    heal?.();
    heal = undefined;
    if (ctx.task.result?.state !== 'fail') return;
    console.error((ctrl?.logs ?? []).slice(-150).join('\n'));
    console.error(await diagnose(ctrl));
    for (const n of created) console.error(JSON.stringify(rolloutOf(await get(host, rbPath(n))), null, 1));
  });

  afterAll(async () => {
    if (!withFleet()) return;
    proxy?.pass();
    await removeDeployments(NS, created);
    await leave?.();
    await waitFor(`${FAULTY} gone`, async () => ((await get(host, `${CLUSTERS}/${FAULTY}`)) === undefined ? true : undefined), 30_000).catch(() => undefined);
    const code = await stopController(ctrl);
    await proxy?.stop();
    for (const m of ['member1', 'member2'] as const) await rest(m).request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
  }, scaled(180_000));

  /**
   * A Deployment staged over the canary FAULTY (member1 through the proxy), then member2, its Pods behind a
   * readiness gate; its first revision rolled out on both, the gates opened, the rollout completed.
   */
  async function firstRevisionEverywhere(name: string): Promise<void> {
    await createDeploymentWithPolicy(NS, name, 2, {
      placement: { clusterAffinity: { clusterNames: [FAULTY, 'member2'] } },
      rolloutStrategy: { type: 'Staged', staged: { stages: [{ name: 'canary', clusterNames: [FAULTY] }, { name: 'rest', clusterNames: ['member2'] }], gate: { minHealthySeconds: 0 } } },
    }, gatedPodSpec);
    await imageOn('member1', name, 'nginx:1.25');
    await openReadinessGate(rest('member1'), NS, name);
    await imageOn('member2', name, 'nginx:1.25');
    await openReadinessGate(rest('member2'), NS, name);
    await bindingWhere('the first revision completed', name, (b) => rolloutCondition(b)?.status === 'True');
  }

  const cases = [
    ['freeze', 'apiserver frozen (SIGSTOP)'],
    ['reset', 'connections reset'],
  ] as const;
  for (const [fault, what] of cases) {
    it(`canary member ${what} mid-rollout: the rollout holds at its stage, member2 keeps the stable revision; back and healthy, it goes on, nothing re-created`, async () => {
      const name = `staged-${fault}`;
      created.push(name);
      await firstRevisionEverywhere(name);
      const copies0 = { member1: (await get(rest('member1'), deployPath(name))).metadata.uid, member2: (await get(rest('member2'), deployPath(name))).metadata.uid };

      // The second revision reaches the canary; its Pods stay unready, and then the canary stops answering.
      const newGen = String((await edit(host, deployPath(name), (d) => (d.spec.template.spec.containers[0].image = 'nginx:1.26'))).metadata.generation);
      await imageOn('member1', name, 'nginx:1.26');
      const progressing = await bindingWhere('the canary progressing with the new revision', name, (b) => rolloutOf(b)?.revision === newGen && clusterState(b, FAULTY)?.state === 'Progressing');
      const versions = recordVersions(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings`, `${name}-deployment`, progressing.metadata.resourceVersion);
      try {
        const t0 = Date.now();
        if (fault === 'freeze') heal = freeze(cluster('member1'));
        else {
          proxy.set({ mode: 'reset' });
          heal = () => proxy.pass();
        }
        await waitFor(`${FAULTY} not Ready`, async () => ((await clusterReady(host, FAULTY)) === 'False' ? true : undefined), 60_000);
        const notReadyMs = Date.now() - t0;
        // The NoExecute taint is the last thing the fault brings (after --cluster-failure-threshold): by then the
        // controller has acted on the not-ready member, and the rollout must still hold.
        await waitFor(`${FAULTY} tainted NoExecute`, async () => (((await get(host, `${CLUSTERS}/${FAULTY}`))?.spec?.taints ?? []).some((t: any) => t.effect === 'NoExecute') ? true : undefined), 60_000);
        const held = await get(host, rbPath(name));
        expect(rolloutOf(held)).toMatchObject({ revision: newGen, currentStage: 0 });
        expect(clusterState(held, FAULTY)).toMatchObject({ state: 'Progressing', reason: 'ClusterNotReady' });
        expect(clusterState(held, 'member2')).toMatchObject({ state: 'Waiting' });
        expect(rolloutCondition(held)).toMatchObject({ status: 'False', reason: 'Progressing' });
        expect(imageOf(await get(rest('member2'), deployPath(name)))).toBe('nginx:1.25');
        // However briefly: no version of the binding opened the next stage or called the canary healthy.
        expect(versions.versions.filter((b) => (rolloutOf(b)?.currentStage ?? 0) > 0 || clusterState(b, FAULTY)?.state === 'Healthy')).toEqual([]);
        console.log(`rollout: ${fault}: ${FAULTY} not Ready after ${notReadyMs} ms; rollout held at the canary for ${Date.now() - t0} ms, member2 on nginx:1.25`);

        const t1 = Date.now();
        heal();
        heal = undefined;
        await waitFor(`${FAULTY} Ready again`, async () => ((await clusterReady(host, FAULTY)) === 'True' ? true : undefined), 60_000);
        await openReadinessGate(rest('member1'), NS, name);
        await imageOn('member2', name, 'nginx:1.26');
        const resumedMs = Date.now() - t1;
        await openReadinessGate(rest('member2'), NS, name);
        const done = await bindingWhere('the second revision completed', name, (b) => rolloutOf(b)?.revision === newGen && rolloutCondition(b)?.status === 'True');
        expect(rolloutOf(done)).toMatchObject({ stableRevision: newGen });
        expect(rolloutCondition(done)).toMatchObject({ reason: 'Completed' });
        console.log(`rollout: ${fault}: the next stage opened ${resumedMs} ms after the heal (canary made healthy by the test meanwhile)`);
        // Nothing lost or re-created: the same member copies, now on the new revision.
        expect((await get(rest('member1'), deployPath(name))).metadata.uid).toBe(copies0.member1);
        expect((await get(rest('member2'), deployPath(name))).metadata.uid).toBe(copies0.member2);
        expect(imageOf(await get(rest('member1'), deployPath(name)))).toBe('nginx:1.26');
      } finally {
        versions.stop();
      }
    }, scaled(300_000));
  }

  it('canary member frozen (SIGSTOP) while it bakes (healthy, minHealthySeconds not over): its stage does not pass on the status last seen; thawed, it bakes again and the rollout goes on', async () => {
    const name = 'baking';
    const bakeSeconds = 8;
    created.push(name);
    await firstRevisionEverywhere(name);
    await edit(host, `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${name}`, (pp) => (pp.spec.rolloutStrategy.staged.gate = { minHealthySeconds: bakeSeconds }));

    const newGen = String((await edit(host, deployPath(name), (d) => (d.spec.template.spec.containers[0].image = 'nginx:1.26'))).metadata.generation);
    await imageOn('member1', name, 'nginx:1.26');
    await openReadinessGate(rest('member1'), NS, name);
    const healthy = await bindingWhere('the canary Healthy with the new revision', name, (b) => rolloutOf(b)?.revision === newGen && clusterState(b, FAULTY)?.state === 'Healthy');
    const versions = recordVersions(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings`, `${name}-deployment`, healthy.metadata.resourceVersion);
    try {
      const t0 = Date.now();
      heal = freeze(cluster('member1'));
      await waitFor(`${FAULTY} not Ready`, async () => ((await clusterReady(host, FAULTY)) === 'False' ? true : undefined), 60_000);
      const notReadyMs = Date.now() - t0;
      // Past the bake time, counted from when the canary turned healthy, while it is frozen.
      const healthySince = Date.parse(clusterState(healthy, FAULTY).healthySince);
      await waitFor('the bake time over', async () => (Date.now() > healthySince + (bakeSeconds + 3) * 1000 ? true : undefined), 60_000, 500);
      const held = await get(host, rbPath(name));
      console.log(`rollout: baking canary frozen: ${FAULTY} not Ready after ${notReadyMs} ms; ${Math.round((Date.now() - healthySince) / 1000)} s after it turned healthy: stage ${rolloutOf(held).currentStage}, ${FAULTY} ${JSON.stringify(clusterState(held, FAULTY))}, member2 on ${imageOf(await get(rest('member2'), deployPath(name)))}`);
      expect(rolloutOf(held)).toMatchObject({ revision: newGen, currentStage: 0 });
      expect(clusterState(held, FAULTY)).toMatchObject({ state: 'Progressing', reason: 'ClusterNotReady' });
      expect(imageOf(await get(rest('member2'), deployPath(name)))).toBe('nginx:1.25');
      expect(versions.versions.filter((b) => (rolloutOf(b)?.currentStage ?? 0) > 0)).toEqual([]);

      const t1 = Date.now();
      heal();
      heal = undefined;
      await waitFor(`${FAULTY} Ready again`, async () => ((await clusterReady(host, FAULTY)) === 'True' ? true : undefined), 60_000);
      await imageOn('member2', name, 'nginx:1.26', 60_000);
      const resumedMs = Date.now() - t1;
      const b = await get(host, rbPath(name));
      // It baked again, from when it answered again.
      expect(Date.parse(rolloutOf(b).stages[0].passedAt) - t1).toBeGreaterThanOrEqual((bakeSeconds - 1) * 1000);
      console.log(`rollout: baking canary frozen: the next stage opened ${resumedMs} ms after the thaw (bake ${bakeSeconds} s)`);
      await openReadinessGate(rest('member2'), NS, name);
      await bindingWhere('the second revision completed', name, (x) => rolloutOf(x)?.revision === newGen && rolloutCondition(x)?.status === 'True');
    } finally {
      versions.stop();
    }
  }, scaled(300_000));
});
