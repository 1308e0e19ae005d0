/**
 * The override manager (spec §3.1): ClusterOverridePolicies, then (namespaced manifests only) the
 * OverridePolicies of the manifest's namespace, each sorted so the most specific policy applies last;
 * within a rule the overriders run image, command, args, labels, annotations, field, plaintext.
 */
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { COP, OP, type Override } from './kinds.js';
import { errorMessage } from '../json/error.js';
import { isObject } from '../json/value.js';
import { applyPatch, escapePointerToken, getPointer, type PatchOp } from '../json/jsonpatch.js';
import type { KObject } from './object.js';
import type { ObjectReader } from './ports.js';
import { clusterMatches, implicitPriority, PriorityMatchAll, type ClusterAffinity, type ClusterView } from './selectors.js';

export interface Overriders {
  plaintext?: Array<{ path: string; operator: 'add' | 'remove' | 'replace'; value?: unknown }>;
  imageOverrider?: Array<{ predicate?: { path: string }; component: 'Registry' | 'Repository' | 'Tag'; operator: 'add' | 'remove' | 'replace'; value?: string }>;
  commandOverrider?: Array<{ containerName: string; operator: 'add' | 'remove'; value?: string[] }>;
  argsOverrider?: Array<{ containerName: string; operator: 'add' | 'remove'; value?: string[] }>;
  labelsOverrider?: Array<{ operator: 'add' | 'remove' | 'replace'; value?: Record<string, string> }>;
  annotationsOverrider?: Array<{ operator: 'add' | 'remove' | 'replace'; value?: Record<string, string> }>;
  fieldOverrider?: Array<{
    fieldPath: string;
    json?: Array<{ subPath: string; operator: 'add' | 'remove' | 'replace'; value?: unknown }>;
    yaml?: Array<{ subPath: string; operator: 'add' | 'remove' | 'replace'; value?: unknown }>;
  }>;
}

export interface OverrideRule {
  targetCluster?: ClusterAffinity | null;
  overriders: Overriders;
}

/** One entry of the applied-overrides annotations. */
export interface AppliedOverrideItem {
  policyName: string;
  overriders: Overriders;
}

export interface OverrideOutcome {
  manifest: KObject;
  clusterOverrides: AppliedOverrideItem[];
  namespacedOverrides: AppliedOverrideItem[];
}

/** Applies every matching override policy to a copy of manifest for one cluster; throws on failure. */
export function applyOverridePolicies(reader: ObjectReader, manifest: KObject, cluster: ClusterView): OverrideOutcome {
  let m = manifest;
  const clusterOverrides: AppliedOverrideItem[] = [];
  const namespacedOverrides: AppliedOverrideItem[] = [];
  for (const p of sortPolicies(manifest, reader.list(COP))) {
    m = applyPolicy(m, p, cluster, clusterOverrides);
  }
  if (manifest.metadata.namespace) {
    for (const p of sortPolicies(manifest, reader.list(OP, { namespace: manifest.metadata.namespace }))) {
      m = applyPolicy(m, p, cluster, namespacedOverrides);
    }
  }
  const byName = (a: AppliedOverrideItem, b: AppliedOverrideItem) => (a.policyName < b.policyName ? -1 : a.policyName > b.policyName ? 1 : 0);
  clusterOverrides.sort(byName);
  namespacedOverrides.sort(byName);
  return { manifest: m, clusterOverrides, namespacedOverrides };
}

/** Matching policies, least specific first (implicit priority, then name), so the most specific wins. */
function sortPolicies(manifest: KObject, policies: readonly Override[]): Override[] {
  const scored: Array<{ p: Override; prio: number }> = [];
  for (const p of policies) {
    if (p.metadata.deletionTimestamp) continue;
    const sels = p.spec?.resourceSelectors ?? [];
    const prio = sels.length === 0 ? PriorityMatchAll : implicitPriority(manifest, sels);
    if (prio > 0) scored.push({ p, prio });
  }
  scored.sort((a, b) => a.prio - b.prio || (a.p.metadata.name! < b.p.metadata.name! ? -1 : a.p.metadata.name! > b.p.metadata.name! ? 1 : 0));
  return scored.map((s) => s.p);
}

