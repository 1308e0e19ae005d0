// How the cluster status probe tells that a member stopped answering (issue 33): the controller's store
// (KubeStore) against the real host, with member1 joined as `faulty` through a FaultProxy. A member that lets a
// probe go unanswered for the whole probe timeout (frozen apiserver, blackholed link) is not ready after that
// one probe; one whose connections fail fast (reset) gets a second probe first. The store's own log says which:
// "member probe failed; not ready after another failure" is the first fast failure it forgave.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeStore } from '../../src/kube/store.js';
import { createLogger } from '../../src/runtime/log.js';
import { cluster, kubeConfig, waitFor } from './env.js';
import { clusterReady, freeze, joinThroughProxy, proxyFor, type FaultProxy } from './faults.js';
import { get, installCrds, registerMembers, rest } from './harness.js';
import { scaled } from '../time-scale.js';

const FAULTY = `probe-${Date.now().toString(36)}`;
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const host = rest('host');
let proxy: FaultProxy;
let leave: (() => Promise<void>) | undefined;
let store: KubeStore | undefined;
let heal: (() => void) | undefined;
/** The store's debug lines about FAULTY, in order. */
const lines: Array<{ msg: string; err?: string }> = [];
/** FAULTY's readiness as the store last reported it. */
let ready: boolean | undefined;

const readyCondition = async () => ((await get(host, `${CLUSTERS}/${FAULTY}`))?.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
const forgiven = () => lines.filter((l) => l.msg === 'member probe failed; not ready after another failure');

/** Breaks the link (or the apiserver) and waits for the store to call FAULTY not ready; returns the Ready condition then. */
async function breakAndWait(fault: 'freeze' | 'blackhole' | 'reset'): Promise<any> {
  await waitFor(`${FAULTY} ready`, async () => (ready === true && (await clusterReady(host, FAULTY)) === 'True' ? true : undefined), 60_000);
  lines.length = 0;
  if (fault === 'freeze') heal = freeze(cluster('member1'));
  else {
    proxy.set({ mode: fault });
    heal = () => proxy.pass();
  }
  await waitFor(`the store to call ${FAULTY} not ready under ${fault}`, async () => (ready === false ? true : undefined), 60_000);
  return waitFor(`${FAULTY} Ready=False written`, async () => {
    const c = await readyCondition();
    return c?.status === 'False' ? c : undefined;
  });
}

describe('cluster status probe: a member that stops answering', () => {
  beforeAll(async () => {
    await installCrds(host);
    await registerMembers(host);
    proxy = await proxyFor(cluster('member1'));
    leave = await joinThroughProxy(host, FAULTY, proxy, 'member1');
    const log = createLogger({
      level: 'debug',
      write: (s: string) => {
        for (const line of s.split('\n').filter(Boolean)) {
          const o = JSON.parse(line);
          if (o.cluster === FAULTY) lines.push({ msg: o.msg, err: o.err });
        }
      },
    });
    store = new KubeStore({ host: kubeConfig('host'), log, probeIntervalMs: 500, warmUpTimeoutMs: 2_000, onClusterReadiness: (r) => (ready = r[FAULTY]) });
    await store.start();
  }, scaled(120_000));

  afterAll(async () => {
    heal?.();
    proxy?.pass();
    await leave?.();
    store?.stop();
    await proxy?.stop();
  }, scaled(60_000));

  const cases = [
    ['freeze', 'apiserver frozen (SIGSTOP)'],
    ['blackhole', 'link blackholed'],
  ] as const;
  for (const [fault, what] of cases) {
    it(`${what}: not ready after one probe that got no answer within the probe timeout, never forgiven as a blip`, async () => {
      try {
        const t0 = Date.now();
        const cond = await breakAndWait(fault);
        console.log(`probe: ${fault}: ${FAULTY} not ready ${Date.now() - t0} ms after the fault (probe every 500 ms)`);
        expect(cond).toMatchObject({ reason: 'ClusterNotReachable' });
        expect(cond.message).toMatch(/^cluster is not reachable: GET \S+.*: no answer within 5s$/);
        expect(forgiven()).toEqual([]);
      } finally {
        heal?.();
        heal = undefined;
      }
    }, scaled(120_000));
  }

  it('connections reset: the first fast failure is forgiven, the second in a row makes it not ready', async () => {
    try {
      const cond = await breakAndWait('reset');
      expect(cond).toMatchObject({ reason: 'ClusterNotReachable' });
      expect(cond.message).toMatch(/^cluster is not reachable: .*ECONNRESET|socket hang up/);
      expect(forgiven().length).toBe(1);
    } finally {
      heal?.();
      heal = undefined;
    }
    await waitFor(`${FAULTY} ready again`, async () => ((await clusterReady(host, FAULTY)) === 'True' ? true : undefined), 60_000);
  }, scaled(120_000));
});
