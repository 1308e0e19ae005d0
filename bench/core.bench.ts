/**
 * Reconcile-core benchmark on the embedded control plane: `npx tsx bench/core.bench.ts` (plain script;
 * figures in bench/README.md, section "Reconcile core").
 *
 * For each size (1,000 to 10,000 Deployments) a fresh process: 10 member clusters, one
 * PropagationPolicy per 100 templates (label selector, Divided replicas, application failover),
 * then: the first propagation until nothing changes; a change of every template; single template
 * changes; and 10% of the templates failing over. Targets: first propagation of 10,000 under 15 s,
 * peak memory under 2 GB, time about linear in the number of templates, one template change under 5 ms.
 *
 *   npx tsx bench/core.bench.ts                 sizes 1000, 2000, 5000, 10000 (or the sizes given)
 *   npx tsx bench/core.bench.ts --size 10000    one size, JSON result on stdout
 *   --core-only                                  swap the interpreter for a minimal TypeScript one, to
 *                                                measure the reconcile core without Lua
 *   --tsx                                        run each size from the TypeScript sources through tsx
 *                                                instead of the bundle (for profiles that name source files)
 *
 * Each size runs in a fresh process on the code as it ships: this file bundled by esbuild with the
 * binary's build options (scripts/bundle.mjs) into a temporary directory. (Runs through tsx took as
 * long at best but varied far more: 12.0 to 18.6 s where the bundle took 11.0 to 12.8 s.)
 *   --dump 300 [--clone]                         no timing: print every object, resourceVersion, watch
 *                                                event, event and run count of a smaller pipeline (with
 *                                                overrides, changes, failover and deletions), to diff the
 *                                                output of two versions of the code byte for byte;
 *                                                --clone keeps the store's copy-on-write and freezing on
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ControlPlane } from '../src/store/control-plane.js';
import type { KObject } from '../src/core/object.js';
import type { Interpreter } from '../src/core/ports.js';

/**
 * What the built-in Lua interpreters do for a Deployment, in a few lines of TypeScript: the reconcile
 * core's own cost, without the Lua sandbox's per-call price.
 */
const tsInterpreter: Interpreter = {
  hookEnabled: (t, op) => t.kind === 'Deployment' && op !== 'InterpretDependency',
  getReplicas: (o) => ({ replicas: o.spec?.replicas ?? 0, replicaRequirements: null }),
  reviseReplica: (o, n) => ({ ...o, spec: { ...o.spec, replicas: n } }),
  retain: (d, o) => (d.metadata.labels?.['resourcetemplate.karmada.io/retain-replicas'] === 'true' ? { ...d, spec: { ...d.spec, replicas: o.spec?.replicas } } : d),
  reflectStatus: (o) => {
    const s = o.status ?? {};
    return { replicas: s.replicas, updatedReplicas: s.updatedReplicas, readyReplicas: s.readyReplicas, availableReplicas: s.availableReplicas, unavailableReplicas: s.unavailableReplicas, observedGeneration: s.observedGeneration, generation: o.metadata.generation };
  },
  interpretHealth: (o) => {
    const s = o.status ?? {};
    return s.observedGeneration === o.metadata.generation && (s.updatedReplicas ?? 0) >= (o.spec?.replicas ?? 0) && (s.availableReplicas ?? 0) >= (s.updatedReplicas ?? 0);
  },
  aggregateStatus: (o, items) => {
    const sum = (k: string) => items.reduce((a, i) => a + Number((i.status as Record<string, number> | undefined)?.[k] ?? 0), 0);
    return { ...o, status: { ...o.status, replicas: sum('replicas'), readyReplicas: sum('readyReplicas'), availableReplicas: sum('availableReplicas'), updatedReplicas: sum('updatedReplicas') } };
  },
  getDependencies: () => [],
};

const CLUSTERS = 10;
const PER_POLICY = 100;
const REPLICAS = 10;

interface Result {
  templates: number;
  works: number;
  memberObjects: number;
  firstPropagationMs: number;
  /** CPU time of this process (all threads, GC included) for the first propagation: unlike wall time, other processes on the machine do not inflate it much. */
  firstPropagationCpuMs: number;
  changeAllMs: number;
  changeAllCpuMs: number;
  singleChangeMedianMs: number;
  singleChangeP95Ms: number;
  /** The same single changes in CPU time of this process: on a shared machine, wall time mostly measures waiting for a core. */
  singleChangeCpuMedianMs: number;
  singleChangeCpuP95Ms: number;
  failoverTemplates: number;
  failoverMs: number;
  failoverCpuMs: number;
  failedOver: number;
  peakRssMB: number;
  reconciles: number;
}

