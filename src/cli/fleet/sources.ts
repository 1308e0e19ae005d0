/**
 * Where a fleet command's requests go, as karmadactl decides it: the host itself (the Karmada control
 * plane, CLUSTER `Karmada`) and members through the host's cluster proxy, chosen by
 * `--operation-scope` and `--clusters`.
 */
import { InputError } from '../../io/documents.js';
import type { FleetClient } from './client.js';
import { CONTROL_PLANE } from './table.js';
import { errorMessage } from '../../json/error.js';

export const OPERATION_SCOPES = ['karmada', 'members', 'all'] as const;
export type OperationScope = (typeof OPERATION_SCOPES)[number];

export interface Source {
  /** `Karmada` for the host, else the member's name. */
  cluster: string;
  client: FleetClient;
  member: boolean;
}

const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';

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
  let all: string[];
  try {
    const list = await host.get<{ items?: Array<{ metadata?: { name?: string } }> }>(CLUSTERS);
    all = (list.items ?? []).map((c) => String(c.metadata?.name ?? '')).sort();
  } catch (e) {
    throw new Error(`failed to list all member clusters in control plane, err: ${errorMessage(e)}`);
  }
  if (!named?.length) return all;
  const missing = named.filter((n) => !all.includes(n));
  if (missing.length) throw new Error(`clusters don't exist: ${missing.join(',')}`);
  return [...new Set(named)];
}

export async function sourcesFor(host: FleetClient, scope: OperationScope, clusters: readonly string[] | undefined): Promise<Source[]> {
  const out: Source[] = scope === 'members' ? [] : [{ cluster: CONTROL_PLANE, client: host, member: false }];
  if (scope !== 'karmada') for (const name of await memberNames(host, clusters)) out.push({ cluster: name, client: host.forCluster(name), member: true });
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
