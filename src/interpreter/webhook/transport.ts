/**
 * The HTTPS leg of an interpreter webhook call (interpreter-webhook spec 4): one keep-alive agent per
 * webhook (a TLS handshake per call would cost more than the call), the hook's caBundle as the only trust
 * (the system roots without it), a deadline of `timeoutSeconds` (10 s when unset: README differs item 9)
 * told to the server as `?timeout=<n>s`, and every failure as `failed to call webhook: Post "<url>": ...`.
 */
import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { callFailed, type ResourceInterpreterContext, type WebhookCaller } from './context.js';
import { errorMessage } from '../../json/error.js';

/** Karmada documents 10 s but sets no deadline; a hanging hook would block a worker for ever. */
export const DEFAULT_WEBHOOK_TIMEOUT_SECONDS = 10;
/** Concurrent calls (sockets) per webhook unless configured. */
export const DEFAULT_WEBHOOK_MAX_CONCURRENCY = 16;
/** An answer larger than this is refused: no interpreter answer is legitimately that big. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export interface WebhookClientConfig {
  /** `https://host[:port][/path]`. */
  url: string;
  /** PEM CA(s), or their base64 as in `clientConfig.caBundle`. */
  caBundle?: string;
  timeoutSeconds?: number;
  maxConcurrency?: number;
  /**
   * Where to connect when it is not the URL's host (a Service's cluster IP); the TLS server name stays
   * the URL's host (`<service>.<namespace>.svc`).
   */
  dial?: { host: string; port?: number };
}

export interface WebhookClient extends WebhookCaller {
  readonly url: string;
  close(): void;
}

/** The caBundle as PEM: given as PEM, or as the base64 of PEM that the configuration's field holds. */
export function caBundlePem(caBundle: string): string {
  const trimmed = caBundle.trim();
  if (trimmed.includes('-----BEGIN')) return trimmed;
  const decoded = Buffer.from(trimmed.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (!decoded.includes('-----BEGIN CERTIFICATE-----')) {
    throw new Error('clientConfig.caBundle: neither a PEM certificate nor the base64 of one; put the CA certificate PEM there, base64-encoded');
  }
  return decoded;
}

function parseWebhookUrl(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`webhook url ${JSON.stringify(raw)} is not a valid URL; desired format: https://host[/path]`);
  }
  if (u.protocol !== 'https:') throw new Error(`webhook url ${JSON.stringify(raw)}: 'https' is the only allowed URL scheme; desired format: https://host[/path]`);
  return u;
}

/** The message of a socket or TLS failure as its code and text, e.g. `connect ECONNREFUSED 127.0.0.1:1`. */
function networkDetail(e: NodeJS.ErrnoException): string {
  const code = e.code ?? '';
  if (/^ERR_TLS|CERT|VERIFY|SELF_SIGNED|HOSTNAME/.test(code)) {
    return `tls: failed to verify certificate: ${e.message} (check clientConfig.caBundle and that the certificate names the URL's host)`;
  }
  return e.message;
}

export function createWebhookClient(cfg: WebhookClientConfig): WebhookClient {
  const base = parseWebhookUrl(cfg.url);
  const ca = cfg.caBundle ? caBundlePem(cfg.caBundle) : undefined;
  const timeoutSeconds = cfg.timeoutSeconds ?? DEFAULT_WEBHOOK_TIMEOUT_SECONDS;
  const target = new URL(base);
  target.searchParams.set('timeout', `${Math.ceil(timeoutSeconds)}s`);
  const path = `${target.pathname}${target.search}`;
  const port = base.port ? Number(base.port) : 443;
  const servername = base.hostname.replace(/^\[|\]$/g, '');
  // ALPN http/1.1 as Karmada's client offers; keep-alive so that calls reuse connections.
  const agent = new Agent({
    keepAlive: true,
    maxSockets: cfg.maxConcurrency ?? DEFAULT_WEBHOOK_MAX_CONCURRENCY,
    ca,
    ALPNProtocols: ['http/1.1'],
  });
  const shown = `Post ${JSON.stringify(target.toString())}`;

  const call = (ctx: ResourceInterpreterContext, signal?: AbortSignal): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const body = Buffer.from(JSON.stringify(ctx));
      let settled = false;
      const fail = (detail: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(callFailed(`${shown}: ${detail}`));
      };
      const req = request({
        agent,
        host: cfg.dial?.host ?? servername,
        port: cfg.dial?.port ?? port,
        servername: /^[\d.]+$|:/.test(servername) ? undefined : servername,
        method: 'POST',
        path,
        headers: {
          // Exactly this: Karmada's SDK refuses a charset parameter.
          'Content-Type': 'application/json',
          Accept: 'application/json',
          'Content-Length': body.length,
        },
      });
      // First, so that a destroy() below never meets a request without an error listener.
      req.on('error', (e: NodeJS.ErrnoException) => fail(networkDetail(e)));
      const timer = setTimeout(() => {
        fail(`context deadline exceeded (the webhook did not answer within timeoutSeconds ${timeoutSeconds})`);
        req.destroy();
      }, timeoutSeconds * 1000);
      const onAbort = () => {
        fail('context canceled');
        req.destroy();
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) {
            fail(`the answer is larger than ${MAX_RESPONSE_BYTES} bytes`);
            req.destroy();
          } else chunks.push(c);
        });
        res.on('error', (e: NodeJS.ErrnoException) => fail(networkDetail(e)));
        res.on('end', () => {
          if (settled) return;
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) {
            const snippet = text.length > 200 ? `${text.slice(0, 200)}...` : text;
            return fail(`the server responded with the status code ${status}${snippet ? `: ${snippet.trim()}` : ' but did not return more information'}`);
          }
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch (e) {
            return fail(`the answer is not JSON: ${errorMessage(e)}`);
          }
          settled = true;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(parsed);
        });
      });
      req.end(body);
    });

  return { url: cfg.url, call, close: () => agent.destroy() };
}
