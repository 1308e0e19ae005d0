// End to end: the descheduler and the WorkloadRebalancer in the real binary against the host, member1 and
// member2 apiservers of the kwok fleet. Nothing is written by hand: the Clusters' resource summaries are the ones
// the cluster status controller posts from the members' Nodes and Pods, the accurate estimator reads the same
// Nodes, and replicas that cannot be scheduled are real: a member's Nodes cordoned, kube-scheduler leaves new
// Pods Pending (PodScheduled=False, Unschedulable), which is what the descheduler's estimator counts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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
    ctrl = await startController(['--descheduling-interval', INTERVAL, '--unschedulable-threshold', THRESHOLD, '--cluster-probe-interval', '1s']);
    // Ready, with the resource summary the general estimator divides by (posted from the members' Nodes)
    for (const m of ['member1', 'member2']) {
      await waitFor(`${m} Ready with a resource summary`, async () => {
        const c = await get(host, clusterPath(m));
        return c?.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') && c.status.resourceSummary?.allocatable?.pods ? true : undefined;
      });
    }
  });

  afterAll(async () => {
    for (const r of rebalancers) await host.request('DELETE', rebalancerPath(r)).catch(() => undefined);
    await removeDeployments(NS, created);
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
    await host.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
  });

  itWithFleet('replicas member1 can no longer schedule (its Nodes cordoned) move to member2 past --unschedulable-threshold, where the estimators see room', async () => {
    const name = 'web';
    const m1 = rest('member1');
    await createWorkload(name, 6);
    // Divided by what each member can hold: both have kwok Nodes with room, so both get replicas.
    const first = await waitFor(`${name} placed on both members`, async () => {
      const rb = await get(host, rbPath(name));
      const cs = (rb?.spec?.clusters ?? []) as Array<{ name: string; replicas: number }>;
      return cs.length === 2 && cs.every((c) => c.replicas > 0) ? cs : undefined;
    });
    const onMember1 = first.find((c) => c.name === 'member1')!.replicas;
    await waitDeploymentAvailable(m1, NS, name);
    try {
      // member1 fills up for good: its Nodes cordoned, its Pods gone; the replacements find no Node.
      await cordonMember(m1, 'member1', true);
      await m1.request('DELETE', `/api/v1/namespaces/${NS}/pods`, { query: { labelSelector: `app=${name}` } });
      const pending = await waitFor(`${onMember1} Pods Unschedulable on member1`, async () => {
        const pods = ((await m1.request('GET', `/api/v1/namespaces/${NS}/pods`, { query: { labelSelector: `app=${name}` } })).items as any[]).filter((p) => conditionOf(p, 'PodScheduled')?.reason === 'Unschedulable');
        return pods.length === onMember1 ? pods : undefined;
      });
      expect(pending.every((p) => p.status.phase === 'Pending')).toBe(true);
      // The descheduler takes them off member1; the scheduler puts them where the estimators see room, not
      // back on member1 (its summary still counts the cordoned Nodes; the accurate estimator does not).
      const rb = await placedAs(name, 'member2:6');
      expect(rb.status.lastScheduledTime).toBeDefined();
      await waitFor('member2 scaled to 6 and member1 left', async () => {
        const d2 = await get(rest('member2'), deployPath(name));
        return d2?.spec.replicas === 6 && !(await get(m1, deployPath(name))) ? true : undefined;
      });
      // The replacement Pods turn Unschedulable moments apart, so the threshold may end for some of them one
      // descheduling round before the others: the events of the binding, counted, add up to all of them.
      const descheduled = (events: any[]) =>
        events
          .filter((e) => e.involvedObject.kind === 'ResourceBinding')
          .map((e) => ({ n: Number(/^Binding has been descheduled, (\d+) replica\(s\) in cluster\(member1\), \1 total descheduled replica\(s\)$/.exec(e.message)?.[1] ?? NaN), count: e.count ?? 1 }))
          .reduce((sum, x) => sum + x.n * x.count, 0);
      const events = await waitFor('the DescheduleBindingSucceed events', async () => {
        const list = ((await host.request('GET', `/api/v1/namespaces/${NS}/events`)).items as any[]).filter((e) => e.reason === 'DescheduleBindingSucceed');
        return descheduled(list) === onMember1 && list.some((e) => e.involvedObject.kind === 'Deployment') ? list : undefined;
      });
      expect(new Set(events.map((e) => e.involvedObject.kind))).toEqual(new Set(['Deployment', 'ResourceBinding']));
    } finally {
      await cordonMember(m1, 'member1', false);
    }
  });

  itWithFleet('a WorkloadRebalancer schedules the named Deployment afresh and reports each workload', async () => {
    const name = 'rebalanced';
    const m2 = rest('member2');
    // All on member1 while member2 has no room (its Nodes cordoned: the accurate estimator finds none).
    await cordonMember(m2, 'member2', true);
    let scheduled: any;
    try {
      await createWorkload(name, 4);
      await placedAs(name, 'member1:4');
      scheduled = await waitFor('its lastScheduledTime', async () => {
        const b = await get(host, rbPath(name));
        return b?.status?.lastScheduledTime ? b : undefined;
      });
    } finally {
      // member2 frees up: the Steady scheduler leaves the running placement alone.
      await cordonMember(m2, 'member2', false);
    }
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
