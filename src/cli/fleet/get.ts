/**
 * `get` across the fleet as karmadactl runs it (spec 4.2): the host and each member (through the host's
 * cluster proxy) queried concurrently; human output from the servers' own Tables with CLUSTER and
 * ADOPTION added, one table per resource; -o json/yaml/name/... the objects themselves, as one List.
 * A member that fails is reported and the others are still printed.
 */
import { executeJsonPath } from '../jsonpath.js';
import { CacheSourceAnnotation } from '../../api/constants.js';
import { asList, objectName, printObjects, toJson, toYaml, type KubeObject, type Output } from '../output.js';
import { readWatchEvents } from '../../kube/rest.js';
import { ServerError, type FleetClient, type Query } from './client.js';
import { errorLine } from './command.js';
import { apiVersionOf, discover, isKarmadaGroup, qualifiedResource, resolveResource, resourcePath, type DiscoveredInfo, type ResourceInfo } from './discovery.js';
import type { Source } from './sources.js';
import { alignedRow, columnWidths, CONTROL_PLANE, renderTable, TABLE_ACCEPT, tableHeader, tableRow, type ServerTable, type SourcedRow, type TableShape } from './table.js';
import { errorMessage } from '../../json/error.js';
import { resourceKey } from '../../search/registry.js';

export interface Target {
  type: string;
  names: string[];
}

/** kubectl's arguments: `TYPE[,TYPE...] [NAME...]` or `TYPE/NAME...`. A usage problem is returned as its message. */
export function parseTargets(args: readonly string[]): Target[] | string {
  if (args.length === 0) return 'you must specify the type of resource to get, e.g. karmada-lite get deployments -A';
  if (args[0]!.includes('/')) {
    const out: Target[] = [];
    for (const a of args) {
      const i = a.indexOf('/');
      if (i <= 0 || i === a.length - 1) return `arguments in resource/name form must have a single resource and name, got ${JSON.stringify(a)}`;
      const type = a.slice(0, i);
      const t = out.find((x) => x.type === type);
      if (t) t.names.push(a.slice(i + 1));
      else out.push({ type, names: [a.slice(i + 1)] });
    }
    return out;
  }
  const names = args.slice(1);
  if (names.some((n) => n.includes('/'))) return 'there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. karmada-lite get deploy/web)';
  return args[0]!.split(',').filter(Boolean).map((type) => ({ type, names }));
}

export interface GetRequest {
  targets: Target[];
  namespace: string;
  allNamespaces: boolean;
  selector?: string;
  fieldSelector?: string;
  /** undefined: the human-readable table; `wide` for every column. */
  output?: Output;
  wide: boolean;
  watch: boolean;
  watchOnly: boolean;
  outputWatchEvents: boolean;
  noHeaders: boolean;
  showLabels: boolean;
  ignoreNotFound: boolean;
}

type Obj = KubeObject & Record<string, any>;

/** What one resource type gave, over every source. */
interface Group {
  info: ResourceInfo;
  table?: ServerTable;
  rows: SourcedRow[];
  objects: Obj[];
  /** The resourceVersion of each source's list, where a watch starts. */
  lists: Array<{ source: Source; info: ResourceInfo; resourceVersion: string; names: string[] }>;
}

interface Collected {
  groups: Map<string, Group>;
  errors: string[];
  /** What was left out on purpose (a Pull cluster's type the search cache does not hold): printed, not a failure. */
  warnings: string[];
  /** `deployments.apps "web"` asked of a source that does not have it. */
  missing: Set<string>;
  found: Set<string>;
}

const CHUNK = 500;

const memberError = (s: Source, e: unknown) => (s.member ? `error: cluster(${s.cluster}): ${e instanceof ServerError ? e.status.message : errorMessage(e)}` : errorLine(e));

/**
 * A list item gets the apiVersion and kind its List left off, as kubectl prints them; a member's object
 * the annotation karmada-search puts on every object it returns, `resource.karmada.io/cached-from-cluster:
 * <member>`, so that -o json|yaml, jsonpath and custom-columns can tell where each came from.
 */
