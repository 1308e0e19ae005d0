// RequestInfo as the Kubernetes apiserver resolves it from the path and method (k8s.io/apiserver's
// RequestInfoFactory): what authorization asks the host about and what handlers route on.
import type { RequestInfo } from './types.js';

const API_PREFIXES = new Set(['api', 'apis']);
/** Names under a namespace that are resources themselves, not a namespace's subresource. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

const METHOD_VERBS: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** The `watch=true`/`watch=1` query turns a get or list into a watch, as in Kubernetes. */
function isWatch(query: URLSearchParams): boolean {
  const w = query.get('watch');
  return w !== null && w !== '0' && w.toLowerCase() !== 'false';
}

export function requestInfo(method: string, url: string): RequestInfo {
  const u = new URL(url, 'https://x');
  const path = u.pathname;
  const parts = path.split('/').filter((p) => p !== '');
  const lower = (method || 'GET').toLowerCase();
  const plain: RequestInfo = { isResourceRequest: false, path, verb: lower, apiGroup: '', apiVersion: '', parts };
  if (parts.length < 2 || !API_PREFIXES.has(parts[0]!)) return plain;
  let rest = parts.slice(1);
  let apiGroup = '';
  if (parts[0] === 'apis') {
    if (rest.length < 2) return plain; // /apis and /apis/<group> are discovery, not resources
    apiGroup = rest[0]!;
    rest = rest.slice(1);
  }
  const apiVersion = rest[0]!;
  rest = rest.slice(1);
  const info: RequestInfo = { isResourceRequest: false, path, verb: lower, apiGroup, apiVersion, parts: rest };
  if (rest.length === 0) return info; // /apis/<group>/<version>: discovery
  info.isResourceRequest = true;
  info.verb = METHOD_VERBS[(method || 'GET').toUpperCase()] ?? lower;
  if (rest[0] === 'namespaces') {
    if (rest.length > 1) {
      info.namespace = rest[1];
      if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
    }
  }
  info.parts = rest;
  info.resource = rest[0];
  if (rest.length >= 2) info.name = rest[1];
  if (rest.length >= 3) info.subresource = rest[2];
  // only a request without a name is a list or a watch; a proxied inner `?watch=true` stays a get
  if (!info.name && info.verb === 'get') {
    info.verb = isWatch(u.searchParams) ? 'watch' : 'list';
    const byName = /(?:^|,)metadata\.name==?([^,]+)/.exec(u.searchParams.get('fieldSelector') ?? '');
    if (byName) info.name = byName[1];
  }
  if (!info.name && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}
