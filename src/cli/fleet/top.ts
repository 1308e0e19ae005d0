/**
 * `top clusters`, pure: each Cluster's status.resourceSummary (what the cluster status controller posts
 * from the member's Nodes and Pods) as kubectl top node prints a node, with the cluster as the node:
 * CPU in millicores and memory in Mi requested by its Pods (allocated), and that as a share of what its
 * Nodes offer (allocatable). A Cluster with no summary yet shows <unknown>, as kubectl shows a node
 * without metrics.
 */
import { parseQuantity } from '../../quantity/quantity.js';
import { printTable, type Column } from '../output.js';

type ResourceList = Record<string, string | number>;
export type ClusterForTop = { metadata: { name: string }; status?: { resourceSummary?: { allocatable?: ResourceList; allocated?: ResourceList; allocating?: ResourceList } | null; nodeSummary?: { totalNum?: number; readyNum?: number } } };

export interface ClusterUsage {
  name: string;
  /** Undefined when the Cluster has no resource summary. */
  summary?: {
    cpu: Amounts;
    memory: Amounts;
    pods: Amounts;
  };
  nodes?: { ready: number; total: number };
}

/** CPU in millicores, memory in bytes, pods in pods. */
interface Amounts {
  allocatable?: number;
  allocated: number;
  allocating: number;
}

export const SORT_BY = ['cpu', 'memory'] as const;
export type SortBy = (typeof SORT_BY)[number];

function amount(list: ResourceList | undefined, name: string, milli: boolean): number | undefined {
  const raw = list?.[name];
  if (raw === undefined) return undefined;
  const q = parseQuantity(raw);
  return milli ? q.milliValue() : q.value();
}

export function clusterUsage(c: ClusterForTop): ClusterUsage {
  const s = c.status?.resourceSummary;
  const n = c.status?.nodeSummary;
  const nodes = n && typeof n.totalNum === 'number' ? { nodes: { ready: n.readyNum ?? 0, total: n.totalNum } } : {};
  if (!s || !s.allocatable) return { name: c.metadata.name, ...nodes };
  const of = (name: string, milli: boolean): Amounts => ({
    allocatable: amount(s.allocatable, name, milli),
    allocated: amount(s.allocated ?? undefined, name, milli) ?? 0,
    allocating: amount(s.allocating ?? undefined, name, milli) ?? 0,
  });
  return { name: c.metadata.name, summary: { cpu: of('cpu', true), memory: of('memory', false), pods: of('pods', false) }, ...nodes };
}

const UNKNOWN = '<unknown>';
const MI = 1024 * 1024;
const cpu = (milli: number | undefined) => (milli === undefined ? UNKNOWN : `${milli}m`);
const memory = (bytes: number | undefined) => (bytes === undefined ? UNKNOWN : `${Math.trunc(bytes / MI)}Mi`);
/** kubectl's percent: the share truncated to a whole number; none without an allocatable amount. */
const percent = (a: Amounts | undefined) => (!a || !a.allocatable ? UNKNOWN : `${Math.trunc((a.allocated / a.allocatable) * 100)}%`);

const COLUMNS: Column<ClusterUsage>[] = [
  { header: 'NAME', value: (u) => u.name },
  { header: 'CPU(cores)', value: (u) => (u.summary ? cpu(u.summary.cpu.allocated) : UNKNOWN) },
  { header: 'CPU%', value: (u) => percent(u.summary?.cpu) },
  { header: 'MEMORY(bytes)', value: (u) => (u.summary ? memory(u.summary.memory.allocated) : UNKNOWN) },
  { header: 'MEMORY%', value: (u) => percent(u.summary?.memory) },
  { header: 'CPU-ALLOCATABLE', value: (u) => cpu(u.summary?.cpu.allocatable) },
  { header: 'MEMORY-ALLOCATABLE', value: (u) => memory(u.summary?.memory.allocatable) },
  { header: 'PODS', value: (u) => (u.summary ? `${u.summary.pods.allocated}/${u.summary.pods.allocatable ?? '?'}` : UNKNOWN) },
  { header: 'CPU-ALLOCATING', value: (u) => (u.summary ? cpu(u.summary.cpu.allocating) : UNKNOWN), wide: true },
  { header: 'MEMORY-ALLOCATING', value: (u) => (u.summary ? memory(u.summary.memory.allocating) : UNKNOWN), wide: true },
  { header: 'NODES', value: (u) => (u.nodes ? `${u.nodes.ready}/${u.nodes.total}` : UNKNOWN), wide: true },
];

export interface TopOptions {
  sortBy?: SortBy;
  noHeaders?: boolean;
  wide?: boolean;
}

/**
 * The table: by name, or with --sort-by the most requested first (as kubectl top sorts by usage), the
 * clusters without a summary last.
 */
export function topClustersTable(clusters: readonly ClusterForTop[], opts: TopOptions = {}): string {
  const rows = clusters.map(clusterUsage).sort((a, b) => a.name.localeCompare(b.name));
  if (opts.sortBy) {
    const key = opts.sortBy;
    const of = (u: ClusterUsage) => (u.summary ? u.summary[key].allocated : -1);
    rows.sort((a, b) => of(b) - of(a));
  }
  const text = printTable(rows, COLUMNS, Boolean(opts.wide));
  return opts.noHeaders ? text.slice(text.indexOf('\n') + 1) : text;
}
