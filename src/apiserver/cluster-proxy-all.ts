// `clusters/*/proxy/{path}`: one request for every cluster (karmada-aggregated-api.md section 2.2). A named
// object is looked for in every cluster and the request goes to the one that has it; a list is the members'
// lists joined; a path that is not a resource goes to the host. Answers in Karmada's plain-text words.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RestClient } from '../kube/rest.js';
import { listClusters } from './cluster-storage.js';
import { impersonationHeaders, memberConnection, proxyTarget, type MemberConnection } from './cluster-proxy.js';
import { requestInfo } from './request-info.js';
import { readAll, responseHeaders, roundTrip, type Upstream } from './upstream.js';
import type { UserInfo } from './types.js';

/** Subresources that are never asked for when looking a named object up (Karmada leaves them off too). */
const NOT_LOOKED_UP = new Set(['exec', 'log']);

function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** Every cluster whose connection can be made; the others are left out, as Karmada skips them. */
async function connections(host: RestClient): Promise<Array<{ name: string; conn: MemberConnection }>> {
  const names = (await listClusters(host)).map((c) => c.metadata?.name as string).filter(Boolean);
  const made = await Promise.all(names.map((name) => memberConnection(host, name).then((conn) => ({ name, conn }), () => undefined)));
  return made.filter((x): x is { name: string; conn: MemberConnection } => x !== undefined);
}

/** Sends a GET with only the impersonation headers; the status and body, or undefined when the member cannot be reached. */
async function ask(conn: MemberConnection, path: string, user: UserInfo): Promise<{ status: number; body: string; res: IncomingMessage } | undefined> {
  try {
    const res = await roundTrip(await conn.options('GET', path, impersonationHeaders(user)));
    return { status: res.statusCode ?? 0, body: await readAll(res), res };
  } catch {
    return undefined;
  }
}

/**
 * The one cluster that has the named object `path` (a member path with its query) refers to, found by a
 * GET as the caller on every cluster; else Karmada's answer (404 none, 409 several), or why `path` names no
 * object at all.
 */
export async function ownerOfNamed(host: RestClient, path: string, user: UserInfo): Promise<{ owner: string } | { code: number; text: string } | { refused: string }> {
  const inner = requestInfo('GET', path);
  if (!inner.isResourceRequest) return { refused: `${path.split('?')[0]} is not a resource` };
  if (!inner.name) return { refused: `${path.split('?')[0]} names no object` };
  const base = inner.apiGroup ? `/apis/${inner.apiGroup}/${inner.apiVersion}` : `/api/${inner.apiVersion}`;
  const ns = inner.namespace && inner.resource !== 'namespaces' ? `/namespaces/${inner.namespace}` : '';
  const sub = inner.subresource && !NOT_LOOKED_UP.has(inner.subresource) ? `/${inner.subresource}` : '';
  const lookup = `${base}${ns}/${inner.resource}/${inner.name}${sub}`;
  const members = await connections(host);
  const found: string[] = [];
  await Promise.all(members.map(async ({ name, conn }) => ((await ask(conn, lookup, user))?.status === 200 ? found.push(name) : undefined)));
  if (found.length === 0) return { code: 404, text: "resource not found or don't have permission to get it" };
  if (found.length > 1) return { code: 409, text: `conflict resource, exist in more than one cluster: ${found.sort().join(',')}` };
  return { owner: found[0]! };
}

/**
 * Answers the request itself (returns undefined), or names the one cluster that has the named object, for
 * the caller to forward the original request to.
 */
export async function proxyAllClusters(host: RestClient, hostUpstream: Upstream | undefined, req: IncomingMessage, res: ServerResponse, user: UserInfo): Promise<string | undefined> {
  const target = proxyTarget(req.url ?? '/')!;
  const inner = requestInfo(req.method ?? 'GET', target.path);
  if (!inner.isResourceRequest) {
    if (!hostUpstream) return void sendText(res, 404, 'not found');
    const up = await roundTrip(await hostUpstream.options(req.method ?? 'GET', target.path, { accept: req.headers.accept ?? 'application/json' }), req);
    res.writeHead(up.statusCode ?? 502, responseHeaders(up));
    up.pipe(res);
    return undefined;
  }
  if (inner.name) {
    const found = await ownerOfNamed(host, target.path, user);
    if ('owner' in found) return found.owner;
    if ('code' in found) return void sendText(res, found.code, found.text);
  }
  const members = await connections(host);
  if (inner.verb !== 'list') return void sendText(res, 405, `Request verb ${inner.verb} is not support`);
  const answers = await Promise.all(members.map(({ conn }) => ask(conn, target.path, user)));
  let first: { list: any; res: IncomingMessage } | undefined;
  for (const a of answers) {
    if (a?.status !== 200) continue;
    let list: any;
    try {
      list = JSON.parse(a.body);
    } catch {
      continue;
    }
    if (!Array.isArray(list?.items)) continue;
    if (!first) first = { list, res: a.res };
    else first.list.items.push(...list.items);
  }
  if (!first) return void sendText(res, 404, 'not found');
  const text = JSON.stringify(first.list);
  const headers = { ...responseHeaders(first.res), 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
  res.writeHead(200, headers);
  res.end(text);
  return undefined;
}
