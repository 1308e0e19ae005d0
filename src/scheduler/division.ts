/**
 * Replica division (spec §2.3, §2.4): static weights, and the dynamic strategies (DynamicWeight and
 * Aggregated) with their Steady and Fresh assignment modes.
 */
import { errorMessage } from '../json/error.js';
import { errNotEnoughReplicas } from './messages.js';
import { compileClusterAffinity, type MatchableCluster } from './selector.js';
import type { ClusterPreferences, TargetCluster } from './types.js';
import { takeByWeight, type Party } from './webster.js';

/** Karmada's UnschedulableError: not enough capacity; it stays recognisable through message wrapping. */
export class UnschedulableError extends Error {
  override name = 'UnschedulableError';
}

export interface Replicas {
  name: string;
  replicas: number;
}

/**
 * Sorted by replicas descending, equal entries keeping input order. Go's `sort.Sort` is an insertion
 * sort (stable) up to 12 entries; beyond that its pdqsort may reorder ties, and karmada-lite keeps
 * them stable instead, so the result never depends on an unspecified order.
 */
export function sortByReplicasDesc<T extends Replicas>(list: T[]): T[] {
  const n = list.length;
  if (n < 2) return list;
  // Numeric keys `(2^32 - replicas) * n + index` sort natively and keep ties in input order.
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const r = list[i]!.replicas;
    if (!(r >= 0 && r < 2 ** 32) || r !== Math.floor(r) || n > 2 ** 20) return list.sort((a, b) => b.replicas - a.replicas);
    keys[i] = (2 ** 32 - r) * n + i;
  }
  keys.sort();
  const copy = list.slice();
  for (let i = 0; i < n; i++) list[i] = copy[keys[i]! % n]!;
  return list;
}

/**
 * `MergeTargetClusters(old, new)`: adds old replicas to the new entries of the same name. Old entries
 * with no new counterpart come from a Go map in Karmada (unspecified order); karmada-lite appends them
 * in their `spec.clusters` order.
 */
export function mergeTargetClusters(old: readonly Replicas[], fresh: readonly Replicas[]): Replicas[] {
  if (old.length === 0) return fresh.slice();
  if (fresh.length === 0) return old.slice();
  const oldMap = new Map<string, number>();
  for (const o of old) if (!oldMap.has(o.name)) oldMap.set(o.name, o.replicas);
  const out = fresh.map((f) => {
    const v = oldMap.get(f.name);
    if (v === undefined) return { name: f.name, replicas: f.replicas };
    oldMap.delete(f.name);
    return { name: f.name, replicas: f.replicas + v };
  });
  for (const o of old) {
    const v = oldMap.get(o.name);
    if (v === undefined) continue;
    out.push({ name: o.name, replicas: v });
    oldMap.delete(o.name);
  }
  return out;
}

export type DynamicStrategy = 'DynamicWeight' | 'Aggregated';

/**
 * `dynamicDivideReplicas`: checks capacity, trims the list for Aggregated (prior clusters first, then
 * the shortest prefix that can hold the target), divides by Webster over available replicas and
 * merges with the replicas already scheduled.
 */
export function divideReplicas(
  strategy: DynamicStrategy,
  target: number,
  availList: readonly Replicas[],
  scheduled: readonly Replicas[],
  uid: string | undefined,
): Replicas[] {
  let sum = 0;
  for (const a of availList) sum += a.replicas;
  if (sum < target) throw new UnschedulableError(errNotEnoughReplicas(sum));
  let list = availList;
  if (strategy === 'Aggregated') {
    const prior = new Set(scheduled.filter((s) => s.replicas > 0).map((s) => s.name));
    if (prior.size > 0) list = [...list.filter((a) => prior.has(a.name)), ...list.filter((a) => !prior.has(a.name))];
    let running = 0;
    for (let i = 0; i < list.length; i++) {
      running += list[i]!.replicas;
      if (running >= target) {
        list = list.slice(0, i + 1);
        break;
      }
    }
  }
  const parties: Party[] = list.map((a) => ({ name: a.name, votes: a.replicas }));
  // Zero-seat entries matter only where an old entry merges into them (their position); the rest are dropped later.
  const old = scheduled.length > 0 ? new Set(scheduled.map((s) => s.name)) : null;
  const seats = takeByWeight(target, parties, uid, (name) => old !== null && old.has(name)).map((s) => ({
    name: s.name,
    replicas: s.seats,
  }));
  return mergeTargetClusters(scheduled, seats);
}

