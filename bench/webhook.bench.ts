// Webhook benchmark: in-process review throughput, then the real HTTPS server (`karmada-lite webhook`, pinned
// to one core) under a separate load-generator process (pinned to the other core).
//
//   npx tsx bench/webhook.bench.ts                  # everything, ~1 minute
//   npx tsx bench/webhook.bench.ts --in-process     # only the in-process part
//   SECONDS_PER_RUN=10 npx tsx bench/webhook.bench.ts
//   npx tsx bench/webhook.bench.ts --latency-only   # only the fixed-rate runs (RATE_RUNS=3 repeats them)
//   npx tsx bench/webhook.bench.ts --binary dist/karmada-lite.mjs   # the server as built (.mjs or the executable)
//   npx tsx bench/webhook.bench.ts --https-only --binary dist/karmada-lite --karmada-webhook BIN
//   npx tsx bench/webhook.bench.ts --https-only --binary dist/karmada-lite --karmada-src DIR
//       # karmada-webhook beside it: the same certificate, the same bodies at Karmada's paths, the same
//       # generator and cores, one after the other; --karmada-src builds cmd/webhook into a temporary folder
//
// The server's peak memory (VmHWM, the largest resident set it had) is printed after the HTTPS runs, beside
// its resident set once started and idle: the figure #22 holds under 100 MB. By default the server runs from
// the sources through tsx, whose compiler adds to it; --binary measures what ships.
//
// Throughput over HTTPS uses wrk when it is installed (`apt-get install -y wrk`) and the Node load
// generator (bench/webhook-load.ts). The fixed-rate latency run uses the Node generator (open loop, from due
// and from send time); wrk, which has no fixed-rate mode, cross-checks it with each connection pacing itself
// (a closed loop with a pause, latency from send time). Beside every fixed-rate run the server's own view is
// printed from its /metrics: the time inside the server per review, its garbage-collection pauses and its
// event-loop delay, so that a tail can be placed in the server, in the generator, or in neither (waiting
// for a core). Results are printed as a table and as one JSON line at the end.
//
// karmada-webhook needs a kubeconfig to start (controller-runtime builds its clients), but the paths measured
// here (PropagationPolicy validation and defaulting) never call the API server: it gets one naming an address
// where nothing listens. Its metrics and health listeners are turned off (`0`), so both servers have one port.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'node:https';
import { review } from '../src/webhook/review.js';
import { validate, mutate } from '../src/validation/rules.js';
import { makePki } from '../test/webhook/certs.js';

const root = join(import.meta.dirname, '..');
const secondsPerRun = Number(process.env.SECONDS_PER_RUN ?? 5);
const inProcessOnly = process.argv.includes('--in-process');
const latencyOnly = process.argv.includes('--latency-only');
const rateRuns = Number(process.env.RATE_RUNS ?? 1);
const binaryAt = process.argv.indexOf('--binary');
const binary = binaryAt < 0 ? undefined : process.argv[binaryAt + 1];
if (binaryAt >= 0 && (!binary || !existsSync(binary))) {
  console.error(`--binary needs the path of a built karmada-lite (dist/karmada-lite.mjs or dist/karmada-lite), got ${binary ?? 'nothing'}: run \`npm run build\` first`);
  process.exit(2);
}
const httpsOnly = process.argv.includes('--https-only');
const flagValue = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const karmadaBinFlag = flagValue('--karmada-webhook');
const karmadaSrc = flagValue('--karmada-src');
if (process.argv.includes('--karmada-webhook') && (!karmadaBinFlag || !existsSync(karmadaBinFlag))) {
  console.error(`--karmada-webhook needs the path of a built karmada-webhook, got ${karmadaBinFlag ?? 'nothing'}`);
  process.exit(2);
}
if (process.argv.includes('--karmada-src') && (!karmadaSrc || !existsSync(join(karmadaSrc, 'cmd/webhook')))) {
  console.error(`--karmada-src needs a Karmada source tree (with cmd/webhook and vendor/), got ${karmadaSrc ?? 'nothing'}`);
  process.exit(2);
}

/** The temporary folder of a karmada-webhook this run built: removed at the end (about 90 MB). */
let builtDir: string | undefined;

