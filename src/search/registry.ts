// What the ResourceRegistries ask to cache (karmada-search.md 3, 5.2) and what their status says about it.
// Pure: registries and Cluster objects in, a plan and conditions out; src/search/cache.ts carries it out.
import { clusterInfo, setCondition } from '../scheduler/index.js';
import { compileClusterAffinity } from '../scheduler/selector.js';
import type { Cluster } from '../scheduler/types.js';
import type { Condition } from '../api/condition.js';

/** One resource type to cache from one cluster; `namespaces` is what the proxy may serve of it. */
export interface SelectedResource {
  apiVersion: string;
  kind: string;
  /** Undefined is every namespace. The watch itself always covers every namespace: the search API does. */
  namespaces: Set<string> | undefined;
}

export const resourceKey = (apiVersion: string, kind: string): string => `${apiVersion}/${kind}`;

/** cluster -> resourceKey -> what to cache. */
export type CachePlan = Map<string, Map<string, SelectedResource>>;

export function isClusterReady(cluster: any): boolean {
  if (cluster?.metadata?.deletionTimestamp) return false;
  return (cluster?.status?.conditions ?? []).some((c: any) => c?.type === 'Ready' && c.status === 'True');
}

/**
 * Whether the cluster serves the kind, by its `status.apiEnablements`: a group/version it lists without
 * the kind is off; one it does not list is undecided, and undecided is on (spec 3).
 */
export function isEnabledOn(cluster: any, apiVersion: string, kind: string): boolean {
  const gv = (cluster?.status?.apiEnablements ?? []).find((e: any) => e?.groupVersion === apiVersion);
  if (!gv) return true;
  return (gv.resources ?? []).some((r: any) => r?.kind === kind);
}

function selects(registry: any): (cluster: any) => boolean {
  const match = compileClusterAffinity(registry?.spec?.targetCluster ?? {});
  return (cluster) => match(clusterInfo(cluster as Cluster));
}

/** The union over registries, per Ready cluster they select (spec 3: registries are unioned). */
export function planCache(registries: readonly any[], clusters: readonly any[]): CachePlan {
  const plan: CachePlan = new Map();
  for (const r of registries) {
    if (r?.metadata?.deletionTimestamp) continue;
    const match = selects(r);
    for (const c of clusters) {
      if (!isClusterReady(c) || !match(c)) continue;
      const name = c.metadata.name as string;
      for (const s of r.spec?.resourceSelectors ?? []) {
        if (!s?.apiVersion || !s?.kind || !isEnabledOn(c, s.apiVersion, s.kind)) continue;
        let m = plan.get(name);
        if (!m) plan.set(name, (m = new Map()));
        const key = resourceKey(s.apiVersion, s.kind);
        const prev = m.get(key);
        const ns: Set<string> | undefined = s.namespace ? new Set([s.namespace]) : undefined;
        if (!prev) m.set(key, { apiVersion: s.apiVersion, kind: s.kind, namespaces: ns });
        else if (prev.namespaces && ns) prev.namespaces.add(s.namespace);
        else prev.namespaces = undefined; // all namespaces absorbs any list
      }
    }
  }
  return plan;
}

/**
 * The (cluster, type) pairs a registry selects on a cluster that is not Ready: not cached (Karmada's search
 * stops a not-Ready cluster's informers too), but a list must still say that they are missing.
 */
export function notReadySelections(registries: readonly any[], clusters: readonly any[]): Array<SelectedResource & { cluster: string }> {
  const out = new Map<string, SelectedResource & { cluster: string }>();
  for (const r of registries) {
    if (r?.metadata?.deletionTimestamp) continue;
    const match = selects(r);
    for (const c of clusters) {
      if (isClusterReady(c) || !match(c)) continue;
      const cluster = c.metadata.name as string;
      for (const s of r.spec?.resourceSelectors ?? []) {
        if (!s?.apiVersion || !s?.kind || !isEnabledOn(c, s.apiVersion, s.kind)) continue;
        const key = `${cluster} ${resourceKey(s.apiVersion, s.kind)}`;
        if (!out.has(key)) out.set(key, { cluster, apiVersion: s.apiVersion, kind: s.kind, namespaces: undefined });
      }
    }
  }
  return [...out.values()];
}

/** What the cache knows of one (cluster, type), for the registries' status. */
export interface ResourceState {
  /** Cached: listed and watching. Syncing: the first list has not come back. Failed: see message. */
  phase: 'Cached' | 'Syncing' | 'Failed';
  message?: string;
}

export const CachedConditionType = 'Cached';

/**
 * One condition, `Cached`: True when every selected (cluster, type) is listed and watched; otherwise
 * False, the message naming each pair that is not and why (cluster not Ready, type not enabled on it,
 * member unreachable, type unknown to the member).
 */
export function registryConditions(
  registry: any,
  clusters: readonly any[],
  state: (cluster: string, apiVersion: string, kind: string) => ResourceState | undefined,
  now: string,
): Condition[] {
  const match = selects(registry);
  const selected = clusters.filter((c) => match(c)).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  const selectors: any[] = registry?.spec?.resourceSelectors ?? [];
  const missing: string[] = [];
  let cached = 0;
  for (const c of selected) {
    const name = c.metadata.name as string;
    if (!isClusterReady(c)) {
      missing.push(`${name}: cluster is not Ready`);
      continue;
    }
    for (const s of selectors) {
      const what = `${name} ${s.apiVersion} ${s.kind}`;
      if (!isEnabledOn(c, s.apiVersion, s.kind)) {
        missing.push(`${what}: not enabled on the cluster (status.apiEnablements)`);
        continue;
      }
      const st = state(name, s.apiVersion, s.kind);
      if (st?.phase === 'Cached') cached++;
      else missing.push(`${what}: ${st?.phase === 'Failed' ? st.message ?? 'failed' : 'not listed yet'}`);
    }
  }
  const old = registry?.status?.conditions;
  if (selected.length === 0) {
    return setCondition(old, { type: CachedConditionType, status: 'False', reason: 'NoClusterSelected', message: 'spec.targetCluster selects no cluster' }, now);
  }
  const clusterNames = selected.map((c) => c.metadata.name).join(', ');
  if (missing.length === 0) {
    // No object counts: the condition would change, and be written, with every object that does.
    const message = `${cached} (cluster, resource type) pair(s) cached from ${selected.length} cluster(s): ${clusterNames}`;
    return setCondition(old, { type: CachedConditionType, status: 'True', reason: 'AllCached', message }, now);
  }
  const message = `${cached} cached, ${missing.length} not: ${missing.join('; ')}`;
  return setCondition(old, { type: CachedConditionType, status: 'False', reason: cached > 0 ? 'PartiallyCached' : 'NotCached', message }, now);
}