export interface DynamicCandidate {
  name: string;
  /** AllocatableReplicas: spare capacity, not counting the binding's own replicas there. */
  allocatable: number;
}

export interface DynamicInput {
  strategy: DynamicStrategy;
  /** Selected candidates, in selection order. */
  candidates: readonly DynamicCandidate[];
  replicas: number;
  /** The binding's current `spec.clusters`. */
  previous: readonly TargetCluster[];
  /** Fresh mode: an explicit reschedule newer than the last schedule. */
  fresh: boolean;
  uid: string | undefined;
}

const wrap = (prefix: string, e: unknown): Error => {
  const msg = `${prefix}: ${errorMessage(e)}`;
  return e instanceof UnschedulableError ? new UnschedulableError(msg) : new Error(msg);
};

/**
 * Steady mode keeps what is placed: scale up places only the extra replicas (by spare capacity, on
 * top of the old ones), scale down shrinks in proportion to the old distribution. Fresh mode
 * recomputes everything from capacity plus current replicas.
 */
export function assignDynamic(input: DynamicInput): Replicas[] {
  const { strategy, candidates, replicas, previous, uid } = input;
  // `previous` is short and `candidates` may be long: index the former.
  const wanted = new Map<string, boolean>();
  for (const t of previous) wanted.set(t.name, false);
  if (wanted.size > 0) for (const c of candidates) if (wanted.has(c.name)) wanted.set(c.name, true);
  const scheduled: Replicas[] = [];
  let assigned = 0;
  for (const t of previous) {
    if (!wanted.get(t.name)) continue;
    const r = t.replicas ?? 0;
    scheduled.push({ name: t.name, replicas: r });
    assigned += r;
  }
  // Webster's result does not depend on the order of its parties; only Aggregated's cut does.
  const sort = strategy === 'Aggregated' ? sortByReplicasDesc : <T>(l: T[]): T[] => l;
  if (input.fresh) {
    const current = new Map(scheduled.map((s) => [s.name, s.replicas]));
    const avail = sort(candidates.map((c) => ({ name: c.name, replicas: c.allocatable + (current.get(c.name) ?? 0) })));
    try {
      return divideReplicas(strategy, replicas, avail, [], uid);
    } catch (e) {
      throw wrap('failed to do fresh scale', e);
    }
  }
  if (assigned > replicas) {
    try {
      return divideReplicas(strategy, replicas, sort(scheduled.slice()), [], uid);
    } catch (e) {
      throw wrap('failed to scale down', e);
    }
  }
  if (assigned < replicas) {
    const avail = sort(candidates.map((c) => ({ name: c.name, replicas: c.allocatable })));
    try {
      return divideReplicas(strategy, replicas - assigned, avail, scheduled, uid);
    } catch (e) {
      throw wrap('failed to scale up', e);
    }
  }
  return scheduled;
}

/**
 * Static weights: each candidate weighs the largest weight among the rules that match it; unmatched
 * candidates get nothing, unless no candidate matches at all (then all weigh 1). The previous
 * assignment plays no part.
 */
export function assignStaticWeight(
  candidates: readonly MatchableCluster[],
  replicas: number,
  weightPreference: ClusterPreferences | null | undefined,
  uid: string | undefined,
): Replicas[] {
  let parties: Party[];
  if (!weightPreference) {
    parties = candidates.map((c) => ({ name: c.name, votes: 1 }));
  } else {
    const rules = (weightPreference.staticWeightList ?? []).map((r) => ({
      match: compileClusterAffinity(r.targetCluster ?? {}),
      weight: r.weight,
    }));
    parties = [];
    for (const c of candidates) {
      let w = 0;
      for (const r of rules) if (r.weight > w && r.match(c)) w = r.weight;
      if (w > 0) parties.push({ name: c.name, votes: w });
    }
    if (parties.length === 0) parties = candidates.map((c) => ({ name: c.name, votes: 1 }));
  }
  return takeByWeight(replicas, parties, uid, () => false).map((s) => ({ name: s.name, replicas: s.seats }));
}
