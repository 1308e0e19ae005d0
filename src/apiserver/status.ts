// Kubernetes Status bodies for every error the aggregated server answers with: kubectl and client-go print
// `message` and branch on `reason`, so a plain-text error would reach the user as "unknown".
import type { ServerResponse } from 'node:http';

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
};

export interface StatusDetails { name?: string; group?: string; kind?: string }

export function statusBody(code: number, message: string, details?: StatusDetails, reason = REASONS[code] ?? 'Unknown'): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendStatus(res: ServerResponse, code: number, message: string, details?: StatusDetails): void {
  sendJson(res, code, statusBody(code, message, details));
}

/** An error a handler throws to answer with a Status of that code. */
export class StatusError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'StatusError';
  }
}

/**
 * A refusal worded as kube-apiserver words it (and kubectl prints it): `clusters.cluster.karmada.io "m1" is
 * forbidden: User "u" cannot get resource "clusters/proxy" in API group "cluster.karmada.io" at the cluster scope`.
 */
export function forbiddenMessage(user: string, info: { verb: string; apiGroup: string; resource?: string; subresource?: string; namespace?: string; name?: string; path: string; isResourceRequest: boolean }, reason?: string): string {
  const why = reason ? `: ${reason}` : '';
  if (!info.isResourceRequest) return `forbidden: User "${user}" cannot ${info.verb} path "${info.path}"${why}`;
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : (info.resource ?? '');
  const qualified = info.apiGroup ? `${info.resource}.${info.apiGroup}` : (info.resource ?? '');
  const head = info.name ? `${qualified} "${info.name}" is forbidden` : `${qualified} is forbidden`;
  const scope = info.namespace ? `in the namespace "${info.namespace}"` : 'at the cluster scope';
  return `${head}: User "${user}" cannot ${info.verb} resource "${resource}" in API group "${info.apiGroup}" ${scope}${why}`;
}
