/**
 * `karmada-lite controller` against the real host and member apiservers of scripts/k8s/env.sh:
 * `npx tsx bench/controller.bench.ts --help`. Figures in bench/README.md, section "Controller (real apiservers)".
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ApiError, RestClient } from '../src/kube/rest.js';
import {
  CLUSTERS,
  clusterInfo,
  controllerQueueDepths,
  controllerReconciles,
  cpuSeconds,
  diffCounts,
  distDir,
  envDir,
  envRunning,
  envStart,
  envStop,
  freePort,
  getOrUndefined,
  ignoreConflict,
  installCrds,
  kubeConfigOf,
  loadAverage,
  memoryKiB,
  pidFromFile,
  readEnv,
  registerMembers,
  repoRoot,
  sumCounts,
  waitFor,
  type ClusterName,
  type K8sEnv,
} from './controller-env.js';
import { MemberWatch } from './controller-watch.js';
import { CountingRestClient, add, apiserverRequests, controllerClientRequests, requestTable, type Counts, type Floor } from './controller-requests.js';

const HELP = `Usage: npx tsx bench/controller.bench.ts [options]

Measures the real karmada-lite controller binary against the host, member1 and member2 kube-apiservers of
scripts/k8s/env.sh (one etcd, three apiservers on loopback; no controller-manager or kubelet: member
Deployments are stored, never run). Phases, each with wall time, CPU seconds of the controller, of each
apiserver and of etcd, writes per apiserver (apiserver_request_total, verbs POST PUT PATCH DELETE APPLY
DELETECOLLECTION), the controller's reconciles, RSS and load average:

  create          one PropagationPolicy (Divided, static weights 2:1 over member1 and member2), then N
                  Deployments (3 replicas) created on the host; ends when every member object exists on both
                  members (a watch per member, checked afterwards with a list per member)
  settle          until the controller stops reconciling (status flowing back: Work status, aggregated status)
  edits-serial    E image edits of one template each, one at a time, --gap-ms after both members saw it;
                  p50/p99 from the edit request to the member's watch event
  edits-inflight  E more edits, --inflight of them in flight at any time
  member-status   the bench writes a rolled-out status on every template's member1 Deployment (no kubelet runs);
                  ends when every template's aggregated status shows it
  delete          every template deleted (one deletecollection); ends when both members have none left

Requests per template: for the first propagation (create + settle), an image change (edits-serial + settle,
per edit), a member status change (member-status + settle) and a deletion (delete + settle), every resource
request the host and member apiservers served (apiserver_request_total, all verbs, by verb and resource) less
the bench's own (counted by the bench), per template, beside the floor of that phase (the requests the
change needs; printed with the reasons). Event writes are shown apart and are not part of the floor. The
apiservers' own requests (their endpoints reconciler and identity leases, every 10 s) are measured for
--idle-seconds before the controller starts and subtracted at that rate. The controller's own
rest_client_requests_total per apiserver is printed beside it as a cross-check.

Options:
  --templates N        templates to create (default 1000)
  --edits N            edits per edit series (default 200)
  --inflight K         edits in flight in the second series (default 4)
  --gap-ms MS          pause after each serial edit was seen on both members (default 250)
  --create-concurrency C  template creates in flight (default 8)
  --duplicated         a Duplicated policy (3 replicas on both members) instead of Divided 2:1
  --first-only         stop after the first propagation (create + settle): the 1,000-template timing runs
  --timeout S          give up a phase after S seconds (default 900)
  --idle-seconds S     measure the apiservers' own requests for S seconds before the controller starts
                       (default 30; 0: none are subtracted)
  --reuse              use the environment already running in $KARMADA_LITE_ENV_DIR, fail if there is none
                       (without it: reuse one if it runs, else start one with env.sh start and stop it at the end)
  --keep-env           leave an environment this bench started running
  --mjs                run 'node $KARMADA_LITE_DIST/karmada-lite.mjs' instead of the standalone binary
  --cpu-prof DIR       --mjs with 'node --cpu-prof --cpu-prof-dir DIR'; summarise the profile with
                       npx tsx bench/controller-profile.ts DIR/*.cpuprofile
  --controller-arg A   extra argument for 'karmada-lite controller' (repeatable), e.g. --controller-arg=--log-level=warn
  --json FILE          write every figure (and the RSS series) as JSON
  -h, --help           this help

Environment: KARMADA_LITE_ENV_DIR (default /tmp/karmada-lite-env), KARMADA_LITE_DIST (default dist/; the binary
is built with 'node scripts/build.mjs' when missing). Nothing else may run a controller against the same
environment. Cleanup: the controller is stopped; in an environment the bench found running, the bench's
namespace (templates, policy, bindings, Works, member objects, events) and the Cluster objects it registered
are removed; CRDs, the karmada-* namespaces and the member ServiceAccount stay, as after the e2e tests.

Examples:
  KARMADA_LITE_ENV_DIR=/tmp/kl-env-cbench KARMADA_LITE_DIST=/tmp/kl-dist-cbench npx tsx bench/controller.bench.ts
  npx tsx bench/controller.bench.ts --templates 200 --edits 50          # a quick run
  npx tsx bench/controller.bench.ts --cpu-prof /tmp/cprof --json /tmp/cbench.json
`;

const { values: flags } = parseArgs({
  options: {
    templates: { type: 'string', default: '1000' },
    edits: { type: 'string', default: '200' },
    inflight: { type: 'string', default: '4' },
    'gap-ms': { type: 'string', default: '250' },
    'create-concurrency': { type: 'string', default: '8' },
    duplicated: { type: 'boolean', default: false },
    'first-only': { type: 'boolean', default: false },
    timeout: { type: 'string', default: '900' },
    reuse: { type: 'boolean', default: false },
    'idle-seconds': { type: 'string', default: '30' },
    'keep-env': { type: 'boolean', default: false },
    mjs: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'controller-arg': { type: 'string', multiple: true, default: [] },
    json: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});

if (flags.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

function intFlag(name: string, v: string, min: number): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    process.stderr.write(`error: --${name} must be an integer >= ${min}, got ${v}\n`);
    process.exit(2);
  }
  return n;
}

const N = intFlag('templates', flags.templates!, 1);
const EDITS = intFlag('edits', flags.edits!, 0);
const INFLIGHT = intFlag('inflight', flags.inflight!, 1);
const GAP_MS = intFlag('gap-ms', flags['gap-ms']!, 0);
const CREATE_CONC = intFlag('create-concurrency', flags['create-concurrency']!, 1);
const TIMEOUT_MS = intFlag('timeout', flags.timeout!, 1) * 1000;
const IDLE_S = intFlag('idle-seconds', flags['idle-seconds']!, 0);
const REPLICAS = 3;
const DUPLICATED = flags.duplicated!;
const WANT: Record<string, number> = DUPLICATED ? { member1: REPLICAS, member2: REPLICAS } : { member1: 2, member2: 1 };
const NS = `cbench-${Date.now().toString(36)}`;
const LABEL = 'karmada-lite.bench/controller';

const log = (s: string) => process.stderr.write(`[cbench ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, rej) => (t = setTimeout(() => rej(new Error(`timed out after ${ms / 1000} s: ${what}`)), ms)))]).finally(() => clearTimeout(t));
}


// ---------------------------------------------------------------------------------------------------
// The controller process

interface Ctrl {
  child: ChildProcess;
  pid: number;
  port: number;
  logFile: string;
  exited: Promise<number | null>;
}

async function ensureBinary(): Promise<void> {
  const want = flags.mjs || flags['cpu-prof'] ? 'karmada-lite.mjs' : 'karmada-lite';
  if (existsSync(path.join(distDir(), want))) return;
  log(`building ${distDir()}/${want} (node scripts/build.mjs)`);
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs')], { cwd: repoRoot, stdio: 'inherit', env: { ...process.env, KARMADA_LITE_DIST: distDir() } });
  if (r.status !== 0) throw new Error('node scripts/build.mjs failed');
}

async function startController(env: K8sEnv, workDir: string): Promise<Ctrl> {
  const port = await freePort();
  const args = ['controller', '--kubeconfig', clusterInfo(env, 'host').kubeconfig, '--metrics-port', String(port), '--bind-address', '127.0.0.1', ...(flags['controller-arg'] ?? [])];
  let cmd: string;
  let argv: string[];
  if (flags['cpu-prof']) {
    mkdirSync(flags['cpu-prof'], { recursive: true });
    cmd = process.execPath;
    argv = ['--cpu-prof', '--cpu-prof-dir', path.resolve(flags['cpu-prof']), path.join(distDir(), 'karmada-lite.mjs'), ...args];
  } else if (flags.mjs) {
    cmd = process.execPath;
    argv = [path.join(distDir(), 'karmada-lite.mjs'), ...args];
  } else {
    cmd = path.join(distDir(), 'karmada-lite');
    argv = args;
  }
  const logFile = path.join(workDir, 'controller.log');
  const fd = openSync(logFile, 'a');
  const child = spawn(cmd, argv, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  log(`controller: ${cmd} ${argv.join(' ')} (pid ${child.pid}, log ${logFile})`);
  await waitFor(
    'the controller to be ready',
    async () => {
      if (child.exitCode !== null) throw new Error(`the controller exited with ${child.exitCode}; see ${logFile}`);
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return res?.status === 200 ? true : undefined;
    },
    60_000,
  );
  return { child, pid: child.pid!, port, logFile, exited };
}

async function stopController(c: Ctrl | undefined): Promise<number | null> {
  if (!c || c.child.exitCode !== null || c.child.signalCode !== null) return c?.child.exitCode ?? null;
  const t = setTimeout(() => c.child.kill('SIGKILL'), 20_000);
  c.child.kill('SIGTERM');
  const code = await c.exited;
  clearTimeout(t);
  return code;
}

// ---------------------------------------------------------------------------------------------------
// Phases

interface Snapshot {
  t: number;
  cpu: Record<string, number | undefined>;
  /** Every resource request each apiserver served (bench's included). */
  requests: Record<string, Counts>;
  /** The bench's own requests per apiserver, as counted by its clients. */
  bench: Record<string, Counts>;
  /** The controller's rest_client_requests_total per apiserver. */
  client: Record<string, number>;
  reconciles: Map<string, number>;
  load: [number, number, number];
}

