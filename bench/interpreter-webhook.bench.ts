// Interpreter webhook benchmark: the cost of asking `karmada-lite interpret serve` over loopback HTTPS
// (keep-alive, the webhook transport) per operation, beside the same script called in-process, and beside
// an AdmissionReview round trip to `karmada-lite webhook` on the same machine (the target: within 2x of it).
//
//   npx tsx bench/interpreter-webhook.bench.ts                 # ~1 minute
//   SECONDS_PER_RUN=10 CONCURRENCY=4 npx tsx bench/interpreter-webhook.bench.ts
//
// Both servers run as their own process (the CLI, as deployed: user scripts in the worker pool); the calls
// come from this one, closed loop, CONCURRENCY in flight (default 1: the latency of one call). Printed as a
// table and as one JSON line at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Agent, request } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { createInterpreter } from '../src/interpreter/interpreter.js';
import type { KubeObject, Operation, RIC } from '../src/interpreter/types.js';
import { callInterpreterWebhook, type InterpreterRequestInput } from '../src/interpreter/webhook/context.js';
import { createWebhookClient } from '../src/interpreter/webhook/transport.js';
import { makePki } from '../test/webhook/certs.js';

const root = join(import.meta.dirname, '..');
const secondsPerRun = Number(process.env.SECONDS_PER_RUN ?? 4);
const concurrency = Number(process.env.CONCURRENCY ?? 1);
const ricFile = join(root, 'test/fixtures/interpreter-webhook/workload-ric.yaml');
const rics = parseAllDocuments(readFileSync(ricFile, 'utf8')).map((d) => d.toJS() as RIC);

const workload: KubeObject = {
  apiVersion: 'workload.example.io/v1alpha1',
  kind: 'Workload',
  metadata: { name: 'demo', namespace: 'apps', labels: { app: 'demo' } },
  spec: {
    replicas: 3,
    paused: false,
    template: { spec: { containers: [{ name: 'c', image: 'nginx:1.27', resources: { requests: { cpu: '250m', memory: '64Mi' } }, envFrom: [{ configMapRef: { name: 'cfg' } }] }] } },
  },
  status: { readyReplicas: 3 },
};
const items = [1, 2, 3].map((i) => ({ clusterName: `member${i}`, status: { readyReplicas: i }, applied: true, health: 'Healthy' }));
const inputs: Record<string, InterpreterRequestInput> = {
  InterpretReplica: { operation: 'InterpretReplica', object: workload },
  ReviseReplica: { operation: 'ReviseReplica', object: workload, desiredReplicas: 5 },
  Retain: { operation: 'Retain', object: workload, observedObject: { ...workload, spec: { ...(workload.spec as object), paused: true } } },
  AggregateStatus: { operation: 'AggregateStatus', object: workload, aggregatedStatus: items },
  InterpretStatus: { operation: 'InterpretStatus', object: workload },
  InterpretHealth: { operation: 'InterpretHealth', object: workload },
  InterpretDependency: { operation: 'InterpretDependency', object: workload },
};

const local = createInterpreter({ customizations: rics });
const inProcess: Record<string, () => unknown> = {
  InterpretReplica: () => local.getReplicas(workload),
  ReviseReplica: () => local.reviseReplica(workload, 5),
  Retain: () => local.retain(workload, inputs.Retain!.observedObject!),
  AggregateStatus: () => local.aggregateStatus(workload, items),
  InterpretStatus: () => local.reflectStatus(workload),
  InterpretHealth: () => local.interpretHealth(workload),
  InterpretDependency: () => local.getDependencies(workload),
};

