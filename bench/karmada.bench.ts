/**
 * karmada-lite beside Karmada on the same test apiservers (issue #38): `npx tsx bench/karmada.bench.ts --help`.
 * Figures in bench/README.md, section "Controller beside Karmada".
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { RestClient } from '../src/kube/rest.js';
import {
  CLUSTERS,
  clusterInfo,
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
  kubeConfigOf,
  loadAverage,
  percentile,
  pidFromFile,
  readEnv,
  repoRoot,
  sumCounts,
  waitFor,
  type ClusterName,
  type K8sEnv,
} from './controller-env.js';
import { CountingRestClient, add, apiserverRequests, type Counts } from './controller-requests.js';
import { MemberWatch } from './controller-watch.js';
import { ensureKarmadaBuild, karmadaCrdFiles, type KarmadaBuild } from './karmada-build.js';
import {
  MEMBERS,
  applyCrds,
  installWebhookConfigurations,
  joinMember,
  liteCrdFiles,
  makeWebhookCert,
  procFigures,
  removeWebhookConfigurations,
  sampleRss,
  startProc,
  stopProc,
  stripAndDelete,
  unjoinMembers,
  waitForAdmission,
  waitReady,
  webhookConfigurations,
  type Member,
  type Proc,
  type Side,
  type WebhookCert,
} from './karmada-setup.js';
import { BindingTimes, EventTimes } from './karmada-watch.js';

const HELP = `Usage: npx tsx bench/karmada.bench.ts --karmada-src DIR [options]

karmada-lite and Karmada, one after the other, on the same host and member kube-apiservers of
scripts/k8s/env.sh (the kwok fleet of bench/controller.bench.ts): the same workload through each, rounds
alternating which side goes first, a fresh namespace and a fresh join per side, everything of a side removed
before the next starts.

Karmada: karmada-controller-manager, karmada-scheduler and karmada-webhook built from DIR (go build -mod=vendor,
cached by the tree's commit or source hash in $KARMADA_LITE_KARMADA_BIN_CACHE, default <tmpdir>/karmada-lite-bench-karmada),
its CRDs from DIR/charts/karmada/_crds/bases (no kustomize patch: no conversion webhook), karmada-lite's Cluster CRD
(Karmada serves Cluster from its aggregated apiserver, not run here), its webhook on loopback behind
DIR/artifacts/deploy/webhook-configuration.yaml. karmada-lite: its crds/, 'karmada-lite controller' and
'karmada-lite webhook' behind deploy/webhook/. Both: the same serving certificate (scripts/deploy-cert.sh), the
members joined as 'karmadactl join' joins them (a ServiceAccount token Secret per member, an impersonator
Secret, the Cluster with the member's id), --kube-api-qps 40 --kube-api-burst 60 and --cluster-api-qps 40
--cluster-api-burst 60, no leader election (karmada-lite's default).

Per side and round, from the policy's create:
  time until every member object exists (a watch per member), every binding Scheduled, every binding FullyApplied;
  per template, its create to its last member object, p50 / p99; time to the last Event the side wrote, and
  the Events karmada-lite's recorder dropped (karmada_lite_events_dropped_total; client-go counts none);
  requests per template on the host (the apiserver's counts less the bench's own and the apiserver's own idle
  rate) by verb and resource, Event writes apart; on the members the same for what the fleet's own controllers
  do not own (every request on Pods, ReplicaSets, Nodes, Leases, Events, Endpoints and status writes left out), with the side's own
  client count (rest_client_requests_total) per member and method as the exact total;
  CPU seconds (over the workload, and over the process's life) and peak RSS (VmHWM and 0.5 s samples) of each
  process, and the CPU seconds of the apiservers and etcd over the workload.
The workload ends when all of it is there and nothing (member object, binding, Event) moved for --quiet seconds.

Options:
  --karmada-src DIR    a Karmada source tree (required), e.g. an export of github.com/karmada-io/karmada
  --templates N        Deployments (default 1000)
  --replicas R         replicas per Deployment (default 1 Duplicated, 3 Divided)
  --divided            Divided 2:1 (static weights member1:member2) with an OverridePolicy (member2's image)
                       instead of Duplicated over member1 and member2
  --rounds R           rounds (default 1); each runs both sides, the first side alternating
  --first SIDE         the side of round 1: karmada-lite (default) or karmada
  --only SIDE          run one side only (a check of the setup)
  --create-concurrency C  template creates in flight (default 8)
  --quiet S            the workload ends after S seconds of nothing moving (default 15)
  --warmup S           after the members are Ready, wait S seconds before the workload (default 10)
  --timeout S          give up waiting for a side after S seconds (default 1200)
  --idle-seconds S     measure the apiservers' own requests for S seconds first (default 20)
  --karmada-arg A      extra argument for karmada-controller-manager (repeatable)
  --controller-arg A   extra argument for 'karmada-lite controller' (repeatable)
  --reuse              use the environment running in $KARMADA_LITE_ENV_DIR, fail if there is none
  --keep-env           leave an environment this bench started running
  --json FILE          every figure as JSON
  -h, --help           this help

Environment: KARMADA_LITE_ENV_DIR (default /tmp/karmada-lite-env; nothing else may run a controller on it: the
bench deletes the member1 and member2 Clusters and both sides' webhook configurations it finds there first),
KARMADA_LITE_DIST (default dist/; karmada-lite's standalone binary, built with 'node scripts/build.mjs' when missing).

Example:
  mkdir -p /tmp/karmada-src && git --git-dir=<karmada clone>/.git archive HEAD -- . ':(exclude)docs' | tar -x -C /tmp/karmada-src
  KARMADA_LITE_ENV_DIR=/tmp/kl-env-kbench npx tsx bench/karmada.bench.ts --karmada-src /tmp/karmada-src --templates 300
`;

const { values: flags } = parseArgs({
  options: {
    'karmada-src': { type: 'string' },
    templates: { type: 'string', default: '1000' },
    replicas: { type: 'string' },
    divided: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '1' },
    first: { type: 'string', default: 'karmada-lite' },
    only: { type: 'string' },
    'create-concurrency': { type: 'string', default: '8' },
    quiet: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '10' },
    timeout: { type: 'string', default: '1200' },
    'idle-seconds': { type: 'string', default: '20' },
    'karmada-arg': { type: 'string', multiple: true, default: [] },
    'controller-arg': { type: 'string', multiple: true, default: [] },
    reuse: { type: 'boolean', default: false },
    'keep-env': { type: 'boolean', default: false },
    json: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});

if (flags.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

function fail(msg: string): never {
  process.stderr.write(`error: ${msg}\n`);
  process.exit(2);
}
function intFlag(name: string, v: string, min: number): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer >= ${min}, got ${v}`);
  return n;
}
const SIDES: readonly Side[] = ['karmada-lite', 'karmada'];
function sideFlag(name: string, v: string): Side {
  if (!SIDES.includes(v as Side)) fail(`--${name} must be karmada-lite or karmada, got ${v}`);
  return v as Side;
}

if (!flags['karmada-src']) fail('--karmada-src DIR is required: a Karmada source tree to build karmada-controller-manager, karmada-scheduler and karmada-webhook from');
const N = intFlag('templates', flags.templates!, 1);
const DIVIDED = flags.divided!;
const REPLICAS = intFlag('replicas', flags.replicas ?? (DIVIDED ? '3' : '1'), 1);
const ROUNDS = intFlag('rounds', flags.rounds!, 1);
const CREATE_CONC = intFlag('create-concurrency', flags['create-concurrency']!, 1);
const QUIET_MS = intFlag('quiet', flags.quiet!, 1) * 1000;
const WARMUP_MS = intFlag('warmup', flags.warmup!, 0) * 1000;
const TIMEOUT_MS = intFlag('timeout', flags.timeout!, 1) * 1000;
const IDLE_S = intFlag('idle-seconds', flags['idle-seconds']!, 0);
const FIRST = sideFlag('first', flags.first!);
const ONLY = flags.only === undefined ? undefined : sideFlag('only', flags.only);
const LABEL = 'karmada-lite.bench/karmada';
const QPS = ['--kube-api-qps=40', '--kube-api-burst=60', '--cluster-api-qps=40', '--cluster-api-burst=60'];

const log = (s: string) => process.stderr.write(`[kbench ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pool<T>(items: readonly T[], conc: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(conc, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

// ---------------------------------------------------------------------------------------------------
// The workload

function deployment(ns: string, name: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns, labels: { app: name, [LABEL]: 'true' } },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'registry.local/app:v0', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] } },
    },
  };
}

function policies(ns: string): Array<{ path: string; body: unknown }> {
  const selector = [{ apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: { [LABEL]: 'true' } } }];
  const pp = {
    path: `/apis/policy.karmada.io/v1alpha1/namespaces/${ns}/propagationpolicies`,
    body: {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'bench', namespace: ns },
      spec: {
        resourceSelectors: selector,
        placement: {
          clusterAffinity: { clusterNames: ['member1', 'member2'] },
          replicaScheduling: DIVIDED
            ? {
                replicaSchedulingType: 'Divided',
                replicaDivisionPreference: 'Weighted',
                weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ['member1'] }, weight: 2 }, { targetCluster: { clusterNames: ['member2'] }, weight: 1 }] },
              }
            : { replicaSchedulingType: 'Duplicated' },
        },
      },
    },
  };
  if (!DIVIDED) return [pp];
  const op = {
    path: `/apis/policy.karmada.io/v1alpha1/namespaces/${ns}/overridepolicies`,
    body: {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'OverridePolicy',
      metadata: { name: 'bench', namespace: ns },
      spec: {
        resourceSelectors: selector,
        overrideRules: [{ targetCluster: { clusterNames: ['member2'] }, overriders: { imageOverrider: [{ component: 'Registry', operator: 'replace', value: 'mirror.local' }] } }],
      },
    },
  };
  return [op, pp];
}

// ---------------------------------------------------------------------------------------------------
// Measurement

interface Snapshot {
  t: number;
  requests: Record<string, Counts>;
  bench: Record<string, Counts>;
  cpu: Record<string, number | undefined>;
  client: Counts;
}

/**
 * The side's clients' rest_client_requests_total, by `host method`, summed over its processes; and under
 * DROPPED, the Event occurrences karmada-lite's recorder did not write (client-go counts none of its drops).
 */
