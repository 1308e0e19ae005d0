// Webhook benchmark: in-process review throughput, then the real HTTPS server (`karmada-lite webhook`, pinned
// to one core) under a separate load-generator process (pinned to the other core).
//
//   npx tsx bench/webhook.bench.ts                  # everything, ~1 minute
//   npx tsx bench/webhook.bench.ts --in-process     # only the in-process part
//   SECONDS_PER_RUN=10 npx tsx bench/webhook.bench.ts
//
// Throughput over HTTPS uses wrk when it is installed (`apt-get install -y wrk`), and the Node load
// generator (bench/webhook-load.ts) otherwise; the fixed-rate latency run always uses the Node generator,
// since wrk has no fixed-rate mode. Results are printed as a table and as one JSON line at the end.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import { review } from '../src/webhook/review.js';
import { validate, mutate } from '../src/validation/rules.js';
import { makePki } from '../test/webhook/certs.js';

const root = join(import.meta.dirname, '..');
const secondsPerRun = Number(process.env.SECONDS_PER_RUN ?? 5);
const inProcessOnly = process.argv.includes('--in-process');

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
  return new Promise((resolve) => {
    const r = request(url, { ca }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    r.on('error', () => resolve(0));
    r.end();
  });
}

/**
 * CPU seconds a process has used (user + system), from /proc. Wall-clock figures on a shared machine
 * include time spent waiting for a core; CPU time per review does not, so it is reported beside them.
 */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

function runJson(args: string[]): Record<string, any> {
  const r = spawnSync('taskset', ['-c', '1', process.execPath, '--import', 'tsx', join(root, 'bench/webhook-load.ts'), ...args], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`load generator failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, any>;
}

function wrkThroughput(url: string, bodyFile: string, dir: string, connections: number): number | undefined {
  if (spawnSync('wrk', ['--version']).error) return undefined;
  const script = join(dir, 'post.lua');
  writeFileSync(script, `local f = io.open("${bodyFile}", "rb")\nwrk.method = "POST"\nwrk.body = f:read("*a")\nf:close()\nwrk.headers["Content-Type"] = "application/json"\n`);
  const r = spawnSync('taskset', ['-c', '1', 'wrk', '-t1', `-c${connections}`, `-d${secondsPerRun}s`, '-s', script, url], { encoding: 'utf8' });
  const m = /Requests\/sec:\s+([\d.]+)/.exec(r.stdout);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(r.stdout);
  if (non2xx) throw new Error(`wrk saw ${non2xx[1]} failed responses:\n${r.stdout}`);
  return m ? Math.round(Number(m[1])) : undefined;
}

async function overHttps(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'karmada-lite-bench-'));
  const pki = makePki(dir);
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  pki.issue(certFile, keyFile, 'bench');
  const bodyFile = join(dir, 'review.json');
  writeFileSync(bodyFile, reviewBody('validate'));
  const port = await freePort();
  const logFile = join(dir, 'webhook.log');
  const log = openSync(logFile, 'w');
  // The server logs every review at info level, as in production; the log goes to a file.
  const server: ChildProcess = spawn('taskset', ['-c', '0', process.execPath, '--import', 'tsx', join(root, 'src/cli/main.ts'), 'webhook', '--cert-file', certFile, '--key-file', keyFile, '--port', String(port), '--bind-address', '127.0.0.1', '--log-level', process.env.WEBHOOK_LOG_LEVEL ?? 'info'], {
    cwd: root,
    stdio: ['ignore', 'ignore', log],
  });
  try {
    const base = `https://127.0.0.1:${port}`;
    for (let i = 0; i < 100 && (await get(`${base}/healthz`, pki.ca)) !== 200; i++) await new Promise((r) => setTimeout(r, 100));
    const url = `${base}/validate-propagationpolicy`;
    console.log(`\nover HTTPS on loopback (server pinned to core 0, load generator to core 1, ${secondsPerRun} s each):`);
    console.log(`  load average before: ${loadAverage()} (other work on the machine inflates wall-clock figures)`);
    const pid = server.pid!;
    let cpu = cpuSeconds(pid);
    const wrk = wrkThroughput(url, bodyFile, dir, 16);
    let wrkCpuUs: number | undefined;
    if (wrk !== undefined) {
      wrkCpuUs = Math.round(((cpuSeconds(pid) - cpu) / (wrk * secondsPerRun)) * 1e6);
      console.log(`  ${'throughput, wrk -c16 (keep-alive)'.padEnd(58)} ${wrk.toLocaleString('en-US').padStart(9)} /s  (server CPU ${wrkCpuUs} µs/review)`);
    }
    cpu = cpuSeconds(pid);
    const node = runJson(['closed', url, pki.caFile, bodyFile, '16', String(secondsPerRun)]);
    const nodeCpuUs = Math.round(((cpuSeconds(pid) - cpu) / node.requests) * 1e6);
    console.log(`  ${'throughput, Node generator, 16 connections'.padEnd(58)} ${Number(node.perSecond).toLocaleString('en-US').padStart(9)} /s  (server CPU ${nodeCpuUs} µs/review, ${node.errors} errors)`);
    cpu = cpuSeconds(pid);
    const fixed = runJson(['rate', url, pki.caFile, bodyFile, '1000', String(Math.max(secondsPerRun, 10))]);
    const fixedCpu = cpuSeconds(pid) - cpu;
    const d = fixed.latencyMsFromDue;
    const s = fixed.latencyMsFromSend;
    console.log(`  fixed 1,000/s for ${fixed.seconds} s: ${fixed.requests} reviews, ${fixed.errors} errors, achieved ${fixed.achievedPerSecond}/s, server busy ${Math.round((fixedCpu / fixed.seconds) * 100)}% of a core`);
    console.log(`    latency from due time:  p50 ${d.p50} ms  p90 ${d.p90} ms  p99 ${d.p99} ms  max ${d.max} ms`);
    console.log(`    latency from send time: p50 ${s.p50} ms  p90 ${s.p90} ms  p99 ${s.p99} ms  max ${s.max} ms`);
    console.log(`  load average after: ${loadAverage()}`);
    return { wrkPerSecond: wrk, wrkServerCpuUsPerReview: wrkCpuUs, nodePerSecond: node.perSecond, nodeServerCpuUsPerReview: nodeCpuUs, fixedRate: { ...fixed, serverCoreShare: fixedCpu / fixed.seconds } };
  } finally {
    server.kill('SIGTERM');
    closeSync(log);
  }
}

const results: Record<string, unknown> = { secondsPerRun, node: process.version, inProcess: await inProcess() };
if (!inProcessOnly) results.https = await overHttps();
console.log('\n' + JSON.stringify(results));
