/**
 * The fleet report's model: templates (rows, grouped by namespace and policy) by clusters (columns), and
 * per template what a click opens (binding, Works, member manifests and the fields overrides changed).
 * Pure and JSON-serialisable: `plan -o html` and the controller's dashboard render the same model.
 *
 * Two parts, so that a page of 1,000 templates x 20 clusters opens fast: the matrix (`FleetModel`: rows of
 * small cells, what the table and its filters need) and the detail of each row (`FleetRowDetail`: Works,
 * manifests, binding, the diff), which the page reads only when a row is opened.
 */
import {
  ClusterConditionReady,
  ClusterPropagationPolicyAnnotation,
  PropagationPolicyNameAnnotation,
  PropagationPolicyNamespaceAnnotation,
} from '../api/constants.js';
import type { RolloutStatus } from '../api/generated/types.js';
import { refOf, type Condition, type KObject, type ObjectRef } from '../core/object.js';
import { removeIrrelevantFields } from '../core/prune.js';
import type { RecordedEvent } from '../runtime/store-port.js';
import { comparable, fieldChanges, type FieldChange, type PlanChange } from '../store/plan-diff.js';
import { absentNote, bindingKey, templateName, type AbsentCluster } from '../store/plan-table.js';
import { withoutServerStamps, type PlanResult, type WorkSummary } from '../store/plan.js';

export interface FleetInput {
  at: string;
  clusters: KObject[];
  bindings: KObject[];
  works: WorkSummary[];
  templates: KObject[];
  policies?: KObject[];
  events: RecordedEvent[];
  /** Why each binding is not on the clusters it is absent from (src/store/plan-table.ts absentClusters). */
  absent?: AbsentCluster[];
  diff?: PlanChange[];
  source: 'plan' | 'controller';
}

/** dispatched / suspended (Work.spec.suspendDispatching) / held (a rollout stage not open yet) / absent (no Work). */
export type CellState = 'dispatched' | 'suspended' | 'held' | 'absent';

/** Karmada's ResourceHealth of the member object (aggregatedStatus[].health); Unknown until the member reports. */
export type CellHealth = 'Healthy' | 'Unhealthy' | 'Unknown';

export interface FleetCell {
  cluster: string;
  state: CellState;
  replicas?: number;
  /** Work Applied condition: true, false, or unknown (no condition yet). */
  applied?: boolean;
  health?: CellHealth;
  /** The rollout stage (0-based) that holds this cluster, for `held`. */
  stage?: number;
  /** A graceful eviction task for this cluster is on the binding. */
  evicting?: boolean;
  /** The binding's failover history names this cluster. */
  failedOver?: boolean;
  /** Index into the row detail's works. */
  work?: number;
  /** For `absent`: index into the model's reasons, the scheduler's word for why the cluster was left out. */
  reason?: number;
  /** --diff-against found a change here (its before and after are in the row's detail). */
  changed?: boolean;
}

export interface FleetWork {
  cluster: string;
  namespace: string;
  name: string;
  dispatch: WorkSummary['dispatch'];
  conditions: Condition[];
  overrides: string[];
  manifest?: KObject;
  /** Fields of the manifest that differ from the (pruned) template: what overrides and replica division changed. */
  changed: FieldChange[];
}

export interface FleetRow {
  /** Kind/namespace/name, as the plan table names templates. */
  key: string;
  kind: string;
  namespace: string;
  name: string;
  policy: string;
  binding?: string;
  cells: FleetCell[];
}

/** The binding's staged rollout as the panel shows it: status.rollout without the stable template it keeps. */
export type FleetRollout = Omit<RolloutStatus, 'stableTemplate'>;

/** What a click on a row opens; read apart from the matrix (embedded compressed, or fetched from the dashboard). */
export interface FleetRowDetail {
  key: string;
  works: FleetWork[];
  bindingObject?: KObject;
  /** The staged rollout's stage, revision and per-cluster state (src/core/rollout.ts), when the binding has one. */
  rollout?: FleetRollout;
  /** --diff-against's changes to this template, per cluster. */
  changes: PlanChange[];
}