export function rulesOf(policy: Override): OverrideRule[] {
  const spec = policy.spec ?? {};
  if (Array.isArray(spec.overrideRules)) return spec.overrideRules;
  if (spec.overriders) return [{ targetCluster: spec.targetCluster, overriders: spec.overriders }];
  return [];
}

function applyPolicy(manifest: KObject, policy: Override, cluster: ClusterView, applied: AppliedOverrideItem[]): KObject {
  let m = manifest;
  const name = policy.metadata.name!;
  for (const rule of rulesOf(policy)) {
    if (rule.targetCluster && !clusterMatches(cluster, rule.targetCluster)) continue;
    try {
      m = applyOverriders(m, rule.overriders ?? {});
    } catch (e) {
      const which = policy.metadata.namespace ? `OverridePolicy ${policy.metadata.namespace}/${name}` : `ClusterOverridePolicy ${name}`;
      throw new Error(`failed to apply ${which} to cluster ${cluster.metadata.name}: ${errorMessage(e)}`);
    }
    applied.push({ policyName: name, overriders: rule.overriders ?? {} });
  }
  return m;
}

/** The overriders of one rule, in Karmada's order. */
export function applyOverriders(manifest: KObject, o: Overriders): KObject {
  let m = manifest;
  const patch = (ops: PatchOp[]) => {
    if (ops.length) m = applyPatch(m, ops);
  };
  for (const io of o.imageOverrider ?? []) patch(imagePatches(m, io));
  for (const co of o.commandOverrider ?? []) patch(commandArgsPatches(m, co, 'command'));
  for (const ao of o.argsOverrider ?? []) patch(commandArgsPatches(m, ao, 'args'));
  for (const lo of o.labelsOverrider ?? []) patch(mapPatches(m, lo, 'labels'));
  for (const ao of o.annotationsOverrider ?? []) patch(mapPatches(m, ao, 'annotations'));
  for (const fo of o.fieldOverrider ?? []) m = applyFieldOverrider(m, fo);
  patch((o.plaintext ?? []).map((p) => ({ op: p.operator, path: p.path, value: p.value })));
  return m;
}

// ---------------------------------------------------------------------------------------------
// imageOverrider

/** Where the pod spec sits in each kind the image and command overriders understand. */
function podSpecPath(kind: string): string | undefined {
  switch (kind) {
    case 'Pod':
      return '/spec';
    case 'ReplicaSet':
    case 'Deployment':
    case 'DaemonSet':
    case 'StatefulSet':
    case 'Job':
      return '/spec/template/spec';
    default:
      return undefined;
  }
}

function imagePatches(m: KObject, io: NonNullable<Overriders['imageOverrider']>[number]): PatchOp[] {
  const paths: string[] = [];
  if (io.predicate?.path) {
    paths.push(io.predicate.path);
  } else {
    const base = podSpecPath(m.kind);
    if (!base) return [];
    const spec = getPointer(m, base).value;
    for (const field of ['containers', 'initContainers']) {
      const list = isObject(spec) ? spec[field] : undefined;
      if (Array.isArray(list)) list.forEach((_, i) => paths.push(`${base}/${field}/${i}/image`));
    }
  }
  const ops: PatchOp[] = [];
  for (const p of paths) {
    const cur = getPointer(m, p);
    if (!cur.found || typeof cur.value !== 'string') continue;
    ops.push({ op: 'replace', path: p, value: overrideImage(cur.value, io.component, io.operator, io.value ?? '') });
  }
  return ops;
}

interface ImageRef {
  hostname: string;
  repository: string;
  tag: string;
  digest: string;
}