function withKind(o: Obj, info: ResourceInfo, s: Source): Obj {
  const out: Obj = { apiVersion: apiVersionOf(info), kind: info.kind, ...o };
  if (s.member) {
    const md: Record<string, any> = { ...out.metadata };
    md.annotations = { ...md.annotations, [CacheSourceAnnotation]: s.cluster };
    out.metadata = md;
  }
  return out;
}

/** The member an object was read from (the annotation of withKind), undefined for the host's. */
const clusterOf = (o: Obj): string | undefined => (o.metadata as { annotations?: Record<string, string> } | undefined)?.annotations?.[CacheSourceAnnotation];

/** `-o name` as kubectl prints it, a member's object prefixed with its cluster: `member1/deployment.apps/web`. */
const nameLine = (o: Obj): string => `${clusterOf(o) ? `${clusterOf(o)}/` : ''}${objectName(o)}\n`;

/** Each target's resource by the source's discovery; what does not resolve (or no discovery at all) is an error of the source. */
async function resolveTargets(s: Source, targets: readonly Target[], out: Collected): Promise<Array<{ t: Target; info: ResourceInfo }>> {
  let resources: DiscoveredInfo[];
  try {
    resources = await discover(s.client);
  } catch (e) {
    out.errors.push(memberError(s, e));
    return [];
  }
  return targets.flatMap((t) => {
    try {
      return [{ t, info: resolveResource(resources, t.type) }];
    } catch (e) {
      out.errors.push(memberError(s, e));
      return [];
    }
  });
}

async function fromSource(s: Source, targets: readonly Target[], req: GetRequest, human: boolean, out: Collected): Promise<void> {
  if (targets.length === 0) return;
  if (s.cached) return fromCache(s, s.cached, targets, req, human, out);
  if (s.member) {
    try {
      await s.client.get('/api');
    } catch (e) {
      out.errors.push(`error: basic connection test to cluster(${s.cluster}) failed, please check authorization or network: ${errorMessage(e)}`);
      return;
    }
  }
  const accept = human ? TABLE_ACCEPT : 'application/json';
  const ns = req.allNamespaces ? undefined : req.namespace;
  for (const { t, info } of await resolveTargets(s, targets, out)) {
    const key = qualifiedResource(info);
    let g = out.groups.get(key);
    if (!g) out.groups.set(key, (g = { info, rows: [], objects: [], lists: [] }));
    const take = (answer: Obj) => {
      if (answer.kind === 'Table') {
        const table = answer as ServerTable;
        if (!g.table?.columnDefinitions?.length) g.table = table;
        for (const row of table.rows ?? []) g.rows.push({ cluster: s.cluster, row });
      } else if (Array.isArray(answer.items)) g.objects.push(...(answer.items as Obj[]).map((o) => withKind(o, info, s)));
      else g.objects.push(withKind(answer, info, s));
    };
    // A watch of named objects lists them by field selector, so it has a list's resourceVersion to start from.
    if (t.names.length && !req.watch) {
      for (const name of t.names) {
        try {
          take(await s.client.get<Obj>(resourcePath(info, ns ?? req.namespace, name), { accept }));
          out.found.add(`${key} "${name}"`);
        } catch (e) {
          if (e instanceof ServerError && e.status.code === 404) out.missing.add(`${key} "${name}"`);
          else out.errors.push(memberError(s, e));
        }
      }
      continue;
    }
    const fieldSelector = [req.fieldSelector, ...(t.names.length ? [`metadata.name=${t.names[0]}`] : [])].filter(Boolean).join(',') || undefined;
    const query: Query = { labelSelector: req.selector, fieldSelector, limit: CHUNK };
    try {
      let cont: string | undefined;
      let rv = '';
      do {
        const page = await s.client.get<Obj>(resourcePath(info, t.names.length ? (ns ?? req.namespace) : ns), { accept, query: { ...query, continue: cont } });
        take(page);
        const meta = (page as ServerTable).metadata;
        rv ||= String(meta?.resourceVersion ?? '');
        cont = meta?.continue || undefined;
      } while (cont);
      g.lists.push({ source: s, info, resourceVersion: rv, names: t.names });
    } catch (e) {
      out.errors.push(memberError(s, e));
    }
  }
}