export interface FleetGroup {
  namespace: string;
  policy: string;
  rows: number[];
}

export interface FleetEvent {
  time: string;
  object: string;
  type: string;
  reason: string;
  message: string;
  count: number;
}

/** What a cluster's column head says besides its name: how the control plane reaches it, and whether it is Ready. */
export interface FleetClusterHead {
  name: string;
  /** spec.syncMode (Push when unset, as Karmada defaults it); absent when no Cluster object names it (only a cell does). */
  syncMode?: 'Push' | 'Pull';
  /** The Ready condition's status; Unknown without a Cluster object or before the cluster status controller wrote one. */
  ready: 'True' | 'False' | 'Unknown';
}

export interface FleetModel {
  at: string;
  source: FleetInput['source'];
  /** The page's heading when it is not the default (the dashboard: which replica, whether it leads). */
  title?: string;
  clusters: string[];
  /** Index-aligned with clusters. */
  clusterHeads: FleetClusterHead[];
  rows: FleetRow[];
  groups: FleetGroup[];
  namespaces: string[];
  policies: string[];
  /** The texts cells' `reason` indexes (a reason repeats over many cells: each text is kept once). */
  reasons: string[];
  /** How many events the timeline holds (read apart, like the rows' detail). */
  events: number;
  /** How many changes --diff-against found. */
  changes: number;
}

/** Everything a self-contained page carries: the matrix, each row's detail (index-aligned with rows) and the events. */
export interface FleetReport {
  model: FleetModel;
  details: FleetRowDetail[];
  events: FleetEvent[];
}

/** A cluster of the binding's staged rollout (status.rollout.clusters, src/core/rollout.ts). */
type RolloutCluster = RolloutStatus['clusters'][number];

function policyOf(b: KObject): string {
  const a = b.metadata.annotations ?? {};
  if (a[PropagationPolicyNameAnnotation]) return `${a[PropagationPolicyNamespaceAnnotation]}/${a[PropagationPolicyNameAnnotation]}`;
  return a[ClusterPropagationPolicyAnnotation] ?? (b.spec?.requiredBy ? '(dependency)' : '-');
}

const refKey = (r: ObjectRef): string => `${r.apiVersion}\0${r.kind}\0${r.namespace ?? ''}\0${r.name}`;

/**
 * A Secret as `kubectl describe secret` shows it: each key with its size, never its value. The report is
 * attached to pull requests and the dashboard is served over HTTP, so neither may carry what a Secret holds.
 */
export function redactSecret<T extends KObject | undefined>(o: T): T {
  if (!o || o.kind !== 'Secret' || (o.apiVersion !== 'v1' && o.apiVersion !== undefined)) return o;
  const sized = (v: unknown, base64: boolean) => {
    if (!v || typeof v !== 'object') return v;
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const n = typeof x === 'string' ? (base64 ? Buffer.byteLength(x, 'base64') : Buffer.byteLength(x)) : 0;
      out[k] = `<redacted: ${n} bytes>`;
    }
    return out;
  };
  const r = o as Record<string, unknown>;
  return { ...o, ...(r.data !== undefined ? { data: sized(r.data, true) } : {}), ...(r.stringData !== undefined ? { stringData: sized(r.stringData, false) } : {}) } as T;
}

/** What the manifest holds that the template, pruned as the binding controller prunes it, does not. */
function overrideFields(template: KObject | undefined, manifest: KObject | undefined): FieldChange[] {
  if (!template || !manifest) return [];
  const pruned = removeIrrelevantFields(template as unknown as Record<string, unknown>) as unknown as KObject;
  const { status: _s, ...m } = manifest;
  return fieldChanges(comparable(pruned), comparable(m as KObject)).filter((c) => !c.path.startsWith('metadata.'));
}

