// End to end: a frozen member (its kube-apiserver stopped with SIGSTOP: connections open, nothing answers)
// costs its own Works only. Deployments for the healthy member1 keep arriving, new ones and updates of ones
// already on both members, before the controller has even marked member2 not ready.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cluster, waitFor } from './env.js';
import { get, prepareHost, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `members-e2e-${Date.now().toString(36)}`;
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;

const member2Pid = () => Number(readFileSync(cluster('member2').pidFile, 'utf8').trim());
/** SIGSTOP: the process keeps its sockets, the kernel still accepts connections, nothing is ever answered. */
const freeze = () => process.kill(member2Pid(), 'SIGSTOP');
const thaw = () => process.kill(member2Pid(), 'SIGCONT');

const readyOf = (c: any) => ((c?.status?.conditions ?? []) as any[]).find((x) => x.type === 'Ready');

describe('karmada-lite controller: members cannot slow each other', () => {
  const host = rest('host');
  let ctrl: Proc | undefined;
  const created: string[] = [];

  async function propagate(name: string, clusterNames: string[], image = 'nginx:1.25'): Promise<void> {
    created.push(name);
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
      body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name }], placement: { clusterAffinity: { clusterNames } } } },
    });
    await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: NS }, spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } } } },
    });
  }

  const imageOn = async (m: 'member1' | 'member2', name: string) => (await get(rest(m), deployPath(name)))?.spec?.template?.spec?.containers?.[0]?.image as string | undefined;

  async function member2Ready(): Promise<void> {
    await waitFor('member2 Ready', async () => (readyOf(await get(host, `${CLUSTERS}/member2`))?.status === 'True' ? true : undefined));
  }

  /** Whether member2's Cluster still says Ready: the controller has not noticed the freeze yet. */
  async function member2StillReady(): Promise<boolean> {
    return readyOf(await get(host, `${CLUSTERS}/member2`))?.status === 'True';
  }

  beforeAll(async () => {
    await prepareHost(host, NS);
    ctrl = await startController();
    await member2Ready();
    // The controller's member2 cache of Deployments is filled: a frozen member's applies are writes
    // that wait, not reads of a cache that cannot fill (which fail at once).
    await propagate('warm', ['member1', 'member2']);
    for (const m of ['member1', 'member2'] as const) await waitFor(`warm on ${m}`, () => imageOn(m, 'warm'));
  }, scaled(180_000));

  afterEach(async () => {
    // Whatever happened in the test, member2 must answer again for the next one (and the next suite).
    thaw();
    await member2Ready();
  });

  afterAll(async () => {
    thaw();
    await removeDeployments(NS, created);
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
  });

  it('a Deployment for member1 arrives while a write to the frozen member2 is waiting, before member2 is marked not ready', async () => {
    freeze();
    try {
      // A Work for member2 whose apply now waits on the frozen apiserver.
      await propagate('to-frozen', ['member2']);
      await waitFor('the Work for member2', async () => (await get(host, `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member2/works`))?.items?.some((w: any) => w.metadata.name.startsWith('to-frozen-')) || undefined);
      await propagate('to-healthy', ['member1']);
      // A generous bound for the wait; what the test asserts is the order: the copy on member1 is there
      // while member2 still counts as Ready (two failed probes of 5 s each make it not ready). Before, the
      // whole pipeline waited on the member2 write's 30 s request timeout, long after member2 went not ready.
      await waitFor('to-healthy on member1', () => imageOn('member1', 'to-healthy'), 60_000);
      expect(await member2StillReady(), 'member2 was marked not ready before member1 got its Deployment').toBe(true);
    } finally {
      thaw();
    }
    // And member2 gets its Deployment once it answers again.
    await waitFor('to-frozen on member2', () => imageOn('member2', 'to-frozen'), 60_000);
  });

  it('Deployments already on both members keep being updated on member1 while member2 is frozen', async () => {
    await propagate('both-a', ['member1', 'member2']);
    await propagate('both-b', ['member1', 'member2']);
    for (const m of ['member1', 'member2'] as const) for (const n of ['both-a', 'both-b']) await waitFor(`${n} on ${m}`, () => imageOn(m, n));
    freeze();
    try {
      // Two templates: whichever member2 Work is applied first, the other template's member1 Work queues behind it.
      for (const n of ['both-a', 'both-b']) {
        const d = await host.request('GET', deployPath(n));
        d.spec.template.spec.containers[0].image = 'nginx:1.27';
        await host.request('PUT', deployPath(n), { body: d });
      }
      for (const n of ['both-a', 'both-b']) await waitFor(`${n} updated on member1`, async () => ((await imageOn('member1', n)) === 'nginx:1.27' ? true : undefined), 60_000);
      expect(await member2StillReady(), 'member2 was marked not ready before member1 got the updates').toBe(true);
    } finally {
      thaw();
    }
    for (const n of ['both-a', 'both-b']) await waitFor(`${n} updated on member2`, async () => ((await imageOn('member2', n)) === 'nginx:1.27' ? true : undefined), 60_000);
  });
});
