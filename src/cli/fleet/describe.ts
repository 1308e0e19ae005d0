/**
 * `describe KIND NAME`: a resource template on the host with everything Karmada made of it, in one view:
 * the policy that claimed it, its (Cluster)ResourceBinding (placement, per-cluster applied state, health and
 * status, conditions), the Works in the execution namespaces, and the events of all of them. Reading
 * (`loadDescription`) is kept apart from printing (`renderDescription`, pure: objects and a clock).
 */
import {
  ClusterPropagationPolicyAnnotation,
  ClusterResourceBindingPermanentIDLabel,
  generateBindingName,
  getClusterName,
  PropagationPolicyNameAnnotation,
  PropagationPolicyNamespaceAnnotation,
  ResourceBindingPermanentIDLabel,
} from '../../api/constants.js';
import { stringify } from 'yaml';
import { formatTable } from '../output.js';
import { ageOf } from './age.js';
import { isNotFound, type FleetClient } from './client.js';
import { apiVersionOf, resourcePath, type ResourceInfo } from './discovery.js';

type Obj = Record<string, any>;

export interface Description {
  resource: ResourceInfo;
  template: Obj;
  binding?: Obj;
  works: Obj[];
  events: Obj[];
}

const BINDINGS = '/apis/work.karmada.io/v1alpha2';

/** Reads the template, its binding, Works and events from the host. The template missing is the server's NotFound. */
export async function loadDescription(host: FleetClient, resource: ResourceInfo, name: string, namespace: string): Promise<Description> {
  const template = await host.get<Obj>(resourcePath(resource, namespace, name));
  const bindingName = generateBindingName(resource.kind, name);
  const bindingPath = resource.namespaced
    ? `${BINDINGS}/namespaces/${encodeURIComponent(namespace)}/resourcebindings/${encodeURIComponent(bindingName)}`
    : `${BINDINGS}/clusterresourcebindings/${encodeURIComponent(bindingName)}`;
  const binding = await host.get<Obj>(bindingPath).catch((e: unknown) => {
    // No binding yet (no policy matches, or the detector has not run): the view says so.
    if (isNotFound(e)) return undefined;
    throw e;
  });
  const works = binding ? await worksOf(host, binding, resource.namespaced) : [];
  const involved = [{ ...template, kind: resource.kind }, ...(binding ? [{ ...binding, kind: resource.namespaced ? 'ResourceBinding' : 'ClusterResourceBinding' }] : []), ...works];
  return { resource, template: { ...template, kind: resource.kind }, binding, works, events: await eventsOf(host, involved) };
}

/** The Works of a ResourceBinding (`namespaced`) or ClusterResourceBinding, by its permanent-id label. */
export async function worksOf(host: FleetClient, binding: Obj, namespaced: boolean): Promise<Obj[]> {
  const idLabel = namespaced ? ResourceBindingPermanentIDLabel : ClusterResourceBindingPermanentIDLabel;
  const id = binding.metadata?.labels?.[idLabel];
  if (!id) return [];
  const list = await host.get<{ items?: Obj[] }>('/apis/work.karmada.io/v1alpha1/works', { query: { labelSelector: `${idLabel}=${id}` } });
  return (list.items ?? []).map((w) => ({ ...w, kind: 'Work' }));
}

/** The host's events of the objects, by their uids. */
export async function eventsOf(host: FleetClient, involved: readonly Obj[]): Promise<Obj[]> {
  const lists = await Promise.all(
    involved
      .filter((o) => o.metadata?.uid)
      .map((o) => host.get<{ items?: Obj[] }>('/api/v1/events', { query: { fieldSelector: `involvedObject.uid=${o.metadata.uid}` } }).then((l) => l.items ?? [])),
  );
  return lists.flat();
}

const eventTime = (e: Obj): string => e.lastTimestamp || e.eventTime || e.firstTimestamp || e.metadata?.creationTimestamp || '';

