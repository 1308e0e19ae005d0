/** Where the RIC conflict check finds the RICs that already exist: the cluster, or files given offline. */
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { readDocuments } from '../io/documents.js';
import type { Obj } from '../validation/json.js';

export type RicLister = () => Promise<Obj[]>;

/** Lists RICs from the API server on every review: RIC writes are rare and a stale cache would let conflicts in. */
export function clusterRicLister(kubeconfig: KubeConfig): RicLister {
  const api = kubeconfig.makeApiClient(CustomObjectsApi);
  return async () => {
    const list = (await api.listClusterCustomObject({ group: 'config.karmada.io', version: 'v1alpha1', plural: 'resourceinterpretercustomizations' })) as { items?: Obj[] };
    return list.items ?? [];
  };
}

export function fileRicLister(paths: string[]): RicLister {
  const rics = readDocuments(paths)
    .map((d) => d.object)
    .filter((o) => o.kind === 'ResourceInterpreterCustomization');
  return async () => rics;
}