export function parseImage(image: string): ImageRef {
  let rest = image;
  let digest = '';
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let hostname = '';
  const slash = rest.indexOf('/');
  if (slash >= 0) {
    const first = rest.slice(0, slash);
    if (first.includes('.') || first.includes(':') || first === 'localhost') {
      hostname = first;
      rest = rest.slice(slash + 1);
    }
  }
  let tag = '';
  const colon = rest.lastIndexOf(':');
  if (colon >= 0 && colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  return { hostname, repository: rest, tag, digest };
}

export function formatImage(r: ImageRef): string {
  let s = r.hostname ? `${r.hostname}/${r.repository}` : r.repository;
  if (r.tag) s += `:${r.tag}`;
  else if (r.digest) s += `@${r.digest}`;
  return s;
}

export function overrideImage(image: string, component: string, operator: string, value: string): string {
  const r = parseImage(image);
  switch (component) {
    case 'Registry':
      r.hostname = operator === 'add' ? r.hostname + value : operator === 'replace' ? value : '';
      break;
    case 'Repository':
      r.repository = operator === 'add' ? r.repository + value : operator === 'replace' ? value : '';
      break;
    case 'Tag':
      if (operator === 'remove') {
        r.tag = '';
        r.digest = '';
      } else if (/^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[0-9a-fA-F]{32,}$/.test(value)) {
        r.digest = value;
        r.tag = '';
      } else {
        r.tag = value;
        r.digest = '';
      }
      break;
    default:
      throw new Error(`unknown image component ${component}: use Registry, Repository or Tag`);
  }
  return formatImage(r);
}

// ---------------------------------------------------------------------------------------------
// commandOverrider / argsOverrider

function commandArgsPatches(m: KObject, o: { containerName: string; operator: 'add' | 'remove'; value?: string[] }, field: 'command' | 'args'): PatchOp[] {
  const base = podSpecPath(m.kind);
  if (!base) return [];
  const containers = getPointer(m, `${base}/containers`).value;
  if (!Array.isArray(containers)) return [];
  const ops: PatchOp[] = [];
  containers.forEach((c: Record<string, unknown>, i) => {
    if (c?.name !== o.containerName) return;
    const path = `${base}/containers/${i}/${field}`;
    const held = c[field];
    const cur: string[] | undefined = Array.isArray(held) ? held : undefined;
    const value = o.value ?? [];
    if (o.operator === 'add') {
      ops.push(cur ? { op: 'replace', path, value: [...cur, ...value] } : { op: 'add', path, value: [...value] });
    } else if (cur) {
      ops.push({ op: 'replace', path, value: cur.filter((x) => !value.includes(x)) });
    }
  });
  return ops;
}

// ---------------------------------------------------------------------------------------------
// labelsOverrider / annotationsOverrider

function mapPatches(m: KObject, o: { operator: 'add' | 'remove' | 'replace'; value?: Record<string, string> }, field: 'labels' | 'annotations'): PatchOp[] {
  const cur = m.metadata?.[field] ?? undefined;
  const ops: PatchOp[] = [];
  let exists = cur !== undefined;
  for (const [k, v] of Object.entries(o.value ?? {})) {
    const path = `/metadata/${field}/${escapePointerToken(k)}`;
    if (o.operator === 'add') {
      if (!exists) {
        ops.push({ op: 'add', path: `/metadata/${field}`, value: {} });
        exists = true;
      }
      ops.push({ op: 'add', path, value: v });
    } else if (cur && Object.prototype.hasOwnProperty.call(cur, k)) {
      ops.push(o.operator === 'remove' ? { op: 'remove', path } : { op: 'replace', path, value: v });
    }
  }
  return ops;
}

// ---------------------------------------------------------------------------------------------
// fieldOverrider

function applyFieldOverrider(m: KObject, fo: NonNullable<Overriders['fieldOverrider']>[number]): KObject {
  const cur = getPointer(m, fo.fieldPath);
  if (!cur.found) throw new Error(`fieldOverrider: ${fo.fieldPath} not found in ${m.kind} ${m.metadata.name}`);
  if (typeof cur.value !== 'string') throw new Error(`fieldOverrider: ${fo.fieldPath} is not a string holding JSON or YAML`);
  const isJson = (fo.json?.length ?? 0) > 0;
  const ops = (isJson ? fo.json! : fo.yaml ?? []).map((x) => ({ op: x.operator, path: x.subPath, value: x.value }));
  let doc: unknown;
  try {
    doc = isJson ? JSON.parse(cur.value) : parseYaml(cur.value);
  } catch (e) {
    throw new Error(`fieldOverrider: ${fo.fieldPath} does not hold valid ${isJson ? 'JSON' : 'YAML'}: ${errorMessage(e)}`);
  }
  const patched = applyPatch(doc, ops);
  const text = isJson ? JSON.stringify(patched) : stringifyYaml(patched);
  return applyPatch(m, [{ op: 'replace', path: fo.fieldPath, value: text }]);
}