/** karmada-webhook from --karmada-webhook, or built from --karmada-src into a temporary folder (never the tree itself). */
function karmadaWebhook(): string | undefined {
  if (karmadaBinFlag) return resolve(karmadaBinFlag);
  if (!karmadaSrc) return undefined;
  builtDir = mkdtempSync(join(tmpdir(), 'karmada-webhook-bin-'));
  const out = join(builtDir, 'karmada-webhook');
  console.log(`building karmada-webhook from ${karmadaSrc} into ${out} (go build -mod=vendor ./cmd/webhook; minutes on a small machine)`);
  const built = spawnSync('go', ['build', '-mod=vendor', '-o', out, './cmd/webhook'], { cwd: resolve(karmadaSrc), stdio: 'inherit' });
  if (built.status !== 0) {
    console.error(`go build of ${karmadaSrc}/cmd/webhook failed (exit ${built.status}); pass --karmada-webhook BIN instead`);
    process.exit(2);
  }
  return out;
}

/** How the server is started: the sources through tsx, or a build (an ES module runs under this Node). */
const serverCommand = (args: string[]): [string, string[]] => {
  if (!binary) return [process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), ...args]];
  return binary.endsWith('.mjs') ? [process.execPath, [resolve(binary), ...args]] : [resolve(binary), args];
};
/**
 * The server and each generator run pinned to their core and in a session of their own. Linux groups
 * processes by session for CPU fairness (sched_autogroup), so on a machine shared with other people's
 * sessions, processes left in this script's session would share one session's fair share between them:
 * at 1,000 reviews/s the server and the generator need about half a core together, more than one session
 * gets on two cores shared with four or more busy sessions, and every figure would then measure the share.
 *
 * A diagnostic, not a figure to quote (needs root): WEBHOOK_BENCH_NICE=-10 raises those sessions' weight
 * (/proc/<pid>/autogroup). If the tail shrinks under the same load, it was waiting for a core, not the code.
 * (Real-time priority is not offered: a process pinned to one core at SCHED_FIFO starves everything else
 * queued on that core, including its own next exec, and a shared machine cannot afford that.)
 */
const nice = process.env.WEBHOOK_BENCH_NICE;
const pinned = (core: number, command: string, args: string[]): [string, string[]] => [
  'setsid',
  [
    'sh',
    '-c',
    nice ? 'echo "$0" > /proc/$$/autogroup && exec "$@"' : 'exec "$@"',
    nice ?? '',
    'taskset',
    '-c',
    String(core),
    command,
    ...args,
  ],
];

/** A policy as users write them: several selectors, affinity groups with overflow, spread, division, failover. */
const policy = {
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'nginx-propagation', namespace: 'default', labels: { app: 'nginx', 'propagationpolicy.karmada.io/permanent-id': '4b7f9e0c-3d2a-4c55-9a61-2f0e7b1c8d3e' }, finalizers: ['karmada.io/propagation-policy-controller'] },
  spec: {
    propagateDeps: true,
    priority: 10,
    preemption: 'Never',
    conflictResolution: 'Abort',
    schedulerName: 'default-scheduler',
    resourceSelectors: [
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' },
      { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: 'default', name: 'mysql' },
      { apiVersion: 'v1', kind: 'Service', namespace: 'default', labelSelector: { matchLabels: { app: 'nginx' } } },
    ],
    placement: {
      clusterAffinities: [
        {
          affinityName: 'primary',
          clusterNames: ['member1', 'member2'],
          fieldSelector: { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu-west-1', 'eu-central-1'] }] },
          overflowAffinities: [{ affinityName: 'burst', labelSelector: { matchLabels: { tier: 'burst' } } }],
        },
        { affinityName: 'backup', clusterNames: ['member3'] },
      ],
      clusterTolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
      spreadConstraints: [
        { spreadByField: 'region', minGroups: 1, maxGroups: 2 },
        { spreadByField: 'cluster', minGroups: 2, maxGroups: 4 },
      ],
      replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted', weightPreference: { dynamicWeight: 'AvailableReplicas' } },
    },
    failover: {
      application: {
        decisionConditions: { tolerationSeconds: 120 },
        purgeMode: 'Gracefully',
        gracePeriodSeconds: 600,
        statePreservation: { rules: [{ aliasLabelName: 'example.com/replicas', jsonPath: '{.replicas}' }] },
      },
    },
    suspension: { dispatchingOnClusters: { clusterNames: ['member3'] } },
  },
};