export function labels(o: Obj): string {
  const l = Object.entries((o.metadata?.labels ?? {}) as Record<string, string>);
  return l.length ? l.map(([k, v]) => `${k}=${v}`).join('\n               ') : '<none>';
}

function policyOf(o: Obj): string {
  const a = (o.metadata?.annotations ?? {}) as Record<string, string>;
  if (a[PropagationPolicyNameAnnotation]) return `PropagationPolicy ${a[PropagationPolicyNamespaceAnnotation] ?? o.metadata?.namespace}/${a[PropagationPolicyNameAnnotation]}`;
  if (a[ClusterPropagationPolicyAnnotation]) return `ClusterPropagationPolicy ${a[ClusterPropagationPolicyAnnotation]}`;
  return '<none>';
}

export const indent = (text: string, by: string) =>
  text
    .split('\n')
    .filter((l, i, all) => l || i < all.length - 1)
    .map((l) => (l ? by + l : l))
    .join('\n') + '\n';

const conditionStatus = (o: Obj, type: string) => (o.status?.conditions ?? []).find((c: Obj) => c.type === type)?.status ?? '<unknown>';

/** The view, as kubectl describe lays one out: `Field:  value` lines, sections with indented tables. */
export function renderDescription(d: Description, now: Date): string {
  const t = d.template;
  const lines: string[] = [];
  const field = (k: string, v: string) => lines.push(`${`${k}:`.padEnd(15)}${v}`);
  field('Name', String(t.metadata?.name ?? ''));
  if (d.resource.namespaced) field('Namespace', String(t.metadata?.namespace ?? ''));
  field('Kind', `${d.resource.kind} (${apiVersionOf(d.resource)})`);
  field('Labels', labels(t));
  field('Policy', policyOf(t));
  let out = lines.join('\n') + '\n';
  const b = d.binding;
  if (!b) {
    out += `Binding:       <none> (no PropagationPolicy or ClusterPropagationPolicy has claimed it yet)\n`;
  } else {
    const kind = d.resource.namespaced ? 'ResourceBinding' : 'ClusterResourceBinding';
    out += `${'Binding:'.padEnd(15)}${kind} ${b.metadata?.namespace ? `${b.metadata.namespace}/` : ''}${b.metadata?.name}\n`;
    out += bindingSections(b, d.works, now);
  }
  return out + eventsSection(d.events, now, true);
}

/** A binding's placement and per-cluster state, conditions and Works: the template's view and `describe rb` share it. */
export function bindingSections(b: Obj, works: readonly Obj[], now: Date): string {
  let out = '';
  const spec = (b.spec ?? {}) as Obj;
  if (spec.replicas !== undefined) out += `${'Replicas:'.padEnd(15)}${spec.replicas}\n`;
  const aggregated = new Map<string, Obj>(((b.status?.aggregatedStatus ?? []) as Obj[]).map((s) => [String(s.clusterName), s]));
  const workOf = new Map<string, Obj>(works.map((w) => [clusterOfWork(w), w]));
  const clusters = ((spec.clusters ?? []) as Obj[]).map((c) => String(c.name));
  for (const name of [...aggregated.keys(), ...workOf.keys()]) if (!clusters.includes(name)) clusters.push(name);
  const replicas = new Map<string, unknown>(((spec.clusters ?? []) as Obj[]).map((c) => [String(c.name), c.replicas]));
  out += 'Clusters:\n';
  if (clusters.length === 0) out += '  <none> (not scheduled yet)\n';
  else {
    const rows = clusters.map((c) => {
      const s = aggregated.get(c);
      const w = workOf.get(c);
      return [c, replicas.get(c) === undefined ? '-' : String(replicas.get(c)), s?.applied === undefined ? '<unknown>' : s.applied ? 'True' : 'False', s?.health ?? '<unknown>', w ? `${w.metadata?.namespace}/${w.metadata?.name}` : '<none>'];
    });
    out += indent(formatTable([['CLUSTER', 'REPLICAS', 'APPLIED', 'HEALTH', 'WORK'], ...rows]), '  ');
  }
  const problems = [...aggregated.values()].filter((s) => s.appliedMessage);
  for (const s of problems) out += `  ${s.clusterName}: ${s.appliedMessage}\n`;
  const withStatus = [...aggregated.values()].filter((s) => s.status && Object.keys(s.status).length);
  if (withStatus.length) {
    out += 'Status by cluster:\n';
    for (const s of withStatus) out += `  ${s.clusterName}:\n` + indent(stringify(s.status, { lineWidth: 0 }), '    ');
  }
  out += 'Conditions:\n' + conditionsTable((b.status?.conditions ?? []) as Obj[], now);
  out += 'Works:\n';
  out += works.length
    ? indent(formatTable([['NAMESPACE', 'NAME', 'APPLIED', 'AGE'], ...works.map((w) => [String(w.metadata?.namespace), String(w.metadata?.name), conditionStatus(w, 'Applied'), ageOf(w.metadata?.creationTimestamp, now)])]), '  ')
    : '  <none>\n';
  const failing = works.flatMap((w) => ((w.status?.conditions ?? []) as Obj[]).filter((c) => c.type === 'Applied' && c.status !== 'True').map((c) => `  ${w.metadata?.namespace}/${w.metadata?.name}: ${c.reason ?? ''}${c.message ? `: ${c.message}` : ''}`));
  if (failing.length) out += failing.join('\n') + '\n';
  return out;
}

