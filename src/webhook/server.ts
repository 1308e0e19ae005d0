/**
 * `karmada-lite webhook`: the AdmissionReview HTTPS server. TLS material is re-read when the files change
 * (cert-manager and kubelet secret mounts rotate them in place), so rotation needs no restart.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createSecureContext, type SecureVersion } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createLogger, type Logger } from '../runtime/log.js';
import { closeServer } from '../runtime/http.js';
import { WebhookMetrics } from './metrics.js';
import { isReviewPath, MAX_BODY_BYTES, review, type HttpInput, type ReviewContext, type ReviewOutcome } from './review.js';
import { errorMessage } from '../json/error.js';

export interface WebhookServerOptions {
  certFile: string;
  keyFile: string;
  /** 0 picks a free port (tests). */
  port: number;
  bindAddress: string;
  /** How often the certificate files are checked for changes. */
  reloadIntervalMs?: number;
  minTlsVersion?: SecureVersion;
  logger?: Logger;
  review?: ReviewContext;
  /** Defaults to a registry of its own with the process metrics (GC pauses, event-loop delay). */
  metrics?: WebhookMetrics;
  /**
   * Another protocol on the same server (certificate reload, probes, metrics): `interpret serve`'s
   * ResourceInterpreterContext. Default: the admission reviews.
   */
  handler?: { handle(input: HttpInput): Promise<ReviewOutcome>; isRoute(path: string): boolean; name: string };
}

/** Past this much body the connection is dropped instead of drained: nobody legitimate sends it. */
const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * Idle kept-alive connections stay open longer than the kube-apiserver's client keeps them (Go's
 * http.Transport IdleConnTimeout, 90 s), so that the client is the one to close them. Node's default of
 * 5 s made every connection idle for 5 s cost a new TLS handshake on the next review, and a close racing
 * a new request fails that admission call, which failurePolicy Fail turns into a refused write.
 */
const KEEP_ALIVE_TIMEOUT_MS = 120_000;

interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
}

/** NIST SP 800-131A and the CA/Browser Forum: RSA keys below this many bits are no longer acceptable. */
export const MIN_RSA_BITS = 2048;

/**
 * Why a certificate's key is too weak to serve with, or undefined when it is strong enough. OpenSSL's
 * default security level still accepts 1024-bit RSA, so the check is ours.
 */
export function weakKeyReason(cert: Buffer): string | undefined {
  let x: X509Certificate;
  try {
    x = new X509Certificate(cert);
  } catch {
    return undefined; // not parseable here: createSecureContext reports it
  }
  const key = x.publicKey;
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if ((key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'rsa-pss' || key.asymmetricKeyType === 'dsa') && bits !== undefined && bits < MIN_RSA_BITS) {
    return `its ${key.asymmetricKeyType.toUpperCase()} key has ${bits} bits, under the minimum of ${MIN_RSA_BITS}`;
  }
  return undefined;
}

/** What to do about a weak key, for the start-up error and the reload log line. */
const WEAK_KEY_FIX = `issue a certificate with an RSA key of at least ${MIN_RSA_BITS} bits or an EC P-256 key (scripts/deploy-cert.sh makes one)`;

export class WebhookServer {
  private server?: Server;
  private timer?: NodeJS.Timeout;
  private material?: TlsMaterial;
  private lastAttempt?: TlsMaterial;
  private stopping = false;
  readonly log: Logger;
  readonly metrics: WebhookMetrics;

  constructor(private readonly opts: WebhookServerOptions) {
    this.log = opts.logger ?? createLogger();
    this.metrics = opts.metrics ?? new WebhookMetrics({ processMetrics: true });
  }

  private readMaterial(): TlsMaterial {
    let cert: Buffer;
    let key: Buffer;
    try {
      cert = readFileSync(this.opts.certFile);
    } catch (e) {
      throw new Error(`cannot read --cert-file ${this.opts.certFile}: ${errorMessage(e)}`);
    }
    try {
      key = readFileSync(this.opts.keyFile);
    } catch (e) {
      throw new Error(`cannot read --key-file ${this.opts.keyFile}: ${errorMessage(e)}`);
    }
    // createSecureContext checks that the key belongs to the certificate.
    try {
      createSecureContext({ cert, key });
    } catch (e) {
      throw new Error(`--cert-file ${this.opts.certFile} and --key-file ${this.opts.keyFile} are not a usable pair: ${errorMessage(e)}`);
    }
    const weak = weakKeyReason(cert);
    if (weak) throw new Error(`--cert-file ${this.opts.certFile} is refused: ${weak}; ${WEAK_KEY_FIX}`);
    return { cert, key };
  }

  private describeCert(cert: Buffer): Record<string, string> {
    try {
      const x = new X509Certificate(cert);
      return { subject: x.subject.replace(/\n/g, ','), notAfter: x.validTo, fingerprint256: x.fingerprint256 };
    } catch {
      return {};
    }
  }

  async start(): Promise<AddressInfo> {
    this.material = this.readMaterial();
    this.lastAttempt = this.material;
    const server = createServer({ ...this.material, minVersion: this.opts.minTlsVersion ?? 'TLSv1.3' }, (req, res) => this.onRequest(req, res));
    // A client that stops sending mid-body must not hold a connection forever.
    server.requestTimeout = 30_000;
    server.headersTimeout = 10_000;
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    server.on('tlsClientError', (err) => this.log.debug('TLS handshake failed', { err }));
    // Reviews are small request/response pairs on kept-alive connections: Nagle's algorithm only adds delay.
    server.on('secureConnection', (socket) => socket.setNoDelay(true));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.bindAddress, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.timer = setInterval(() => this.reloadIfChanged(), this.opts.reloadIntervalMs ?? 1000);
    this.timer.unref();
    const addr = server.address() as AddressInfo;
    this.log.info('webhook serving', { address: addr.address, port: addr.port, certFile: this.opts.certFile, ...this.describeCert(this.material.cert) });
    return addr;
  }

