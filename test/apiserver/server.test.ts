// The aggregated server over real TLS: request-header authentication (front-proxy CA and allowed names),
// authorization before any handler runs, discovery, health checks, Status errors.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AggregatedServer } from '../../src/apiserver/server.js';
import { createLogger } from '../../src/runtime/log.js';
import type { RequestInfo, UserInfo } from '../../src/apiserver/types.js';

const dir = mkdtempSync(join(tmpdir(), 'karmada-lite-aggregated-'));
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

function ca(name: string): void {
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`);
}
function issue(caName: string, name: string, cn: string, usage: 'serverAuth' | 'clientAuth'): void {
  writeFileSync(join(dir, `${name}.ext`), `extendedKeyUsage=${usage}\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n`);
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
  openssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${caName}.crt`, '-CAkey', `${caName}.key`, '-set_serial', String(Date.now()), '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.crt`);
}
const file = (n: string) => readFileSync(join(dir, n));

let server: AggregatedServer;
let port = 0;
const seen: { user: UserInfo; info: RequestInfo }[] = [];
const asked: { user: UserInfo; info: RequestInfo }[] = [];

beforeAll(async () => {
  ca('serving-ca');
  ca('front-proxy-ca');
  ca('other-ca');
  issue('serving-ca', 'serving', 'localhost', 'serverAuth');
  issue('front-proxy-ca', 'front-proxy', 'front-proxy-client', 'clientAuth');
  issue('front-proxy-ca', 'wrong-name', 'someone-else', 'clientAuth');
  issue('other-ca', 'stranger', 'front-proxy-client', 'clientAuth');
  server = new AggregatedServer({
    certFile: join(dir, 'serving.crt'),
    keyFile: join(dir, 'serving.key'),
    port: 0,
    bindAddress: '127.0.0.1',
    // reloads only when the test asks, so that the timer never races it
    reloadIntervalMs: 3_600_000,
    requestHeader: {
      clientCA: file('front-proxy-ca.crt').toString(),
      allowedNames: ['front-proxy-client'],
      usernameHeaders: ['X-Remote-User'],
      groupHeaders: ['X-Remote-Group'],
      extraHeaderPrefixes: ['X-Remote-Extra-'],
      uidHeaders: ['X-Remote-Uid'],
    },
    authorizer: {
      async authorize(user, info) {
        asked.push({ user, info });
        return user.name === 'alice' ? { allowed: true } : { allowed: false };
      },
    },
    discovery: [{ groupVersion: 'example.karmada.io/v1alpha1', resources: [{ name: 'things', namespaced: true, kind: 'Thing', verbs: ['get', 'list'] }] }],
    handlers: [
      {
        prefix: '/apis/example.karmada.io/v1alpha1/',
        handle(_req, res, ctx) {
          seen.push({ user: ctx.user, info: ctx.info });
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ ok: true }));
        },
      },
    ],
    logger: createLogger({ level: 'error' }),
  });
  port = (await server.start()).port;
});

afterAll(() => server.stop());

function get(path: string, client: string | undefined, headers: Record<string, string | string[]> = {}): Promise<{ status: number; body: any }> {
  const o: RequestOptions = { host: '127.0.0.1', port, path, ca: file('serving-ca.crt'), headers };
  if (client) Object.assign(o, { cert: file(`${client}.crt`), key: file(`${client}.key`) });
  return new Promise((resolve, reject) => {
    const req = request(o, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: res.headers['content-type']?.includes('json') ? JSON.parse(text) : text }));
    });
    req.on('error', reject);
    req.end();
  });
}

const things = '/apis/example.karmada.io/v1alpha1/namespaces/ns1/things';
const alice = { 'X-Remote-User': 'alice', 'X-Remote-Group': ['team-a', 'team, b'], 'X-Remote-Extra-Scopes': ['s1', 's2'], 'X-Remote-Extra-Acme.com%2Fproject': 'p' };

