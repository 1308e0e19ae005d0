// The cluster proxy against a member stand-in on loopback: what the member receives (its credentials, the
// caller impersonated, the caller's own identity headers dropped), an answer streamed chunk by chunk as the
// member writes it, and an upgraded connection piped both ways.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { connect as netConnect, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterProxyHandler } from '../../src/apiserver/cluster-proxy.js';
import { requestInfo } from '../../src/apiserver/request-info.js';
import { StatusError } from '../../src/apiserver/status.js';
import type { RestClient } from '../../src/kube/rest.js';

const dir = mkdtempSync(join(tmpdir(), 'karmada-lite-proxy-'));
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

let member: HttpsServer;
let front: HttpServer;
let frontPort = 0;
const received: { url: string; headers: IncomingHttpHeaders }[] = [];
let releaseSecond: () => void = () => undefined;
let memberPort = 0;
let tunnelProxy: HttpServer;
const connects: { target: string; rawHeaders: string[] }[] = [];
const user = { name: 'alice', groups: ['team-a', 'system:authenticated'], extra: { scopes: ['x'] } };

beforeAll(async () => {
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=member-ca');
  writeFileSync(join(dir, 'ext'), 'extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n');
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'm.key', '-out', 'm.csr', '-subj', '/CN=member');
  openssl('x509', '-req', '-in', 'm.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', '7', '-days', '2', '-extfile', 'ext', '-out', 'm.crt');
  member = createHttpsServer({ cert: readFileSync(join(dir, 'm.crt')), key: readFileSync(join(dir, 'm.key')) }, (req, res) => {
    received.push({ url: req.url ?? '', headers: req.headers });
    // the object only m1's credentials see, for clusters/*/proxy to find
    if (req.url === '/api/v1/namespaces/d/pods/owned' && req.headers.authorization !== 'Bearer member-token') {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      return void res.end('{"kind":"Status","code":404}');
    }
    if (req.url?.startsWith('/stream')) {
      res.writeHead(200, { 'Content-Type': 'application/json;stream=watch' });
      res.write('first\n');
      new Promise<void>((r) => (releaseSecond = r)).then(() => res.end('second\n'));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"ok":true}');
  });
  member.on('upgrade', (req, socket) => {
    received.push({ url: req.url ?? '', headers: req.headers });
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: SPDY/3.1\r\nConnection: Upgrade\r\n\r\n');
    socket.on('data', (d: Buffer) => socket.write(d.toString().toUpperCase()));
  });
  await new Promise<void>((r) => member.listen(0, '127.0.0.1', r));
  memberPort = (member.address() as AddressInfo).port;
  const apiEndpoint = `https://127.0.0.1:${memberPort}`;
  // a forward proxy that only tunnels (CONNECT), as a corporate one would
  tunnelProxy = createHttpServer((_req, res) => res.writeHead(405).end());
  tunnelProxy.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    connects.push({ target: req.url ?? '', rawHeaders: req.rawHeaders });
    const [h, p] = (req.url ?? '').split(':');
    const upstream = netConnect(Number(p), h!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const close = () => (upstream.destroy(), client.destroy());
    upstream.on('error', close);
    client.on('error', close);
  });
  await new Promise<void>((r) => tunnelProxy.listen(0, '127.0.0.1', r));
  const ca = b64(readFileSync(join(dir, 'ca.crt')));
  const clusters: Record<string, any> = {
    m1: { metadata: { name: 'm1' }, spec: { apiEndpoint, syncMode: 'Push', secretRef: { namespace: 'karmada-cluster', name: 'm1' } } },
    // behind a proxy, with headers for its CONNECT (a value with a comma is several values, as Karmada splits it)
    m2: { metadata: { name: 'm2' }, spec: { apiEndpoint, syncMode: 'Push', secretRef: { namespace: 'karmada-cluster', name: 'm2' }, proxyURL: `http://127.0.0.1:${(tunnelProxy.address() as AddressInfo).port}`, proxyHeader: { 'X-Proxy-Token': 'one,two' } } },
    // Pull, registered by its agent with an endpoint and an impersonator Secret only
    m3: { metadata: { name: 'm3' }, spec: { apiEndpoint, syncMode: 'Pull', insecureSkipTLSVerification: true, impersonatorSecretRef: { namespace: 'karmada-cluster', name: 'm3-impersonator' } } },
    // Pull with neither Secret: nothing to reach it with
    m4: { metadata: { name: 'm4' }, spec: { apiEndpoint, syncMode: 'Pull' } },
  };
  const secrets: Record<string, any> = {
    m1: { data: { token: b64('member-token'), caBundle: ca } },
    m2: { data: { token: b64('proxied-token'), caBundle: ca } },
    'm3-impersonator': { data: { token: b64('impersonator-token') } },
  };
  const notFound = () => Object.assign(new Error('not found'), { code: 404 });
  const host = {
    async request(_m: string, p: string) {
      if (/\/clusters$/.test(p)) return { items: Object.values(clusters) };
      const c = /\/clusters\/([^/?]+)/.exec(p);
      if (c) return clusters[c[1]!] ?? Promise.reject(notFound());
      const s = /\/secrets\/([^/?]+)/.exec(p);
      return (s && secrets[s[1]!]) ?? Promise.reject(notFound());
    },
  } as unknown as RestClient;
  const proxy = clusterProxyHandler(host);
  // the aggregated server's part (authentication, authorization) is left out: the handler alone
  front = createHttpServer((req, res) => {
    const ctx = { user, info: requestInfo(req.method ?? 'GET', req.url ?? '/'), signal: new AbortController().signal };
    Promise.resolve(proxy.handle(req, res, ctx)).catch((e: Error) => {
      res.writeHead(e instanceof StatusError ? e.code : 500);
      res.end(e.message);
    });
  });
  // a refusal as the aggregated server writes it (server.ts onUpgrade)
  front.on('upgrade', (req, socket, head) =>
    void Promise.resolve(proxy.upgrade!(req, socket, head, { user, info: requestInfo(req.method ?? 'GET', req.url ?? '/'), signal: new AbortController().signal })).catch((e: Error) => {
      const code = e instanceof StatusError ? e.code : 500;
      socket.end(`HTTP/1.1 ${code} x\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(e.message)}\r\nConnection: close\r\n\r\n${e.message}`);
    }),
  );
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  frontPort = (front.address() as AddressInfo).port;
});

