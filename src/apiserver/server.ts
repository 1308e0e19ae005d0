// The aggregated API server: one HTTPS server that the host kube-apiserver's aggregator calls for the
// APIServices registered to it (search.karmada.io/v1alpha1, cluster.karmada.io/v1alpha1). Every request is
// authenticated by the front proxy's request headers (authn.ts), authorized by a SubjectAccessReview against
// the host (authz.ts) and handed to the handler owning the longest matching path prefix.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { createSecureContext, type SecureContextOptions, type SecureVersion } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createLogger, type Logger } from '../runtime/log.js';
import { closeServer } from '../runtime/http.js';
import { authenticate, type RequestHeaderConfig } from './authn.js';
import type { Decision } from './authz.js';
import { requestInfo } from './request-info.js';
import { forbiddenMessage, sendJson, sendStatus, statusBody, StatusError } from './status.js';
import type { ApiGroupResources, ApiHandler, RequestInfo, UserInfo } from './types.js';
import { errorMessage } from '../json/error.js';

export interface Authorizer {
  authorize(user: UserInfo, info: RequestInfo): Promise<Decision>;
}

export interface AggregatedServerOptions {
  handlers: ApiHandler[];
  discovery: ApiGroupResources[];
  certFile: string;
  keyFile: string;
  /** The request-header settings; a function is asked again on every certificate reload (a rotated CA). */
  requestHeader: RequestHeaderConfig | (() => Promise<RequestHeaderConfig>);
  authorizer: Authorizer;
  /** 0 picks a free port (tests). */
  port: number;
  bindAddress: string;
  reloadIntervalMs?: number;
  minTlsVersion?: SecureVersion;
  logger?: Logger;
}

const NOT_FOUND = 'the server could not find the requested resource';