/**
 * Which source is asked for which type. Karmada's own kinds (clusters, policies, bindings, Works: every
 * `*.karmada.io` group, as the host's discovery resolves the argument) exist on the control plane only:
 * they are read from the host, whatever the scope, and never asked of a member, which would only answer
 * "the server doesn't have a resource type" once per member. Everything else goes to every source.
 */
async function placeTargets(sources: readonly Source[], targets: readonly Target[]): Promise<Array<{ source: Source; targets: readonly Target[] }>> {
  const host = sources.find((s) => !s.member) ?? { cluster: CONTROL_PLANE, client: sources[0]!.client.withPrefix(''), member: false };
  let hostTypes = new Set<string>();
  try {
    const resources = await discover(host.client);
    hostTypes = new Set(targets.filter((t) => isKarmadaHosted(resources, t.type)).map((t) => t.type));
  } catch {
    // the host's discovery failing is reported by the host as a source, or by every member's own answer
  }
  const plan = sources.map((source) => ({ source, targets: source.member ? targets.filter((t) => !hostTypes.has(t.type)) : targets }));
  if (hostTypes.size && !sources.includes(host)) plan.unshift({ source: host, targets: targets.filter((t) => hostTypes.has(t.type)) });
  return plan;
}

function isKarmadaHosted(resources: readonly DiscoveredInfo[], type: string): boolean {
  try {
    return isKarmadaGroup(resolveResource(resources, type).group);
  } catch {
    return false;
  }
}

/** karmada-search's cache on the host: `/search/cache/<the native path>` lists every cached cluster's objects. */
const SEARCH_CACHE = '/apis/search.karmada.io/v1alpha1/search/cache';

/**
 * A Pull cluster the cluster proxy cannot reach, read through karmada-search's cache where a
 * ResourceRegistry caches the type of it: the cache's answer (every cached cluster's objects, each with
 * the cached-from-cluster annotation) narrowed to this cluster. Its Table has the cache's own columns
 * (NAME, CREATED AT), so its rows are a table of their own. A type not cached is a named warning.
 */
async function fromCache(s: Source, cached: ReadonlySet<string>, targets: readonly Target[], req: GetRequest, human: boolean, out: Collected): Promise<void> {
  const ns = req.allNamespaces ? undefined : req.namespace;
  for (const { t, info } of await resolveTargets(s, targets, out)) {
    const key = qualifiedResource(info);
    const why = `cluster(${s.cluster}) is a Pull cluster with no spec.apiEndpoint, which the cluster proxy cannot reach`;
    if (!cached.has(resourceKey(apiVersionOf(info), info.kind))) {
      out.warnings.push(`warning: ${why}, and no ResourceRegistry caches its ${key}: skipped`);
      continue;
    }
    if (req.watch) {
      out.warnings.push(`warning: ${why}: its ${key} are read from karmada-search's cache, which this command does not watch: skipped`);
      continue;
    }
    const gkey = `${key} (cache)`;
    let g = out.groups.get(gkey);
    if (!g) out.groups.set(gkey, (g = { info, rows: [], objects: [], lists: [] }));
    for (const name of t.names.length ? t.names : [undefined]) {
      const fieldSelector = [req.fieldSelector, ...(name !== undefined ? [`metadata.name=${name}`] : [])].filter(Boolean).join(',') || undefined;
      let seen = 0;
      try {
        let cont: string | undefined;
        do {
          const page = await s.client.get<Obj>(SEARCH_CACHE + resourcePath(info, name !== undefined ? (ns ?? req.namespace) : ns), {
            accept: human ? TABLE_ACCEPT : 'application/json',
            query: { labelSelector: req.selector, fieldSelector, limit: CHUNK, continue: cont },
          });
          if (page.kind === 'Table') {
            const table = page as ServerTable;
            g.table ??= table;
            const rows = (table.rows ?? []).filter((r) => clusterOf({ ...r.object }) === s.cluster);
            g.rows.push(...rows.map((row) => ({ cluster: s.cluster, row })));
            seen += rows.length;
          } else {
            const objects = ((page.items ?? []) as Obj[]).filter((o) => clusterOf(o) === s.cluster);
            g.objects.push(...objects.map((o) => withKind(o, info, s)));
            seen += objects.length;
          }
          cont = (page as ServerTable).metadata?.continue || undefined;
        } while (cont);
      } catch (e) {
        out.errors.push(memberError(s, e));
        continue;
      }
      if (name !== undefined) (seen ? out.found : out.missing).add(`${key} "${name}"`);
    }
  }
}

