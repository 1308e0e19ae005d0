/**
 * `karmada-lite plan`: load templates, policies, overrides, RICs and clusters into the embedded control
 * plane, run the reconcile core until nothing changes, and report what would happen: bindings and their
 * schedule, Works (dispatched or suspended), the manifests member clusters receive, status, events.
 */
import { stringify } from 'yaml';
import { describeObject, documentLocation, type SourceDocument } from '../io/documents.js';
import { lintDocuments } from '../validation/lint.js';
import { formatLintResult } from '../validation/lint.js';
import { ClusterResourceBindingAnnotation, getClusterName, ResourceBindingNameAnnotation, ResourceBindingNamespaceAnnotation } from '../api/constants.js';
import { CLUSTER, COP, CPP, CRB, FRQ, is, OP, PP, RB, RIC, WORK } from '../core/kinds.js';
import { withCoreDefaults, type CoreOptions, type ObjectReader } from '../core/ports.js';
import type { Condition, KObject, ObjectRef } from '../core/object.js';
import type { RunStats } from '../runtime/runner.js';
import { ControlPlane, type ControlPlaneOptions } from './control-plane.js';
import { httpsWebhookCaller, type WebhookCaller } from '../interpreter/webhook-interpreter.js';
import { absentClusters, appliedOverrides, unmatchedTemplates, type AbsentCluster, type UnmatchedTemplate } from './plan-table.js';
import type { RecordedEvent } from '../runtime/store-port.js';

export interface PlanOptions {
  /** Virtual time the plan runs at; default now (to the second). Pin it for reproducible output. */
  at?: Date;
  /** Virtual time to let pass after loading, so tolerations and grace periods play out. */
  runForSeconds?: number;
  /** Simulated member state: documents {cluster, apiVersion, kind, namespace, name, health | status}. */
  status?: SourceDocument[];
  /** Core feature gates (PropagationPolicyPreemption, StatefulFailoverInjection). */
  core?: Partial<CoreOptions>;
  /** The Kubernetes version whose API schemas built-in templates are checked against (`--kubernetes-version`). */
  kubernetesVersion?: string;
  /** Called as the plan loads documents and as the controllers write, for a progress display. */
  onProgress?: (p: PlanProgress) => void;
  /** `--interpreters` and `--health-checks`, loaded (src/interpreter/library.ts). */
  interpreterLibraries?: ControlPlaneOptions['interpreterLibraries'];
}

export interface PlanProgress {
  phase: 'load' | 'settle';
  /** Documents applied so far, of `total`. */
  loaded: number;
  total: number;
  /** Writes the controllers made so far. */
  writes: number;
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
  /** The OverridePolicies (namespace/name) and ClusterOverridePolicies (name) that applied, in order. */
  overrides: string[];
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
  /** Templates no binding was made for: no policy matches them. */
  unmatched: UnmatchedTemplate[];
  /** Per binding, the clusters it was not placed on, with the scheduler's reason. */
  absent: AbsentCluster[];
  /** The FederatedResourceQuotas of the input, with the status the run gave them (what is charged); only when there are some. */
  quotas?: KObject[];
}

/**
 * The objects a plan makes, as the control plane would hold them: its bindings, then its Works (the
 * summary's fields where Karmada keeps them). What `-o name` and `-o custom-columns` print.
 */
export function planObjects(r: PlanResult): KObject[] {
  const works = r.works.map(
    (w): KObject => ({
      apiVersion: WORK.apiVersion,
      kind: WORK.kind,
      metadata: { name: w.name, namespace: w.namespace },
      spec: { suspendDispatching: w.dispatch === 'suspended', preserveResourcesOnDeletion: w.preserveResourcesOnDeletion, workload: { manifests: w.manifest ? [w.manifest] : [] } },
      status: { conditions: w.conditions },
    }),
  );
  return [...r.bindings, ...works];
}

export type PlanOutcome = { ok: true; result: PlanResult } | { ok: false; exitCode: 1 | 2; problems: string[] };

