// The validating webhook on RICs whose scripts carry known traps: AdmissionReview warnings by default,
// a denial with --reject-risky-scripts; over the real HTTPS server and through the command's flags.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { review } from '../../src/webhook/review.js';
import { WebhookServer } from '../../src/webhook/server.js';
import { toServerOptions } from '../../src/cli/commands/webhook.js';
import { createLogger } from '../../src/runtime/log.js';
import { luaCompile } from '../../src/validation/lua-compile.js';
import { makePki, type TestPki } from './certs.js';

const ric = (name: string, luaScript: string) => ({
  apiVersion: 'config.karmada.io/v1alpha1',
  kind: 'ResourceInterpreterCustomization',
  metadata: { name },
  spec: { target: { apiVersion: 'apps/v1', kind: 'Deployment' }, customizations: { healthInterpretation: { luaScript } } },
});
const HOSTILE = 'function InterpretHealth(o)\n  return xpcall(function() error("x") end, function(e) while true do end end)\nend';
const CLEAN = 'function InterpretHealth(o)\n  return o.status ~= nil\nend';
const body = (object: unknown) =>
  JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u1', operation: 'CREATE', kind: { group: 'config.karmada.io', version: 'v1alpha1', kind: 'ResourceInterpreterCustomization' }, object } });
const ask = (object: unknown, riskyScripts?: 'warn' | 'reject') =>
  review({ path: '/validate-resourceinterpretercustomization', contentType: 'application/json', body: body(object) }, { compileLua: luaCompile, listRics: () => [], riskyScripts });

const EXPECTED = [
  'InterpreterOperation(InterpretHealth) Lua script line 2: the xpcall message handler contains a while loop; a handler should only format the error and return it',
  'InterpreterOperation(InterpretHealth) Lua script line 2: while true do has no break, return or error(): it loops until the time budget ends',
];

describe('validating webhook: risky RIC scripts', () => {
  it('admits a risky RIC with AdmissionReview warnings naming operation, line and trap', async () => {
    const r = await ask(ric('hostile', HOSTILE));
    expect(r.body.response).toEqual({ uid: 'u1', allowed: true, status: { metadata: {}, code: 200 }, warnings: EXPECTED });
  });

  it('admits a clean RIC without warnings', async () => {
    const r = await ask(ric('clean', CLEAN));
    expect((r.body.response as Record<string, unknown>).warnings).toBeUndefined();
    expect((r.body.response as Record<string, unknown>).allowed).toBe(true);
  });

  it('refuses a risky RIC when told to, with every trap in the message', async () => {
    const r = await ask(ric('hostile', HOSTILE), 'reject');
    expect(r.verdict).toBe('denied');
    expect(r.body.response).toMatchObject({ allowed: false, status: { code: 403, reason: 'Forbidden', message: `risky Lua scripts are refused (--reject-risky-scripts): ${EXPECTED.join('; ')}` } });
    expect((await ask(ric('clean', CLEAN), 'reject')).verdict).toBe('allowed');
  });

  it('reports a compile error, not traps, for a script that does not compile', async () => {
    const r = await ask(ric('broken', 'while true do'));
    expect(r.verdict).toBe('denied');
    expect((r.body.response as Record<string, unknown>).warnings).toBeUndefined();
  });
});

describe('karmada-lite webhook --reject-risky-scripts', () => {
  let pki: TestPki;
  const servers: WebhookServer[] = [];
  const base = { port: '0', bindAddress: '127.0.0.1', schema: 'decode', logLevel: 'error', tlsMinVersion: 'TLSv1.3', certReloadInterval: '1000', existingRics: [] as string[] };

  beforeAll(() => {
    pki = makePki();
    pki.issue(join(pki.dir, 'tls.crt'), join(pki.dir, 'tls.key'), 'risky');
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
  });

  async function serve(rejectRiskyScripts?: boolean): Promise<number> {
    const opts = await toServerOptions({ ...base, certFile: join(pki.dir, 'tls.crt'), keyFile: join(pki.dir, 'tls.key'), rejectRiskyScripts });
    const s = new WebhookServer({ ...opts, logger: createLogger({ level: 'error', write: () => undefined }) });
    servers.push(s);
    return (await s.start()).port;
  }

  const post = (port: number, payload: string) =>
    new Promise<any>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port, path: '/validate-resourceinterpretercustomization', method: 'POST', ca: pki.ca, agent: false, headers: { 'Content-Type': 'application/json; charset=utf-8' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      });
      req.on('error', reject);
      req.end(payload);
    });

  it('warns by default and refuses with the flag, over HTTPS', async () => {
    const warnPort = await serve();
    const rejectPort = await serve(true);
    const warned = await post(warnPort, body(ric('hostile', HOSTILE)));
    expect(warned.response).toMatchObject({ allowed: true, warnings: EXPECTED });
    const refused = await post(rejectPort, body(ric('hostile', HOSTILE)));
    expect(refused.response).toMatchObject({ allowed: false, status: { code: 403 } });
    expect(refused.response.status.message).toContain('--reject-risky-scripts');
  });
});