/** `Events:` and its table, oldest first; `withObject` adds the OBJECT column (the view spans several objects). */
export function eventsSection(list: readonly Obj[], now: Date, withObject: boolean): string {
  const events = [...list].sort((x, y) => eventTime(x).localeCompare(eventTime(y)));
  if (events.length === 0) return 'Events:  <none>\n';
  const rows = events.map((e) => [
    String(e.type ?? ''),
    String(e.reason ?? ''),
    e.count > 1 ? `${ageOf(eventTime(e), now)} (x${e.count} over ${ageOf(e.firstTimestamp || eventTime(e), now)})` : ageOf(eventTime(e), now),
    String(e.source?.component ?? e.reportingComponent ?? ''),
    ...(withObject ? [`${e.involvedObject?.kind ?? ''}/${e.involvedObject?.name ?? ''}`] : []),
    String(e.message ?? '').trim(),
  ]);
  return 'Events:\n' + indent(formatTable([['TYPE', 'REASON', 'AGE', 'FROM', ...(withObject ? ['OBJECT'] : []), 'MESSAGE'], ...rows]), '  ');
}

// ---------------------------------------------------------------------------------------------------
// `describe -C MEMBER`: karmadactl's describe of a member's object (kubectl describe through the cluster proxy)

export interface MemberDescription {
  cluster: string;
  resource: ResourceInfo;
  object: Obj;
  events: Obj[];
}

/** The object and its events, read from the member through the host's cluster proxy (`member` is that client). */
export async function loadMemberDescription(member: FleetClient, cluster: string, resource: ResourceInfo, name: string, namespace: string): Promise<MemberDescription> {
  const object = await member.get<Obj>(resourcePath(resource, namespace, name));
  const uid = object.metadata?.uid as string | undefined;
  // kubectl asks in the object's namespace: a user allowed there may list nothing cluster-wide
  const eventsPath = resource.namespaced ? `/api/v1/namespaces/${encodeURIComponent(namespace)}/events` : '/api/v1/events';
  const events = uid ? ((await member.get<{ items?: Obj[] }>(eventsPath, { query: { fieldSelector: `involvedObject.uid=${uid}` } })).items ?? []) : [];
  return { cluster, resource, object: { ...object, kind: resource.kind, apiVersion: object.apiVersion ?? apiVersionOf(resource) }, events };
}

/** Words kubectl's describe writes in capitals when it turns a field name into a label. */
const ACRONYMS = new Map(['api', 'cpu', 'dns', 'http', 'https', 'id', 'ip', 'ips', 'json', 'tcp', 'tls', 'udp', 'uid', 'uri', 'url', 'sha'].map((w) => [w, w === 'ips' ? 'IPs' : w.toUpperCase()]));