describe('request-header authentication', () => {
  it('passes the user, every group header and the extras of the front proxy to authorization and the handler', async () => {
    const r = await get(things, 'front-proxy', alice);
    expect(r.status).toBe(200);
    const { user, info } = seen.at(-1)!;
    expect(user).toEqual({ name: 'alice', groups: ['team-a', 'team, b'], extra: { scopes: ['s1', 's2'], 'acme.com/project': ['p'] } });
    expect(info).toMatchObject({ verb: 'list', namespace: 'ns1', resource: 'things', apiGroup: 'example.karmada.io' });
  });

  it('refuses with 401 a request without a client certificate, one from another CA, or a CN not allowed', async () => {
    const before = asked.length;
    for (const client of [undefined, 'stranger', 'wrong-name']) {
      const r = await get(things, client, alice);
      expect(r.status, String(client)).toBe(401);
      expect(r.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    }
    // refused before authorization: the headers of an unauthenticated caller are never believed
    expect(asked.length).toBe(before);
  });

  it('refuses what the authorizer denies with a 403 Status, before the handler runs', async () => {
    const handled = seen.length;
    const r = await get(things, 'front-proxy', { 'X-Remote-User': 'bob' });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403, details: { group: 'example.karmada.io', kind: 'things' } });
    expect(r.body.message).toBe('things.example.karmada.io is forbidden: User "bob" cannot list resource "things" in API group "example.karmada.io" in the namespace "ns1"');
    expect(seen.length).toBe(handled);
  });

  it('treats a front-proxy request that names no user as system:anonymous', async () => {
    const r = await get(things, 'front-proxy');
    expect(r.status).toBe(403);
    expect(asked.at(-1)!.user).toEqual({ name: 'system:anonymous', groups: ['system:unauthenticated'], extra: {} });
  });
});

describe('discovery, health and unknown paths', () => {
  it('serves /apis, the group and the group-version to any caller the front proxy vouches for', async () => {
    expect((await get('/apis', 'front-proxy')).body).toMatchObject({ kind: 'APIGroupList', groups: [{ name: 'example.karmada.io', preferredVersion: { groupVersion: 'example.karmada.io/v1alpha1' } }] });
    expect((await get('/apis/example.karmada.io', 'front-proxy', { 'X-Remote-User': 'bob' })).body).toMatchObject({ kind: 'APIGroup', name: 'example.karmada.io' });
    const rl = await get('/apis/example.karmada.io/v1alpha1', 'front-proxy');
    expect(rl.body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'example.karmada.io/v1alpha1', resources: [{ name: 'things', kind: 'Thing', namespaced: true }] });
    expect((await get('/apis/other.io/v1', 'front-proxy')).status).toBe(404);
    expect((await get('/apis', undefined)).status).toBe(401);
  });

  it('answers /healthz and /readyz without authentication', async () => {
    expect(await get('/healthz', undefined)).toEqual({ status: 200, body: 'ok' });
    expect(await get('/readyz', undefined)).toEqual({ status: 200, body: 'ok' });
  });

  it('answers a path no handler owns with a 404 Status', async () => {
    const r = await get('/apis/other.io/v1/widgets', 'front-proxy', { 'X-Remote-User': 'alice' });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });
});

describe('certificate reload', () => {
  it('serves a renewed certificate to new connections and keeps the old one while the new pair is broken', async () => {
    ca('serving-ca-2');
    issue('serving-ca-2', 'renewed', 'localhost', 'serverAuth');
    const peerIssuer = () =>
      new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, agent: false }, (res) => {
          const cert = (res.socket as import('node:tls').TLSSocket).getPeerCertificate();
          res.resume();
          resolve(String(cert.issuer.CN));
        });
        req.on('error', reject);
        req.end();
      });
    expect(await peerIssuer()).toBe('serving-ca');
    // a key that does not belong to the certificate: refused, the old pair stays
    writeFileSync(join(dir, 'serving.crt'), file('renewed.crt'));
    expect(await server.reloadIfChanged()).toBe(false);
    expect(await peerIssuer()).toBe('serving-ca');
    writeFileSync(join(dir, 'serving.key'), file('renewed.key'));
    expect(await server.reloadIfChanged()).toBe(true);
    expect(await peerIssuer()).toBe('serving-ca-2');
  });
});
