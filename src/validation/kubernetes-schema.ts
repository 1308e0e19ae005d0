/**
 * Built-in Kubernetes kinds checked offline against the API schemas of a Kubernetes version, as kubeconform
 * -strict checks them: unknown fields, wrong types, missing required fields. The validators are compiled
 * ahead of time from the pinned kube-apiserver's OpenAPI (scripts/generate-kubernetes.ts), so no network.
 */
import type { ValidateFunction } from 'ajv';
import { KUBERNETES_SCHEMAS } from '../api/generated/kubernetes-versions.js';
import { formatAjvErrors, type FieldError } from './schema.js';

/** The versions shipped, newest first; the first is the one the integration tests run. */
export const KUBERNETES_VERSIONS: readonly string[] = Object.keys(KUBERNETES_SCHEMAS).sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
export const DEFAULT_KUBERNETES_VERSION = KUBERNETES_VERSIONS[0]!;

/**
 * `--kubernetes-version`: `1.34.4` (kubeconform's spelling) or `v1.34.4`, or a minor version `1.34` for the
 * newest patch shipped of it. Throws naming the versions shipped when there is none.
 */
export function resolveKubernetesVersion(flag: string | undefined): string {
  if (flag === undefined) return DEFAULT_KUBERNETES_VERSION;
  const v = flag.startsWith('v') ? flag : `v${flag}`;
  const found = KUBERNETES_VERSIONS.find((s) => s === v || s.startsWith(`${v}.`));
  if (!found) throw new Error(`--kubernetes-version: no schemas for ${flag}; this build ships ${KUBERNETES_VERSIONS.join(', ')}`);
  return found;
}

const loaded = new Map<string, Readonly<Record<string, ValidateFunction>>>();

/** The validators of a version, made on first use (most commands never check a built-in kind). */
function validatorsOf(version: string): Readonly<Record<string, ValidateFunction>> | undefined {
  const load = KUBERNETES_SCHEMAS[version];
  if (!load) return undefined;
  let v = loaded.get(version);
  if (!v) loaded.set(version, (v = load()));
  return v;
}

/** A JSON null means "not set" to the apiserver's decoder (`creationTimestamp: null` in kubectl's output). */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = dropNulls(x);
  return out;
}

/**
 * Schema errors of a built-in kind, or undefined when the version has no schema for it (a custom resource,
 * or a kind this table does not list).
 */
export function validateKubernetesObject(obj: Record<string, unknown>, version: string = DEFAULT_KUBERNETES_VERSION): FieldError[] | undefined {
  const validate = validatorsOf(version)?.[`${String(obj.apiVersion)}/${String(obj.kind)}`];
  if (!validate) return undefined;
  if (validate(dropNulls(obj))) return [];
  return formatAjvErrors(validate.errors ?? []);
}
