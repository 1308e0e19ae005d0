// karmada-search in the aggregated server: the host's Clusters and ResourceRegistries followed, the cache
// brought in line with them on every change, the registries' status written, and the handlers to mount.
import type { KubeConfig } from '@kubernetes/client-node';
import { CLUSTER_GROUP, CLUSTER_STORAGE_VERSION, CLUSTERS, ensureClusterStorageVersion } from '../apiserver/cluster-storage.js';
import { clusterProxyHandler } from '../apiserver/cluster-proxy.js';
import type { ApiGroupResources, ApiHandler } from '../apiserver/types.js';
import { kubeConfigUpstream } from '../apiserver/upstream.js';
import { ensureStorageVersion, keepStorageVersions, storageVersionHandler, type KeptStorageVersions } from '../apiserver/storage-version.js';
import { Informer } from '../kube/informer.js';
import { limiterOptions } from '../kube/rate-limiter.js';
import { RestClient } from '../kube/rest.js';
import type { ClientLimits } from '../kube/store.js';
import { MultiClusterCache, type MemberConnector } from './cache.js';
import { SEARCH_DISCOVERY, searchHandlers } from './handlers.js';
import { kubeMemberConnector } from './member-feed.js';
import { registryConditions } from './registry.js';
import { REGISTRY_DISCOVERY, REGISTRY_STORAGE, REGISTRY_STORAGE_PATH } from './registry-storage.js';
import { errorMessage } from '../json/error.js';

export interface SearchOptions {
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  /** Where the Clusters are read; the Cluster CRD's storage version by default (the APIService owns v1alpha1). */
  clustersPath?: string;
  connector?: MemberConnector;
  resolveRetryMs?: number;
  /** How often each cached type checks that its member answers (member-feed.ts). */
  probeMs?: number;
  /** How often at most a registry's status is written. */
  statusIntervalMs?: number;
  now?: () => Date;
  /** The caller made sure of the CRDs' storage versions (keepAggregatedStorage), so they are not asked again here. */
  storageVersionsReady?: boolean;
  /** `apiserver`'s client flags: the search's own host client and each member's (none: unlimited). */
  clientLimits?: Partial<ClientLimits>;
}

export interface Search {
  handlers: ApiHandler[];
  discovery: ApiGroupResources[];
  cache: MultiClusterCache;
  close(): void;
}

const sameConditions = (a: any[] | undefined, b: any[]) => JSON.stringify(a ?? []) === JSON.stringify(b);

/**
 * The Cluster and ResourceRegistry CRDs' storage versions, made sure of once before the server and
 * karmada-search start, then kept while they run (re-applying crds/ drops them).
 */
export async function keepAggregatedStorage(kc: KubeConfig, opts: { log?: SearchOptions['log']; retryMs?: number } = {}): Promise<KeptStorageVersions> {
  const host = new RestClient(kc);
  try {
    const kept = await keepStorageVersions(host, [CLUSTERS, REGISTRY_STORAGE], opts);
    return {
      close() {
        kept.close();
        host.close();
      },
    };
  } catch (e) {
    host.close();
    throw e;
  }
}

export async function startSearch(kc: KubeConfig, opts: SearchOptions = {}): Promise<Search> {
  const host = new RestClient(kc, limiterOptions(opts.clientLimits?.host));
  // Clusters and registries are both read through their CRDs' storage versions (the APIServices own v1alpha1)
  if (!opts.storageVersionsReady) await Promise.all([ensureClusterStorageVersion(host), ensureStorageVersion(host, REGISTRY_STORAGE)]);
  const now = opts.now ?? (() => new Date());
  let statusTimer: ReturnType<typeof setTimeout> | undefined;
  const cache = new MultiClusterCache({
    connector: opts.connector ?? kubeMemberConnector(host, { probeMs: opts.probeMs, probeTimeoutMs: opts.probeMs, memberLimit: opts.clientLimits?.cluster }),
    resolveRetryMs: opts.resolveRetryMs,
    now,
    log: opts.log,
    onChange: () => scheduleStatus(),
  });
  const onError = (what: string) => (err: unknown) => opts.log?.(`search: watching ${what} failed`, { error: errorMessage(err) });
  const clusters = new Informer(host, { path: opts.clustersPath ?? `/apis/${CLUSTER_GROUP}/${CLUSTER_STORAGE_VERSION}/clusters`, onError: onError('Clusters') });
  const registries = new Informer(host, { path: REGISTRY_STORAGE_PATH, onError: onError('ResourceRegistries') });
  let pending = false;
  const sync = () => {
    if (pending) return;
    pending = true;
    // one update for a burst of events (a relist reports every object)
    setImmediate(() => {
      pending = false;
      cache.update(registries.list(), clusters.list());
      scheduleStatus();
    });
  };
  clusters.on(sync);
  registries.on(sync);

  const writeStatus = async () => {
    statusTimer = undefined;
    const cs = clusters.list();
    for (const r of registries.list()) {
      const conditions = registryConditions(r, cs, (c, apiVersion, kind) => cache.state(c, apiVersion, kind), now().toISOString().replace(/\.\d+Z$/, 'Z'));
      if (sameConditions(r.status?.conditions, conditions)) continue;
      try {
        const updated = await host.request('PUT', `${REGISTRY_STORAGE_PATH}/${encodeURIComponent(r.metadata.name)}/status`, { body: { ...r, status: { ...(r.status ?? {}), conditions } } });
        registries.applyWrite(updated);
      } catch (err) {
        // a conflict means a newer registry is on its way: its event schedules the next write
        opts.log?.('search: writing a ResourceRegistry status failed', { name: r.metadata.name, error: errorMessage(err) });
      }
    }
  };
  const scheduleStatus = () => {
    statusTimer ??= setTimeout(() => void writeStatus(), opts.statusIntervalMs ?? 1_000);
  };

  clusters.start();
  registries.start();
  const { handlers, discovery } = searchHandlers({ cache, host: kubeConfigUpstream(kc), clusterProxy: clusterProxyHandler(host), now });
  const group = discovery.find((d) => d.groupVersion === SEARCH_DISCOVERY.groupVersion)!;
  return {
    handlers: [...handlers, storageVersionHandler(kubeConfigUpstream(kc), REGISTRY_STORAGE)],
    discovery: [{ ...group, resources: [...REGISTRY_DISCOVERY, ...group.resources] }],
    cache,
    close() {
      if (statusTimer) clearTimeout(statusTimer);
      clusters.stop();
      registries.stop();
      cache.close();
      host.close();
    },
  };
}