function deployment(i: number, image: string): KObject {
  const app = `app-${i}`;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: app, namespace: 'bench', labels: { app, 'bench/group': `g${Math.floor(i / PER_POLICY)}` } },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: { containers: [{ name: 'main', image, ports: [{ containerPort: 8080 }], resources: { requests: { cpu: '100m', memory: '128Mi' } } }] },
      },
    },
  };
}

function policy(g: number): KObject {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: `group-${g}`, namespace: 'bench' },
    spec: {
      propagateDeps: true,
      resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: { 'bench/group': `g${g}` } } }],
      placement: {
        replicaScheduling: {
          replicaSchedulingType: 'Divided',
          replicaDivisionPreference: 'Weighted',
          weightPreference: { staticWeightList: Array.from({ length: CLUSTERS }, (_, c) => ({ targetCluster: { clusterNames: [`member${c + 1}`] }, weight: 1 })) },
        },
      },
      failover: { application: { decisionConditions: { tolerationSeconds: 60 }, purgeMode: 'Directly' } },
    },
  };
}

function time(f: () => void): number {
  const t = performance.now();
  f();
  return performance.now() - t;
}

let lastCpuMs = 0;
/** Wall time of f; its CPU time is left in lastCpuMs. */
function timed(f: () => void): number {
  const c = process.cpuUsage();
  const ms = time(f);
  const used = process.cpuUsage(c);
  lastCpuMs = (used.user + used.system) / 1000;
  return ms;
}

