// End to end: the descheduler and the WorkloadRebalancer in the real binary against the host, member1 and
// member2 apiservers of the kwok fleet. Replicas that cannot be scheduled are real: member1's Nodes are
// cordoned and one small kwok Node takes a single Pod, so kube-scheduler leaves the others Pending
// (PodScheduled=False, Unschedulable), which is what the descheduler's estimator counts. The suite still writes
// the Clusters' resource summaries (the room each member has left) by hand: karmada-lite's cluster status
// controller does not collect them from the members' Nodes, so nothing else would.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type RestClient } from '../../src/kube/rest.js';
import { waitFor } from './env.js';
import { conditionOf, cordonMember, itWithFleet, waitDeploymentAvailable } from './fleet.js';
import { createDeploymentWithPolicy, diagnose, get, prepareHost, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';

const NS = `desched-e2e-${Date.now().toString(36)}`;
/** Short enough for a test, long enough that the member1 status is written well before it passes. */
const THRESHOLD = '3s';
const INTERVAL = '1s';

const host = rest('host');
const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;
const rbPath = (name: string) => `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${name}-deployment`;
const clusterPath = (name: string) => `/apis/cluster.karmada.io/v1alpha1/clusters/${name}`;
const rebalancerPath = (name: string) => `/apis/apps.karmada.io/v1alpha1/workloadrebalancers/${name}`;
const created: string[] = [];
const rebalancers: string[] = [];

/** Read, change, write back; retried on 409 (the controller writes the same objects). */
async function modify(c: RestClient, path: string, change: (o: any) => void, subresource = ''): Promise<void> {
  for (;;) {
    const o = await get(c, path);
    if (!o) throw new Error(`${path} does not exist`);
    change(o);
    try {
      await c.request('PUT', `${path}${subresource}`, { body: o });
      return;
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 409)) throw e;
    }
  }
}

/** What the cluster status controller would report: room for `free` more pods out of 10. */
const setRoom = (cluster: string, free: number | undefined) =>
  modify(
    host,
    clusterPath(cluster),
    (c) => {
      c.status = { ...(c.status ?? {}) };
      if (free === undefined) delete c.status.resourceSummary;
      else c.status.resourceSummary = { allocatable: { pods: '10' }, allocated: { pods: String(10 - free) } };
    },
    '/status',
  );

/** A kwok Node of member1 with room for one Pod (the fleet's kwok manages every Node with its annotation). */
const SMALL_NODE = 'member1-small';
const smallNode = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: SMALL_NODE, annotations: { 'kwok.x-k8s.io/node': 'fake' }, labels: { 'kubernetes.io/hostname': SMALL_NODE, type: 'kwok' } },
  status: { capacity: { cpu: '32', memory: '256Gi', pods: '1' }, allocatable: { cpu: '32', memory: '256Gi', pods: '1' } },
};

/** member1 with room for one Pod: its own Nodes cordoned, and the small Node Ready. */
async function member1HasRoomForOne(): Promise<void> {
  const m1 = rest('member1');
  await cordonMember(m1, 'member1', true);
  await m1.request('POST', '/api/v1/nodes', { body: smallNode });
  await waitFor(`${SMALL_NODE} Ready`, async () => (conditionOf(await get(m1, `/api/v1/nodes/${SMALL_NODE}`), 'Ready')?.status === 'True' ? true : undefined));
}

async function member1BackToNormal(): Promise<void> {
  const m1 = rest('member1');
  await m1.request('DELETE', `/api/v1/nodes/${SMALL_NODE}`).catch(() => undefined);
  await cordonMember(m1, 'member1', false);
}

/** A Deployment divided by available replicas (dynamic weights) over member1 and member2. */
async function createWorkload(name: string, replicas: number): Promise<void> {
  created.push(name);
  await createDeploymentWithPolicy(NS, name, replicas, {
    placement: {
      clusterAffinity: { clusterNames: ['member1', 'member2'] },
      replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted', weightPreference: { dynamicWeight: 'AvailableReplicas' } },
    },
  });
}

const placement = (rb: any) => ((rb?.spec?.clusters ?? []) as Array<{ name: string; replicas: number }>).map((c) => `${c.name}:${c.replicas}`).join(',');

async function placedAs(name: string, want: string): Promise<any> {
  return waitFor(`${name} placed as ${want}`, async () => {
    const rb = await get(host, rbPath(name));
    return placement(rb) === want ? rb : undefined;
  });
}