/** Karmada's three values; anything else a member reports is not a health the page can vouch for. */
const healthOf = (h: string | undefined): CellHealth | undefined => (h === undefined ? undefined : h === 'Healthy' || h === 'Unhealthy' ? h : 'Unknown');

/**
 * The head of each cluster's column. A plan's control plane joins every given Cluster as Ready unless its
 * status says otherwise (src/store/control-plane.ts), so there a missing Ready condition reads True; the
 * controller's caches say only what the cluster status controller wrote.
 */
function clusterHeads(names: readonly string[], clusters: readonly KObject[], source: FleetInput['source']): FleetClusterHead[] {
  const byName = new Map(clusters.map((c) => [c.metadata.name, c]));
  return names.map((name): FleetClusterHead => {
    const c = byName.get(name);
    if (!c) return { name, ready: 'Unknown' };
    const cond = ((c.status?.conditions ?? []) as Condition[]).find((x) => x.type === ClusterConditionReady);
    const ready = cond ? (cond.status === 'True' || cond.status === 'False' ? cond.status : 'Unknown') : source === 'plan' ? 'True' : 'Unknown';
    return { name, syncMode: c.spec?.syncMode === 'Pull' ? 'Pull' : 'Push', ready };
  });
}

function workCell(w: WorkSummary, b: KObject | undefined, index: number): FleetCell {
  const status = (b?.status ?? {}) as Record<string, any>;
  const items = (status.aggregatedStatus ?? []) as Array<{ clusterName: string; health?: string }>;
  const target = ((b?.spec?.clusters ?? []) as Array<{ name: string; replicas?: number }>).find((c) => c.name === w.cluster);
  const rollout = ((status.rollout?.clusters ?? []) as RolloutCluster[]).find((c) => c.name === w.cluster);
  const applied = w.conditions.find((c) => c.type === 'Applied');
  const tasks = (b?.spec?.gracefulEvictionTasks ?? []) as Array<{ fromCluster?: string }>;
  const history = (b?.status?.failoverHistory ?? []) as Array<Record<string, unknown>>;
  const cell: FleetCell = {
    cluster: w.cluster,
    state: rollout?.state === 'Waiting' ? 'held' : w.dispatch,
    replicas: target?.replicas ?? (w.manifest?.spec as { replicas?: number } | undefined)?.replicas,
    health: healthOf(items.find((i) => i.clusterName === w.cluster)?.health) ?? (w.binding ? 'Unknown' : undefined),
    work: index,
  };
  if (applied) cell.applied = applied.status === 'True';
  if (rollout?.state === 'Waiting' && typeof rollout.stage === 'number') cell.stage = rollout.stage;
  if (tasks.some((t) => t.fromCluster === w.cluster)) cell.evicting = true;
  if (history.some((h) => JSON.stringify(h).includes(JSON.stringify(w.cluster)))) cell.failedOver = true;
  return cell;
}

/** One template's row before rendering: what both the matrix and the detail are made from. */
interface RowSource {
  key: string;
  res: ObjectRef;
  policy: string;
  works: WorkSummary[];
  binding?: KObject;
  changes: PlanChange[];
}

/** A Secret's changed values say only that they changed (template names are Kind/namespace/name). */
function redactedDiff(diff: readonly PlanChange[]): PlanChange[] {
  const secretValue = (c: PlanChange, f: FieldChange) => c.template.startsWith('Secret/') && /^(data|stringData)\b/.test(f.path);
  return diff.map((c) =>
    c.fields.some((f) => secretValue(c, f)) ? { ...c, fields: c.fields.map((f) => (secretValue(c, f) ? { path: f.path, ...(f.before !== undefined ? { before: '<redacted>' } : {}), ...(f.after !== undefined ? { after: '<redacted>' } : {}) } : f)) } : c,
  );
}

