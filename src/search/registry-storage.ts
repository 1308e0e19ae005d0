// ResourceRegistries under the aggregated search.karmada.io/v1alpha1. The APIService for that group-version
// takes it over from the ResourceRegistry CRD, so this server answers `resourceregistries` itself; the
// objects stay in the CRD, reached through its second served version, exactly as the Clusters are.
import type { ApiGroupResources } from '../apiserver/types.js';
import { storagePath, type StorageVersion } from '../apiserver/storage-version.js';

export const REGISTRY_STORAGE: StorageVersion = { group: 'search.karmada.io', version: 'v1alpha1', storageVersion: 'v1alpha1storage', resource: 'resourceregistries', kind: 'ResourceRegistry' };
export const REGISTRY_STORAGE_PATH = storagePath(REGISTRY_STORAGE);

export const REGISTRY_DISCOVERY: ApiGroupResources['resources'] = [
  { name: 'resourceregistries', namespaced: false, kind: 'ResourceRegistry', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] },
  { name: 'resourceregistries/status', namespaced: false, kind: 'ResourceRegistry', verbs: ['get', 'patch', 'update'] },
];
