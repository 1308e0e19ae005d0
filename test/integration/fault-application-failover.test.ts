// The fault matrix of application failover (issue 33): a Deployment Divided 2 + 2 over member1 and member2, its
// member1 copy made unhealthy by kwok (its Pods labelled unready or crashing: kube-controller-manager then
// writes the Deployment status the built-in health interpreter reads; the test writes no status), and the
// replicas must end on member2, rolled out and Available there as its deployment controller reports it.
// With dispatching to member1 suspended, failover waits (README difference 1: FailoverPausedBySuspension)
// until the suspension is lifted. Every wait is on a condition; the timeouts are bounds, never measured.
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import type { RestClient } from '../../src/kube/rest.js';
import { EventReasonFailoverPausedBySuspension } from '../../src/api/constants.js';
import { waitFor } from './env.js';
import { itWithFleet as it, setDeploymentFault, waitDeploymentAvailable, withFleet, type PodFault } from './fleet.js';
import { createDeploymentWithPolicy, diagnose, edit, evenSplitWithFailover, get, prepareHost, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `fault-appfailover-${Date.now().toString(36)}`;
/** decisionConditions.tolerationSeconds: short, so the suite waits little. */
const TOLERATION = 3;
const REPLICAS = 4;

const host = rest('host');
const member1 = rest('member1');
const member2 = rest('member2');
const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;
const ppPath = (name: string) => `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${name}`;
const rbName = (name: string) => `${name}-deployment`;
const rbPath = (name: string) => `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${rbName(name)}`;

type PurgeMode = 'Directly' | 'Gracefully';

const created: string[] = [];
let ctrl: Proc | undefined;

const tasksOf = (rb: any) => (rb?.spec?.gracefulEvictionTasks ?? []) as any[];

/**
 * The binding once member1 was evicted from it: its eviction task, or the history entry the task leaves (a
 * Directly task ends as soon as member1's Work is gone, which can be between two polls).
 */
const evictedFromMember1 = (name: string, what: string) =>
  waitFor(
    `${name}: ${what}`,
    async () => {
      const b = await get(host, rbPath(name));
      const evicted = tasksOf(b).some((t) => t.fromCluster === 'member1') || ((b?.spec?.activeEvictionHistory ?? []) as any[]).some((h) => h.clusterName === 'member1');
      return evicted ? b : undefined;
    },
    TOLERATION * 1000 + 30_000,
  );

/** The eviction task, when the poll saw it still there: Karmada's fields. */
const expectTask = (rb: any, purgeMode: PurgeMode) => {
  const task = tasksOf(rb).find((t) => t.fromCluster === 'member1');
  if (task) expect(task).toMatchObject({ fromCluster: 'member1', purgeMode, reason: 'ApplicationFailure', producer: 'resource-binding-application-failover-controller' });
};
const itemOf = (rb: any, c: string) => ((rb?.status?.aggregatedStatus ?? []) as any[]).find((i) => i.clusterName === c);
const absent = (c: RestClient, p: string) => async () => ((await get(c, p)) === undefined ? true : undefined);

/** REPLICAS Divided 1:1 over member1 and member2, failed over from an unhealthy member after TOLERATION seconds. */
async function createWorkload(name: string, purgeMode: PurgeMode, suspendedOn?: string[]): Promise<void> {
  created.push(name);
  const { placement } = evenSplitWithFailover('member1', 'member2');
  await createDeploymentWithPolicy(NS, name, REPLICAS, {
    propagateDeps: true,
    placement,
    failover: { application: { decisionConditions: { tolerationSeconds: TOLERATION }, purgeMode, ...(purgeMode === 'Gracefully' ? { gracePeriodSeconds: 600 } : {}) } },
    ...(suspendedOn ? { suspension: { dispatchingOnClusters: { clusterNames: suspendedOn } } } : {}),
  });
}

/** Both copies running and Available (2 + 2) as their controllers report them, and Healthy in the binding. */
async function healthyOnBoth(name: string): Promise<void> {
  for (const c of [member1, member2]) {
    await waitFor(`${name} on both members`, () => get(c, deployPath(name)));
    const d = await waitDeploymentAvailable(c, NS, name);
    expect(d.spec.replicas).toBe(REPLICAS / 2);
  }
  await waitFor(`${name} Healthy on both in the binding`, async () => {
    const rb = await get(host, rbPath(name));
    return itemOf(rb, 'member1')?.health === 'Healthy' && itemOf(rb, 'member2')?.health === 'Healthy' ? true : undefined;
  });
}

/** Every replica on member2: the binding, member2's copy rolled out and Available at REPLICAS, member1's copy gone. */
async function allOnMember2(name: string): Promise<void> {
  await waitFor(`${name}: binding {member2: ${REPLICAS}}`, async () => {
    const cs = (await get(host, rbPath(name)))?.spec?.clusters ?? [];
    return cs.length === 1 && cs[0].name === 'member2' && cs[0].replicas === REPLICAS ? true : undefined;
  }, TOLERATION * 1000 + 60_000);
  await waitFor(`${name}: member2's copy at ${REPLICAS}`, async () => ((await get(member2, deployPath(name)))?.spec?.replicas === REPLICAS ? true : undefined));
  const d2 = await waitDeploymentAvailable(member2, NS, name);
  expect(d2.status.availableReplicas).toBe(REPLICAS);
  await waitFor(`${name} gone from member1`, absent(member1, deployPath(name)), 60_000);
  await waitFor(`${name}: the eviction task ends once member2 is healthy`, async () => (tasksOf(await get(host, rbPath(name))).length === 0 ? true : undefined), 60_000);
  const rb = await get(host, rbPath(name));
  expect(rb.spec.activeEvictionHistory).toMatchObject([{ clusterName: 'member1', reason: 'ApplicationFailure' }]);
}

/** The binding's FailoverPausedBySuspension Event (undefined before the first). */
async function pausedEvent(name: string): Promise<any> {
  const list = await host.request('GET', `/api/v1/namespaces/${NS}/events`, { query: { fieldSelector: `involvedObject.name=${rbName(name)},reason=${EventReasonFailoverPausedBySuspension}` } });
  return (list.items as any[])[0];
}

/** The member1 Work of this binding. */
async function member1Work(name: string): Promise<any> {
  const items = (await host.request('GET', '/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works')).items as any[];
  return items.find((w) => w.metadata.annotations?.['resourcebinding.karmada.io/namespace'] === NS && w.metadata.annotations?.['resourcebinding.karmada.io/name'] === rbName(name));
}

/** Unhealthy on member1 by kwok, watched until the failover completes on member2. */
async function failOverFrom(name: string, purgeMode: PurgeMode, fault: PodFault): Promise<void> {
  await createWorkload(name, purgeMode);
  await healthyOnBoth(name);
  await setDeploymentFault(member1, NS, name, fault);
  await waitFor(`${name} Unhealthy on member1 in the binding`, async () => (itemOf(await get(host, rbPath(name)), 'member1')?.health === 'Unhealthy' ? true : undefined));
  expectTask(await evictedFromMember1(name, 'evicted from member1'), purgeMode);
  await allOnMember2(name);
}

describe('fault matrix: application failover from a workload Kubernetes reports unhealthy', () => {
  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail') return;
    console.error((ctrl?.logs ?? []).slice(-200).join('\n'));
    console.error(await diagnose(ctrl));
  });

  beforeAll(async () => {
    if (!withFleet()) return;
    await prepareHost(host, NS);
    ctrl = await startController();
    for (const m of ['member1', 'member2']) {
      await waitFor(`${m} Ready`, async () => {
        const c = await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${m}`);
        return c?.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? true : undefined;
      });
    }
  }, scaled(180_000));

  afterAll(async () => {
    if (!withFleet()) return;
    await removeDeployments(NS, created);
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
  }, scaled(120_000));

  it('Directly, Pods never Ready on member1: all replicas move to member2 and are Available there', () => failOverFrom('directly-unready', 'Directly', 'unready'), scaled(180_000));

  it('Gracefully, containers crashing on member1: all replicas move to member2 and are Available there; member1 purged after', () => failOverFrom('gracefully-crash', 'Gracefully', 'crash'), scaled(180_000));

  it('dispatching to member1 suspended: failover pauses (FailoverPausedBySuspension) past the toleration, then completes once resumed', async () => {
    const name = 'suspended';
    await createWorkload(name, 'Directly');
    await healthyOnBoth(name);
    await edit(host, ppPath(name), (pp) => (pp.spec.suspension = { dispatchingOnClusters: { clusterNames: ['member1'] } }));
    await waitFor('the member1 Work suspended', async () => ((await member1Work(name))?.spec?.suspendDispatching === true ? true : undefined));
    await setDeploymentFault(member1, NS, name, 'unready');
    // Status still flows from a suspended cluster: the binding knows member1 is unhealthy, and the controller says why it waits.
    await waitFor(`${name} Unhealthy on member1 in the binding`, async () => (itemOf(await get(host, rbPath(name)), 'member1')?.health === 'Unhealthy' ? true : undefined));
    const first = await waitFor('a FailoverPausedBySuspension event on the binding', () => pausedEvent(name));
    expect(first.message).toContain('member1');
    // A look at the binding after the toleration is over, proven by the event's count: still paused, nothing evicted.
    const pastToleration = Date.parse(first.firstTimestamp ?? first.eventTime) + (TOLERATION + 1) * 1000;
    let poke = 0;
    const later = await waitFor(
      'the controller looking at member1 again after the toleration',
      async () => {
        if (Date.now() < pastToleration) return undefined;
        const ev = await pausedEvent(name);
        if (ev && (ev.count ?? 1) > (first.count ?? 1) && Date.parse(ev.lastTimestamp) >= pastToleration) return ev;
        // The failover controller looks again when the binding's spec changes: a template edit moves spec.resource.resourceVersion.
        await edit(host, deployPath(name), (d) => (d.metadata.annotations = { ...d.metadata.annotations, 'test.karmada-lite.io/poke': String(++poke) }));
        return undefined;
      },
      TOLERATION * 1000 + 30_000,
      500,
    );
    expect(later.reason).toBe(EventReasonFailoverPausedBySuspension);
    const held = await get(host, rbPath(name));
    expect(tasksOf(held)).toEqual([]);
    expect(held.spec.clusters).toEqual([
      { name: 'member1', replicas: 2 },
      { name: 'member2', replicas: 2 },
    ]);
    expect(await get(member1, deployPath(name))).toBeDefined();

    await edit(host, ppPath(name), (pp) => delete pp.spec.suspension);
    expectTask(await evictedFromMember1(name, 'evicted from member1 after resuming'), 'Directly');
    await allOnMember2(name);
  }, scaled(240_000));
});