/** The rows in the input's binding order, then the namespace controller's Works, then templates only the diff names. */
function rowSources(input: FleetInput): RowSource[] {
  const worksOf = new Map<string, WorkSummary[]>();
  for (const w of input.works) {
    const list = worksOf.get(w.binding) ?? [];
    list.push(w);
    worksOf.set(w.binding, list);
  }
  const rows: RowSource[] = [];
  for (const b of input.bindings) {
    const res = b.spec?.resource as ObjectRef | undefined;
    if (!res) continue;
    rows.push({ key: templateName(res), res, policy: policyOf(b), works: worksOf.get(bindingKey(b)) ?? [], binding: b, changes: [] });
  }
  // Works of no binding: the namespace controller's, one per cluster for every Namespace it propagates.
  const orphans = new Map<string, WorkSummary[]>();
  for (const w of input.works.filter((x) => !x.binding && x.manifest)) {
    const key = templateName(refOf(w.manifest!));
    orphans.set(key, [...(orphans.get(key) ?? []), w]);
  }
  for (const [key, ws] of orphans) rows.push({ key, res: refOf(ws[0]!.manifest!), policy: '(namespace controller)', works: ws, changes: [] });
  const byKey = new Map(rows.map((r) => [r.key, r]));
  for (const c of redactedDiff(input.diff ?? [])) {
    let row = byKey.get(c.template);
    if (!row) {
      // Removed by the change: the template has no row of its own any more.
      const [kind, ...rest] = c.template.split('/');
      const name = rest.pop() ?? '';
      const namespace = rest.join('/');
      row = { key: c.template, res: { apiVersion: '', kind: kind ?? '', ...(namespace ? { namespace } : {}), name }, policy: '-', works: [], changes: [] };
      rows.push(row);
      byKey.set(row.key, row);
    }
    row.changes.push(c);
  }
  return rows;
}

/** The matrix: a cell per Work, per cluster the scheduler left out (with its reason) and per cluster the diff names. */
function matrix(input: FleetInput, sources: readonly RowSource[]): FleetModel {
  const reasons: string[] = [];
  const reasonIndex = new Map<string, number>();
  const absentOf = new Map<string, AbsentCluster[]>();
  for (const a of input.absent ?? []) absentOf.set(a.binding, [...(absentOf.get(a.binding) ?? []), a]);
  const rows = sources.map((s): FleetRow => {
    const cells = s.works.map((w, i) => workCell(w, s.binding, i));
    const binding = s.binding ? bindingKey(s.binding) : undefined;
    for (const a of (binding && absentOf.get(binding)) || []) {
      if (cells.some((c) => c.cluster === a.cluster)) continue;
      const text = absentNote(a);
      let reason = reasonIndex.get(text);
      if (reason === undefined) {
        reason = reasons.push(text) - 1;
        reasonIndex.set(text, reason);
      }
      cells.push({ cluster: a.cluster, state: 'absent', reason });
    }
    for (const c of s.changes) {
      let cell = cells.find((x) => x.cluster === c.cluster);
      if (!cell) {
        cell = { cluster: c.cluster, state: 'absent' };
        cells.push(cell);
      }
      cell.changed = true;
    }
    return { key: s.key, kind: s.res.kind, namespace: s.res.namespace ?? '', name: s.res.name, policy: s.policy, cells, ...(binding ? { binding } : {}) };
  });

  const groupKey = (r: FleetRow) => `${r.namespace}\0${r.policy}`;
  const groups = new Map<string, FleetGroup>();
  rows.forEach((r, i) => {
    const g = groups.get(groupKey(r)) ?? { namespace: r.namespace, policy: r.policy, rows: [] };
    g.rows.push(i);
    groups.set(groupKey(r), g);
  });
  const sorted = [...groups.values()].sort((a, b) => (a.namespace === b.namespace ? (a.policy < b.policy ? -1 : a.policy > b.policy ? 1 : 0) : a.namespace < b.namespace ? -1 : 1));
  const uniq = (xs: string[]) => [...new Set(xs)].sort();
  const clusters = uniq([...input.clusters.map((c) => c.metadata.name!), ...rows.flatMap((r) => r.cells.map((c) => c.cluster))]);
  return {
    at: input.at,
    source: input.source,
    clusters,
    clusterHeads: clusterHeads(clusters, input.clusters, input.source),
    rows,
    groups: sorted,
    namespaces: uniq(rows.map((r) => r.namespace)),
    policies: uniq(rows.map((r) => r.policy)),
    reasons,
    events: input.events.length,
    changes: input.diff?.length ?? 0,
  };
}

