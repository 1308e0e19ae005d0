/**
 * The taints of a Cluster as `karmadactl taint`, `cordon` and `uncordon` change them, pure: kubectl's taint
 * specs (`key=value:Effect`, `key:Effect`, `key:Effect-`, `key-`), the new list with karmadactl's verb
 * (tainted, untainted, modified), and cordon as the taint `cluster.karmada.io/unschedulable:NoSchedule`.
 */
import { TaintClusterUnscheduler, TaintEffectNoExecute, TaintEffectNoSchedule } from '../api/constants.js';
import type { Cluster } from '../api/generated/types.js';
import { labelValueErrors, qualifiedNameErrors } from '../validation/labels.js';

export type Taint = NonNullable<Cluster['spec']['taints']>[number];
/** A taint to remove: no effect removes every taint of the key. */
export type TaintRef = { key: string; effect?: Taint['effect'] };

/** kubectl's Taint.ToString: `key=value:Effect`, `key:Effect`, `key`. */
export function taintString(t: { key: string; value?: string; effect?: string }): string {
  if (!t.effect) return t.value ? `${t.key}=${t.value}:` : t.key;
  return t.value ? `${t.key}=${t.value}:${t.effect}` : `${t.key}:${t.effect}`;
}

const matches = (a: TaintRef, b: TaintRef) => a.key === b.key && a.effect === b.effect;

/**
 * karmadactl's split of `taint clusters NAME... SPEC...`: words with `=`, `:` or a trailing `-` are taint
 * specs, the rest names, and every name must come before the first spec.
 */
export function splitTaintArgs(args: readonly string[]): { resources: string[]; specs: string[] } {
  const resources: string[] = [];
  const specs: string[] = [];
  for (const s of args) {
    const isSpec = s.includes('=') || s.includes(':') || s.endsWith('-');
    if (isSpec) specs.push(s);
    else if (specs.length) throw new Error(`all resources must be specified before taint changes: ${s}`);
    else resources.push(s);
  }
  return { resources, specs };
}

function parseOne(spec: string): { key: string; value?: string; effect?: Taint['effect'] } {
  const parts = spec.split(':');
  let key: string;
  let value: string | undefined;
  let effect: Taint['effect'] | undefined;
  if (parts.length === 1) key = parts[0]!;
  else if (parts.length === 2) {
    const e = parts[1]!;
    // The Cluster API takes only these two (Karmada's ValidateClusterTaints); kubectl's PreferNoSchedule is refused here rather than by the server.
    if (e !== TaintEffectNoSchedule && e !== TaintEffectNoExecute) {
      throw new Error(`invalid taint effect: ${e}, unsupported taint effect: a Cluster takes ${TaintEffectNoSchedule} or ${TaintEffectNoExecute}`);
    }
    effect = e;
    const kv = parts[0]!.split('=');
    if (kv.length > 2) throw new Error(`invalid taint spec: ${spec}`);
    key = kv[0]!;
    if (kv.length === 2) {
      value = kv[1]!;
      const errs = labelValueErrors(value);
      if (errs.length) throw new Error(`invalid taint spec: ${spec}, ${errs.join('; ')}`);
    }
  } else throw new Error(`invalid taint spec: ${spec}`);
  const errs = qualifiedNameErrors(key);
  if (errs.length) throw new Error(`invalid taint spec: ${spec}, ${errs.join('; ')}`);
  return { key, ...(value !== undefined ? { value } : {}), ...(effect ? { effect } : {}) };
}

export interface TaintChanges {
  add: Taint[];
  remove: TaintRef[];
}

/** kubectl's ParseTaints and karmadactl's check that no taint is both added and removed. Throws a usage error's text. */
export function parseTaints(specs: readonly string[]): TaintChanges {
  const add: Taint[] = [];
  const remove: TaintRef[] = [];
  for (const spec of specs) {
    if (spec.endsWith('-')) {
      const t = parseOne(spec.slice(0, -1));
      remove.push({ key: t.key, ...(t.effect ? { effect: t.effect } : {}) });
      continue;
    }
    const t = parseOne(spec);
    if (!t.effect) throw new Error(`invalid taint spec: ${spec}`);
    if (add.some((a) => matches(a, t))) throw new Error(`duplicated taints with the same key and effect: ${taintString(t)}`);
    add.push({ key: t.key, effect: t.effect, ...(t.value ? { value: t.value } : {}) });
  }
  const conflicts = add.flatMap((a) => remove.filter((r) => r.key === a.key && (!r.effect || r.effect === a.effect)).map((r) => `{"${r.key}":"${r.effect ?? ''}"}`));
  if (conflicts.length) throw new Error(`can not both modify and remove the following taint(s) in the same command: ${conflicts.join(', ')}`);
  return { add, remove };
}

export type TaintVerb = 'tainted' | 'untainted' | 'modified';

/**
 * The Cluster's taints after the changes, and karmadactl's word for what happened. The taints added come
 * first, then the old ones they do not replace; a taint to remove that the Cluster lacks, or (without
 * overwrite) one to add that it already has by key and effect, is an error and nothing changes.
 */
export function updateTaints(cluster: string, current: readonly Taint[], changes: TaintChanges, overwrite: boolean): { taints: Taint[]; verb: TaintVerb } {
  if (!overwrite) {
    const existing = changes.add.filter((a) => current.some((c) => matches(a, c))).map((a) => a.key);
    if (existing.length) throw new Error(`cluster ${cluster} already has ${existing.join(',')} taint(s) with same effect(s) and --overwrite is false`);
  }
  let taints: Taint[] = [...changes.add.map((t) => ({ ...t })), ...current.filter((c) => !changes.add.some((a) => matches(a, c)))];
  const added = taints.length !== current.length;
  const missing: string[] = [];
  let removed = false;
  for (const r of changes.remove) {
    const left = taints.filter((t) => (r.effect ? !matches(t, r) : t.key !== r.key));
    removed = left.length !== taints.length;
    if (!removed) missing.push(`taint "${taintString(r)}" not found`);
    taints = left;
  }
  if (missing.length) throw new Error(missing.length === 1 ? missing[0] : `[${missing.join(', ')}]`);
  const verb: TaintVerb = (added && removed) || overwrite ? 'modified' : added ? 'tainted' : 'untainted';
  return { taints, verb };
}

/** The taint cordon adds and uncordon removes. */
export const UnschedulableTaint: Taint = { key: TaintClusterUnscheduler, effect: TaintEffectNoSchedule };

/**
 * Cordon or uncordon: the new taints, or undefined when the Cluster already is as asked (karmadactl's
 * "already cordoned"). Other taints keep their order.
 */
export function cordonTaints(current: readonly Taint[], cordon: boolean): Taint[] | undefined {
  const has = current.some((t) => matches(t, UnschedulableTaint));
  if (has === cordon) return undefined;
  return cordon ? [...current, { ...UnschedulableTaint }] : current.filter((t) => !matches(t, UnschedulableTaint));
}
