/**
 * The plan as a table a reviewer reads top to bottom: one row per Work, and rows saying why a template
 * or a cluster is absent (no policy matches it; the scheduler filtered the cluster out, or the spread
 * constraints or the division left it without replicas), with the image and the overrides that applied.
 */
import {
  AppliedClusterOverridesAnnotation,
  AppliedOverridesAnnotation,
  BindingScheduled,
  ClusterPropagationPolicyAnnotation,
  PropagationPolicyNameAnnotation,
  PropagationPolicyNamespaceAnnotation,
  ResourceBindingNamespaceAnnotation,
  WorkApplied,
  WorkDispatching,
} from '../api/constants.js';
import { isIgnoredNamespace, isTemplateType } from '../core/kinds.js';
import { findCondition, refKey, refOf, type Condition, type KObject, type ObjectRef } from '../core/object.js';
import { createSnapshot, groupPeers, runAlgorithm } from '../scheduler/index.js';
import type { GroupedBinding } from '../scheduler/workload-affinity.js';
import type { Cluster, ResourceBindingSpec, ResourceBindingStatus } from '../scheduler/types.js';
import type { RolloutStatus } from '../api/generated/types.js';
import type { PlanResult, WorkSummary } from './plan.js';

export interface AbsentCluster {
  /** The binding, as `namespace/name` (ResourceBinding) or `name` (ClusterResourceBinding). */
  binding: string;
  cluster: string;
  /** `filtered` by a scheduler plugin, or `not-selected` although it passed the filters. */
  kind: 'filtered' | 'not-selected';
  /** The scheduler's own text: the plugin and its reason, or why a feasible cluster got nothing. */
  reason: string;
}

export interface UnmatchedTemplate extends ObjectRef {
  reason: string;
}

export const bindingKey = (b: KObject): string => (b.kind === 'ClusterResourceBinding' ? b.metadata.name! : `${b.metadata.namespace}/${b.metadata.name}`);

/** Templates in the control plane that neither a binding nor a Work of their own (a Namespace's, from the namespace controller) carries. */
export function unmatchedTemplates(objects: readonly KObject[], bindings: readonly KObject[], works: readonly WorkSummary[], skipped: readonly RegExp[]): UnmatchedTemplate[] {
  const bound = new Set(bindings.map((b) => refKey(b.spec?.resource as ObjectRef)));
  for (const w of works) if (w.manifest) bound.add(refKey(refOf(w.manifest)));
  const out: UnmatchedTemplate[] = [];
  for (const o of objects) {
    if (!isTemplateType(o) || bound.has(refKey(refOf(o)))) continue;
    const { apiVersion, kind, namespace, name } = refOf(o);
    const reason = isIgnoredNamespace(namespace, skipped) ? `namespace ${namespace} is not propagated (karmada's or a skipped namespace)` : 'no policy matches this template';
    out.push({ apiVersion, kind, ...(namespace ? { namespace } : {}), name, reason });
  }
  return out;
}

/**
 * Why each cluster a binding is not placed on is absent. The scheduler's filters run again over the
 * settled binding and fleet, as they ran when it was scheduled; a cluster that passed them but is not
 * in `spec.clusters` lost to the spread constraints or got no replicas from the division.
 */
export function absentClusters(bindings: readonly KObject[], clusters: readonly KObject[], now: Date): AbsentCluster[] {
  if (!clusters.length) return [];
  const snapshot = createSnapshot(clusters as unknown as Cluster[]);
  const out: AbsentCluster[] = [];
  for (const b of bindings) {
    const spec = b.spec as unknown as ResourceBindingSpec | undefined;
    if (!spec?.placement || b.metadata.deletionTimestamp) continue;
    const placed = new Set((spec.clusters ?? []).map((c) => c.name));
    // Workload groups are only on bindings the detector made under the WorkloadAffinity gate.
    const peers = b.kind === 'ResourceBinding' ? groupPeers(b as GroupedBinding, bindings as readonly GroupedBinding[]) : undefined;
    const res = runAlgorithm(spec, b.status as ResourceBindingStatus | undefined, snapshot, now.getTime(), peers ? { workloadGroups: peers } : {});
    const binding = bindingKey(b);
    const rejected = new Set<string>();
    for (const r of res.trace.rejected) {
      rejected.add(r.name);
      if (!placed.has(r.name)) out.push({ binding, cluster: r.name, kind: 'filtered', reason: `${r.failure.plugin}: ${r.failure.reason}` });
    }
    // Only a scheduled binding has lost clusters to selection; an unscheduled one says why in its condition.
    if (!placed.size) continue;
    const spread = (spec.placement.spreadConstraints ?? []).length > 0;
    for (const c of snapshot.clusters) {
      if (c.deleting || rejected.has(c.name) || placed.has(c.name)) continue;
      out.push({
        binding,
        cluster: c.name,
        kind: 'not-selected',
        reason: spread ? 'feasible, but the spread constraints selected other clusters' : 'feasible, but the replica division gave it none',
      });
    }
  }
  return out;
}

