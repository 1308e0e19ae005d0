// The real HTTPS server on a loopback port: health, reviews, bad requests, certificate reload, logs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpsRequest } from 'node:https';
import { connect, type PeerCertificate } from 'node:tls';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { WebhookServer } from '../../src/webhook/server.js';
import { createLogger } from '../../src/runtime/log.js';
import { makePki, type TestPki } from './certs.js';

let pki: TestPki;
let server: WebhookServer;
let port: number;
let certFile: string;
let keyFile: string;
const logLines: Record<string, unknown>[] = [];

interface Reply {
  status: number;
  headers: import('node:http').IncomingHttpHeaders;
  text: string;
  json: any;
  peer: PeerCertificate;
}

function send(path: string, body: string | Buffer | undefined, opts: { method?: string; contentType?: string | null } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {};
    if (opts.contentType !== null) headers['Content-Type'] = opts.contentType ?? 'application/json';
    if (body !== undefined) headers['Content-Length'] = Buffer.byteLength(body);
    const req = httpsRequest({ host: '127.0.0.1', port, path, method: opts.method ?? 'POST', ca: pki.ca, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, peer: (res.socket as import('node:tls').TLSSocket).getPeerCertificate() });
      });
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('timed out: the server left the connection hanging')));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const review = (request: Record<string, unknown>, apiVersion = 'admission.k8s.io/v1') => JSON.stringify({ apiVersion, kind: 'AdmissionReview', request });

const pp = (spec: Record<string, unknown>) => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'web', namespace: 'default', labels: { 'propagationpolicy.karmada.io/permanent-id': 'x' } },
  spec,
});

beforeAll(async () => {
  pki = makePki();
  certFile = join(pki.dir, 'tls.crt');
  keyFile = join(pki.dir, 'tls.key');
  pki.issue(certFile, keyFile, 'first');
  server = new WebhookServer({
    certFile,
    keyFile,
    port: 0,
    bindAddress: '127.0.0.1',
    reloadIntervalMs: 50,
    logger: createLogger({ write: (l) => void logLines.push(JSON.parse(l) as Record<string, unknown>) }),
  });
  port = (await server.start()).port;
});

afterAll(async () => {
  await server?.stop();
});

