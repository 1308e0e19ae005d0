// The fault matrix beyond failover (issue 33): what dispatch suspension and preserveResourcesOnDeletion do
// while a member stops answering, on the real binary against the real apiservers. `faulty` is member1's
// kube-apiserver behind a FaultProxy (test/integration/faults.ts), member2 is healthy; ConfigMaps go to both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cluster, waitFor } from './env.js';
import { clusterReady, freeze, joinThroughProxy, killApiserver, proxyFor, type FaultProxy } from './faults.js';
import { diagnose, edit, get, prepareHost, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `fault-propagation-${Date.now().toString(36)}`;
const FAULTY = 'faulty';
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const host = rest('host');
const cmPath = (name: string) => `/api/v1/namespaces/${NS}/configmaps/${name}`;
const ppPath = (name: string) => `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${name}`;

let ctrl: Proc | undefined;
let proxy: FaultProxy;
let leave: (() => Promise<void>) | undefined;
let heal: (() => void) | undefined;
const created: string[] = [];

async function propagate(name: string, spec: Record<string, unknown>): Promise<void> {
  created.push(name);
  await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
    body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', name }], placement: { clusterAffinity: { clusterNames: [FAULTY, 'member2'] } }, ...spec } },
  });
  await host.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { v: '1' } } });
  for (const m of ['member1', 'member2'] as const) await waitFor(`${name} on ${m}`, () => get(rest(m), cmPath(name)));
}

const dataOn = async (m: 'member1' | 'member2', name: string): Promise<string | undefined> => (await get(rest(m), cmPath(name)))?.data?.v;
const faultyReady = () => waitFor(`${FAULTY} Ready`, async () => ((await clusterReady(host, FAULTY)) === 'True' ? true : undefined), 60_000);
const faultyNotReady = () => waitFor(`${FAULTY} not Ready`, async () => ((await clusterReady(host, FAULTY)) === 'False' ? true : undefined), 60_000);
/** Runs a case; on failure prints what the controller's queues say; always undoes the fault in force. */
async function underFault(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    console.error(await diagnose(ctrl));
    throw e;
  } finally {
    heal?.();
    heal = undefined;
  }
}

const worksIn = async (ns: string, name: string) =>
  ((await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/${ns}/works`)).items as any[]).filter((w) => w.metadata.annotations?.['resourcebinding.karmada.io/name'] === `${name}-configmap`);

describe('fault matrix: propagation features with a member that stops answering', () => {
  beforeAll(async () => {
    await prepareHost(host, NS);
    proxy = await proxyFor(cluster('member1'));
    leave = await joinThroughProxy(host, FAULTY, proxy, 'member1');
    ctrl = await startController();
    await faultyReady();
  }, scaled(180_000));

  afterAll(async () => {
    heal?.();
    proxy?.pass();
    for (const n of created) {
      await host.request('DELETE', cmPath(n)).catch(() => undefined);
      await host.request('DELETE', ppPath(n)).catch(() => undefined);
    }
    await leave?.();
    await waitFor(`${FAULTY} gone`, async () => ((await get(host, `${CLUSTERS}/${FAULTY}`)) === undefined ? true : undefined), 30_000).catch(() => undefined);
    const code = await stopController(ctrl);
    await proxy?.stop();
    for (const m of ['member1', 'member2'] as const) for (const n of created) await rest(m).request('DELETE', cmPath(n)).catch(() => undefined);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-80).join('\n'));
  }, scaled(120_000));

  it('dispatch suspension, apiserver frozen: member2 gets the change at once; faulty, resumed while frozen, gets it when it thaws', async () => {
    const name = 'suspended';
    await propagate(name, {});
    await edit(host, ppPath(name), (o) => (o.spec.suspension = { dispatchingOnClusters: { clusterNames: [FAULTY] } }));
    await waitFor(`${name}: its Work for ${FAULTY} suspended`, async () => ((await worksIn(`karmada-es-${FAULTY}`, name))[0]?.spec?.suspendDispatching === true ? true : undefined));
    await underFault(async () => {
      heal = freeze(cluster('member1'));
      await faultyNotReady();
      await edit(host, cmPath(name), (o) => (o.data.v = '2'));
      // The change reaches the healthy member although the other one is frozen and suspended.
      await waitFor(`${name} v2 on member2`, async () => ((await dataOn('member2', name)) === '2' ? true : undefined));
      await edit(host, ppPath(name), (o) => delete o.spec.suspension);
      heal();
      heal = undefined;
      await faultyReady();
      await waitFor(`${name} v2 on ${FAULTY} once it thawed`, async () => ((await dataOn('member1', name)) === '2' ? true : undefined), 60_000);
    });
  }, scaled(180_000));

  it('preserveResourcesOnDeletion, connections reset: the template deleted while faulty is down; both copies are kept, unmarked, faulty\'s once it is back', async () => {
    const name = 'preserved';
    await propagate(name, { preserveResourcesOnDeletion: true });
    await underFault(async () => {
      proxy.set({ mode: 'reset' });
      heal = () => proxy.pass();
      await faultyNotReady();
      await host.request('DELETE', cmPath(name));
      await waitFor(`${name} on member2 kept without karmada.io/managed`, async () => {
        const o = await get(rest('member2'), cmPath(name));
        return o && o.metadata.labels?.['karmada.io/managed'] === undefined ? true : undefined;
      });
      // faulty's Work waits for faulty: its copy cannot be unmarked before it answers.
      expect((await worksIn(`karmada-es-${FAULTY}`, name)).length).toBe(1);
      heal();
      heal = undefined;
      await faultyReady();
      await waitFor(`${name} on ${FAULTY} kept without karmada.io/managed`, async () => {
        const o = await get(rest('member1'), cmPath(name));
        if (!o) throw new Error(`${name} was deleted from ${FAULTY}, not preserved`);
        return o.metadata.labels?.['karmada.io/managed'] === undefined ? true : undefined;
      }, 60_000);
      await waitFor(`no Work of ${name} left`, async () => ((await worksIn(`karmada-es-${FAULTY}`, name)).length === 0 ? true : undefined));
      expect(await dataOn('member1', name)).toBe('1');
    });
  }, scaled(180_000));

  it('apiserver killed (SIGKILL) and started again: a change made while it was dead reaches it once it is back, member2 gets it at once', async () => {
    const name = 'restarted';
    await propagate(name, {});
    await underFault(async () => {
      const dead = await killApiserver(cluster('member1'));
      let restarted = false;
      heal = () => void (restarted || dead.restart(rest('member1')));
      await faultyNotReady();
      await edit(host, cmPath(name), (o) => (o.data.v = '2'));
      await waitFor(`${name} v2 on member2`, async () => ((await dataOn('member2', name)) === '2' ? true : undefined));
      restarted = true;
      heal = undefined;
      await dead.restart(rest('member1'));
      await faultyReady();
      await waitFor(`${name} v2 on ${FAULTY} once its apiserver is back`, async () => ((await dataOn('member1', name)) === '2' ? true : undefined), 60_000);
    });
  }, scaled(240_000));
});
