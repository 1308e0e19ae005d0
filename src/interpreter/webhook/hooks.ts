/**
 * Which interpreter webhook answers an object's kind and operation (interpreter-webhook spec 3.1): every
 * hook of every ResourceInterpreterWebhookConfiguration, named `<configuration>/<hook>`; a rule matches
 * when the operation and the object's group, version and kind are listed exactly or as `*`; of the
 * matching hooks only the first by that name is called. Pure: built from the configurations, asked per call.
 */
import { INTERPRETER_CONTEXT_VERSIONS } from '../../validation/interpreter-webhook.js';
import type { GVK, Operation } from '../types.js';

/** A hook as the caller needs it. */
export interface WebhookHook {
  /** `<configuration name>/<hook name>`: the name in errors, events and metrics. */
  uid: string;
  configuration: string;
  name: string;
  /** The URL to POST to (from `clientConfig.url`, or the Service's DNS name). */
  url: string;
  /** Base64 PEM, as in the configuration. */
  caBundle?: string;
  /** As configured; undefined when unset (the caller applies its default). */
  timeoutSeconds?: number;
  /** The hook lists a context version karmada-lite speaks. */
  acceptsKnownVersion: boolean;
}

interface Rule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  kinds: string[];
}

interface Entry {
  hook: WebhookHook;
  rules: Rule[];
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const rec = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const listed = (value: string, items: string[]) => items.some((i) => i === '*' || i === value);

/** The request URL of a client config: the url as given, or the Service's in-cluster name (spec 4.1). */
export function clientConfigUrl(cc: Record<string, unknown> | undefined): string {
  if (!cc) return '';
  const svc = rec(cc.service);
  // The Service wins when both are set, as Karmada's type comment says (admission refuses both).
  if (svc) {
    const port = typeof svc.port === 'number' ? svc.port : 443;
    const path = typeof svc.path === 'string' ? svc.path : '';
    return `https://${String(svc.name ?? '')}.${String(svc.namespace ?? '')}.svc:${port}${path}`;
  }
  return typeof cc.url === 'string' ? cc.url : '';
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

export interface HookSelection {
  /** The hook that answers, or undefined when no webhook claims the kind and operation. */
  find(gvk: GVK, op: Operation): WebhookHook | undefined;
  /** Every hook, by uid. */
  readonly hooks: readonly WebhookHook[];
}

export function selectHooks(configurations: readonly unknown[]): HookSelection {
  const entries: Entry[] = [];
  for (const c of configurations) {
    const config = rec(c);
    const configName = String(rec(config?.metadata)?.name ?? '');
    for (const h of Array.isArray(config?.webhooks) ? config.webhooks : []) {
      const w = rec(h);
      if (!w) continue;
      const cc = rec(w.clientConfig);
      const name = String(w.name ?? '');
      const hook: WebhookHook = {
        uid: `${configName}/${name}`,
        configuration: configName,
        name,
        url: clientConfigUrl(cc),
        caBundle: typeof cc?.caBundle === 'string' && cc.caBundle !== '' ? cc.caBundle : undefined,
        timeoutSeconds: typeof w.timeoutSeconds === 'number' ? w.timeoutSeconds : undefined,
        acceptsKnownVersion: strings(w.interpreterContextVersions).some((v) => INTERPRETER_CONTEXT_VERSIONS.includes(v)),
      };
      const rules = (Array.isArray(w.rules) ? w.rules : []).map((r) => {
        const o = rec(r) ?? {};
        return { operations: strings(o.operations), apiGroups: strings(o.apiGroups), apiVersions: strings(o.apiVersions), kinds: strings(o.kinds) };
      });
      entries.push({ hook, rules });
    }
  }
  // Plain string order of the uids, as Go's sort of the relevant hooks (not localeCompare).
  entries.sort((a, b) => (a.hook.uid < b.hook.uid ? -1 : a.hook.uid > b.hook.uid ? 1 : 0));
  const cache = new Map<string, WebhookHook | null>();
  return {
    hooks: entries.map((e) => e.hook),
    find(gvk, op) {
      const key = `${gvk.apiVersion}\0${gvk.kind}\0${op}`;
      let hit = cache.get(key);
      if (hit === undefined) {
        const { group, version } = splitApiVersion(gvk.apiVersion);
        const e = entries.find((x) =>
          x.rules.some((r) => r.operations.some((o) => o === '*' || o === op) && listed(group, r.apiGroups) && listed(version, r.apiVersions) && listed(gvk.kind, r.kinds)),
        );
        hit = e?.hook ?? null;
        cache.set(key, hit);
      }
      return hit ?? undefined;
    },
  };
}
