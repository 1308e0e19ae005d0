// End to end: application failover by the real binary against the host, member1 and member2 apiservers of the
// kwok fleet. The member Deployments' status is their deployment controller's, never the test's: a copy becomes
// healthy when kwok's Nodes run its Pods, and unhealthy when the test labels its Pods unready (kwok reports them
// running and never Ready), which the built-in health interpreter then reads from that status.
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { ApiError, type RestClient } from '../../src/kube/rest.js';
import { waitFor, type ClusterName } from './env.js';
import { cordonMember, itWithFleet as it, setDeploymentFault, waitDeploymentAvailable, withFleet } from './fleet.js';
import { diagnose, get, prepareHost, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `failover-e2e-${Date.now().toString(36)}`;
const TOLERATION = 5;
/** The bound on top of tolerationSeconds, from the Pods labelled unready to the eviction task. */

const MEMBERS = ['member1', 'member2'] as const;
const host = rest('host');
const member = (m: ClusterName) => rest(m);
const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;
const ppPath = (name: string) => `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${name}`;
const rbPath = (name: string) => `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${name}-deployment`;

type PurgeMode = 'Directly' | 'Gracefully' | 'Never';

/** The Deployments this suite created, removed at the end. */
const created: string[] = [];

/** Deletes the templates while the controller still runs, so that no binding, Work or member copy outlives the suite. */
const removeWorkloads = () => removeDeployments(NS, created);

/** A Deployment and its PP: both members allowed, one chosen (member1 first), failover after TOLERATION seconds. */
async function createWorkload(name: string, purgeMode: PurgeMode, toleration = TOLERATION): Promise<void> {
  created.push(name);
  await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
    body: {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name, namespace: NS },
      spec: {
        propagateDeps: true,
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name }],
        placement: { clusterAffinity: { clusterNames: ['member1', 'member2'] }, spreadConstraints: [{ spreadByField: 'cluster', maxGroups: 1, minGroups: 1 }] },
        failover: { application: { decisionConditions: { tolerationSeconds: toleration }, purgeMode, ...(purgeMode === 'Gracefully' ? { gracePeriodSeconds: 600 } : {}) } },
      },
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
}

/** A member copy's Pods made unready: rolled out (observed, updated), nothing available, as its controller reports it. */
const makeUnhealthy = (c: RestClient, name: string) => setDeploymentFault(c, NS, name, 'unready');

const tasksOf = (rb: any) => (rb?.spec?.gracefulEvictionTasks ?? []) as any[];
const itemOf = (rb: any, cluster: string) => ((rb?.status?.aggregatedStatus ?? []) as any[]).find((i) => i.clusterName === cluster);

