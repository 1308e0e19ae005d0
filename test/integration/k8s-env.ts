// The test environment of scripts/k8s/env.sh as plain code, with no vitest: shared by the integration tests
// (through env.ts and harness.ts) and by benchmarks that run against the same apiservers.
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiError, RestClient } from '../../src/kube/rest.js';
import { scaled } from '../time-scale.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export type ClusterName = 'host' | 'member1' | 'member2';

/** A process of the fleet beside an apiserver (scripts/k8s/env.sh, KARMADA_LITE_FLEET=kwok). */
export interface FleetComponent {
  binary: string;
  port: number;
  pidFile: string;
  log: string;
}

export interface ClusterInfo {
  name: ClusterName;
  server: string;
  port: number;
  kubeconfig: string;
  etcdPrefix: string;
  pidFile: string;
  log: string;
  /** The kwok fleet only: the host has a controller-manager, each member a controller-manager, scheduler and kwok. */
  components?: { 'controller-manager'?: FleetComponent; scheduler?: FleetComponent; kwok?: FleetComponent };
  /** The kwok fleet only: the fake Nodes kwok plays the kubelet of (none on the host). */
  nodes?: string[];
}

/** The shape of env.json written by scripts/k8s/env.sh. */
export interface K8sEnv {
  kubernetesVersion: string;
  etcdVersion: string;
  dir: string;
  /** kwok: controllers, scheduler and kwok Nodes beside the apiservers; bare (or absent, an older env.json): apiservers only. */
  fleet?: 'kwok' | 'bare';
  etcd: { url: string; pidFile: string };
  clusters: ClusterInfo[];
}

/** Whether the environment runs the fleet: Kubernetes' own controllers write the members' status. */
export const fleetOn = (env: K8sEnv): boolean => env.fleet === 'kwok';

/** env.json of the environment in $KARMADA_LITE_ENV_DIR (or the file $KARMADA_LITE_ENV_JSON names). */
export function readEnv(): K8sEnv {
  const file = process.env.KARMADA_LITE_ENV_JSON ?? path.join(path.resolve(process.env.KARMADA_LITE_ENV_DIR ?? '/tmp/karmada-lite-env'), 'env.json');
  return JSON.parse(readFileSync(file, 'utf8')) as K8sEnv;
}

export function clusterInfo(env: K8sEnv, name: ClusterName): ClusterInfo {
  const c = env.clusters.find((x) => x.name === name);
  if (!c) throw new Error(`no cluster ${name} in ${env.dir}/env.json`);
  return c;
}

export function kubeConfigOf(env: K8sEnv, name: ClusterName): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(clusterInfo(env, name).kubeconfig);
  return kc;
}

/**
 * Polls until `fn` returns a value other than undefined; fails after `referenceTimeoutMs` (scaled for this machine). An error thrown by `fn` ends
 * the wait at once: `fn` decides which failures are transient by returning undefined for them.
 */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, referenceTimeoutMs = 30_000, everyMs = 200): Promise<T> {
  const timeoutMs = scaled(referenceTimeoutMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function ignoreConflict(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 409)) throw e;
  }
}

/** GET, with undefined for a 404. */
export async function get(c: RestClient, p: string): Promise<any> {
  try {
    return await c.request('GET', p);
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return undefined;
    throw e;
  }
}

/** Installs crds/*.yaml, idempotently (several suites install them), and waits until they are served. */
export async function installCrds(host: RestClient): Promise<void> {
  const dir = path.join(repoRoot, 'crds');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.yaml'))) {
    for (const doc of parseAllDocuments(readFileSync(path.join(dir, f), 'utf8'))) {
      const crd = doc.toJS();
      if (!crd) continue;
      await ignoreConflict(host.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd }));
      await waitFor(`CRD ${crd.metadata.name} established`, async () => {
        const cur = await host.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
        return cur.status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True') ? true : undefined;
      });
    }
  }
  host.resetDiscovery();
}

/** A cluster-admin ServiceAccount on a member and a token for it, from the TokenRequest API. */
async function memberToken(member: RestClient): Promise<string> {
  const sa = 'karmada-lite-e2e';
  await ignoreConflict(member.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: sa } } }));
  await ignoreConflict(
    member.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      body: { metadata: { name: sa }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'ServiceAccount', name: sa, namespace: 'default' }] },
    }),
  );
  // Two hours: longer than a full benchmark run.
  const tr = await member.request('POST', `/api/v1/namespaces/default/serviceaccounts/${sa}/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 7200 } } });
  return tr.status.token as string;
}

/**
 * Registers member1 and member2 as push-mode Cluster objects whose Secrets hold a fresh ServiceAccount
 * token and the CA (idempotent). Returns the Cluster names this call created (the others existed already).
 */
export async function registerMembers(env: K8sEnv, host: RestClient): Promise<string[]> {
  const created: string[] = [];
  for (const ns of ['karmada-cluster', 'karmada-system']) await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }));
  for (const m of ['member1', 'member2'] as const) {
    const kc = kubeConfigOf(env, m);
    const data = { token: Buffer.from(await memberToken(new RestClient(kc))).toString('base64'), caBundle: kc.getCurrentCluster()!.caData! };
    const cur = await get(host, `/api/v1/namespaces/karmada-cluster/secrets/${m}`);
    if (cur) await host.request('PUT', `/api/v1/namespaces/karmada-cluster/secrets/${m}`, { body: { ...cur, data } });
    else await host.request('POST', '/api/v1/namespaces/karmada-cluster/secrets', { body: { metadata: { name: m, namespace: 'karmada-cluster' }, data } });
    if (!(await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${m}`))) {
      await host.request('POST', '/apis/cluster.karmada.io/v1alpha1/clusters', {
        body: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: m }, spec: { apiEndpoint: clusterInfo(env, m).server, syncMode: 'Push', secretRef: { namespace: 'karmada-cluster', name: m } } },
      });
      created.push(m);
    }
  }
  return created;
}

/**
 * Sends one mutating AdmissionReview of a small PropagationPolicy in `namespace` to a karmada-lite webhook on
 * 127.0.0.1:`port`, as the API server would; resolves with the HTTP status, rejects when no answer comes within
 * `timeoutMs` (the webhook configuration's timeoutSeconds).
 */
export function sendAdmissionReview(port: number, agent: Agent, uid: string, namespace: string, timeoutMs: number): Promise<number> {
  const body = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: 'policy.karmada.io', version: 'v1alpha1', kind: 'PropagationPolicy' },
      resource: { group: 'policy.karmada.io', version: 'v1alpha1', resource: 'propagationpolicies' },
      operation: 'CREATE',
      namespace,
      name: 'p',
      object: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: 'p', namespace }, spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap' }] } },
    },
  });
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path: '/mutate-propagationpolicy', method: 'POST', agent, headers: { 'content-type': 'application/json' }, timeout: timeoutMs }, (res) => {
      res.resume().on('end', () => resolve(res.statusCode!));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A ResourceInterpreterCustomization for ConfigMaps whose scripts never return: on the event loop, each
 * failing ReflectStatus would block it for its 1 s budget, tried again and again (issue 12's hostile RIC).
 */
export function hostileRic(name: string): Record<string, unknown> {
  return {
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterCustomization',
    metadata: { name },
    spec: {
      target: { apiVersion: 'v1', kind: 'ConfigMap' },
      customizations: {
        healthInterpretation: { luaScript: 'function InterpretHealth(obj) while true do end end' },
        statusReflection: { luaScript: 'function ReflectStatus(obj) while true do end end' },
      },
    },
  };
}