function shapeOf(g: Group, req: GetRequest, several: boolean): TableShape {
  return {
    columns: g.table?.columnDefinitions ?? [{ name: 'Name' }],
    namespace: req.allNamespaces && g.info.namespaced,
    wide: req.wide,
    adoptionWide: g.info.resource === 'pods' && g.info.group === '',
    kindPrefix: several ? `${g.info.kind.toLowerCase()}${g.info.group ? `.${g.info.group}` : ''}/` : undefined,
    showLabels: req.showLabels,
    events: req.outputWatchEvents,
  };
}

function printStructured(objects: Obj[], out: Output, single: boolean): string {
  const doc = single && objects.length === 1 ? objects[0] : asList(objects);
  if (out.format === 'json') return toJson(doc);
  if (out.format === 'yaml') return toYaml(doc);
  if (out.format === 'jsonpath') return executeJsonPath(out.template, doc);
  if (out.format === 'name') return objects.map(nameLine).join('');
  return printObjects(objects, out);
}

export interface GetIO {
  write: (s: string) => void;
  error: (s: string) => void;
  signal?: AbortSignal;
}

/** Runs the query over the sources and prints; resolves with the exit status (1 when anything failed). */
export async function runGet(sources: readonly Source[], req: GetRequest, io: GetIO, membersOnly: boolean): Promise<number> {
  const several = req.targets.length > 1;
  if (req.watch && (several || req.targets[0]!.names.length > 1)) throw new Error('watch is only supported on individual resources and resource collections - more than 1 resource was found');
  if (sources.length === 0) {
    if (req.watch) throw new Error('not to find obj that is watched');
    if (membersOnly) io.error('No member Clusters found in Karmada control plane\n');
    return 0;
  }
  const human = req.output === undefined;
  const collected = () => ({ groups: new Map(), errors: [], warnings: [], missing: new Set(), found: new Set() }) as Collected;
  const plan = await placeTargets(sources, req.targets);
  // Each source collects on its own, concurrently; they are merged in source order so the output does not depend on who answered first.
  const each = await Promise.all(
    plan.map(async ({ source, targets }) => {
      const c = collected();
      await fromSource(source, targets, req, human, c);
      return c;
    }),
  );
  const out = collected();
  for (const c of each) {
    out.errors.push(...c.errors);
    out.warnings.push(...c.warnings);
    c.missing.forEach((m) => out.missing.add(m));
    c.found.forEach((m) => out.found.add(m));
    for (const [key, g] of c.groups) {
      const into = out.groups.get(key);
      if (!into) out.groups.set(key, g);
      else {
        if (!into.table?.columnDefinitions?.length) into.table = g.table;
        into.rows.push(...g.rows);
        into.objects.push(...g.objects);
        into.lists.push(...g.lists);
      }
    }
  }
  for (const m of out.missing) if (!out.found.has(m) && !req.ignoreNotFound) out.errors.push(`Error from server (NotFound): ${m} not found`);
  const groups = [...out.groups.values()];
  const printed: string[] = [];
  const single = req.targets.length === 1 && req.targets[0]!.names.length === 1;
  if (!req.watch) {
    if (human) {
      for (const g of groups) if (g.rows.length) printed.push(renderTable(shapeOf(g, req, several), g.rows, req.noHeaders));
    } else {
      const objects = groups.flatMap((g) => g.objects);
      // An empty List is still a document to a script (kubectl prints it); a name that was not found prints nothing.
      const documents = ['json', 'yaml', 'jsonpath'].includes(req.output!.format);
      if (objects.length || (documents && !single)) printed.push(printStructured(objects, req.output!, single));
    }
  }
  for (const e of [...out.warnings, ...out.errors]) io.error(e + '\n');
  if (req.watch) return (await watchGroups(groups[0], req, human, io, out.errors.length > 0)) || (out.errors.length ? 1 : 0);
  if (printed.length) io.write(printed.join('\n'));
  else if (out.errors.length === 0 && !req.targets.some((t) => t.names.length)) io.error(req.allNamespaces || !groups.every((g) => g.info.namespaced) ? 'No resources found\n' : `No resources found in ${req.namespace} namespace.\n`);
  return out.errors.length ? 1 : 0;
}