/** This binding's Works, as `cluster -> Work`, from both execution namespaces. */
async function worksOf(name: string): Promise<Map<string, any[]>> {
  const out = new Map<string, any[]>();
  for (const m of ['member1', 'member2']) {
    const items = (await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${m}/works`)).items as any[];
    out.set(
      m,
      items.filter((w) => w.metadata.annotations?.['resourcebinding.karmada.io/namespace'] === NS && w.metadata.annotations?.['resourcebinding.karmada.io/name'] === `${name}-deployment`),
    );
  }
  return out;
}

/** The workload on member1 only, and reported Healthy there: the state a failover starts from. */
async function healthyOnMember1(name: string): Promise<void> {
  const rb = await waitFor(`${name} scheduled`, async () => {
    const b = await get(host, rbPath(name));
    return b?.spec?.clusters?.length ? b : undefined;
  });
  expect(rb.spec.clusters.map((c: any) => c.name)).toEqual(['member1']);
  await waitFor(`${name} on member1`, () => get(member('member1'), deployPath(name)));
  await waitDeploymentAvailable(member('member1'), NS, name);
  await waitFor(`${name} Healthy on member1 in the binding`, async () => (itemOf(await get(host, rbPath(name)), 'member1')?.health === 'Healthy' ? true : undefined));
}

/**
 * Watches the binding from now on and resolves with the wall-clock time of the first version that carries
 * an eviction task from member1 (a watch sees every version, so nothing between polls is missed).
 */
function evictionSeen(name: string, rv: string): { at: Promise<{ at: number; rb: any }>; stop: () => void } {
  const abort = new AbortController();
  const at = new Promise<{ at: number; rb: any }>((resolve, reject) => {
    const loop = async (from: string) => {
      let last = from;
      while (!abort.signal.aborted) {
        try {
          await host.watch(
            `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings`,
            { fieldSelector: `metadata.name=${name}-deployment`, resourceVersion: last, allowWatchBookmarks: true, timeoutSeconds: 60 },
            (type, obj) => {
              const now = Date.now();
              if (obj?.metadata?.resourceVersion) last = obj.metadata.resourceVersion;
              if (type !== 'BOOKMARK' && tasksOf(obj).some((t) => t.fromCluster === 'member1')) {
                resolve({ at: now, rb: obj });
                abort.abort();
              }
            },
            abort.signal,
          );
        } catch (e) {
          if (!abort.signal.aborted) reject(e);
          return;
        }
      }
    };
    void loop(rv);
  });
  return { at, stop: () => abort.abort() };
}

/** Makes member1's copy unhealthy and returns the reaction time until the eviction task, in ms. */
async function failOnMember1(name: string, purgeMode: PurgeMode, toleration = TOLERATION, midway?: () => Promise<void>): Promise<{ ms: number; rb: any }> {
  const cur = await get(host, rbPath(name));
  const watch = evictionSeen(name, cur.metadata.resourceVersion);
  try {
    const t0 = Date.now();
    await makeUnhealthy(member('member1'), name);
    if (midway) await midway();
    const seen = await Promise.race([
      watch.at,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no eviction task on ${name} within ${toleration}s + ${scaled(30_000)}ms`)), toleration * 1000 + scaled(30_000))),
    ]);
    const ms = seen.at - t0;
    console.log(`failover reaction (${purgeMode}, ${name}): ${ms} ms from the Pods labelled unready to the eviction task (tolerationSeconds ${toleration})`);
    expect(ms).toBeGreaterThanOrEqual(toleration * 1000);
    const tasks = tasksOf(seen.rb);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ fromCluster: 'member1', purgeMode, reason: 'ApplicationFailure', producer: 'resource-binding-application-failover-controller' });
    return { ms, rb: seen.rb };
  } finally {
    watch.stop();
  }
}

/** Waits for the workload on member2 and for its controller to report it Available, so the failover can settle. */
async function healthyOnMember2(name: string): Promise<void> {
  await waitFor(`${name} on member2`, () => get(member('member2'), deployPath(name)));
  await waitDeploymentAvailable(member('member2'), NS, name);
  await waitFor(`${name} scheduled to member2 and Healthy there`, async () => {
    const b = await get(host, rbPath(name));
    return b?.spec?.clusters?.map((c: any) => c.name).join() === 'member2' && itemOf(b, 'member2')?.health === 'Healthy' ? true : undefined;
  });
}

/** Long enough for the controller to have acted if it were going to: the pipeline takes well under a second here. */
const settle = () => new Promise((r) => setTimeout(r, 3000));

const absent = (c: RestClient, p: string) => async () => ((await get(c, p)) === undefined ? true : undefined);

/** Controller flags; FAILOVER_E2E_DEBUG=1 logs at debug level (printed when a test fails). */
const ctrlArgs = process.env.FAILOVER_E2E_DEBUG === '1' ? ['--log-level', 'debug'] : [];