function runSize(n: number, coreOnly: boolean): Result {
  // Freezing and copying every stored object are test-time safety nets; the bench measures the core.
  const cp = new ControlPlane({ freeze: false, cloneOnWrite: false, maxEvents: 20_000, interpreter: coreOnly ? tsInterpreter : undefined });
  for (let c = 1; c <= CLUSTERS; c++) {
    cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: `member${c}` }, spec: { syncMode: 'Push', region: c <= 5 ? 'eu' : 'us' } });
  }
  cp.settle();
  let reconciles = 0;

  const firstPropagationMs = timed(() => {
    for (let g = 0; g < n / PER_POLICY; g++) cp.apply(policy(g));
    for (let i = 0; i < n; i++) cp.apply(deployment(i, 'registry.example.com/app:1'));
    reconciles += cp.settle().reconciles;
  });
  const firstPropagationCpuMs = lastCpuMs;
  const works = cp.store.list({ apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work' }).length;
  let memberObjects = 0;
  for (let c = 1; c <= CLUSTERS; c++) memberObjects += cp.store.list({ apiVersion: 'apps/v1', kind: 'Deployment' }, {}, `member${c}`).length;

  const changeAllMs = timed(() => {
    for (let i = 0; i < n; i++) cp.apply(deployment(i, 'registry.example.com/app:2'));
    reconciles += cp.settle().reconciles;
  });
  const changeAllCpuMs = lastCpuMs;

  const singles: number[] = [];
  const singlesCpu: number[] = [];
  for (let k = 0; k < 50; k++) {
    const i = (k * 7919) % n;
    singles.push(
      timed(() => {
        cp.apply(deployment(i, `registry.example.com/app:3-${k}`));
        reconciles += cp.settle().reconciles;
      }),
    );
    singlesCpu.push(lastCpuMs);
  }
  singles.sort((a, b) => a - b);
  singlesCpu.sort((a, b) => a - b);

  // 10% of the templates turn unhealthy on the cluster with most of their replicas; failover moves them.
  const failing = Math.floor(n / 10);
  for (let i = 0; i < failing; i++) {
    const b = cp.get({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', namespace: 'bench', name: `app-${i}-deployment` })!;
    const target = (b.spec.clusters as Array<{ name: string }>)[0]!.name;
    cp.setMemberState(target, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'bench', name: `app-${i}` }, { health: 'Unhealthy' });
  }
  reconciles += cp.settle().reconciles;
  const failoverMs = timed(() => {
    reconciles += cp.advance(61).reconciles;
  });
  const failoverCpuMs = lastCpuMs;
  let failedOver = 0;
  for (let i = 0; i < failing; i++) {
    const b = cp.get({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', namespace: 'bench', name: `app-${i}-deployment` })!;
    if ((b.spec.activeEvictionHistory ?? []).length > 0) failedOver++;
  }

  return {
    templates: n,
    works,
    memberObjects,
    firstPropagationMs: Math.round(firstPropagationMs),
    firstPropagationCpuMs: Math.round(firstPropagationCpuMs),
    changeAllMs: Math.round(changeAllMs),
    changeAllCpuMs: Math.round(changeAllCpuMs),
    singleChangeMedianMs: Number(singles[Math.floor(singles.length / 2)]!.toFixed(2)),
    singleChangeP95Ms: Number(singles[Math.floor(singles.length * 0.95)]!.toFixed(2)),
    singleChangeCpuMedianMs: Number(singlesCpu[Math.floor(singlesCpu.length / 2)]!.toFixed(2)),
    singleChangeCpuP95Ms: Number(singlesCpu[Math.floor(singlesCpu.length * 0.95)]!.toFixed(2)),
    failoverTemplates: failing,
    failoverMs: Math.round(failoverMs),
    failoverCpuMs: Math.round(failoverCpuMs),
    failedOver,
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    reconciles,
  };
}

/**
 * The pipeline of runSize at a small size plus overrides and deletions, printed line by line: what a
 * speed-up must leave unchanged. Each settle prints its counts, every watch event the store emitted
 * (with the resourceVersion it carried), then every stored object and the folded events.
 */
function dump(n: number, coreOnly: boolean, clone: boolean, out: (line: string) => void): void {
  const cp = new ControlPlane({ freeze: clone, cloneOnWrite: clone, interpreter: coreOnly ? tsInterpreter : undefined });
  const seen: string[] = [];
  cp.store.watch((ev) => {
    const m = ev.object.metadata;
    seen.push(`${ev.type} ${ev.cluster ?? '-'} ${ev.object.apiVersion}/${ev.object.kind} ${m.namespace ?? ''}/${m.name} rv=${m.resourceVersion} old=${ev.old?.metadata.resourceVersion ?? '-'}`);
  });
  const phase = (name: string, stats: { reconciles: number; writes: number; byController: Record<string, number>; failures: unknown[] }) => {
    out(`## ${name} reconciles=${stats.reconciles} writes=${stats.writes} by=${JSON.stringify(stats.byController)} failures=${JSON.stringify(stats.failures)}`);
    for (const s of seen) out(s);
    seen.length = 0;
  };
  for (let c = 1; c <= CLUSTERS; c++) {
    cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: `member${c}` }, spec: { syncMode: 'Push', region: c <= 5 ? 'eu' : 'us' } });
  }
  phase('clusters', cp.settle());
  for (let g = 0; g < n / PER_POLICY; g++) cp.apply(policy(g));
  cp.apply({
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'OverridePolicy',
    metadata: { name: 'mirror', namespace: 'bench' },
    spec: {
      resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: { 'bench/group': 'g0' } } }],
      overrideRules: [
        { targetCluster: { clusterNames: ['member1', 'member2'] }, overriders: { imageOverrider: [{ component: 'Registry', operator: 'replace', value: 'mirror.example.com' }], labelsOverrider: [{ operator: 'add', value: { mirrored: 'yes' } }] } },
      ],
    },
  });
  for (let i = 0; i < n; i++) cp.apply(deployment(i, 'registry.example.com/app:1'));
  phase('first propagation', cp.settle());
  for (let i = 0; i < n; i++) cp.apply(deployment(i, 'registry.example.com/app:2'));
  phase('change all', cp.settle());
  for (let k = 0; k < 5; k++) {
    cp.apply(deployment((k * 7919) % n, `registry.example.com/app:3-${k}`));
    phase(`single change ${k}`, cp.settle());
  }
  const failing = Math.floor(n / 10);
  for (let i = 0; i < failing; i++) {
    const b = cp.get({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', namespace: 'bench', name: `app-${i}-deployment` })!;
    const target = (b.spec.clusters as Array<{ name: string }>)[0]!.name;
    cp.setMemberState(target, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'bench', name: `app-${i}` }, { health: 'Unhealthy' });
  }
  phase('unhealthy', cp.settle());
  phase('failover', cp.advance(61));
  for (let i = n - 5; i < n; i++) cp.delete({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'bench', name: `app-${i}` });
  cp.delete({ apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', namespace: 'bench', name: 'group-1' });
  phase('deletions', cp.settle());
  for (const cluster of [undefined, ...cp.store.memberClusters()]) {
    out(`## objects in ${cluster ?? 'the control plane'}`);
    for (const o of cp.store.all(cluster)) out(JSON.stringify(o));
  }
  out('## events');
  for (const e of cp.events()) out(JSON.stringify(e));
}

const allArgs = process.argv.slice(2);
const coreOnly = allArgs.includes('--core-only');
const args = allArgs.filter((a) => a !== '--core-only' && a !== '--clone' && a !== '--tsx');
const sizeArg = args.indexOf('--size');
const dumpArg = args.indexOf('--dump');
if (dumpArg >= 0) {
  const lines: string[] = [];
  dump(Number(args[dumpArg + 1] ?? 300), coreOnly, allArgs.includes('--clone'), (l) => lines.push(l));
  process.stdout.write(lines.join('\n') + '\n');
} else if (sizeArg >= 0) {
  process.stdout.write(JSON.stringify(runSize(Number(args[sizeArg + 1]), coreOnly)) + '\n');
} else {
  const self = fileURLToPath(import.meta.url);
  const sizes = args.length ? args.map(Number) : [1000, 2000, 5000, 10000];
  const rows: Result[] = [];
  let child = ['--import', 'tsx', self];
  let bundleDir: string | undefined;
  if (!allArgs.includes('--tsx')) {
    bundleDir = mkdtempSync(join(tmpdir(), 'karmada-lite-core-bench-'));
    const { build } = await import('esbuild');
    const { bundleOptions } = (await import('../scripts/bundle.mjs')) as { bundleOptions: (entry: string, format: string, o: { shebang: boolean }) => { options: object } };
    const outfile = join(bundleDir, 'core.bench.mjs');
    await build({ ...bundleOptions(self, 'esm', { shebang: false }).options, outfile });
    child = [outfile];
  }
  try {
    for (const n of sizes) {
      const out = execFileSync(process.execPath, ['--max-old-space-size=1800', ...child, '--size', String(n), ...(coreOnly ? ['--core-only'] : [])], { encoding: 'utf8', maxBuffer: 1 << 20 });
      const r = JSON.parse(out.trim().split('\n').pop()!) as Result;
      rows.push(r);
      process.stdout.write(JSON.stringify(r) + '\n');
    }
  } finally {
    if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
  }
  const base = rows[0]!;
  process.stdout.write(`\ninterpreter: ${coreOnly ? 'minimal TypeScript (core only)' : 'built-in Lua interpreters (the default)'}; code: ${bundleDir ? 'bundled as shipped' : 'TypeScript sources through tsx'}\n`);
  process.stdout.write(
    '\n| templates | Works | first propagation (wall / CPU) | CPU per template | change all (wall / CPU) | one change, wall (median / p95) | one change, CPU (median / p95) | failover 10% (wall / CPU) | peak RSS |\n|---|---|---|---|---|---|---|---|---|\n',
  );
  for (const r of rows) {
    process.stdout.write(
      `| ${r.templates} | ${r.works} | ${(r.firstPropagationMs / 1000).toFixed(1)} s / ${(r.firstPropagationCpuMs / 1000).toFixed(1)} s | ${(r.firstPropagationCpuMs / r.templates).toFixed(2)} ms | ${(r.changeAllMs / 1000).toFixed(1)} s / ${(r.changeAllCpuMs / 1000).toFixed(1)} s | ${r.singleChangeMedianMs} / ${r.singleChangeP95Ms} ms | ${r.singleChangeCpuMedianMs} / ${r.singleChangeCpuP95Ms} ms | ${(r.failoverMs / 1000).toFixed(1)} s / ${(r.failoverCpuMs / 1000).toFixed(1)} s (${r.failedOver}/${r.failoverTemplates}) | ${r.peakRssMB} MB |\n`,
    );
  }
  const last = rows[rows.length - 1]!;
  process.stdout.write(`\nscaling ${base.templates} -> ${last.templates}: x${(last.firstPropagationCpuMs / base.firstPropagationCpuMs).toFixed(1)} CPU time for x${last.templates / base.templates} templates\n`);
}