function rowDetail(source: RowSource, templates: ReadonlyMap<string, KObject>): FleetRowDetail {
  const template = redactSecret(templates.get(refKey(source.res)));
  const works = source.works.map((w): FleetWork => ({
    cluster: w.cluster,
    namespace: w.namespace,
    name: w.name,
    dispatch: w.dispatch,
    conditions: w.conditions,
    overrides: w.overrides,
    ...(w.manifest ? { manifest: redactSecret(withoutServerStamps(w.manifest)) } : {}),
    changed: overrideFields(template, redactSecret(w.manifest)),
  }));
  const rollout = source.binding?.status?.rollout as RolloutStatus | undefined;
  const { stableTemplate: _t, ...shown } = rollout ?? ({} as RolloutStatus);
  return {
    key: source.key,
    works,
    changes: source.changes,
    ...(source.binding ? { bindingObject: withoutServerStamps(source.binding) } : {}),
    ...(rollout ? { rollout: shown } : {}),
  };
}

const templatesOf = (input: FleetInput) => new Map(input.templates.map((t) => [refKey(refOf(t)), t]));

/** The matrix the page renders and filters. Rows keep the input's binding order; groups are sorted by namespace, then policy. */
export function fleetModel(input: FleetInput): FleetModel {
  return matrix(input, rowSources(input));
}

/** One row's detail, by its key (Kind/namespace/name): what the dashboard answers when a row is opened. */
export function fleetRowDetail(input: FleetInput, key: string): FleetRowDetail | undefined {
  const source = rowSources(input).find((s) => s.key === key);
  return source && rowDetail(source, templatesOf(input));
}

/**
 * The events timeline, newest first: what just went wrong is what a person opens it for. Events of the
 * same time keep the input's order reversed (the later recorded first), so the order is total and stable.
 */
export function fleetEvents(input: FleetInput): FleetEvent[] {
  const at = (t: string) => Date.parse(t) || 0;
  const order = input.events.map((e, i) => ({ e, i, t: at(e.lastTimestamp) })).sort((a, b) => b.t - a.t || b.i - a.i);
  return order.map(({ e }) => ({
    time: e.lastTimestamp,
    object: `${e.involvedObject.kind} ${e.involvedObject.namespace ? `${e.involvedObject.namespace}/` : ''}${e.involvedObject.name}`,
    type: e.type,
    reason: e.reason,
    message: e.message,
    count: e.count,
  }));
}

/** All of it at once, for a self-contained page: the matrix, every row's detail and the events. */
export function fleetReport(input: FleetInput): FleetReport {
  const sources = rowSources(input);
  const templates = templatesOf(input);
  return { model: matrix(input, sources), details: sources.map((s) => rowDetail(s, templates)), events: fleetEvents(input) };
}

/** A plan's result as the model's input; the clusters are the fleet's Cluster objects. */
export function fleetInputOfPlan(r: PlanResult, clusters: KObject[], diff?: PlanChange[]): FleetInput {
  return { at: r.at, clusters, bindings: r.bindings, works: r.works, templates: r.templates, events: r.events, absent: r.absent, source: 'plan', ...(diff ? { diff } : {}) };
}
