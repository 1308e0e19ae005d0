/**
 * Matching rules shared by policy selection, override selection and override targeting: Kubernetes
 * label selectors, Karmada resource selectors with their implicit priority, and cluster affinity.
 */
import { compileClusterAffinity, compileLabelSelector, labelsOf, type ClusterMatcher, type LabelMatcher, type Labels, type MatchableCluster } from '../scheduler/selector.js';
import type { ClusterAffinity, LabelSelector } from '../scheduler/types.js';
import type { KObject } from './object.js';
import type { Cluster, ObjectMeta } from '../api/generated/types.js';

// Policies, overrides and the scheduler read selectors and affinities of one shape.
export type { ClusterAffinity, LabelSelector };

/**
 * Kubernetes semantics (the scheduler's matcher, so that policies, overrides and scheduling agree); a
 * selector Kubernetes would refuse to build (bad key, value or operator) matches nothing. Compiled once per
 * selector object: selectors and labels come from stored objects, which are never changed in place.
 */
export function matchLabelSelector(labels: Record<string, string> | undefined, sel: LabelSelector | undefined | null): boolean {
  if (!sel) return true;
  let m = compiledSelectors.get(sel);
  if (!m) compiledSelectors.set(sel, (m = compileLabelSelector(sel)));
  return m(labelMap(labels));
}

const compiledSelectors = new WeakMap<object, LabelMatcher>();
const compiledAffinities = new WeakMap<object, ClusterMatcher>();
const labelMaps = new WeakMap<object, Labels>();
const NO_LABELS: Labels = new Map();

function labelMap(labels: Record<string, string> | undefined): Labels {
  if (!labels) return NO_LABELS;
  let m = labelMaps.get(labels);
  if (!m) labelMaps.set(labels, (m = labelsOf(labels)));
  return m;
}

export interface ResourceSelector {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
  labelSelector?: LabelSelector | null;
}

/** Implicit priorities of one selector's match, Karmada's ImplicitPriority values. */
export const PriorityMisMatch = 0;
export const PriorityMatchAll = 1;
export const PriorityMatchLabelSelector = 2;
export const PriorityMatchName = 3;

/** How specifically a selector matches a template: 0 not at all, 1 by kind, 2 by labels, 3 by name. */
export function selectorPriority(tpl: KObject, s: ResourceSelector): number {
  if (s.apiVersion !== tpl.apiVersion || s.kind !== tpl.kind) return PriorityMisMatch;
  if (s.namespace && s.namespace !== (tpl.metadata.namespace ?? '')) return PriorityMisMatch;
  if (s.name) return s.name === tpl.metadata.name ? PriorityMatchName : PriorityMisMatch;
  if (!s.labelSelector) return PriorityMatchAll;
  return matchLabelSelector(tpl.metadata.labels, s.labelSelector) ? PriorityMatchLabelSelector : PriorityMisMatch;
}

/** The highest priority over the selectors; 0 when none matches. */
export function implicitPriority(tpl: KObject, selectors: readonly ResourceSelector[] | undefined): number {
  let best = PriorityMisMatch;
  for (const s of selectors ?? []) {
    const p = selectorPriority(tpl, s);
    if (p > best) best = p;
  }
  return best;
}

export function matchesAnySelector(tpl: KObject, selectors: readonly ResourceSelector[] | undefined): boolean {
  return implicitPriority(tpl, selectors) > PriorityMisMatch;
}

/** What cluster matching reads of a Cluster: its name, labels and the provider, region and zones fields. */
export interface ClusterView {
  metadata: ObjectMeta;
  spec?: Pick<Cluster['spec'], 'provider' | 'region' | 'zones'>;
}

/** Karmada's ClusterMatches (the scheduler's): exclude, then labels, then fields (provider/region/zone), then names. */
export function clusterMatches(cluster: ClusterView, aff: ClusterAffinity | undefined | null): boolean {
  if (!aff) return true;
  let m = compiledAffinities.get(aff);
  if (!m) compiledAffinities.set(aff, (m = compileClusterAffinity(aff)));
  return m(matchable(cluster));
}

const matchables = new WeakMap<object, MatchableCluster>();

/** The view of a Cluster that ClusterMatches reads, built once per stored Cluster object. */
function matchable(cluster: ClusterView): MatchableCluster {
  let c = matchables.get(cluster);
  if (c) return c;
  const spec = cluster.spec ?? {};
  const fields = new Map<string, string>();
  if (spec.provider) fields.set('provider', spec.provider);
  if (spec.region) fields.set('region', spec.region);
  c = { name: cluster.metadata.name ?? '', labels: labelMap(cluster.metadata.labels), fields, zones: spec.zones ?? [] };
  matchables.set(cluster, c);
  return c;
}

/** A LabelSelector as a query string (`app=web,tier in (a,b)`), as labels.Selector.String() writes it. */
export function selectorString(sel: LabelSelector): string {
  const parts = Object.entries(sel.matchLabels ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`);
  for (const e of sel.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',');
}
