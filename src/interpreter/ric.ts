/** Reading ResourceInterpreterCustomizations and merging several for one target (spec §1). */
import { parse as parseYaml } from 'yaml';
import { GO_TYPES } from './go-types.js';
import { CUSTOMIZATION_FIELD, gvkKey, OPERATIONS, type GVK, type Operation, type RIC } from './types.js';

/**
 * karmada-lite's `interpreter.karmada-lite.io/typed-output` annotation: per operation, how to spell
 * parts of a result that Go's typed structs produce and a Lua table cannot (see interpreters/README.md).
 */
export interface TypedOutput {
  /** Extra empty-object reference paths for the empty-table repair. */
  emptyObjects?: readonly string[];
  /** Paths set to null when absent (their parent object existing). */
  nulls?: readonly string[];
  /** InterpretStatus: a nil result means "no status" instead of an error. */
  nilIsNull?: boolean;
  /** The Go type (in go-types.ts) whose encoding/json output the result is: the Go-JSON rule (go-json.ts). */
  goType?: string;
  /** With goType: the result is an object Karmada edits unstructured; the type only tells a list from an object. */
  unstructured?: boolean;
}

export const TYPED_OUTPUT_ANNOTATION = 'interpreter.karmada-lite.io/typed-output';

/** A script with the typed-output options of the RIC it came from. */
export interface ScriptEntry {
  script: string;
  typed?: TypedOutput;
}

/** Scripts for one target after merging: one per operation, several for dependencies. */
export interface TargetScripts {
  target: GVK;
  scripts: Partial<Record<Exclude<Operation, 'InterpretDependency'>, ScriptEntry>>;
  dependencyScripts: ScriptEntry[];
}

/** Reads the typed-output annotation; a malformed one is ignored (Karmada ignores unknown annotations). */
export function typedOutputOf(ric: RIC): Partial<Record<Operation, TypedOutput>> {
  const ann = (ric.metadata?.annotations as Record<string, unknown> | undefined)?.[TYPED_OUTPUT_ANNOTATION];
  if (typeof ann !== 'string') return {};
  let parsed: unknown;
  try {
    parsed = parseYaml(ann);
  } catch {
    return {};
  }
  if (parsed === null || typeof parsed !== 'object') return {};
  const out: Partial<Record<Operation, TypedOutput>> = {};
  for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
    const op = OPERATIONS.find((o) => o.toLowerCase() === k.toLowerCase());
    if (!op || v === null || typeof v !== 'object') continue;
    const t = v as Record<string, unknown>;
    const strs = (x: unknown) => (Array.isArray(x) ? Object.freeze(x.filter((e): e is string => typeof e === 'string')) : undefined);
    out[op] = { emptyObjects: strs(t.emptyObjects), nulls: strs(t.nulls), nilIsNull: t.nilIsNull === true };
    // An unknown type name is ignored like any malformed part (the built-ins' names are checked by a test).
    if (typeof t.goType === 'string' && Object.hasOwn(GO_TYPES, t.goType)) {
      out[op].goType = t.goType;
      out[op].unstructured = t.unstructured === true;
    }
  }
  return out;
}

export function isRIC(doc: unknown): doc is RIC {
  if (doc === null || typeof doc !== 'object') return false;
  const d = doc as RIC;
  return d.kind === 'ResourceInterpreterCustomization' && typeof d.apiVersion === 'string' && d.apiVersion.startsWith('config.karmada.io/');
}

export function ricName(ric: RIC): string {
  return typeof ric.metadata?.name === 'string' ? ric.metadata.name : '';
}

/** The script a RIC holds for an operation, or '' when unset. */
export function scriptOf(ric: RIC, op: Operation): string {
  const c = ric.spec?.customizations?.[CUSTOMIZATION_FIELD[op]];
  const s = c && typeof c === 'object' ? c.luaScript : undefined;
  return typeof s === 'string' ? s : '';
}

export function targetOf(ric: RIC): GVK {
  const t = ric.spec?.target ?? {};
  return { apiVersion: typeof t.apiVersion === 'string' ? t.apiVersion : '', kind: typeof t.kind === 'string' ? t.kind : '' };
}

/**
 * Merges RICs: sorted by name; per target, the first RIC with a non-empty script for an operation wins;
 * all non-empty dependency scripts are kept, in name order.
 */
export function mergeCustomizations(rics: RIC[]): Map<string, TargetScripts> {
  const sorted = [...rics].sort((a, b) => (ricName(a) < ricName(b) ? -1 : ricName(a) > ricName(b) ? 1 : 0));
  const out = new Map<string, TargetScripts>();
  for (const ric of sorted) {
    const target = targetOf(ric);
    const key = gvkKey(target);
    let entry = out.get(key);
    if (!entry) {
      entry = { target, scripts: {}, dependencyScripts: [] };
      out.set(key, entry);
    }
    const typed = typedOutputOf(ric);
    for (const op of OPERATIONS) {
      const script = scriptOf(ric, op);
      if (script === '') continue;
      const e: ScriptEntry = typed[op] ? { script, typed: typed[op] } : { script };
      if (op === 'InterpretDependency') entry.dependencyScripts.push(e);
      else if (entry.scripts[op] === undefined) entry.scripts[op] = e;
    }
  }
  return out;
}