describe('webhook server', () => {
  it('answers /healthz and /readyz', async () => {
    expect((await send('/healthz', undefined, { method: 'GET' })).text).toBe('ok');
    const ready = await send('/readyz', undefined, { method: 'GET' });
    expect(ready.status).toBe(200);
  });

  it('denies the suspension conflict with 403 Forbidden and logs uid, kind, name and verdict', async () => {
    const r = await send('/validate-propagationpolicy', review({ uid: 'uid-deny', operation: 'CREATE', namespace: 'default', object: pp({ resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default' }], suspension: { dispatching: true, dispatchingOnClusters: { clusterNames: ['m2'] } } }) }));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'uid-deny', allowed: false, status: { code: 403, reason: 'Forbidden' } } });
    expect(r.json.response.status.message).toMatch(/^spec\.suspension\.suspension: Invalid value: .*: suspension dispatching cannot co-exist with dispatchingOnClusters\.clusterNames$/);
    const line = logLines.find((l) => l.uid === 'uid-deny');
    expect(line).toMatchObject({ level: 'info', msg: 'admission', kind: 'PropagationPolicy', name: 'web', namespace: 'default', operation: 'CREATE', verdict: 'denied', code: 403 });
    expect(typeof line!.time).toBe('string');
  });

  it('answers a mutation with a base64 JSONPatch', async () => {
    const object = { ...pp({ resourceSelectors: [{ apiVersion: 'v1', kind: 'Pod' }] }), metadata: { name: 'web', namespace: 'default' } };
    const r = await send('/mutate-propagationpolicy', review({ uid: 'uid-m', operation: 'CREATE', namespace: 'default', object }, 'admission.k8s.io/v1beta1'));
    expect(r.json.apiVersion).toBe('admission.k8s.io/v1beta1');
    expect(r.json.response.patchType).toBe('JSONPatch');
    const ops = JSON.parse(Buffer.from(r.json.response.patch, 'base64').toString()) as { path: string }[];
    expect(ops.map((o) => o.path)).toEqual(['/metadata/labels', '/metadata/finalizers', '/spec/resourceSelectors/0/namespace']);
  });

  describe('bad requests get a 400 AdmissionReview answer', () => {
    it.each([
      ['an empty body', '', undefined, 'request body is empty'],
      ['a body that is not JSON', '{"apiVersion":', undefined, /^request body is not JSON/],
      ['the wrong content type', '{}', 'text/yaml', 'contentType=text/yaml, expected application/json'],
      ['the wrong apiVersion', JSON.stringify({ apiVersion: 'admission.k8s.io/v2', kind: 'AdmissionReview', request: { uid: 'a' } }), undefined, /^unsupported review admission\.k8s\.io\/v2 AdmissionReview/],
    ])('%s', async (_what, body, contentType, message) => {
      const r = await send('/validate-propagationpolicy', body, { contentType });
      expect(r.status).toBe(200);
      expect(r.json.response.allowed).toBe(false);
      expect(r.json.response.status.code).toBe(400);
      expect(r.json.response.status.message).toMatch(message);
    });

    it('a missing request.uid', async () => {
      const r = await send('/validate-propagationpolicy', review({ operation: 'CREATE', object: pp({}) }));
      expect(r.json.response).toMatchObject({ uid: '', allowed: false, status: { code: 400, message: 'request.uid is missing; every AdmissionReview request needs a uid for its response' } });
    });

    it('an object of another kind than the path says', async () => {
      const r = await send('/validate-overridepolicy', review({ uid: 'k', operation: 'CREATE', namespace: 'default', object: pp({}) }));
      expect(r.json.response).toMatchObject({ uid: 'k', allowed: false, status: { code: 400 } });
      expect(r.json.response.status.message).toContain('/validate-overridepolicy only serves OverridePolicy');
    });

    it('a body over 3 MiB, answered after the body is drained so the client reads it', async () => {
      const big = Buffer.alloc(4 * 1024 * 1024, 'x');
      const r = await send('/validate-propagationpolicy', big);
      expect(r.json.response).toMatchObject({ allowed: false, status: { code: 400, message: 'request entity is too large; limit is 3145728 bytes' } });
      // the server is still up
      expect((await send('/healthz', undefined, { method: 'GET' })).text).toBe('ok');
    });

    it('an unknown path gets 404', async () => {
      const r = await send('/validate-nothing', review({ uid: 'x', operation: 'CREATE' }));
      expect(r.status).toBe(404);
      expect(r.json.response.status.code).toBe(404);
    });
  });

  it('accepts application/json with a charset parameter, and refuses a charset other than UTF-8', async () => {
    const body = review({ uid: 'ct', operation: 'CREATE', namespace: 'default', object: pp({ resourceSelectors: [{ apiVersion: 'v1', kind: 'Pod', namespace: 'default' }] }) });
    for (const contentType of ['application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"', 'application/json ; foo=bar']) {
      const r = await send('/validate-propagationpolicy', body, { contentType });
      expect(r.json.response, contentType).toMatchObject({ uid: 'ct', allowed: true });
    }
    const latin = await send('/validate-propagationpolicy', body, { contentType: 'application/json; charset=iso-8859-1' });
    expect(latin.json.response).toMatchObject({ allowed: false, status: { code: 400, message: 'contentType=application/json; charset=iso-8859-1: charset iso-8859-1 is not supported; send UTF-8 JSON' } });
    expect((await send('/validate-propagationpolicy', body, { contentType: 'application/jsonx' })).json.response.status.code).toBe(400);
  });

  it.each(['PUT', 'DELETE', 'GET', 'PATCH'])('answers %s on a review path with 405 and Allow: POST', async (method) => {
    const body = method === 'GET' ? undefined : review({ uid: 'm', operation: 'CREATE', namespace: 'default', object: pp({}) });
    for (const path of ['/validate-propagationpolicy', '/mutate-work']) {
      const r = await send(path, body, { method });
      expect(r.status).toBe(405);
      expect(r.headers.allow).toBe('POST');
      expect(r.text).toContain(`method ${method} is not allowed on ${path}`);
    }
    // the connection pool and the server are fine afterwards
    expect((await send('/healthz', undefined, { method: 'GET' })).text).toBe('ok');
  });

  it('counts unknown paths under one path label: /metrics does not grow with the paths clients invent', async () => {
    const other = 'karmada_lite_webhook_requests_total{path="other",verdict="malformed"}';
    const metric = (text: string) => Number(new RegExp(`^${other.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    const before = (await send('/metrics', undefined, { method: 'GET' })).text;
    for (let i = 0; i < 200; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => send(`/probe-${i + j}-${'x'.repeat(40)}`, '{}')));
    await send('/validate-propagationpolicy', '{', { method: 'PUT' });
    const after = (await send('/metrics', undefined, { method: 'GET' })).text;
    expect(metric(after) - metric(before)).toBe(200);
    expect(after).not.toContain('/probe-');
    // Every path label value is a review path or `other`.
    const paths = new Set([...after.matchAll(/^karmada_lite_webhook_requests_total\{path="([^"]*)"/gm)].map((m) => m[1]));
    for (const p of paths) expect(p === 'other' || /^\/(validate|mutate)-[a-z]+$/.test(p!), p).toBe(true);
    expect(after.length - before.length).toBeLessThan(2_000);
  });

  it('serves many concurrent reviews on one connection pool', async () => {
    const body = review({ uid: 'c', operation: 'CREATE', namespace: 'default', object: pp({ resourceSelectors: [{ apiVersion: 'v1', kind: 'Pod', namespace: 'default' }] }) });
    const replies = await Promise.all(Array.from({ length: 50 }, () => send('/validate-propagationpolicy', body)));
    expect(replies.every((r) => r.json.response.allowed === true)).toBe(true);
  });

  it('reloads a rotated certificate without a restart, and keeps the old one while the pair is broken', async () => {
    const before = await send('/healthz', undefined, { method: 'GET' });
    expect(before.peer.subject.CN).toBe('first');
    // a key that does not match the certificate yet: the old pair keeps serving
    const pkiOther = makePki();
    const strayKey = join(pkiOther.dir, 'stray.key');
    pkiOther.issue(join(pkiOther.dir, 'stray.crt'), strayKey, 'stray');
    const { readFileSync } = await import('node:fs');
    const newCert = pki.issue(join(pki.dir, 'next.crt'), join(pki.dir, 'next.key'), 'second');
    writeFileSync(certFile, newCert);
    writeFileSync(keyFile, readFileSync(strayKey));
    const brokenSeen = () => logLines.some((l) => l.level === 'warn' && String(l.msg).includes('not a usable pair'));
    for (let i = 0; i < 100 && !brokenSeen(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(brokenSeen()).toBe(true);
    expect((await send('/healthz', undefined, { method: 'GET' })).peer.subject.CN).toBe('first');
    // the matching key arrives: new connections get the new certificate
    writeFileSync(keyFile, readFileSync(join(pki.dir, 'next.key')));
    let cn = '';
    for (let i = 0; i < 100 && cn !== 'second'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      cn = String((await send('/healthz', undefined, { method: 'GET' })).peer.subject.CN);
    }
    expect(cn).toBe('second');
    expect(logLines.some((l) => l.msg === 'reloaded TLS certificate' && String(l.subject).includes('second'))).toBe(true);
  });

  it('serves /metrics: requests per verdict and one duration observation per review', async () => {
    const metric = (text: string, name: string) => Number(new RegExp(`^${name.replace(/[{}+]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    const count = 'karmada_lite_webhook_request_duration_seconds_count';
    const denied = 'karmada_lite_webhook_requests_total{path="/validate-propagationpolicy",verdict="denied"}';
    const before = (await send('/metrics', undefined, { method: 'GET' })).text;
    const conflict = review({ uid: 'm', operation: 'CREATE', namespace: 'default', object: pp({ resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default' }], suspension: { dispatching: true, dispatchingOnClusters: { clusterNames: ['m2'] } } }) });
    for (let i = 0; i < 3; i++) expect((await send('/validate-propagationpolicy', conflict)).json.response.allowed).toBe(false);
    await send('/validate-propagationpolicy', '{');
    const after = await send('/metrics', undefined, { method: 'GET' });
    expect(after.status).toBe(200);
    expect(metric(after.text, denied) - metric(before, denied)).toBe(3);
    expect(metric(after.text, count) - metric(before, count)).toBe(4);
    // the +Inf bucket holds every observation; the process metrics that explain stalls are there too
    expect(metric(after.text, 'karmada_lite_webhook_request_duration_seconds_bucket{le="+Inf"}')).toBe(metric(after.text, count));
    expect(after.text).toMatch(/^nodejs_eventloop_lag_p99_seconds /m);
    expect(after.text).toMatch(/^# TYPE nodejs_gc_duration_seconds histogram$/m);
  });

  it('keeps an idle connection open past Node.js\'s default keep-alive timeout (5 s, closed at about 6 s)', async () => {
    // The kube-apiserver keeps idle webhook connections for 90 s; closing them sooner costs a TLS
    // handshake per idle spell and can race a request the client has just sent on the closed connection.
    const body = review({ uid: 'k', operation: 'CREATE', namespace: 'default', object: pp({ resourceSelectors: [{ apiVersion: 'v1', kind: 'Pod', namespace: 'default' }] }) });
    const raw = `POST /validate-propagationpolicy HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const socket = connect({ host: '127.0.0.1', port, ca: pki.ca });
    let received = '';
    let closed = false;
    socket.on('data', (c: Buffer) => (received += c.toString()));
    socket.on('close', () => (closed = true));
    const answers = () => received.split('HTTP/1.1 200 OK').length - 1;
    const waitFor = async (n: number) => {
      for (let i = 0; i < 200 && answers() < n && !closed; i++) await new Promise((r) => setTimeout(r, 25));
    };
    await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
    socket.write(raw);
    await waitFor(1);
    expect(answers()).toBe(1);
    await new Promise((r) => setTimeout(r, 7_000));
    expect(closed).toBe(false);
    socket.write(raw);
    await waitFor(2);
    expect(answers()).toBe(2);
    socket.destroy();
  });

  it('refuses TLS below 1.3 by default', async () => {
    const err = await new Promise<Error | undefined>((resolve) => {
      const s = connect({ host: '127.0.0.1', port, ca: pki.ca, maxVersion: 'TLSv1.2' }, () => {
        s.end();
        resolve(undefined);
      });
      s.on('error', (e) => resolve(e));
    });
    expect(err).toBeDefined();
  });
  it('refuses a rotated certificate with an RSA key under 2048 bits, logs why, and keeps serving the previous one', async () => {
    const { readFileSync } = await import('node:fs');
    const servedBefore = String((await send('/healthz', undefined, { method: 'GET' })).peer.subject.CN);
    const weakCert = join(pki.dir, 'weak.crt');
    const weakKey = join(pki.dir, 'weak.key');
    pki.issue(weakCert, weakKey, 'weak', { rsaBits: 1024 });
    writeFileSync(keyFile, readFileSync(weakKey));
    writeFileSync(certFile, readFileSync(weakCert));
    const refused = () => logLines.find((l) => l.level === 'error' && String(l.msg).startsWith('new TLS certificate refused'));
    for (let i = 0; i < 100 && !refused(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(refused()).toMatchObject({ reason: 'its RSA key has 1024 bits, under the minimum of 2048', msg: 'new TLS certificate refused; still serving the previous certificate' });
    expect(String(refused()!.fix)).toContain('at least 2048 bits');
    expect((await send('/healthz', undefined, { method: 'GET' })).peer.subject.CN).toBe(servedBefore);
    // A 2048-bit RSA certificate is fine.
    const okCert = join(pki.dir, 'rsa2048.crt');
    const okKey = join(pki.dir, 'rsa2048.key');
    pki.issue(okCert, okKey, 'rsa2048', { rsaBits: 2048 });
    writeFileSync(keyFile, readFileSync(okKey));
    writeFileSync(certFile, readFileSync(okCert));
    let cn = '';
    for (let i = 0; i < 100 && cn !== 'rsa2048'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      cn = String((await send('/healthz', undefined, { method: 'GET' })).peer.subject.CN);
    }
    expect(cn).toBe('rsa2048');
  });
});

describe('webhook server startup', () => {
  it('explains a missing certificate file', async () => {
    const s = new WebhookServer({ certFile: '/nonexistent/tls.crt', keyFile: '/nonexistent/tls.key', port: 0, bindAddress: '127.0.0.1' });
    await expect(s.start()).rejects.toThrow(/cannot read --cert-file \/nonexistent\/tls\.crt/);
  });

  it('refuses to start with an RSA key under 2048 bits and says what to do', async () => {
    const other = makePki();
    other.issue(join(other.dir, 'w.crt'), join(other.dir, 'w.key'), 'w', { rsaBits: 1024 });
    const s = new WebhookServer({ certFile: join(other.dir, 'w.crt'), keyFile: join(other.dir, 'w.key'), port: 0, bindAddress: '127.0.0.1' });
    await expect(s.start()).rejects.toThrow(/--cert-file \S+w\.crt is refused: its RSA key has 1024 bits, under the minimum of 2048; issue a certificate with an RSA key of at least 2048 bits/);
  });

  it('explains a key that does not belong to the certificate', async () => {
    const other = makePki();
    other.issue(join(other.dir, 'a.crt'), join(other.dir, 'a.key'), 'a');
    other.issue(join(other.dir, 'b.crt'), join(other.dir, 'b.key'), 'b');
    const s = new WebhookServer({ certFile: join(other.dir, 'a.crt'), keyFile: join(other.dir, 'b.key'), port: 0, bindAddress: '127.0.0.1' });
    await expect(s.start()).rejects.toThrow(/are not a usable pair/);
  });
});
