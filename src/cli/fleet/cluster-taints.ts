/**
 * The one write of cordon, uncordon and taint: a Cluster's spec.taints replaced by a JSON merge patch that
 * carries the resourceVersion it was computed from. The controller writes taints too (not-ready,
 * unreachable, ClusterTaintPolicies): a patch that lost the race is answered 409 and is computed again
 * from the Cluster as it is now, so neither side's taints are dropped.
 */
import type { Taint } from '../cluster-taints.js';
import type { DryRun } from '../mutation.js';
import { dryRunQuery } from '../mutation.js';
import { ServerError, type FleetClient } from './client.js';

export const CLUSTERS_PATH = '/apis/cluster.karmada.io/v1alpha1/clusters';

export type ClusterObject = { apiVersion?: string; kind?: string; metadata: { name: string; resourceVersion?: string }; spec?: { taints?: Taint[] } & Record<string, unknown> } & Record<string, unknown>;

export interface TaintEdit {
  /** The Cluster as stored after the write, as it would be (dry run), or as it is when nothing changed. */
  cluster: ClusterObject;
  changed: boolean;
}

/** The field manager of the CLI's writes to Clusters. */
const FIELD_MANAGER = 'karmada-lite';

/**
 * Reads the Cluster, asks `change` for its new taints (undefined: nothing to change; a throw aborts with
 * nothing written) and writes them, again from a fresh read when the Cluster changed meanwhile.
 */
export async function editClusterTaints(host: FleetClient, name: string, change: (taints: readonly Taint[]) => Taint[] | undefined, dryRun: DryRun): Promise<TaintEdit> {
  const path = `${CLUSTERS_PATH}/${encodeURIComponent(name)}`;
  for (let attempt = 0; ; attempt++) {
    const cluster = await host.get<ClusterObject>(path);
    const taints = change(cluster.spec?.taints ?? []);
    if (!taints) return { cluster, changed: false };
    if (dryRun === 'client') return { cluster: { ...cluster, spec: { ...cluster.spec, taints } }, changed: true };
    const patch = { metadata: { resourceVersion: cluster.metadata.resourceVersion }, spec: { taints } };
    try {
      const stored = await host.send<ClusterObject>('PATCH', path, {
        query: { ...dryRunQuery(dryRun), fieldManager: FIELD_MANAGER },
        body: JSON.stringify(patch),
        contentType: 'application/merge-patch+json',
      });
      return { cluster: stored, changed: true };
    } catch (e) {
      if (e instanceof ServerError && e.status.code === 409 && attempt < 5) continue;
      throw e;
    }
  }
}