/** An HTTP answer written straight onto a socket whose request asked for an upgrade. */
function writeRawJson(socket: Duplex, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  socket.end(`HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}

/** Paths served to anyone, before authentication: the kubelet's and load balancers' probes. */
const HEALTH_PATHS = new Set(['/healthz', '/livez', '/readyz']);

export class AggregatedServer {
  private server?: Server;
  private timer?: NodeJS.Timeout;
  private lastFiles?: { cert: Buffer; key: Buffer; ca: string };
  private requestHeader?: RequestHeaderConfig;
  private stopping = false;
  private readonly sockets = new Set<Duplex>();
  readonly log: Logger;

  constructor(private readonly opts: AggregatedServerOptions) {
    this.log = opts.logger ?? createLogger();
    // longest prefix first, so a handler of a deeper path wins over one of its parent
    this.handlers = [...opts.handlers].sort((a, b) => b.prefix.length - a.prefix.length);
  }

  private readonly handlers: ApiHandler[];

  private async loadRequestHeader(): Promise<RequestHeaderConfig> {
    const rh = this.opts.requestHeader;
    return typeof rh === 'function' ? rh() : rh;
  }

  private readTls(ca: string): SecureContextOptions & { cert: Buffer; key: Buffer } {
    let cert: Buffer;
    let key: Buffer;
    try {
      cert = readFileSync(this.opts.certFile);
    } catch (e) {
      throw new Error(`cannot read --tls-cert-file ${this.opts.certFile}: ${errorMessage(e)}`);
    }
    try {
      key = readFileSync(this.opts.keyFile);
    } catch (e) {
      throw new Error(`cannot read --tls-private-key-file ${this.opts.keyFile}: ${errorMessage(e)}`);
    }
    const ctx = { cert, key, ca, minVersion: this.opts.minTlsVersion ?? 'TLSv1.2' } as const;
    try {
      createSecureContext(ctx);
    } catch (e) {
      throw new Error(`--tls-cert-file ${this.opts.certFile}, --tls-private-key-file ${this.opts.keyFile} and the request-header CA are not usable together: ${errorMessage(e)}`);
    }
    return { ...ctx };
  }

  async start(): Promise<AddressInfo> {
    this.requestHeader = await this.loadRequestHeader();
    const tls = this.readTls(this.requestHeader.clientCA);
    this.lastFiles = { cert: tls.cert, key: tls.key, ca: this.requestHeader.clientCA };
    // The client certificate is asked for but not required by TLS: a request without one gets a 401 Status
    // that says why, instead of a handshake failure that says nothing.
    const server = createServer({ ...tls, requestCert: true, rejectUnauthorized: false }, (req, res) => void this.onRequest(req, res));
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.onUpgrade(req, socket, head));
    // watches and proxied streams run for as long as the client keeps them
    server.requestTimeout = 0;
    server.headersTimeout = 30_000;
    server.keepAliveTimeout = 120_000;
    server.on('tlsClientError', (err) => this.log.debug('TLS handshake failed', { err }));
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.bindAddress, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.timer = setInterval(() => void this.reloadIfChanged(), this.opts.reloadIntervalMs ?? 1000);
    this.timer.unref();
    const addr = server.address() as AddressInfo;
    this.log.info('aggregated apiserver serving', { address: addr.address, port: addr.port, groupVersions: this.opts.discovery.map((d) => d.groupVersion) });
    return addr;
  }

  /** The serving pair and the request-header CA, read again; a broken new set is logged and the old one kept. */
  async reloadIfChanged(): Promise<boolean> {
    if (!this.server) return false;
    try {
      const rh = await this.loadRequestHeader();
      const cert = readFileSync(this.opts.certFile);
      const key = readFileSync(this.opts.keyFile);
      const last = this.lastFiles;
      if (last && cert.equals(last.cert) && key.equals(last.key) && rh.clientCA === last.ca) {
        this.requestHeader = rh;
        return false;
      }
      this.lastFiles = { cert, key, ca: rh.clientCA };
      this.server.setSecureContext({ cert, key, ca: rh.clientCA, minVersion: this.opts.minTlsVersion ?? 'TLSv1.2' });
      this.requestHeader = rh;
      this.log.info('reloaded TLS certificate and request-header CA');
      return true;
    } catch (e) {
      // rotation writes cert and key one after the other; the pair may not match for a moment
      this.log.warn('cannot load new TLS files; still serving the previous ones', { err: e as Error });
      return false;
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    const server = this.server;
    if (!server) return;
    await closeServer(server, this.sockets);
    this.server = undefined;
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    if (HEALTH_PATHS.has(path) || HEALTH_PATHS.has(path.replace(/\/$/, ''))) {
      const ok = !(path.startsWith('/readyz') && this.stopping);
      const text = ok ? 'ok' : 'shutting down';
      res.writeHead(ok ? 200 : 503, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': text.length });
      res.end(text);
      return;
    }
    const admitted = await this.admit(req);
    if ('code' in admitted) {
      req.resume();
      return sendJson(res, admitted.code, admitted.body);
    }
    const { user, info, handler } = admitted;
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    try {
      await handler.handle(req, res, { user, info, signal: abort.signal });
    } catch (e) {
      if (e instanceof StatusError) return sendStatus(res, e.code, e.message, e.details);
      this.log.error('handler failed', { path, err: e as Error });
      sendStatus(res, 500, errorMessage(e));
    }
  }

  /** `Connection: Upgrade` requests (exec, port-forward): the same checks, then the handler owns the socket. */
  private async onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', (err) => this.log.debug('upgraded connection failed', { err }));
    const admitted = await this.admit(req);
    if ('code' in admitted) return writeRawJson(socket, admitted.code, admitted.body);
    const { user, info, handler } = admitted;
    if (!handler.upgrade) return writeRawJson(socket, 400, statusBody(400, `${info.path} does not support connection upgrades`));
    const abort = new AbortController();
    socket.once('close', () => abort.abort());
    try {
      await handler.upgrade(req, socket, head, { user, info, signal: abort.signal });
    } catch (e) {
      const code = e instanceof StatusError ? e.code : 500;
      if (!(e instanceof StatusError)) this.log.error('upgrade handler failed', { path: info.path, err: e as Error });
      writeRawJson(socket, code, statusBody(code, errorMessage(e)));
    }
  }

  /** Authentication, discovery, authorization and routing: the handler to run, or the answer to give instead. */
  private async admit(req: IncomingMessage): Promise<{ user: UserInfo; info: RequestInfo; handler: ApiHandler } | { code: number; body: unknown }> {
    const path = (req.url ?? '/').split('?')[0]!;
    const auth = authenticate(req, this.requestHeader!);
    if ('error' in auth) {
      this.log.debug('request refused: not authenticated', { path, reason: auth.error });
      return { code: 401, body: statusBody(401, 'Unauthorized') };
    }
    const { user } = auth;
    const info = requestInfo(req.method ?? 'GET', req.url ?? '/');
    const discovery = this.discovery(info);
    if (discovery !== undefined) {
      // Discovery is served to every caller the front proxy vouches for, as system:discovery allows every
      // authenticated user: it names resources, it shows none.
      return discovery === null ? { code: 404, body: statusBody(404, NOT_FOUND) } : { code: 200, body: discovery };
    }
    let decision: Decision;
    try {
      decision = await this.opts.authorizer.authorize(user, info);
    } catch (e) {
      this.log.warn('SubjectAccessReview failed', { path, user: user.name, err: e as Error });
      return { code: 500, body: statusBody(500, `cannot authorize the request: the SubjectAccessReview against the host failed: ${errorMessage(e)}`) };
    }
    if (!decision.allowed) {
      const details = info.isResourceRequest ? { ...(info.name ? { name: info.name } : {}), group: info.apiGroup, kind: info.resource } : undefined;
      return { code: 403, body: statusBody(403, forbiddenMessage(user.name, info, decision.reason), details) };
    }
    const handler = this.handlers.find((h) => path.startsWith(h.prefix) || path === h.prefix.replace(/\/$/, ''));
    if (!handler) return { code: 404, body: statusBody(404, NOT_FOUND) };
    return { user, info, handler };
  }

  /** The discovery document for a discovery path; null for an unknown group or version; undefined when not discovery. */
  private discovery(info: RequestInfo): unknown {
    const p = info.path.split('/').filter((x) => x);
    if (info.isResourceRequest || p[0] !== 'apis' || p.length > 3) return undefined;
    const groups = groupsOf(this.opts.discovery);
    if (p.length === 1) return { kind: 'APIGroupList', apiVersion: 'v1', groups: [...groups.values()] };
    const group = groups.get(p[1]!);
    if (!group) return null;
    if (p.length === 2) return { kind: 'APIGroup', apiVersion: 'v1', ...group };
    const gv = `${p[1]}/${p[2]}`;
    const r = this.opts.discovery.find((d) => d.groupVersion === gv);
    if (!r) return null;
    return {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: gv,
      resources: r.resources.map((x) => ({ name: x.name, singularName: '', namespaced: x.namespaced, kind: x.kind, verbs: x.verbs })),
    };
  }
}

function groupsOf(discovery: ApiGroupResources[]): Map<string, { name: string; versions: { groupVersion: string; version: string }[]; preferredVersion: { groupVersion: string; version: string } }> {
  const out = new Map<string, { name: string; versions: { groupVersion: string; version: string }[]; preferredVersion: { groupVersion: string; version: string } }>();
  for (const d of discovery) {
    const [name, version] = d.groupVersion.split('/') as [string, string];
    const v = { groupVersion: d.groupVersion, version };
    const g = out.get(name);
    if (g) g.versions.push(v);
    else out.set(name, { name, versions: [v], preferredVersion: v });
  }
  return out;
}

export function createAggregatedServer(opts: AggregatedServerOptions): AggregatedServer {
  return new AggregatedServer(opts);
}