async function clientRequests(ports: readonly number[]): Promise<Counts> {
  const out: Counts = new Map();
  for (const port of ports) {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => undefined);
    if (!res?.ok) continue;
    const text = await res.text();
    for (const m of text.matchAll(/^rest_client_requests_total\{([^}]*)\} (\S+)$/gm)) {
      const host = /host="([^"]*)"/.exec(m[1]!)?.[1] ?? '?';
      const method = /method="([^"]*)"/.exec(m[1]!)?.[1] ?? '?';
      const k = `${host} ${method}`;
      out.set(k, (out.get(k) ?? 0) + Number(m[2]));
    }
    for (const m of text.matchAll(/^karmada_lite_events_dropped_total\{[^}]*\} (\S+)$/gm)) out.set(DROPPED, (out.get(DROPPED) ?? 0) + Number(m[1]));
  }
  return out;
}
const DROPPED = 'events dropped';

/**
 * What the members' own controllers, scheduler and kwok do whichever side runs: every request on the objects
 * they own (Pods, ReplicaSets, Nodes, Leases, Events, Endpoints), and every status write. Left out of the
 * members' table; the sides' own client counts are the exact totals.
 */
function fleetRequest(k: string): boolean {
  const [verb, res] = k.split(' ');
  const [resource, sub] = res!.split('/');
  if (['pods', 'replicasets', 'nodes', 'leases', 'events', 'endpoints', 'endpointslices', 'controllerrevisions'].includes(resource!)) return true;
  return sub !== undefined && !['GET', 'LIST', 'WATCH'].includes(verb!);
}