interface PhaseResult {
  phase: string;
  wallS: number;
  cpuS: Record<string, number>;
  writes: Record<string, number>;
  writesPerS: Record<string, number>;
  benchHostWrites: number;
  writeBreakdown: Record<string, Record<string, number>>;
  /** The controller's resource requests per apiserver (served less the bench's own and the apiserver's own), by verb and resource. */
  requests: Record<string, Record<string, number>>;
  /** The apiserver's own requests subtracted (its idle rate times the phase's length), per apiserver. */
  background: Record<string, number>;
  /** The controller's rest_client_requests_total per apiserver over the phase (non-resource requests too). */
  clientRequests: Record<string, number>;
  reconciles: number;
  reconcileErrors: number;
  reconcilesByController: Record<string, number>;
  rssEndMiB: number;
  hwmMiB: number;
  loadStart: [number, number, number];
  loadEnd: [number, number, number];
  extra: Record<string, unknown>;
}

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY', 'DELETECOLLECTION']);

class Bench {
  readonly rest: Record<ClusterName, CountingRestClient>;
  readonly pids: Record<string, number | undefined>;
  ctrl?: Ctrl;
  readonly results: PhaseResult[] = [];
  readonly rss: Array<[number, number]> = [];
  private sampler?: NodeJS.Timeout;
  private t0 = performance.now();
  benchHostWrites = 0;
  /** Each apiserver's own resource requests per second with no controller running, by verb and resource. */
  private idleRate: Record<string, Counts> = {};