describe('descheduler and WorkloadRebalancer end to end', () => {
  let ctrl: Proc | undefined;

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail') return;
    console.error((ctrl?.logs ?? []).slice(-300).join('\n'));
    console.error(await diagnose(ctrl));
  });

  beforeAll(async () => {
    await prepareHost(host, NS);
    for (const m of ['member1', 'member2']) await setRoom(m, 6);
    ctrl = await startController(['--descheduling-interval', INTERVAL, '--unschedulable-threshold', THRESHOLD]);
    for (const m of ['member1', 'member2']) {
      await waitFor(`${m} Ready`, async () => {
        const c = await get(host, clusterPath(m));
        return c?.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? true : undefined;
      });
    }
  });

  afterAll(async () => {
    for (const r of rebalancers) await host.request('DELETE', rebalancerPath(r)).catch(() => undefined);
    await removeDeployments(NS, created);
    for (const m of ['member1', 'member2']) await setRoom(m, undefined).catch(() => undefined);
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
    await host.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
  });

  itWithFleet('replicas member1 cannot schedule past --unschedulable-threshold, with no room left there, move to member2', async () => {
    const name = 'web';
    // member1 fills up: 1 of its 3 replicas runs, kube-scheduler leaves 2 Pending for room that is not there.
    await member1HasRoomForOne();
    try {
      await createWorkload(name, 6);
      await placedAs(name, 'member1:3,member2:3');
      await waitFor(`${name} on both members`, async () => ((await get(rest('member1'), deployPath(name))) && (await get(rest('member2'), deployPath(name))) ? true : undefined));
      await waitDeploymentAvailable(rest('member2'), NS, name);
      await setRoom('member1', 0);
      const pending = await waitFor('2 Pods Unschedulable on member1', async () => {
        const pods = ((await rest('member1').request('GET', `/api/v1/namespaces/${NS}/pods`, { query: { labelSelector: `app=${name}` } })).items as any[]).filter((p) => conditionOf(p, 'PodScheduled')?.reason === 'Unschedulable');
        return pods.length === 2 ? pods : undefined;
      });
      expect(pending.every((p) => p.status.phase === 'Pending')).toBe(true);
      const rb = await placedAs(name, 'member1:1,member2:5');
      expect(rb.status.lastScheduledTime).toBeDefined();
      await waitFor('member1 scaled to 1 and member2 to 5', async () => {
        const d1 = await get(rest('member1'), deployPath(name));
        const d2 = await get(rest('member2'), deployPath(name));
        return d1?.spec.replicas === 1 && d2?.spec.replicas === 5 ? true : undefined;
      });
      const events = await waitFor('the DescheduleBindingSucceed event', async () => {
        const list = ((await host.request('GET', `/api/v1/namespaces/${NS}/events`)).items as any[]).filter((e) => e.reason === 'DescheduleBindingSucceed');
        return list.length >= 2 ? list : undefined;
      });
      expect(events.map((e) => e.involvedObject.kind).sort()).toEqual(['Deployment', 'ResourceBinding']);
      expect(events[0].message).toBe('Binding has been descheduled, 2 replica(s) in cluster(member1), 2 total descheduled replica(s)');
    } finally {
      await member1BackToNormal();
    }
  });

  it('a WorkloadRebalancer schedules the named Deployment afresh and reports each workload', async () => {
    const name = 'rebalanced';
    // All on member1 while member2 has no room.
    await setRoom('member1', 6);
    await setRoom('member2', 0);
    await createWorkload(name, 4);
    await placedAs(name, 'member1:4');
    const scheduled = await waitFor('its lastScheduledTime', async () => {
      const b = await get(host, rbPath(name));
      return b?.status?.lastScheduledTime ? b : undefined;
    });
    // member2 frees up: the Steady scheduler leaves the running placement alone.
    await setRoom('member2', 6);
    // Times have second precision, and a trigger must come after lastScheduledTime (Karmada's comparison):
    // a rebalancer created in the second the binding was scheduled would not reschedule it.
    const last = Date.parse(scheduled.status.lastScheduledTime);
    await waitFor('the second of the last schedule to pass', async () => (Date.now() >= last + 1000 ? true : undefined));
    rebalancers.push(name);
    await host.request('POST', '/apis/apps.karmada.io/v1alpha1/workloadrebalancers', {
      body: {
        apiVersion: 'apps.karmada.io/v1alpha1',
        kind: 'WorkloadRebalancer',
        metadata: { name },
        spec: {
          workloads: [
            { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NS, name },
            { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NS, name: 'no-such-deployment' },
          ],
        },
      },
    });
    const wr = await waitFor('the rebalancer finished', async () => {
      const o = await get(host, rebalancerPath(name));
      return o?.status?.finishTime ? o : undefined;
    });
    expect(wr.status).toMatchObject({
      observedGeneration: 1,
      observedWorkloads: [
        { workload: { name: 'no-such-deployment' }, result: 'Failed', reason: 'ReferencedBindingNotFound' },
        { workload: { name }, result: 'Successful' },
      ],
    });
    const rb = await waitFor('the binding rescheduled on both members', async () => {
      const b = await get(host, rbPath(name));
      return b?.spec?.rescheduleTriggeredAt && b.spec.clusters?.length === 2 ? b : undefined;
    });
    expect(rb.spec.rescheduleTriggeredAt).toBe(wr.metadata.creationTimestamp);
  });
});
