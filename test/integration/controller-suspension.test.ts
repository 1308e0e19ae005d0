// End to end: dispatch suspension by the real binary against the host, member1 and member2 apiservers.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, type ClusterName } from './env.js';
import { diagnose, edit, get, prepareHost, type Proc, removeDeployments, rest, startController, stopController } from './harness.js';
import { itWithFleet, waitDeploymentAvailable } from './fleet.js';

const NS = `suspension-e2e-${Date.now().toString(36)}`;
const MEMBERS = ['member1', 'member2'] as const;

const host = rest('host');
const member = (m: ClusterName) => rest(m);
const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;
const ppPath = (name: string) => `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${name}`;

/** The Deployments this suite created, removed at the end. */
const created: string[] = [];

/** Deletes the templates while the controller still runs, so that no binding, Work or member copy outlives the suite. */
const removeWorkloads = () => removeDeployments(NS, created);

/** A Deployment duplicated to both members. */
async function createWorkload(name: string): Promise<void> {
  created.push(name);
  await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
    body: {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name, namespace: NS },
      spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name }], placement: { clusterAffinity: { clusterNames: [...MEMBERS] } } },
    },
  });
  await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: NS, labels: { app: name } },
      spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } },
    },
  });
  for (const m of MEMBERS) await waitFor(`${name} on ${m}`, () => get(member(m), deployPath(name)));
}

/** Read-modify-write with the resourceVersion; a 409 (the controller wrote meanwhile) reads again. */
const suspend = (name: string, suspension: Record<string, unknown> | undefined) =>
  edit(host, ppPath(name), (pp) => {
    if (suspension) pp.spec.suspension = suspension;
    else delete pp.spec.suspension;
  });

/** The Work of this Deployment's binding in a member's execution namespace. */
async function workOf(name: string, m: string): Promise<any> {
  const items = (await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${m}/works`)).items as any[];
  return items.find((w) => w.metadata.annotations?.['resourcebinding.karmada.io/namespace'] === NS && w.metadata.annotations?.['resourcebinding.karmada.io/name'] === `${name}-deployment`);
}

const dispatching = (w: any) => (w?.status?.conditions ?? []).find((c: any) => c.type === 'Dispatching');
const imageOf = (d: any) => d?.spec?.template?.spec?.containers?.[0]?.image;
const workImage = (w: any) => imageOf(w?.spec?.workload?.manifests?.[0]);

async function waitDispatching(name: string, m: string, suspended: boolean): Promise<any> {
  return waitFor(`the ${m} Work ${suspended ? 'suspended' : 'dispatching'}`, async () => {
    const w = await workOf(name, m);
    const c = dispatching(w);
    return w?.spec?.suspendDispatching === suspended && c?.status === (suspended ? 'False' : 'True') ? w : undefined;
  });
}

/** Long enough for the controller to have acted if it were going to: the pipeline takes well under a second here. */
const settle = () => new Promise((r) => setTimeout(r, 3000));

describe('dispatch suspension end to end', () => {
  let ctrl: Proc | undefined;

  beforeAll(async () => {
    await prepareHost(host, NS);
    ctrl = await startController();
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail') return;
    console.error((ctrl?.logs ?? []).slice(-200).join('\n'));
    console.error(await diagnose(ctrl));
  });

  afterAll(async () => {
    await removeWorkloads();
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
  });

  it('narrowing dispatchingOnClusters lets a change through to the cluster taken off the list, resuming to the rest', async () => {
    const name = 'narrow';
    await createWorkload(name);
    await suspend(name, { dispatchingOnClusters: { clusterNames: ['member1', 'member2'] } });
    for (const m of MEMBERS) {
      const w = await waitDispatching(name, m, true);
      expect(dispatching(w)).toMatchObject({ status: 'False', reason: 'SuspendDispatching', message: 'Work dispatching is in a suspended state.' });
    }

    await edit(host, deployPath(name), (d) => (d.spec.template.spec.containers[0].image = 'nginx:1.26'));
    // The Works take the change (the control plane is not suspended), the members do not.
    for (const m of MEMBERS) await waitFor(`the new image in the ${m} Work`, async () => (workImage(await workOf(name, m)) === 'nginx:1.26' ? true : undefined));
    await settle();
    for (const m of MEMBERS) expect(imageOf(await get(member(m), deployPath(name)))).toBe('nginx:1.25');

    await suspend(name, { dispatchingOnClusters: { clusterNames: ['member1'] } });
    await waitFor('the new image on member2', async () => (imageOf(await get(member('member2'), deployPath(name))) === 'nginx:1.26' ? true : undefined));
    expect(dispatching(await waitDispatching(name, 'member2', false))).toMatchObject({ status: 'True', reason: 'Dispatching' });
    await settle();
    expect(imageOf(await get(member('member1'), deployPath(name)))).toBe('nginx:1.25');
    expect(dispatching(await workOf(name, 'member1'))).toMatchObject({ status: 'False', reason: 'SuspendDispatching' });

    await suspend(name, undefined);
    await waitFor('the new image on member1 after resuming', async () => (imageOf(await get(member('member1'), deployPath(name))) === 'nginx:1.26' ? true : undefined));
    expect(dispatching(await waitDispatching(name, 'member1', false))).toMatchObject({ status: 'True', reason: 'Dispatching' });
  });

  // member2's status is its deployment controller's (the kwok fleet runs the Pods of the hand-scaled copy).
  itWithFleet('while suspended, a member copy deleted or scaled by hand is left alone (status still flows); resuming repairs both', async () => {
    const name = 'drift';
    await createWorkload(name);
    await suspend(name, { dispatching: true });
    for (const m of MEMBERS) await waitDispatching(name, m, true);

    await member('member1').request('DELETE', deployPath(name));
    await edit(member('member2'), deployPath(name), (d) => (d.spec.replicas = 5));
    await waitFor('member1 copy gone', async () => ((await get(member('member1'), deployPath(name))) === undefined ? true : undefined));

    // Status keeps flowing from a suspended member: what member2 reports reaches its Work.
    await waitDeploymentAvailable(member('member2'), NS, name);
    const w2 = await waitFor('member2 status in its Work', async () => {
      const w = await workOf(name, 'member2');
      const st = w?.status?.manifestStatuses?.[0];
      return st?.status?.readyReplicas === 5 ? w : undefined;
    });
    expect(w2.status.manifestStatuses[0]).toMatchObject({ health: 'Healthy', status: { replicas: 5, availableReplicas: 5 } });

    await settle();
    expect(await get(member('member1'), deployPath(name))).toBeUndefined();
    expect((await get(member('member2'), deployPath(name))).spec.replicas).toBe(5);
    for (const m of MEMBERS) expect(dispatching(await workOf(name, m))).toMatchObject({ status: 'False', reason: 'SuspendDispatching' });

    await suspend(name, undefined);
    const d1 = await waitFor('member1 copy re-created after resuming', () => get(member('member1'), deployPath(name)));
    expect(d1.spec.replicas).toBe(2);
    expect(d1.metadata.labels).toMatchObject({ 'karmada.io/managed': 'true' });
    await waitFor('member2 scale reverted after resuming', async () => ((await get(member('member2'), deployPath(name)))?.spec.replicas === 2 ? true : undefined));
  });
});
