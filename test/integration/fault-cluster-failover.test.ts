// The fault matrix of cluster failover (issue 33), on the real binary against the real apiservers. `faulty` is
// member1's kube-apiserver behind a FaultProxy (test/integration/faults.ts): the controller reaches it only
// through the proxy. Each case puts a Divided 4-replica Deployment on faulty and member2 (2 + 2), breaks faulty
// one way (its apiserver frozen with SIGSTOP, the link blackholed, or every connection reset), and checks:
// member2 gets all 4 replicas within --cluster-failure-threshold + a bounded delay (the waits' timeouts), the
// binding never places more than 4, and when faulty comes back its copy is removed (Directly, Gracefully) or
// kept (Never). Gracefully waits for member2's copy to be healthy: its controllers report it on the fleet (the
// test writes that status only on the bare fleet, which runs none).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type RestClient } from '../../src/kube/rest.js';
import { cluster, waitFor } from './env.js';
import { clusterReady, freeze, joinThroughProxy, proxyFor, type FaultProxy } from './faults.js';
import { createDeploymentWithPolicy, diagnose, evenSplitWithFailover, get, prepareHost, recordVersions, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';
import { waitDeploymentAvailable, withFleet } from './fleet.js';
import { scaled } from '../time-scale.js';

const NS = `fault-failover-${Date.now().toString(36)}`;
const FAULTY = 'faulty';
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
/** --cluster-failure-threshold: Ready False this long before the NoExecute taint. */
const THRESHOLD_S = 3;
/** The bound on top of the threshold for member2 to hold every replica, on a reference machine (scaled). */
const BOUND_MS = 30_000;

const host = rest('host');
const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;
const rbPath = (name: string) => `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${name}-deployment`;

type Fault = 'freeze' | 'blackhole' | 'reset';
type PurgeMode = 'Directly' | 'Gracefully';

let ctrl: Proc | undefined;
let proxy: FaultProxy;
let leave: (() => Promise<void>) | undefined;
const created: string[] = [];
/** Undoes the fault in force (thaw, pass), whatever happens to the test. */
let heal: (() => void) | undefined;

/** Breaks faulty the given way; returns the cure. */
function inject(fault: Fault): () => void {
  if (fault === 'freeze') return freeze(cluster('member1'));
  proxy.set({ mode: fault });
  return () => proxy.pass();
}

/** 4 replicas, Divided 1:1 over faulty and member2, failed over from a cluster with a NoExecute taint it does not tolerate. */
async function createWorkload(name: string, purgeMode: PurgeMode): Promise<void> {
  created.push(name);
  await createDeploymentWithPolicy(NS, name, 4, { ...evenSplitWithFailover(FAULTY, 'member2'), failover: { cluster: { purgeMode } } });
}

const replicasOn = async (c: RestClient, name: string): Promise<number | undefined> => (await get(c, deployPath(name)))?.spec?.replicas;

/**
 * member2's Deployment rolled out and available (what Gracefully waits for): its own controllers report it on
 * the fleet; the bare fleet (KARMADA_LITE_FLEET=bare) runs none, so the test writes that status there.
 */
async function healthyOnMember2(name: string): Promise<void> {
  const c = rest('member2');
  if (withFleet()) {
    await waitDeploymentAvailable(c, NS, name);
    return;
  }
  for (;;) {
    const d = await get(c, deployPath(name));
    const n = d.spec.replicas as number;
    d.status = { observedGeneration: d.metadata.generation, replicas: n, updatedReplicas: n, readyReplicas: n, availableReplicas: n };
    try {
      await c.request('PUT', `${deployPath(name)}/status`, { body: d });
      return;
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 409)) throw e;
    }
  }
}

const notReadyTaints = async () => (((await get(host, `${CLUSTERS}/${FAULTY}`))?.spec?.taints ?? []) as any[]).filter((t) => t.key === 'cluster.karmada.io/not-ready');

