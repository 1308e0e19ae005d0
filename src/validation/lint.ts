import { describeObject, type SourceDocument } from '../io/documents.js';
import { resolveKind, validateSchema, validateTemplate, type FieldError } from './schema.js';

export type LintStatus = 'valid' | 'invalid' | 'unknown';

/** The verdict for one document, with everything needed to print it or serialise it for scripts. */
export interface LintResult {
  file: string;
  index: number;
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  status: LintStatus;
  errors: FieldError[];
}

/** Lints documents offline: schema validation for karmada-lite kinds, the basics for resource templates. */
export function lintDocuments(docs: SourceDocument[]): LintResult[] {
  return docs.map((doc) => {
    const obj = doc.object;
    const meta = (obj.metadata ?? {}) as { name?: string; namespace?: string };
    const base = {
      file: doc.file,
      index: doc.index,
      apiVersion: typeof obj.apiVersion === 'string' ? obj.apiVersion : undefined,
      kind: typeof obj.kind === 'string' ? obj.kind : undefined,
      namespace: typeof meta.namespace === 'string' ? meta.namespace : undefined,
      name: typeof meta.name === 'string' ? meta.name : undefined,
    };
    const resolved = resolveKind(obj);
    if (resolved.type === 'unknown') return { ...base, status: 'unknown', errors: [{ path: '', message: resolved.reason }] };
    const errors = resolved.type === 'karmada' ? validateSchema(resolved.info, obj) : validateTemplate(obj);
    return { ...base, status: errors.length ? 'invalid' : 'valid', errors };
  });
}

/** `policy.yaml[2] PropagationPolicy default/nginx: spec.x: message`, one line per error. */
export function formatLintResult(r: LintResult, obj: Record<string, unknown>): string[] {
  const where = `${r.file}[${r.index}] ${describeObject(obj)}`;
  return r.errors.map((e) => (e.path ? `${where}: ${e.path}: ${e.message}` : `${where}: ${e.message}`));
}

/** 0 valid, 1 invalid, 2 unreadable (unknown kinds count as unreadable input). */
export function lintExitCode(results: LintResult[]): number {
  if (results.some((r) => r.status === 'unknown')) return 2;
  if (results.some((r) => r.status === 'invalid')) return 1;
  return 0;
}
