/**
 * `describe` of Karmada's own objects (every `*.karmada.io` kind): each as itself, not as a template to
 * propagate. A Cluster with its sync mode, endpoint, taints, conditions, nodes, resource summary and API
 * enablements; a (Cluster)ResourceBinding with the resource it binds, its placement, per-cluster state and
 * Works; a (Cluster)PropagationPolicy and (Cluster)OverridePolicy with their selectors, their placement or
 * rules, and for a propagation policy the bindings it claimed; a ResourceInterpreterCustomization with its
 * target and operations; any other kind in kubectl's generic layout. Then the object's events on the host.
 * Reading (`loadKarmadaDescription`) apart from printing (`renderKarmadaDescription`, pure).
 */
import {
  ClusterPropagationPolicyPermanentIDLabel,
  PropagationPolicyPermanentIDLabel,
} from '../../api/constants.js';
import { formatTable } from '../output.js';
import type { FleetClient } from './client.js';
import { bindingSections, conditionsTable, eventsOf, eventsSection, genericLines, indent, labels, worksOf } from './describe.js';
import { apiVersionOf, resourcePath, type ResourceInfo } from './discovery.js';

type Obj = Record<string, any>;

export interface KarmadaDescription {
  resource: ResourceInfo;
  object: Obj;
  /** A binding's Works; a propagation policy's bindings. */
  related: Obj[];
  events: Obj[];
}

const BINDINGS = '/apis/work.karmada.io/v1alpha2';

export async function loadKarmadaDescription(host: FleetClient, resource: ResourceInfo, name: string, namespace: string): Promise<KarmadaDescription> {
  const object = { ...(await host.get<Obj>(resourcePath(resource, namespace, name))), kind: resource.kind };
  let related: Obj[] = [];
  if (resource.kind === 'ResourceBinding' || resource.kind === 'ClusterResourceBinding') related = await worksOf(host, object, resource.kind === 'ResourceBinding');
  else if (resource.kind === 'PropagationPolicy' || resource.kind === 'ClusterPropagationPolicy') related = await claimedBindings(host, object, resource.kind === 'PropagationPolicy');
  return { resource, object, related, events: await eventsOf(host, [object]) };
}

/** The bindings a policy claimed: they carry its permanent id in the label of its kind. */
async function claimedBindings(host: FleetClient, policy: Obj, namespaced: boolean): Promise<Obj[]> {
  const label = namespaced ? PropagationPolicyPermanentIDLabel : ClusterPropagationPolicyPermanentIDLabel;
  const id = policy.metadata?.labels?.[label];
  if (!id) return [];
  const query = { labelSelector: `${label}=${id}` };
  const rbPath = namespaced ? `${BINDINGS}/namespaces/${encodeURIComponent(String(policy.metadata?.namespace ?? ''))}/resourcebindings` : `${BINDINGS}/resourcebindings`;
  const lists = await Promise.all([
    host.get<{ items?: Obj[] }>(rbPath, { query }).then((l) => (l.items ?? []).map((b) => ({ ...b, kind: 'ResourceBinding' }))),
    namespaced ? Promise.resolve([]) : host.get<{ items?: Obj[] }>(`${BINDINGS}/clusterresourcebindings`, { query }).then((l) => (l.items ?? []).map((b) => ({ ...b, kind: 'ClusterResourceBinding' }))),
  ]);
  return lists.flat();
}

const field = (k: string, v: unknown) => `${`${k}:`.padEnd(15)}${v === undefined || v === null || v === '' ? '<none>' : String(v)}\n`;

/** A section of kubectl's generic describe: `Label:` then the value's fields indented below it. */
function generic(label: string, value: unknown): string {
  if (value === undefined || value === null || (typeof value === 'object' && Object.keys(value).length === 0)) return field(label, undefined);
  if (typeof value !== 'object') return field(label, value);
  const lines: string[] = [];
  genericLines(value, 1, lines);
  return `${label}:\n${lines.join('\n')}\n`;
}

const table = (header: string[], rows: string[][], empty = '<none>') => (rows.length ? indent(formatTable([header, ...rows]), '  ') : `  ${empty}\n`);

function selectorText(sel: Obj | undefined): string {
  if (!sel) return '';
  const parts = Object.entries((sel.matchLabels ?? {}) as Record<string, string>).map(([k, v]) => `${k}=${v}`);
  for (const e of (sel.matchExpressions ?? []) as Obj[]) parts.push(`${e.key} ${String(e.operator).toLowerCase()} (${((e.values ?? []) as string[]).join(',')})`);
  return parts.join(',');
}

function resourceSelectors(spec: Obj): string {
  const rows = ((spec.resourceSelectors ?? []) as Obj[]).map((r) => [String(r.apiVersion ?? ''), String(r.kind ?? ''), r.namespace || '*', r.name || '*', selectorText(r.labelSelector) || '<none>']);
  return 'Resource Selectors:\n' + table(['API VERSION', 'KIND', 'NAMESPACE', 'NAME', 'LABEL SELECTOR'], rows, '<none> (selects every resource)');
}

