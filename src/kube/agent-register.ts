/**
 * The agent's registration on the control plane, before any controller starts (Karmada's agent: run() →
 * ObtainClusterID, ClusterRegisterOption.Validate, CreateOrUpdateClusterObject):
 *
 * - the cluster ID is the uid of the member's `kube-system` namespace;
 * - every Cluster on the host is listed: one with both this name and this ID is this cluster, adopted
 *   (restarted agents come back to it); a name or an ID taken by another cluster is refused (a Push
 *   cluster of the same name that is not this member, a second agent under another name);
 * - the Cluster is created, or updated only when its spec changes: `syncMode: Pull`, `apiEndpoint`
 *   (`--cluster-api-endpoint`), `proxyURL` (`--proxy-server-address`, overridden by the member
 *   kubeconfig's proxy-url), `id`, provider/region/zones when given, `insecureSkipTLSVerification` from
 *   the member kubeconfig.
 *
 * Karmada also reports the member's credentials as Secrets (`--report-secrets`); this agent reports none
 * (README: differs), so the control plane never holds a Pull member's credentials.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Cluster } from '../api/generated/types.js';
import { CLUSTER } from '../core/kinds.js';
import { errorMessage } from '../json/error.js';
import { deepEqual } from '../json/value.js';
import type { Logger } from '../runtime/log.js';
import { ApiError, isApiNotFound, type RestClient } from './rest.js';

export interface RegisterOptions {
  clusterName: string;
  /** `--cluster-api-endpoint`: where the control plane could reach the member (proxy, get); empty: unset. */
  apiEndpoint?: string;
  /** `--proxy-server-address`. */
  proxyURL?: string;
  provider?: string;
  region?: string;
  zones?: readonly string[];
}

/** What the member's kubeconfig says about reaching it, as Karmada reads its rest.Config. */
export interface MemberConnection {
  insecureSkipTLSVerification: boolean;
  proxyURL?: string;
}

export function memberConnectionOf(kc: KubeConfig): MemberConnection {
  const c = kc.getCurrentCluster();
  return { insecureSkipTLSVerification: c?.skipTLSVerify === true, ...(c?.proxyUrl ? { proxyURL: c.proxyUrl } : {}) };
}

/**
 * Karmada's Validate for an agent: undefined when this name and ID may be (re)registered, else the
 * error to stop with, saying what to do.
 */
export function registrationProblem(clusters: readonly Cluster[], name: string, id: string): string | undefined {
  if (clusters.some((c) => c.metadata.name === name && c.spec?.id === id)) return undefined;
  const byName = clusters.find((c) => c.metadata.name === name);
  if (byName) {
    const mode = byName.spec?.syncMode ?? 'Push';
    const other = byName.spec?.id ? `cluster ID ${byName.spec.id}` : 'no cluster ID';
    const hint = mode === 'Push' ? 'it is a Push cluster the controller reaches directly' : 'another agent registered it';
    return `the cluster name ${name} has been registered (syncMode ${mode}, ${other}; this member's cluster ID, the uid of its kube-system namespace, is ${id}): ${hint}. Give this agent another --cluster-name, or remove that Cluster from the host first (kubectl delete clusters.cluster.karmada.io ${name})`;
  }
  const byId = clusters.find((c) => c.spec?.id === id);
  if (byId) {
    return `the cluster ID ${id} (this member's kube-system namespace uid) has been registered as cluster ${byId.metadata.name}: run the agent with --cluster-name ${byId.metadata.name}, or remove that Cluster from the host first`;
  }
  return undefined;
}

/** The Cluster's spec as the agent wants it, from what is stored (Karmada's mutateFunc: other fields are kept). */
export function desiredClusterSpec(current: Cluster['spec'] | undefined, o: RegisterOptions, id: string, member: MemberConnection): NonNullable<Cluster['spec']> {
  const spec: NonNullable<Cluster['spec']> = { ...(current ?? {}), syncMode: 'Pull', id };
  // false is Go's omitted zero value: left out, so that an adopted Cluster is not rewritten for it.
  if (member.insecureSkipTLSVerification) spec.insecureSkipTLSVerification = true;
  else delete spec.insecureSkipTLSVerification;
  // Karmada assigns both every time, so a flag that is no longer given clears the field.
  if (o.apiEndpoint) spec.apiEndpoint = o.apiEndpoint;
  else delete spec.apiEndpoint;
  const proxy = member.proxyURL ?? o.proxyURL;
  if (proxy) spec.proxyURL = proxy;
  else delete spec.proxyURL;
  if (o.provider) spec.provider = o.provider;
  if (o.region) spec.region = o.region;
  if (o.zones?.length) spec.zones = [...o.zones];
  return spec;
}