/** An absent cluster as the table and the report say it: `filtered out: <plugin>: <reason>` or `not selected: <why>`. */
export function absentNote(x: AbsentCluster): string {
  return `${x.kind === 'filtered' ? 'filtered out' : 'not selected'}: ${x.reason}`;
}

/** The override policies a Work's annotations say applied: namespaced as namespace/name, cluster-wide by name. */
export function appliedOverrides(work: KObject): string[] {
  const a = work.metadata.annotations ?? {};
  const names = (v: string | undefined, ns?: string): string[] => {
    if (!v) return [];
    try {
      const list = JSON.parse(v) as Array<{ policyName?: string }>;
      return list.filter((x) => typeof x.policyName === 'string').map((x) => (ns ? `${ns}/${x.policyName}` : x.policyName!));
    } catch {
      return [];
    }
  };
  const tplNs = a[ResourceBindingNamespaceAnnotation];
  return [...names(a[AppliedClusterOverridesAnnotation]), ...names(a[AppliedOverridesAnnotation], tplNs)];
}

/** Container images of a manifest, wherever its pod templates keep them (Deployment, Pod, CronJob, CRDs). */
export function imagesOf(manifest: KObject | undefined): string[] {
  const found: string[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 8 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if ((k === 'containers' || k === 'initContainers') && Array.isArray(x)) {
        for (const c of x) {
          const image = (c as { image?: unknown } | null)?.image;
          if (typeof image === 'string' && !found.includes(image)) found.push(image);
        }
      } else if (k !== 'status' && k !== 'metadata') walk(x, depth + 1);
    }
  };
  walk(manifest?.spec, 0);
  return found;
}

function workRow(tpl: string, policy: string, w: WorkSummary, target: number | undefined, health: string | undefined): string[] {
  const applied = findCondition(w.conditions, WorkApplied);
  const replicas = target ?? (w.manifest?.spec as { replicas?: number } | undefined)?.replicas;
  const dispatching = findCondition(w.conditions, WorkDispatching);
  return [
    tpl,
    policy,
    w.cluster,
    replicas === undefined ? '-' : String(replicas),
    w.dispatch === 'suspended' ? 'suspended' : dispatching ? 'dispatched' : 'pending',
    applied ? (applied.status === 'True' ? 'yes' : 'no') : '-',
    // A binding aggregates its Works' health; a Work of no binding has none to show.
    health ?? (w.binding ? 'Unknown' : '-'),
    imagesOf(w.manifest).join(',') || '-',
    w.overrides.join(',') || '-',
  ];
}

/** A Work row of a cluster a staged rollout holds at the stable revision: DISPATCHING says so. */
function heldByRollout(row: string[], rollout: RolloutStatus | undefined, cluster: string): string[] {
  const c = rollout?.clusters.find((x) => x.name === cluster);
  if (!c || c.state !== 'Waiting') return row;
  const out = [...row];
  out[4] = `held (stage ${c.stage})`;
  return out;
}

/**
 * A staged rollout (status.rollout) as rows after its binding's Works: a summary, then per stage its
 * clusters, gate state and the times it opened, passed or failed, and what its clusters wait for.
 */
