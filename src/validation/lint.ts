import { describeObject, documentLocation, type SourceDocument } from '../io/documents.js';
import { resolveKind, validateSchema, validateTemplate, type FieldError } from './schema.js';
import type { KindInfo } from '../api/generated/kinds.js';
import { applySchemaDefaults, MutationError } from './defaulting.js';
import { isObj, strOf, type Obj } from './json.js';
import { isAdmissionKind, mutate, validate, type FeatureGates, type LuaCompile } from './rules.js';
import { findRicConflict } from './ric.js';
import { luaCompile } from './lua-compile.js';
import { ricScriptWarnings } from './script-traps.js';
import { validateKubernetesObject } from './kubernetes-schema.js';

export type LintStatus = 'valid' | 'invalid' | 'unknown';

/** The verdict for one document, with everything needed to print it or serialise it for scripts. */
export interface LintResult {
  file: string;
  index: number;
  /** The object's position in the items of a List document. */
  item?: number;
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  status: LintStatus;
  errors: FieldError[];
  /** Accepted but worth changing (a deprecated spelling that defaulting rewrote). */
  warnings: string[];
}

export interface LintOptions {
  compileLua?: LuaCompile;
  gates?: FeatureGates;
  /** Warnings count as errors (`validate --strict`): a risky RIC script or a deprecated spelling fails the check. */
  strict?: boolean;
  /** The Kubernetes version whose API schemas built-in kinds are checked against (`--kubernetes-version`). */
  kubernetesVersion?: string;
  /** ClusterTaintPolicies may carry NoExecute taints, as the webhook's `--allow-no-execute-taint-policy`. */
  allowNoExecuteTaintPolicy?: boolean;
}

/**
 * Lints documents offline as the API server would admit them on create: CRD schema defaults, the mutating
 * webhook, the schema, then the validating webhook's semantic rules. Resource templates only get the
 * basics. RICs are checked for conflicts with the RICs before them in the input, as if created in order.
 */
export function lintDocuments(docs: SourceDocument[], opts: LintOptions = {}): LintResult[] {
  const earlierRics: Obj[] = [];
  return docs.map((doc) => {
    const obj = doc.object;
    const meta = (isObj(obj.metadata) ? obj.metadata : {}) as { name?: string; namespace?: string };
    const base = {
      file: doc.file,
      index: doc.index,
      ...(doc.item !== undefined ? { item: doc.item } : {}),
      apiVersion: typeof obj.apiVersion === 'string' ? obj.apiVersion : undefined,
      kind: typeof obj.kind === 'string' ? obj.kind : undefined,
      namespace: typeof meta.namespace === 'string' ? meta.namespace : undefined,
      name: typeof meta.name === 'string' ? meta.name : undefined,
      warnings: [] as string[],
    };
    const resolved = resolveKind(obj);
    if (resolved.type === 'unknown') return { ...base, status: 'unknown', errors: [{ path: '', message: resolved.reason }] };
    if (resolved.type === 'template') {
      const errors = [...validateTemplate(obj), ...(validateKubernetesObject(obj, opts.kubernetesVersion) ?? [])];
      return { ...base, status: errors.length ? 'invalid' : 'valid', errors };
    }
    const { errors, warnings } = lintKarmadaObject(resolved.info, obj, earlierRics, opts);
    if (opts.strict && warnings.length) return { ...base, warnings: [], status: 'invalid', errors: [...errors, ...warnings.map((w) => ({ path: '', message: `${w} (an error under --strict)` }))] };
    return { ...base, warnings, status: errors.length ? 'invalid' : 'valid', errors };
  });
}

function lintKarmadaObject(info: KindInfo, original: Obj, earlierRics: Obj[], opts: LintOptions): { errors: FieldError[]; warnings: string[] } {
  const kind = info.kind;
  let object = applySchemaDefaults(info.schema, original) as Obj;
  let warnings: string[] = [];
  // A file names no namespace when it is meant for `kubectl apply -n`: the namespace rules then have nothing to compare.
  const namespace = info.namespaced ? strOf(isObj(original.metadata) ? original.metadata.namespace : undefined) : '';
  if (isAdmissionKind(kind) && isObj(original.metadata)) {
    try {
      ({ object, warnings } = mutate(kind, { operation: 'CREATE', namespace, object }));
    } catch (e) {
      if (e instanceof MutationError) return { errors: [{ path: '', message: e.message }], warnings };
      throw e;
    }
  }
  const schemaErrors = validateSchema(info, object);
  // The API server stops at schema errors; the validating webhook only ever sees schema-valid objects.
  if (schemaErrors.length || !isAdmissionKind(kind)) return { errors: schemaErrors, warnings };
  const errors = validate(kind, { operation: 'CREATE', namespace, object }, { gates: opts.gates, compileLua: opts.compileLua ?? luaCompile, existingRics: [], allowNoExecuteTaintPolicy: opts.allowNoExecuteTaintPolicy });
  if (kind === 'ResourceInterpreterCustomization') {
    const conflict = findRicConflict(object, earlierRics);
    if (conflict) errors.unshift(conflict);
    earlierRics.push(object);
    // Scripts that do not compile have nothing to scan; the compile error says enough.
    if (errors.length === 0) warnings = [...warnings, ...ricScriptWarnings(object)];
  }
  return { errors, warnings };
}

/** `policy.yaml[2] PropagationPolicy default/nginx: spec.x: message`, one line per error. */
export function formatLintResult(r: LintResult, obj: Record<string, unknown>): string[] {
  const where = `${documentLocation(r)} ${describeObject(obj)}`;
  return r.errors.map((e) => (e.path ? `${where}: ${e.path}: ${e.message}` : `${where}: ${e.message}`));
}

/** `policy.yaml[2] PropagationPolicy default/nginx: warning: ...`, one line per warning. */
export function formatLintWarnings(r: LintResult, obj: Record<string, unknown>): string[] {
  const where = `${documentLocation(r)} ${describeObject(obj)}`;
  return (r.warnings ?? []).map((w) => `${where}: warning: ${w}`);
}

/** 0 valid, 1 invalid, 2 unreadable (unknown kinds count as unreadable input). */
export function lintExitCode(results: LintResult[]): number {
  if (results.some((r) => r.status === 'unknown')) return 2;
  if (results.some((r) => r.status === 'invalid')) return 1;
  return 0;
}
