/**
 * Kubernetes label-selector semantics (apimachinery `labels`), and Karmada's `ClusterMatches`
 * (spec §1.2). A selector that Kubernetes would refuse to build matches nothing, so syntax checks on
 * keys, values and operators are part of matching, not only of validation.
 */
import type { ClusterAffinity, LabelSelector, LabelSelectorRequirement } from './types.js';

/** Labels as a map: matching looks keys up once per requirement per cluster, and Map lookups are the cheapest. */
export type Labels = ReadonlyMap<string, string>;
export type LabelMatcher = (labels: Labels) => boolean;

export function labelsOf(obj: Readonly<Record<string, string>> | null | undefined): Labels {
  return new Map(Object.entries(obj ?? {}));
}

const NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const INT_RE = /^[+-]?[0-9]+$/;

export function isQualifiedName(key: string): boolean {
  const slash = key.indexOf('/');
  let name = key;
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    name = key.slice(slash + 1);
    if (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN_RE.test(prefix)) return false;
  }
  return name.length > 0 && name.length <= 63 && NAME_RE.test(name);
}

export function isLabelValue(v: string): boolean {
  return v === '' || (v.length <= 63 && NAME_RE.test(v));
}

const MATCH_NOTHING: LabelMatcher = () => false;
const MATCH_EVERYTHING: LabelMatcher = () => true;

/**
 * One requirement, or null when `labels.NewRequirement` would return an error. `allowNumeric` admits
 * Gt/Lt, which node-selector requirements (fieldSelector) have and label selectors do not.
 */
function requirement(r: LabelSelectorRequirement, allowNumeric: boolean): LabelMatcher | null {
  const key = r.key;
  const values = r.values ?? [];
  if (typeof key !== 'string' || !isQualifiedName(key)) return null;
  for (const v of values) if (typeof v !== 'string' || !isLabelValue(v)) return null;
  switch (r.operator) {
    case 'In': {
      if (values.length === 0) return null;
      const set = new Set(values);
      return (l) => {
        const v = l.get(key);
        return v !== undefined && set.has(v);
      };
    }
    case 'NotIn': {
      if (values.length === 0) return null;
      const set = new Set(values);
      return (l) => {
        const v = l.get(key);
        return v === undefined || !set.has(v);
      };
    }
    case 'Exists':
      if (values.length !== 0) return null;
      return (l) => l.has(key);
    case 'DoesNotExist':
      if (values.length !== 0) return null;
      return (l) => !l.has(key);
    case 'Gt':
    case 'Lt': {
      if (!allowNumeric || values.length !== 1 || !INT_RE.test(values[0]!)) return null;
      const bound = BigInt(values[0]!);
      const gt = r.operator === 'Gt';
      return (l) => {
        const v = l.get(key);
        if (v === undefined || !INT_RE.test(v)) return false;
        const n = BigInt(v);
        return gt ? n > bound : n < bound;
      };
    }
    default:
      return null;
  }
}

function all(ms: LabelMatcher[]): LabelMatcher {
  if (ms.length === 0) return MATCH_EVERYTHING;
  if (ms.length === 1) return ms[0]!;
  return (l) => {
    for (const m of ms) if (!m(l)) return false;
    return true;
  };
}

/** `metav1.LabelSelectorAsSelector` followed by `Matches`; an invalid selector matches nothing. */
export function compileLabelSelector(sel: LabelSelector): LabelMatcher {
  const parts: LabelMatcher[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    const m = requirement({ key: k, operator: 'In', values: [v] }, false);
    if (!m) return MATCH_NOTHING;
    parts.push(m);
  }
  for (const e of sel.matchExpressions ?? []) {
    const m = requirement(e, false);
    if (!m) return MATCH_NOTHING;
    parts.push(m);
  }
  return all(parts);
}

/** `NodeSelectorRequirementsAsSelector`: used for the non-zone part of `fieldSelector`. */
export function compileNodeSelectorRequirements(reqs: LabelSelectorRequirement[]): LabelMatcher {
  if (reqs.length === 0) return MATCH_NOTHING;
  return nodeSelectorRequirementsMatcher(reqs) ?? MATCH_NOTHING;
}

/** The same, with null where `NodeSelectorRequirementsAsSelector` returns an error (a node affinity term it leaves out). */
export function nodeSelectorRequirementsMatcher(reqs: LabelSelectorRequirement[]): LabelMatcher | null {
  const parts: LabelMatcher[] = [];
  for (const e of reqs) {
    const m = requirement(e, true);
    if (!m) return null;
    parts.push(m);
  }
  return all(parts);
}

/** What ClusterMatches needs to know about a cluster; ClusterInfo (snapshot.ts) provides it. */
export interface MatchableCluster {
  name: string;
  labels: Labels;
  /** `provider` and `region`, present only when non-empty (spec §1.2 step 3). */
  fields: Labels;
  zones: readonly string[];
}

export type ClusterMatcher = (c: MatchableCluster) => boolean;

function zoneMatcher(r: LabelSelectorRequirement): (zones: readonly string[]) => boolean {
  const values = new Set(r.values ?? []);
  switch (r.operator) {
    case 'In':
      return (zones) => zones.length > 0 && zones.some((z) => values.has(z));
    case 'NotIn':
      return (zones) => !zones.some((z) => values.has(z));
    case 'Exists':
      return (zones) => zones.length > 0;
    case 'DoesNotExist':
      return (zones) => zones.length === 0;
    default:
      return () => false;
  }
}

/**
 * Karmada's `ClusterMatches(cluster, affinity)`: exclude, then labelSelector, then fieldSelector
 * (zone expressions against spec.zones, the rest against {provider, region}), then clusterNames.
 * Compiled once per scheduling pass, since the same affinity is matched against every cluster.
 */
export function compileClusterAffinity(affinity: ClusterAffinity): ClusterMatcher {
  const exclude = affinity.exclude && affinity.exclude.length > 0 ? new Set(affinity.exclude) : null;
  const labels = affinity.labelSelector ? compileLabelSelector(affinity.labelSelector) : null;
  const zoneChecks: Array<(zones: readonly string[]) => boolean> = [];
  let fields: LabelMatcher | null = null;
  if (affinity.fieldSelector) {
    const others: LabelSelectorRequirement[] = [];
    for (const e of affinity.fieldSelector.matchExpressions ?? []) {
      if (e.key === 'zone') zoneChecks.push(zoneMatcher(e));
      else others.push(e);
    }
    if (others.length > 0) fields = compileNodeSelectorRequirements(others);
  }
  const names = affinity.clusterNames && affinity.clusterNames.length > 0 ? new Set(affinity.clusterNames) : null;
  return (c) => {
    if (exclude && exclude.has(c.name)) return false;
    if (labels && !labels(c.labels)) return false;
    for (const z of zoneChecks) if (!z(c.zones)) return false;
    if (fields && !fields(c.fields)) return false;
    if (names && !names.has(c.name)) return false;
    return true;
  };
}

export function clusterMatches(c: MatchableCluster, affinity: ClusterAffinity): boolean {
  return compileClusterAffinity(affinity)(c);
}