function cluster(o: Obj, now: Date): string {
  const spec = (o.spec ?? {}) as Obj;
  const status = (o.status ?? {}) as Obj;
  let out = field('Sync Mode', spec.syncMode);
  out += field('API Endpoint', spec.apiEndpoint);
  if (spec.proxyURL) out += field('Proxy URL', spec.proxyURL);
  if (spec.provider || spec.region || spec.zone || spec.zones?.length) out += field('Location', [spec.provider, spec.region, spec.zone ?? (spec.zones ?? []).join(',')].filter(Boolean).join(' / '));
  out += field('Kubernetes', status.kubernetesVersion);
  out += 'Taints:\n' + table(['KEY', 'VALUE', 'EFFECT', 'ADDED'], ((spec.taints ?? []) as Obj[]).map((t) => [String(t.key ?? ''), String(t.value ?? ''), String(t.effect ?? ''), t.timeAdded ? String(t.timeAdded) : '-']));
  out += 'Conditions:\n' + conditionsTable((status.conditions ?? []) as Obj[], now);
  const nodes = status.nodeSummary as Obj | undefined;
  out += field('Nodes', nodes ? `${nodes.readyNum ?? 0} ready of ${nodes.totalNum ?? 0}` : undefined);
  const summary = (status.resourceSummary ?? {}) as Obj;
  const names = [...new Set([summary.allocatable, summary.allocated, summary.allocating].flatMap((m) => Object.keys((m ?? {}) as Obj)))].sort();
  out += 'Resource Summary:\n' + table(['RESOURCE', 'ALLOCATABLE', 'ALLOCATED', 'ALLOCATING'], names.map((n) => [n, String(summary.allocatable?.[n] ?? '-'), String(summary.allocated?.[n] ?? '-'), String(summary.allocating?.[n] ?? '-')]));
  const enablements = (status.apiEnablements ?? []) as Obj[];
  out += 'API Enablements:\n' + (enablements.length ? enablements.map((e) => `  ${e.groupVersion}: ${((e.resources ?? []) as Obj[]).map((r) => r.kind).join(', ')}\n`).join('') : '  <none>\n');
  return out;
}

function binding(o: Obj, works: Obj[], now: Date): string {
  const r = (o.spec?.resource ?? {}) as Obj;
  return field('Resource', `${r.kind ?? ''} ${r.namespace ? `${r.namespace}/` : ''}${r.name ?? ''} (${r.apiVersion ?? ''})`) + bindingSections(o, works, now);
}

function propagationPolicy(o: Obj, bindings: Obj[]): string {
  const spec = (o.spec ?? {}) as Obj;
  let out = field('Priority', spec.priority ?? 0) + field('Preemption', spec.preemption ?? 'Never') + field('Conflict', spec.conflictResolution ?? 'Abort');
  if (spec.suspension) out += generic('Suspension', spec.suspension);
  out += resourceSelectors(spec) + generic('Placement', spec.placement);
  if (spec.failover) out += generic('Failover', spec.failover);
  out += 'Claimed Bindings:\n' + table(['KIND', 'NAMESPACE', 'NAME', 'RESOURCE'], bindings.map((b) => [String(b.kind), String(b.metadata?.namespace ?? '-'), String(b.metadata?.name ?? ''), `${b.spec?.resource?.kind ?? ''}/${b.spec?.resource?.name ?? ''}`]));
  return out;
}

function overridePolicy(o: Obj): string {
  const spec = (o.spec ?? {}) as Obj;
  let out = resourceSelectors(spec);
  const rules = (spec.overrideRules ?? []) as Obj[];
  out += 'Override Rules:\n';
  if (!rules.length && (spec.targetCluster || spec.overriders)) out += indent(generic('Target Cluster', spec.targetCluster) + generic('Overriders', spec.overriders), '  ');
  else if (!rules.length) out += '  <none>\n';
  rules.forEach((r, i) => {
    const kinds = Object.entries((r.overriders ?? {}) as Obj).map(([k, v]) => `${k} (${Array.isArray(v) ? v.length : 1})`);
    out += `  ${i + 1}. clusters: ${targetText(r.targetCluster)}; overriders: ${kinds.join(', ') || '<none>'}\n`;
  });
  return out;
}

function targetText(t: Obj | undefined): string {
  if (!t || !Object.keys(t).length) return 'every cluster';
  const parts = [];
  if (t.clusterNames?.length) parts.push(`names ${t.clusterNames.join(',')}`);
  if (t.labelSelector) parts.push(`labels ${selectorText(t.labelSelector)}`);
  if (t.fieldSelector) parts.push('a field selector');
  if (t.exclude?.length) parts.push(`except ${t.exclude.join(',')}`);
  return parts.join(', ') || 'every cluster';
}

function interpreterCustomization(o: Obj, now: Date): string {
  const spec = (o.spec ?? {}) as Obj;
  const target = (spec.target ?? {}) as Obj;
  let out = field('Target', `${target.kind ?? ''} (${target.apiVersion ?? ''})`);
  out += field('Operations', Object.keys((spec.customizations ?? {}) as Obj).sort().join(', '));
  out += 'Conditions:\n' + conditionsTable((o.status?.conditions ?? []) as Obj[], now);
  return out;
}

export function renderKarmadaDescription(d: KarmadaDescription, now: Date): string {
  const o = d.object;
  let out = field('Name', o.metadata?.name);
  if (d.resource.namespaced) out += field('Namespace', o.metadata?.namespace);
  out += field('Kind', `${d.resource.kind} (${apiVersionOf(d.resource)})`);
  out += field('Labels', labels(o));
  switch (d.resource.kind) {
    case 'Cluster':
      out += cluster(o, now);
      break;
    case 'ResourceBinding':
    case 'ClusterResourceBinding':
      out += binding(o, d.related, now);
      break;
    case 'PropagationPolicy':
    case 'ClusterPropagationPolicy':
      out += propagationPolicy(o, d.related);
      break;
    case 'OverridePolicy':
    case 'ClusterOverridePolicy':
      out += overridePolicy(o);
      break;
    case 'ResourceInterpreterCustomization':
      out += interpreterCustomization(o, now);
      break;
    default:
      out += generic('Spec', o.spec) + generic('Status', o.status);
  }
  return out + eventsSection(d.events, now, false);
}
