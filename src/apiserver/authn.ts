// Request-header authentication, as every aggregated API server does it: the host's aggregator connects
// with its front-proxy client certificate and names the user in X-Remote-* headers. The headers are believed
// only from a connection whose certificate chains to the request-header CA and, when names are configured,
// whose CN is one of them; anything else is 401, so nobody can reach the server around the host and claim
// to be someone.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { UserInfo } from './types.js';

export interface RequestHeaderConfig {
  /** PEM of the CA(s) that sign the front proxy's client certificate. */
  clientCA: string;
  /** CNs allowed to present the headers; empty: any certificate the CA signed. */
  allowedNames: string[];
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

/** kube-apiserver's defaults for the --requestheader-* flags this server mirrors. */
export const DEFAULT_REQUEST_HEADERS = {
  usernameHeaders: ['X-Remote-User'],
  uidHeaders: ['X-Remote-Uid'],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
} as const;

/** The ConfigMap kube-apiserver publishes its request-header settings in, for aggregated servers to read. */
export const AUTHENTICATION_CONFIGMAP = { namespace: 'kube-system', name: 'extension-apiserver-authentication' } as const;

/**
 * Request-header settings from the extension-apiserver-authentication ConfigMap's data (each list a JSON
 * array, as kube-apiserver writes them); undefined when the host has no aggregation layer configured.
 */
export function requestHeaderFromConfigMap(data: Record<string, string> | undefined): RequestHeaderConfig | undefined {
  const ca = data?.['requestheader-client-ca-file'];
  if (!ca) return undefined;
  const list = (key: string, fallback: readonly string[]): string[] => {
    const v = data?.[key];
    if (!v) return [...fallback];
    try {
      const parsed = JSON.parse(v) as unknown;
      return Array.isArray(parsed) ? parsed.map(String) : [...fallback];
    } catch {
      return [...fallback];
    }
  };
  return {
    clientCA: ca,
    allowedNames: list('requestheader-allowed-names', []),
    usernameHeaders: list('requestheader-username-headers', DEFAULT_REQUEST_HEADERS.usernameHeaders),
    uidHeaders: list('requestheader-uid-headers', DEFAULT_REQUEST_HEADERS.uidHeaders),
    groupHeaders: list('requestheader-group-headers', DEFAULT_REQUEST_HEADERS.groupHeaders),
    extraHeaderPrefixes: list('requestheader-extra-headers-prefix', DEFAULT_REQUEST_HEADERS.extraHeaderPrefixes),
  };
}

export type AuthResult = { user: UserInfo } | { error: string };

/**
 * Every value of a header, one per header line and never split on commas (a group name may hold one), as
 * kube-apiserver reads them: `headersDistinct`, since Node joins repeated unknown headers with ", ".
 */
function headerValues(req: IncomingMessage, name: string): string[] {
  return (req.headersDistinct[name.toLowerCase()] ?? []).filter((x) => x !== '');
}

/**
 * The user of a request, or why it is refused. `authorized` is the TLS layer's verdict on the client
 * certificate against the request-header CA (the server asks for certificates with that CA only).
 */
export function authenticate(req: IncomingMessage, cfg: RequestHeaderConfig): AuthResult {
  const socket = req.socket as TLSSocket;
  const cert = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
  if (!cert || Object.keys(cert).length === 0) return { error: 'no client certificate: requests must come through the kube-apiserver aggregation layer' };
  if (!socket.authorized) return { error: `client certificate not signed by the request-header CA: ${String(socket.authorizationError ?? 'unknown')}` };
  const cn = cert.subject?.CN;
  const cnValue = Array.isArray(cn) ? cn[0] : cn;
  if (cfg.allowedNames.length > 0 && !cfg.allowedNames.includes(cnValue ?? '')) {
    return { error: `client certificate CN "${cnValue ?? ''}" is not one of the allowed names (${cfg.allowedNames.join(', ')})` };
  }
  const name = cfg.usernameHeaders.map((h) => headerValues(req, h)[0]).find((v) => v !== undefined) ?? '';
  // a request the front proxy vouches for but names nobody in (the aggregator's availability probe) is
  // anonymous, as kube-apiserver's request-header authenticator falls through to the anonymous one
  if (!name) return { user: { name: 'system:anonymous', groups: ['system:unauthenticated'], extra: {} } };
  const groups = cfg.groupHeaders.flatMap((h) => headerValues(req, h));
  const uid = cfg.uidHeaders.map((h) => headerValues(req, h)[0]).find((v) => v !== undefined);
  const extra: Record<string, string[]> = {};
  for (const [header, values] of Object.entries(req.headersDistinct)) {
    for (const prefix of cfg.extraHeaderPrefixes) {
      if (!header.startsWith(prefix.toLowerCase()) || values === undefined) continue;
      // extra keys are percent-encoded in the header name (kube-apiserver unescapes them the same way)
      const key = decodeURIComponent(header.slice(prefix.length)).toLowerCase();
      (extra[key] ??= []).push(...values);
    }
  }
  const user: UserInfo = { name, groups, extra };
  if (uid) user.uid = uid;
  return { user };
}
