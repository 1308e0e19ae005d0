/**
 * The parts of bench/controller.bench.ts that talk to the test environment of scripts/k8s/env.sh and to
 * /proc: no vitest (test/integration/env.ts reads the environment through vitest's inject), so the
 * environment comes from env.json, as the k8sEnv() fallback there reads it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RestClient } from '../src/kube/rest.js';
import {
  clusterInfo,
  fleetOn,
  freePort,
  get as getOrUndefined,
  ignoreConflict,
  installCrds,
  kubeConfigOf,
  readEnv,
  registerMembers,
  repoRoot,
  waitFor,
  type ClusterInfo,
  type ClusterName,
  type K8sEnv,
} from '../test/integration/k8s-env.js';

export { clusterInfo, fleetOn, freePort, getOrUndefined, ignoreConflict, installCrds, kubeConfigOf, readEnv, registerMembers, repoRoot, waitFor, type ClusterInfo, type ClusterName, type K8sEnv };

export const CLUSTERS: readonly ClusterName[] = ['host', 'member1', 'member2'];

export const envDir = () => path.resolve(process.env.KARMADA_LITE_ENV_DIR ?? '/tmp/karmada-lite-env');
export const distDir = () => (process.env.KARMADA_LITE_DIST ? path.resolve(process.env.KARMADA_LITE_DIST) : path.join(repoRoot, 'dist'));

// KARMADA_LITE_FLEET passes through to both scripts (scripts/k8s/versions.sh): kwok runs the members'
// controllers, scheduler and kwok Nodes beside the apiservers, bare the apiservers only.
function k8sScript(script: 'env.sh' | 'build.sh', args: string[], quiet = false): number {
  const r = spawnSync('bash', [path.join(repoRoot, 'scripts', 'k8s', script), ...args], { stdio: quiet ? 'ignore' : ['ignore', 'inherit', 'inherit'], env: { ...process.env, KARMADA_LITE_ENV_DIR: envDir() } });
  return r.status ?? 1;
}
const envSh = (cmd: 'start' | 'stop' | 'status', quiet = false) => k8sScript('env.sh', [cmd], quiet);

export const envRunning = () => envSh('status', true) === 0;
export function envStart(): void {
  // a no-op once the binaries of this fleet are built
  if (k8sScript('build.sh', [], true) !== 0) throw new Error('bash scripts/k8s/build.sh failed (run it to see why)');
  if (envSh('start') !== 0) throw new Error('bash scripts/k8s/env.sh start failed');
}
export function envStop(): void {
  envSh('stop');
}

// ---------------------------------------------------------------------------------------------------
// /proc

const TICKS = 100; // getconf CLK_TCK on Linux

export function pidFromFile(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && existsSync(`/proc/${pid}`) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** utime + stime of a process, in seconds (undefined once it is gone). */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    // fields 14 and 15 of stat; f[0] is field 3 (state)
    return (Number(f[11]) + Number(f[12])) / TICKS;
  } catch {
    return undefined;
  }
}

/** VmRSS and VmHWM in KiB. */
export function memoryKiB(pid: number | undefined): { rss: number; hwm: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const get = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? NaN);
    return { rss: get('VmRSS'), hwm: get('VmHWM') };
  } catch {
    return undefined;
  }
}

export const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number) as [number, number, number];

// ---------------------------------------------------------------------------------------------------
// apiserver /metrics

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY', 'DELETECOLLECTION']);

/** apiserver_request_total of the write verbs, per `verb resource[/subresource]`, from an apiserver's /metrics. */
export async function apiserverWrites(c: RestClient): Promise<Map<string, number>> {
  const text = await c.request<string>('GET', '/metrics', { timeoutMs: 20_000 });
  const out = new Map<string, number>();
  const re = /^apiserver_request_total\{([^}]*)\} (\S+)$/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const labels: Record<string, string> = {};
    for (const l of m[1]!.matchAll(/(\w+)="([^"]*)"/g)) labels[l[1]!] = l[2]!;
    if (!WRITE_VERBS.has(labels.verb ?? '')) continue;
    const k = `${labels.verb} ${labels.resource}${labels.subresource ? '/' + labels.subresource : ''}`;
    out.set(k, (out.get(k) ?? 0) + Number(m[2]));
  }
  return out;
}

export function diffCounts(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (d > 0) out.set(k, d);
  }
  return out;
}

export const sumCounts = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** controller_runtime_reconcile_total per controller and result, from the controller's own /metrics. */
export async function controllerReconciles(port: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const res = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => undefined);
  if (!res?.ok) return out;
  const text = await res.text();
  for (const m of text.matchAll(/^controller_runtime_reconcile_total\{controller="([^"]*)",result="([^"]*)"\} (\S+)$/gm)) out.set(`${m[1]} ${m[2]}`, Number(m[3]));
  return out;
}

/** workqueue_depth per controller (those with keys waiting), from the controller's own /metrics: where a phase's keys sit. */
export async function controllerQueueDepths(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => undefined);
  if (!res?.ok) return '';
  const text = await res.text();
  return [...text.matchAll(/^workqueue_depth\{name="([^"]*)"\} (\S+)$/gm)].filter((m) => Number(m[2]) > 0).map((m) => `${m[1]} ${m[2]}`).join(', ');
}

/**
 * The built controller on the environment's host with its members joined, its log in a folder of its own:
 * what every bench that drives the real binary starts with.
 */
export async function startController(env: K8sEnv, host: RestClient, opts: { binary?: string; namespace: string; prefix: string; log: (msg: string) => void; args?: readonly string[] }): Promise<{ binary: string; child: ChildProcess; port: number; logFile: string }> {
  const binary = opts.binary ?? path.join(distDir(), 'karmada-lite');
  if (!existsSync(binary)) throw new Error(`no controller binary at ${binary}; run node scripts/build.mjs or pass --binary`);
  await installCrds(host);
  await registerMembers(env, host);
  await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: opts.namespace } } }));
  const workDir = mkdtempSync(path.join(tmpdir(), opts.prefix));
  const port = await freePort();
  const logFile = path.join(workDir, 'controller.log');
  const fd = openSync(logFile, 'a');
  const child = spawn(binary, ['controller', '--kubeconfig', clusterInfo(env, 'host').kubeconfig, '--metrics-port', String(port), '--bind-address', '127.0.0.1', ...(opts.args ?? [])], { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  opts.log(`controller ${binary} (pid ${child.pid}, log ${logFile})`);
  return { binary, child, port, logFile };
}

/** The nearest-rank percentile of ascending samples: with 20 samples, p99 is the largest. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
