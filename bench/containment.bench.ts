/**
 * Containment of a hostile RIC (issue 12): `npx tsx bench/containment.bench.ts --help`. Figures in
 * bench/README.md, section "Containment (hostile RIC)".
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { RestClient } from '../src/kube/rest.js';
import { hostileRic, sendAdmissionReview } from '../test/integration/k8s-env.js';
import { hostileOutputCases, hostileOutputPolicy, hostileOutputRic } from '../test/integration/hostile-output.js';
import { makePki } from '../test/webhook/certs.js';
import { clusterInfo, distDir, envDir, envRunning, envStart, envStop, freePort, getOrUndefined, ignoreConflict, installCrds, kubeConfigOf, loadAverage, memoryKiB, readEnv, registerMembers, repoRoot, waitFor, type K8sEnv } from './controller-env.js';

const HELP = `Usage: npx tsx bench/containment.bench.ts [options]

Runs the real controller binary (--with-webhook) against the apiservers of scripts/k8s/env.sh, once per
--workers value, in two windows of --seconds each:

  baseline   5 ConfigMaps propagated to member1 are edited every 300 ms (their kind is reconciled in a
             loop), no RIC for it
  hostile    the same, with a RIC for v1 ConfigMap whose InterpretHealth and ReflectStatus loop forever
             ('while true do end')

In each window /healthz is probed every 500 ms (1 s timeout, kubelet's default) and an AdmissionReview is
sent to the webhook every 100 ms (3 s timeout). Reported per window: probes failed, the time from the RIC
applied to the first failed probe ("never" when none failed), webhook latency p50/p99/max and reviews
that failed or timed out.

With --output, instead (issue 32): every hostile case of test/integration/hostile-output.ts at once (a 12 MB
and a 50 MB error message, a result of 3,000 references to one 1 MB string, string.find plain with a 30 KB
needle in 1 MB, two objects whose scripts hold ~240 MB of strings each), one kind each, their objects
edited every 300 ms. Two windows of --seconds with 2 workers: 'baseline' (the objects, no RIC) and
'hostile' (the RICs present before the controller starts), then the RICs deleted and 15 s more. Reported:
the controller's peak RSS (VmHWM of /proc/<pid>/status: the process with its worker threads) against the
shipped limit, its RSS at the end of the window and after the RICs are gone, workers replaced, and each
RIC's ScriptsHealthy. The controller runs with deploy/'s MALLOC_MMAP_THRESHOLD_ unless --glibc-default.

Options:
  --output         the hostile-output cases of issue 32 (above) instead of the spinning RIC
  --glibc-default  with --output: run the controller without MALLOC_MMAP_THRESHOLD_
  --seconds S      length of each window (default 60)
  --workers LIST   --interpreter-workers values to run, comma-separated (default 2,0; 0 is the in-process
                   interpreter, as before the worker pool)
  --mjs            run 'node $KARMADA_LITE_DIST/karmada-lite.mjs' instead of the standalone binary
  --reuse          use the environment already running in $KARMADA_LITE_ENV_DIR, fail if there is none
  --json FILE      write the figures as JSON
  -h, --help       this help

Environment: KARMADA_LITE_ENV_DIR (default /tmp/karmada-lite-env), KARMADA_LITE_DIST (default dist/; built with
'node scripts/build.mjs' when missing). Nothing else may run a controller against the same environment.
`;

const { values: flags } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    workers: { type: 'string', default: '2,0' },
    mjs: { type: 'boolean', default: false },
    output: { type: 'boolean', default: false },
    'glibc-default': { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    json: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});
if (flags.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

const SECONDS = Number(flags.seconds);
const WORKERS = flags.workers!.split(',').map((s) => Number(s.trim()));
if (!(SECONDS > 0) || WORKERS.some((w) => !Number.isInteger(w) || w < 0)) {
  process.stderr.write('error: --seconds must be positive and --workers whole numbers\n');
  process.exit(2);
}
const NS = `containment-${Date.now().toString(36)}`;
const RIC_NAME = `hostile-${NS}`;
const RICS = '/apis/config.karmada.io/v1alpha1/resourceinterpretercustomizations';
const SPINNERS = ['spin-0', 'spin-1', 'spin-2', 'spin-3', 'spin-4'];
const log = (s: string) => process.stderr.write(`[containment ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

interface Ctrl {
  child: ChildProcess;
  port: number;
  webhookPort: number;
  logFile: string;
}

async function startController(env: K8sEnv, workers: number, certFile: string, keyFile: string, workDir: string, childEnv: NodeJS.ProcessEnv = process.env): Promise<Ctrl> {
  const port = await freePort();
  const webhookPort = await freePort();
  const args = [
    'controller', '--kubeconfig', clusterInfo(env, 'host').kubeconfig, '--metrics-port', String(port), '--bind-address', '127.0.0.1',
    '--interpreter-workers', String(workers), '--with-webhook', '--webhook-cert-file', certFile, '--webhook-key-file', keyFile,
    '--webhook-port', String(webhookPort), '--webhook-bind-address', '127.0.0.1', '--log-level', 'warn',
  ];
  const [cmd, argv] = flags.mjs ? [process.execPath, [path.join(distDir(), 'karmada-lite.mjs'), ...args]] : [path.join(distDir(), 'karmada-lite'), args];
  const logFile = path.join(workDir, `controller-w${workers}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(cmd, argv, { stdio: ['ignore', fd, fd], env: childEnv });
  closeSync(fd);
  await waitFor('the controller to be ready', async () => {
    if (child.exitCode !== null) throw new Error(`the controller exited with ${child.exitCode}; see ${logFile}`);
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    return res?.status === 200 ? true : undefined;
  }, 60_000);
  return { child, port, webhookPort, logFile };
}

function stopController(c: Ctrl): Promise<void> {
  return new Promise((resolve) => {
    if (c.child.exitCode !== null) return resolve();
    const t = setTimeout(() => c.child.kill('SIGKILL'), 15_000);
    c.child.once('exit', () => (clearTimeout(t), resolve()));
    c.child.kill('SIGTERM');
  });
}

/** One review, as the API server sends it with a 3 s timeout; anything but 200 counts as failed. */
async function review(port: number, agent: Agent, uid: string): Promise<number> {
  const code = await sendAdmissionReview(port, agent, uid, NS, 3000);
  if (code !== 200) throw new Error(`status ${code}`);
  return code;
}