  constructor(readonly env: K8sEnv) {
    this.rest = { host: new CountingRestClient(kubeConfigOf(env, 'host')), member1: new CountingRestClient(kubeConfigOf(env, 'member1')), member2: new CountingRestClient(kubeConfigOf(env, 'member2')) };
    this.pids = { etcd: pidFromFile(env.etcd.pidFile) };
    for (const c of CLUSTERS) this.pids[`apiserver ${c}`] = pidFromFile(clusterInfo(env, c).pidFile);
  }

  startSampling(): void {
    this.t0 = performance.now();
    this.sampler = setInterval(() => {
      const m = memoryKiB(this.ctrl?.pid);
      if (m) this.rss.push([Math.round(performance.now() - this.t0), m.rss]);
    }, 500);
  }

  stopSampling(): void {
    if (this.sampler) clearInterval(this.sampler);
  }

  private async snapshot(): Promise<Snapshot> {
    // The bench's counts first: a request it makes meanwhile is then counted on neither side or on the apiserver's only.
    const bench = Object.fromEntries(CLUSTERS.map((c) => [c, new Map(this.rest[c].counts)]));
    const [requests, reconciles, client] = await Promise.all([
      Promise.all(CLUSTERS.map((c) => apiserverRequests(this.rest[c]))),
      this.ctrl ? controllerReconciles(this.ctrl.port) : Promise.resolve(new Map<string, number>()),
      this.ctrl ? controllerClientRequests(this.ctrl.port) : Promise.resolve(new Map<string, number>()),
    ]);
    const cpu: Record<string, number | undefined> = { controller: cpuSeconds(this.ctrl?.pid), bench: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6 };
    for (const [k, pid] of Object.entries(this.pids)) cpu[k] = cpuSeconds(pid);
    const byCluster = Object.fromEntries(CLUSTERS.map((c) => [c, client.get(new URL(clusterInfo(this.env, c).server).host) ?? 0]));
    return { t: performance.now(), cpu, requests: Object.fromEntries(CLUSTERS.map((c, i) => [c, requests[i]!])), bench, client: byCluster, reconciles, load: loadAverage() };
  }

  /**
   * The apiservers' own requests (the `kubernetes` Endpoints reconciler, identity Leases, ...) per second,
   * from `seconds` with no controller: they come every 10 s whatever the controller does, so a phase's
   * requests less them at this rate are the controller's.
   */
  async measureIdle(seconds: number): Promise<void> {
    if (seconds <= 0) return;
    const before = await this.snapshot();
    await sleep(seconds * 1000);
    const after = await this.snapshot();
    const s = (after.t - before.t) / 1000;
    const seen: string[] = [];
    for (const c of CLUSTERS) {
      const own = diffCounts(diffCounts(after.requests[c]!, before.requests[c]!), diffCounts(after.bench[c]!, before.bench[c]!));
      this.idleRate[c] = new Map([...own].map(([k, v]) => [k, v / s]));
      seen.push(`${c} ${[...own].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`);
    }
    log(`the apiservers' own requests over ${s.toFixed(1)} s with no controller: ${seen.join('; ')}`);
  }

