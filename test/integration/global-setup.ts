// Starts the real etcd + kube-apiservers once per vitest run (integration project) and stops them afterwards.
// KARMADA_LITE_FLEET (read by scripts/k8s/versions.sh, passed on here) chooses the fleet: `kwok` runs
// kube-controller-manager, kube-scheduler and kwok Nodes beside them (the default), `bare` the apiservers only.
//
// KARMADA_LITE_ENV_REUSE=1 keeps an environment that is already up (`bash scripts/k8s/env.sh start`) and
// leaves it running at the end, for fast edit-run loops while writing integration tests.
// Without KARMADA_LITE_ENV_DIR every run gets a folder of its own under the system's temporary folder (removed
// afterwards), so that two runs on one machine never stop or reuse each other's apiservers.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import type { K8sEnv } from './env.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const scripts = path.join(repoRoot, 'scripts', 'k8s');
const givenEnvDir = process.env.KARMADA_LITE_ENV_DIR;
// A reused environment is the one env.sh starts by default; a fresh one is private to this run.
const envDir = givenEnvDir ?? (process.env.KARMADA_LITE_ENV_REUSE === '1' ? '/tmp/karmada-lite-env' : mkdtempSync(path.join(tmpdir(), 'karmada-lite-env-')));

function run(script: string, ...args: string[]): number {
  // inherited stdio so that a cold build's progress (tens of minutes) is visible instead of looking hung
  const r = spawnSync('bash', [path.join(scripts, script), ...args], { stdio: 'inherit', cwd: repoRoot, env: { ...process.env, KARMADA_LITE_ENV_DIR: envDir } });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

export default function setup(project: TestProject): () => void {
  const reuse = process.env.KARMADA_LITE_ENV_REUSE === '1' && run('env.sh', 'status') === 0;
  if (!reuse) {
    if (run('build.sh') !== 0) throw new Error('scripts/k8s/build.sh failed: no etcd/kube-apiserver binaries (or, for KARMADA_LITE_FLEET=kwok, controller-manager, scheduler, kwok)');
    // A start can lose a port to another run starting at the same moment; the next start picks other ports.
    if (run('env.sh', 'start') !== 0 && run('env.sh', 'start') !== 0) {
      throw new Error(`scripts/k8s/env.sh start failed; logs are in ${envDir}/<name>/{apiserver,controller-manager,scheduler,kwok}.log and ${envDir}/etcd/etcd.log`);
    }
  }
  const envJson = path.join(envDir, 'env.json');
  const env = JSON.parse(readFileSync(envJson, 'utf8')) as K8sEnv;
  project.provide('k8sEnv', env);
  // for code that cannot use inject(), e.g. a spawned CLI under test
  process.env.KARMADA_LITE_ENV_JSON = envJson;
  // The binary under test is built into this run's folder (test/integration/harness.ts), not the checkout's
  // dist/: a second run, or an `npm run build` meanwhile, must not replace it mid-run.
  process.env.KARMADA_LITE_DIST ??= path.join(envDir, 'dist');

  return () => {
    if (reuse) return;
    run('env.sh', 'stop');
    if (givenEnvDir === undefined) rmSync(envDir, { recursive: true, force: true });
  };
}
