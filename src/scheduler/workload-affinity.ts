/**
 * Karmada's WorkloadAffinity and WorkloadAntiAffinity filter plugins (feature gate WorkloadAffinity, alpha):
 * a binding whose template belongs to an affinity group (`spec.workloadAffinityGroups.affinityGroup`, the
 * detector's `<groupByLabelKey>=<value>`) may only go to clusters every other scheduled binding of that group
 * in its namespace targets; one in an anti-affinity group never to a cluster another binding of the group
 * targets. A cluster the binding already targets always passes, so the plugins never take a placement away.
 *
 * Karmada keeps an index of the bindings by group in the scheduler's cache; here the caller passes the
 * bindings it has (the core: the namespace's ResourceBindings; plan: the planned ones) and `groupPeers`
 * picks the group's other members, so the filters stay a pure function of their input.
 */
import { PLUGIN_WORKLOAD_AFFINITY, PLUGIN_WORKLOAD_ANTI_AFFINITY, REASON_WORKLOAD_AFFINITY, REASON_WORKLOAD_ANTI_AFFINITY } from './messages.js';
import type { FilterFailure } from './filters.js';

export interface WorkloadAffinityGroups {
  affinityGroup?: string;
  antiAffinityGroup?: string;
}

/** The clusters the other bindings of this binding's groups target, one list per binding. */
export interface WorkloadGroupPeers {
  affinity: readonly (readonly string[])[];
  antiAffinity: readonly (readonly string[])[];
}

/** The fields of a ResourceBinding the plugins read. */
export interface GroupedBinding {
  metadata: { name?: string; namespace?: string };
  spec?: { clusters?: readonly { name: string }[] | null; workloadAffinityGroups?: WorkloadAffinityGroups | null } | null;
}

/**
 * The other bindings of `b`'s groups among `bindings`: same namespace, same group, another name. Undefined
 * when `b` belongs to no group (the plugins then pass every cluster). ClusterResourceBindings have no groups
 * in Karmada (the detector fills them for ResourceBindings only), so the caller passes namespaced ones.
 */
export function groupPeers(b: GroupedBinding, bindings: Iterable<GroupedBinding>): WorkloadGroupPeers | undefined {
  const groups = b.spec?.workloadAffinityGroups;
  if (!groups?.affinityGroup && !groups?.antiAffinityGroup) return undefined;
  const peers: { affinity: string[][]; antiAffinity: string[][] } = { affinity: [], antiAffinity: [] };
  for (const o of bindings) {
    const shared = sharedGroups(b, o);
    if (!shared.affinity && !shared.antiAffinity) continue;
    const targets = (o.spec?.clusters ?? []).map((t) => t.name);
    if (shared.affinity) peers.affinity.push(targets);
    if (shared.antiAffinity) peers.antiAffinity.push(targets);
  }
  return peers;
}

/** Which of `b`'s workload groups another binding of its namespace is in (never `b` itself). */
export function sharedGroups(b: GroupedBinding, o: GroupedBinding): { affinity: boolean; antiAffinity: boolean } {
  const mine = b.spec?.workloadAffinityGroups;
  const theirs = o.spec?.workloadAffinityGroups;
  if (!mine || !theirs || o.metadata.namespace !== b.metadata.namespace || o.metadata.name === b.metadata.name) return { affinity: false, antiAffinity: false };
  return {
    affinity: !!mine.affinityGroup && theirs.affinityGroup === mine.affinityGroup,
    antiAffinity: !!mine.antiAffinityGroup && theirs.antiAffinityGroup === mine.antiAffinityGroup,
  };
}

/**
 * The two plugins as one check per cluster, WorkloadAffinity first (plugin-name order). An affinity peer
 * that targets nothing yet does not constrain: the first workload of a group goes anywhere its placement
 * allows, as in Karmada.
 */
export function compileWorkloadAffinity(peers: WorkloadGroupPeers | undefined): ((cluster: string, isTarget: boolean) => FilterFailure | null) | null {
  if (!peers) return null;
  const pinned = peers.affinity.filter((targets) => targets.length > 0);
  const allowed = pinned.length > 0 ? new Set(pinned[0]!.filter((name) => pinned.every((targets) => targets.includes(name)))) : null;
  const forbidden = new Set(peers.antiAffinity.flat());
  if (!allowed && forbidden.size === 0) return null;
  const affinityFail: FilterFailure = { plugin: PLUGIN_WORKLOAD_AFFINITY, reason: REASON_WORKLOAD_AFFINITY };
  const antiFail: FilterFailure = { plugin: PLUGIN_WORKLOAD_ANTI_AFFINITY, reason: REASON_WORKLOAD_ANTI_AFFINITY };
  return (cluster, isTarget) => {
    if (isTarget) return null;
    if (allowed && !allowed.has(cluster)) return affinityFail;
    if (forbidden.has(cluster)) return antiFail;
    return null;
  };
}
