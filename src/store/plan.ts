/**
 * `karmada-lite plan`: load templates, policies, overrides, RICs and clusters into the embedded control
 * plane, run the reconcile core until nothing changes, and report what would happen: bindings and their
 * schedule, Works (dispatched or suspended), the manifests member clusters receive, status, events.
 */
import { stringify } from 'yaml';
import { describeObject, type SourceDocument } from '../io/documents.js';
import { lintDocuments } from '../validation/lint.js';
import { formatLintResult } from '../validation/lint.js';
import { getClusterName, WorkApplied, WorkDispatching } from '../api/constants.js';
import { CLUSTER, COP, CPP, CRB, is, OP, PP, RB, RIC, WORK } from '../core/kinds.js';
import type { CoreOptions } from '../core/ports.js';
import { findCondition, type Condition, type KObject, type ObjectRef } from '../core/object.js';
import type { RunStats } from '../runtime/runner.js';
import { ControlPlane } from './control-plane.js';
import type { RecordedEvent } from './types.js';

export interface PlanOptions {
  /** Virtual time the plan runs at (default 2024-01-01T00:00:00Z, for reproducible output). */
  at?: Date;
  /** Virtual time to let pass after loading, so tolerations and grace periods play out. */
  runForSeconds?: number;
  /** Simulated member state: documents {cluster, apiVersion, kind, namespace, name, health | status}. */
  status?: SourceDocument[];
  /** Core feature gates (PropagationPolicyPreemption, StatefulFailoverInjection). */
  core?: Partial<CoreOptions>;
}

export interface MemberStateEntry {
  cluster: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  health?: 'Healthy' | 'Unhealthy';
  status?: Record<string, unknown>;
}

export interface PlanProblem {
  file: string;
  index: number;
  message: string;
}

export interface WorkSummary {
  cluster: string;
  namespace: string;
  name: string;
  binding: string;
  dispatch: 'dispatched' | 'suspended';
  preserveResourcesOnDeletion: boolean;
  conditions: Condition[];
  manifest: KObject | undefined;
}

export interface PlanResult {
  at: string;
  bindings: KObject[];
  works: WorkSummary[];
  /** The objects each member cluster holds after the run. */
  members: Record<string, KObject[]>;
  /** Templates as they end up (claim metadata, aggregated status). */
  templates: KObject[];
  events: RecordedEvent[];
  /** Reconciles still failing when the plan settled (conflicts, unready clusters...). */
  failures: Array<{ controller: string; key: string; error: string }>;
  /** Non-fatal remarks about the input. */
  warnings: string[];
}

export type PlanOutcome = { ok: true; result: PlanResult } | { ok: false; exitCode: 1 | 2; problems: string[] };

const clusterRefs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Cluster names a policy or override names, with the field path that names them. */
function namedClusters(doc: KObject): Array<{ path: string; name: string }> {
  const out: Array<{ path: string; name: string }> = [];
  const add = (path: string, names: unknown) => clusterRefs(names).forEach((n, i) => out.push({ path: `${path}[${i}]`, name: n }));
  const spec = (doc.spec ?? {}) as Record<string, any>;
  if (is(doc, PP) || is(doc, CPP)) {
    const p = spec.placement ?? {};
    add('spec.placement.clusterAffinity.clusterNames', p.clusterAffinity?.clusterNames);
    add('spec.placement.clusterAffinity.exclude', p.clusterAffinity?.exclude);
    (p.clusterAffinities ?? []).forEach((t: Record<string, unknown>, i: number) => add(`spec.placement.clusterAffinities[${i}].clusterNames`, t.clusterNames));
    (p.replicaScheduling?.weightPreference?.staticWeightList ?? []).forEach((w: Record<string, any>, i: number) =>
      add(`spec.placement.replicaScheduling.weightPreference.staticWeightList[${i}].targetCluster.clusterNames`, w.targetCluster?.clusterNames),
    );
    add('spec.suspension.dispatchingOnClusters.clusterNames', spec.suspension?.dispatchingOnClusters?.clusterNames);
  }
  if (is(doc, OP) || is(doc, COP)) {
    add('spec.targetCluster.clusterNames', spec.targetCluster?.clusterNames);
    (spec.overrideRules ?? []).forEach((r: Record<string, any>, i: number) => add(`spec.overrideRules[${i}].targetCluster.clusterNames`, r.targetCluster?.clusterNames));
  }
  return out;
}

