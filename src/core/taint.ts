/**
 * The taints the cluster controller keeps on a Cluster from its Ready condition (spec: scheduler §5
 * "Cluster health", and the NoExecute taint of Karmada's cluster failover):
 *
 * - Ready False, or no Ready condition yet: `cluster.karmada.io/not-ready:NoSchedule`;
 * - Ready Unknown: `cluster.karmada.io/unreachable:NoSchedule`;
 * - once Ready has been False/Unknown for the failure threshold (`--cluster-failure-threshold`), the
 *   same key with effect NoExecute, stamped with `timeAdded`; the taint manager evicts from there;
 * - Ready True: both keys go, whatever their effect.
 *
 * The NoExecute part is karmada-lite's v1.2-style default (noExecuteEvictionMode `failover-policy`). Under
 * `--enable-no-execute-taint-eviction` or with the Failover gate off, the controller is current Karmada's:
 * it keeps only the NoSchedule taints, and NoExecute taints with those keys (a ClusterTaintPolicy's, a
 * user's) are left alone.
 *
 * Other taints (a user's) are kept as they are; a user's NoExecute taint without `timeAdded` gets one,
 * because tolerationSeconds counts from it. A pure function of (Cluster, clock).
 */
import {
  ClusterConditionReady,
  TaintClusterNotReady,
  TaintClusterUnreachable,
  TaintEffectNoExecute,
  TaintEffectNoSchedule,
} from '../api/constants.js';
import type { Cluster, ObjectMeta } from '../api/generated/types.js';
import { findCondition, parseTime, rfc3339 } from './object.js';

/**
 * What the taint helpers read of a Cluster: the generated Cluster, or an object read as one before it
 * was checked (a test's, a manifest's), whose spec may lack what the schema requires.
 */
export type ClusterView = {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Partial<Cluster['spec']>;
  status?: Cluster['status'];
};

/** A Cluster's taint; the effect as a string, since ClusterTaintPolicy and users name any. */
export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface TaintDecision {
  /** The taints the Cluster should have (spec.taints), in order: kept ones first, added ones after. */
  taints: Taint[];
  added: Taint[];
  removed: Taint[];
  /** Seconds until the NoExecute taint is due, when Ready is not True yet and the threshold is not reached. */
  requeueAfterSeconds?: number;
}

/** The Cluster's taints, without entries that are not taints at all (an object that skipped validation). */
export function taintsOf(cluster: ClusterView): Taint[] {
  return wellFormedTaints(cluster.spec?.taints);
}

export function wellFormedTaints(taints: readonly Taint[] | undefined): Taint[] {
  return (taints ?? []).filter((t) => t && typeof t.key === 'string');
}

export const describeTaint = (t: Taint): string => `${t.value ? `${t.key}=${t.value}` : t.key}:${t.effect}`;

const managedKey = (k: string) => k === TaintClusterNotReady || k === TaintClusterUnreachable;

/**
 * What the cluster controller wants spec.taints to be at `now`, given the failure threshold in seconds;
 * `noExecute` false: the NoSchedule taints only (current Karmada).
 */
export function desiredClusterTaints(cluster: ClusterView, now: Date, failureThresholdSeconds: number, noExecute = true): TaintDecision {
  const ready = findCondition(cluster.status?.conditions, ClusterConditionReady);
  const want: Taint[] = [];
  let requeueAfterSeconds: number | undefined;
  if (ready?.status !== 'True') {
    const key = ready?.status === 'Unknown' ? TaintClusterUnreachable : TaintClusterNotReady;
    want.push({ key, effect: TaintEffectNoSchedule });
    // Without a condition (never probed) or a readable transition time there is no evidence of how long
    // the cluster has been down, and eviction is not undone by a later probe: no NoExecute then.
    const since = ready && noExecute ? parseTime(ready.lastTransitionTime) : undefined;
    if (since !== undefined) {
      const due = since + failureThresholdSeconds * 1000;
      if (now.getTime() >= due) want.push({ key, effect: TaintEffectNoExecute });
      else requeueAfterSeconds = (due - now.getTime()) / 1000;
    }
  }

  const current = taintsOf(cluster);
  const same = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;
  const taints: Taint[] = [];
  const removed: Taint[] = [];
  for (const t of current) {
    if (managedKey(t.key) && (noExecute || t.effect !== TaintEffectNoExecute) && !want.some((w) => same(w, t))) {
      removed.push(t);
      continue;
    }
    taints.push(t.effect === TaintEffectNoExecute && !t.timeAdded ? { ...t, timeAdded: rfc3339(now) } : t);
  }
  const added: Taint[] = [];
  for (const w of want) {
    if (current.some((t) => same(t, w))) continue;
    const t = w.effect === TaintEffectNoExecute ? { ...w, timeAdded: rfc3339(now) } : w;
    added.push(t);
    taints.push(t);
  }
  return { taints, added, removed, requeueAfterSeconds };
}