afterAll(() => {
  tunnelProxy.close();
  front.closeAllConnections();
  member.closeAllConnections();
  front.close();
  member.close();
});

const PREFIX = '/apis/cluster.karmada.io/v1alpha1/clusters/m1/proxy';

describe('clusterProxyHandler', () => {
  it("sends the member's credentials and the caller's name and groups, and none of the caller's own identity headers", async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const req = httpRequest({ port: frontPort, host: '127.0.0.1', path: `${PREFIX}/api/v1/namespaces?limit=5`, headers: { Authorization: 'Bearer caller', 'X-Remote-User': 'mallory', 'Impersonate-User': 'system:admin', Accept: 'application/json' } }, (res) => {
        let t = '';
        res.on('data', (c: Buffer) => (t += c.toString()));
        res.on('end', () => resolve(t));
      });
      req.on('error', reject);
      req.end();
    });
    expect(text).toBe('{"ok":true}');
    const got = received.at(-1)!;
    expect(got.url).toBe('/api/v1/namespaces?limit=5');
    expect(got.headers.authorization).toBe('Bearer member-token');
    expect(got.headers['impersonate-user']).toBe('alice');
    expect(got.headers['impersonate-group']).toBe('team-a');
    expect(got.headers['x-remote-user']).toBeUndefined();
    expect(got.headers.accept).toBe('application/json');
  });

  it('passes each chunk on as the member writes it, before the member has finished', async () => {
    const chunks: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest({ port: frontPort, host: '127.0.0.1', path: `${PREFIX}/stream?watch=true` }, (res) => {
        res.on('data', (c: Buffer) => {
          chunks.push(c.toString());
          // the member writes the second line only once the first has reached the client
          if (chunks.join('').includes('first')) releaseSecond();
        });
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
    expect(chunks.join('')).toBe('first\nsecond\n');
  });

  it('pipes an upgraded connection both ways', async () => {
    expect(await upgradeEcho(`${PREFIX}/api/v1/namespaces/d/pods/p/exec?command=sh`)).toBe('HELLO');
    const got = received.at(-1)!;
    expect(got.url).toBe('/api/v1/namespaces/d/pods/p/exec?command=sh');
    expect(got.headers['impersonate-user']).toBe('alice');
    expect(got.headers.upgrade).toBe('SPDY/3.1');
  });

  it("answers an unknown cluster with Karmada's NotFound", async () => {
    const r = await answer('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/nope/proxy/api');
    expect(r).toEqual({ status: 404, text: 'clusters.cluster.karmada.io "nope" not found' });
  });

  it('reaches a member behind spec.proxyURL through a CONNECT tunnel that carries spec.proxyHeader, TLS checked end to end', async () => {
    const r = await answer('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/m2/proxy/api/v1/namespaces');
    expect(r).toEqual({ status: 200, text: '{"ok":true}' });
    const c = connects.at(-1)!;
    expect(c.target).toBe(`127.0.0.1:${memberPort}`);
    const values = c.rawHeaders.filter((_, i) => i % 2 === 1 && c.rawHeaders[i - 1]!.toLowerCase() === 'x-proxy-token');
    expect(values).toEqual(['one', 'two']);
    const got = received.at(-1)!;
    expect(got.headers.authorization).toBe('Bearer proxied-token');
    expect(got.headers['impersonate-user']).toBe('alice');
    // an upgrade takes the same tunnel
    const before = connects.length;
    expect(await upgradeEcho('/apis/cluster.karmada.io/v1alpha1/clusters/m2/proxy/api/v1/namespaces/d/pods/p/exec?command=sh')).toBe('HELLO');
    expect(connects.length).toBe(before + 1);
  });

  it("proxies to a Pull cluster with its impersonator's token, as Karmada does, and says what is missing when it has no Secret", async () => {
    expect(await answer('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/m3/proxy/api/v1/namespaces')).toEqual({ status: 200, text: '{"ok":true}' });
    expect(received.at(-1)!.headers.authorization).toBe('bearer impersonator-token');
    expect(received.at(-1)!.headers['impersonate-user']).toBe('alice');
    expect(await answer('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/m4/proxy/api/v1/namespaces')).toEqual({ status: 500, text: 'the impersonatorSecretRef of cluster m4 is nil' });
  });

  it('upgrades through clusters/*/proxy to the one cluster that has the named object, answers Karmada\'s 409 when several do, and refuses a path that names none', async () => {
    expect(await upgradeEcho('/apis/cluster.karmada.io/v1alpha1/clusters/*/proxy/api/v1/namespaces/d/pods/owned/exec?command=sh')).toBe('HELLO');
    expect(received.at(-1)!.url).toBe('/api/v1/namespaces/d/pods/owned/exec?command=sh');
    expect(received.at(-1)!.headers.authorization).toBe('Bearer member-token');
    expect(await upgradeRefusal('/apis/cluster.karmada.io/v1alpha1/clusters/*/proxy/api/v1/namespaces/d/pods/p/exec?command=sh')).toEqual({ status: 409, text: 'conflict resource, exist in more than one cluster: m1,m2,m3' });
    const none = await upgradeRefusal('/apis/cluster.karmada.io/v1alpha1/clusters/*/proxy/api/v1/namespaces/d/pods?watch=true');
    expect(none.status).toBe(400);
    expect(none.text).toContain('clusters/*/proxy upgrades a connection only for a named object');
  });
});

/** A request through the front, its status and body. */
function answer(method: string, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port: frontPort, host: '127.0.0.1', method, path }, (res) => {
      let t = '';
      res.on('data', (c: Buffer) => (t += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: t }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** An upgrade through the front; what the member echoes back of "hello". */
function upgradeEcho(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port: frontPort, host: '127.0.0.1', method: 'POST', path, headers: { Connection: 'Upgrade', Upgrade: 'SPDY/3.1' } });
    req.on('upgrade', (res, socket) => {
      if (res.statusCode !== 101) reject(new Error(`upgraded with ${res.statusCode}`));
      socket.on('data', (d: Buffer) => {
        resolve(d.toString());
        socket.destroy();
      });
      socket.write('hello');
    });
    req.on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
    req.on('error', reject);
    req.end();
  });
}

/** An upgrade the front answers without upgrading: its status and body. */
function upgradeRefusal(path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port: frontPort, host: '127.0.0.1', method: 'POST', path, headers: { Connection: 'Upgrade', Upgrade: 'SPDY/3.1' } });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      reject(new Error('upgraded'));
    });
    req.on('response', (res) => {
      let t = '';
      res.on('data', (c: Buffer) => (t += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: t }));
    });
    req.on('error', reject);
    req.end();
  });
}
