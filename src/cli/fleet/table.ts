/**
 * karmadactl's multi-cluster table: the servers' own Tables (meta.k8s.io/v1, their printers' columns) with a
 * CLUSTER column after NAME and an ADOPTION column at the end, one table per resource. Pure: rows in, text out.
 */
import { ManagedLabel } from '../../api/constants.js';
import { formatTable } from '../output.js';

/** The `Accept` of human-readable output: a server-side Table, else plain JSON (kubectl's header). */
export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

/** The CLUSTER cell of the host's own objects. */
export const CONTROL_PLANE = 'Karmada';

export interface TableColumn {
  name: string;
  type?: string;
  priority?: number;
}

export interface TableRow {
  cells: unknown[];
  object?: { metadata?: { name?: string; namespace?: string; labels?: Record<string, string> } };
}

/** A server's Table answer (list, get or a watch event's object). */
export interface ServerTable {
  kind?: string;
  columnDefinitions?: TableColumn[];
  rows?: TableRow[];
  metadata?: { resourceVersion?: string; continue?: string };
}

/** One row as printed: where it came from. */
export interface SourcedRow {
  cluster: string;
  row: TableRow;
}

export interface TableShape {
  /** The server's columns of the resource (from the first source that answered). */
  columns: TableColumn[];
  /** A NAMESPACE column first (-A on a namespaced resource). */
  namespace: boolean;
  wide: boolean;
  /** ADOPTION only with -o wide (karmadactl does so for pods). */
  adoptionWide: boolean;
  /** `deployment.apps/` before each name when several resource types are printed. */
  kindPrefix?: string;
  showLabels?: boolean;
  /** `--output-watch-events`: an EVENT column first. */
  events?: boolean;
  /** Rows of a watch: karmadactl gives the host's objects Y/N there too. */
  watch?: boolean;
}

/** ADOPTION: `-` for the host's objects, `Y` for a member object Karmada manages, else `N`. */
export function adoption(cluster: string, row: TableRow, controlPlaneYN = false): string {
  if (cluster === CONTROL_PLANE && !controlPlaneYN) return '-';
  return row.object?.metadata?.labels?.[ManagedLabel] === 'true' ? 'Y' : 'N';
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '<none>';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

const shown = (shape: TableShape) => shape.columns.map((c, i) => ({ c, i })).filter(({ c }) => shape.wide || !c.priority);

export function tableHeader(shape: TableShape): string[] {
  const cols = shown(shape).map(({ c }) => c.name.toUpperCase());
  const [first = 'NAME', ...rest] = cols;
  return [
    ...(shape.events ? ['EVENT'] : []),
    ...(shape.namespace ? ['NAMESPACE'] : []),
    first,
    'CLUSTER',
    ...rest,
    ...(shape.adoptionWide && !shape.wide ? [] : ['ADOPTION']),
    ...(shape.showLabels ? ['LABELS'] : []),
  ];
}

export function tableRow(shape: TableShape, r: SourcedRow, event?: string): string[] {
  const cells = shown(shape).map(({ i }) => cell(r.row.cells[i]));
  const [first = '', ...rest] = cells;
  const labels = Object.entries(r.row.object?.metadata?.labels ?? {}).map(([k, v]) => `${k}=${v}`).join(',');
  return [
    ...(event !== undefined ? [event] : []),
    ...(shape.namespace ? [r.row.object?.metadata?.namespace ?? ''] : []),
    `${shape.kindPrefix ?? ''}${first}`,
    r.cluster,
    ...rest,
    ...(shape.adoptionWide && !shape.wide ? [] : [adoption(r.cluster, r.row, shape.watch)]),
    ...(shape.showLabels ? [labels || '<none>'] : []),
  ];
}

/** The whole table of one resource, aligned; `noHeaders` leaves the header line out. */
export function renderTable(shape: TableShape, rows: readonly SourcedRow[], noHeaders = false): string {
  return formatTable([...(noHeaders ? [] : [tableHeader(shape)]), ...rows.map((r) => tableRow(shape, r))]);
}

/** Column widths of rows printed so far: a watch's later rows line up under the first table, as far as they fit. */
export function columnWidths(rows: readonly string[][]): number[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return widths;
}

/** One row padded to `widths` (three spaces between columns, as formatTable). */
export function alignedRow(widths: readonly number[], row: readonly string[]): string {
  return row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('   ').trimEnd() + '\n';
}