interface SideRun {
  side: Side;
  round: number;
  namespace: string;
  started: string;
  load: [number, number, number][];
  /** Seconds from the policy's create. */
  createsS: number;
  firstOnBothS: number;
  allMemberObjectsS: number;
  allScheduledS: number;
  allFullyAppliedS: number;
  lastEventS: number;
  endS: number;
  perTemplateP50Ms: number;
  perTemplateP99Ms: number;
  /** Per template. */
  hostRequests: Record<string, number>;
  memberRequests: Record<string, number>;
  memberFleetRequests: Record<string, number>;
  /** The side's own count per member and method (rest_client_requests_total), per template. */
  clientPerTemplate: Record<string, number>;
  eventWritesPerTemplate: number;
  /** karmada-lite's karmada_lite_events_dropped_total over the workload; NaN for Karmada (client-go keeps no count). */
  eventsDroppedPerTemplate: number;
  eventsSeen: Record<string, number>;
  /** Over the workload. */
  cpuS: Record<string, number>;
  /** Over each process's life (start-up included). */
  lifeCpuS: Record<string, number>;
  peakRssMiB: Record<string, number>;
  /** Member objects whose replicas or image are not what the policies say. */
  wrongMemberObjects: number;
  missing?: string;
}

class Bench {
  readonly rest: Record<ClusterName, CountingRestClient>;
  readonly fleetPids: Record<string, number | undefined>;
  idleRate: Record<string, Counts> = {};

  constructor(readonly env: K8sEnv) {
    this.rest = { host: new CountingRestClient(kubeConfigOf(env, 'host')), member1: new CountingRestClient(kubeConfigOf(env, 'member1')), member2: new CountingRestClient(kubeConfigOf(env, 'member2')) };
    this.fleetPids = { etcd: pidFromFile(env.etcd.pidFile) };
    for (const c of CLUSTERS) this.fleetPids[`apiserver ${c}`] = pidFromFile(clusterInfo(env, c).pidFile);
  }

  async snapshot(procs: readonly Proc[], metricsPorts: readonly number[]): Promise<Snapshot> {
    const bench = Object.fromEntries(CLUSTERS.map((c) => [c, new Map(this.rest[c].counts)]));
    const [requests, client] = await Promise.all([Promise.all(CLUSTERS.map((c) => apiserverRequests(this.rest[c]))), clientRequests(metricsPorts)]);
    const cpu: Record<string, number | undefined> = {};
    for (const p of procs) cpu[p.name] = cpuSeconds(p.pid);
    for (const [k, pid] of Object.entries(this.fleetPids)) cpu[k] = cpuSeconds(pid);
    return { t: performance.now(), requests: Object.fromEntries(CLUSTERS.map((c, i) => [c, requests[i]!])), bench, cpu, client };
  }

