// Start-up time and peak memory (VmHWM) per command of the built binaries, beside a baseline build:
//   npm run build && npx tsx bench/startup.bench.ts [baseline-dist-dir]
// (KARMADA_LITE_DIST: the build to measure, as scripts/build.mjs takes it; dist/ by default)
// Each command runs 5 times; the table shows the median time and the largest peak RSS. `controller`
// runs without a cluster, so it measures the time to its preflight error. `webhook` starts for real: its
// time is until /healthz answers over HTTPS, its memory the peak up to then (started and idle). The webhook
// under load is in bench/webhook.bench.ts (`--binary dist/karmada-lite` gives its peak RSS there).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makePki } from '../test/webhook/certs.js';

const root = join(import.meta.dirname, '..');
const dists = [process.env.KARMADA_LITE_DIST ? resolve(process.env.KARMADA_LITE_DIST) : join(root, 'dist'), ...process.argv.slice(2)];
if (!existsSync(join(dists[0], 'karmada-lite.mjs'))) {
  console.error(`no ${join(dists[0], 'karmada-lite.mjs')}: run \`npm run build\` first`);
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'karmada-lite-startup-'));
const file = join(dir, 'pp.yaml');
writeFileSync(file, 'apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n');
const pki = makePki(join(dir));
const certFile = join(dir, 'tls.crt');
const keyFile = join(dir, 'tls.key');
pki.issue(certFile, keyFile, 'startup');
const env = { ...process.env, KUBECONFIG: join(dir, 'missing') };
const commands: Record<string, string[]> = {
  '--version': ['--version'],
  'validate (1 file)': ['validate', '-f', file],
  'controller (preflight error)': ['controller', '--kubeconfig', join(dir, 'missing')],
};

function run(cmd: string, args: string[]): { ms: number; peakMB: number } {
  // /usr/bin/time reports the peak RSS of the child; the wall time is measured here.
  const t = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { encoding: 'utf8', env });
  const ms = performance.now() - t;
  const kb = Number(r.stderr.trim().split('\n').pop());
  return { ms, peakMB: kb / 1024 };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const healthz = (port: number) =>
  new Promise<number>((resolve) => {
    const r = request({ host: '127.0.0.1', port, path: '/healthz', ca: pki.ca, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    r.on('error', () => resolve(0));
    r.end();
  });

/** `webhook` until /healthz answers, then its peak RSS so far from /proc; stopped with SIGTERM. */
async function serve(cmd: string, args: string[]): Promise<{ ms: number; peakMB: number }> {
  const port = await freePort();
  const t = performance.now();
  const child = spawn(cmd, [...args, 'webhook', '--cert-file', certFile, '--key-file', keyFile, '--port', String(port), '--bind-address', '127.0.0.1', '--log-level', 'error'], { env, stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`webhook exited with ${child.exitCode} before /healthz answered`);
      if ((await healthz(port)) === 200) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const ms = performance.now() - t;
    const kb = Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]);
    return { ms, peakMB: kb / 1024 };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

console.log(`load average: ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`${'command'.padEnd(30)} ${'binary'.padEnd(60)} ${'ms'.padStart(8)} ${'peak MB'.padStart(8)}`);
const rows = [...Object.entries(commands).map(([name, args]) => [name, (cmd: string, pre: string[]) => Promise.resolve(run(cmd, [...pre, ...args]))] as const), ['webhook (until /healthz)', (cmd: string, pre: string[]) => serve(cmd, pre)] as const];
for (const [name, measure] of rows) {
  for (const d of dists) {
    for (const [cmd, pre] of [[process.execPath, [join(d, 'karmada-lite.mjs')]], [join(d, 'karmada-lite'), []]] as const) {
      if (!existsSync(pre[0] ?? cmd)) continue;
      const runs: Array<{ ms: number; peakMB: number }> = [];
      for (let i = 0; i < 5; i++) runs.push(await measure(cmd, [...pre]));
      const ms = runs.map((r) => r.ms).sort((a, b) => a - b)[2];
      const peak = Math.max(...runs.map((r) => r.peakMB));
      console.log(`${name.padEnd(30)} ${(pre[0] ?? cmd).padEnd(60)} ${ms.toFixed(0).padStart(8)} ${peak.toFixed(0).padStart(8)}`);
    }
  }
}
console.log(`load average after: ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
