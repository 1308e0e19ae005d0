/**
 * Requests per propagated template for bench/controller.bench.ts: every resource request an apiserver
 * served (apiserver_request_total, all verbs, by verb and resource), less the bench's own requests
 * (counted on the bench's side, classified the way the apiserver classifies them), so that what is left is
 * the controller's. The controller's own client metrics (rest_client_requests_total per host) are the
 * cross-check. Non-resource requests (/metrics, /readyz, /version, discovery) are left out: they do not
 * grow with the number of templates.
 */
import { RestClient, type Query, type RequestOpts } from '../src/kube/rest.js';

export type Counts = Map<string, number>;

/** `VERB resource[/subresource]`, with ` (code)` for answers of 400 and above: a 409 is a request wasted. */
function key(verb: string, resource: string, subresource: string | undefined, code?: number): string {
  return `${verb} ${resource}${subresource ? '/' + subresource : ''}${code !== undefined && code >= 400 ? ` (${code})` : ''}`;
}

/** apiserver_request_total of every resource request, by verb, resource and (for failures) code, from an apiserver's /metrics. */
export async function apiserverRequests(c: RestClient): Promise<Counts> {
  const text = await c.request<string>('GET', '/metrics', { timeoutMs: 20_000 });
  const out: Counts = new Map();
  for (const m of text.matchAll(/^apiserver_request_total\{([^}]*)\} (\S+)$/gm)) {
    const labels: Record<string, string> = {};
    for (const l of m[1]!.matchAll(/(\w+)="([^"]*)"/g)) labels[l[1]!] = l[2]!;
    if (!labels.resource) continue;
    const k = key(labels.verb ?? '?', labels.resource, labels.subresource, Number(labels.code));
    out.set(k, (out.get(k) ?? 0) + Number(m[2]));
  }
  return out;
}

/** rest_client_requests_total of the controller, summed per host (`127.0.0.1:port`). */
export async function controllerClientRequests(port: number): Promise<Counts> {
  const out: Counts = new Map();
  const res = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => undefined);
  if (!res?.ok) return out;
  for (const m of (await res.text()).matchAll(/^rest_client_requests_total\{([^}]*)\} (\S+)$/gm)) {
    const host = /host="([^"]*)"/.exec(m[1]!)?.[1] ?? '?';
    out.set(host, (out.get(host) ?? 0) + Number(m[2]));
  }
  return out;
}

/**
 * The apiserver's verb and resource for a request the bench makes: GET of a collection is LIST, with
 * `watch` WATCH, DELETE of a collection DELETECOLLECTION. Undefined for non-resource paths.
 */
export function classify(method: string, path: string, query: Query | undefined): { verb: string; resource: string; subresource?: string } | undefined {
  const segs = path.split('?')[0]!.split('/').filter(Boolean);
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 3) rest = segs.slice(2);
  else if (segs[0] === 'apis' && segs.length >= 4) rest = segs.slice(3);
  else return undefined;
  // namespaces/{ns}/{resource}/... ; a namespace itself is namespaces/{name}[/finalize|status]
  if (rest[0] === 'namespaces' && rest.length >= 3 && !['finalize', 'status'].includes(rest[2]!)) rest = rest.slice(2);
  const [resource, name, subresource] = rest;
  if (!resource) return undefined;
  const m = method.toUpperCase();
  let verb = m;
  if (m === 'GET') verb = query?.watch ? 'WATCH' : name ? 'GET' : 'LIST';
  else if (m === 'DELETE' && !name) verb = 'DELETECOLLECTION';
  return { verb, resource, subresource };
}

/** A RestClient that counts its own resource requests as the apiserver would (classify). */
export class CountingRestClient extends RestClient {
  readonly counts: Counts = new Map();

  private count(method: string, path: string, query: Query | undefined): void {
    const c = classify(method, path, query);
    if (!c) return;
    const k = key(c.verb, c.resource, c.subresource);
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
  }

  override async request<T = any>(method: string, path: string, opts: RequestOpts = {}): Promise<T> {
    this.count(method, path, opts.query);
    return super.request<T>(method, path, opts);
  }

  override async watch(path: string, query: Query, onEvent: (type: string, object: any) => void, signal?: AbortSignal): Promise<void> {
    this.count('GET', path, { ...query, watch: true });
    return super.watch(path, query, onEvent, signal);
  }
}

export function add(a: Counts, b: Counts): Counts {
  const out: Counts = new Map(a);
  for (const [k, v] of b) out.set(k, (out.get(k) ?? 0) + v);
  return out;
}

/** What a phase's floor is made of: requests per template (or per change) by `VERB resource`, host and members apart. */
export interface Floor {
  host: Record<string, number>;
  members: Record<string, number>;
  /** Why each entry is there (printed under the table). */
  why: string[];
}

const EVENTS = /^(POST|PATCH|PUT) events( |$)/;

/**
 * One phase's table: per `VERB resource`, the controller's requests per unit (template or change) on the
 * host and on the members together, and the floor beside them. Event writes are counted apart: they are
 * not part of the floor (Karmada records its events too, see the docs), but they load the host all the same.
 */
export function requestTable(title: string, units: number, host: Counts, members: Counts, floor: Floor): string {
  const keys = [...new Set([...host.keys(), ...members.keys(), ...Object.keys(floor.host), ...Object.keys(floor.members)])].sort((a, b) => {
    const ea = EVENTS.test(a) ? 1 : 0;
    const eb = EVENTS.test(b) ? 1 : 0;
    return ea - eb || (host.get(b) ?? 0) + (members.get(b) ?? 0) - ((host.get(a) ?? 0) + (members.get(a) ?? 0)) || a.localeCompare(b);
  });
  const f2 = (x: number) => (x === 0 ? '-' : x.toFixed(2));
  const rows: string[][] = [['request', 'host', 'floor', 'members', 'floor']];
  let hostSum = 0;
  let memberSum = 0;
  let eventSum = 0;
  const other = { n: 0, h: 0, m: 0 };
  for (const k of keys) {
    const h = (host.get(k) ?? 0) / units;
    const m = (members.get(k) ?? 0) / units;
    if (EVENTS.test(k)) eventSum += h + m;
    else {
      hostSum += h;
      memberSum += m;
    }
    // What does not grow with the templates (watch restarts, the apiservers' own lease and endpoint writes, probes) in one row.
    if (h < 0.05 && m < 0.05 && floor.host[k] === undefined && floor.members[k] === undefined && !EVENTS.test(k)) {
      other.n++;
      other.h += h;
      other.m += m;
      continue;
    }
    rows.push([k, f2(h), f2(floor.host[k] ?? 0), f2(m), f2(floor.members[k] ?? 0)]);
  }
  if (other.n) rows.push([`${other.n} more, each under 0.05`, f2(other.h), '-', f2(other.m), '-']);
  const fh = Object.values(floor.host).reduce((a, b) => a + b, 0);
  const fm = Object.values(floor.members).reduce((a, b) => a + b, 0);
  rows.push(['total without events', f2(hostSum), f2(fh), f2(memberSum), f2(fm)]);
  const ratio = fh + fm > 0 ? ((hostSum + memberSum) / (fh + fm)).toFixed(2) : '-';
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const text = rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  ')).join('\n');
  return [
    `${title} (per ${units === 1 ? 'unit' : `one of ${units}`}): ${(hostSum + memberSum).toFixed(2)} requests against a floor of ${fh + fm} (x${ratio}); Event writes ${eventSum.toFixed(2)} more`,
    text,
    ...floor.why.map((s) => `  floor: ${s}`),
  ].join('\n');
}
