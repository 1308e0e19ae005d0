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
  let works: Obj[] = [];
  const idLabel = resource.namespaced ? ResourceBindingPermanentIDLabel : ClusterResourceBindingPermanentIDLabel;
  const id = binding?.metadata?.labels?.[idLabel];
  if (id) {
    const list = await host.get<{ items?: Obj[] }>('/apis/work.karmada.io/v1alpha1/works', { query: { labelSelector: `${idLabel}=${id}` } });
    works = (list.items ?? []).map((w) => ({ ...w, kind: 'Work' }));
  }
  const involved = [{ ...template, kind: resource.kind }, ...(binding ? [{ ...binding, kind: resource.namespaced ? 'ResourceBinding' : 'ClusterResourceBinding' }] : []), ...works];
  const eventLists = await Promise.all(
    involved
      .filter((o) => o.metadata?.uid)
      .map((o) => host.get<{ items?: Obj[] }>('/api/v1/events', { query: { fieldSelector: `involvedObject.uid=${o.metadata.uid}` } }).then((l) => l.items ?? [])),
  );
  return { resource, template: { ...template, kind: resource.kind }, binding, works, events: eventLists.flat() };
}

const eventTime = (e: Obj): string => e.lastTimestamp || e.eventTime || e.firstTimestamp || e.metadata?.creationTimestamp || '';

function labels(o: Obj): string {
  const l = Object.entries((o.metadata?.labels ?? {}) as Record<string, string>);
  return l.length ? l.map(([k, v]) => `${k}=${v}`).join('\n               ') : '<none>';
}

function policyOf(o: Obj): string {
  const a = (o.metadata?.annotations ?? {}) as Record<string, string>;
  if (a[PropagationPolicyNameAnnotation]) return `PropagationPolicy ${a[PropagationPolicyNamespaceAnnotation] ?? o.metadata?.namespace}/${a[PropagationPolicyNameAnnotation]}`;
  if (a[ClusterPropagationPolicyAnnotation]) return `ClusterPropagationPolicy ${a[ClusterPropagationPolicyAnnotation]}`;
  return '<none>';
}

const indent = (text: string, by: string) =>
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
    const spec = (b.spec ?? {}) as Obj;
    const kind = d.resource.namespaced ? 'ResourceBinding' : 'ClusterResourceBinding';
    out += `${'Binding:'.padEnd(15)}${kind} ${b.metadata?.namespace ? `${b.metadata.namespace}/` : ''}${b.metadata?.name}\n`;
    if (spec.replicas !== undefined) out += `${'Replicas:'.padEnd(15)}${spec.replicas}\n`;
    const aggregated = new Map<string, Obj>(((b.status?.aggregatedStatus ?? []) as Obj[]).map((s) => [String(s.clusterName), s]));
    const workOf = new Map<string, Obj>(d.works.map((w) => [clusterOfWork(w), w]));
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
  }
  if (b) {
    out += 'Works:\n';
    out += d.works.length
      ? indent(formatTable([['NAMESPACE', 'NAME', 'APPLIED', 'AGE'], ...d.works.map((w) => [String(w.metadata?.namespace), String(w.metadata?.name), conditionStatus(w, 'Applied'), ageOf(w.metadata?.creationTimestamp, now)])]), '  ')
      : '  <none>\n';
    const failing = d.works.flatMap((w) => ((w.status?.conditions ?? []) as Obj[]).filter((c) => c.type === 'Applied' && c.status !== 'True').map((c) => `  ${w.metadata?.namespace}/${w.metadata?.name}: ${c.reason ?? ''}${c.message ? `: ${c.message}` : ''}`));
    if (failing.length) out += failing.join('\n') + '\n';
  }
  const events = [...d.events].sort((x, y) => eventTime(x).localeCompare(eventTime(y)));
  out += 'Events:';
  if (events.length === 0) return out + '  <none>\n';
  const rows = events.map((e) => [
    String(e.type ?? ''),
    String(e.reason ?? ''),
    e.count > 1 ? `${ageOf(eventTime(e), now)} (x${e.count} over ${ageOf(e.firstTimestamp || eventTime(e), now)})` : ageOf(eventTime(e), now),
    String(e.source?.component ?? e.reportingComponent ?? ''),
    `${e.involvedObject?.kind ?? ''}/${e.involvedObject?.name ?? ''}`,
    String(e.message ?? '').trim(),
  ]);
  return out + '\n' + indent(formatTable([['TYPE', 'REASON', 'AGE', 'FROM', 'OBJECT', 'MESSAGE'], ...rows]), '  ');
}

function clusterOfWork(w: Obj): string {
  try {
    return getClusterName(String(w.metadata?.namespace ?? ''));
  } catch {
    return String(w.metadata?.namespace ?? '');
  }
}

function conditionsTable(conditions: Obj[], now: Date): string {
  if (conditions.length === 0) return '  <none>\n';
  const rows = conditions.map((c) => [String(c.type ?? ''), String(c.status ?? ''), String(c.reason ?? ''), ageOf(c.lastTransitionTime, now), String(c.message ?? '')]);
  return indent(formatTable([['TYPE', 'STATUS', 'REASON', 'AGE', 'MESSAGE'], ...rows]), '  ');
}