  /** The apiservers' own requests per second with nothing of either side running (the fleet's controllers idle). */
  async measureIdle(seconds: number): Promise<void> {
    if (seconds <= 0) return;
    const before = await this.snapshot([], []);
    await sleep(seconds * 1000);
    const after = await this.snapshot([], []);
    const s = (after.t - before.t) / 1000;
    for (const c of CLUSTERS) {
      const own = diffCounts(diffCounts(after.requests[c]!, before.requests[c]!), diffCounts(after.bench[c]!, before.bench[c]!));
      this.idleRate[c] = new Map([...own].map(([k, v]) => [k, v / s]));
    }
    log(`the apiservers' own requests over ${s.toFixed(0)} s: ${CLUSTERS.map((c) => `${c} ${sumCounts(this.idleRate[c]!) * s}`).join(', ')}`);
  }

  /** The side's requests between two snapshots: served, less the bench's own, less the idle rate. */
  requestsBetween(a: Snapshot, b: Snapshot, c: ClusterName): Counts {
    const s = (b.t - a.t) / 1000;
    const served = diffCounts(b.requests[c]!, a.requests[c]!);
    const notBench = diffCounts(served, diffCounts(b.bench[c]!, a.bench[c]!));
    return diffCounts(notBench, new Map([...(this.idleRate[c] ?? [])].map(([k, r]) => [k, r * s])));
  }
}

// ---------------------------------------------------------------------------------------------------
// One side

interface Started {
  procs: Proc[];
  metricsPorts: number[];
  configs: any[];
}

async function startSide(side: Side, b: Bench, karmada: KarmadaBuild, cert: WebhookCert, ns: string, logDir: string): Promise<Started> {
  const host = b.rest.host;
  const kubeconfig = clusterInfo(b.env, 'host').kubeconfig;
  const webhookPort = await freePort();
  const procs: Proc[] = [];
  const metricsPorts: number[] = [];
  if (side === 'karmada') {
    const [whMetrics, whHealth, cmMetrics, cmHealth, schMetrics, schHealth] = await Promise.all(Array.from({ length: 6 }, () => freePort()));
    const certDir = cert.dir;
    const wh = startProc(
      'karmada-webhook',
      karmada.bin['karmada-webhook'],
      ['--kubeconfig', kubeconfig, '--bind-address=127.0.0.1', `--secure-port=${webhookPort}`, `--cert-dir=${certDir}`, `--metrics-bind-address=127.0.0.1:${whMetrics}`, `--health-probe-bind-address=127.0.0.1:${whHealth}`, '--kube-api-qps=40', '--kube-api-burst=60'],
      logDir,
      log,
    );
    procs.push(wh);
    metricsPorts.push(whMetrics!);
    // Its TLS server's own readiness path (the probe port has no checks registered).
    await waitReady(wh, `https://127.0.0.1:${webhookPort}/readyz/`, cert.caPem);
    const configs = webhookConfigurations('karmada', webhookPort, cert.caPem, karmada.src);
    await installWebhookConfigurations(host, configs);
    await waitForAdmission(host, ns);
    const cm = startProc(
      'karmada-controller-manager',
      karmada.bin['karmada-controller-manager'],
      ['--kubeconfig', kubeconfig, '--leader-elect=false', `--metrics-bind-address=127.0.0.1:${cmMetrics}`, `--health-probe-bind-address=127.0.0.1:${cmHealth}`, ...QPS, ...(flags['karmada-arg'] ?? [])],
      logDir,
      log,
    );
    const sch = startProc(
      'karmada-scheduler',
      karmada.bin['karmada-scheduler'],
      ['--kubeconfig', kubeconfig, '--leader-elect=false', `--metrics-bind-address=127.0.0.1:${schMetrics}`, `--health-probe-bind-address=127.0.0.1:${schHealth}`, '--kube-api-qps=40', '--kube-api-burst=60', '--enable-scheduler-estimator=false'],
      logDir,
      log,
    );
    procs.push(cm, sch);
    metricsPorts.push(cmMetrics!, schMetrics!);
    await waitReady(cm, `http://127.0.0.1:${cmHealth}/healthz`);
    await waitReady(sch, `http://127.0.0.1:${schHealth}/healthz`);
    return { procs, metricsPorts, configs };
  }
  const binary = path.join(distDir(), 'karmada-lite');
  const wh = startProc('karmada-lite webhook', binary, ['webhook', '--cert-file', cert.certFile, '--key-file', cert.keyFile, '--port', String(webhookPort), '--bind-address', '127.0.0.1'], logDir, log);
  procs.push(wh);
  await waitReady(wh, `https://127.0.0.1:${webhookPort}/readyz`, cert.caPem);
  const configs = webhookConfigurations('karmada-lite', webhookPort, cert.caPem, karmada.src);
  await installWebhookConfigurations(host, configs);
  await waitForAdmission(host, ns);
  const port = await freePort();
  const ctrl = startProc('karmada-lite controller', binary, ['controller', '--kubeconfig', kubeconfig, '--metrics-port', String(port), '--bind-address', '127.0.0.1', ...QPS, ...(flags['controller-arg'] ?? [])], logDir, log);
  procs.push(ctrl);
  metricsPorts.push(port);
  await waitReady(ctrl, `http://127.0.0.1:${port}/readyz`);
  return { procs, metricsPorts, configs };
}

