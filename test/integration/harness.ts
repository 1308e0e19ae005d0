// Shared by the end-to-end suites: the real binary (dist/karmada-lite, or $KARMADA_LITE_DIST/karmada-lite)
// started against the host apiserver, and helpers to reach the host and member apiservers.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { ApiError, RestClient } from '../../src/kube/rest.js';
import { cluster, k8sEnv, kubeConfig, repoRoot, waitFor, type ClusterName } from './env.js';
import { freePort, get, ignoreConflict, installCrds, registerMembers as registerEnvMembers } from './k8s-env.js';
import { newestBundleInput } from '../../scripts/bundle-inputs.mjs';
import { DefaultAgentImage, DefaultAgentNamespace, DefaultClusterNamespace, registeredHostObjects } from '../../src/kube/register.js';

export { freePort, get, ignoreConflict, installCrds };

/** Deletes what `karmada-lite register --cluster-name NAME` wrote on the host (default namespaces), but the namespaces and the Cluster. */
export async function removeRegistered(host: RestClient, clusterName: string): Promise<void> {
  const plan = { clusterName, clusterNamespace: DefaultClusterNamespace, agentNamespace: DefaultAgentNamespace, image: DefaultAgentImage, replicas: 1 };
  for (const o of registeredHostObjects(plan)) {
    await host.request('DELETE', await host.pathFor(o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name)).catch(() => undefined);
  }
}

/** Read-modify-write of the object at `p` (PUT to `p + subresource`), again on a 409; returns what was stored. */
export async function edit(c: RestClient, p: string, change: (o: any) => void, subresource = ''): Promise<any> {
  for (;;) {
    const o = await get(c, p);
    if (!o) throw new Error(`${p} does not exist`);
    change(o);
    try {
      return await c.request('PUT', p + subresource, { body: o });
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 409)) throw e;
    }
  }
}

// A private output directory lets concurrent checkouts or sessions build without replacing each other's binary.
export const distDir = process.env.KARMADA_LITE_DIST ? path.resolve(process.env.KARMADA_LITE_DIST) : path.join(repoRoot, 'dist');
export const binary = path.join(distDir, 'karmada-lite');

export function ensureBinary(): void {
  // Rebuilt when anything the bundle is made of is newer, as the launcher decides (scripts/bundle-inputs.mjs).
  const stale = !existsSync(binary) || statSync(binary).mtimeMs < newestBundleInput(repoRoot);
  if (!stale) return;
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs')], { cwd: repoRoot, stdio: 'inherit', env: { ...process.env, KARMADA_LITE_DIST: distDir } });
  if (r.status !== 0) throw new Error('node scripts/build.mjs failed');
}

export const rest = (name: ClusterName) => new RestClient(kubeConfig(name));

export interface Proc {
  child: ChildProcess;
  port: number;
  logs: string[];
}

export async function startController(args: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<Proc> {
  const port = await freePort();
  const child = spawn(binary, ['controller', '--kubeconfig', cluster('host').kubeconfig, '--metrics-port', String(port), '--bind-address', '127.0.0.1', '--cluster-probe-interval', '1s', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
  });
  const logs: string[] = [];
  child.stderr!.on('data', (d: Buffer) => logs.push(...d.toString('utf8').split('\n').filter(Boolean)));
  const p = { child, port, logs };
  await waitFor(
    'the controller to be ready',
    async () => {
      if (child.exitCode !== null) throw new Error(`the controller exited with ${child.exitCode}:\n${logs.join('\n')}`);
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return res?.status === 200 ? true : undefined;
    },
    30_000,
  );
  return p;
}

/** SIGTERM, and the exit code; a replica that does not drain within 15 s is killed (and fails the check). */
export function stopController(p: Proc | undefined): Promise<number | null> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return Promise.resolve(p?.child.exitCode ?? null);
  return new Promise((resolve) => {
    const t = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
    p.child.once('exit', (code) => {
      clearTimeout(t);
      resolve(code);
    });
    p.child.kill('SIGTERM');
  });
}

/** Registers member1 and member2 as push-mode Cluster objects with ServiceAccount tokens (idempotent). */
export const registerMembers = (host: RestClient) => registerEnvMembers(k8sEnv(), host);

/**
 * What every controller suite needs before it starts a controller: the binary, the CRDs, the suite's
 * namespace and the two members registered.
 */
export async function prepareHost(host: RestClient, ns: string): Promise<void> {
  ensureBinary();
  await installCrds(host);
  await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }));
  await registerMembers(host);
}

