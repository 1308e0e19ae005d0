/**
 * Karmada's remedy controller (pkg/controllers/remediation): a Cluster's status.remedyActions is the sorted
 * set of the actions of every Remedy (remedy.karmada.io/v1alpha1) that looks at the cluster and whose
 * decision matches its status conditions. Consumers (traffic control in front of the members) read the
 * actions; the controller only decides them. The conditions themselves come from outside (a cluster problem
 * detector writes e.g. ServiceDomainNameResolutionReady), so a Remedy with matches waits on them.
 */
import type { Cluster, Remedy } from '../api/generated/types.js';
import { deepEqual } from '../json/value.js';
import { CLUSTER, REMEDY } from './kinds.js';
import { parseRefKey, refKey, type Condition } from './object.js';
import { emptyResult, type ObjectReader, type ReconcileContext, type ReconcileResult } from './ports.js';

/** Karmada's name for it in --controllers. */
export const REMEDY_CONTROLLER = 'remedy';

type DecisionMatch = NonNullable<Remedy['spec']['decisionMatches']>[number];

/** A Remedy without clusterAffinity looks at every cluster; with one, at the clusters it names. */
export function remedyLooksAt(remedy: Pick<Remedy, 'spec'>, clusterName: string): boolean {
  const affinity = remedy.spec?.clusterAffinity;
  return !affinity || (affinity.clusterNames ?? []).includes(clusterName);
}

/**
 * Karmada's remedyDecisionMatchWithCluster: no matches at all means the actions apply at once; otherwise any one
 * condition match is enough (OR), and a condition the cluster does not report matches neither Equal nor NotEqual.
 */
export function decisionMatches(matches: readonly DecisionMatch[] | undefined, conditions: readonly Pick<Condition, 'type' | 'status'>[] | undefined): boolean {
  if (matches === undefined) return true;
  if (conditions === undefined) return false;
  return matches.some((m) => {
    const want = m.clusterConditionMatch;
    if (!want) return false;
    const c = conditions.find((x) => x.type === want.conditionType);
    if (!c) return false;
    if (want.operator === 'Equal') return c.status === want.conditionStatus;
    if (want.operator === 'NotEqual') return c.status !== want.conditionStatus;
    return false;
  });
}

/** The actions the Remedies ask of one cluster, as Karmada's calculateActions: a sorted set. */
export function remedyActions(cluster: Pick<Cluster, 'metadata' | 'status'>, remedies: readonly Pick<Remedy, 'spec'>[]): string[] {
  const actions = new Set<string>();
  const conditions = cluster.status?.conditions;
  for (const r of remedies) {
    if (!remedyLooksAt(r, cluster.metadata.name!) || !decisionMatches(r.spec?.decisionMatches, conditions)) continue;
    for (const a of r.spec?.actions ?? []) actions.add(a);
  }
  return [...actions].sort();
}

export function reconcileRemedy(ctx: ReconcileContext, key: string): ReconcileResult {
  const cluster = ctx.reader.get(CLUSTER, undefined, parseRefKey(key).name);
  if (!cluster || cluster.metadata.deletionTimestamp) return emptyResult();
  const actions = remedyActions(cluster, ctx.reader.list(REMEDY));
  if (deepEqual(cluster.status?.remedyActions ?? [], actions)) return emptyResult();
  const status = { ...(cluster.status ?? {}) };
  if (actions.length) status.remedyActions = actions;
  else delete status.remedyActions;
  return { writes: [{ op: 'updateStatus', object: { ...cluster, status } }], events: [] };
}

const clusterKey = (name: string) => refKey({ apiVersion: CLUSTER.apiVersion, kind: CLUSTER.kind, name });

/**
 * The clusters a Remedy change wakes, as Karmada's remedy event handler: the names of its affinity, or every
 * cluster when the old or the new version has none.
 */
export function clustersOfRemedy(reader: ObjectReader, remedies: ReadonlyArray<Pick<Remedy, 'spec'> | undefined>): string[] {
  const named = remedies.filter((r): r is Pick<Remedy, 'spec'> => r !== undefined);
  if (named.some((r) => !r.spec?.clusterAffinity)) return reader.list(CLUSTER).map((c) => clusterKey(c.metadata.name!));
  return [...new Set(named.flatMap((r) => r.spec?.clusterAffinity?.clusterNames ?? []))].map(clusterKey);
}
