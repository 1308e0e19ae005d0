/**
 * Staged rollout (issue #21): how soon the next stage's member object is updated once a stage's gate passes.
 * The real controller binary runs against the apiservers of scripts/k8s/env.sh with its default flags. One
 * Deployment is rolled out over two stages (member1, then member2; minHealthySeconds 0, so the gate passes
 * the moment the controller sees member1 Healthy) N times: each round changes the image, waits for member1
 * to run it, writes member1's Deployment status as rolled out and available (no kube-controller-manager
 * runs there), and times member2's copy taking the image. Three figures per gate, on the bench's clock:
 *
 *   status → member2:  from the status write on member1 to member2's watch event with the new image (the
 *                      whole path: member status → Work status → binding health → gate → Work → member2)
 *   passed → member2:  from the binding's watch event showing the stage passed to member2's watch event
 *                      (what happens after the gate decision; ≤ 0 when the Work write beat the status write)
 *   baseline:          in the same round, a Deployment without a rollout: from its template update to
 *                      member1's watch event (the ordinary propagation path, for the ratio)
 *
 *   npx tsx bench/rollout.bench.ts                    # dist/karmada-lite (or $KARMADA_LITE_DIST)
 *   npx tsx bench/rollout.bench.ts --gates 30 --binary /tmp/other/karmada-lite
 *
 * Uses the environment in $KARMADA_LITE_ENV_DIR when it is up; otherwise starts one and stops it at the end.
 * Target: every gate under 2 s (status → member2). No figure here is asserted anywhere.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ApiError, RestClient } from '../src/kube/rest.js';
import { errorMessage } from '../src/json/error.js';
import { envRunning, envStart, envStop, getOrUndefined, kubeConfigOf, readEnv, startController, waitFor } from './controller-env.js';
import { MemberWatch } from './controller-watch.js';

const { values: flags } = parseArgs({ options: { binary: { type: 'string' }, gates: { type: 'string', default: '20' } } });
const GATES = Number(flags.gates);
const NS = `rollout-bench-${Date.now().toString(36)}`;
const STAGED = 'staged';
const PLAIN = 'plain';
const log = (msg: string) => process.stderr.write(`[rollout] ${msg}\n`);
const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Read-modify-write; a 409 (the controller wrote meanwhile) reads again. */
async function edit(c: RestClient, p: string, change: (o: any) => void): Promise<void> {
  for (;;) {
    const o = await c.request('GET', p);
    change(o);
    try {
      await c.request('PUT', p, { body: o });
      return;
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 409)) throw e;
    }
  }
}

const setHealthy = (c: RestClient, name: string) =>
  edit(c, `${deployPath(name)}/status`, (d) => {
    const n = d.spec.replicas as number;
    d.status = { observedGeneration: d.metadata.generation, replicas: n, updatedReplicas: n, readyReplicas: n, availableReplicas: n };
  });

/** The bench-clock time at which the binding first showed stage 0 passed for each revision. */
function watchStagePassed(host: RestClient): { passedAt: Map<string, number>; stop: () => void } {
  const passedAt = new Map<string, number>();
  const abort = new AbortController();
  const loop = async () => {
    let rv = '';
    while (!abort.signal.aborted) {
      try {
        await host.watch(
          `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings`,
          { fieldSelector: `metadata.name=${STAGED}-deployment`, allowWatchBookmarks: true, timeoutSeconds: 300, ...(rv ? { resourceVersion: rv } : {}) },
          (type, obj) => {
            const at = performance.now();
            if (obj?.metadata?.resourceVersion) rv = obj.metadata.resourceVersion;
            const r = obj?.status?.rollout;
            if (type !== 'BOOKMARK' && r?.stages?.[0]?.passedAt && !passedAt.has(r.revision)) passedAt.set(r.revision, at);
          },
          abort.signal,
        );
      } catch {
        if (!abort.signal.aborted) await new Promise((r) => setTimeout(r, 200));
        rv = '';
      }
    }
  };
  void loop();
  return { passedAt, stop: () => abort.abort() };
}

