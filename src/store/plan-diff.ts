/**
 * `plan --diff-against OLD`: what a change to the input changes in the plan, per template and cluster:
 * placed or no longer placed, replicas, dispatching, and every manifest field the member would see
 * change. OLD is a saved `plan -o json` or another set of inputs, planned the same way.
 */
import {
  ClusterPropagationPolicyPermanentIDLabel,
  ClusterResourceBindingPermanentIDLabel,
  PropagationPolicyPermanentIDLabel,
  ResourceBindingPermanentIDLabel,
  ResourceTemplateUIDAnnotation,
  WorkPermanentIDLabel,
} from '../api/constants.js';
import type { SourceDocument } from '../io/documents.js';
import { refOf, type KObject, type ObjectRef } from '../core/object.js';
import { bindingKey, templateName } from './plan-table.js';
import { plan, withoutServerStamps, type PlanOptions, type PlanOutcome, type PlanResult } from './plan.js';

export interface FieldChange {
  /** Path in the manifest, e.g. spec.template.spec.containers[0].image. */
  path: string;
  before?: unknown;
  after?: unknown;
}

export interface PlanChange {
  template: string;
  cluster: string;
  change: 'added' | 'removed' | 'changed';
  replicas: { before?: number; after?: number };
  dispatch: { before?: string; after?: string };
  /** Manifest fields that differ (for `changed` only). */
  fields: FieldChange[];
}

interface Placement {
  template: string;
  cluster: string;
  replicas?: number;
  dispatch: string;
  manifest?: KObject;
}

/** Ids drawn afresh by every run (and by every apiserver): they differ between two plans of the same input. */
const GENERATED_LABELS = [PropagationPolicyPermanentIDLabel, ClusterPropagationPolicyPermanentIDLabel, ResourceBindingPermanentIDLabel, ClusterResourceBindingPermanentIDLabel, WorkPermanentIDLabel];
const GENERATED_ANNOTATIONS = [ResourceTemplateUIDAnnotation];

/** A saved `plan -o json`: one document with the plan's own top-level fields, and no kind. */
export function savedPlan(docs: readonly SourceDocument[]): PlanResult | undefined {
  if (docs.length !== 1) return undefined;
  const o = docs[0]!.object as Record<string, unknown>;
  if (o.kind !== undefined || !Array.isArray(o.works) || !Array.isArray(o.bindings) || typeof o.members !== 'object') return undefined;
  return o as unknown as PlanResult;
}

export function comparable(m: KObject | undefined): KObject | undefined {
  if (!m) return undefined;
  const out = withoutServerStamps(m);
  const drop = (v: Record<string, string> | undefined, keys: readonly string[]) => {
    if (!v) return undefined;
    const rest = { ...v };
    for (const k of keys) delete rest[k];
    return Object.keys(rest).length ? rest : undefined;
  };
  const metadata = { ...out.metadata, labels: drop(out.metadata.labels, GENERATED_LABELS), annotations: drop(out.metadata.annotations, GENERATED_ANNOTATIONS) };
  if (!metadata.labels) delete metadata.labels;
  if (!metadata.annotations) delete metadata.annotations;
  return { ...out, metadata };
}

function placements(r: PlanResult): Map<string, Placement> {
  const byBinding = new Map(r.bindings.map((b) => [bindingKey(b), b]));
  const out = new Map<string, Placement>();
  for (const w of r.works) {
    const b = byBinding.get(w.binding);
    const res = b?.spec?.resource as ObjectRef | undefined;
    const template = res ? templateName(res) : w.manifest ? templateName(refOf(w.manifest)) : w.binding;
    const target = ((b?.spec?.clusters ?? []) as Array<{ name: string; replicas?: number }>).find((c) => c.name === w.cluster);
    out.set(`${template}\0${w.cluster}`, { template, cluster: w.cluster, replicas: target?.replicas, dispatch: w.dispatch, manifest: comparable(w.manifest) });
  }
  return out;
}