function rolloutRows(tpl: string, policy: string, st: RolloutStatus): string[][] {
  const phase = st.phase ?? 'Progressing';
  const rows: string[][] = [[tpl, policy, 'rollout', `revision ${st.revision}${st.stableRevision && st.stableRevision !== st.revision ? ` (stable ${st.stableRevision})` : ''}: ${phase}${phase === 'Completed' ? '' : ` at stage ${st.currentStage} of ${st.stages.length}`}${st.startedAt ? `, started ${st.startedAt}` : ''}`]];
  for (const s of st.stages) {
    const gate = s.passedAt ? `passed${s.reason && s.reason !== 'GatePassed' ? ` (${s.reason})` : ''}` : s.failedAt ? 'failed' : s.openedAt ? 'gating' : 'waiting';
    const times = [s.openedAt && `opened ${s.openedAt}`, s.passedAt && `passed ${s.passedAt}`, s.failedAt && `failed ${s.failedAt}`].filter(Boolean).join(', ');
    const waits = st.clusters
      .filter((c) => c.stage === s.index && c.state !== 'Waiting' && (c.state !== 'Healthy' || !s.passedAt))
      .map((c) => `${c.name} ${c.state}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ''})` : ''}${c.state === 'Healthy' && c.healthySince ? ` since ${c.healthySince}` : ''}`);
    const note = [`${s.clusters.join(',') || '(no cluster)'}: ${gate}`, times, waits.join('; ')].filter(Boolean).join('; ');
    rows.push([tpl, policy, `stage ${s.index}${s.name && s.name !== `stage-${s.index}` ? ` ${s.name}` : ''}`, note]);
  }
  return rows;
}

const HEADER = ['TEMPLATE', 'POLICY', 'CLUSTER', 'REPLICAS', 'DISPATCHING', 'APPLIED', 'HEALTH', 'IMAGE', 'OVERRIDES'];
/** `-o wide` adds where each row lives in the control plane: the binding and the Work. */
const WIDE = ['BINDING', 'WORK'];

/** `Kind/namespace/name`, or `Kind/name` for a cluster-scoped template. */
export function templateName(r: { kind: string; namespace?: string; name: string }): string {
  return `${r.kind}/${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
}

/**
 * One row per Work; then, per binding, a row per cluster it is absent from; then a row per template no
 * policy matches. A row shorter than the header ends with a note that runs past the columns.
 */
export function formatPlanTable(r: PlanResult, opts: { wide?: boolean } = {}): string {
  const header = opts.wide ? [...HEADER, ...WIDE] : HEADER;
  const placed = (row: string[], binding: string, w: WorkSummary) => (opts.wide ? [...row, binding || '-', `${w.namespace}/${w.name}`] : row);
  const rows: string[][] = [header];
  for (const b of r.bindings) {
    const res = b.spec?.resource as ObjectRef;
    const a = b.metadata.annotations ?? {};
    const policy = a[PropagationPolicyNameAnnotation] ? `${a[PropagationPolicyNamespaceAnnotation]}/${a[PropagationPolicyNameAnnotation]}` : (a[ClusterPropagationPolicyAnnotation] ?? (b.spec?.requiredBy ? '(dependency)' : '-'));
    const tpl = templateName(res);
    const bname = bindingKey(b);
    const works = r.works.filter((w) => w.binding === bname);
    const items = (b.status?.aggregatedStatus ?? []) as Array<{ clusterName: string; health?: string; applied?: boolean }>;
    const targets = new Map(((b.spec?.clusters ?? []) as Array<{ name: string; replicas?: number }>).map((c) => [c.name, c.replicas]));
    if (!works.length) {
      const sched = findCondition(b.status?.conditions as Condition[] | undefined, BindingScheduled);
      rows.push([tpl, policy, '-', sched?.status === 'False' ? `unscheduled: ${sched.reason}: ${sched.message}` : 'no Works']);
    }
    const rollout: RolloutStatus | undefined = b.status?.rollout;
    for (const w of works) rows.push(placed(heldByRollout(workRow(tpl, policy, w, targets.get(w.cluster), items.find((i) => i.clusterName === w.cluster)?.health), rollout, w.cluster), bname, w));
    for (const x of r.absent.filter((x) => x.binding === bname)) rows.push([tpl, policy, x.cluster, absentNote(x)]);
    if (rollout) rows.push(...rolloutRows(tpl, policy, rollout));
  }
  // Works of no binding: the namespace controller's, one per cluster for every Namespace it propagates.
  for (const w of r.works.filter((x) => !x.binding && x.manifest)) rows.push(placed(workRow(templateName(refOf(w.manifest!)), '(namespace controller)', w, undefined, undefined), '', w));
  for (const u of r.unmatched) rows.push([templateName(u), '-', '-', u.reason]);
  // A short row's last cell is a note: it takes no part in the column widths.
  const widths = header.map((_, i) => Math.max(...rows.filter((row) => i < row.length - 1 || row.length === header.length).map((row) => row[i]!.length)));
  const lines = rows.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
  for (const f of r.failures) lines.push(`! ${f.controller} ${f.key}: ${f.error}`);
  return lines.join('\n') + '\n';
}