  async phase(name: string, fn: () => Promise<Record<string, unknown>>): Promise<PhaseResult> {
    const before = await this.snapshot();
    const benchBefore = this.benchHostWrites;
    log(`phase ${name}: start (load ${before.load.join(' ')})`);
    const t = performance.now();
    const extra = await fn();
    const wallS = (performance.now() - t) / 1000;
    const after = await this.snapshot();
    const cpuS: Record<string, number> = {};
    for (const k of Object.keys(after.cpu)) if (after.cpu[k] !== undefined && before.cpu[k] !== undefined) cpuS[k] = after.cpu[k]! - before.cpu[k]!;
    const writes: Record<string, number> = {};
    const writesPerS: Record<string, number> = {};
    const writeBreakdown: Record<string, Record<string, number>> = {};
    const requests: Record<string, Record<string, number>> = {};
    const background: Record<string, number> = {};
    const clientRequests: Record<string, number> = {};
    const phaseS = (after.t - before.t) / 1000;
    for (const c of CLUSTERS) {
      const served = diffCounts(after.requests[c]!, before.requests[c]!);
      // Writes as before: every write the apiserver served, the bench's included, failures folded in.
      const d = new Map<string, number>();
      for (const [k, v] of served) {
        if (!WRITE_VERBS.has(k.slice(0, k.indexOf(' ')))) continue;
        const kk = k.replace(/ \(\d+\)$/, '');
        d.set(kk, (d.get(kk) ?? 0) + v);
      }
      writes[c] = sumCounts(d);
      writesPerS[c] = writes[c]! / wallS;
      writeBreakdown[c] = Object.fromEntries([...d].sort((a, b) => b[1] - a[1]));
      const notBench = diffCounts(served, diffCounts(after.bench[c]!, before.bench[c]!));
      const mine = diffCounts(notBench, new Map([...(this.idleRate[c] ?? [])].map(([k, perS]) => [k, perS * phaseS])));
      background[c] = sumCounts(notBench) - sumCounts(mine);
      requests[c] = Object.fromEntries([...mine].sort((a, b) => b[1] - a[1]));
      clientRequests[c] = after.client[c]! - before.client[c]!;
    }
    const rec = diffCounts(after.reconciles, before.reconciles);
    const byController: Record<string, number> = {};
    let errors = 0;
    for (const [k, v] of rec) {
      const [ctl, result] = k.split(' ');
      byController[ctl!] = (byController[ctl!] ?? 0) + v;
      if (result === 'error') errors += v;
    }
    const mem = memoryKiB(this.ctrl?.pid);
    const r: PhaseResult = {
      phase: name,
      wallS,
      cpuS,
      writes,
      writesPerS,
      benchHostWrites: this.benchHostWrites - benchBefore,
      writeBreakdown,
      requests,
      background,
      clientRequests,
      reconciles: sumCounts(rec),
      reconcileErrors: errors,
      reconcilesByController: byController,
      rssEndMiB: (mem?.rss ?? NaN) / 1024,
      hwmMiB: (mem?.hwm ?? NaN) / 1024,
      loadStart: before.load,
      loadEnd: after.load,
      extra,
    };
    this.results.push(r);
    log(
      `phase ${name}: ${wallS.toFixed(1)} s, controller CPU ${(cpuS.controller ?? NaN).toFixed(1)} s, writes host/m1/m2 ${CLUSTERS.map((c) => writes[c]).join('/')}, ` +
        `reconciles ${r.reconciles} (${errors} errors), RSS ${r.rssEndMiB.toFixed(0)} MiB, load ${after.load.join(' ')}`,
    );
    return r;
  }

  /** Until the controller's reconcile count stays put for quietMs. */
  async settle(quietMs = 3000): Promise<number> {
    const t = performance.now();
    let last = -1;
    let since = performance.now();
    for (;;) {
      const n = sumCounts(await controllerReconciles(this.ctrl!.port));
      if (n !== last) {
        last = n;
        since = performance.now();
      } else if (performance.now() - since >= quietMs) return (since - t) / 1000;
      if (performance.now() - t > TIMEOUT_MS) {
        log(`the controller did not settle within ${TIMEOUT_MS / 1000} s`);
        return NaN;
      }
      await sleep(250);
    }
  }
}

// ---------------------------------------------------------------------------------------------------

function deployment(name: string, image: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS, labels: { app: name, [LABEL]: 'true' } },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image }] } },
    },
  };
}

const policy = {
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'bench', namespace: NS },
  spec: {
    resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: { [LABEL]: 'true' } } }],
    placement: {
      clusterAffinity: { clusterNames: ['member1', 'member2'] },
      replicaScheduling: DUPLICATED
        ? { replicaSchedulingType: 'Duplicated' }
        : {
            replicaSchedulingType: 'Divided',
            replicaDivisionPreference: 'Weighted',
            weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ['member1'] }, weight: 2 }, { targetCluster: { clusterNames: ['member2'] }, weight: 1 }] },
          },
    },
  },
};

async function pool<T>(items: T[], conc: number, fn: (x: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(conc, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

async function run(b: Bench, workDir: string): Promise<void> {
  const { host } = b.rest;
  const startedAt = new Date().toISOString().slice(0, 19);
  const watches = { member1: new MemberWatch('member1', b.rest.member1, NS), member2: new MemberWatch('member2', b.rest.member2, NS) };
  const members = ['member1', 'member2'] as const;
  await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }));
  for (const m of members) await watches[m].start();
  try {
    await phases(b, workDir, watches, startedAt);
  } finally {
    for (const m of members) watches[m].stop();
  }
}

