// A member behind a proxy: the Cluster's spec.proxyURL, with spec.proxyHeader sent on the proxy's CONNECT
// (Karmada's proxy transport and upgrade dialer both do: pkg/util/proxy). The member's own TLS runs inside
// the tunnel, so its CA and client certificate are checked end to end as without a proxy.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type ClientRequestArgs, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions as HttpsRequestOptions } from 'node:https';
import { isIP, type Socket } from 'node:net';
import { PassThrough, type Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { StatusError } from './status.js';

type Callback = (err: Error | null, stream: Duplex) => void;
type Tunnelled = (err: Error | null, socket?: Socket) => void;

/** spec.proxyHeader as Karmada reads it: each value split at commas into several values of that header. */
export function proxyHeaders(proxyHeader: Record<string, string> | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(proxyHeader ?? {})) out[k] = String(v).split(',');
  return out;
}

/** The proxy's URL, or the 500 Karmada answers for one that does not parse; schemes other than http and https are refused by name. */
export function parseProxyURL(cluster: string, proxyURL: string): URL {
  let u: URL;
  try {
    u = new URL(proxyURL);
  } catch (e) {
    throw new StatusError(500, `failed to parse url of proxy url ${proxyURL}: ${(e as Error).message}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new StatusError(500, `cluster ${cluster}: spec.proxyURL ${proxyURL}: only http:// and https:// proxies are supported (karmada-lite has no SOCKS dialer)`);
  return u;
}

/** Opens a CONNECT tunnel through `proxy` to host:port. */
function tunnel(proxy: URL, headers: Record<string, string[]>, host: string, port: number, done: Tunnelled): void {
  const target = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const h: Record<string, string | string[]> = { ...headers, host: target };
  if (proxy.username || proxy.password) h['proxy-authorization'] = `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
  const opts = { method: 'CONNECT', host: proxy.hostname, port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80), path: target, headers: h, agent: false, setHost: false } as const;
  const req: ClientRequest = proxy.protocol === 'https:' ? httpsRequest({ ...opts, servername: proxy.hostname }) : httpRequest(opts);
  req.once('connect', (res: IncomingMessage, socket: Socket) => {
    if (res.statusCode === 200) return done(null, socket);
    socket.destroy();
    done(new Error(`proxy ${proxy.host} refused CONNECT ${target}: ${res.statusCode} ${res.statusMessage ?? ''}`.trim()));
  });
  req.once('error', (e) => done(new Error(`proxy ${proxy.host}: ${e.message}`)));
  req.end();
}

class HttpsTunnelAgent extends HttpsAgent {
  constructor(
    private readonly proxy: URL,
    private readonly headers: Record<string, string[]>,
  ) {
    super({ keepAlive: false });
  }

  // node's Agent takes the socket through the callback when createConnection returns nothing
  override createConnection(options: HttpsRequestOptions, done?: Callback): undefined {
    const host = options.host ?? 'localhost';
    tunnel(this.proxy, this.headers, host, Number(options.port ?? 443), (err, raw) => {
      if (err || !raw) return done?.(err ?? new Error('no tunnel'), new PassThrough());
      // an IP address is no server name (SNI); `host` is what the certificate is checked against
      const servername = options.servername ?? (isIP(host) ? undefined : host);
      const tls: ConnectionOptions = { ca: options.ca, cert: options.cert, key: options.key, rejectUnauthorized: options.rejectUnauthorized, minVersion: options.minVersion, socket: raw, host, ...(servername ? { servername } : {}) };
      done?.(null, tlsConnect(tls));
    });
    return undefined;
  }
}

class HttpTunnelAgent extends HttpAgent {
  constructor(
    private readonly proxy: URL,
    private readonly headers: Record<string, string[]>,
  ) {
    super({ keepAlive: false });
  }

  override createConnection(options: ClientRequestArgs, done?: Callback): undefined {
    tunnel(this.proxy, this.headers, options.host ?? 'localhost', Number(options.port ?? 80), (err, raw) => done?.(err, raw ?? new PassThrough()));
    return undefined;
  }
}

/** An agent whose connections to the member go through the proxy; one per request, as Karmada keeps no connection alive. */
export function tunnelAgent(proxy: URL, headers: Record<string, string[]>, memberProtocol: string): HttpAgent {
  return memberProtocol === 'http:' ? new HttpTunnelAgent(proxy, headers) : new HttpsTunnelAgent(proxy, headers);
}