/** Leaf paths and values, arrays by index; an empty object or array is a leaf of its own. */
function flatten(v: unknown, path: string, out: Map<string, unknown>): Map<string, unknown> {
  if (Array.isArray(v) && v.length) v.forEach((x, i) => flatten(x, `${path}[${i}]`, out));
  else if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length) {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) flatten(x, path ? `${path}.${/^[A-Za-z_][\w-]*$/.test(k) ? k : JSON.stringify(k)}` : k, out);
  } else out.set(path, v);
  return out;
}

export function fieldChanges(before: KObject | undefined, after: KObject | undefined): FieldChange[] {
  const a = flatten(before ?? {}, '', new Map());
  const b = flatten(after ?? {}, '', new Map());
  const out: FieldChange[] = [];
  for (const [path, v] of a) {
    if (!b.has(path)) out.push({ path, before: v });
    else if (JSON.stringify(b.get(path)) !== JSON.stringify(v)) out.push({ path, before: v, after: b.get(path) });
  }
  for (const [path, v] of b) if (!a.has(path)) out.push({ path, after: v });
  // By path: the interpreter may write a field back in another position, which is no change.
  return out.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

/** The changes from `before` to `after`, ordered by template then cluster. */
export function diffPlans(before: PlanResult, after: PlanResult): PlanChange[] {
  const a = placements(before);
  const b = placements(after);
  const out: PlanChange[] = [];
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const x = a.get(key);
    const y = b.get(key);
    const { template, cluster } = (y ?? x)!;
    const replicas = { before: x?.replicas, after: y?.replicas };
    const dispatch = { before: x?.dispatch, after: y?.dispatch };
    if (!x || !y) {
      out.push({ template, cluster, change: x ? 'removed' : 'added', replicas, dispatch, fields: [] });
      continue;
    }
    const fields = fieldChanges(x.manifest, y.manifest);
    if (fields.length || x.replicas !== y.replicas || x.dispatch !== y.dispatch) out.push({ template, cluster, change: 'changed', replicas, dispatch, fields });
  }
  return out;
}

const show = (v: unknown): string => (v === undefined ? '(none)' : JSON.stringify(v));

/** `~` changed, `+` newly placed, `-` no longer placed; a summary line last. */
export function formatPlanDiff(changes: readonly PlanChange[]): string {
  const lines: string[] = [];
  for (const c of changes) {
    if (c.change !== 'changed') {
      const side = c.change === 'added' ? 'after' : 'before';
      const r = c.replicas[side];
      lines.push(`${c.change === 'added' ? '+' : '-'} ${c.template} on ${c.cluster}${c.change === 'added' ? '' : ': no longer placed'} (${r === undefined ? '' : `replicas ${r}, `}${c.dispatch[side]})`);
      continue;
    }
    lines.push(`~ ${c.template} on ${c.cluster}`);
    if (c.replicas.before !== c.replicas.after) lines.push(`    replicas: ${show(c.replicas.before)} -> ${show(c.replicas.after)}`);
    if (c.dispatch.before !== c.dispatch.after) lines.push(`    dispatch: ${c.dispatch.before} -> ${c.dispatch.after}`);
    for (const f of c.fields) lines.push(`    ${f.path}: ${show(f.before)} -> ${show(f.after)}`);
  }
  const templates = new Set(changes.map((c) => c.template)).size;
  lines.push(changes.length ? `${changes.length} change(s) in ${templates} template(s)` : 'no changes');
  return lines.join('\n') + '\n';
}

/**
 * The plan to compare against: `paths` hold a saved `plan -o json`, or inputs planned with the same
 * options (and the same extra inputs, such as the fleet) as the new plan.
 */
export function planToCompare(docs: SourceDocument[], extra: SourceDocument[], opts: PlanOptions): PlanOutcome {
  const saved = savedPlan(docs);
  if (saved) return { ok: true, result: saved };
  return plan([...docs, ...extra], opts);
}