describe('application failover end to end', () => {
  let ctrl: Proc | undefined;
  /** Log lines of the replicas killed on purpose, so a failure shows the whole story. */
  const earlierLogs: string[] = [];
  const reactions: number[] = [];

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail') return;
    console.error([...earlierLogs, '--- current replica ---', ...(ctrl?.logs ?? [])].slice(-400).join('\n'));
    console.error(await diagnose(ctrl));
  });

  beforeAll(async () => {
    if (!withFleet()) return;
    await prepareHost(host, NS);
    ctrl = await startController(ctrlArgs);
    for (const m of ['member1', 'member2']) {
      await waitFor(`${m} Ready`, async () => {
        const c = await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${m}`);
        return c?.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? true : undefined;
      });
    }
  });

  afterAll(async () => {
    if (!withFleet()) return;
    await cordonMember(member('member2'), 'member2', false);
    await removeWorkloads();
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
    console.log(`failover reaction times (ms, tolerationSeconds ${TOLERATION} unless noted): ${reactions.join(', ')}`);
  });

  it('Directly: the member1 copy is deleted at once and the workload moves to member2, on time in each of three runs', async () => {
    for (let i = 1; i <= 3; i++) {
      const name = `direct-${i}`;
      await createWorkload(name, 'Directly');
      await healthyOnMember1(name);
      const { ms } = await failOnMember1(name, 'Directly');
      reactions.push(ms);
      // Directly: the old Work goes before anything is rendered for member2.
      await waitFor(`${name} gone from member1`, absent(member('member1'), deployPath(name)));
      const d2 = await waitFor(`${name} on member2`, () => get(member('member2'), deployPath(name)));
      expect(d2.spec.replicas).toBe(2);
      const works = await worksOf(name);
      expect(works.get('member1')).toEqual([]);
      expect(works.get('member2')).toHaveLength(1);
      const rb = await get(host, rbPath(name));
      expect(rb.spec.clusters.map((c: any) => c.name)).toEqual(['member2']);
      expect(rb.spec.activeEvictionHistory).toMatchObject([{ clusterName: 'member1', reason: 'ApplicationFailure' }]);
      await healthyOnMember2(name);
      await waitFor(`${name}: the eviction task ends once member2 is healthy`, async () => (tasksOf(await get(host, rbPath(name))).length === 0 ? true : undefined));
    }
  });

  it('Gracefully: the member1 copy stays until the new copy on member2 is healthy, then goes', async () => {
    const name = 'graceful';
    await createWorkload(name, 'Gracefully');
    await healthyOnMember1(name);
    // member2's Nodes cordoned: the new copy's Pods stay Pending, so it is not healthy until they are uncordoned.
    await cordonMember(member('member2'), 'member2', true);
    const { ms, rb } = await failOnMember1(name, 'Gracefully');
    reactions.push(ms);
    expect(tasksOf(rb)[0]).toMatchObject({ gracePeriodSeconds: 600, replicas: 2 });
    await waitFor(`${name} on member2`, () => get(member('member2'), deployPath(name)));
    // The old copy is frozen, not deleted, while the new one is not healthy yet.
    await settle();
    const works = await worksOf(name);
    expect(works.get('member1')).toHaveLength(1);
    expect(works.get('member2')).toHaveLength(1);
    expect(await get(member('member1'), deployPath(name))).toBeDefined();
    await cordonMember(member('member2'), 'member2', false);
    await healthyOnMember2(name);
    await waitFor(`${name} gone from member1`, absent(member('member1'), deployPath(name)));
    await waitFor(`${name}: no eviction task`, async () => (tasksOf(await get(host, rbPath(name))).length === 0 ? true : undefined));
    const after = await worksOf(name);
    expect(after.get('member1')).toEqual([]);
    expect(after.get('member2')).toHaveLength(1);
  });

  it('Never: the member1 copy stays, even with member2 healthy, until the user lifts suppressDeletion', async () => {
    const name = 'never';
    await createWorkload(name, 'Never');
    await healthyOnMember1(name);
    const { ms, rb } = await failOnMember1(name, 'Never');
    reactions.push(ms);
    expect(tasksOf(rb)[0]).toMatchObject({ suppressDeletion: true });
    await healthyOnMember2(name);
    // Healthy elsewhere is not enough with Never: give the controller time to (wrongly) purge.
    await new Promise((r) => setTimeout(r, 3000));
    expect(await get(member('member1'), deployPath(name))).toBeDefined();
    expect(tasksOf(await get(host, rbPath(name)))).toHaveLength(1);
    expect((await worksOf(name)).get('member1')).toHaveLength(1);

    for (;;) {
      const cur = await get(host, rbPath(name));
      cur.spec.gracefulEvictionTasks = tasksOf(cur).map((t) => ({ ...t, suppressDeletion: false }));
      try {
        await host.request('PUT', rbPath(name), { body: cur });
        break;
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 409)) throw e;
      }
    }
    await waitFor(`${name} gone from member1 once confirmed`, absent(member('member1'), deployPath(name)));
    expect(tasksOf(await get(host, rbPath(name)))).toEqual([]);
  });

  it('failover pauses while dispatching to the unhealthy cluster is suspended; its clock restarts on resume (README point 1)', async () => {
    const name = 'paused';
    await createWorkload(name, 'Directly');
    await healthyOnMember1(name);
    const setSuspension = async (clusters: string[] | undefined) => {
      for (;;) {
        const pp = await get(host, ppPath(name));
        if (clusters) pp.spec.suspension = { dispatchingOnClusters: { clusterNames: clusters } };
        else delete pp.spec.suspension;
        try {
          await host.request('PUT', ppPath(name), { body: pp });
          return;
        } catch (e) {
          if (!(e instanceof ApiError && e.code === 409)) throw e;
        }
      }
    };
    await setSuspension(['member1']);
    await waitFor('the member1 Work suspended', async () => ((await worksOf(name)).get('member1')?.[0]?.spec?.suspendDispatching === true ? true : undefined));
    await makeUnhealthy(member('member1'), name);
    // Status still flows from a suspended cluster: the binding knows member1 is unhealthy...
    await waitFor(`${name} Unhealthy on member1 in the binding`, async () => (itemOf(await get(host, rbPath(name)), 'member1')?.health === 'Unhealthy' ? true : undefined));
    // ...and still keeps it past tolerationSeconds, without starting its clock.
    await new Promise((r) => setTimeout(r, (TOLERATION + 2) * 1000));
    const held = await get(host, rbPath(name));
    expect(tasksOf(held)).toEqual([]);
    expect(held.spec.clusters.map((c: any) => c.name)).toEqual(['member1']);
    expect(held.metadata.annotations?.['failover.karmada-lite.io/clocks'] ?? '').not.toContain('unhealthySince');

    const watch = evictionSeen(name, held.metadata.resourceVersion);
    try {
      const resumed = Date.now();
      await setSuspension(undefined);
      const seen = await Promise.race([watch.at, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no eviction after resuming')), TOLERATION * 1000 + scaled(30_000)))]);
      const ms = seen.at - resumed;
      console.log(`failover reaction after resuming (${name}): ${ms} ms from the resume to the eviction task (tolerationSeconds ${TOLERATION})`);
      reactions.push(ms);
      expect(ms).toBeGreaterThanOrEqual(TOLERATION * 1000);
    } finally {
      watch.stop();
    }
    await waitFor(`${name} gone from member1`, absent(member('member1'), deployPath(name)));
    await healthyOnMember2(name);
  });

  it('a controller killed mid-failover is replaced and the failover still completes on time, once', async () => {
    const name = 'restart';
    const toleration = 8;
    await createWorkload(name, 'Directly', toleration);
    await healthyOnMember1(name);
    const { ms, rb } = await failOnMember1(name, 'Directly', toleration, async () => {
      // The unhealthy clock reaches the binding, then the controller dies before the toleration ends.
      await waitFor('the unhealthy clock on the binding', async () => {
        const b = await get(host, rbPath(name));
        const clocks = b?.metadata?.annotations?.['failover.karmada-lite.io/clocks'];
        return clocks && JSON.parse(clocks).member1?.unhealthySince ? true : undefined;
      });
      ctrl!.child.kill('SIGKILL');
      await new Promise<void>((r) => (ctrl!.child.exitCode !== null || ctrl!.child.signalCode !== null ? r() : ctrl!.child.once('exit', () => r())));
      earlierLogs.push(...ctrl!.logs);
      ctrl = await startController(ctrlArgs);
    });
    reactions.push(ms);
    console.log(`failover reaction across a restart: ${ms} ms (tolerationSeconds ${toleration})`);
    expect(tasksOf(rb)).toHaveLength(1);
    await waitFor(`${name} gone from member1`, absent(member('member1'), deployPath(name)));
    await waitFor(`${name} on member2`, () => get(member('member2'), deployPath(name)));
    await healthyOnMember2(name);
    const after = await get(host, rbPath(name));
    expect(after.spec.clusters.map((c: any) => c.name)).toEqual(['member2']);
    expect(after.spec.activeEvictionHistory).toHaveLength(1);
    const works = await worksOf(name);
    expect(works.get('member1')).toEqual([]);
    expect(works.get('member2')).toHaveLength(1);
    // One Deployment per cluster name: the new copy on member2, none left behind on member1.
    const listed = (await member('member2').request('GET', `/apis/apps/v1/namespaces/${NS}/deployments`)).items.filter((d: any) => d.metadata.name === name);
    expect(listed).toHaveLength(1);
  });
});
