/** Validating, merging and ordering dependency references (VerifyDependencies and the union of scripts). */
import { InterpreterError, type DependentObjectReference } from './types.js';

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function goQuote(s: string): string {
  return JSON.stringify(s);
}

function labelKeyErrors(key: string, path: string): string[] {
  const parts = key.split('/');
  let name = key;
  if (parts.length === 2) {
    if (parts[0]!.length === 0 || parts[0]!.length > 253 || !DNS_SUBDOMAIN.test(parts[0]!)) {
      return [`${path}: Invalid value: ${goQuote(key)}: prefix part must be a lowercase RFC 1123 subdomain`];
    }
    name = parts[1]!;
  } else if (parts.length > 2) {
    return [`${path}: Invalid value: ${goQuote(key)}: a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`];
  }
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name)) {
    return [`${path}: Invalid value: ${goQuote(key)}: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`];
  }
  return [];
}

function selectorErrors(sel: unknown, path: string): string[] {
  if (sel === null || typeof sel !== 'object') return [];
  const errs: string[] = [];
  const s = sel as { matchLabels?: Record<string, unknown>; matchExpressions?: unknown[] };
  for (const [k, v] of Object.entries(s.matchLabels ?? {})) {
    errs.push(...labelKeyErrors(k, `${path}.matchLabels`));
    const value = typeof v === 'string' ? v : String(v);
    if (value.length > 63 || !LABEL_VALUE.test(value)) {
      errs.push(`${path}.matchLabels: Invalid value: ${goQuote(value)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
    }
  }
  (s.matchExpressions ?? []).forEach((raw, i) => {
    const e = (raw ?? {}) as { key?: string; operator?: string; values?: unknown[] };
    const p = `${path}.matchExpressions[${i}]`;
    const values = Array.isArray(e.values) ? e.values : [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(`${p}.values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`);
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(`${p}.values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`);
        break;
      default:
        errs.push(`${p}.operator: Invalid value: ${goQuote(String(e.operator ?? ''))}: not a valid selector operator`);
    }
    errs.push(...labelKeyErrors(String(e.key ?? ''), `${p}.key`));
  });
  return errs;
}

/**
 * The reference as apimachinery's field.Invalid prints a struct value: its encoding/json form (Go field
 * order; namespace, name and labelSelector omitted when empty).
 */
function referenceJson(d: DependentObjectReference): string {
  const out: Record<string, unknown> = { apiVersion: d.apiVersion, kind: d.kind };
  if (d.namespace) out.namespace = d.namespace;
  if (d.name) out.name = d.name;
  if (d.labelSelector) out.labelSelector = d.labelSelector;
  return JSON.stringify(out);
}

/** Karmada's VerifyDependencies: throws with every problem, aggregated as `[e1, e2]` when several. */
export function verifyDependencies(deps: DependentObjectReference[]): void {
  const errs: string[] = [];
  deps.forEach((d, i) => {
    const p = `dependencies[${i}]`;
    if (!d.apiVersion) errs.push(`${p}.apiVersion: Invalid value: "": missing required apiVersion`);
    if (!d.kind) errs.push(`${p}.kind: Invalid value: "": missing required kind`);
    if (!d.name && !d.labelSelector) errs.push(`${p}: Invalid value: ${referenceJson(d)}: dependency can not leave name and labelSelector all empty`);
    if (d.labelSelector) errs.push(...selectorErrors(d.labelSelector, `${p}.labelSelector`));
  });
  if (errs.length === 1) throw new InterpreterError(errs[0]!, 'InterpretDependency');
  if (errs.length > 1) throw new InterpreterError(`[${errs.join(', ')}]`, 'InterpretDependency');
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function compareDependencies(a: DependentObjectReference, b: DependentObjectReference): number {
  return cmp(a.apiVersion, b.apiVersion) || cmp(a.kind, b.kind) || cmp(a.namespace ?? '', b.namespace ?? '') || cmp(a.name ?? '', b.name ?? '');
}

/** Union of every script's refs (refs with a label selector never dedupe), sorted. */
export function mergeDependencies(lists: DependentObjectReference[][]): DependentObjectReference[] {
  const seen = new Set<string>();
  const out: DependentObjectReference[] = [];
  for (const list of lists) {
    for (const d of list) {
      if (!d.labelSelector) {
        const key = JSON.stringify([d.apiVersion, d.kind, d.namespace ?? '', d.name ?? '']);
        if (seen.has(key)) continue;
        seen.add(key);
      }
      out.push(d);
    }
  }
  return out.sort(compareDependencies);
}