async function membersReady(host: RestClient): Promise<void> {
  await waitFor(
    'member1 and member2 Ready with their APIs listed',
    async () => {
      for (const m of MEMBERS) {
        const c = await getOrUndefined(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${m}`);
        if (!(c?.status?.conditions ?? []).some((x: any) => x.type === 'Ready' && x.status === 'True') || !c.status.apiEnablements) return undefined;
      }
      return true;
    },
    120_000,
    500,
  );
}

async function runSide(side: Side, round: number, b: Bench, karmada: KarmadaBuild, cert: WebhookCert, workDir: string): Promise<SideRun> {
  const host = b.rest.host;
  const ns = `kbench-${side === 'karmada' ? 'k' : 'l'}${round}-${Date.now().toString(36)}`;
  const logDir = path.join(workDir, `${round}-${side}`);
  mkdirSync(logDir, { recursive: true });
  const load: [number, number, number][] = [loadAverage()];
  log(`round ${round}, ${side}: namespace ${ns}, logs in ${logDir} (load ${load[0]!.join(' ')})`);

  // The side's CRDs; Karmada's Cluster is served by its aggregated apiserver, not run here: karmada-lite's CRD stands in.
  const crds = side === 'karmada' ? [...karmadaCrdFiles(karmada.src), ...liteCrdFiles().filter((f) => f.endsWith('cluster.karmada.io_clusters.yaml'))] : liteCrdFiles();
  await applyCrds(host, crds);
  for (const n of ['karmada-system', 'karmada-cluster', ns]) await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: n } } }));
  for (const m of MEMBERS) await joinMember(b.env, host, m);

  let started: Started | undefined;
  const watches = { member1: new MemberWatch('member1', b.rest.member1, ns), member2: new MemberWatch('member2', b.rest.member2, ns) };
  const bindings = new BindingTimes(host, ns);
  const events = new EventTimes(host, [ns, 'karmada-es-member1', 'karmada-es-member2']);
  let stopSampling = () => {};
  try {
    started = await startSide(side, b, karmada, cert, ns, logDir);
    stopSampling = sampleRss(started.procs);
    await membersReady(host);
    if (WARMUP_MS) await sleep(WARMUP_MS);
    for (const m of MEMBERS) await watches[m].start();
    await bindings.watch.start();
    await events.watch.start();

    const before = await b.snapshot(started.procs, started.metricsPorts);
    const t0 = performance.now();
    const startedAt = new Date().toISOString();
    for (const p of policies(ns)) await host.request('POST', p.path, { body: p.body });
    const names = Array.from({ length: N }, (_, i) => `app-${String(i).padStart(5, '0')}`);
    const sentAt = new Map<string, number>();
    const progress = setInterval(
      () => log(`  ${side}: member1 ${watches.member1.count}/${N}, member2 ${watches.member2.count}/${N}, Scheduled ${bindings.scheduledAt.size}, FullyApplied ${bindings.fullyAppliedAt.size}, Events ${events.writes}, ${((performance.now() - t0) / 1000).toFixed(0)} s`),
      10_000,
    );
    let createsDone = 0;
    let missing: string | undefined;
    try {
      await pool(names, CREATE_CONC, async (name) => {
        sentAt.set(name, performance.now());
        await host.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment(ns, name) });
      });
      createsDone = performance.now();
      // Everything there, then nothing moving for QUIET_MS: the Events and statuses that trail the member objects are part of the work.
      await waitFor(
        `${side}: ${N} member objects on each member, ${N} bindings Scheduled and FullyApplied, then ${QUIET_MS / 1000} s without a change`,
        async () => {
          const done = MEMBERS.every((m) => watches[m].count >= N) && bindings.scheduledAt.size >= N && bindings.fullyAppliedAt.size >= N;
          const last = Math.max(lastMemberAt(watches.member1), lastMemberAt(watches.member2), bindings.watch.lastEventAt, events.lastAt);
          return done && performance.now() - last >= QUIET_MS ? true : undefined;
        },
        TIMEOUT_MS,
        500,
      ).catch((e) => {
        missing = (e as Error).message;
        log(`${side}: ${missing}`);
      });
    } finally {
      clearInterval(progress);
    }
    const after = await b.snapshot(started.procs, started.metricsPorts);
    const endS = (after.t - t0) / 1000;
    load.push(loadAverage());

    const s = (x: number) => (x - t0) / 1000;
    const maxOf = (m: Map<string, number>) => (m.size >= N ? Math.max(...m.values()) : NaN);
    const lastOnBoth = names.map((n) => Math.max(watches.member1.addedAt.get(n) ?? NaN, watches.member2.addedAt.get(n) ?? NaN));
    const lat = names.map((n, i) => lastOnBoth[i]! - sentAt.get(n)!).filter((x) => !Number.isNaN(x)).sort((x, y) => x - y);
    const perT = (c: Counts) => Object.fromEntries([...c].sort((x, y) => y[1] - x[1]).map(([k, v]) => [k, v / N]));
    const members = add(b.requestsBetween(before, after, 'member1'), b.requestsBetween(before, after, 'member2'));
    const hostReq = b.requestsBetween(before, after, 'host');
    const memberHosts = new Map(MEMBERS.map((m) => [new URL(clusterInfo(b.env, m).server).host, m]));
    const client: Record<string, number> = {};
    let eventsDropped = 0;
    for (const [k, v] of diffCounts(after.client, before.client)) {
      if (k === DROPPED) {
        eventsDropped += v;
        continue;
      }
      const [h, method] = k.split(' ');
      const who = memberHosts.get(h!) ?? (h === new URL(clusterInfo(b.env, 'host').server).host ? 'host' : h!);
      client[`${who} ${method}`] = (client[`${who} ${method}`] ?? 0) + v / N;
    }
    const cpuS: Record<string, number> = {};
    for (const k of Object.keys(after.cpu)) if (after.cpu[k] !== undefined && before.cpu[k] !== undefined) cpuS[k] = after.cpu[k]! - before.cpu[k]!;
    const lifeCpuS: Record<string, number> = {};
    const peakRssMiB: Record<string, number> = {};
    for (const p of started.procs) {
      const f = procFigures(p);
      lifeCpuS[p.name] = f.cpuS;
      peakRssMiB[p.name] = f.peakMiB;
    }
    // What the members hold: Duplicated, every replica on both; Divided, 2:1 and member2's image from the OverridePolicy.
    const want: Record<Member, number> = DIVIDED ? { member1: Math.round((REPLICAS * 2) / 3), member2: REPLICAS - Math.round((REPLICAS * 2) / 3) } : { member1: REPLICAS, member2: REPLICAS };
    let wrongMemberObjects = 0;
    for (const m of MEMBERS) {
      for (const n of names) {
        const image = watches[m].images.get(n);
        if (image === undefined) continue;
        if (watches[m].replicas.get(n) !== want[m] || (DIVIDED && m === 'member2') !== image.startsWith('mirror.local/')) wrongMemberObjects++;
      }
    }
    let eventWrites = 0;
    for (const [k, v] of hostReq) if (/^(POST|PATCH|PUT) events( |$)/.test(k)) eventWrites += v;
    return {
      side,
      round,
      namespace: ns,
      started: startedAt,
      load,
      createsS: s(createsDone),
      firstOnBothS: s(Math.min(...lastOnBoth.filter((x) => !Number.isNaN(x)))),
      allMemberObjectsS: lastOnBoth.some((x) => Number.isNaN(x)) ? NaN : s(Math.max(...lastOnBoth)),
      allScheduledS: s(maxOf(bindings.scheduledAt)),
      allFullyAppliedS: s(maxOf(bindings.fullyAppliedAt)),
      lastEventS: events.lastAt ? s(events.lastAt) : NaN,
      endS,
      perTemplateP50Ms: lat.length ? percentile(lat, 50) : NaN,
      perTemplateP99Ms: lat.length ? percentile(lat, 99) : NaN,
      hostRequests: perT(hostReq),
      memberRequests: perT(new Map([...members].filter(([k]) => !fleetRequest(k)))),
      memberFleetRequests: perT(new Map([...members].filter(([k]) => fleetRequest(k)))),
      clientPerTemplate: client,
      eventWritesPerTemplate: eventWrites / N,
      eventsDroppedPerTemplate: side === 'karmada' ? NaN : eventsDropped / N,
      eventsSeen: Object.fromEntries([...events.byReason].sort((x, y) => y[1] - x[1])),
      cpuS,
      lifeCpuS,
      peakRssMiB,
      wrongMemberObjects,
      missing,
    };
  } finally {
    stopSampling();
    for (const m of MEMBERS) watches[m].stop();
    bindings.watch.stop();
    events.watch.stop();
    for (const p of [...(started?.procs ?? [])].reverse()) {
      const code = await stopProc(p);
      log(`${p.name} stopped (exit ${code})`);
    }
    if (started) await removeWebhookConfigurations(host, started.configs);
    await cleanupSide(b, ns).catch((e) => log(`cleanup of ${ns} failed: ${(e as Error).message}`));
  }
}

/** The last member object's arrival (their status changes are the fleet's, not the side's). */
function lastMemberAt(w: MemberWatch): number {
  return Math.max(0, ...w.addedAt.values());
}

/** Everything of a side gone: its templates, policies, bindings, Works and Events, its member objects and namespaces, its Clusters. */
async function cleanupSide(b: Bench, ns: string): Promise<void> {
  const host = b.rest.host;
  const list = async (c: RestClient, p: string) => ((await getOrUndefined(c, p))?.items ?? []) as any[];
  const t = performance.now();
  for (const p of [
    `/apis/apps/v1/namespaces/${ns}/deployments`,
    `/apis/work.karmada.io/v1alpha2/namespaces/${ns}/resourcebindings`,
    `/apis/policy.karmada.io/v1alpha1/namespaces/${ns}/propagationpolicies`,
    `/apis/policy.karmada.io/v1alpha1/namespaces/${ns}/overridepolicies`,
    ...MEMBERS.map((m) => `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${m}/works`),
  ]) {
    for (const o of await list(host, p)) await stripAndDelete(host, `${p}/${o.metadata.name}`);
  }
  await unjoinMembers(host);
  for (const c of CLUSTERS) await b.rest[c].request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
  // The namespace controllers (the host's and each member's) empty them; Pods go as kwok lets them.
  await waitFor(
    `namespace ${ns} gone on the host and the members`,
    async () => {
      for (const c of CLUSTERS) if (await getOrUndefined(b.rest[c], `/api/v1/namespaces/${ns}`)) return undefined;
      return true;
    },
    300_000,
    1000,
  ).catch((e) => log(`cleanup: ${(e as Error).message}`));
  log(`cleaned up ${ns} in ${((performance.now() - t) / 1000).toFixed(0)} s`);
}

// ---------------------------------------------------------------------------------------------------
// Report

function table(rows: string[][]): string {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  ')).join('\n');
}

const median = (xs: number[]) => {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
};
const f1 = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(1));
const f2 = (x: number) => (Number.isNaN(x) || x === 0 ? '-' : x.toFixed(2));
const sumOf = (r: Record<string, number>, pred: (k: string) => boolean = () => true) => Object.entries(r).reduce((a, [k, v]) => a + (pred(k) ? v : 0), 0);
const notEvents = (k: string) => !/ events( |$)/.test(k);

function report(runs: readonly SideRun[], meta: Record<string, unknown>): string {
  const out: string[] = [];
  out.push(`karmada-lite beside Karmada ${meta.karmada}: ${N} Deployments (${REPLICAS} replicas), ${DIVIDED ? 'Divided 2:1 with an OverridePolicy' : 'Duplicated'} over member1 and member2, ${ROUNDS} round(s); ${meta.started} – ${meta.ended}`);
  out.push(`client limits 40/60 host and members for both; load (1/5/15 min) at the start ${(meta.loadStart as number[]).join(' ')}, at the end ${(meta.loadEnd as number[]).join(' ')}`);
  out.push('');
  const by = (side: Side) => runs.filter((r) => r.side === side);
  const med = (side: Side, f: (r: SideRun) => number) => median(by(side).map(f));
  const rows: Array<[string, (r: SideRun) => number, (x: number) => string]> = [
    ['creates sent (s)', (r) => r.createsS, f1],
    ['first template on both members (s)', (r) => r.firstOnBothS, f1],
    ['every member object (s)', (r) => r.allMemberObjectsS, f1],
    ['every binding Scheduled (s)', (r) => r.allScheduledS, f1],
    ['every binding FullyApplied (s)', (r) => r.allFullyAppliedS, f1],
    ['last Event (s)', (r) => r.lastEventS, f1],
    ['per template p50 (s)', (r) => r.perTemplateP50Ms / 1000, f2],
    ['per template p99 (s)', (r) => r.perTemplateP99Ms / 1000, f2],
    ['host requests per template, no Events', (r) => sumOf(r.hostRequests, notEvents), f2],
    ['host Event writes per template', (r) => r.eventWritesPerTemplate, f2],
    ['Events dropped per template (client-go counts none)', (r) => r.eventsDroppedPerTemplate, f2],
    ["member requests per template (the fleet's out)", (r) => sumOf(r.memberRequests), f2],
    ["members, the side's own client count per template", (r) => sumOf(r.clientPerTemplate, (k) => k.startsWith('member')), f2],
    ["host, the side's own client count per template", (r) => sumOf(r.clientPerTemplate, (k) => k.startsWith('host')), f2],
    ['CPU s of the side over the workload', (r) => sumOf(r.cpuS, (k) => k.startsWith('karmada')), f1],
    ['CPU s of the side, whole life', (r) => sumOf(r.lifeCpuS), f1],
    ['peak RSS of the side, MiB (sum of processes)', (r) => sumOf(r.peakRssMiB), f1],
    ['CPU s host apiserver', (r) => r.cpuS['apiserver host'] ?? NaN, f1],
    ['CPU s member apiservers', (r) => (r.cpuS['apiserver member1'] ?? NaN) + (r.cpuS['apiserver member2'] ?? NaN), f1],
    ['CPU s etcd', (r) => r.cpuS.etcd ?? NaN, f1],
  ];
  const both = by('karmada-lite').length > 0 && by('karmada').length > 0;
  out.push(
    table([
      ['', 'karmada-lite', 'Karmada', 'lite / Karmada'],
      ...rows.map(([name, f, fmt]) => {
        const l = med('karmada-lite', f);
        const k = med('karmada', f);
        return [name, fmt(l), fmt(k), both && k ? (l / k).toFixed(2) : '-'];
      }),
    ]),
  );
  out.push(ROUNDS > 1 ? `(medians over ${ROUNDS} rounds)` : '');
  out.push('Processes: CPU s over the workload / over its life, peak RSS MiB:');
  for (const r of runs) out.push(`  round ${r.round} ${r.side}: ${Object.keys(r.lifeCpuS).map((p) => `${p} ${f1(r.cpuS[p] ?? NaN)} / ${f1(r.lifeCpuS[p]!)} s, ${f1(r.peakRssMiB[p]!)} MiB`).join('; ')}`);
  out.push('');
  out.push('Requests per template by verb and resource (round medians; Event writes at the bottom):');
  const keysOf = (f: (r: SideRun) => Record<string, number>) => [...new Set(runs.flatMap((r) => Object.keys(f(r))))];
  for (const [title, f] of [
    ['host', (r: SideRun) => r.hostRequests],
    ["members (member1 + member2; Pods, ReplicaSets, Nodes, Leases, Events, Endpoints and status writes left out: the fleet's own)", (r: SideRun) => r.memberRequests],
  ] as const) {
    const keys = keysOf(f)
      .map((k) => [k, med('karmada-lite', (r) => f(r)[k] ?? 0), med('karmada', (r) => f(r)[k] ?? 0)] as const)
      .filter(([, l, k]) => l >= 0.01 || k >= 0.01)
      .sort((a, b) => Number(!notEvents(a[0])) - Number(!notEvents(b[0])) || b[1] + b[2] - (a[1] + a[2]));
    out.push(`  ${title}:`);
    out.push(table([['    request', 'karmada-lite', 'Karmada'], ...keys.map(([k, l, kk]) => [`    ${k}`, f2(l), f2(kk)])]));
  }
  out.push("  the sides' own client counts (rest_client_requests_total) per template, by apiserver and method:");
  const ck = keysOf((r) => r.clientPerTemplate).sort();
  out.push(table([['    apiserver method', 'karmada-lite', 'Karmada'], ...ck.map((k) => [`    ${k}`, f2(med('karmada-lite', (r) => r.clientPerTemplate[k] ?? 0)), f2(med('karmada', (r) => r.clientPerTemplate[k] ?? 0))])]));
  out.push('');
  for (const r of runs) {
    out.push(`Events seen, round ${r.round} ${r.side} (kind reason writes): ${Object.entries(r.eventsSeen).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`);
    if (r.missing) out.push(`  NOT FINISHED: ${r.missing}`);
    if (r.wrongMemberObjects) out.push(`  ${r.wrongMemberObjects} member objects with replicas or image other than the policies say`);
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------

function ensureLiteBinary(): void {
  if (existsSync(path.join(distDir(), 'karmada-lite'))) return;
  log(`building ${distDir()}/karmada-lite (node scripts/build.mjs)`);
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs')], { cwd: repoRoot, stdio: 'inherit', env: { ...process.env, KARMADA_LITE_DIST: distDir() } });
  if (r.status !== 0) throw new Error('node scripts/build.mjs failed');
}

async function main(): Promise<void> {
  const karmada = ensureKarmadaBuild(flags['karmada-src']!, log, ONLY !== 'karmada-lite');
  if (ONLY !== 'karmada-lite') log(`Karmada ${karmada.id}: ${karmada.dir}${karmada.built ? '' : ' (cached)'}`);
  ensureLiteBinary();
  const running = envRunning();
  if (flags.reuse && !running) throw new Error(`--reuse: no environment is running in ${envDir()} (bash scripts/k8s/env.sh start)`);
  if (!running) {
    log(`starting an environment in ${envDir()}`);
    envStart();
  } else log(`reusing the environment running in ${envDir()}`);
  const startedEnv = !running;
  const workDir = mkdtempSync(path.join(tmpdir(), 'kbench-'));
  const runs: SideRun[] = [];
  const started = new Date().toISOString();
  const loadStart = loadAverage();
  let failure: unknown;
  try {
    const env = readEnv();
    const b = new Bench(env);
    const cert = makeWebhookCert(path.join(workDir, 'cert'));
    // A previous run's leftovers: no Cluster may stay joined, no side's webhook configuration may stay installed.
    await unjoinMembers(b.rest.host);
    await removeWebhookConfigurations(b.rest.host, [...webhookConfigurations('karmada', 1, cert.caPem, karmada.src), ...webhookConfigurations('karmada-lite', 1, cert.caPem, karmada.src)]);
    await b.measureIdle(IDLE_S);
    for (let round = 1; round <= ROUNDS; round++) {
      const order: Side[] = ONLY ? [ONLY] : (round % 2 === 1) === (FIRST === 'karmada-lite') ? ['karmada-lite', 'karmada'] : ['karmada', 'karmada-lite'];
      for (const side of order) runs.push(await runSide(side, round, b, karmada, cert, workDir));
    }
  } catch (e) {
    failure = e;
    log(`FAILED: ${(e as Error).stack ?? e}`);
  } finally {
    const meta = { started, ended: new Date().toISOString(), karmada: karmada.id, karmadaSrc: karmada.src, templates: N, replicas: REPLICAS, divided: DIVIDED, rounds: ROUNDS, loadStart, loadEnd: loadAverage(), env: envDir(), dist: distDir(), workDir };
    if (runs.length) process.stdout.write(report(runs, meta) + '\n');
    if (flags.json) writeFileSync(flags.json, JSON.stringify({ meta, runs }, null, 1));
    if (startedEnv && !flags['keep-env']) {
      log('stopping the environment this bench started');
      envStop();
    }
  }
  process.exit(failure ? 1 : 0);
}

await main();