/**
 * When each step a user sees happened after `t0` (ms), polled in the background: for the notes' table and to
 * tell where the time goes, never asserted.
 */
function milestones(name: string, t0: number): { stop: () => string } {
  const seen = new Map<string, number>();
  const mark = (what: string, yes: boolean) => yes && !seen.has(what) && seen.set(what, Date.now() - t0);
  let running = true;
  void (async () => {
    while (running) {
      const [ready, taints, rb, works, d2] = await Promise.all([
        clusterReady(host, FAULTY).catch(() => undefined),
        notReadyTaints().catch(() => []),
        get(host, rbPath(name)).catch(() => undefined),
        host.request('GET', '/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member2/works').catch(() => ({ items: [] })),
        get(rest('member2'), deployPath(name)).catch(() => undefined),
      ]);
      mark('Ready=False', ready === 'False');
      mark('NoExecute taint', taints.some((t: any) => t.effect === 'NoExecute'));
      mark('eviction task', (rb?.spec?.gracefulEvictionTasks ?? []).length > 0);
      mark('binding {member2: 4}', rb?.spec?.clusters?.length === 1 && rb.spec.clusters[0].replicas === 4);
      const w = (works.items as any[]).find((x) => x.metadata.annotations?.['resourcebinding.karmada.io/name'] === `${name}-deployment`);
      mark('member2 Work at 4', w?.spec?.workload?.manifests?.[0]?.spec?.replicas === 4);
      mark('member2 Deployment at 4', d2?.spec?.replicas === 4);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    stop: () => {
      running = false;
      return [...seen].map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`).join(', ');
    },
  };
}

/** faulty Ready and untainted: the state every case starts from and leaves. */
const faultyHealthy = () =>
  waitFor(`${FAULTY} Ready and untainted`, async () => ((await clusterReady(host, FAULTY)) === 'True' && (await notReadyTaints()).length === 0 ? true : undefined), 60_000);

/**
 * One cell of the matrix: 2 + 2 on faulty and member2, faulty broken, member2 must get all 4; then faulty
 * healed, and its copy removed. Returns how long member2 took, for the notes (not asserted).
 */
async function failover(name: string, purgeMode: PurgeMode, fault: Fault, restartController = false): Promise<void> {
  await faultyHealthy();
  await createWorkload(name, purgeMode);
  await waitFor(`${name}: 2 replicas on faulty (member1)`, async () => ((await replicasOn(rest('member1'), name)) === 2 ? true : undefined));
  await waitFor(`${name}: 2 replicas on member2`, async () => ((await replicasOn(rest('member2'), name)) === 2 ? true : undefined));
  const placement = recordVersions(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings`, `${name}-deployment`, (await get(host, rbPath(name))).metadata.resourceVersion);
  const t0 = Date.now();
  const steps = milestones(name, t0);
  try {
    heal = inject(fault);
    if (restartController) {
      // No graceful exit: the new replica finds the member already broken and must not wait for it.
      ctrl!.child.kill('SIGKILL');
      await new Promise((r) => (ctrl!.child.exitCode !== null || ctrl!.child.signalCode !== null ? r(null) : ctrl!.child.once('exit', r)));
      ctrl = await startController(['--cluster-failure-threshold', `${THRESHOLD_S}s`]);
    }
    await waitFor(
      `${name}: 4 replicas on member2 with ${FAULTY} under ${fault} (${purgeMode})`,
      async () => ((await replicasOn(rest('member2'), name)) === 4 ? true : undefined),
      THRESHOLD_S * 1000 + BOUND_MS,
    );
    const took = Date.now() - t0;
    const timeline = steps.stop();
    const rb = await get(host, rbPath(name));
    expect(rb.spec.clusters).toEqual([{ name: 'member2', replicas: 4 }]);
    // The task as the binding carried it (by now a Gracefully one may have ended: member2 is healthy).
    const evicting = await placement.seen(`${name}: the eviction task seen`, (b) => b.spec?.gracefulEvictionTasks?.length);
    expect(evicting.spec.gracefulEvictionTasks).toMatchObject([{ fromCluster: FAULTY, purgeMode, replicas: 2, reason: 'TaintUntolerated' }]);
    console.log(`fault matrix: ${fault}${restartController ? ' + controller killed and restarted' : ''} x ${purgeMode}: 4 replicas on member2 ${took} ms after the fault (threshold ${THRESHOLD_S} s, probe 1 s): ${timeline}`);

    heal();
    heal = undefined;
    if (purgeMode === 'Gracefully') await healthyOnMember2(name);
    await waitFor(`${name}: its copy on ${FAULTY} removed once it is back`, async () => ((await get(rest('member1'), deployPath(name))) === undefined ? true : undefined), 60_000);
    // Nothing duplicated: 4 replicas placed at most, all on member2, and the old Work gone.
    const placed = (b: any) => ((b.spec?.clusters ?? []) as Array<{ replicas?: number }>).reduce((n, c) => n + (c.replicas ?? 0), 0);
    expect(Math.max(...placement.versions.map(placed))).toBe(4);
    expect(await replicasOn(rest('member2'), name)).toBe(4);
    await waitFor(`${name}: no Work left in karmada-es-${FAULTY}`, async () => {
      const works = (await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${FAULTY}/works`)).items as any[];
      return works.some((w) => w.metadata.annotations?.['resourcebinding.karmada.io/name'] === `${name}-deployment`) ? undefined : true;
    });
  } catch (e) {
    console.error(await diagnose(ctrl));
    throw e;
  } finally {
    placement.stop();
    steps.stop();
    heal?.();
    heal = undefined;
  }
}

describe('fault matrix: cluster failover with a member that stops answering', () => {
  beforeAll(async () => {
    await prepareHost(host, NS);
    proxy = await proxyFor(cluster('member1'));
    leave = await joinThroughProxy(host, FAULTY, proxy, 'member1');
    ctrl = await startController(['--cluster-failure-threshold', `${THRESHOLD_S}s`]);
  }, scaled(180_000));

  afterAll(async () => {
    heal?.();
    proxy?.pass();
    await removeDeployments(NS, created);
    await leave?.();
    await waitFor(`${FAULTY} gone`, async () => ((await get(host, `${CLUSTERS}/${FAULTY}`)) === undefined ? true : undefined), 30_000).catch(() => undefined);
    const code = await stopController(ctrl);
    await proxy?.stop();
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-80).join('\n'));
  }, scaled(120_000));

  it('Directly, apiserver frozen (SIGSTOP): member2 gets all replicas while faulty is frozen; its copy goes when it thaws', () => failover('directly-frozen', 'Directly', 'freeze'), scaled(180_000));
  it('Directly, link blackholed: member2 gets all replicas; the copy goes when the link is back', () => failover('directly-blackhole', 'Directly', 'blackhole'), scaled(180_000));
  it('Directly, connections reset: member2 gets all replicas; the copy goes when the link is back', () => failover('directly-reset', 'Directly', 'reset'), scaled(180_000));
  it('Gracefully, apiserver frozen (SIGSTOP): member2 gets all replicas; the old copy goes once member2 is healthy and faulty is back', () => failover('gracefully-frozen', 'Gracefully', 'freeze'), scaled(180_000));
  it('Gracefully, link blackholed', () => failover('gracefully-blackhole', 'Gracefully', 'blackhole'), scaled(180_000));
  it('Gracefully, connections reset', () => failover('gracefully-reset', 'Gracefully', 'reset'), scaled(180_000));
  it('Directly, apiserver frozen and the controller killed (SIGKILL) and started again meanwhile: the new replica still moves every replica', () => failover('directly-frozen-restart', 'Directly', 'freeze', true), scaled(240_000));
});