/** After a failure: is the replica alive, and what do its queues and reconcile counters say. */
export async function diagnose(p: Proc | undefined): Promise<string> {
  if (!p) return 'no controller was started';
  if (p.child.exitCode !== null || p.child.signalCode !== null) return `the controller exited (code ${p.child.exitCode}, signal ${p.child.signalCode})`;
  try {
    const text = await (await fetch(`http://127.0.0.1:${p.port}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    return text.split('\n').filter((l) => /^(workqueue_depth|controller_runtime_reconcile_total|karmada_lite_clusters)/.test(l)).join('\n');
  } catch (e) {
    return `the controller does not answer /metrics: ${(e as Error).message}`;
  }
}

/**
 * Deletes Deployments and their same-named PropagationPolicies while the controller still runs, so that no
 * binding, Work or member copy outlives a suite; waits until the member copies are gone.
 */
export async function removeDeployments(ns: string, names: readonly string[]): Promise<void> {
  const host = rest('host');
  const deployPath = (n: string) => `/apis/apps/v1/namespaces/${ns}/deployments/${n}`;
  for (const n of names) await host.request('DELETE', deployPath(n)).catch(() => undefined);
  try {
    await waitFor('the member copies removed', async () => {
      for (const m of ['member1', 'member2'] as const) for (const n of names) if (await get(rest(m), deployPath(n))) return undefined;
      return true;
    });
  } catch (e) {
    console.warn(`cleanup: ${(e as Error).message}`);
  }
  for (const n of names) await host.request('DELETE', `/apis/policy.karmada.io/v1alpha1/namespaces/${ns}/propagationpolicies/${n}`).catch(() => undefined);
}

/** A member's apiserver behind a TCP proxy on a port of its own: `down()` refuses and cuts connections like a dead cluster. */
export class MemberProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  constructor(
    readonly port: number,
    private readonly target: number,
  ) {}

  up(): Promise<void> {
    if (this.server) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.server = createServer((c) => {
        const u = connect(this.target, '127.0.0.1');
        this.sockets.add(c).add(u);
        c.pipe(u).pipe(c);
        const drop = () => (c.destroy(), u.destroy());
        c.on('error', drop).on('close', drop);
        u.on('error', drop).on('close', drop);
      });
      this.server.once('error', reject).listen(this.port, '127.0.0.1', () => resolve());
    });
  }

  down(): Promise<void> {
    return new Promise((resolve) => {
      for (const s of this.sockets) s.destroy();
      this.sockets.clear();
      if (!this.server) return resolve();
      this.server.close(() => resolve());
      this.server = undefined;
    });
  }
}


/** Every version of one object a watch delivers, from `fromRv` (or from its state when the watch connects) on. */
export interface VersionRecord {
  readonly versions: readonly any[];
  /** Resolves with the first recorded version `pred` accepts, however briefly the object was in that state. */
  seen(what: string, pred: (o: any) => unknown, timeoutMs?: number): Promise<any>;
  stop(): void;
}

/**
 * Records every version of `name` in `collection`. Polling misses states the fleet's controllers pass through
 * quickly: a Gracefully eviction task ends as soon as the new placement is healthy, which kwok reports in a second.
 */
export function recordVersions(c: RestClient, collection: string, name: string, fromRv?: string): VersionRecord {
  const abort = new AbortController();
  const versions: any[] = [];
  let last = fromRv;
  void (async () => {
    while (!abort.signal.aborted) {
      const query = { fieldSelector: `metadata.name=${name}`, allowWatchBookmarks: true, timeoutSeconds: 60, ...(last ? { resourceVersion: last } : {}) };
      await c
        .watch(collection, query, (type, obj) => {
          if (obj?.metadata?.resourceVersion) last = obj.metadata.resourceVersion;
          if (type === 'ADDED' || type === 'MODIFIED') versions.push(obj);
        }, abort.signal)
        .catch(async (e) => {
          // Too old to resume from: start again from the current state (what happened in between is lost).
          if (e instanceof ApiError && e.code === 410) last = undefined;
          if (!abort.signal.aborted) await new Promise((r) => setTimeout(r, 200));
        });
    }
  })();
  return {
    versions,
    seen: (what, pred, timeoutMs) => waitFor(what, async () => versions.find((o) => pred(o)), timeoutMs),
    stop: () => abort.abort(),
  };
}

/** A placement Divided 1:1 over two clusters by static weights. */
export const evenSplit = (a: string, b: string) => ({
  clusterAffinity: { clusterNames: [a, b] },
  replicaScheduling: {
    replicaSchedulingType: 'Divided',
    replicaDivisionPreference: 'Weighted',
    weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: [a] }, weight: 1 }, { targetCluster: { clusterNames: [b] }, weight: 1 }] },
  },
});

/** The policy spec the failover suites share (besides resourceSelectors): Divided 1:1 over two clusters, failover.cluster Gracefully. */
export const evenSplitWithFailover = (a: string, b: string) => ({
  failover: { cluster: { purgeMode: 'Gracefully' } },
  placement: evenSplit(a, b),
});

/**
 * A Deployment labelled app=<name> and its same-named PropagationPolicy selecting it, with the given policy
 * spec besides resourceSelectors (removeDeployments cleans both up); `podSpec` adds to the Pod template's spec.
 * `host` is for callers outside vitest (the benches), whose environment `rest` cannot find.
 */
export async function createDeploymentWithPolicy(ns: string, name: string, replicas: number, policySpec: Record<string, unknown>, podSpec: Record<string, unknown> = {}, host: RestClient = rest('host')): Promise<void> {
  await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${ns}/propagationpolicies`, {
    body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name, namespace: ns }, spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name }], ...policySpec } },
  });
  await host.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: ns, labels: { app: name } },
      spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }], ...podSpec } } },
    },
  });
}
