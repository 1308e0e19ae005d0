/**
 * Where a fleet command's requests go, as karmadactl decides it: the host itself (the Karmada control
 * plane, CLUSTER `Karmada`) and members through the host's cluster proxy, chosen by
 * `--operation-scope` and `--clusters`.
 */
import { InputError } from '../../io/documents.js';
import type { FleetClient } from './client.js';
import { CONTROL_PLANE } from './table.js';
import { errorMessage } from '../../json/error.js';
import { planCache, type CachePlan } from '../../search/registry.js';

export const OPERATION_SCOPES = ['karmada', 'members', 'all'] as const;
export type OperationScope = (typeof OPERATION_SCOPES)[number];

export interface Source {
  /** `Karmada` for the host, else the member's name. */
  cluster: string;
  client: FleetClient;
  member: boolean;
  /**
   * A Pull cluster with no `spec.apiEndpoint`, which the cluster proxy cannot reach: read through
   * karmada-search's cache on the host (`client` is the host's) for the types a ResourceRegistry caches of
   * it (resourceKey: `apps/v1/Deployment`), skipped with a warning for any other.
   */
  cached?: ReadonlySet<string>;
}

const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const REGISTRIES = '/apis/search.karmada.io/v1alpha1/resourceregistries';

type ClusterObject = { metadata?: { name?: string }; spec?: { syncMode?: string; apiEndpoint?: string } };

/** A Pull cluster the cluster proxy has no address for (karmada-agent registers none by default). */
const unreachable = (c: ClusterObject): boolean => c.spec?.syncMode === 'Pull' && !c.spec?.apiEndpoint;

/**
 * The scope of a command: the flag when given (a usage error names the values), else `members` when
 * `--clusters` names some, else `fallback`.
 */
export function operationScope(flag: string | undefined, clusters: readonly string[] | undefined, fallback: OperationScope): OperationScope {
  if (flag === undefined || flag === '') return clusters?.length ? 'members' : fallback;
  if (!(OPERATION_SCOPES as readonly string[]).includes(flag)) throw new InputError(`--operation-scope: not support OperationScope: ${flag} (use ${OPERATION_SCOPES.join(', ')})`);
  const scope = flag as OperationScope;
  if (scope === 'karmada' && clusters?.length) throw new InputError('--clusters needs --operation-scope members or all: scope karmada reads only the host');
  return scope;
}

/** `-C a,b -C c` as a list, empty names dropped. */
export const splitClusters = (values: readonly string[] | undefined): string[] | undefined => (values ? values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean) : undefined);

/** The members to reach: those named (each must be a registered Cluster), or every Cluster on the host. */
export async function memberNames(host: FleetClient, named: readonly string[] | undefined): Promise<string[]> {
  return (await memberClusters(host, named)).map((c) => String(c.metadata?.name ?? ''));
}

async function memberClusters(host: FleetClient, named: readonly string[] | undefined): Promise<ClusterObject[]> {
  let all: ClusterObject[];
  try {
    const list = await host.get<{ items?: ClusterObject[] }>(CLUSTERS);
    all = (list.items ?? []).sort((a, b) => String(a.metadata?.name ?? '').localeCompare(String(b.metadata?.name ?? '')));
  } catch (e) {
    throw new Error(`failed to list all member clusters in control plane, err: ${errorMessage(e)}`);
  }
  if (!named?.length) return all;
  const byName = new Map(all.map((c) => [String(c.metadata?.name ?? ''), c]));
  const missing = named.filter((n) => !byName.has(n));
  if (missing.length) throw new Error(`clusters don't exist: ${missing.join(',')}`);
  return [...new Set(named)].map((n) => byName.get(n)!);
}

/** What karmada-search caches of each cluster; nothing when the search API is not installed or not served. */
async function cachedTypes(host: FleetClient, clusters: readonly ClusterObject[]): Promise<CachePlan> {
  try {
    const list = await host.get<{ items?: unknown[] }>(REGISTRIES);
    return planCache(list.items ?? [], clusters);
  } catch {
    return new Map();
  }
}

export async function sourcesFor(host: FleetClient, scope: OperationScope, clusters: readonly string[] | undefined): Promise<Source[]> {
  const out: Source[] = scope === 'members' ? [] : [{ cluster: CONTROL_PLANE, client: host, member: false }];
  if (scope === 'karmada') return out;
  const members = await memberClusters(host, clusters);
  const plan = members.some(unreachable) ? await cachedTypes(host, members) : new Map<string, never>();
  for (const c of members) {
    const name = String(c.metadata?.name ?? '');
    if (unreachable(c)) out.push({ cluster: name, client: host, member: true, cached: new Set(plan.get(name)?.keys() ?? []) });
    else out.push({ cluster: name, client: host.forCluster(name), member: true });
  }
  return out;
}

/**
 * One member's client, as karmadactl's member factory makes it: the Cluster must exist on the host (its
 * NotFound is returned as it is), then every request goes through its proxy.
 */
export async function memberClient(host: FleetClient, name: string): Promise<FleetClient> {
  await host.get(`${CLUSTERS}/${encodeURIComponent(name)}`);
  return host.forCluster(name);
}
