// Cluster objects under the aggregated cluster.karmada.io/v1alpha1 (ARCHITECTURE.md, "Cluster objects
// under the aggregated API"). The APIService for that group-version takes it over from the Cluster CRD, so
// this server answers `clusters` itself; the objects stay where they always were, in the CRD's storage in
// the host, reached through one more served version of the same CRD (CLUSTER_STORAGE_VERSION). Nothing is
// copied: uids, resourceVersions, ownerReferences to Clusters and the way back all stay as they are.
import type { RestClient } from '../kube/rest.js';
import { StatusError } from './status.js';
import { apiVersionRewriters, ensureStorageVersion, storagePath, storageVersionHandler, type StorageVersion } from './storage-version.js';
import type { ApiGroupResources, ApiHandler } from './types.js';
import type { Upstream } from './upstream.js';

export const CLUSTER_GROUP = 'cluster.karmada.io';
export const CLUSTER_VERSION = 'v1alpha1';
/** The Cluster CRD's second served version: the same objects, reachable while the APIService owns v1alpha1. */
export const CLUSTER_STORAGE_VERSION = 'v1alpha1storage';
export const CLUSTER_CRD = `clusters.${CLUSTER_GROUP}`;

export const CLUSTERS: StorageVersion = { group: CLUSTER_GROUP, version: CLUSTER_VERSION, storageVersion: CLUSTER_STORAGE_VERSION, resource: 'clusters', kind: 'Cluster' };

export const CLUSTER_DISCOVERY: ApiGroupResources = {
  groupVersion: `${CLUSTER_GROUP}/${CLUSTER_VERSION}`,
  resources: [
    { name: 'clusters', namespaced: false, kind: 'Cluster', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] },
    { name: 'clusters/status', namespaced: false, kind: 'Cluster', verbs: ['get', 'patch', 'update'] },
    { name: 'clusters/proxy', namespaced: false, kind: 'ClusterProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
  ],
};

export const { toStorage, toPublic } = apiVersionRewriters(CLUSTERS);

/**
 * Adds CLUSTER_STORAGE_VERSION to the Cluster CRD when it is missing (the automatic step at start) and waits
 * until the host serves it.
 */
export const ensureClusterStorageVersion = (host: RestClient, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<boolean> => ensureStorageVersion(host, CLUSTERS, opts);

/** The Cluster from the storage, or the 404 Karmada answers when there is none. */
export async function getCluster(host: RestClient, name: string): Promise<any> {
  try {
    return await host.request('GET', `${storagePath(CLUSTERS)}/${encodeURIComponent(name)}`);
  } catch (e) {
    if ((e as { code?: number }).code === 404) throw new StatusError(404, `clusters.${CLUSTER_GROUP} "${name}" not found`, { name, group: CLUSTER_GROUP, kind: 'clusters' });
    throw e;
  }
}

/** Every Cluster, from the storage. */
export async function listClusters(host: RestClient): Promise<any[]> {
  return ((await host.request<{ items?: any[] }>('GET', storagePath(CLUSTERS))).items ?? []) as any[];
}

/** `clusters` CRUD, watch and the status subresource, on the storage version (storage-version.ts). */
export const clusterStorageHandler = (host: Upstream): ApiHandler => storageVersionHandler(host, CLUSTERS);
