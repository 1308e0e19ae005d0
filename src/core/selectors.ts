/**
 * Matching rules shared by policy selection, override selection and override targeting: Kubernetes
 * label selectors, Karmada resource selectors with their implicit priority, and cluster affinity.
 */
import type { KObject } from './object.js';

export interface LabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] | null }> | null;
}

/** Kubernetes semantics; an invalid selector (unknown operator, bad values) matches nothing. */
export function matchLabelSelector(labels: Record<string, string> | undefined, sel: LabelSelector | undefined | null): boolean {
  if (!sel) return true;
  const l = labels ?? {};
  for (const k in sel.matchLabels ?? {}) if (l[k] !== sel.matchLabels![k]) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
        if (!values.length || !has || !values.includes(l[e.key]!)) return false;
        break;
      case 'NotIn':
        if (!values.length) return false;
        if (has && values.includes(l[e.key]!)) return false;
        break;
      case 'Exists':
        if (values.length || !has) return false;
        break;
      case 'DoesNotExist':
        if (values.length || has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
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

export interface ClusterAffinity {
  clusterNames?: string[] | null;
  exclude?: string[] | null;
  labelSelector?: LabelSelector | null;
  fieldSelector?: { matchExpressions?: Array<{ key: string; operator: string; values?: string[] | null }> | null } | null;
}

/** Karmada's ClusterMatches: exclude, then labels, then fields (provider/region/zone), then names. */
export function clusterMatches(cluster: KObject, aff: ClusterAffinity | undefined | null): boolean {
  if (!aff) return true;
  const name = cluster.metadata.name ?? '';
  if (aff.exclude?.includes(name)) return false;
  if (aff.labelSelector && !matchLabelSelector(cluster.metadata.labels, aff.labelSelector)) return false;
  if (aff.fieldSelector && !matchFieldSelector(cluster, aff.fieldSelector)) return false;
  if (aff.clusterNames?.length) return aff.clusterNames.includes(name);
  return true;
}

function matchFieldSelector(cluster: KObject, fs: NonNullable<ClusterAffinity['fieldSelector']>): boolean {
  const spec = (cluster.spec ?? {}) as { provider?: string; region?: string; zone?: string; zones?: string[] };
  for (const e of fs.matchExpressions ?? []) {
    let values: string[];
    switch (e.key) {
      case 'provider':
        values = spec.provider ? [spec.provider] : [];
        break;
      case 'region':
        values = spec.region ? [spec.region] : [];
        break;
      case 'zone':
        values = spec.zones?.length ? spec.zones : spec.zone ? [spec.zone] : [];
        break;
      default:
        return false;
    }
    const want = e.values ?? [];
    switch (e.operator) {
      case 'In':
        if (!values.some((v) => want.includes(v))) return false;
        break;
      case 'NotIn':
        if (values.some((v) => want.includes(v))) return false;
        break;
      case 'Exists':
        if (!values.length) return false;
        break;
      case 'DoesNotExist':
        if (values.length) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
