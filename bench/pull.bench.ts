/**
 * Pull against Push (issue 20): time from a template change on the host to the member object showing it,
 * for a Push member (member1, the controller writes it) and a Pull member (the Cluster member2-pull on
 * member2's apiserver, written by `karmada-lite agent`), side by side. One Deployment is Duplicated to
 * both; --count times its image is changed, and each change waits for both members before the next.
 * The delay of each is from the PUT to the member watch event with the new image.
 *
 *   npx tsx bench/pull.bench.ts                       # dist/karmada-lite (or $KARMADA_LITE_DIST)
 *   npx tsx bench/pull.bench.ts --binary /tmp/x/karmada-lite --count 20
 *
 * Both processes run with their default flags (the agent with leader election, as Karmada's). Uses the
 * environment in $KARMADA_LITE_ENV_DIR when it is up; otherwise starts one and stops it at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '../src/json/error.js';
import { RestClient } from '../src/kube/rest.js';
import { clusterInfo, distDir, envRunning, envStart, envStop, freePort, getOrUndefined, ignoreConflict, installCrds, kubeConfigOf, readEnv, registerMembers, waitFor } from './controller-env.js';
import { MemberWatch } from './controller-watch.js';

const { values: flags } = parseArgs({ options: { binary: { type: 'string' }, count: { type: 'string', default: '100' } } });
const COUNT = Number(flags.count);
const NS = `pull-bench-${Date.now().toString(36)}`;
const PULL = 'member2-pull';
const NAME = 'latency';
const log = (msg: string) => process.stderr.write(`[pull] ${msg}\n`);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function start(binary: string, args: string[], logFile: string): ChildProcess {
  const fd = openSync(logFile, 'a');
  const child = spawn(binary, args, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

async function main(): Promise<void> {
  const started = !envRunning();
  if (started) envStart();
  const env = readEnv();
  const host = new RestClient(kubeConfigOf(env, 'host'));
  const m1 = new RestClient(kubeConfigOf(env, 'member1'));
  const m2 = new RestClient(kubeConfigOf(env, 'member2'));
  const binary = flags.binary ?? path.join(distDir(), 'karmada-lite');
  if (!existsSync(binary)) throw new Error(`no binary at ${binary}; run node scripts/build.mjs or pass --binary`);
  await installCrds(host);
  await registerMembers(env, host);
  await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }));
  const clusterPath = `/apis/cluster.karmada.io/v1alpha1/clusters/${PULL}`;
  const workDir = mkdtempSync(path.join(tmpdir(), 'pull-bench-'));
  const ctrlPort = await freePort();
  const agentPort = await freePort();
  const ctrl = start(binary, ['controller', '--kubeconfig', clusterInfo(env, 'host').kubeconfig, '--metrics-port', String(ctrlPort), '--bind-address', '127.0.0.1'], path.join(workDir, 'controller.log'));
  const agent = start(binary, ['agent', '--karmada-kubeconfig', clusterInfo(env, 'host').kubeconfig, '--cluster-name', PULL, '--kubeconfig', clusterInfo(env, 'member2').kubeconfig, '--metrics-port', String(agentPort), '--bind-address', '127.0.0.1'], path.join(workDir, 'agent.log'));
  log(`controller pid ${ctrl.pid}, agent pid ${agent.pid}, logs in ${workDir}`);
  const dPath = `/apis/apps/v1/namespaces/${NS}/deployments/${NAME}`;
  try {
    const readyOf = async (c: string) => ((await getOrUndefined(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${c}`))?.status?.conditions ?? []).find((x: any) => x.type === 'Ready')?.status;
    for (const c of ['member1', PULL]) await waitFor(`${c} Ready`, async () => ((await readyOf(c)) === 'True' ? true : undefined), 120_000);
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
      body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: NAME, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: NAME }], placement: { clusterAffinity: { clusterNames: ['member1', PULL] }, replicaScheduling: { replicaSchedulingType: 'Duplicated' } } } },
    });
    await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: NAME, namespace: NS }, spec: { replicas: 1, selector: { matchLabels: { app: NAME } }, template: { metadata: { labels: { app: NAME } }, spec: { containers: [{ name: 'c', image: 'nginx:1.0' }] } } } },
    });
    const push = new MemberWatch('member1', m1, NS);
    const pull = new MemberWatch('member2', m2, NS);
    await push.start();
    await pull.start();
    await Promise.all([push.whenImage(NAME, 'nginx:1.0'), pull.whenImage(NAME, 'nginx:1.0')]);
    const pushMs: number[] = [];
    const pullMs: number[] = [];
    for (let i = 1; i <= COUNT; i++) {
      const image = `nginx:1.${i}`;
      const d = await host.request('GET', dPath);
      d.spec.template.spec.containers[0].image = image;
      const waits = [push.whenImage(NAME, image), pull.whenImage(NAME, image)];
      const t0 = performance.now();
      await host.request('PUT', dPath, { body: d });
      const [a, b] = await Promise.race([Promise.all(waits), new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`change ${i} did not reach both members within 60 s`)), 60_000))]);
      pushMs.push(a - t0);
      pullMs.push(b - t0);
    }
    push.stop();
    pull.stop();
    const f = (x: number) => `${x.toFixed(0)} ms`;
    const summary = (ms: number[]) => {
      const s = [...ms].sort((x, y) => x - y);
      return { p50: f(percentile(s, 50)), p99: f(percentile(s, 99)), max: f(s[s.length - 1]!) };
    };
    const p50 = (ms: number[]) => percentile([...ms].sort((x, y) => x - y), 50);
    console.log(JSON.stringify({ binary, count: COUNT, push: summary(pushMs), pull: summary(pullMs), pullOverPushP50: (p50(pullMs) / p50(pushMs)).toFixed(2), load: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') }));

    // Clean up while both run, so that the member copies go too.
    await host.request('DELETE', dPath).catch(() => undefined);
    await waitFor('member copies removed', async () => ((await getOrUndefined(m1, dPath)) || (await getOrUndefined(m2, dPath)) ? undefined : true), 60_000).catch((e) => log(`cleanup: ${errorMessage(e)}`));
    await host.request('DELETE', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${NAME}`).catch(() => undefined);
  } finally {
    // The Cluster goes while the agent runs: the finalizers of its Works (the namespace's too) are the agent's.
    await host.request('DELETE', clusterPath).catch(() => undefined);
    await waitFor(`${PULL} deleted`, async () => ((await getOrUndefined(host, clusterPath)) ? undefined : true), 60_000).catch((e) => log(`cleanup: ${errorMessage(e)}`));
    await stop(agent);
    await host.request('DELETE', `/apis/coordination.k8s.io/v1/namespaces/karmada-cluster/leases/${PULL}`).catch(() => undefined);
    await stop(ctrl);
    if (started) envStop();
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