interface Window {
  workers: number;
  window: 'baseline' | 'hostile';
  seconds: number;
  probes: number;
  probesFailed: number;
  /** ms from the window's start (the RIC applied, in the hostile window) to the first failed probe; null: never. */
  firstProbeFailureMs: number | null;
  reviews: number;
  reviewsFailed: number;
  reviewP50Ms: number;
  reviewP99Ms: number;
  reviewMaxMs: number;
  edits: number;
}

async function measure(host: RestClient, c: Ctrl, ca: Buffer, workers: number, window: Window['window']): Promise<Window> {
  const started = Date.now();
  const until = started + SECONDS * 1000;
  let probes = 0;
  let probesFailed = 0;
  let firstProbeFailureMs: number | null = null;
  const latencies: number[] = [];
  let reviewsFailed = 0;
  let edits = 0;
  const agent = new Agent({ ca, keepAlive: true });
  await Promise.all([
    (async () => {
      while (Date.now() < until) {
        const ok = await fetch(`http://127.0.0.1:${c.port}/healthz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.status === 200, () => false);
        probes++;
        if (!ok) {
          probesFailed++;
          firstProbeFailureMs ??= Date.now() - started;
        }
        await sleep(500);
      }
    })(),
    (async () => {
      while (Date.now() < until) {
        const t0 = performance.now();
        await review(c.webhookPort, agent, `u${latencies.length + reviewsFailed}`).then(() => latencies.push(performance.now() - t0), () => reviewsFailed++);
        await sleep(100);
      }
    })(),
    (async () => {
      while (Date.now() < until) {
        edits++;
        await Promise.all(SPINNERS.map((n) => host.request('PATCH', `/api/v1/namespaces/${NS}/configmaps/${n}`, { body: { data: { n: String(edits) } }, contentType: 'application/merge-patch+json' }).catch(() => undefined)));
        await sleep(300);
      }
    })(),
  ]);
  agent.destroy();
  return {
    workers,
    window,
    seconds: SECONDS,
    probes,
    probesFailed,
    firstProbeFailureMs,
    reviews: latencies.length + reviewsFailed,
    reviewsFailed,
    reviewP50Ms: +percentile(latencies, 50).toFixed(1),
    reviewP99Ms: +percentile(latencies, 99).toFixed(1),
    reviewMaxMs: +Math.max(...latencies).toFixed(1),
    edits,
  };
}

/** The shipped limit of the controller's container (deploy/controller/controller.yaml), MiB. */
const SHIPPED_LIMIT_MIB = 512;

interface MemoryWindow {
  window: 'baseline' | 'hostile' | 'after deletion';
  seconds: number;
  peakMiB: number;
  rssEndMiB: number;
  edits: number;
  load: string;
}

/** Samples the controller's memory every 250 ms for `seconds` while the hostile objects are edited. */
async function sampleMemory(host: RestClient, c: Ctrl, window: MemoryWindow['window'], seconds: number, edit: (n: number) => Promise<void>): Promise<MemoryWindow> {
  const until = Date.now() + seconds * 1000;
  let edits = 0;
  let last = memoryKiB(c.child.pid);
  await Promise.all([
    (async () => {
      while (Date.now() < until) {
        last = memoryKiB(c.child.pid) ?? last;
        await sleep(250);
      }
    })(),
    (async () => {
      while (Date.now() < until) {
        await edit(++edits);
        await sleep(300);
      }
    })(),
  ]);
  if (c.child.exitCode !== null || c.child.signalCode !== null) throw new Error(`the controller died (${c.child.exitCode ?? c.child.signalCode}); see ${c.logFile}`);
  return { window, seconds, peakMiB: Math.round((last?.hwm ?? NaN) / 1024), rssEndMiB: Math.round((last?.rss ?? NaN) / 1024), edits, load: loadAverage().join(' ') };
}

async function outputCases(env: K8sEnv, host: RestClient, member1: RestClient, certFile: string, keyFile: string, workDir: string): Promise<void> {
  const cases = hostileOutputCases(NS);
  const ricNameOf = (id: string) => `hostile-${id}-${NS}`;
  for (const c of cases) {
    await ignoreConflict(host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, { body: hostileOutputPolicy(c, NS) }));
    for (const n of c.names) await ignoreConflict(host.request('POST', c.path, { body: c.objects(n) }));
  }
  const edit = async (n: number) => {
    await Promise.all(cases.flatMap((c) => c.names.map((name) => host.request('PATCH', `${c.path}/${name}`, { body: { metadata: { annotations: { edit: String(n) } } }, contentType: 'application/merge-patch+json' }).catch(() => undefined))));
  };
  const childEnv = flags['glibc-default'] ? process.env : { ...process.env, MALLOC_MMAP_THRESHOLD_: '131072' };
  const windows: MemoryWindow[] = [];
  const conditions: string[] = [];
  try {
    let c = await startController(env, 2, certFile, keyFile, workDir, childEnv);
    try {
      for (const k of cases) for (const n of k.names) await waitFor(`${k.id} ${n} on member1`, async () => ((await getOrUndefined(member1, `${k.path}/${n}`)) ? true : undefined), 60_000);
      log(`output: baseline window (${SECONDS}s)`);
      windows.push(await sampleMemory(host, c, 'baseline', SECONDS, edit));
    } finally {
      await stopController(c);
    }
    // The restart case: every hostile RIC is there before the controller starts.
    for (const k of cases) await ignoreConflict(host.request('POST', RICS, { body: hostileOutputRic(k, ricNameOf(k.id), 'bench') }));
    c = await startController(env, 2, certFile, keyFile, workDir, childEnv);
    try {
      log(`output: hostile window (${SECONDS}s)`);
      windows.push(await sampleMemory(host, c, 'hostile', SECONDS, edit));
      for (const k of cases) {
        const ric = await getOrUndefined(host, `${RICS}/${ricNameOf(k.id)}`);
        const cond = (ric?.status?.conditions ?? []).find((x: any) => x.type === 'ScriptsHealthy');
        conditions.push(`${k.id}: ${cond ? `${cond.status} ${cond.reason} (${String(cond.message).length} chars)` : 'none'}`);
      }
      for (const k of cases) await host.request('DELETE', `${RICS}/${ricNameOf(k.id)}`).catch(() => undefined);
      log('output: the RICs deleted (15s)');
      windows.push(await sampleMemory(host, c, 'after deletion', 15, edit));
    } finally {
      await stopController(c);
    }
  } finally {
    for (const k of cases) await host.request('DELETE', `${RICS}/${ricNameOf(k.id)}`).catch(() => undefined);
  }
  const cols = ['window', 'seconds', 'peakMiB', 'rssEndMiB', 'edits', 'load'] as const;
  process.stdout.write(`shipped limit ${SHIPPED_LIMIT_MIB} MiB; MALLOC_MMAP_THRESHOLD_ ${flags['glibc-default'] ? 'unset' : '131072'}\n${cols.join('\t')}\n`);
  for (const w of windows) process.stdout.write(`${cols.map((k) => String(w[k])).join('\t')}\n`);
  process.stdout.write(`${conditions.join('\n')}\n`);
  if (flags.json) writeFileSync(flags.json, JSON.stringify({ node: process.version, dist: distDir(), logs: workDir, limitMiB: SHIPPED_LIMIT_MIB, windows, conditions }, null, 1));
}

async function main(): Promise<void> {
  const running = envRunning();
  if (flags.reuse && !running) throw new Error(`--reuse: no environment is running in ${envDir()}`);
  if (!running) envStart();
  const want = flags.mjs ? 'karmada-lite.mjs' : 'karmada-lite';
  if (!existsSync(path.join(distDir(), want))) {
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs')], { cwd: repoRoot, stdio: 'inherit', env: { ...process.env, KARMADA_LITE_DIST: distDir() } });
    if (r.status !== 0) throw new Error('node scripts/build.mjs failed');
  }
  const env = readEnv();
  const host = new RestClient(kubeConfigOf(env, 'host'));
  const member1 = new RestClient(kubeConfigOf(env, 'member1'));
  await installCrds(host);
  await registerMembers(env, host);
  const workDir = mkdtempSync(path.join(tmpdir(), 'containment-'));
  const pki = makePki();
  const certFile = path.join(pki.dir, 'tls.crt');
  const keyFile = path.join(pki.dir, 'tls.key');
  pki.issue(certFile, keyFile, 'karmada-lite-webhook');
  await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }));
  await ignoreConflict(
    host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
      body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: 'spin', namespace: NS }, spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', labelSelector: { matchLabels: { spin: 'yes' } } }], placement: { clusterAffinity: { clusterNames: ['member1'] } } } },
    }),
  );
  for (const n of SPINNERS) await ignoreConflict(host.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n, namespace: NS, labels: { spin: 'yes' } }, data: { n: '0' } } }));
  if (flags.output) {
    try {
      await outputCases(env, host, member1, certFile, keyFile, workDir);
    } finally {
      await host.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
      if (!running) envStop();
    }
    process.exit(0);
  }
  const results: Window[] = [];
  try {
    for (const workers of WORKERS) {
      const c = await startController(env, workers, certFile, keyFile, workDir);
      try {
        for (const n of SPINNERS) await waitFor(`ConfigMap ${n} on member1`, async () => ((await getOrUndefined(member1, `/api/v1/namespaces/${NS}/configmaps/${n}`)) ? true : undefined), 60_000);
        log(`workers=${workers}: baseline window (${SECONDS}s)`);
        results.push(await measure(host, c, pki.ca, workers, 'baseline'));
        await host.request('POST', RICS, { body: hostileRic(RIC_NAME) });
        log(`workers=${workers}: hostile window (${SECONDS}s)`);
        results.push(await measure(host, c, pki.ca, workers, 'hostile'));
        const ric = await getOrUndefined(host, `${RICS}/${RIC_NAME}`);
        const cond = (ric?.status?.conditions ?? []).find((x: any) => x.type === 'ScriptsHealthy');
        log(`workers=${workers}: RIC condition ${cond ? `${cond.status} ${cond.reason}` : 'none'}`);
      } finally {
        await host.request('DELETE', `${RICS}/${RIC_NAME}`).catch(() => undefined);
        await stopController(c);
      }
    }
  } finally {
    await host.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
    if (!running) envStop();
  }
  const cols = ['workers', 'window', 'probes', 'probesFailed', 'firstProbeFailureMs', 'reviews', 'reviewsFailed', 'reviewP50Ms', 'reviewP99Ms', 'reviewMaxMs', 'edits'] as const;
  process.stdout.write(`${cols.join('\t')}\n`);
  for (const r of results) process.stdout.write(`${cols.map((k) => (k === 'firstProbeFailureMs' && r[k] === null ? 'never' : String(r[k]))).join('\t')}\n`);
  if (flags.json) writeFileSync(flags.json, JSON.stringify({ node: process.version, dist: distDir(), logs: workDir, results }, null, 1));
  process.exit(0);
}

await main();