const reviewBody = (path: 'validate' | 'mutate') =>
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      kind: { group: 'policy.karmada.io', version: 'v1alpha1', kind: 'PropagationPolicy' },
      resource: { group: 'policy.karmada.io', version: 'v1alpha1', resource: 'propagationpolicies' },
      name: 'nginx-propagation',
      namespace: 'default',
      operation: path === 'validate' ? 'UPDATE' : 'CREATE',
      userInfo: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
      object: policy,
      oldObject: path === 'validate' ? policy : null,
      dryRun: false,
    },
  });

/** Wall-clock rate, and the rate per CPU-second of this process (what the code costs, whatever else runs). */
async function perSecond(what: string, fn: () => unknown | Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  for (let i = 0; i < 3000; i++) await fn();
  const deadline = performance.now() + secondsPerRun * 1000;
  let n = 0;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  while (performance.now() < deadline) {
    for (let i = 0; i < 200; i++) await fn();
    n += 200;
  }
  const used = process.cpuUsage(cpuStart);
  const wall = Math.round(n / ((performance.now() - start) / 1000));
  const cpu = Math.round(n / ((used.user + used.system) / 1e6));
  console.log(`  ${what.padEnd(58)} ${wall.toLocaleString('en-US').padStart(9)} /s  ${cpu.toLocaleString('en-US').padStart(9)} per CPU-second`);
  return { wall, cpu };
}

async function inProcess(): Promise<Record<string, { wall: number; cpu: number }>> {
  console.log(`in process (${secondsPerRun} s each; body ${reviewBody('validate').length} bytes):`);
  const vBody = reviewBody('validate');
  const mBody = reviewBody('mutate');
  const req = { operation: 'UPDATE', namespace: 'default', object: policy, oldObject: policy };
  return {
    rulesOnly: await perSecond('PropagationPolicy rules only (validate())', () => validate('PropagationPolicy', req)),
    validateReview: await perSecond('validating review: JSON in, decode, rules, JSON out', () => review({ path: '/validate-propagationpolicy', contentType: 'application/json', body: vBody })),
    mutateReview: await perSecond('mutating review: JSON in, defaults, JSON patch out', () => review({ path: '/mutate-propagationpolicy', contentType: 'application/json', body: mBody })),
    mutateOnly: await perSecond('PropagationPolicy defaulting only (mutate())', () => mutate('PropagationPolicy', { operation: 'CREATE', namespace: 'default', object: policy })),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function get(url: string, ca: Buffer): Promise<number> {
  return fetchText(url, ca).then((r) => r.status);
}

function fetchText(url: string, ca: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const r = request(url, { ca }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    r.on('error', () => resolve({ status: 0, text: '' }));
    r.end();
  });
}

interface ServerView {
  /** Cumulative count of reviews at or below each bucket bound (seconds). */
  buckets: [number, number][];
  gcSeconds: number;
  gcCount: number;
  eventLoopLagP99Ms: number;
  eventLoopLagMaxMs: number;
}

/** The server's own figures from its /metrics (the event-loop delay figures cover the time since the last scrape). */
async function serverView(base: string, ca: Buffer): Promise<ServerView> {
  const { text } = await fetchText(`${base}/metrics`, ca);
  const buckets: [number, number][] = [];
  let gcSeconds = 0;
  let gcCount = 0;
  for (const m of text.matchAll(/^karmada_lite_webhook_request_duration_seconds_bucket\{le="([^"]+)"\} (\S+)$/gm)) buckets.push([m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2])]);
  for (const m of text.matchAll(/^nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)$/gm)) gcSeconds += Number(m[1]);
  for (const m of text.matchAll(/^nodejs_gc_duration_seconds_count\{[^}]*\} (\S+)$/gm)) gcCount += Number(m[1]);
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { buckets, gcSeconds, gcCount, eventLoopLagP99Ms: gauge('nodejs_eventloop_lag_p99_seconds'), eventLoopLagMaxMs: gauge('nodejs_eventloop_lag_max_seconds') };
}

