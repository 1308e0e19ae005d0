/**
 * Failover time on the kwok fleet (issue 33): how long from a member's failure until its replicas run
 * Available on the other member, as member2's kube-controller-manager reports the Deployment (observed,
 * every replica updated and available). Nothing in the figure is written by the bench.
 *
 * - cluster failover (`failover.cluster`, purgeMode Directly and Gracefully): a Deployment of --replicas
 *   Divided 1:1 over `faulty` (member1's kube-apiserver behind the fault injector's proxy,
 *   test/integration/faults.ts) and member2; faulty is frozen (SIGSTOP of member1's kube-apiserver) or its
 *   link reset (every connection through the proxy RST); t0 is the fault, t1 member2 Available at all replicas.
 *   The figure includes --cluster-failure-threshold and the probe interval: it is what a user waits.
 * - application failover (`failover.application`, tolerationSeconds --toleration): the same Deployment, its
 *   Pods on faulty labelled unready (kwok's stages then keep them unready); t0 the first label, t1 the same.
 *   The figure includes the toleration.
 *
 * Each trial starts from a healthy fleet (faulty Ready, untainted, both copies Available), and ends thawed /
 * passing, its workload deleted and its member copies gone. p50/p99 are nearest-rank over the trials.
 *
 *   npx tsx bench/failover.bench.ts                       # 20 trials per case, dist/karmada-lite
 *   npx tsx bench/failover.bench.ts --trials 5 --cases cluster-directly-freeze,app-directly
 *
 * Needs the kwok fleet (not KARMADA_LITE_FLEET=bare). Uses the environment in $KARMADA_LITE_ENV_DIR when it is
 * up; otherwise starts one and stops it at the end.
 */
import { parseArgs } from 'node:util';
import { RestClient } from '../src/kube/rest.js';
import { clusterInfo, envRunning, envStart, envStop, fleetOn, getOrUndefined, kubeConfigOf, loadAverage, readEnv, startController, waitFor, percentile } from './controller-env.js';
import { clusterReady, freeze, joinThroughProxy, proxyFor, type FaultProxy } from '../test/integration/faults.js';
import { setDeploymentFault, waitDeploymentAvailable } from '../test/integration/fleet.js';
import { createDeploymentWithPolicy, evenSplitWithFailover } from '../test/integration/harness.js';

const CASES = ['cluster-directly-freeze', 'cluster-directly-reset', 'cluster-gracefully-freeze', 'cluster-gracefully-reset', 'app-directly', 'app-gracefully'] as const;
type Case = (typeof CASES)[number];

const { values: flags } = parseArgs({
  options: {
    binary: { type: 'string' },
    trials: { type: 'string', default: '20' },
    replicas: { type: 'string', default: '4' },
    threshold: { type: 'string', default: '3' },
    'probe-interval': { type: 'string', default: '1' },
    toleration: { type: 'string', default: '3' },
    cases: { type: 'string', default: CASES.join(',') },
  },
});
const TRIALS = Number(flags.trials);
const REPLICAS = Number(flags.replicas);
const THRESHOLD_S = Number(flags.threshold);
const PROBE_S = Number(flags['probe-interval']);
const TOLERATION_S = Number(flags.toleration);
const cases = (flags.cases ?? '').split(',').filter(Boolean) as Case[];
for (const c of cases) if (!CASES.includes(c)) throw new Error(`--cases: unknown case ${c}; known: ${CASES.join(', ')}`);
if (!(TRIALS > 0) || !(REPLICAS >= 2) || REPLICAS % 2) throw new Error('--trials must be positive and --replicas an even number ≥ 2');

const NS = `failover-bench-${Date.now().toString(36)}`;
const FAULTY = 'faulty';
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const log = (msg: string) => process.stderr.write(`[failover] ${msg}\n`);
const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;

