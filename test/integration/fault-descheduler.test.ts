// The fault matrix, the descheduler (issue 33): replicas member1 cannot schedule (placed while it had room,
// then its Nodes cordoned and one small kwok Node with room for one Pod, as controller-descheduler.test.ts
// makes them), and then member1's apiserver frozen (SIGSTOP), or its link blackholed (member1 joined as
// `faulty` through a FaultProxy) while room is made there, before --unschedulable-threshold has passed. The
// descheduler has only what it saw last of member1's Pods; what it does with that, and what member1 does once
// it answers again, is asserted here. Nothing is written by hand on the Clusters: their resource summaries are
// the ones the controller posts from the members' Nodes and Pods (hand-written ones raced its own, and a binding
// placed while one member showed the controller's summary and the other the hand-written one went 6:0).
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { cluster, waitFor } from './env.js';
import { clusterReady, freeze, joinThroughProxy, proxyFor, type FaultProxy } from './faults.js';
import { conditionOf, cordonMember, itWithFleet as it, waitDeploymentAvailable, withFleet } from './fleet.js';
import { createDeploymentWithPolicy, diagnose, get, prepareHost, recordVersions, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `fault-desched-${Date.now().toString(36)}`;
/** Longer than member1 takes to turn not Ready once frozen (one 5 s probe timeout), so that the threshold ends while it is. */
const THRESHOLD_S = 12;
const host = rest('host');
const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;
const rbPath = (name: string) => `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${name}-deployment`;
const clusterPath = (name: string) => `/apis/cluster.karmada.io/v1alpha1/clusters/${name}`;
const FAULTY = 'faulty';
const created: string[] = [];
let ctrl: Proc | undefined;
let heal: (() => void) | undefined;
let proxy: FaultProxy;
let leave: (() => Promise<void>) | undefined;

const SMALL_NODE = 'member1-small-fault';
const smallNode = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: SMALL_NODE, annotations: { 'kwok.x-k8s.io/node': 'fake' }, labels: { 'kubernetes.io/hostname': SMALL_NODE, type: 'kwok' } },
  status: { capacity: { cpu: '32', memory: '256Gi', pods: '1' }, allocatable: { cpu: '32', memory: '256Gi', pods: '1' } },
};

const placement = (rb: any) => ((rb?.spec?.clusters ?? []) as Array<{ name: string; replicas: number }>).map((c) => `${c.name}:${c.replicas}`).join(',');
/** Waits for `name`'s binding to have a placement `accept` takes (its answer is returned); a timeout names the last placement. */
async function placementWhere<T>(name: string, what: string, accept: (placement: string, rb: any) => T | undefined, timeoutMs: number): Promise<T> {
  let last = 'nothing yet';
  try {
    return await waitFor(`${name} ${what}`, async () => {
      const rb = await get(host, rbPath(name));
      last = placement(rb);
      return accept(last, rb);
    }, timeoutMs);
  } catch (e) {
    throw new Error(`${(e as Error).message} (last placement: ${last})`, { cause: e });
  }
}
const placedAs = (name: string, want: string, timeoutMs = 30_000) => placementWhere(name, `placed as ${want}`, (p, rb) => (p === want ? rb : undefined), timeoutMs);
/**
 * The placement once the descheduler took replicas from `target` and the scheduler gave them to member2: `target`
 * keeps 3 - n of its 3, member2 has 3 + n. n is what the controller saw unschedulable in its last look at the
 * member's Pods before the fault: 2 when its watch had both Pods' PodScheduled=False, fewer when the fault came
 * between the test's own read of them and the watch's (on a busy machine the watch can trail by the moment it takes).
 */
const descheduledPlacement = (name: string, target: string): Promise<{ rb: any; n: number }> =>
  placementWhere(name, `descheduled from ${target} and placed again`, (p, rb) => {
    const m = new RegExp(`^${target}:(\\d+),member2:(\\d+)$`).exec(p);
    if (!m) return undefined;
    const n = 3 - Number(m[1]);
    return n >= 1 && Number(m[2]) === 3 + n ? { rb, n } : undefined;
  }, 60_000);