const CLUSTERS = `/apis/${CLUSTER.apiVersion}/clusters`;

/**
 * Every Cluster, as Karmada's agent lists them; an identity allowed only its own Cluster (karmada-lite
 * register's least privilege) lists that one by name, and the check that no other Cluster has this ID is skipped.
 */
async function listClusters(host: RestClient, name: string, log: Logger): Promise<Cluster[]> {
  try {
    return (await host.request<{ items: Cluster[] }>('GET', CLUSTERS)).items ?? [];
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 403)) throw e;
    log.info('may not list every Cluster; checking this cluster\'s name only', { cluster: name });
    return (await host.request<{ items: Cluster[] }>('GET', CLUSTERS, { query: { fieldSelector: `metadata.name=${name}` } })).items ?? [];
  }
}

/** Registers (or adopts) the member's Cluster on the host; resolves with the stored Cluster. */
export async function registerCluster(host: RestClient, member: RestClient, memberKc: KubeConfig, o: RegisterOptions, log: Logger): Promise<Cluster> {
  let id: string;
  try {
    const ns = await member.request<{ metadata?: { uid?: string } }>('GET', '/api/v1/namespaces/kube-system');
    id = ns.metadata?.uid ?? '';
  } catch (e) {
    throw new Error(`cannot read the member cluster's kube-system namespace (its uid is the cluster ID): ${errorMessage(e)}; check --kubeconfig (or the in-cluster service account) of the member`);
  }
  if (!id) throw new Error('the member cluster\'s kube-system namespace has no uid');
  let clusters: Cluster[];
  try {
    clusters = await listClusters(host, o.clusterName, log);
  } catch (e) {
    const what = e instanceof ApiError && (e.code === 401 || e.code === 403) ? `; the agent's identity on the host needs get, list and watch on its Cluster (karmada-lite register grants them, deploy/agent)` : '; check --karmada-kubeconfig and --karmada-context';
    throw new Error(`cannot list the Clusters of the Karmada control plane: ${errorMessage(e)}${what}`);
  }
  const problem = registrationProblem(clusters, o.clusterName, id);
  if (problem) throw new Error(problem);
  const conn = memberConnectionOf(memberKc);
  const named = `${CLUSTERS}/${encodeURIComponent(o.clusterName)}`;
  for (;;) {
    let current: Cluster | undefined;
    try {
      current = await host.request<Cluster>('GET', named);
    } catch (e) {
      if (!isApiNotFound(e)) throw e;
    }
    const spec = desiredClusterSpec(current?.spec, o, id, conn);
    try {
      if (!current) {
        const created = await host.request<Cluster>('POST', CLUSTERS, { body: { apiVersion: CLUSTER.apiVersion, kind: CLUSTER.kind, metadata: { name: o.clusterName }, spec } }).catch((e: unknown) => {
          if (!(e instanceof ApiError && e.code === 403)) throw e;
          throw new Error(`there is no Cluster ${o.clusterName} on the control plane and the agent may not create one (${e.message}): run karmada-lite register --cluster-name ${o.clusterName} first (it creates the Cluster and the agent's rights), or give the agent's identity create on clusters`);
        });
        log.info('registered the cluster with the control plane', { cluster: o.clusterName, id, syncMode: 'Pull' });
        return created;
      }
      // Served on while it goes (the finalizers of its Works are the agent's); a new one needs the agent started again.
      if (current.metadata.deletionTimestamp) log.warn('the Cluster is being deleted; the agent finishes its Works, and must be started again once the Cluster is gone to register it anew', { cluster: o.clusterName, since: current.metadata.deletionTimestamp });
      if (deepEqual(current.spec, spec)) {
        log.info('the cluster is registered already', { cluster: o.clusterName, id });
        return current;
      }
      const updated = await host.request<Cluster>('PUT', named, { body: { ...current, spec } });
      log.info('updated the registered cluster', { cluster: o.clusterName, id, syncMode: 'Pull' });
      return updated;
    } catch (e) {
      // Someone wrote it meanwhile (the control plane's status, another replica): read it again.
      if (e instanceof ApiError && e.code === 409) continue;
      throw e;
    }
  }
}