/** Server-side percentiles of the reviews between two scrapes, as the upper bound of their histogram bucket. */
function serverLatency(before: ServerView, after: ServerView) {
  const counts = after.buckets.map(([le, c], i) => [le, c - (before.buckets[i]?.[1] ?? 0)] as [number, number]);
  const total = counts[counts.length - 1]?.[1] ?? 0;
  const atMost = (p: number) => {
    const found = counts.find(([, c]) => c >= (p / 100) * total);
    return found ? (found[0] === Infinity ? 'inf' : `≤ ${+(found[0] * 1000).toFixed(2)}`) : 'n/a';
  };
  const within5ms = counts.find(([le]) => Math.abs(le - 0.005) < 1e-9)?.[1] ?? NaN;
  return {
    reviews: total,
    p50Ms: atMost(50),
    p90Ms: atMost(90),
    p99Ms: atMost(99),
    p999Ms: atMost(99.9),
    shareWithin5ms: total ? Math.round((within5ms / total) * 10000) / 100 : NaN,
    gcPauses: after.gcCount - before.gcCount,
    gcMs: Math.round((after.gcSeconds - before.gcSeconds) * 1e4) / 10,
    eventLoopLagP99Ms: Math.round(after.eventLoopLagP99Ms * 10) / 10,
    eventLoopLagMaxMs: Math.round(after.eventLoopLagMaxMs * 10) / 10,
  };
}

