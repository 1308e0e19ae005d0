/**
 * kubectl's REST mapping of a resource argument (`deploy`, `deployments.apps`, `Deployment`, `ds`) by the
 * discovery of the apiserver it is sent to: for a member that is the member's own discovery, read through
 * the cluster proxy, so CRDs that exist only there resolve too.
 */
import type { DiscoveredResource as ResourceType } from '../../api/kubernetes-kinds.js';
import type { FleetClient } from './client.js';

export interface ResourceInfo extends ResourceType {
  verbs: string[];
}

interface DiscoveredResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
}

/** `deployments.apps`, `pods`: how kubectl names a resource in its messages. */
export const qualifiedResource = (r: Pick<ResourceInfo, 'resource' | 'group'>) => (r.group ? `${r.resource}.${r.group}` : r.resource);

/** The apiVersion of objects of the resource. */
export const apiVersionOf = (r: Pick<ResourceInfo, 'group' | 'version'>) => (r.group ? `${r.group}/${r.version}` : r.version);

/** `/apis/apps/v1/namespaces/ns/deployments[/name]`: a namespace only for namespaced resources. */
export function resourcePath(r: ResourceInfo, namespace: string | undefined, name?: string, subresource?: string): string {
  let p = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  if (r.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${r.resource}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  if (subresource) p += `/${subresource}`;
  return p;
}

/** A resource and every name an argument may give it (lower case: plural, singular, kind, short names). */
export type DiscoveredInfo = ResourceInfo & { aliases: string[] };

/** Aggregated discovery (Kubernetes 1.30+): every group's resources in one answer, else the legacy documents. */
const AGGREGATED_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

interface AggregatedList {
  kind?: string;
  items?: Array<{
    metadata?: { name?: string };
    versions?: Array<{ version: string; resources?: Array<{ resource: string; singularResource?: string; scope?: string; responseKind?: { kind?: string }; verbs?: string[]; shortNames?: string[] }> }>;
  }>;
}

const info = (group: string, version: string, x: DiscoveredResource): DiscoveredInfo => ({
  group,
  version,
  resource: x.name,
  kind: x.kind,
  namespaced: x.namespaced,
  verbs: x.verbs ?? [],
  aliases: [x.name, x.singularName || x.kind, x.kind, ...(x.shortNames ?? [])].map((a) => a.toLowerCase()),
});

/**
 * Every version of each group of an aggregated discovery answer, the preferred (first) one first: a
 * resource the preferred version lacks is found in the next (work.karmada.io's Works are v1alpha1 only
 * while its bindings prefer v1alpha2), as kubectl's REST mapper finds it.
 */
function fromAggregated(list: AggregatedList): DiscoveredInfo[] {
  return (list.items ?? []).flatMap((g) =>
    (g.versions ?? []).flatMap((v) =>
      (v.resources ?? []).map((r) =>
        info(g.metadata?.name ?? '', v.version, { name: r.resource, singularName: r.singularResource, namespaced: r.scope === 'Namespaced', kind: r.responseKind?.kind ?? '', verbs: r.verbs, shortNames: r.shortNames }),
      ),
    ),
  );
}

/**
 * The served resources of one apiserver, in kubectl's priority order (the core group first, then as /apis
 * lists the groups). Two requests where the server has aggregated discovery: through the cluster proxy
 * every request is a round trip through the host, so one per group would make `get` slow.
 */
export function discover(client: FleetClient): Promise<DiscoveredInfo[]> {
  // get asks the host's discovery to place host kinds, and again as one of its sources: one round trip
  let known = discovered.get(client);
  if (!known) discovered.set(client, (known = discoverOnce(client)));
  return known;
}

const discovered = new WeakMap<FleetClient, Promise<DiscoveredInfo[]>>();

/** Karmada's own API groups (`cluster.karmada.io`, `policy.karmada.io`, `work.karmada.io`, ...): served by the control plane only. */
export const isKarmadaGroup = (group: string): boolean => group === 'karmada.io' || group.endsWith('.karmada.io');

async function discoverOnce(client: FleetClient): Promise<DiscoveredInfo[]> {
  const [core, groups] = await Promise.all([client.get<AggregatedList & { versions?: string[] }>('/api', { accept: AGGREGATED_ACCEPT }), client.get<AggregatedList & LegacyGroups>('/apis', { accept: AGGREGATED_ACCEPT })]);
  if (core.kind === 'APIGroupDiscoveryList' && groups.kind === 'APIGroupDiscoveryList') return [...fromAggregated(core), ...fromAggregated(groups)];
  const gvs: Array<{ group: string; version: string }> = (core.versions ?? []).slice(0, 1).map((version) => ({ group: '', version }));
  for (const g of groups.groups ?? []) {
    const preferred = g.preferredVersion?.version ?? g.versions?.[0]?.version;
    const versions = [...new Set([preferred, ...(g.versions ?? []).map((v) => v.version)])].filter((v): v is string => !!v);
    for (const version of versions) gvs.push({ group: g.name, version });
  }
  // A group whose discovery fails (an aggregated API that is down) leaves only its own resources out, as kubectl.
  const lists = await Promise.all(
    gvs.map(({ group, version }) =>
      client.get<{ resources?: DiscoveredResource[] }>(group ? `/apis/${group}/${version}` : `/api/${version}`).then(
        (l) => ({ group, version, resources: l.resources ?? [] }),
        () => ({ group, version, resources: [] as DiscoveredResource[] }),
      ),
    ),
  );
  return lists.flatMap(({ group, version, resources }) => resources.filter((x) => !x.name.includes('/')).map((x) => info(group, version, x)));
}

type LegacyGroups = { groups?: Array<{ name: string; preferredVersion?: { version: string }; versions?: Array<{ version: string }> }> };

/**
 * The resource an argument names: plural, singular, short name or kind, optionally followed by `.group`
 * or `.version.group`, matched case-insensitively as kubectl does; the first in priority order wins.
 * Throws kubectl's message when none serves it.
 */
export function resolveResource(resources: readonly DiscoveredInfo[], arg: string): ResourceInfo {
  const lower = arg.toLowerCase();
  const dot = lower.indexOf('.');
  const name = dot < 0 ? lower : lower.slice(0, dot);
  const rest = dot < 0 ? undefined : lower.slice(dot + 1);
  const found = resources.find((x) => x.aliases.includes(name) && (rest === undefined || rest === x.group || rest === `${x.version}.${x.group}`));
  if (!found) throw new Error(`the server doesn't have a resource type "${arg}"`);
  const { aliases: _aliases, ...info } = found;
  return info;
}