async function main(): Promise<void> {
  const started = !envRunning();
  if (started) envStart();
  const env = readEnv();
  if (!fleetOn(env)) throw new Error('the environment runs the bare fleet (KARMADA_LITE_FLEET=bare): nothing would make the member Deployments Available; start it with the kwok fleet');
  const host = new RestClient(kubeConfigOf(env, 'host'));
  const faultyClient = new RestClient(kubeConfigOf(env, 'member1'));
  const m2 = new RestClient(kubeConfigOf(env, 'member2'));
  let heal = () => {};
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => (heal(), process.exit(130)));

  const { binary, child } = await startController(env, host, {
    binary: flags.binary,
    namespace: NS,
    prefix: 'failover-bench-',
    log,
    args: ['--cluster-probe-interval', `${PROBE_S}s`, '--cluster-failure-threshold', `${THRESHOLD_S}s`],
  });
  const proxy: FaultProxy = await proxyFor(clusterInfo(env, 'member1'));
  const leave = await joinThroughProxy(host, FAULTY, proxy, 'member1');
  const notReadyTaints = async () => (((await getOrUndefined(host, `${CLUSTERS}/${FAULTY}`))?.spec?.taints ?? []) as any[]).filter((t) => t.key === 'cluster.karmada.io/not-ready');
  const faultyHealthy = () =>
    waitFor(`${FAULTY} Ready and untainted`, async () => ((await clusterReady(host, FAULTY)) === 'True' && (await notReadyTaints()).length === 0 ? true : undefined), 120_000);

  const createWorkload = async (name: string, c: Case) => {
    const purgeMode = c.includes('gracefully') ? 'Gracefully' : 'Directly';
    const failover = c.startsWith('app-')
      ? { application: { decisionConditions: { tolerationSeconds: TOLERATION_S }, purgeMode, ...(purgeMode === 'Gracefully' ? { gracePeriodSeconds: 600 } : {}) } }
      : { cluster: { purgeMode } };
    const { placement } = evenSplitWithFailover(FAULTY, 'member2');
    await createDeploymentWithPolicy(NS, name, REPLICAS, { propagateDeps: true, placement, failover }, {}, host);
  };

  const removeWorkload = async (name: string) => {
    await host.request('DELETE', deployPath(name)).catch(() => undefined);
    await waitFor(`${name}: member copies removed`, async () => ((await getOrUndefined(faultyClient, deployPath(name))) || (await getOrUndefined(m2, deployPath(name))) ? undefined : true), 120_000);
    await host.request('DELETE', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${name}`).catch(() => undefined);
  };

  /** One trial: healthy start, fault at t0, member2 Available at every replica at t1; healed and cleaned up after. */
  const trial = async (c: Case, i: number): Promise<number> => {
    const name = `${c}-${i}`;
    await faultyHealthy();
    await createWorkload(name, c);
    for (const m of [faultyClient, m2]) {
      await waitFor(`${name} on both`, async () => ((await getOrUndefined(m, deployPath(name)))?.spec?.replicas === REPLICAS / 2 ? true : undefined), 120_000);
      await waitDeploymentAvailable(m, NS, name, 120_000);
    }
    let t0: number;
    try {
      if (c.startsWith('app-')) {
        t0 = performance.now();
        await setDeploymentFault(faultyClient, NS, name, 'unready');
      } else if (c.endsWith('freeze')) {
        t0 = performance.now();
        heal = freeze(clusterInfo(env, 'member1'));
      } else {
        t0 = performance.now();
        proxy.set({ mode: 'reset' });
        heal = () => proxy.pass();
      }
      await waitFor(`${name}: ${REPLICAS} replicas on member2`, async () => ((await getOrUndefined(m2, deployPath(name)))?.spec?.replicas === REPLICAS ? true : undefined), 180_000, 100);
      await waitDeploymentAvailable(m2, NS, name, 120_000);
      return performance.now() - t0;
    } finally {
      heal();
      heal = () => {};
      await removeWorkload(name);
    }
  };

  const results: Record<string, unknown>[] = [];
  try {
    for (const c of cases) {
      const ms: number[] = [];
      for (let i = 0; i < TRIALS; i++) {
        const took = await trial(c, i);
        ms.push(took);
        log(`${c} #${i + 1}: ${(took / 1000).toFixed(2)} s`);
      }
      ms.sort((a, b) => a - b);
      const f = (x: number) => `${(x / 1000).toFixed(2)} s`;
      const row = { case: c, trials: ms.length, p50: f(percentile(ms, 50)), p99: f(percentile(ms, 99)), min: f(ms[0]!), max: f(ms[ms.length - 1]!) };
      results.push(row);
      console.log(JSON.stringify(row));
    }
    console.log(
      JSON.stringify({ binary, replicas: REPLICAS, thresholdSeconds: THRESHOLD_S, probeIntervalSeconds: PROBE_S, tolerationSeconds: TOLERATION_S, load: loadAverage().join(' '), date: new Date().toISOString() }),
    );
  } finally {
    heal();
    await leave();
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    await proxy.stop();
    if (started) envStop();
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