/**
 * CPU seconds a process has used (user + system), from /proc. Wall-clock figures on a shared machine
 * include time spent waiting for a core; CPU time per review does not, so it is reported beside them.
 */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The server's main (JavaScript) thread, from /proc/<pid>/schedstat: time run, time spent runnable but
 * waiting for a core (the scheduler's run-queue delay), and the number of times it was put on a core.
 * With allThreads, the sum over every thread (karmada-webhook's reviews run on goroutines, not its main thread).
 */
function schedstat(pid: number, allThreads = false): { runMs: number; waitMs: number; slices: number } {
  const files = allThreads ? readdirSync(`/proc/${pid}/task`).map((t) => `/proc/${pid}/task/${t}/schedstat`) : [`/proc/${pid}/schedstat`];
  const sum = { runMs: 0, waitMs: 0, slices: 0 };
  for (const f of files) {
    try {
      const [run, wait, slices] = readFileSync(f, 'utf8').trim().split(' ').map(Number);
      sum.runMs += run! / 1e6;
      sum.waitMs += wait! / 1e6;
      sum.slices += slices!;
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return sum;
}

/** The resident set now and at its peak (VmRSS, VmHWM), and now its anonymous and file-backed parts, in MB. */
function memory(pid: number): { rssMB: number; peakMB: number; anonMB: number; fileMB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN);
  const mb = (field: string) => Math.round(kb(field) / 1024);
  return { rssMB: mb('VmRSS'), peakMB: mb('VmHWM'), anonMB: mb('RssAnon'), fileMB: mb('RssFile') };
}

/**
 * The largest anonymous and file-backed resident sets seen, sampled every 0.2 s: VmHWM is their sum at
 * the worst moment, but where it goes (the heap, or the pages of the executable the kernel has mapped,
 * which depend on the page cache: a freshly written binary is mapped in larger pieces) needs the parts.
 */
function sampleMemory(pid: number): () => { anonMB: number; fileMB: number } {
  let anonMB = 0;
  let fileMB = 0;
  const sample = () => {
    try {
      const m = memory(pid);
      anonMB = Math.max(anonMB, m.anonMB);
      fileMB = Math.max(fileMB, m.fileMB);
    } catch {
      // the process has gone
    }
  };
  sample();
  const timer = setInterval(sample, 200);
  return () => {
    clearInterval(timer);
    sample();
    return { anonMB, fileMB };
  };
}

/** Load average and CPU pressure ("some": share of time at least one runnable task waited for a core). */
function loadAverage(): string {
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  let pressure = '';
  try {
    const some = /^some avg10=(\S+) avg60=(\S+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'));
    if (some) pressure = `, cpu pressure some avg10 ${some[1]}% avg60 ${some[2]}%`;
  } catch {
    // no PSI on this kernel
  }
  return load + pressure;
}

/** Children in sessions of their own get no signal from the terminal: the bench stops them when it is stopped. */
const children = new Set<ChildProcess>();
const stopChildren = () => {
  for (const c of children) c.kill('SIGKILL');
  process.exit(130);
};
process.once('SIGINT', stopChildren).once('SIGTERM', stopChildren).once('SIGHUP', stopChildren);

/** Runs a pinned child to completion without blocking the event loop (so that a signal can stop it). */
function run([command, args]: [string, string[]]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (status) => {
      children.delete(child);
      resolve({ status, stdout, stderr });
    });
  });
}

async function runJson(args: string[]): Promise<Record<string, any>> {
  const r = await run(pinned(1, process.execPath, ['--expose-gc', '--import', 'tsx', join(root, 'bench/webhook-load.ts'), ...args]));
  if (r.status !== 0) throw new Error(`load generator failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, any>;
}

async function wrkThroughput(url: string, bodyFile: string, dir: string, connections: number): Promise<number | undefined> {
  if (spawnSync('wrk', ['--version']).error) return undefined;
  const script = join(dir, 'post.lua');
  writeFileSync(script, `local f = io.open("${bodyFile}", "rb")\nwrk.method = "POST"\nwrk.body = f:read("*a")\nf:close()\nwrk.headers["Content-Type"] = "application/json"\n`);
  const r = await run(pinned(1, 'wrk', ['-t1', `-c${connections}`, `-d${secondsPerRun}s`, '-s', script, url]));
  const m = /Requests\/sec:\s+([\d.]+)/.exec(r.stdout);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(r.stdout);
  if (non2xx) throw new Error(`wrk saw ${non2xx[1]} failed responses:\n${r.stdout}`);
  return m ? Math.round(Number(m[1])) : undefined;
}

/**
 * wrk cannot hold a fixed rate, but each connection can pause 10 ms after every answer: 10 connections then
 * send about 1,000 reviews/s, each measured by wrk (in C, from send time). A cross-check of the Node
 * generator's from-send figures with a client that has no garbage collector and no JavaScript event loop.
 */
async function wrkPaced(url: string, bodyFile: string, dir: string): Promise<Record<string, number> | undefined> {
  if (spawnSync('wrk', ['--version']).error) return undefined;
  const script = join(dir, 'paced.lua');
  writeFileSync(script, `local f = io.open("${bodyFile}", "rb")\nwrk.method = "POST"\nwrk.body = f:read("*a")\nf:close()\nwrk.headers["Content-Type"] = "application/json"\nfunction delay() return 10 end\n`);
  const secs = Math.max(secondsPerRun, 10);
  const r = await run(pinned(1, 'wrk', ['-t1', '-c10', `-d${secs}s`, '--latency', '-s', script, url]));
  const ms = (label: string) => {
    const m = new RegExp(`^\\s+${label}%\\s+([\\d.]+)(us|ms|s)$`, 'm').exec(r.stdout);
    if (!m) return NaN;
    return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
  };
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(r.stdout);
  const max = /Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)/.exec(r.stdout);
  return {
    perSecond: rate ? Math.round(Number(rate[1])) : NaN,
    p50: ms('50'),
    p90: ms('90'),
    p99: ms('99'),
    max: max ? Number(max[1]) * (max[2] === 'us' ? 0.001 : max[2] === 's' ? 1000 : 1) : NaN,
  };
}

/** A server under test: karmada-lite's webhook, or karmada-webhook beside it. */
interface Side {
  name: string;
  /** The command line that starts it on this port with this certificate (tls.crt / tls.key in certDir). */
  command: (port: number, certDir: string) => [string, string[]];
  /** A GET that answers 200 once it serves. */
  readyPath: string;
  /** Whether it has karmada-lite's /metrics on the same port (the server's own view of each run). */
  ownMetrics: boolean;
  /** The executable file itself, when the server is one (not Node running a script): its page cache is dropped first. */
  executable?: string;
}

const liteSide: Side = {
  name: binary ?? 'karmada-lite from the sources through tsx',
  // The server logs every review at info level, as in production; the log goes to a file.
  command: (port, certDir) => serverCommand(['webhook', '--cert-file', join(certDir, 'tls.crt'), '--key-file', join(certDir, 'tls.key'), '--port', String(port), '--bind-address', '127.0.0.1', '--log-level', process.env.WEBHOOK_LOG_LEVEL ?? 'info']),
  readyPath: '/healthz',
  ownMetrics: true,
  executable: binary && !binary.endsWith('.mjs') ? resolve(binary) : undefined,
};

function karmadaSide(bin: string, kubeconfig: string): Side {
  return {
    name: `karmada-webhook (${bin})`,
    // klog at its default verbosity, as deployed; its log goes to a file like karmada-lite's.
    command: (port, certDir) => [bin, ['--kubeconfig', kubeconfig, '--bind-address', '127.0.0.1', '--secure-port', String(port), '--cert-dir', certDir, '--metrics-bind-address', '0', '--health-probe-bind-address', '0']],
    readyPath: '/readyz/',
    ownMetrics: false,
    executable: bin,
  };
}

interface Shared {
  dir: string;
  pki: ReturnType<typeof makePki>;
  bodies: { validate: string; mutate: string };
}

/**
 * Drops an executable's pages from the page cache (GNU dd's nocache: posix_fadvise DONTNEED) before it is
 * started, so that the kernel maps it as it maps a binary read from disk. A file the build has just written
 * sits in the page cache in large pieces, and the kernel then maps more of it into the process: the standalone
 * executable's file-backed resident set was 55-59 MB fresh against 40-44 MB read back (2026-12-07), and
 * karmada-webhook's 49-50 against 40-42. Node's own binary (for the .mjs) is shared with every Node process
 * on the machine and is left alone. Returns whether it worked (dd may lack nocache).
 */
function dropPageCache(file: string): boolean {
  return spawnSync('dd', ['if=/dev/null', `of=${file}`, 'oflag=nocache', 'conv=notrunc,fdatasync', 'count=0'], { stdio: 'ignore' }).status === 0;
}

async function overHttps(side: Side, shared: Shared): Promise<Record<string, any>> {
  const { dir, pki, bodies } = shared;
  const dropped = side.executable ? dropPageCache(side.executable) : false;
  const bodyFile = bodies.validate;
  const port = await freePort();
  const log = openSync(join(dir, `server-${port}.log`), 'w');
  const server: ChildProcess = spawn(...pinned(0, ...side.command(port, dir)), { cwd: root, stdio: ['ignore', 'ignore', log] });
  children.add(server);
  try {
    const base = `https://127.0.0.1:${port}`;
    for (let i = 0; i < 300 && (await get(`${base}${side.readyPath}`, pki.ca)) !== 200; i++) {
      if (server.exitCode !== null) throw new Error(`${side.name} exited with ${server.exitCode} before it served: see ${join(dir, `server-${port}.log`)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const url = `${base}/validate-propagationpolicy`;
    console.log(`\nover HTTPS on loopback (server ${side.name} pinned to core 0, load generator to core 1, ${secondsPerRun} s each${nice ? `, sessions at autogroup nice ${nice}` : ''}):`);
    console.log(`  load average before: ${loadAverage()} (other work on the machine inflates wall-clock figures)`);
    if (side.executable) console.log(`  ${dropped ? 'its page cache dropped before it started (mapped as if read from disk)' : 'its page cache could not be dropped (dd without nocache): a freshly written binary maps more file-backed memory'}`);
    const pid = server.pid!;
    const idle = memory(pid);
    const sampled = sampleMemory(pid);
    const out: Record<string, any> = { server: side.name, pageCacheDropped: dropped, idleRssMB: idle.rssMB, idleAnonMB: idle.anonMB, idleFileMB: idle.fileMB };
    let cpu = cpuSeconds(pid);
    if (!latencyOnly) {
      const wrk = await wrkThroughput(url, bodyFile, dir, 16);
      if (wrk !== undefined) {
        const wrkCpuUs = Math.round(((cpuSeconds(pid) - cpu) / (wrk * secondsPerRun)) * 1e6);
        console.log(`  ${'throughput, wrk -c16 (keep-alive)'.padEnd(58)} ${wrk.toLocaleString('en-US').padStart(9)} /s  (server CPU ${wrkCpuUs} µs/review)`);
        Object.assign(out, { wrkPerSecond: wrk, wrkServerCpuUsPerReview: wrkCpuUs });
      }
      for (const [what, path, file] of [
        ['validate', '/validate-propagationpolicy', bodies.validate],
        ['mutate', '/mutate-propagationpolicy', bodies.mutate],
      ] as const) {
        cpu = cpuSeconds(pid);
        const node = await runJson(['closed', `${base}${path}`, pki.caFile, file, '16', String(secondsPerRun)]);
        const nodeCpuUs = Math.round(((cpuSeconds(pid) - cpu) / node.requests) * 1e6);
        console.log(`  ${`throughput, Node generator, 16 connections, ${path}`.padEnd(58)} ${Number(node.perSecond).toLocaleString('en-US').padStart(9)} /s  (server CPU ${nodeCpuUs} µs/review, ${node.errors} errors)`);
        if (what === 'validate') Object.assign(out, { nodePerSecond: node.perSecond, nodeServerCpuUsPerReview: nodeCpuUs, nodeErrors: node.errors });
        else Object.assign(out, { mutatePerSecond: node.perSecond, mutateServerCpuUsPerReview: nodeCpuUs, mutateErrors: node.errors });
      }
    }
    const fixedRuns: Record<string, any>[] = [];
    for (let run = 0; run < rateRuns; run++) {
      const loadBefore = loadAverage();
      const viewBefore = side.ownMetrics ? await serverView(base, pki.ca) : undefined;
      cpu = cpuSeconds(pid);
      const schedBefore = schedstat(pid, !side.ownMetrics);
      const fixed = await runJson(['rate', url, pki.caFile, bodyFile, '1000', String(Math.max(secondsPerRun, 10)), '16']);
      const fixedCpu = cpuSeconds(pid) - cpu;
      const schedAfter = schedstat(pid, !side.ownMetrics);
      const waited = { waitMs: Math.round(schedAfter.waitMs - schedBefore.waitMs), slices: schedAfter.slices - schedBefore.slices };
      const inServer = viewBefore ? serverLatency(viewBefore, await serverView(base, pki.ca)) : undefined;
      const loadAfter = loadAverage();
      const d = fixed.latencyMsFromDue;
      const s = fixed.latencyMsFromSend;
      const g = fixed.generator;
      console.log(`  fixed 1,000/s for ${fixed.seconds} s (load before: ${loadBefore}; after: ${loadAfter})`);
      console.log(`    ${fixed.requests} reviews, ${fixed.errors} errors, achieved ${fixed.achievedPerSecond}/s, server busy ${Math.round((fixedCpu / fixed.seconds) * 100)}% of a core, ${fixed.reconnects} reconnects, backlog max ${fixed.maxBacklog}`);
      console.log(`    client, from due time:  p50 ${d.p50} ms  p90 ${d.p90} ms  p99 ${d.p99} ms  p99.9 ${d.p999} ms  max ${d.max} ms`);
      console.log(`    client, from send time: p50 ${s.p50} ms  p90 ${s.p90} ms  p99 ${s.p99} ms  p99.9 ${s.p999} ms  max ${s.max} ms`);
      if (inServer) {
        console.log(`    inside the server:      p50 ${inServer.p50Ms} ms  p90 ${inServer.p90Ms} ms  p99 ${inServer.p99Ms} ms  p99.9 ${inServer.p999Ms} ms  (${inServer.shareWithin5ms}% within 5 ms)`);
        console.log(`    server stalls: ${inServer.gcPauses} GC pauses, ${inServer.gcMs} ms in all; event-loop delay p99 ${inServer.eventLoopLagP99Ms} ms, max ${inServer.eventLoopLagMaxMs} ms`);
      }
      console.log(`    server ${side.ownMetrics ? 'thread' : 'threads (all)'} waited for a core ${waited.waitMs} ms in all over ${waited.slices} times on a core (${(waited.waitMs / Math.max(1, waited.slices)).toFixed(2)} ms each on average)`);
      console.log(`    generator stalls: ${g.gc.count} GC pauses, ${g.gc.totalMs} ms in all (max ${g.gc.maxMs}); event-loop delay p99 ${g.eventLoopDelayMs.p99} ms, max ${g.eventLoopDelayMs.max} ms; waited for a core ${g.waitedForCoreMs} ms; pacer woke >1.5 ms late ${fixed.pacer.wakesLaterThan1_5ms} times (max ${fixed.pacer.maxWakeLateMs} ms)`);
      fixedRuns.push({ ...fixed, serverCoreShare: fixedCpu / fixed.seconds, inServer, serverWaitedForCore: waited, loadBefore, loadAfter });
    }
    out.fixedRate = fixedRuns;
    const paced = await wrkPaced(url, bodyFile, dir);
    if (paced) {
      console.log(`  wrk, 10 connections each pausing 10 ms (${paced.perSecond}/s), from send time: p50 ${paced.p50} ms  p90 ${paced.p90} ms  p99 ${paced.p99} ms  max ${paced.max} ms`);
      out.wrkPaced = paced;
    }
    const peak = memory(pid);
    const parts = sampled();
    console.log(`  server memory: peak RSS (VmHWM) ${peak.peakMB} MB under the runs above (largest anonymous ${parts.anonMB} MB, file-backed ${parts.fileMB} MB, sampled every 0.2 s); started and idle ${idle.rssMB} MB (anonymous ${idle.anonMB}, file-backed ${idle.fileMB}), ${peak.rssMB} MB at the end`);
    Object.assign(out, { peakRssMB: peak.peakMB, peakAnonMB: parts.anonMB, peakFileMB: parts.fileMB, endRssMB: peak.rssMB });
    console.log(`  load average after: ${loadAverage()}`);
    return out;
  } finally {
    server.kill('SIGTERM');
    closeSync(log);
  }
}

/** The two servers' figures side by side, with karmada-lite's as a multiple of karmada-webhook's. */
function compare(lite: Record<string, any>, karmada: Record<string, any>): Record<string, unknown> {
  const p99 = (r: Record<string, any>) => Math.max(...(r.fixedRate as Array<{ latencyMsFromSend: { p99: number } }>).map((f) => f.latencyMsFromSend.p99));
  const rows: Array<[string, number, number, string]> = [
    ['peak RSS (VmHWM), MB', lite.peakRssMB, karmada.peakRssMB, 'lower is better'],
    ['  largest anonymous, MB', lite.peakAnonMB, karmada.peakAnonMB, ''],
    ['  largest file-backed, MB', lite.peakFileMB, karmada.peakFileMB, ''],
    ['idle RSS, MB', lite.idleRssMB, karmada.idleRssMB, ''],
    ...(latencyOnly
      ? []
      : ([
          ['reviews/s, /validate-propagationpolicy', lite.nodePerSecond, karmada.nodePerSecond, 'higher is better'],
          ['reviews/s, /mutate-propagationpolicy', lite.mutatePerSecond, karmada.mutatePerSecond, 'higher is better'],
          ['server CPU per validating review, µs', lite.nodeServerCpuUsPerReview, karmada.nodeServerCpuUsPerReview, 'lower is better'],
        ] as Array<[string, number, number, string]>)),
    ['p99 at 1,000/s from send time, ms (worst run)', p99(lite), p99(karmada), 'lower is better'],
  ];
  console.log(`\nside by side (karmada-lite / karmada-webhook):`);
  console.log(`  ${'what'.padEnd(48)} ${'karmada-lite'.padStart(13)} ${'karmada-webhook'.padStart(16)} ${'ratio'.padStart(7)}`);
  const out: Record<string, unknown> = {};
  for (const [what, a, b, note] of rows) {
    const ratio = Math.round((a / b) * 100) / 100;
    console.log(`  ${what.padEnd(48)} ${String(a).padStart(13)} ${String(b).padStart(16)} ${`${ratio}×`.padStart(7)}  ${note}`);
    out[what.trim()] = { karmadaLite: a, karmadaWebhook: b, ratio };
  }
  return out;
}

const karmadaBin = inProcessOnly ? undefined : karmadaWebhook();
const results: Record<string, unknown> = { secondsPerRun, node: process.version, ...(latencyOnly || httpsOnly ? {} : { inProcess: await inProcess() }) };
if (!inProcessOnly) {
  const dir = mkdtempSync(join(tmpdir(), 'karmada-lite-bench-'));
  const pki = makePki(dir);
  // One certificate for both servers, as tls.crt / tls.key in one folder: karmada-webhook's --cert-dir names.
  pki.issue(join(dir, 'tls.crt'), join(dir, 'tls.key'), 'bench');
  const bodies = { validate: join(dir, 'review.json'), mutate: join(dir, 'mutate.json') };
  writeFileSync(bodies.validate, reviewBody('validate'));
  writeFileSync(bodies.mutate, reviewBody('mutate'));
  const shared = { dir, pki, bodies };
  const lite = await overHttps(liteSide, shared);
  results.https = lite;
  if (karmadaBin) {
    const kubeconfig = join(dir, 'kubeconfig');
    // Nothing listens at port 1: the measured paths never call the API server, and nothing else is started that would.
    writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters:\n- name: none\n  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}\ncontexts:\n- name: none\n  context: {cluster: none, user: none}\ncurrent-context: none\nusers:\n- name: none\n  user: {token: none}\n');
    const karmada = await overHttps(karmadaSide(karmadaBin, kubeconfig), shared);
    results.karmadaWebhook = karmada;
    results.sideBySide = compare(lite, karmada);
  }
}
if (builtDir) rmSync(builtDir, { recursive: true, force: true });
console.log('\n' + JSON.stringify(results));
