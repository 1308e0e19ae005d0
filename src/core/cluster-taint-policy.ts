/**
 * Karmada's cluster taint policy controller (pkg/controllers/taint): for one Cluster, every
 * ClusterTaintPolicy (policy.karmada.io/v1alpha1) whose targetClusters match it, oldest first, adds its
 * taints when all addOnConditions match the Cluster's status conditions and removes them when all
 * removeOnConditions do. Taints are matched by key and effect; an added one is stamped with timeAdded
 * (the taint manager counts tolerationSeconds from it). A cluster that stops matching a policy keeps its
 * taints, and a deleted policy leaves them, as in Karmada.
 */
import {
  ClusterTaintPolicyControllerName,
  EventReasonTaintClusterFailed,
  EventReasonTaintClusterSucceed,
  MatchConditionOpIn,
  MatchConditionOpNotIn,
} from '../api/constants.js';
import { CLUSTER, CTP } from './kinds.js';
import { deepEqual } from '../json/value.js';
import type { ClusterTaintPolicy, MatchCondition, ObjectMeta } from '../api/generated/types.js';
import { parseRefKey, parseTime, refOf, rfc3339, withMetaAndSpec, type Condition } from './object.js';
import { emptyResult, type ObjectReader, type ReconcileContext, type ReconcileResult } from './ports.js';
import { clusterMatches } from './selectors.js';
import { taintsOf, wellFormedTaints, type ClusterView, type Taint } from './taint.js';

/** Karmada's name for it in --controllers. */
export const CLUSTER_TAINT_POLICY = 'clustertaintpolicy';

/** A ClusterTaintPolicy as read: the generated kind, or an object read as one before it was checked. */
export interface ClusterTaintPolicyView {
  metadata: ObjectMeta;
  spec?: Partial<ClusterTaintPolicy['spec']>;
}

/**
 * Karmada's conditionMatches: every match condition (AND) must hold; none means no match. A cluster
 * without the condition type matches neither In nor NotIn; an unknown operator matches nothing.
 */
export function conditionsMatch(conditions: readonly Condition[], match: readonly MatchCondition[] | undefined): boolean {
  if (!match?.length) return false;
  return match.every((m) => {
    if (m.operator !== MatchConditionOpIn && m.operator !== MatchConditionOpNotIn) return false;
    const c = conditions.find((x) => x.type === m.conditionType);
    if (!c) return false;
    const listed = (m.statusValues ?? []).includes(c.status);
    return m.operator === MatchConditionOpIn ? listed : !listed;
  });
}

const sameTaint = (a: Taint, b: { key: string; effect: string }) => a.key === b.key && a.effect === b.effect;

/** Policies oldest first (Karmada sorts by creationTimestamp, so conflicting policies settle the same way every time); then by name. */
function byAge(a: ClusterTaintPolicyView, b: ClusterTaintPolicyView): number {
  const ta = parseTime(a.metadata.creationTimestamp) ?? 0;
  const tb = parseTime(b.metadata.creationTimestamp) ?? 0;
  return ta - tb || (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0);
}

/** The taints the policies want on this cluster at `now`: existing ones kept in place, added ones after. */
export function policyTaints(cluster: ClusterView, policies: readonly ClusterTaintPolicyView[], now: Date): Taint[] {
  const conditions = cluster.status?.conditions ?? [];
  let taints = taintsOf(cluster);
  for (const p of [...policies].sort(byAge)) {
    const spec = p.spec ?? {};
    if (spec.targetClusters && !clusterMatches(cluster, spec.targetClusters)) continue;
    const own = wellFormedTaints(spec.taints);
    if (conditionsMatch(conditions, spec.addOnConditions)) {
      for (const t of own) {
        if (taints.some((x) => sameTaint(x, t))) continue;
        const added: Taint = { key: t.key, effect: t.effect, timeAdded: rfc3339(now) };
        if (t.value) added.value = t.value;
        taints = [...taints, added];
      }
    }
    if (conditionsMatch(conditions, spec.removeOnConditions)) taints = taints.filter((x) => !own.some((t) => sameTaint(x, t)));
  }
  return taints;
}

/** Karmada's GenerateTaintsMessage. */
function taintsMessage(taints: readonly Taint[]): string {
  if (!taints.length) return 'cluster now does not have taints';
  return taints.map((t) => (t.value ? `{Key:${t.key},Value:${t.value},Effect:${t.effect}}` : `{Key:${t.key},Effect:${t.effect}}`)).join(',');
}

export function reconcileClusterTaintPolicy(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const cluster = ctx.reader.get(CLUSTER, undefined, ref.name);
  if (!cluster) return emptyResult();
  const before = taintsOf(cluster);
  const taints = policyTaints(cluster, ctx.reader.list(CTP), ctx.now);
  if (deepEqual(before, taints)) return emptyResult();
  const next = withMetaAndSpec(cluster);
  if (taints.length) next.spec.taints = taints;
  else delete next.spec.taints;
  const ok = { involvedObject: refOf(cluster), type: 'Normal' as const, reason: EventReasonTaintClusterSucceed, message: `Update Cluster(${ref.name}) with taints(${taintsMessage(taints)}) succeed`, source: ClusterTaintPolicyControllerName };
  return {
    writes: [
      {
        op: 'update',
        object: next,
        then: () => ({ writes: [], events: [ok] }),
        failureEvents: [{ ...ok, type: 'Warning', reason: EventReasonTaintClusterFailed, message: `Failed to update Cluster(${ref.name}) taints` }],
      },
    ],
    events: [],
  };
}

/** The clusters a policy looks at: the keys a policy change wakes. */
export function clustersOfPolicy(reader: ObjectReader, policy: ClusterTaintPolicyView): string[] {
  const target = policy.spec?.targetClusters;
  return reader.list(CLUSTER).filter((c) => !target || clusterMatches(c, target)).map((c) => c.metadata.name!);
}
