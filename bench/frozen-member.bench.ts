/**
 * Propagation delay to a healthy member while another is frozen (issue 12, "Members cannot slow each
 * other"). The real controller binary runs against the apiservers of scripts/k8s/env.sh with its default
 * flags (probe every 10 s); member2's kube-apiserver is stopped with SIGSTOP (its sockets stay open, so
 * requests wait instead of failing), and Deployments are created for member1 only, one every
 * --interval ms, while Deployments on both members keep being updated (new member2 writes keep coming).
 * The delay of each is from its POST to its ADDED event on member1's watch. member2 gets SIGCONT whatever
 * happens.
 *
 *   npx tsx bench/frozen-member.bench.ts                         # dist/karmada-lite (or $KARMADA_LITE_DIST)
 *   npx tsx bench/frozen-member.bench.ts --binary /tmp/old/karmada-lite --count 20 --interval 500
 *
 * Uses the environment in $KARMADA_LITE_ENV_DIR when it is up; otherwise starts one and stops it at the end.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { RestClient } from '../src/kube/rest.js';
import { clusterInfo, envRunning, envStart, envStop, getOrUndefined, kubeConfigOf, readEnv, startController, waitFor, percentile } from './controller-env.js';
import { MemberWatch } from './controller-watch.js';
import { apiserverPid, freeze } from '../test/integration/faults.js';

const { values: flags } = parseArgs({
  options: {
    binary: { type: 'string' },
    count: { type: 'string', default: '20' },
    interval: { type: 'string', default: '500' },
    both: { type: 'string', default: '4' },
  },
});
const COUNT = Number(flags.count);
const INTERVAL_MS = Number(flags.interval);
const BOTH = Number(flags.both);
const NS = `frozen-bench-${Date.now().toString(36)}`;
const log = (msg: string) => process.stderr.write(`[frozen-member] ${msg}\n`);

async function main(): Promise<void> {
  const started = !envRunning();
  if (started) envStart();
  const env = readEnv();
  const host = new RestClient(kubeConfigOf(env, 'host'));
  const m1 = new RestClient(kubeConfigOf(env, 'member1'));
  const m2 = new RestClient(kubeConfigOf(env, 'member2'));
  // The fault injector's freeze (test/integration/faults.ts) thaws on exit by itself; a signal exits through it.
  let thaw = () => {};
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => (thaw(), process.exit(130)));

  const { binary, child, port, logFile } = await startController(env, host, { binary: flags.binary, namespace: NS, prefix: 'frozen-member-', log });
  try {
    await waitFor('the controller to be ready', async () => ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 60_000);
    const readyOf = async (m: string) => ((await getOrUndefined(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${m}`))?.status?.conditions ?? []).find((c: any) => c.type === 'Ready')?.status;
    for (const m of ['member1', 'member2']) await waitFor(`${m} Ready`, async () => ((await readyOf(m)) === 'True' ? true : undefined), 60_000);

    const propagate = async (name: string, clusterNames: string[]) => {
      await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
        body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name }], placement: { clusterAffinity: { clusterNames } } } },
      });
      await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
        body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: NS }, spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } } },
      });
    };
    let generation = 0;
    const touchBoth = async (i: number) => {
      const p = `/apis/apps/v1/namespaces/${NS}/deployments/both-${i % BOTH}`;
      const d = await host.request('GET', p);
      d.spec.template.spec.containers[0].image = `nginx:1.${30 + ++generation}`;
      await host.request('PUT', p, { body: d });
    };

    // Deployments on both members: member2's caches are filled, and its Works get writes to apply.
    for (let i = 0; i < BOTH; i++) await propagate(`both-${i}`, ['member1', 'member2']);
    for (const c of [m1, m2]) for (let i = 0; i < BOTH; i++) await waitFor(`both-${i}`, () => getOrUndefined(c, `/apis/apps/v1/namespaces/${NS}/deployments/both-${i}`), 60_000);

    const watch = new MemberWatch('member1', m1, NS);
    await watch.start();
    thaw = freeze(clusterInfo(env, 'member2'));
    const frozenAt = performance.now();
    log(`member2 frozen (pid ${apiserverPid(clusterInfo(env, 'member2'))}); ${COUNT} Deployments for member1, one every ${INTERVAL_MS} ms, each with an update of a Deployment on both`);
    let notReadyAfter: number | undefined;
    const poll = setInterval(() => {
      void readyOf('member2').then((s) => {
        if (s === 'False' && notReadyAfter === undefined) notReadyAfter = performance.now() - frozenAt;
      }).catch(() => undefined);
    }, 250);
    const delays: Array<Promise<number>> = [];
    for (let i = 0; i < COUNT; i++) {
      const name = `healthy-${i}`;
      await touchBoth(i);
      const t0 = performance.now();
      const arrived = new Promise<number>((resolve) => {
        const check = setInterval(() => {
          const at = watch.addedAt.get(name);
          if (at !== undefined) {
            clearInterval(check);
            resolve(at - t0);
          }
        }, 10);
      });
      await propagate(name, ['member1']);
      delays.push(arrived);
      await new Promise((r) => setTimeout(r, INTERVAL_MS));
    }
    const ms = (await Promise.race([Promise.all(delays), new Promise<never>((_, rej) => setTimeout(() => rej(new Error('not every Deployment reached member1 within 120 s')), 120_000))])).sort((a, b) => a - b);
    clearInterval(poll);
    watch.stop();
    thaw();
    const f = (x: number) => `${(x / 1000).toFixed(2)} s`;
    const result = {
      binary,
      count: COUNT,
      p50: f(percentile(ms, 50)),
      p90: f(percentile(ms, 90)),
      p99: f(percentile(ms, 99)),
      max: f(ms[ms.length - 1]!),
      member2NotReadyAfter: notReadyAfter === undefined ? 'not within the run' : f(notReadyAfter),
      load: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
    };
    console.log(JSON.stringify(result));
    log(`delays (s): ${ms.map((x) => (x / 1000).toFixed(2)).join(' ')}`);

    // Clean up while the controller still runs (it deletes the member copies).
    for (const name of [...Array.from({ length: COUNT }, (_, i) => `healthy-${i}`), ...Array.from({ length: BOTH }, (_, i) => `both-${i}`)]) {
      await host.request('DELETE', `/apis/apps/v1/namespaces/${NS}/deployments/${name}`).catch(() => undefined);
      await host.request('DELETE', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${name}`).catch(() => undefined);
    }
    await waitFor('member copies removed', async () => {
      for (const c of [m1, m2]) if ((await c.request('GET', `/apis/apps/v1/namespaces/${NS}/deployments`)).items.length) return undefined;
      return true;
    }, 60_000).catch((e) => log(`cleanup: ${(e as Error).message}`));
  } finally {
    thaw();
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    if (started) envStop();
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
