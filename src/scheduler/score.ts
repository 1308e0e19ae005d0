/**
 * Score plugins (spec §1.4). ClusterLocality is the stickiness mechanism: clusters the binding already
 * targets (zero-replica entries included) score 100 and sort first. The ClusterAffinity score plugin
 * always gives 0 and is not modelled.
 */
import { MAX_CLUSTER_SCORE, MIN_CLUSTER_SCORE } from './messages.js';
import type { ClusterInfo } from './snapshot.js';
import type { ResourceBindingSpec } from './types.js';

export function clusterLocalityScore(spec: ResourceBindingSpec): (c: ClusterInfo) => number {
  const targets = spec.clusters ?? [];
  const max = MAX_CLUSTER_SCORE;
  const min = MIN_CLUSTER_SCORE;
  if (targets.length === 0) return () => min;
  const names = new Set(targets.map((t) => t.name));
  return (c) => (names.has(c.name) ? max : min);
}
