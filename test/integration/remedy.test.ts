// End to end: Karmada's remedy controller in the real binary, against the host apiserver. The condition a Remedy
// matches on (ServiceDomainNameResolutionReady) is written by a cluster problem detector outside Karmada, never by
// Kubernetes or the cluster status controller: the test plays that detector and writes it into the Cluster status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './env.js';
import { diagnose, edit, get, prepareHost, rest, startController, stopController, type Proc } from './harness.js';

const ID = Date.now().toString(36);
const NS = `remedy-e2e-${ID}`;
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const REMEDIES = '/apis/remedy.karmada.io/v1alpha1/remedies';
const DNS = 'ServiceDomainNameResolutionReady';

describe('karmada-lite controller: Remedy', () => {
  const host = rest('host');
  let ctrl: Proc | undefined;
  const made: string[] = [];

  beforeAll(async () => {
    await prepareHost(host, NS);
    ctrl = await startController();
  });

  afterAll(async () => {
    for (const name of made) await host.request('DELETE', `${REMEDIES}/${name}`).catch(() => undefined);
    // Leave member1 as other suites expect it: no detector condition, no actions.
    await waitFor('member1 without the detector condition and actions', async () => {
      const c = await get(host, `${CLUSTERS}/member1`);
      if (!c.status?.remedyActions && !(c.status?.conditions ?? []).some((x: any) => x.type === DNS)) return true;
      await setDetectorCondition(undefined).catch(() => undefined);
      return undefined;
    }).catch(() => undefined);
    const code = await stopController(ctrl);
    if (code !== 0) console.error(await diagnose(ctrl));
  });

  const actionsOf = async (m: string) => ((await get(host, `${CLUSTERS}/${m}`))?.status?.remedyActions ?? []) as string[];
  /** What a cluster problem detector does: sets (or, undefined, removes) its condition in member1's status. */
  const setDetectorCondition = (status: 'True' | 'False' | undefined) =>
    edit(host, `${CLUSTERS}/member1`, (c) => {
      const others = ((c.status?.conditions ?? []) as any[]).filter((x) => x.type !== DNS);
      const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      c.status = { ...c.status, conditions: status ? [...others, { type: DNS, status, reason: 'Probed', message: 'by the test detector', lastTransitionTime: now }] : others };
    }, '/status');

  it("a Remedy matching a cluster's condition sets its remedyActions; the condition healed, they go", async () => {
    const name = `dns-${ID}`;
    made.push(name);
    await host.request('POST', REMEDIES, {
      body: {
        apiVersion: 'remedy.karmada.io/v1alpha1',
        kind: 'Remedy',
        metadata: { name },
        spec: { clusterAffinity: { clusterNames: ['member1', 'member2'] }, decisionMatches: [{ clusterConditionMatch: { conditionType: DNS, operator: 'Equal', conditionStatus: 'False' } }], actions: ['TrafficControl'] },
      },
    });
    await setDetectorCondition('False');
    await waitFor('TrafficControl on member1', async () => ((await actionsOf('member1')).includes('TrafficControl') ? true : undefined));
    expect(await actionsOf('member1')).toEqual(['TrafficControl']);
    // member2 reports no such condition: it matches neither Equal nor NotEqual.
    expect(await actionsOf('member2')).toEqual([]);

    await setDetectorCondition('True');
    await waitFor('no actions on member1', async () => ((await actionsOf('member1')).length === 0 ? true : undefined));
  });

  it('a Remedy without decision matches applies to every cluster at once; deleted, its actions go', async () => {
    const name = `always-${ID}`;
    made.push(name);
    await host.request('POST', REMEDIES, { body: { apiVersion: 'remedy.karmada.io/v1alpha1', kind: 'Remedy', metadata: { name }, spec: { actions: ['TrafficControl'] } } });
    for (const m of ['member1', 'member2']) await waitFor(`TrafficControl on ${m}`, async () => ((await actionsOf(m)).includes('TrafficControl') ? true : undefined));
    await host.request('DELETE', `${REMEDIES}/${name}`);
    for (const m of ['member1', 'member2']) await waitFor(`no actions on ${m}`, async () => ((await actionsOf(m)).length === 0 ? true : undefined));
  });
});