  /** Re-reads the TLS files; a new pair serves new connections, a broken one is logged and the old one kept. */
  reloadIfChanged(): boolean {
    if (!this.server) return false;
    let cert: Buffer;
    let key: Buffer;
    try {
      cert = readFileSync(this.opts.certFile);
      key = readFileSync(this.opts.keyFile);
    } catch (e) {
      this.log.warn('cannot read TLS files; still serving the previous certificate', { err: e as Error });
      return false;
    }
    if (this.lastAttempt && cert.equals(this.lastAttempt.cert) && key.equals(this.lastAttempt.key)) return false;
    this.lastAttempt = { cert, key };
    const weak = weakKeyReason(cert);
    if (weak) {
      this.log.error('new TLS certificate refused; still serving the previous certificate', { certFile: this.opts.certFile, reason: weak, fix: WEAK_KEY_FIX, ...this.describeCert(cert) });
      return false;
    }
    try {
      this.server.setSecureContext({ cert, key, minVersion: this.opts.minTlsVersion ?? 'TLSv1.3' });
    } catch (e) {
      // Rotation writes cert and key one after the other; the pair may be inconsistent for a moment.
      this.log.warn('new TLS files are not a usable pair yet; still serving the previous certificate', { err: e as Error });
      return false;
    }
    this.material = { cert, key };
    this.log.info('reloaded TLS certificate', this.describeCert(cert));
    return true;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    const server = this.server;
    if (!server) return;
    await closeServer(server);
    this.server = undefined;
  }

  private isRoute(path: string): boolean {
    return this.opts.handler ? this.opts.handler.isRoute(path) : isReviewPath(path);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/healthz' || path === '/livez') return sendText(res, 200, 'ok');
    if (path === '/readyz' || path === '/readyz/') {
      return this.stopping || !this.material ? sendText(res, 503, 'shutting down') : sendText(res, 200, 'ok');
    }
    if (path === '/metrics') {
      this.metrics.registry.metrics().then(
        (text) => sendText(res, 200, text, this.metrics.registry.contentType),
        (err: Error) => sendText(res, 500, `cannot collect metrics: ${err.message}\n`),
      );
      return;
    }
    this.metrics.track(this.isRoute(path) ? path : OTHER_PATH, res);
    if (req.method !== 'POST' && this.isRoute(path)) {
      // The API server only POSTs reviews; anything else is a probe or a mistake, answered before any body is read.
      this.metrics.requests.inc({ path, verdict: 'malformed' });
      req.resume();
      res.setHeader('Allow', 'POST');
      return sendText(res, 405, `method ${req.method ?? ''} is not allowed on ${path}; admission reviews are sent with POST\n`);
    }
    const started = performance.now();
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      void this.answer(path, req, res, tooLarge ? undefined : Buffer.concat(chunks, size), tooLarge, started);
    };
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) {
        size += chunk.length;
        if (size > DRAIN_LIMIT_BYTES) {
          res.setHeader('Connection', 'close');
          finish();
          req.destroy();
        }
        return;
      }
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // Keep reading (and discarding) so that the client gets to read our answer.
        tooLarge = true;
        chunks.length = 0;
      } else {
        chunks.push(chunk);
      }
    });
    req.on('end', finish);
    req.on('error', (err) => this.log.debug('request stream failed', { err }));
  }

  private async answer(path: string, req: IncomingMessage, res: ServerResponse, body: Buffer | undefined, tooLarge: boolean, started: number): Promise<void> {
    let outcome;
    try {
      const input = { path, contentType: req.headers['content-type'], body, tooLarge };
      outcome = await (this.opts.handler ? this.opts.handler.handle(input) : review(input, this.opts.review));
    } catch (e) {
      this.log.error('admission handler failed', { path, err: e as Error });
      outcome = { body: { response: { uid: '', allowed: false, status: { metadata: {}, message: `internal error: ${errorMessage(e)}`, code: 500 } } }, verdict: 'errored', code: 500 };
    }
    const payload = JSON.stringify(outcome.body);
    // Unknown paths share one label value: a label per raw path lets any client grow /metrics without bound.
    this.metrics.requests.inc({ path: this.isRoute(path) ? path : OTHER_PATH, verdict: outcome.verdict });
    if (!res.destroyed) {
      res.writeHead(outcome.code === 404 && outcome.verdict === 'malformed' ? 404 : 200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) });
      res.end(payload, () => this.metrics.duration.observe((performance.now() - started) / 1000));
    }
    // An answer that lets the request through is routine (debug); a refusal is what an operator looks for (info).
    const level = outcome.verdict === 'allowed' || outcome.verdict === 'patched' ? 'debug' : 'info';
    if (this.log.enabled(level)) {
      const ms = performance.now() - started;
      const o = outcome as Awaited<ReturnType<typeof review>>;
      this.log[level](this.opts.handler?.name ?? 'admission', {
        uid: o.uid,
        path,
        kind: o.kind,
        namespace: o.namespace,
        name: o.name,
        operation: o.operation,
        verdict: o.verdict,
        code: o.code,
        ...(o.message !== undefined ? { message: o.message } : {}),
        ms: Math.round(ms * 1000) / 1000,
      });
    }
  }
}

/** The `path` label of every request to a path that serves no review. */
export const OTHER_PATH = 'other';

function sendText(res: ServerResponse, code: number, text: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
