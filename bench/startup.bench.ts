// Start-up time and peak memory (VmHWM) per command of the built binaries, beside a baseline build:
//   npm run build && npx tsx bench/startup.bench.ts [baseline-dist-dir]
// Each command runs 5 times; the table shows the median time to exit and the largest peak RSS. `controller`
// runs without a cluster, so it measures the time to its preflight error. The webhook under load is in
// bench/webhook.bench.ts (peak RSS there).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const dists = [join(root, 'dist'), ...process.argv.slice(2)];
if (!existsSync(join(dists[0], 'karmada-lite.mjs'))) {
  console.error('no dist/karmada-lite.mjs: run `npm run build` first');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'karmada-lite-startup-'));
const file = join(dir, 'pp.yaml');
writeFileSync(file, 'apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n');
const commands: Record<string, string[]> = {
  '--version': ['--version'],
  'validate (1 file)': ['validate', '-f', file],
  'controller (preflight error)': ['controller', '--kubeconfig', join(dir, 'missing')],
  'webhook (exit: missing cert)': ['webhook', '--cert-file', join(dir, 'none.crt'), '--key-file', join(dir, 'none.key'), '--port', '0'],
};

function run(cmd: string, args: string[]): { ms: number; peakMB: number } {
  // /usr/bin/time reports the peak RSS of the child; the wall time is measured here.
  const t = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { encoding: 'utf8', env: { ...process.env, KUBECONFIG: join(dir, 'missing') } });
  const ms = performance.now() - t;
  const kb = Number(r.stderr.trim().split('\n').pop());
  return { ms, peakMB: kb / 1024 };
}

console.log(`load average: ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`${'command'.padEnd(30)} ${'binary'.padEnd(60)} ${'exit ms'.padStart(8)} ${'peak MB'.padStart(8)}`);
for (const [name, args] of Object.entries(commands)) {
  for (const d of dists) {
    for (const [cmd, pre] of [[process.execPath, [join(d, 'karmada-lite.mjs')]], [join(d, 'karmada-lite'), []]] as const) {
      if (!existsSync(pre[0] ?? cmd)) continue;
      const runs = Array.from({ length: 5 }, () => run(cmd, [...pre, ...args]));
      const ms = runs.map((r) => r.ms).sort((a, b) => a - b)[2];
      const peak = Math.max(...runs.map((r) => r.peakMB));
      console.log(`${name.padEnd(30)} ${(pre[0] ?? cmd).padEnd(60)} ${ms.toFixed(0).padStart(8)} ${peak.toFixed(0).padStart(8)}`);
    }
  }
}