/** Checks the input as a whole: lint (schema + webhook rules), then references between documents. */
export function checkInput(docs: SourceDocument[]): { exitCode: 0 | 1 | 2; problems: string[]; warnings: string[] } {
  const results = lintDocuments(docs);
  const problems: string[] = [];
  const warnings: string[] = [];
  let exitCode: 0 | 1 | 2 = 0;
  results.forEach((r, i) => {
    if (r.status === 'valid') {
      for (const w of r.warnings ?? []) warnings.push(`${r.file}[${r.index}] ${describeObject(docs[i]!.object)}: ${w}`);
      return;
    }
    problems.push(...formatLintResult(r, docs[i]!.object));
    if (r.status === 'unknown') exitCode = 2;
    else if (exitCode === 0) exitCode = 1;
  });
  if (problems.length) return { exitCode, problems, warnings };

  const objs = docs.map((d) => d.object as unknown as KObject);
  const clusters = new Set(objs.filter((o) => is(o, CLUSTER)).map((o) => o.metadata.name!));
  if (clusters.size === 0) {
    return { exitCode: 1, problems: ['no Cluster objects in the input: pass --clusters FILE (or include Cluster documents) so the plan has member clusters to place on'], warnings };
  }
  const known = [...clusters].sort().join(', ');
  const ops = new Set(objs.filter((o) => is(o, OP)).map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
  const cops = new Set(objs.filter((o) => is(o, COP)).map((o) => o.metadata.name!));
  docs.forEach((d, i) => {
    const o = objs[i]!;
    const where = `${d.file}[${d.index}] ${describeObject(d.object)}`;
    for (const ref of namedClusters(o)) {
      if (!clusters.has(ref.name)) problems.push(`${where}: ${ref.path}: cluster "${ref.name}" is not defined; the clusters are ${known}`);
    }
    for (const [j, n] of clusterRefs(o.spec?.dependentOverrides).entries()) {
      const found = is(o, CPP) ? cops.has(n) : ops.has(`${o.metadata.namespace}/${n}`);
      if (!found) problems.push(`${where}: spec.dependentOverrides[${j}]: ${is(o, CPP) ? 'ClusterOverridePolicy' : 'OverridePolicy'} "${n}" is not in the input; add it or drop the reference`);
    }
  });
  if (problems.length) return { exitCode: 1, problems, warnings };
  return { exitCode: 0, problems, warnings };
}

/** Reads the --status documents: single entries, or documents with an `items` list of entries. */
export function parseMemberStates(docs: SourceDocument[]): { entries: MemberStateEntry[]; problems: string[] } {
  const entries: MemberStateEntry[] = [];
  const problems: string[] = [];
  for (const d of docs) {
    const items = Array.isArray((d.object as { items?: unknown }).items) ? ((d.object as { items: unknown[] }).items as Record<string, unknown>[]) : [d.object];
    items.forEach((it, j) => {
      const where = `${d.file}[${d.index}]${items.length > 1 || it !== d.object ? ` items[${j}]` : ''}`;
      const need = ['cluster', 'apiVersion', 'kind', 'name'].filter((k) => typeof it[k] !== 'string' || it[k] === '');
      if (need.length) {
        problems.push(`${where}: ${need.join(', ')} required; an entry is {cluster, apiVersion, kind, namespace, name, health: Healthy|Unhealthy} or {..., status: {...}}`);
        return;
      }
      if (it.health !== undefined && it.health !== 'Healthy' && it.health !== 'Unhealthy') {
        problems.push(`${where}: health must be Healthy or Unhealthy, got ${JSON.stringify(it.health)}`);
        return;
      }
      if (it.health === undefined && (typeof it.status !== 'object' || it.status === null)) {
        problems.push(`${where}: give health (Healthy or Unhealthy) or status (an object)`);
        return;
      }
      entries.push(it as unknown as MemberStateEntry);
    });
  }
  return { entries, problems };
}

const ORDER = (o: KObject): number => {
  if (is(o, CLUSTER)) return 0;
  if (is(o, RIC)) return 1;
  if (is(o, OP) || is(o, COP)) return 3;
  if (is(o, PP) || is(o, CPP)) return 4;
  return 2;
};

/** Runs the plan; input errors come back as problems with the exit code to use. */
export function plan(docs: SourceDocument[], opts: PlanOptions = {}): PlanOutcome {
  const checked = checkInput(docs);
  if (checked.exitCode !== 0) return { ok: false, exitCode: checked.exitCode, problems: checked.problems };
  const states = parseMemberStates(opts.status ?? []);
  if (states.problems.length) return { ok: false, exitCode: 1, problems: states.problems };

  const cp = new ControlPlane({ start: opts.at, core: opts.core });
  for (const s of states.entries) {
    const ref: ObjectRef = { apiVersion: s.apiVersion, kind: s.kind, namespace: s.namespace, name: s.name };
    cp.members.set(s.cluster, ref, s.status ? { status: s.status } : { health: s.health });
  }
  const objs = docs.map((d) => d.object as unknown as KObject).sort((a, b) => ORDER(a) - ORDER(b));
  const problems: string[] = [];
  for (const o of objs) {
    try {
      cp.apply(o);
    } catch (e) {
      problems.push(`${describeObject(o as unknown as Record<string, unknown>)}: ${(e as Error).message}`);
    }
  }
  if (problems.length) return { ok: false, exitCode: 1, problems };
  let stats: RunStats = cp.settle();
  if (opts.runForSeconds) stats = cp.advance(opts.runForSeconds);
  return { ok: true, result: collect(cp, stats, checked.warnings) };
}

/** apiVersion, kind, metadata first and status last, as kubectl prints objects. */
function ordered(o: KObject): KObject {
  const { apiVersion, kind, metadata, status, ...rest } = o;
  const out: Record<string, unknown> = { apiVersion, kind, metadata, ...rest };
  if (status !== undefined) out.status = status;
  return out as KObject;
}

function collect(cp: ControlPlane, stats: RunStats, warnings: string[]): PlanResult {
  const store = cp.store;
  const sortKey = (o: KObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  const byName = (a: KObject, b: KObject) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0);
  const bindings = [...store.list(RB), ...store.list(CRB)].sort(byName);
  const works: WorkSummary[] = store
    .list(WORK)
    .sort(byName)
    .map((w) => {
      const a = w.metadata.annotations ?? {};
      const binding = a['resourcebinding.karmada.io/name'] ? `${a['resourcebinding.karmada.io/namespace']}/${a['resourcebinding.karmada.io/name']}` : (a['clusterresourcebinding.karmada.io/name'] ?? '');
      return {
        cluster: getClusterName(w.metadata.namespace!),
        namespace: w.metadata.namespace!,
        name: w.metadata.name!,
        binding,
        dispatch: w.spec?.suspendDispatching ? 'suspended' : 'dispatched',
        preserveResourcesOnDeletion: w.spec?.preserveResourcesOnDeletion === true,
        conditions: (w.status?.conditions ?? []) as Condition[],
        manifest: (w.spec?.workload?.manifests ?? []).map(ordered)[0] as KObject | undefined,
      };
    });
  const members: Record<string, KObject[]> = {};
  for (const c of store.list(CLUSTER).map((x) => x.metadata.name!).sort()) members[c] = store.all(c).map(ordered);
  const templates = bindings
    .map((b) => {
      const r = b.spec?.resource as ObjectRef | undefined;
      return r ? store.get(r, r.namespace, r.name) : undefined;
    })
    .filter((x): x is KObject => !!x);
  return {
    at: cp.now.toISOString().replace('.000Z', 'Z'),
    bindings,
    works,
    members,
    templates,
    events: [...cp.events()],
    failures: stats.failures.map(({ controller, key, error }) => ({ controller, key, error })),
    warnings,
  };
}

// ---------------------------------------------------------------------------------------------
// Printing

export function formatPlanJson(r: PlanResult): string {
  return JSON.stringify(r, null, 2) + '\n';
}

export function formatPlanYaml(r: PlanResult): string {
  const head = [
    `# karmada-lite plan at ${r.at}: ${r.bindings.length} binding(s), ${r.works.length} Work(s)` +
      ` (${r.works.filter((w) => w.dispatch === 'suspended').length} suspended), ${Object.keys(r.members).length} cluster(s)`,
    ...r.warnings.map((w) => `# warning: ${w}`),
    ...r.failures.map((f) => `# still failing: ${f.controller} ${f.key}: ${f.error}`),
  ].join('\n');
  const body = stringify(
    {
      bindings: r.bindings,
      works: r.works,
      members: r.members,
      templates: r.templates,
      events: r.events.map((e) => ({
        object: `${e.involvedObject.kind} ${e.involvedObject.namespace ? `${e.involvedObject.namespace}/` : ''}${e.involvedObject.name}`,
        type: e.type,
        reason: e.reason,
        message: e.message,
        ...(e.count > 1 ? { count: e.count } : {}),
      })),
      ...(r.failures.length ? { failures: r.failures } : {}),
    },
    { lineWidth: 0 },
  );
  return `${head}\n${body}`;
}

/** One row per Work: template, policy, cluster, replicas, dispatching, health. */
export function formatPlanTable(r: PlanResult): string {
  const rows: string[][] = [['TEMPLATE', 'POLICY', 'CLUSTER', 'REPLICAS', 'DISPATCHING', 'APPLIED', 'HEALTH']];
  for (const b of r.bindings) {
    const res = b.spec?.resource as ObjectRef;
    const a = b.metadata.annotations ?? {};
    const policy = a['propagationpolicy.karmada.io/name'] ? `${a['propagationpolicy.karmada.io/namespace']}/${a['propagationpolicy.karmada.io/name']}` : (a['clusterpropagationpolicy.karmada.io/name'] ?? (b.spec?.requiredBy ? '(dependency)' : '-'));
    const tpl = `${res.kind}/${res.namespace ? `${res.namespace}/` : ''}${res.name}`;
    const bname = b.kind === 'ClusterResourceBinding' ? b.metadata.name! : `${b.metadata.namespace}/${b.metadata.name}`;
    const works = r.works.filter((w) => w.binding === bname);
    const items = (b.status?.aggregatedStatus ?? []) as Array<{ clusterName: string; health?: string; applied?: boolean }>;
    const targets = new Map(((b.spec?.clusters ?? []) as Array<{ name: string; replicas?: number }>).map((c) => [c.name, c.replicas]));
    if (!works.length) {
      const sched = findCondition(b.status?.conditions as Condition[] | undefined, 'Scheduled');
      rows.push([tpl, policy, '-', '-', sched?.status === 'False' ? `unscheduled: ${sched.reason}` : '-', '-', '-']);
      continue;
    }
    for (const w of works) {
      const item = items.find((i) => i.clusterName === w.cluster);
      const applied = findCondition(w.conditions, WorkApplied);
      const replicas = targets.get(w.cluster) ?? (w.manifest?.spec as { replicas?: number } | undefined)?.replicas;
      const dispatching = findCondition(w.conditions, WorkDispatching);
      rows.push([
        tpl,
        policy,
        w.cluster,
        replicas === undefined ? '-' : String(replicas),
        w.dispatch === 'suspended' ? 'suspended' : dispatching ? 'dispatched' : 'pending',
        applied ? (applied.status === 'True' ? 'yes' : 'no') : '-',
        item?.health ?? 'Unknown',
      ]);
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const lines = rows.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
  for (const f of r.failures) lines.push(`! ${f.controller} ${f.key}: ${f.error}`);
  return lines.join('\n') + '\n';
}