interface Figures {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** Closed loop: `concurrency` callers, each timing its calls, for secondsPerRun after a warm-up. */
async function measure(what: string, call: () => unknown, n = concurrency): Promise<Figures> {
  for (let i = 0; i < 300; i++) await call();
  const times: number[] = [];
  const deadline = performance.now() + secondsPerRun * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await call();
        times.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  times.sort((a, b) => a - b);
  const q = (p: number) => Math.round(times[Math.min(times.length - 1, Math.floor(p * times.length))]! * 1000) / 1000;
  const f = { perSecond: Math.round(times.length / elapsed), p50Ms: q(0.5), p99Ms: q(0.99) };
  console.log(`  ${what.padEnd(44)} ${f.perSecond.toLocaleString('en-US').padStart(9)} /s   p50 ${String(f.p50Ms).padStart(7)} ms   p99 ${String(f.p99Ms).padStart(7)} ms`);
  return f;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function cli(args: string[]): ChildProcess {
  return spawn(process.execPath, [join(root, 'bin/karmada-lite.mjs'), ...args], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, KARMADA_LITE_MAIN: '1' } });
}

async function waitHealthy(port: number, ca: Buffer): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const r = request({ host: '127.0.0.1', port, path: '/healthz', ca, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      r.on('error', () => resolve(false));
      r.end();
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing answered on port ${port}`);
}

async function main() {
  const pki = makePki();
  const cert = join(pki.dir, 'tls.crt');
  const key = join(pki.dir, 'tls.key');
  pki.issue(cert, key, 'localhost');
  const [ip, wp] = [await freePort(), await freePort()];
  const servers = [
    cli(['interpret', 'serve', '-f', ricFile, '--cert-file', cert, '--key-file', key, '--port', String(ip), '--workers', '2', '--log-level', 'error']),
    cli(['webhook', '--cert-file', cert, '--key-file', key, '--port', String(wp), '--bind-address', '127.0.0.1', '--log-level', 'error']),
  ];
  try {
    await Promise.all([waitHealthy(ip, pki.ca), waitHealthy(wp, pki.ca)]);
    const results: Record<string, unknown> = { secondsPerRun, concurrency };

    console.log('in process (the Lua call the webhook makes, no transport):');
    const lua: Record<string, Figures> = {};
    for (const [op, f] of Object.entries(inProcess)) lua[op] = await measure(op, f, 1);
    results.inProcess = lua;

    console.log(`interpret serve over loopback HTTPS (keep-alive, ${concurrency} in flight):`);
    const client = createWebhookClient({ url: `https://127.0.0.1:${ip}/interpret`, caBundle: pki.ca.toString(), maxConcurrency: Math.max(1, concurrency) });
    const hook: Record<string, Figures> = {};
    for (const [op, input] of Object.entries(inputs)) hook[op] = await measure(op, () => callInterpreterWebhook(client, 'bench/interpreter', { ...input, operation: op as Operation }));
    client.close();
    results.webhook = hook;

    console.log(`karmada-lite webhook, AdmissionReview round trip (keep-alive, ${concurrency} in flight):`);
    const agent = new Agent({ keepAlive: true, ca: pki.ca, maxSockets: Math.max(1, concurrency) });
    const body = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
        kind: { group: 'config.karmada.io', version: 'v1alpha1', kind: 'ResourceInterpreterCustomization' },
        resource: { group: 'config.karmada.io', version: 'v1alpha1', resource: 'resourceinterpretercustomizations' },
        name: 'workload',
        operation: 'CREATE',
        userInfo: { username: 'admin' },
        object: rics[0],
      },
    });
    const review = () =>
      new Promise<void>((resolve, reject) => {
        const r = request({ host: '127.0.0.1', port: wp, path: '/validate-resourceinterpretercustomization', method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        });
        r.on('error', reject);
        r.end(body);
      });
    results.admissionReview = await measure('validate a RIC (AdmissionReview)', review);
    agent.destroy();

    const admission = results.admissionReview as Figures;
    console.log('\nwebhook call / AdmissionReview round trip (p50; the target is at most 2x):');
    const ratios: Record<string, number> = {};
    for (const [op, f] of Object.entries(hook)) {
      ratios[op] = Math.round((f.p50Ms / admission.p50Ms) * 100) / 100;
      console.log(`  ${op.padEnd(44)} ${ratios[op]}x`);
    }
    results.p50RatioToAdmission = ratios;
    console.log(JSON.stringify(results));
  } finally {
    for (const s of servers) s.kill('SIGTERM');
  }
}

await main();
