/**
 * The fleet report's model: templates (rows, grouped by namespace and policy) by clusters (columns), and
 * per template what a click opens (binding, Works, member manifests and the fields overrides changed).
 * Pure and JSON-serialisable: `plan -o html` and the controller's dashboard render the same model.
 */
import {
  ClusterPropagationPolicyAnnotation,
  PropagationPolicyNameAnnotation,
  PropagationPolicyNamespaceAnnotation,
} from '../api/constants.js';
import { refOf, type Condition, type KObject, type ObjectRef } from '../core/object.js';
import { removeIrrelevantFields } from '../core/prune.js';
import type { RecordedEvent } from '../runtime/store-port.js';
import { comparable, fieldChanges, type FieldChange, type PlanChange } from '../store/plan-diff.js';
import { bindingKey, templateName } from '../store/plan-table.js';
import { withoutServerStamps, type PlanResult, type WorkSummary } from '../store/plan.js';

export interface FleetInput {
  at: string;
  clusters: KObject[];
  bindings: KObject[];
  works: WorkSummary[];
  templates: KObject[];
  policies?: KObject[];
  events: RecordedEvent[];
  diff?: PlanChange[];
  source: 'plan' | 'controller';
}

/** dispatched / suspended (Work.spec.suspendDispatching) / held (a rollout stage not open yet) / absent (no Work). */
export type CellState = 'dispatched' | 'suspended' | 'held' | 'absent';

export interface FleetCell {
  cluster: string;
  state: CellState;
  replicas?: number;
  /** Work Applied condition: true, false, or unknown (no condition yet). */
  applied?: boolean;
  health?: string;
  /** The rollout stage (0-based) that holds this cluster, for `held`. */
  stage?: number;
  /** A graceful eviction task for this cluster is on the binding. */
  evicting?: boolean;
  /** The binding's failover history names this cluster. */
  failedOver?: boolean;
  /** Index into the row's works. */
  work?: number;
  /** Index into the model's diff, when --diff-against found a change here. */
  change?: number;
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
  works: FleetWork[];
  bindingObject?: KObject;
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

export interface FleetModel {
  at: string;
  source: FleetInput['source'];
  clusters: string[];
  rows: FleetRow[];
  groups: FleetGroup[];
  namespaces: string[];
  policies: string[];
  events: FleetEvent[];
  diff: PlanChange[];
}

interface RolloutCluster {
  name: string;
  stage?: number;
  state?: string;
}

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
    health: items.find((i) => i.clusterName === w.cluster)?.health ?? (w.binding ? 'Unknown' : undefined),
    work: index,
  };
  if (applied) cell.applied = applied.status === 'True';
  if (rollout?.state === 'Waiting' && typeof rollout.stage === 'number') cell.stage = rollout.stage;
  if (tasks.some((t) => t.fromCluster === w.cluster)) cell.evicting = true;
  if (history.some((h) => JSON.stringify(h).includes(JSON.stringify(w.cluster)))) cell.failedOver = true;
  return cell;
}

/** The model the page renders. Rows keep the input's binding order; groups are sorted by namespace, then policy. */
export function fleetModel(input: FleetInput): FleetModel {
  const clusters = input.clusters.map((c) => c.metadata.name!).sort();
  const templates = new Map(input.templates.map((t) => [refKey(refOf(t)), t]));
  const worksOf = new Map<string, WorkSummary[]>();
  for (const w of input.works) {
    const list = worksOf.get(w.binding) ?? [];
    list.push(w);
    worksOf.set(w.binding, list);
  }
  const rows: FleetRow[] = [];
  const seen = new Set<string>();
  const addRow = (key: string, res: ObjectRef, policy: string, works: WorkSummary[], b?: KObject) => {
    const template = redactSecret(templates.get(refKey(res)));
    const fw = works.map((w): FleetWork => ({
      cluster: w.cluster,
      namespace: w.namespace,
      name: w.name,
      dispatch: w.dispatch,
      conditions: w.conditions,
      overrides: w.overrides,
      ...(w.manifest ? { manifest: redactSecret(withoutServerStamps(w.manifest)) } : {}),
      changed: overrideFields(template, redactSecret(w.manifest)),
    }));
    const cells = works.map((w, i) => workCell(w, b, i));
    rows.push({ key, kind: res.kind, namespace: res.namespace ?? '', name: res.name, policy, cells, works: fw, ...(b ? { binding: bindingKey(b), bindingObject: withoutServerStamps(b) } : {}) });
    seen.add(key);
  };
  for (const b of input.bindings) {
    const res = b.spec?.resource as ObjectRef | undefined;
    if (!res) continue;
    addRow(templateName(res), res, policyOf(b), worksOf.get(bindingKey(b)) ?? [], b);
  }
  // Works of no binding: the namespace controller's, one per cluster for every Namespace it propagates.
  const orphans = new Map<string, WorkSummary[]>();
  for (const w of input.works.filter((x) => !x.binding && x.manifest)) {
    const key = templateName(refOf(w.manifest!));
    orphans.set(key, [...(orphans.get(key) ?? []), w]);
  }
  for (const [key, ws] of orphans) addRow(key, refOf(ws[0]!.manifest!), '(namespace controller)', ws);

  // A Secret's changed values say only that they changed (template names are Kind/namespace/name).
  const secretValue = (c: PlanChange, f: FieldChange) => c.template.startsWith('Secret/') && /^(data|stringData)\b/.test(f.path);
  const diff = (input.diff ?? []).map((c) =>
    c.fields.some((f) => secretValue(c, f)) ? { ...c, fields: c.fields.map((f) => (secretValue(c, f) ? { path: f.path, ...(f.before !== undefined ? { before: '<redacted>' } : {}), ...(f.after !== undefined ? { after: '<redacted>' } : {}) } : f)) } : c,
  );
  diff.forEach((c, i) => {
    let row = rows.find((r) => r.key === c.template);
    if (!row) {
      // Removed by the change: the template has no row of its own any more.
      const [kind, ...rest] = c.template.split('/');
      const name = rest.pop() ?? '';
      row = { key: c.template, kind: kind ?? '', namespace: rest.join('/'), name, policy: '-', cells: [], works: [] };
      rows.push(row);
    }
    let cell = row.cells.find((x) => x.cluster === c.cluster);
    if (!cell) {
      cell = { cluster: c.cluster, state: 'absent' };
      row.cells.push(cell);
    }
    cell.change = i;
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
  return {
    at: input.at,
    source: input.source,
    clusters: uniq([...clusters, ...rows.flatMap((r) => r.cells.map((c) => c.cluster))]),
    rows,
    groups: sorted,
    namespaces: uniq(rows.map((r) => r.namespace)),
    policies: uniq(rows.map((r) => r.policy)),
    events: input.events.map((e) => ({
      time: e.lastTimestamp,
      object: `${e.involvedObject.kind} ${e.involvedObject.namespace ? `${e.involvedObject.namespace}/` : ''}${e.involvedObject.name}`,
      type: e.type,
      reason: e.reason,
      message: e.message,
      count: e.count,
    })),
    diff,
  };
}

/** A plan's result as the model's input; the clusters are the fleet's Cluster objects. */
export function fleetInputOfPlan(r: PlanResult, clusters: KObject[], diff?: PlanChange[]): FleetInput {
  return { at: r.at, clusters, bindings: r.bindings, works: r.works, templates: r.templates, events: r.events, source: 'plan', ...(diff ? { diff } : {}) };
}
