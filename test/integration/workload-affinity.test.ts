// Workload affinity end to end (feature gate WorkloadAffinity): the real binary against the host apiserver and
// the two members. Templates labelled into an affinity group follow the group's cluster; an anti-affinity group
// takes one member each, a third waits unscheduled (Karmada's FitError) and lands at once on the member a peer
// leaves. The member copies are read from the members' apiservers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './env.js';
import { diagnose, get, prepareHost, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `wa-e2e-${Date.now().toString(36)}`;
const host = rest('host');
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NS}/deployments`;
const POLICIES = `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`;
const bindingPath = (name: string) => `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${name}-deployment`;
const NAMES = ['front-a', 'front-b', 'db-1', 'db-2', 'db-3'];

async function deployment(name: string, labels: Record<string, string>): Promise<void> {
  await host.request('POST', DEPLOYMENTS, {
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: NS, labels: { app: name, ...labels } },
      spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } },
    },
  });
}

async function policy(name: string, selector: Record<string, unknown>, clusterNames: string[]): Promise<void> {
  await host.request('POST', POLICIES, {
    body: {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name, namespace: NS },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', ...selector }],
        placement: {
          clusterAffinity: { clusterNames },
          spreadConstraints: [{ spreadByField: 'cluster', maxGroups: 1, minGroups: 1 }],
          workloadAffinity: { affinity: { groupByLabelKey: 'app.group' }, antiAffinity: { groupByLabelKey: 'ha.group' } },
        },
      },
    },
  });
}

/** The binding's clusters once the scheduler decided (Scheduled True), by name. */
const placedOn = (name: string) =>
  waitFor(`${name} to be scheduled`, async () => {
    const b = await get(host, bindingPath(name));
    const scheduled = b?.status?.conditions?.find((c: any) => c.type === 'Scheduled');
    return scheduled?.status === 'True' && b.metadata.generation === b.status.schedulerObservedGeneration ? (b.spec.clusters ?? []).map((c: any) => c.name) : undefined;
  });

const onMember = (member: 'member1' | 'member2', name: string) => waitFor(`${name} on ${member}`, async () => ((await get(rest(member), `${DEPLOYMENTS}/${name}`)) ? true : undefined));

describe('karmada-lite controller: workload affinity (WorkloadAffinity gate)', () => {
  let ctrl: Proc | undefined;

  beforeAll(async () => {
    await prepareHost(host, NS);
    ctrl = await startController(['--feature-gates', 'WorkloadAffinity=true']);
  }, scaled(120_000));

  afterAll(async () => {
    await removeDeployments(NS, NAMES);
    for (const p of ['front-a', 'rest']) await host.request('DELETE', `${POLICIES}/${p}`).catch(() => undefined);
    const code = await stopController(ctrl);
    if (code !== 0) console.error(await diagnose(ctrl));
  }, scaled(120_000));

  it('an affinity group follows its first member; an anti-affinity group takes one member each, and the next waits for a member to free one', async () => {
    await deployment('front-a', { 'app.group': 'front' });
    await policy('front-a', { name: 'front-a' }, ['member2']);
    expect(await placedOn('front-a')).toEqual(['member2']);
    expect((await get(host, bindingPath('front-a'))).spec.workloadAffinityGroups).toEqual({ affinityGroup: 'app.group=front' });

    // Everything else: either member, one of them. Alone, front-b would take member1 (the first by name).
    await policy('rest', { labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['front-b', 'db-1', 'db-2', 'db-3'] }] } }, ['member1', 'member2']);
    await deployment('front-b', { 'app.group': 'front' });
    expect(await placedOn('front-b')).toEqual(['member2']);
    await onMember('member2', 'front-b');

    await deployment('db-1', { 'ha.group': 'db' });
    const first = await placedOn('db-1');
    await deployment('db-2', { 'ha.group': 'db' });
    const second = await placedOn('db-2');
    expect([...first, ...second].sort()).toEqual(['member1', 'member2']);

    await deployment('db-3', { 'ha.group': 'db' });
    const failed = await waitFor('db-3 to fail scheduling', async () => {
      const c = (await get(host, bindingPath('db-3')))?.status?.conditions?.find((x: any) => x.type === 'Scheduled');
      return c?.status === 'False' ? c : undefined;
    });
    expect(failed).toMatchObject({ reason: 'NoClusterFit', message: '0/2 clusters are available: 2 cluster already has workload with the same anti-affinity group.' });
    expect((await get(host, bindingPath('db-3'))).spec.clusters ?? []).toEqual([]);
    // Events are written behind the controller's other requests (the recorder's low lane): wait for it.
    const event = await waitFor('the ScheduleBindingFailed event of db-3', async () => {
      const events = await host.request<any>('GET', `/api/v1/namespaces/${NS}/events`);
      return (events.items as any[]).find((e) => e.involvedObject.name === 'db-3-deployment' && e.reason === 'ScheduleBindingFailed');
    });
    expect(event).toMatchObject({ type: 'Warning', message: expect.stringContaining('2 cluster already has workload with the same anti-affinity group') });

    // db-1 goes: db-3 takes its member.
    await host.request('DELETE', `${DEPLOYMENTS}/db-1`);
    expect(await placedOn('db-3')).toEqual(first);
    await onMember(first[0] as 'member1' | 'member2', 'db-3');
  }, scaled(300_000));
});