/** `apiVersion` → `API Version`, `podIP` → `Pod IP`, as kubectl's generic describer labels fields. */
export function fieldLabel(key: string): string {
  return key
    .replace(/IPs(?![a-z])/g, 'Ips')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((w) => ACRONYMS.get(w.toLowerCase()) ?? w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
}

/** A value as kubectl's generic describer nests it: `Label:  scalar`, maps and lists indented below their label. */
export function genericLines(value: unknown, depth: number, out: string[]): void {
  const pad = '  '.repeat(depth);
  if (Array.isArray(value)) {
    for (const item of value) {
      if (item !== null && typeof item === 'object') {
        // elements one after the other, unmarked, as kubectl prints them
        genericLines(item, depth, out);
      } else out.push(`${pad}${String(item)}`);
    }
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const entries = Object.entries(value as Obj);
  const width = Math.max(0, ...entries.filter(([, v]) => v === null || typeof v !== 'object').map(([k]) => fieldLabel(k).length + 1));
  for (const [k, v] of entries) {
    const label = `${fieldLabel(k)}:`;
    if (v !== null && typeof v === 'object') {
      if (Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0) out.push(`${pad}${label.padEnd(width)}  <none>`);
      else {
        out.push(`${pad}${label}`);
        genericLines(v, depth + 1, out);
      }
    } else out.push(`${pad}${label.padEnd(width)}  ${v === null ? '<nil>' : String(v)}`);
  }
}

const keyValues = (m: Record<string, string> | undefined, sep: string): string => {
  const e = Object.entries(m ?? {});
  return e.length ? e.map(([k, v]) => `${k}${sep}${v}`).join('\n              ') : '<none>';
};

/**
 * kubectl's generic describe layout (the one it uses for every kind it has no describer of its own for):
 * name, namespace, labels and annotations first, then the object's fields as labelled, indented lines
 * (managedFields left out), then its events on the member. The member's name heads it.
 */
export function renderMemberDescription(d: MemberDescription, now: Date): string {
  const o = d.object;
  const md = (o.metadata ?? {}) as Obj;
  const lines = [`${'Cluster:'.padEnd(14)}${d.cluster}`, `${'Name:'.padEnd(14)}${md.name ?? ''}`];
  if (d.resource.namespaced) lines.push(`${'Namespace:'.padEnd(14)}${md.namespace ?? ''}`);
  lines.push(`${'Labels:'.padEnd(14)}${keyValues(md.labels, '=')}`, `${'Annotations:'.padEnd(14)}${keyValues(md.annotations, ': ')}`);
  const rest: Obj = { apiVersion: o.apiVersion, kind: o.kind };
  const meta: Obj = {};
  for (const [k, v] of Object.entries(md)) if (!['name', 'namespace', 'labels', 'annotations', 'managedFields'].includes(k)) meta[k] = v;
  if (Object.keys(meta).length) rest.metadata = meta;
  for (const [k, v] of Object.entries(o)) if (!['apiVersion', 'kind', 'metadata'].includes(k)) rest[k] = v;
  genericLines(rest, 0, lines);
  return lines.join('\n') + '\n' + eventsSection(d.events, now, false);
}

function clusterOfWork(w: Obj): string {
  try {
    return getClusterName(String(w.metadata?.namespace ?? ''));
  } catch {
    return String(w.metadata?.namespace ?? '');
  }
}

export function conditionsTable(conditions: Obj[], now: Date): string {
  if (conditions.length === 0) return '  <none>\n';
  const rows = conditions.map((c) => [String(c.type ?? ''), String(c.status ?? ''), String(c.reason ?? ''), ageOf(c.lastTransitionTime, now), String(c.message ?? '')]);
  return indent(formatTable([['TYPE', 'STATUS', 'REASON', 'AGE', 'MESSAGE'], ...rows]), '  ');
}