const clusterRefs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Cluster names a policy or override names, with the field path that names them (unknown ones are warned about). */
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
export function checkInput(docs: SourceDocument[], opts: { kubernetesVersion?: string } = {}): { exitCode: 0 | 1 | 2; problems: string[]; warnings: string[] } {
  const results = lintDocuments(docs, { kubernetesVersion: opts.kubernetesVersion });
  const problems: string[] = [];
  const warnings: string[] = [];
  let exitCode: 0 | 1 | 2 = 0;
  results.forEach((r, i) => {
    if (r.status === 'valid') {
      for (const w of r.warnings ?? []) warnings.push(`${documentLocation(r)} ${describeObject(docs[i]!.object)}: ${w}`);
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
    const where = `${documentLocation(d)} ${describeObject(d.object)}`;
    for (const ref of namedClusters(o)) {
      // The controller does not refuse such a policy: the scheduler finds no cluster of that name.
      if (!clusters.has(ref.name)) warnings.push(`${where}: ${ref.path}: cluster "${ref.name}" is unknown (the clusters are ${known}); planned as the controller would, with no such cluster`);
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

/** The time a plan runs at: the one given, or now. Kubernetes timestamps are whole seconds, so now is taken to the second. */
export function planStart(at?: Date): Date {
  return at ?? new Date(Math.floor(Date.now() / 1000) * 1000);
}

/** Runs the plan; input errors come back as problems with the exit code to use. */
export function plan(docs: SourceDocument[], opts: PlanOptions = {}): PlanOutcome {
  const loaded = load(docs, opts);
  if (!('cp' in loaded)) return loaded;
  let stats: RunStats = loaded.cp.settle();
  if (opts.runForSeconds) stats = loaded.cp.advance(opts.runForSeconds);
  return loaded.finish(stats);
}

/**
 * plan() that also calls the interpreter webhooks of the ResourceInterpreterWebhookConfigurations in
 * the input (over HTTPS, as the controller does): an unreachable hook fails its templates' reconciles,
 * reported with the other failures.
 */
export async function planWithWebhooks(docs: SourceDocument[], opts: PlanOptions = {}): Promise<PlanOutcome> {
  const caller = httpsWebhookCaller();
  try {
    const loaded = load(docs, opts, caller);
    if (!('cp' in loaded)) return loaded;
    let stats = await loaded.cp.settleAsync();
    if (opts.runForSeconds) {
      loaded.cp.advance(opts.runForSeconds);
      stats = await loaded.cp.settleAsync();
    }
    return loaded.finish(stats);
  } finally {
    caller.close();
  }
}

/** The control plane with the input applied, and how to turn its settled state into the outcome. */
function load(docs: SourceDocument[], opts: PlanOptions, webhooks?: WebhookCaller): PlanOutcome | { cp: ControlPlane; finish(stats: RunStats): PlanOutcome } {
  const checked = checkInput(docs, { kubernetesVersion: opts.kubernetesVersion });
  if (checked.exitCode !== 0) return { ok: false, exitCode: checked.exitCode, problems: checked.problems };
  const states = parseMemberStates(opts.status ?? []);
  if (states.problems.length) return { ok: false, exitCode: 1, problems: states.problems };

  const cp = new ControlPlane({ start: planStart(opts.at), core: opts.core, interpreterWebhooks: webhooks, interpreterLibraries: opts.interpreterLibraries });
  const progress = opts.onProgress;
  const counts: PlanProgress = { phase: 'load', loaded: 0, total: docs.length, writes: 0 };
  if (progress) {
    cp.store.watch(() => {
      counts.writes++;
      progress(counts);
    });
  }
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
    counts.loaded++;
    progress?.(counts);
  }
  if (problems.length) return { ok: false, exitCode: 1, problems };
  counts.phase = 'settle';
  return { cp, finish: (stats) => ({ ok: true, result: collect(cp, stats, checked.warnings, withCoreDefaults(opts.core).skippedPropagatingNamespaces) }) };
}

/** apiVersion, kind, metadata first and status last, as kubectl prints objects. */
function ordered(o: KObject): KObject {
  const { apiVersion, kind, metadata, status, ...rest } = o;
  const out: Record<string, unknown> = { apiVersion, kind, metadata, ...rest };
  if (status !== undefined) out.status = status;
  return out as KObject;
}

/** A Work as the plan reports it: its cluster, binding, dispatch state, conditions, manifest and the overrides that made it. */
export function workSummary(w: KObject): WorkSummary {
  const a = w.metadata.annotations ?? {};
  const binding = a[ResourceBindingNameAnnotation] ? `${a[ResourceBindingNamespaceAnnotation]}/${a[ResourceBindingNameAnnotation]}` : (a[ClusterResourceBindingAnnotation] ?? '');
  return {
    cluster: getClusterName(w.metadata.namespace!),
    namespace: w.metadata.namespace!,
    name: w.metadata.name!,
    binding,
    dispatch: w.spec?.suspendDispatching ? 'suspended' : 'dispatched',
    preserveResourcesOnDeletion: w.spec?.preserveResourcesOnDeletion === true,
    conditions: (w.status?.conditions ?? []) as Condition[],
    manifest: (w.spec?.workload?.manifests ?? []).map(ordered)[0] as KObject | undefined,
    overrides: appliedOverrides(w),
  };
}

const sortKey = (o: KObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
/** By namespace, then name: the order every view of a plan lists objects in. */
export const byName = (a: KObject, b: KObject) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0);

/** The bindings, Works and their templates a reader holds, in plan order: what `plan` prints and the dashboard shows. */
export function placedObjects(store: ObjectReader): { bindings: KObject[]; works: WorkSummary[]; templates: KObject[] } {
  const bindings = [...store.list(RB), ...store.list(CRB)].sort(byName);
  const works = [...store.list(WORK)].sort(byName).map(workSummary);
  const templates = bindings
    .map((b) => {
      const r = b.spec?.resource as ObjectRef | undefined;
      return r ? store.get(r, r.namespace, r.name) : undefined;
    })
    .filter((x): x is KObject => !!x);
  return { bindings, works, templates };
}

function collect(cp: ControlPlane, stats: RunStats, warnings: string[], skipped: readonly RegExp[]): PlanResult {
  const store = cp.store;
  const { bindings, works, templates } = placedObjects(store);
  const members: Record<string, KObject[]> = {};
  for (const c of store.list(CLUSTER).map((x) => x.metadata.name!).sort()) members[c] = store.all(c).map(ordered);
  return {
    at: cp.now.toISOString().replace('.000Z', 'Z'),
    bindings,
    works,
    members,
    templates,
    events: [...cp.events()],
    failures: stats.failures.map(({ controller, key, error }) => ({ controller, key, error })),
    warnings,
    unmatched: unmatchedTemplates(store.all(), bindings, works, skipped),
    absent: absentClusters(bindings, store.list(CLUSTER), cp.now),
    ...quotasOf(store),
  };
}

function quotasOf(store: ControlPlane['store']): { quotas?: KObject[] } {
  const quotas = store.list(FRQ);
  return quotas.length ? { quotas: quotas.map(ordered) } : {};
}

// ---------------------------------------------------------------------------------------------
// Printing

export function formatPlanJson(r: PlanResult): string {
  return JSON.stringify(r, null, 2) + '\n';
}

export interface PlanFormatOptions {
  /** Keep what the server stamps on every object (uid, resourceVersion, creationTimestamp, managedFields). */
  showManagedFields?: boolean;
}

/** Set by the (simulated) server on every write: it changes between runs of the same input and says nothing about the plan. */
const SERVER_STAMPS = ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields'] as const;

/** The object without the server's stamps: in its metadata, its owner references and a binding's spec.resource. */
export function withoutServerStamps(o: KObject): KObject {
  const metadata = { ...o.metadata } as Record<string, unknown>;
  for (const k of SERVER_STAMPS) delete metadata[k];
  if (o.metadata.ownerReferences) metadata.ownerReferences = o.metadata.ownerReferences.map(({ uid: _, ...ref }) => ref);
  const out = { ...o, metadata } as KObject;
  const res = o.spec?.resource as Record<string, unknown> | undefined;
  if ((is(o, RB) || is(o, CRB)) && res) {
    const { uid: _u, resourceVersion: _rv, ...rest } = res;
    out.spec = { ...o.spec, resource: rest };
  }
  return out;
}

/**
 * The plan as YAML for a reader: a dispatched Work's manifest is what its member holds, so it is named
 * there rather than printed twice; the server's stamps are left out unless asked for.
 */
export function formatPlanYaml(r: PlanResult, opts: PlanFormatOptions = {}): string {
  const clean = opts.showManagedFields ? (o: KObject) => o : withoutServerStamps;
  const held = (cluster: string, m: KObject) =>
    (r.members[cluster] ?? []).some((o) => o.apiVersion === m.apiVersion && o.kind === m.kind && o.metadata.namespace === m.metadata.namespace && o.metadata.name === m.metadata.name);
  const works = r.works.map((w) => ({
    ...w,
    manifest: !w.manifest ? w.manifest : held(w.cluster, w.manifest) ? `${w.manifest.kind} ${w.manifest.metadata.namespace ? `${w.manifest.metadata.namespace}/` : ''}${w.manifest.metadata.name}: as in members.${w.cluster}` : clean(w.manifest),
  }));
  const members = Object.fromEntries(Object.entries(r.members).map(([c, objs]) => [c, objs.map(clean)]));
  const head = [
    `# karmada-lite plan at ${r.at}: ${r.bindings.length} binding(s), ${r.works.length} Work(s)` +
      ` (${r.works.filter((w) => w.dispatch === 'suspended').length} suspended), ${Object.keys(r.members).length} cluster(s)`,
    ...r.warnings.map((w) => `# warning: ${w}`),
    ...r.failures.map((f) => `# still failing: ${f.controller} ${f.key}: ${f.error}`),
  ].join('\n');
  const body = stringify(
    {
      bindings: r.bindings.map(clean),
      works,
      members,
      templates: r.templates.map(clean),
      ...(r.absent.length ? { absent: r.absent } : {}),
      ...(r.unmatched.length ? { unmatched: r.unmatched } : {}),
      ...(r.quotas?.length ? { quotas: r.quotas.map(clean) } : {}),
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