async function phases(b: Bench, workDir: string, watches: Record<'member1' | 'member2', MemberWatch>, startedAt: string): Promise<void> {
  const { host } = b.rest;
  const members = ['member1', 'member2'] as const;
  await b.measureIdle(IDLE_S);
  b.ctrl = await startController(b.env, workDir);
  b.startSampling();
  await waitFor(
    'member1 and member2 Ready',
    async () => {
      for (const m of members) {
        const c = await getOrUndefined(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${m}`);
        if (!(c?.status?.conditions ?? []).some((x: any) => x.type === 'Ready' && x.status === 'True') || !c.status.apiEnablements) return undefined;
      }
      return true;
    },
    60_000,
  );
  await b.phase('startup', async () => ({ settledAfterS: await b.settle(2000) }));

  const names = Array.from({ length: N }, (_, i) => `app-${String(i).padStart(5, '0')}`);
  const sentAt = new Map<string, number>();
  await b.phase('create', async () => {
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, { body: policy });
    b.benchHostWrites++;
    const t0 = performance.now();
    const progress = setInterval(
      () =>
        void controllerQueueDepths(b.ctrl?.port ?? 0).then((depths) =>
          log(`  create: member1 ${watches.member1.count}/${N}, member2 ${watches.member2.count}/${N}, ${((performance.now() - t0) / 1000).toFixed(0)} s, RSS ${((memoryKiB(b.ctrl?.pid)?.rss ?? 0) / 1024).toFixed(0)} MiB; queues: ${depths || 'empty'}`),
        ),
      5_000,
    );
    let createsDone = 0;
    try {
      await pool(names, CREATE_CONC, async (name) => {
        sentAt.set(name, performance.now());
        await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, { body: deployment(name, 'registry.local/app:v0') });
        b.benchHostWrites++;
      });
      createsDone = performance.now();
      const all = await withTimeout(Promise.all(members.map((m) => watches[m].whenCount(N))), TIMEOUT_MS, `${N} Deployments on both members`);
      const tEnd = Math.max(...all);
      const lat = names.map((n) => Math.max(watches.member1.addedAt.get(n)!, watches.member2.addedAt.get(n)!) - sentAt.get(n)!);
      // The first template on both members: how long a user whose Deployment is among the first waits.
      const firstBoth = Math.min(...names.map((n) => Math.max(watches.member1.addedAt.get(n)!, watches.member2.addedAt.get(n)!)));
      // Cross-check with list calls on the members: every template on both, replicas divided 2:1.
      const listed: Record<string, number> = {};
      let wrongReplicas = 0;
      for (const m of members) {
        const l = await b.rest[m].request('GET', `/apis/apps/v1/namespaces/${NS}/deployments`, { query: { labelSelector: `${LABEL}=true` } });
        listed[m] = l.items.length;
        for (const d of l.items) if (d.spec.replicas !== WANT[m]) wrongReplicas++;
      }
      return {
        allMemberObjectsS: (tEnd - t0) / 1000,
        firstOnBothS: (firstBoth - t0) / 1000,
        member1S: (all[0]! - t0) / 1000,
        member2S: (all[1]! - t0) / 1000,
        createsS: (createsDone - t0) / 1000,
        perTemplateP50Ms: percentile(lat, 50),
        perTemplateP99Ms: percentile(lat, 99),
        listed,
        wrongReplicas,
      };
    } finally {
      clearInterval(progress);
    }
  });
  await b.phase('settle', async () => ({ settledAfterS: await b.settle() }));
  if (flags['first-only']) return;

  let seq = 0;
  const edit = async (name: string): Promise<{ m1: number; m2: number; both: number; patch: number }> => {
    const image = `registry.local/app:e${++seq}`;
    const seen = members.map((m) => watches[m].whenImage(name, image));
    const t = performance.now();
    await host.request('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/${name}`, {
      body: { spec: { template: { spec: { containers: [{ name: 'app', image }] } } } },
      contentType: 'application/merge-patch+json',
    });
    b.benchHostWrites++;
    const patch = performance.now() - t;
    const [a1, a2] = await withTimeout(Promise.all(seen), 60_000, `edit of ${name} to ${image} on both members`);
    return { m1: a1! - t, m2: a2! - t, both: Math.max(a1!, a2!) - t, patch };
  };
  const summary = (xs: Array<{ m1: number; m2: number; both: number; patch: number }>, wallS: number) => {
    const member = xs.flatMap((x) => [x.m1, x.m2]);
    const both = xs.map((x) => x.both);
    return {
      edits: xs.length,
      editsPerS: xs.length / wallS,
      memberP50Ms: percentile(member, 50),
      memberP99Ms: percentile(member, 99),
      memberMaxMs: Math.max(...member),
      bothP50Ms: percentile(both, 50),
      bothP99Ms: percentile(both, 99),
      patchP50Ms: percentile(xs.map((x) => x.patch), 50),
    };
  };

  if (EDITS > 0) {
    await b.phase('edits-serial', async () => {
      const out = [];
      const t = performance.now();
      for (let i = 0; i < EDITS; i++) {
        out.push(await edit(names[(i * 7) % N]!));
        if (GAP_MS) await sleep(GAP_MS);
      }
      return summary(out, (performance.now() - t) / 1000);
    });
    await b.phase('settle', async () => ({ settledAfterS: await b.settle() }));
    await b.phase('edits-inflight', async () => {
      const out: Array<{ m1: number; m2: number; both: number; patch: number }> = [];
      const t = performance.now();
      const targets = Array.from({ length: EDITS }, (_, i) => names[(i * 13 + 3) % N]!);
      await pool(targets, INFLIGHT, async (name) => {
        out.push(await edit(name));
      });
      return { inflight: INFLIGHT, ...summary(out, (performance.now() - t) / 1000) };
    });
    await b.phase('settle', async () => ({ settledAfterS: await b.settle() }));
  }

  await b.phase('member-status', async () => {
    // What a member's deployment controller would report once the rollout is done: every replica ready.
    const m1 = b.rest.member1;
    const want = WANT.member1!;
    const items = (await m1.request('GET', `/apis/apps/v1/namespaces/${NS}/deployments`, { query: { labelSelector: `${LABEL}=true` } })).items as any[];
    const t0 = performance.now();
    await pool(items, CREATE_CONC, async (d) => {
      const status = { observedGeneration: d.metadata.generation, replicas: want, updatedReplicas: want, readyReplicas: want, availableReplicas: want };
      await m1.request('PUT', `/apis/apps/v1/namespaces/${NS}/deployments/${d.metadata.name}/status`, { body: { ...d, status } });
    });
    const writtenS = (performance.now() - t0) / 1000;
    // Done when every template's aggregated status counts member1's ready replicas.
    const aggregated = await waitFor(
      'the member status in every template',
      async () => {
        const l = await host.request('GET', `/apis/apps/v1/namespaces/${NS}/deployments`, { query: { labelSelector: `${LABEL}=true` } });
        return l.items.every((d: any) => (d.status?.readyReplicas ?? 0) >= want) ? performance.now() : undefined;
      },
      TIMEOUT_MS,
      1000,
    ).catch((e) => {
      log(`member-status: ${(e as Error).message}`);
      return NaN;
    });
    return { statusWrites: items.length, writtenS, aggregatedS: (aggregated - t0) / 1000 };
  });
  await b.phase('settle', async () => ({ settledAfterS: await b.settle() }));

  await b.phase('delete', async () => {
    const t0 = performance.now();
    await host.request('DELETE', `/apis/apps/v1/namespaces/${NS}/deployments`, { query: { labelSelector: `${LABEL}=true` } });
    b.benchHostWrites++;
    try {
      const all = await withTimeout(Promise.all(members.map((m) => watches[m].whenCount(0))), TIMEOUT_MS, 'the member objects to be deleted');
      return { allMemberObjectsGoneS: (Math.max(...all) - t0) / 1000 };
    } catch (e) {
      // Recorded, not fatal: the figures of this phase (writes, reconciles, errors) show how far it got.
      log((e as Error).message);
      return { allMemberObjectsGoneS: NaN, left: { member1: watches.member1.count, member2: watches.member2.count } };
    }
  });
  await b.phase('settle', async () => {
    const s = await b.settle();
    const rbs = (await host.request('GET', `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings`)).items.length;
    let works = 0;
    for (const m of members) {
      const l = await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${m}/works`);
      works += l.items.filter((w: any) => w.metadata.annotations?.['resourcebinding.karmada.io/namespace'] === NS).length;
    }
    // The Events the controller recorded during the run, by reason (each one was a POST to the host).
    const events: Record<string, number> = {};
    for (const ns of [NS, 'karmada-es-member1', 'karmada-es-member2']) {
      const l = await host.request('GET', `/api/v1/namespaces/${ns}/events`);
      for (const e of l.items) if ((e.firstTimestamp ?? e.eventTime ?? '') >= startedAt) events[`${e.involvedObject?.kind} ${e.reason}`] = (events[`${e.involvedObject?.kind} ${e.reason}`] ?? 0) + 1;
    }
    return { settledAfterS: s, bindingsLeft: rbs, worksLeft: works, events: Object.fromEntries(Object.entries(events).sort((a, b) => b[1] - a[1])) };
  });
}

// ---------------------------------------------------------------------------------------------------
// Cleanup of what the bench made in an environment it found running

async function stripAndDelete(c: RestClient, p: string): Promise<void> {
  try {
    await c.request('PATCH', p, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 404)) throw e;
  }
  await c.request('DELETE', p).catch(() => undefined);
}

async function cleanup(b: Bench, createdClusters: string[]): Promise<void> {
  const { host } = b.rest;
  const list = async (c: RestClient, p: string) => ((await getOrUndefined(c, p))?.items ?? []) as any[];
  for (const d of await list(host, `/apis/apps/v1/namespaces/${NS}/deployments`)) await stripAndDelete(host, `/apis/apps/v1/namespaces/${NS}/deployments/${d.metadata.name}`);
  for (const rb of await list(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings`)) await stripAndDelete(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${rb.metadata.name}`);
  for (const m of ['member1', 'member2']) {
    for (const w of await list(host, `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${m}/works`)) {
      if (w.metadata.annotations?.['resourcebinding.karmada.io/namespace'] === NS) await stripAndDelete(host, `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${m}/works/${w.metadata.name}`);
    }
  }
  for (const p of await list(host, `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`)) await stripAndDelete(host, `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${p.metadata.name}`);
  await host.request('DELETE', `/api/v1/namespaces/${NS}/events`).catch(() => undefined);
  for (const m of ['member1', 'member2'] as const) await b.rest[m].request('DELETE', `/apis/apps/v1/namespaces/${NS}/deployments`).catch(() => undefined);
  // No namespace controller runs in this environment: finalize the namespaces by hand once they are empty.
  for (const c of CLUSTERS) {
    const r = b.rest[c];
    if (!(await getOrUndefined(r, `/api/v1/namespaces/${NS}`))) continue;
    await r.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
    const ns = await getOrUndefined(r, `/api/v1/namespaces/${NS}`);
    if (ns) await r.request('PUT', `/api/v1/namespaces/${NS}/finalize`, { body: { ...ns, spec: { finalizers: [] } } }).catch((e) => log(`cannot finalize namespace ${NS} on ${c}: ${(e as Error).message}`));
  }
  for (const m of createdClusters) await stripAndDelete(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${m}`);
}

// ---------------------------------------------------------------------------------------------------
// Report

function table(rows: string[][]): string {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  ')).join('\n');
}

function report(b: Bench, meta: Record<string, unknown>): string {
  const f1 = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(1));
  const f0 = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(0));
  const out: string[] = [];
  out.push(`karmada-lite controller against real apiservers: ${N} templates, ${EDITS} edits per series; ${meta.started} – ${meta.ended}`);
  out.push('');
  out.push(
    table([
      ['phase', 'wall s', 'ctrl CPU s', 'ctrl CPU %', 'host w', 'm1 w', 'm2 w', 'host w/s', 'm1 w/s', 'm2 w/s', 'reconciles', 'errors', 'RSS MiB', 'load (1 min) start/end'],
      ...b.results.map((r) => [
        r.phase,
        f1(r.wallS),
        f1(r.cpuS.controller),
        f0((100 * (r.cpuS.controller ?? NaN)) / r.wallS),
        String(r.writes.host),
        String(r.writes.member1),
        String(r.writes.member2),
        f0(r.writesPerS.host),
        f0(r.writesPerS.member1),
        f0(r.writesPerS.member2),
        String(r.reconciles),
        String(r.reconcileErrors),
        f0(r.rssEndMiB),
        `${r.loadStart[0].toFixed(2)}/${r.loadEnd[0].toFixed(2)}`,
      ]),
    ]),
  );
  out.push('(host writes include the bench\'s own: 1 per template create, 1 per edit, 1 policy, 1 deletecollection)');
  out.push('');
  out.push('CPU seconds per phase:');
  const procs = ['controller', 'apiserver host', 'apiserver member1', 'apiserver member2', 'etcd', 'bench'];
  out.push(table([['phase', ...procs], ...b.results.map((r) => [r.phase, ...procs.map((p) => f1(r.cpuS[p]))])]));
  out.push('');
  const hwm = Math.max(...b.results.map((r) => r.hwmMiB));
  const rssMax = Math.max(0, ...b.rss.map((x) => x[1])) / 1024;
  out.push(`controller peak memory: VmHWM ${hwm.toFixed(0)} MiB (largest RSS sample ${rssMax.toFixed(0)} MiB, ${b.rss.length} samples every 0.5 s)`);
  for (const r of b.results) {
    const e = r.extra;
    if (r.phase === 'create')
      out.push(
        `create: the first template on both members after ${f1(e.firstOnBothS as number)} s, every member object after ${f1(e.allMemberObjectsS as number)} s (member1 ${f1(e.member1S as number)} s, member2 ${f1(e.member2S as number)} s; ` +
          `the ${N} creates took ${f1(e.createsS as number)} s); per template p50 ${f0(e.perTemplateP50Ms as number)} ms, p99 ${f0(e.perTemplateP99Ms as number)} ms; ` +
          `listed ${JSON.stringify(e.listed)}, wrong replicas ${e.wrongReplicas}`,
      );
    if (r.phase.startsWith('edits'))
      out.push(
        `${r.phase}${e.inflight ? ` (${e.inflight} in flight)` : ` (one at a time, ${GAP_MS} ms apart)`}: ${e.edits} edits, ${f1(e.editsPerS as number)}/s; edit to member event p50 ${f0(e.memberP50Ms as number)} ms, p99 ${f0(e.memberP99Ms as number)} ms, max ${f0(e.memberMaxMs as number)} ms; ` +
          `to both members p50 ${f0(e.bothP50Ms as number)} ms, p99 ${f0(e.bothP99Ms as number)} ms (the PATCH itself p50 ${f0(e.patchP50Ms as number)} ms)`,
      );
    if (r.phase === 'delete')
      out.push(e.left ? `delete: NOT DONE after ${f1(r.wallS)} s, member objects left ${JSON.stringify(e.left)}` : `delete: every member object gone after ${f1(e.allMemberObjectsGoneS as number)} s`);
    if (r.phase === 'settle' && e.bindingsLeft !== undefined) {
      out.push(`after delete: ${e.bindingsLeft} bindings and ${e.worksLeft} Works left`);
      out.push(`Events recorded by the controller during the run (kind reason count): ${Object.entries(e.events as Record<string, number>).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    }
  }
  out.push('');
  out.push(requestReport(b));
  out.push('');
  out.push('Writes per apiserver and phase, by verb and resource (top 6):');
  for (const r of b.results) {
    if (!['create', 'settle', 'edits-serial', 'delete'].includes(r.phase)) continue;
    for (const c of CLUSTERS) {
      const top = Object.entries(r.writeBreakdown[c]!).slice(0, 6).map(([k, v]) => `${k} ${v}`);
      if (top.length) out.push(`  ${r.phase.padEnd(12)} ${c.padEnd(7)} ${top.join(', ')}`);
    }
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------
// Requests per template, against the floor

/**
 * The requests a change needs, per template (or per edit), on a 2-member placement with no kubelet or
 * controller-manager (member objects are stored, never run; nothing garbage-collects): one write per
 * object and subresource whose content the change must move, where one controller decides it. Reasons in
 * `why`, and in the docs of issue #22.
 */
function floorOf(phase: string): Floor | undefined {
  switch (phase) {
    case 'create':
      return {
        host: { 'PUT deployments': 1, 'POST resourcebindings': 1, 'PUT resourcebindings': 1, 'PUT resourcebindings/status': 1, 'POST works': 2, 'PUT works/status': 2, 'PUT deployments/status': 1 },
        members: { 'POST deployments': 2 },
        why: [
          "template: its claim (the policy's permanent-id label, ClaimPolicyForObject) and its aggregated status",
          'binding: its create (detector), the scheduler\'s placement (spec.clusters: another controller, so not in the create) and one status',
          'per member: a Work create, one Work status (Applied, with the reflected status: README differs 53), the member object create',
          "beyond it, as Karmada: the scheduler's second status write (observedGeneration of its own placement write), the binding status before and after the Works report",
          "the issue's count (9) leaves out the claim and the placement write; Karmada sends both (PUT and PATCH)",
        ],
      };
    case 'edits-serial':
    case 'edits-inflight':
      return {
        host: { 'PUT resourcebindings': 1, 'PUT works': 2, 'PUT works/status': 2, 'PUT resourcebindings/status': 1 },
        members: { 'PUT deployments': 2 },
        why: [
          'binding: the template\'s new resourceVersion (detector), then its aggregatedStatus with the members\' new generation',
          'per member: the Work\'s manifest, the member object, the Work\'s reflected status (the member object\'s new generation)',
          'the status writes count as in the first propagation\'s floor (the issue\'s): they are how the template\'s observedGeneration, and so `kubectl rollout status`, learn that the members took the change',
          'beyond it, as Karmada: the scheduler\'s observedGeneration of the binding\'s new generation',
        ],
      };
    case 'member-status':
      return {
        host: { 'PUT works/status': 1, 'PUT resourcebindings/status': 1, 'PUT deployments/status': 1 },
        members: {},
        why: ["member1's Work (manifestStatuses), the binding's aggregatedStatus, the template's status"],
      };
    case 'delete':
      return {
        host: { 'DELETE resourcebindings': 1, 'PUT resourcebindings': 1, 'DELETE works': 2, 'PUT works': 2 },
        members: { 'DELETE deployments': 2 },
        why: [
          'no garbage collector runs here: the binding is deleted by the controller (1), its finalizer removed (1)',
          'per member: the Work deleted, its finalizer removed once the member object is deleted',
        ],
      };
  }
  return undefined;
}

/** A phase and the settle phases after it, summed: the requests one change caused until the controller went quiet. */
function requestReport(b: Bench): string {
  const out: string[] = ['Requests per template (the controller\'s: served by the apiservers less the bench\'s own), by verb and resource:'];
  const rs = b.results;
  for (let i = 0; i < rs.length; i++) {
    const floor = floorOf(rs[i]!.phase);
    if (!floor) continue;
    const group = [rs[i]!];
    while (rs[i + 1]?.phase === 'settle') group.push(rs[++i]!);
    const sum = (cs: readonly string[]) => group.reduce((acc, r) => cs.reduce((a, c) => add(a, new Map(Object.entries(r.requests[c] ?? {}))), acc), new Map() as Counts);
    const first = group[0]!;
    const units = first.phase.startsWith('edits') ? ((first.extra.edits as number) ?? EDITS) : N;
    if (!units) continue;
    const client = CLUSTERS.map((c) => `${c} ${group.reduce((a, r) => a + (r.clientRequests[c] ?? 0), 0)}`).join(', ');
    out.push('');
    out.push(requestTable(`${group.map((r) => r.phase).join(' + ')}`, units, sum(['host']), sum(['member1', 'member2']), floor));
    const idle = CLUSTERS.map((c) => `${c} ${(group.reduce((a, r) => a + (r.background[c] ?? 0), 0) / units).toFixed(2)}`).join(', ');
    out.push(`  the apiservers' own requests subtracted, per unit (their idle rate over the phase's ${group.reduce((a, r) => a + r.wallS, 0).toFixed(0)} s): ${idle}`);
    out.push(`  the controller's own count (rest_client_requests_total, non-resource requests too): ${client}`);
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = new Date().toISOString();
  const running = envRunning();
  if (flags.reuse && !running) throw new Error(`--reuse: no environment is running in ${envDir()} (bash scripts/k8s/env.sh start)`);
  const startedEnv = !running;
  if (startedEnv) {
    log(`starting an environment in ${envDir()}`);
    envStart();
  } else log(`reusing the environment running in ${envDir()}`);
  const workDir = mkdtempSync(path.join(tmpdir(), 'cbench-'));
  let b: Bench | undefined;
  let createdClusters: string[] = [];
  let failure: unknown;
  try {
    await ensureBinary();
    const env = readEnv();
    b = new Bench(env);
    await installCrds(b.rest.host);
    createdClusters = await registerMembers(env, b.rest.host);
    await run(b, workDir);
  } catch (e) {
    failure = e;
    log(`FAILED: ${(e as Error).stack ?? e}`);
  } finally {
    b?.stopSampling();
    const code = await stopController(b?.ctrl);
    if (b?.ctrl) log(`controller stopped (exit ${code}); log in ${b.ctrl.logFile}`);
    if (b) {
      const meta = { started, ended: new Date().toISOString(), templates: N, duplicated: DUPLICATED, edits: EDITS, inflight: INFLIGHT, gapMs: GAP_MS, env: envDir(), dist: distDir(), namespace: NS, nodeVersion: process.version, controllerExit: code, controllerLog: b.ctrl?.logFile };
      if (b.results.length) process.stdout.write(report(b, meta) + '\n');
      if (flags.json) writeFileSync(flags.json, JSON.stringify({ meta, phases: b.results, rss: b.rss }, null, 1));
      if (!startedEnv) {
        log('cleaning up the bench namespace');
        await cleanup(b, createdClusters).catch((e) => log(`cleanup failed: ${(e as Error).message}`));
      }
    }
    if (startedEnv && !flags['keep-env']) {
      log('stopping the environment this bench started');
      envStop();
    }
  }
  // Nothing of the bench's may keep the process alive (a watch, a socket).
  process.exit(failure ? 1 : 0);
}

await main();
