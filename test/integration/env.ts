// Access to the real apiservers started by global-setup.ts, for integration tests.
import path from 'node:path';
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
import { clusterInfo, kubeConfigOf, readEnv, repoRoot, type ClusterInfo, type ClusterName, type K8sEnv } from './k8s-env.js';

export type { ClusterInfo, ClusterName, K8sEnv } from './k8s-env.js';
export { repoRoot, waitFor } from './k8s-env.js';

declare module 'vitest' {
  export interface ProvidedContext {
    k8sEnv: K8sEnv;
  }
}

/** The design documents' examples, copied into the repository (tests read nothing outside it). */
export const designExamples = path.join(repoRoot, 'test', 'fixtures', 'design-examples');

export function k8sEnv(): K8sEnv {
  const provided = inject('k8sEnv');
  if (provided) return provided;
  // fallback for code run outside the integration project's globalSetup
  return readEnv();
}

export const cluster = (name: ClusterName): ClusterInfo => clusterInfo(k8sEnv(), name);
export const kubeConfig = (name: ClusterName): KubeConfig => kubeConfigOf(k8sEnv(), name);

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
