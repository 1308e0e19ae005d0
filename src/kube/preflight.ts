/**
 * Setup mistakes found before the controller starts, each told with what to do: no kubeconfig at all, a
 * --kubeconfig that cannot be read, a host that does not answer or refuses the credentials, and a host
 * without the Karmada CRDs (which would otherwise fail every watch, one log line per retry).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { CLUSTER } from '../core/kinds.js';
import { CLUSTER_STORAGE_API_VERSION, HOST_KINDS } from './store.js';
import { ApiError, RestClient } from './rest.js';

/** What the CLI prints when there is nothing to connect to. */
export const NO_KUBECONFIG =
  'no kubeconfig for the host cluster: give --kubeconfig <path>, set KUBECONFIG, or put one at ~/.kube/config (in a Pod, the service account is used)';

/** How to install the CRDs, as every message about them says it. */
export const INSTALL_CRDS = 'install them with `karmada-lite crds | kubectl apply -f -`';

export interface KubeconfigSources {
  env: NodeJS.ProcessEnv;
  home: string;
  exists: (p: string) => boolean;
}

const defaultSources = (): KubeconfigSources => ({ env: process.env, home: homedir(), exists: existsSync });

/**
 * What is wrong with where the host's kubeconfig would come from (flag, $KUBECONFIG, ~/.kube/config,
 * in-cluster), or undefined. client-node falls back to http://localhost:8080 without a word when there
 * is none, and the controller would then fail with a connection error that says nothing of the cause.
 */
export function kubeconfigProblem(file: string | undefined, sources: KubeconfigSources = defaultSources()): string | undefined {
  if (file) return sources.exists(file) ? undefined : `--kubeconfig ${file}: no such file; give the path of the host cluster's kubeconfig`;
  const fromEnv = (sources.env.KUBECONFIG ?? '').split(path.delimiter).filter(Boolean);
  if (fromEnv.length) return fromEnv.some(sources.exists) ? undefined : `KUBECONFIG names ${fromEnv.join(', ')}, which does not exist; ${NO_KUBECONFIG}`;
  if (sources.exists(path.join(sources.home, '.kube', 'config'))) return undefined;
  if (sources.env.KUBERNETES_SERVICE_HOST && sources.exists('/var/run/secrets/kubernetes.io/serviceaccount/token')) return undefined;
  return NO_KUBECONFIG;
}

/**
 * Asks the host's discovery for every Karmada kind the controller watches. Resolves when all are served;
 * otherwise throws an error saying what to do.
 */
export async function checkHost(kc: KubeConfig): Promise<void> {
  const server = kc.getCurrentCluster()?.server ?? '(no server)';
  const rest = new RestClient(kc);
  const missing: string[] = [];
  try {
    for (const t of HOST_KINDS) {
      try {
        await rest.resourceFor(t.apiVersion, t.kind);
      } catch (e) {
        if (t === CLUSTER && e instanceof ApiError && e.code === 503 && (await servesClusterStorage(rest))) continue;
        if (!(e instanceof ApiError && e.code === 404)) throw e;
        missing.push(`${t.kind} (${t.apiVersion})`);
      }
    }
  } catch (e) {
    if (e instanceof ApiError && (e.code === 401 || e.code === 403)) {
      throw new Error(`the host cluster ${server} refuses the kubeconfig's credentials (${e.code}): use a kubeconfig whose user may read the Karmada API (see deploy/controller)`);
    }
    if (e instanceof ApiError) throw e;
    throw new Error(`cannot reach the host cluster ${server}: ${(e as Error).message}; check --kubeconfig (or KUBECONFIG) and its current context`);
  } finally {
    rest.close();
  }
  if (missing.length) {
    throw new Error(`the Karmada CRDs are not installed on the host cluster ${server} (not served: ${missing.join(', ')}): ${INSTALL_CRDS}`);
  }
}

/**
 * An APIService for cluster.karmada.io/v1alpha1 whose server is down answers discovery with 503. The
 * controller does not need it: it reads Clusters at the CRD's second version (src/kube/store.ts) whenever
 * the host serves it, so that is what decides whether it can start.
 */
async function servesClusterStorage(rest: RestClient): Promise<boolean> {
  try {
    await rest.resourceFor(CLUSTER_STORAGE_API_VERSION, CLUSTER.kind);
    return true;
  } catch {
    return false;
  }
}
