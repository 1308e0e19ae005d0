import type { ErrorObject } from 'ajv';
import { KINDS, type KindInfo } from '../api/generated/kinds.js';
import { BUILTIN_GROUPS, findBuiltinKind, groupOf } from '../api/kubernetes-kinds.js';

/** One problem with one field, printed as `path: message` (Kubernetes' field-error shape). */
export interface FieldError {
  path: string;
  message: string;
}

export type KindResolution =
  | { type: 'karmada'; info: KindInfo }
  | { type: 'template' }
  | { type: 'unknown'; reason: string };

/** API groups owned by karmada-lite's own kinds: an unknown kind in them is a typo, not a template. */
const KARMADA_GROUPS = new Set(KINDS.map((k) => k.group));

export function findKind(apiVersion: string, kind: string): KindInfo | undefined {
  return KINDS.find((k) => k.apiVersion === apiVersion && k.kind === kind);
}

/**
 * Classifies a document: one of our kinds (validated by schema), a resource template (any built-in
 * Kubernetes kind, or a kind of a group we do not own), or unknown (a typo in a group we know fully).
 */
export function resolveKind(obj: Record<string, unknown>): KindResolution {
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || apiVersion === '') return { type: 'unknown', reason: 'apiVersion is missing; every document needs apiVersion and kind' };
  if (typeof kind !== 'string' || kind === '') return { type: 'unknown', reason: 'kind is missing; every document needs apiVersion and kind' };
  const info = findKind(apiVersion, kind);
  if (info) return { type: 'karmada', info };
  const group = groupOf(apiVersion);
  if (KARMADA_GROUPS.has(group)) {
    const known = KINDS.filter((k) => k.group === group).map((k) => `${k.apiVersion} ${k.kind}`);
    return { type: 'unknown', reason: `unknown apiVersion/kind ${apiVersion} ${kind}; ${group} serves ${known.join(', ')}` };
  }
  if (BUILTIN_GROUPS.has(group) && !findBuiltinKind(apiVersion, kind)) {
    return { type: 'unknown', reason: `unknown apiVersion/kind ${apiVersion} ${kind}: not a built-in Kubernetes kind (check the spelling and the version)` };
  }
  return { type: 'template' };
}

/** Validates an object of one of our kinds against its schema. Unknown fields are errors. */
export function validateSchema(info: KindInfo, obj: unknown): FieldError[] {
  if (info.validate(obj)) return [];
  return formatAjvErrors(info.validate.errors ?? []);
}

/** Resource templates only need what every Kubernetes object needs. */
export function validateTemplate(obj: Record<string, unknown>): FieldError[] {
  const meta = obj.metadata as Record<string, unknown> | undefined;
  if (!meta || typeof meta !== 'object') return [{ path: 'metadata', message: 'Required value' }];
  if (typeof meta.name !== 'string' || meta.name === '') return [{ path: 'metadata.name', message: 'Required value' }];
  return [];
}

/** `/spec/resourceSelectors/0/kind` -> `spec.resourceSelectors[0].kind` */
export function pointerToPath(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}

const join = (path: string, field: string) => (path ? `${path}.${field}` : field);

function describe(e: ErrorObject, all: ErrorObject[]): FieldError | undefined {
  const path = pointerToPath(e.instancePath);
  const p = e.params as Record<string, any>;
  switch (e.keyword) {
    case 'required':
      return { path: join(path, p.missingProperty), message: 'Required value' };
    case 'additionalProperties':
      return { path: join(path, p.additionalProperty), message: 'unknown field' };
    case 'enum':
      return { path, message: `must be one of ${(p.allowedValues as unknown[]).join(', ')}` };
    case 'type':
      return { path, message: `must be ${article(String(p.type))}` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { path, message: `must be ${p.comparison} ${p.limit}` };
    case 'minLength':
      return { path, message: p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters long` };
    case 'maxLength':
      return { path, message: `must be no more than ${p.limit} characters long` };
    case 'minItems':
      return { path, message: `must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}` };
    case 'maxItems':
      return { path, message: `must have at most ${p.limit} items` };
    case 'pattern':
      return { path, message: p.pattern.includes('[Tt]') ? 'must be an RFC 3339 date-time such as 2024-01-02T15:04:05Z' : `must match the pattern ${p.pattern}` };
    case 'anyOf':
      return { path, message: anyOfMessage(path, e, all) };
    default:
      return { path, message: e.message ?? `fails ${e.keyword}` };
  }
}

function anyOfMessage(path: string, e: ErrorObject, all: ErrorObject[]): string {
  if (path === 'metadata' || path.endsWith('.metadata')) return 'name or generateName is required';
  const branchErrors = all.filter((s) => s.schemaPath.startsWith(e.schemaPath + '/'));
  const types = branchErrors.filter((s) => s.keyword === 'type').map((s) => String((s.params as { type: string }).type));
  // int-or-string quantities: the integer branch fails on type, the string branch on type or pattern.
  if ((types.includes('integer') || types.includes('number')) && (types.includes('string') || branchErrors.some((s) => s.keyword === 'pattern'))) {
    return 'must be an integer or a quantity string such as 500m or 1Gi';
  }
  return 'must match one of the allowed forms';
}

function article(type: string): string {
  // A union type (int-or-string) comes as `integer,string`.
  if (type.includes(',')) return type.split(',').map(article).join(' or ');
  if (type === 'object') return 'an object';
  if (type === 'array') return 'a list';
  if (type === 'integer') return 'an integer';
  return `a ${type}`;
}

/** Turns ajv's errors into one line each, dropping the per-branch noise under a failed anyOf. */
export function formatAjvErrors(errors: ErrorObject[]): FieldError[] {
  const anyOfPaths = errors.filter((e) => e.keyword === 'anyOf').map((e) => e.schemaPath + '/');
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    if (e.keyword !== 'anyOf' && anyOfPaths.some((p) => e.schemaPath.startsWith(p))) continue;
    const fe = describe(e, errors);
    if (!fe) continue;
    const key = `${fe.path}\u0000${fe.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(fe);
  }
  return out;
}