async function main(): Promise<void> {
  const started = !envRunning();
  if (started) envStart();
  const env = readEnv();
  const host = new RestClient(kubeConfigOf(env, 'host'));
  const m1 = new RestClient(kubeConfigOf(env, 'member1'));
  const m2 = new RestClient(kubeConfigOf(env, 'member2'));
  const { binary, child, port, logFile } = await startController(env, host, { binary: flags.binary, namespace: NS, prefix: 'rollout-bench-', log });
  const watches = [new MemberWatch('member1', m1, NS), new MemberWatch('member2', m2, NS)] as const;
  const binding = watchStagePassed(host);
  try {
    await waitFor('the controller to be ready', async () => ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 60_000);
    for (const w of watches) await w.start();

    const rollout = { type: 'Staged', staged: { stages: [{ name: 'canary', clusterNames: ['member1'] }, { name: 'rest', clusterNames: ['member2'] }], gate: { minHealthySeconds: 0 } } };
    for (const name of [STAGED, PLAIN]) {
      await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
        body: {
          apiVersion: 'policy.karmada.io/v1alpha1',
          kind: 'PropagationPolicy',
          metadata: { name, namespace: NS },
          spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name }], placement: { clusterAffinity: { clusterNames: name === STAGED ? ['member1', 'member2'] : ['member1'] } }, ...(name === STAGED ? { rolloutStrategy: rollout } : {}) },
        },
      });
      await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
        body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: NS }, spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.0' }] } } } },
      });
    }
    const completed = (revision: string) =>
      waitFor(`revision ${revision} completed`, async () => {
        const rb = await getOrUndefined(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${STAGED}-deployment`);
        const done = (rb?.status?.conditions ?? []).some((c: any) => c.type === 'Rollout' && c.status === 'True');
        return rb?.status?.rollout?.revision === revision && done ? true : undefined;
      }, 60_000);

    // The first revision, so that every round below is a change with a stable revision to keep.
    await watches[0].whenImage(STAGED, 'nginx:1.0');
    await setHealthy(m1, STAGED);
    await watches[1].whenImage(STAGED, 'nginx:1.0');
    await setHealthy(m2, STAGED);
    await completed(String((await host.request('GET', deployPath(STAGED))).metadata.generation));

    const whole: number[] = [];
    const after: number[] = [];
    const baseline: number[] = [];
    for (let i = 1; i <= GATES; i++) {
      const image = `nginx:1.${i}`;
      const b0 = performance.now();
      await edit(host, deployPath(PLAIN), (d) => (d.spec.template.spec.containers[0].image = image));
      baseline.push((await watches[0].whenImage(PLAIN, image)) - b0);

      await edit(host, deployPath(STAGED), (d) => (d.spec.template.spec.containers[0].image = image));
      const revision = String((await host.request('GET', deployPath(STAGED))).metadata.generation);
      await watches[0].whenImage(STAGED, image);
      const arrived = watches[1].whenImage(STAGED, image);
      const t0 = performance.now();
      await setHealthy(m1, STAGED);
      const t1 = await Promise.race([arrived, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`gate ${i}: member2 did not get ${image} within 60 s (controller log ${logFile})`)), 60_000))]);
      whole.push(t1 - t0);
      const passed = binding.passedAt.get(revision);
      if (passed !== undefined) after.push(t1 - passed);
      await setHealthy(m2, STAGED);
      await completed(revision);
    }
    const f = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length ? { p50: `${Math.round(percentile(s, 50))} ms`, max: `${Math.round(s[s.length - 1]!)} ms`, n: s.length } : { n: 0 };
    };
    const p50 = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
    console.log(
      JSON.stringify({
        binary,
        gates: GATES,
        statusToNextStage: f(whole),
        passedToNextStage: f(after),
        baselinePropagation: f(baseline),
        ratioP50: Number((p50(whole) / p50(baseline)).toFixed(2)),
        under2s: `${whole.filter((x) => x < 2000).length}/${whole.length}`,
        load: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
      }),
    );
    log(`status → member2 (ms): ${whole.map((x) => Math.round(x)).join(' ')}`);

    for (const name of [STAGED, PLAIN]) await host.request('DELETE', deployPath(name)).catch(() => undefined);
    await waitFor('member copies removed', async () => {
      for (const c of [m1, m2]) if ((await c.request('GET', `/apis/apps/v1/namespaces/${NS}/deployments`)).items.length) return undefined;
      return true;
    }, 60_000).catch((e) => log(`cleanup: ${errorMessage(e)}`));
    for (const name of [STAGED, PLAIN]) await host.request('DELETE', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${name}`).catch(() => undefined);
  } finally {
    binding.stop();
    for (const w of watches) w.stop();
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    if (started) envStop();
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
