// Access to the real apiservers started by global-setup.ts, for integration tests.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ApiException,
  ApiextensionsV1Api,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  VersionApi,
} from '@kubernetes/client-node';
import { inject } from 'vitest';

export type ClusterName = 'host' | 'member1' | 'member2';

export interface ClusterInfo {
  name: ClusterName;
  server: string;
  port: number;
  kubeconfig: string;
  etcdPrefix: string;
  pidFile: string;
  log: string;
}

/** The shape of env.json written by scripts/k8s/env.sh. */
export interface K8sEnv {
  kubernetesVersion: string;
  etcdVersion: string;
  dir: string;
  etcd: { url: string; pidFile: string };
  clusters: ClusterInfo[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    k8sEnv: K8sEnv;
  }
}

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** `../shared` beside the repo: read-only reference material and examples. */
export const sharedDir = path.join(repoRoot, '..', 'shared');

export function k8sEnv(): K8sEnv {
  const provided = inject('k8sEnv');
  if (provided) return provided;
  // fallback for code run outside the integration project's globalSetup
  const file = process.env.KARMADA_LITE_ENV_JSON ?? path.join(process.env.KARMADA_LITE_ENV_DIR ?? '/tmp/karmada-lite-env', 'env.json');
  return JSON.parse(readFileSync(file, 'utf8')) as K8sEnv;
}

export function cluster(name: ClusterName): ClusterInfo {
  const c = k8sEnv().clusters.find((x) => x.name === name);
  if (!c) throw new Error(`no cluster ${name} in the test environment`);
  return c;
}

export function kubeConfig(name: ClusterName): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(cluster(name).kubeconfig);
  return kc;
}

export interface Clients {
  kc: KubeConfig;
  core: CoreV1Api;
  apps: AppsV1Api;
  apiext: ApiextensionsV1Api;
  custom: CustomObjectsApi;
  version: VersionApi;
  objects: KubernetesObjectApi;
}

export function clients(name: ClusterName): Clients {
  const kc = kubeConfig(name);
  return {
    kc,
    core: kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    apiext: kc.makeApiClient(ApiextensionsV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    version: kc.makeApiClient(VersionApi),
    objects: KubernetesObjectApi.makeApiClient(kc),
  };
}

/** The apiserver's Status body of a failed request; client-node leaves it as a JSON string. */
export interface ApiStatus {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: { causes?: { reason?: string; message?: string; field?: string }[] };
}

/** Resolves to the ApiException a request fails with; fails the test if the request succeeds. */
export async function apiError(p: Promise<unknown>): Promise<{ code: number; status: ApiStatus }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiException) {
      const body: unknown = e.body;
      let status: ApiStatus = {};
      if (typeof body === 'string') {
        try {
          status = JSON.parse(body) as ApiStatus;
        } catch {
          status = { message: body };
        }
      } else if (body && typeof body === 'object') {
        status = body as ApiStatus;
      }
      return { code: e.code, status };
    }
    throw e;
  }
  throw new Error('expected the apiserver to reject the request, but it succeeded');
}

export function isApiError(e: unknown, code: number): boolean {
  return e instanceof ApiException && e.code === code;
}

/**
 * Polls until `fn` returns a value other than undefined; fails after `timeoutMs`. An error thrown by `fn` ends
 * the wait at once: `fn` decides which failures are transient by returning undefined for them.
 */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
