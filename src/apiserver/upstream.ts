// Requests from this server to another apiserver (the host's Cluster storage, a member through the cluster
// proxy) as raw HTTP: bodies and answers are streamed, never parsed on the way.
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';

/** Connection-level headers (RFC 9110 section 7.6.1) that a proxy never forwards. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

export interface Upstream {
  /** Node's request options for `path` (with its query) on that server, credentials applied. */
  options(method: string, pathAndQuery: string, headers?: Record<string, string | string[]>): Promise<RequestOptions>;
}

/** The server and credentials of a kubeconfig's current context. */
export function kubeConfigUpstream(kc: KubeConfig): Upstream {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster; set current-context');
  const server = new URL(cluster.server);
  const basePath = server.pathname.replace(/\/$/, '');
  return {
    async options(method, pathAndQuery, headers = {}) {
      const o: RequestOptions = {
        method,
        protocol: server.protocol,
        hostname: server.hostname,
        port: server.port,
        path: basePath + (pathAndQuery.startsWith('/') ? pathAndQuery : `/${pathAndQuery}`),
        headers: { ...headers },
        // one connection per request, as Karmada's proxy transport (keep-alives disabled): a member's
        // credentials can change between two requests
        agent: false,
        minVersion: 'TLSv1.2',
      };
      await kc.applyToHTTPSOptions(o);
      return o;
    },
  };
}

export function send(o: RequestOptions): ClientRequest {
  return (o.protocol === 'http:' ? httpRequest : httpsRequest)(o);
}

/** The headers of a client's request worth forwarding: end-to-end ones, without the front proxy's identity headers. */
export function forwardableHeaders(headers: IncomingHttpHeaders, drop: (name: string) => boolean = () => false): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || HOP_BY_HOP.has(k) || drop(k)) continue;
    out[k] = v;
  }
  return out;
}

/** Response headers to pass back to the client, hop-by-hop ones dropped. */
export function responseHeaders(res: IncomingMessage): Record<string, string | string[]> {
  return forwardableHeaders(res.headers);
}

/** Sends and resolves with the answer; the body (bytes or text, sent as given) is piped in when given as a stream. */
export function roundTrip(o: RequestOptions, body?: NodeJS.ReadableStream | string | Uint8Array, signal?: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = send({ ...o, signal });
    req.once('response', resolve);
    req.once('error', reject);
    if (typeof body === 'string' || body === undefined || body instanceof Uint8Array) req.end(body);
    else body.pipe(req);
  });
}

/** A whole body as its bytes: what a proxy passes on, whatever the content type (protobuf, CBOR, YAML, JSON). */
export async function readBytes(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks);
}

/** A whole body as UTF-8 text (Status answers, JSON objects a server reads itself); never for a body passed on. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  return (await readBytes(stream)).toString('utf8');
}
