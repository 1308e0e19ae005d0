// The cluster proxy against a member stand-in on loopback: what the member receives (its credentials, the
// caller impersonated, the caller's own identity headers dropped), an answer streamed chunk by chunk as the
// member writes it, and an upgraded connection piped both ways.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
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
const user = { name: 'alice', groups: ['team-a', 'system:authenticated'], extra: { scopes: ['x'] } };

beforeAll(async () => {
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=member-ca');
  writeFileSync(join(dir, 'ext'), 'extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n');
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'm.key', '-out', 'm.csr', '-subj', '/CN=member');
  openssl('x509', '-req', '-in', 'm.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', '7', '-days', '2', '-extfile', 'ext', '-out', 'm.crt');
  member = createHttpsServer({ cert: readFileSync(join(dir, 'm.crt')), key: readFileSync(join(dir, 'm.key')) }, (req, res) => {
    received.push({ url: req.url ?? '', headers: req.headers });
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
  const cluster = { metadata: { name: 'm1' }, spec: { apiEndpoint: `https://127.0.0.1:${(member.address() as AddressInfo).port}`, syncMode: 'Push', secretRef: { namespace: 'karmada-cluster', name: 'm1' } } };
  const secret = { data: { token: b64('member-token'), caBundle: b64(readFileSync(join(dir, 'ca.crt'))) } };
  const host = {
    async request(_m: string, p: string) {
      if (p.includes('/clusters/m1')) return cluster;
      if (p.includes('/clusters/')) throw Object.assign(new Error('not found'), { code: 404 });
      return secret;
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
  front.on('upgrade', (req, socket, head) => void proxy.upgrade!(req, socket, head, { user, info: requestInfo(req.method ?? 'GET', req.url ?? '/'), signal: new AbortController().signal }));
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  frontPort = (front.address() as AddressInfo).port;
});

afterAll(() => {
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
    const echoed = await new Promise<string>((resolve, reject) => {
      const req = httpRequest({ port: frontPort, host: '127.0.0.1', method: 'POST', path: `${PREFIX}/api/v1/namespaces/d/pods/p/exec?command=sh`, headers: { Connection: 'Upgrade', Upgrade: 'SPDY/3.1' } });
      req.on('upgrade', (res, socket) => {
        expect(res.statusCode).toBe(101);
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
    expect(echoed).toBe('HELLO');
    const got = received.at(-1)!;
    expect(got.url).toBe('/api/v1/namespaces/d/pods/p/exec?command=sh');
    expect(got.headers['impersonate-user']).toBe('alice');
    expect(got.headers.upgrade).toBe('SPDY/3.1');
  });

  it("answers an unknown cluster with Karmada's NotFound", async () => {
    const r = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest({ port: frontPort, host: '127.0.0.1', path: '/apis/cluster.karmada.io/v1alpha1/clusters/nope/proxy/api' }, (res) => {
        let t = '';
        res.on('data', (c: Buffer) => (t += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: t }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(r).toEqual({ status: 404, text: 'clusters.cluster.karmada.io "nope" not found' });
  });
});