/** `-w`: the current objects (as ADDED), then every change of each source from its list's resourceVersion, until the servers end the watches. */
async function watchGroups(g: Group | undefined, req: GetRequest, human: boolean, io: GetIO, failed: boolean): Promise<number> {
  if (!g || g.lists.length === 0) return failed ? 1 : 0;
  const shape = { ...shapeOf(g, req, false), watch: true };
  const header = tableHeader(shape);
  let widths: number[] = [];
  let docs = 0;
  const printRow = (r: SourcedRow, type: string) => io.write(alignedRow(widths, tableRow(shape, r, req.outputWatchEvents ? type : undefined)));
  const printObject = (o: Obj) => io.write(req.output!.format === 'yaml' ? `${docs++ ? '---\n' : ''}${toYaml(o)}` : printStructured([o], req.output!, true));
  if (human) {
    const first = [header, ...g.rows.map((r) => tableRow(shape, r, req.outputWatchEvents ? 'ADDED' : undefined))];
    widths = columnWidths(first);
    // Later events are wider than ADDED: their column is made room for now.
    if (req.outputWatchEvents) widths[0] = Math.max(widths[0] ?? 0, 'MODIFIED'.length);
    if (!req.noHeaders) io.write(alignedRow(widths, header));
    if (!req.watchOnly) for (const r of g.rows) printRow(r, 'ADDED');
  } else if (!req.watchOnly) for (const o of g.objects) printObject(o);
  let code = 0;
  await Promise.all(
    g.lists.map(async ({ source, info, resourceVersion, names }) => {
      const ns = req.allNamespaces && !names.length ? undefined : req.namespace;
      const fieldSelector = [req.fieldSelector, ...(names.length ? [`metadata.name=${names[0]}`] : [])].filter(Boolean).join(',') || undefined;
      try {
        const res = await (source.client as FleetClient).stream(resourcePath(info, ns), {
          accept: human ? TABLE_ACCEPT : 'application/json',
          query: { watch: 1, resourceVersion, labelSelector: req.selector, fieldSelector, allowWatchBookmarks: false },
          signal: io.signal,
        });
        await readWatchEvents(res, (type, object: Obj) => {
          if (type === 'ERROR') {
            io.error(`${source.member ? `error: cluster(${source.cluster}): ` : 'error: '}${object?.message ?? JSON.stringify(object)}\n`);
            code = 1;
          } else if (type === 'BOOKMARK') return;
          else if (human) for (const row of (object as ServerTable).rows ?? []) printRow({ cluster: source.cluster, row }, type);
          else printObject(withKind(object, info, source));
        });
      } catch (e) {
        if (io.signal?.aborted) return;
        io.error(memberError(source, e) + '\n');
        code = 1;
      }
    }),
  );
  return code;
}