const unschedulablePods = async (name: string) =>
  ((await rest('member1').request('GET', `/api/v1/namespaces/${NS}/pods`, { query: { labelSelector: `app=${name}` } })).items as any[]).filter((p) => conditionOf(p, 'PodScheduled')?.reason === 'Unschedulable');

describe('fault matrix: the descheduler with a member that stops answering', () => {
  beforeAll(async () => {
    if (!withFleet()) return;
    await prepareHost(host, NS);
    proxy = await proxyFor(cluster('member1'));
    leave = await joinThroughProxy(host, FAULTY, proxy, 'member1');
    ctrl = await startController(['--descheduling-interval', '1s', '--unschedulable-threshold', `${THRESHOLD_S}s`]);
    // Ready, with the resource summary the general estimator divides by: room on both members alike (the same Nodes).
    for (const m of [FAULTY, 'member1', 'member2']) {
      await waitFor(`${m} Ready with a resource summary`, async () => {
        const c = await get(host, clusterPath(m));
        return (await clusterReady(host, m)) === 'True' && c?.status?.resourceSummary?.allocatable?.pods ? true : undefined;
      }, 60_000);
    }
  }, scaled(180_000));

  afterEach(async (ctx) => {
    heal?.();
    heal = undefined;
    if (ctx.task.result?.state !== 'fail') return;
    console.error((ctrl?.logs ?? []).slice(-200).join('\n'));
    console.error(await diagnose(ctrl));
  });

  afterAll(async () => {
    if (!withFleet()) return;
    heal?.();
    proxy?.pass();
    await removeDeployments(NS, created);
    const m1 = rest('member1');
    await m1.request('DELETE', `/api/v1/nodes/${SMALL_NODE}`).catch(() => undefined);
    await cordonMember(m1, 'member1', false).catch(() => undefined);
    await leave?.();
    await waitFor(`${FAULTY} gone`, async () => ((await get(host, clusterPath(FAULTY))) === undefined ? true : undefined), 30_000).catch(() => undefined);
    const code = await stopController(ctrl);
    await proxy?.stop();
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
    for (const m of ['host', 'member1', 'member2'] as const) await rest(m).request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
  }, scaled(180_000));

  /**
   * A Deployment of 6 over `target` (member1, directly or through the proxy) and member2, placed 3 + 3 while
   * member1 has room; then member1 fills up: its Nodes cordoned, one small Node with room for one Pod, and its
   * Pods made again (deleted, as a node drain would): 1 runs, kube-scheduler leaves 2 Pending. Resolves with the
   * binding as placed and when the 2 Pods turned Unschedulable.
   */
  async function unschedulableOnMember1(name: string, target: string): Promise<{ rb0: any; since: number }> {
    const m1 = rest('member1');
    created.push(name);
    await createDeploymentWithPolicy(NS, name, 6, {
      placement: {
        clusterAffinity: { clusterNames: [target, 'member2'] },
        replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted', weightPreference: { dynamicWeight: 'AvailableReplicas' } },
      },
    });
    const rb0 = await placedAs(name, `${target}:3,member2:3`);
    for (const m of ['member1', 'member2'] as const) await waitDeploymentAvailable(rest(m), NS, name);
    await cordonMember(m1, 'member1', true);
    await m1.request('POST', '/api/v1/nodes', { body: smallNode });
    await waitFor(`${SMALL_NODE} Ready`, async () => (conditionOf(await get(m1, `/api/v1/nodes/${SMALL_NODE}`), 'Ready')?.status === 'True' ? true : undefined));
    await m1.request('DELETE', `/api/v1/namespaces/${NS}/pods`, { query: { labelSelector: `app=${name}` } });
    const pending = await waitFor('2 Pods Unschedulable on member1', async () => {
      const pods = await unschedulablePods(name);
      return pods.length === 2 ? pods : undefined;
    });
    // The fault must come after the controller has seen this through `target`: on a busy machine its watch of
    // member1's Deployment can lag the test's own reads, and a binding that still reports 3 ready there when the
    // link goes has nothing to deschedule.
    await waitFor(`the binding to report fewer than 3 ready on ${target}`, async () => {
      const st = ((await get(host, rbPath(name)))?.status?.aggregatedStatus ?? []).find((a: any) => a.clusterName === target);
      return st && st.status?.readyReplicas !== 3 ? true : undefined;
    });
    return { rb0, since: Math.max(...pending.map((p) => Date.parse(conditionOf(p, 'PodScheduled').lastTransitionTime))) };
  }

  /** The Deployment gone, member1's Nodes as they were. */
  async function member1BackToNormal(name: string): Promise<void> {
    await removeDeployments(NS, [name]);
    const m1 = rest('member1');
    await m1.request('DELETE', `/api/v1/nodes/${SMALL_NODE}`).catch(() => undefined);
    await cordonMember(m1, 'member1', false);
    await waitFor(`${SMALL_NODE} gone`, async () => ((await get(m1, `/api/v1/nodes/${SMALL_NODE}`)) ? undefined : true));
  }

  // Events are written behind the controller's other requests (the recorder's low lane): waited for.
  const descheduledEvents = (name: string) =>
    waitFor(`the DescheduleBindingSucceed event of ${name}`, async () => {
      const list = ((await host.request('GET', `/api/v1/namespaces/${NS}/events`)).items as any[]).filter((e) => e.reason === 'DescheduleBindingSucceed' && e.involvedObject.kind === 'ResourceBinding' && e.involvedObject.name === `${name}-deployment`);
      return list.length ? list : undefined;
    });

  it('member1 frozen while 2 of its replicas are unschedulable: decided on the Pods as last seen, member2 takes them, member1 scales down once it thaws', async () => {
    const name = 'web-frozen';
    const m1 = rest('member1');
    try {
      const { rb0, since } = await unschedulableOnMember1(name, 'member1');
      const versions = recordVersions(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings`, `${name}-deployment`, rb0.metadata.resourceVersion);
      try {
        const t0 = Date.now();
        heal = freeze(cluster('member1'));
        await waitFor('member1 not Ready', async () => ((await clusterReady(host, 'member1')) === 'False' ? true : undefined), 60_000);
        const notReadyMs = Date.now() - t0;
        // Frozen well before the threshold: whatever the descheduler decides, it decides while member1 is not Ready.
        expect(Date.now() - since).toBeLessThan(THRESHOLD_S * 1000);
        expect(placement(await get(host, rbPath(name)))).toBe('member1:3,member2:3');
        const { rb, n } = await descheduledPlacement(name, 'member1');
        const decidedMs = Date.now() - t0;
        expect(await clusterReady(host, 'member1')).toBe('False');
        console.log(`descheduler: member1 frozen; not Ready after ${notReadyMs} ms, ${n} replica(s) descheduled ${decidedMs} ms after the freeze (${Date.now() - since} ms after the Pods turned Unschedulable, threshold ${THRESHOLD_S} s)`);
        expect(rb.spec.clusters).toEqual([{ name: 'member1', replicas: 3 - n }, { name: 'member2', replicas: 3 + n }]);
        await waitDeploymentAvailable(rest('member2'), NS, name);
        // No version of the binding took more than the 2 unschedulable replicas from member1.
        expect(versions.versions.filter((b) => b.spec.clusters.some((c: any) => c.name === 'member1' && c.replicas < 1))).toEqual([]);
        expect((await descheduledEvents(name)).map((e) => e.message)).toEqual([`Binding has been descheduled, ${n} replica(s) in cluster(member1), ${n} total descheduled replica(s)`]);

        const t1 = Date.now();
        heal();
        heal = undefined;
        // Thawed, member1 is scaled to what it was left. Its Nodes are still full: had the controller seen only one of
        // the 2 Pods unschedulable before the freeze, the other is descheduled now that it sees it; either way
        // member1 ends at the 1 replica it has room for.
        await waitFor('member1 scaled to 1', async () => ((await get(m1, deployPath(name)))?.spec?.replicas === 1 ? true : undefined), 60_000);
        await waitFor(`no Pod of ${name} Unschedulable on member1`, async () => ((await unschedulablePods(name)).length === 0 ? true : undefined), 60_000);
        console.log(`descheduler: member1 at 1 replica ${Date.now() - t1} ms after it thawed`);
        await waitFor('member1 Ready', async () => ((await clusterReady(host, 'member1')) === 'True' ? true : undefined), 60_000);
        expect(placement(await get(host, rbPath(name)))).toBe('member1:1,member2:5');
      } finally {
        versions.stop();
      }
    } finally {
      heal?.();
      heal = undefined;
      await member1BackToNormal(name);
    }
  }, scaled(300_000));

  it('member1\'s link blackholed while 2 of its replicas are unschedulable, and room made there meanwhile: decided on the Pods as last seen, so the 2 replicas member1 started meanwhile go once the link heals', async () => {
    const name = 'web-cut-off';
    const m1 = rest('member1');
    try {
      const { since } = await unschedulableOnMember1(name, FAULTY);
      const t0 = Date.now();
      proxy.set({ mode: 'blackhole' });
      heal = () => proxy.pass();
      // member1 itself runs on: room made there lets its scheduler start the 2 Pods, which nobody outside sees.
      await cordonMember(m1, 'member1', false);
      const truth = await waitDeploymentAvailable(m1, NS, name);
      expect(truth.status.availableReplicas).toBe(3);
      await waitFor(`${FAULTY} not Ready`, async () => ((await clusterReady(host, FAULTY)) === 'False' ? true : undefined), 60_000);
      const notReadyMs = Date.now() - t0;
      expect(Date.now() - since).toBeLessThan(THRESHOLD_S * 1000);
      const { rb, n } = await descheduledPlacement(name, FAULTY);
      const decidedMs = Date.now() - t0;
      expect(rb.spec.clusters).toEqual([{ name: FAULTY, replicas: 3 - n }, { name: 'member2', replicas: 3 + n }]);
      // The decision was on the Pods as last seen: member1 runs all 3 at that moment.
      expect((await get(m1, deployPath(name))).status.availableReplicas).toBe(3);
      expect((await descheduledEvents(name)).map((e) => e.message)).toEqual([`Binding has been descheduled, ${n} replica(s) in cluster(${FAULTY}), ${n} total descheduled replica(s)`]);
      await waitDeploymentAvailable(rest('member2'), NS, name);
      console.log(`descheduler: ${FAULTY}'s link blackholed; not Ready after ${notReadyMs} ms, ${n} replica(s) descheduled ${decidedMs} ms after the fault (${Date.now() - since} ms after the Pods turned Unschedulable) while member1 ran all 3`);

      const t1 = Date.now();
      heal();
      heal = undefined;
      await waitFor(`member1 scaled to ${3 - n}`, async () => ((await get(m1, deployPath(name)))?.spec?.replicas === 3 - n ? true : undefined), 60_000);
      console.log(`descheduler: ${FAULTY} at ${3 - n} replica(s) ${Date.now() - t1} ms after the link healed (${n} running replica(s) removed there, 6 in all)`);
      await waitFor(`${FAULTY} Ready`, async () => ((await clusterReady(host, FAULTY)) === 'True' ? true : undefined), 60_000);
      expect(placement(await get(host, rbPath(name)))).toBe(`${FAULTY}:${3 - n},member2:${3 + n}`);
    } finally {
      heal?.();
      heal = undefined;
      await member1BackToNormal(name);
    }
  }, scaled(300_000));
});
