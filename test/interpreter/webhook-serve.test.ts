// `interpret serve` on a loopback port with a throwaway CA, called through the webhook transport: every
// operation's answer equals the in-process Lua call; a spinning script costs a worker, not the server;
// `interpret test --webhook` runs the built-in fixture tree against it; the transport's failures name the URL.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { runWebhookTests } from '../../src/cli/commands/interpret-serve.js';
import { createInterpreter, type Interpreter } from '../../src/interpreter/interpreter.js';
import { InterpreterPool } from '../../src/interpreter/pool.js';
import type { KubeObject, RIC } from '../../src/interpreter/types.js';
import { callInterpreterWebhook } from '../../src/interpreter/webhook/context.js';
import { interpreterRunner, serveInterpreterContext } from '../../src/interpreter/webhook/serve.js';
import { createWebhookClient, type WebhookClient } from '../../src/interpreter/webhook/transport.js';
import { createLogger } from '../../src/runtime/log.js';
import { WebhookServer } from '../../src/webhook/server.js';
import { makePki, type TestPki } from '../webhook/certs.js';
import { scaled } from '../time-scale.js';

const RIC_FILE = join(__dirname, '../fixtures/interpreter-webhook/workload-ric.yaml');
const rics = parseAllDocuments(readFileSync(RIC_FILE, 'utf8')).map((d) => d.toJS() as RIC);
const HOOK = 'examples/workloads.example.com';

let pki: TestPki;
let server: WebhookServer;
let pool: InterpreterPool;
let local: Interpreter;
let client: WebhookClient;
let url: string;

const workload: KubeObject = {
  apiVersion: 'workload.example.io/v1alpha1',
  kind: 'Workload',
  metadata: { name: 'demo', namespace: 'apps' },
  spec: {
    replicas: 3,
    paused: false,
    template: { spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '250m', memory: '64Mi' } }, envFrom: [{ configMapRef: { name: 'cfg' } }] }] } },
  },
  status: { readyReplicas: 3 },
};
const observed: KubeObject = { ...workload, spec: { ...(workload.spec as object), paused: true }, status: { readyReplicas: 1 } };

beforeAll(async () => {
  pki = makePki();
  pki.issue(join(pki.dir, 'tls.crt'), join(pki.dir, 'tls.key'), 'localhost');
  local = createInterpreter({ customizations: rics, budgetMs: scaled(10_000) });
  pool = new InterpreterPool({ size: 1, budgetMs: scaled(3000) });
  pool.setCustomizations(rics);
  // Budgets out of the way on a loaded machine (a first call compiles): this file tests answers, not budgets.
  const run = interpreterRunner(createInterpreter({ customizations: rics, budgetMs: scaled(10_000) }), pool);
  server = new WebhookServer({
    certFile: join(pki.dir, 'tls.crt'),
    keyFile: join(pki.dir, 'tls.key'),
    port: 0,
    bindAddress: '127.0.0.1',
    logger: createLogger({ level: 'error' }),
    handler: { name: 'interpret', isRoute: (p) => p !== '/healthz', handle: (input) => serveInterpreterContext(input, run) },
  });
  const addr = await server.start();
  url = `https://127.0.0.1:${addr.port}/interpret`;
  // Past the pool's budget plus its grace, so that a spinning script's budget error arrives as the answer.
  client = createWebhookClient({ url, caBundle: pki.ca.toString('base64'), timeoutSeconds: Math.ceil(scaled(3000) / 1000) * 3 + 10 });
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await pool?.close();
});

describe('interpret serve answers every operation as the in-process interpreter', () => {
  it('InterpretReplica: replicas and requirements', async () => {
    const got = await callInterpreterWebhook(client, HOOK, { operation: 'InterpretReplica', object: workload });
    expect(got).toEqual(local.getReplicas(workload));
    expect(got.replicas).toBe(3);
  });

  it('InterpretComponent', async () => {
    expect(await callInterpreterWebhook(client, HOOK, { operation: 'InterpretComponent', object: workload })).toEqual(local.getComponents(workload));
  });

  it('ReviseReplica: the patched object', async () => {
    const got = await callInterpreterWebhook(client, HOOK, { operation: 'ReviseReplica', object: workload, desiredReplicas: 7 });
    expect(got).toEqual(local.reviseReplica(workload, 7));
    expect((got.spec as { replicas: number }).replicas).toBe(7);
  });

  it('Retain: the desired object patched with what the member keeps', async () => {
    const got = await callInterpreterWebhook(client, HOOK, { operation: 'Retain', object: workload, observedObject: observed });
    expect(got).toEqual(local.retain(workload, observed));
    expect((got.spec as { paused: boolean }).paused).toBe(true);
  });

  it('AggregateStatus: the template with the aggregated status', async () => {
    const items = [
      { clusterName: 'member1', status: { readyReplicas: 1 }, applied: true },
      { clusterName: 'member2', status: { readyReplicas: 2 }, applied: true },
    ];
    const got = await callInterpreterWebhook(client, HOOK, { operation: 'AggregateStatus', object: workload, aggregatedStatus: items });
    expect(got).toEqual(local.aggregateStatus(workload, items));
    expect(got.status).toEqual({ readyReplicas: 3 });
  });

  it('InterpretStatus and InterpretHealth', async () => {
    expect(await callInterpreterWebhook(client, HOOK, { operation: 'InterpretStatus', object: observed })).toEqual(local.reflectStatus(observed));
    expect(await callInterpreterWebhook(client, HOOK, { operation: 'InterpretHealth', object: observed })).toBe(false);
    expect(await callInterpreterWebhook(client, HOOK, { operation: 'InterpretHealth', object: workload })).toBe(true);
  });

  it('InterpretDependency', async () => {
    const got = await callInterpreterWebhook(client, HOOK, { operation: 'InterpretDependency', object: workload });
    expect(got).toEqual(local.getDependencies(workload));
    expect(got).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'apps', name: 'cfg' }]);
  });

  it('a built-in kind is answered by the built-in interpreters', async () => {
    const deploy: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 4, template: { spec: { containers: [{ name: 'c', image: 'x' }] } } } };
    expect(await callInterpreterWebhook(client, HOOK, { operation: 'InterpretReplica', object: deploy })).toEqual(local.getReplicas(deploy));
  });

  it("a script's error is the webhook's failure, with Karmada's wrapping", async () => {
    const spinner: KubeObject = { apiVersion: 'workload.example.io/v1alpha1', kind: 'Spinner', metadata: { name: 'sp', namespace: 'apps' } };
    const err = await callInterpreterWebhook(client, HOOK, { operation: 'InterpretStatus', object: spinner }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/^Internal error occurred: failed calling webhook "examples\/workloads.example.com": webhook call failed, get status code: 500, msg: .*no status for sp/);
  });

  it('a kind nothing implements is a 404 failure that says so', async () => {
    const other: KubeObject = { apiVersion: 'unknown.example.io/v1', kind: 'Thing', metadata: { name: 't' } };
    const err = await callInterpreterWebhook(client, HOOK, { operation: 'InterpretHealth', object: other }).catch((e: Error) => e);
    expect((err as Error).message).toContain('webhook call failed, get status code: 404, msg: no ResourceInterpreterCustomization or built-in interpreter implements InterpretHealth for unknown.example.io/v1, Kind=Thing');
  });

  it('a spinning script fails with the budget error while other calls are answered', async () => {
    const spinner: KubeObject = { apiVersion: 'workload.example.io/v1alpha1', kind: 'Spinner', metadata: { name: 'sp', namespace: 'apps' } };
    const spinning = callInterpreterWebhook(client, HOOK, { operation: 'InterpretHealth', object: spinner }).catch((e: Error) => e);
    // Built-in layers answer in-process: the spinning worker does not hold them up.
    const deploy: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 2 } };
    expect((await callInterpreterWebhook(client, HOOK, { operation: 'InterpretReplica', object: deploy })).replicas).toBe(2);
    expect(((await spinning) as Error).message).toMatch(/webhook call failed, get status code: 500, msg: .*script exceeded its .* budget/);
  });

  it('answers requests that are not a ResourceInterpreterContext as the SDK does', async () => {
    const res = await client.call({ request: { operation: 'Prune' } } as never);
    expect(res).toEqual({ response: { uid: '', successful: false, status: { code: 400, message: 'wrong request operation type: Prune' } } });
  });
});

describe('interpret test --webhook', () => {
  // What the protocol cannot carry (spec 2.2 / 3.3): a nil status, an empty aggregatedStatus list (omitted,
  // so it reads as none). Every other case of the built-in tree passes through the webhook.
  const PROTOCOL_LIMITS = [/\[builtin\/InterpretStatus\]/, /core\/v1\/Pod \[builtin\/AggregateStatus\]: an empty member list gives an empty status/];

  it('runs the built-in fixture tree against the webhook, beside the local interpreters', async () => {
    const lines: string[] = [];
    const r = await runWebhookTests(join(__dirname, '../../conformance/interpreters'), { webhook: url, webhookCa: pki.caFile, compareLocal: true, verbose: true, budgetMs: scaled(10_000), log: (l) => lines.push(l) });
    const failed = lines.filter((l) => l.startsWith('FAIL '));
    const unexpected = failed.filter((l) => !PROTOCOL_LIMITS.some((p) => p.test(l)));
    expect(unexpected, lines.join('\n')).toEqual([]);
    expect(r.passed).toBeGreaterThan(200);
    // The known limits do show up as differences, so the comparison is live.
    expect(failed.length).toBeGreaterThan(0);
    expect(lines.join('\n')).toContain('webhook error: Internal error occurred: failed calling webhook "interpret-test/webhook": received invalid webhook response: webhook returned nill response.rawStatus');
  });
});

describe('interpret serve --print-config', () => {
  it('prints a configuration with a rule per RIC target and the operations it implements', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'interpret', 'serve', '-f', RIC_FILE, '--print-config', '--ca-file', pki.caFile], {
      encoding: 'utf8',
      env: { ...process.env, KARMADA_LITE_MAIN: '1' },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const config = parse(r.stdout) as { webhooks: { name: string; rules: unknown[]; clientConfig: { service: unknown; caBundle: string }; timeoutSeconds: number; interpreterContextVersions: string[] }[] };
    const hook = config.webhooks[0]!;
    // One rule per target, in RIC name order (spinner, workload), operations in rule order.
    expect(hook.rules).toEqual([
      { operations: ['InterpretStatus', 'InterpretHealth'], apiGroups: ['workload.example.io'], apiVersions: ['v1alpha1'], kinds: ['Spinner'] },
      {
        operations: ['Retain', 'InterpretReplica', 'InterpretComponent', 'ReviseReplica', 'InterpretStatus', 'AggregateStatus', 'InterpretHealth', 'InterpretDependency'],
        apiGroups: ['workload.example.io'],
        apiVersions: ['v1alpha1'],
        kinds: ['Workload'],
      },
    ]);
    expect(hook.clientConfig.service).toEqual({ namespace: 'karmada-system', name: 'karmada-lite-interpreter-webhook', port: 443, path: '/interpret' });
    expect(Buffer.from(hook.clientConfig.caBundle, 'base64').toString()).toBe(pki.ca.toString());
    expect(hook.timeoutSeconds).toBe(10);
    expect(hook.interpreterContextVersions).toEqual(['v1alpha1']);
  });
});

describe('webhook transport', () => {
  let raw: Server;
  let rawPort: number;
  let connections = 0;
  const seen: { url: string; headers: Record<string, unknown> }[] = [];
  let answer: (res: import('node:http').ServerResponse) => void = (res) => res.end('{}');

  beforeAll(async () => {
    raw = createServer({ cert: readFileSync(join(pki.dir, 'tls.crt')), key: readFileSync(join(pki.dir, 'tls.key')) }, (req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      req.resume();
      req.on('end', () => answer(res));
    });
    raw.on('secureConnection', () => connections++);
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    rawPort = (raw.address() as AddressInfo).port;
  });
  afterAll(async () => {
    raw.closeAllConnections();
    await new Promise((resolve) => raw.close(resolve));
  });

  const ctx = { apiVersion: 'config.karmada.io/v1alpha1', kind: 'ResourceInterpreterContext' };
  const waitUntil = async (cond: () => boolean) => {
    while (!cond()) await new Promise((r) => setTimeout(r, 10));
  };

  it('posts exactly application/json with the timeout as a query, over one kept-alive connection', async () => {
    const c = createWebhookClient({ url: `https://127.0.0.1:${rawPort}/hook`, caBundle: pki.ca.toString(), timeoutSeconds: 3 });
    const before = connections;
    seen.length = 0;
    answer = (res) => res.end('{"response":{}}');
    await c.call(ctx);
    await c.call(ctx);
    c.close();
    expect(seen.map((s) => s.url)).toEqual(['/hook?timeout=3s', '/hook?timeout=3s']);
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(seen[0]!.headers.accept).toBe('application/json');
    expect(connections - before).toBe(1);
  });

  it('a non-2xx answer fails naming the URL and the status', async () => {
    const c = createWebhookClient({ url: `https://127.0.0.1:${rawPort}/hook`, caBundle: pki.ca.toString() });
    answer = (res) => {
      res.statusCode = 503;
      res.end('overloaded');
    };
    await expect(c.call(ctx)).rejects.toThrow(`failed to call webhook: Post "https://127.0.0.1:${rawPort}/hook?timeout=10s": the server responded with the status code 503: overloaded`);
    c.close();
  });

  it('a certificate the caBundle does not trust fails as a TLS error naming the URL', async () => {
    const other = makePki();
    const c = createWebhookClient({ url: `https://127.0.0.1:${rawPort}/hook`, caBundle: other.ca.toString('base64') });
    const err = (await c.call(ctx).catch((e: Error) => e)) as Error;
    expect(err.message).toContain(`failed to call webhook: Post "https://127.0.0.1:${rawPort}/hook?timeout=10s": tls: failed to verify certificate`);
    c.close();
  });

  it('an answer later than timeoutSeconds fails with the deadline', async () => {
    const c = createWebhookClient({ url: `https://127.0.0.1:${rawPort}/slow`, caBundle: pki.ca.toString(), timeoutSeconds: 1 });
    answer = () => {}; // never answers
    const err = (await c.call(ctx).catch((e: Error) => e)) as Error;
    expect(err.message).toBe(`failed to call webhook: Post "https://127.0.0.1:${rawPort}/slow?timeout=1s": context deadline exceeded (the webhook did not answer within timeoutSeconds 1)`);
    c.close();
  });

  it('a call whose signal is aborted, before or during the call, fails as canceled', async () => {
    const c = createWebhookClient({ url: `https://127.0.0.1:${rawPort}/slow`, caBundle: pki.ca.toString() });
    answer = () => {}; // never answers
    await expect(c.call(ctx, AbortSignal.abort())).rejects.toThrow('context canceled');
    seen.length = 0;
    const ac = new AbortController();
    const pending = c.call(ctx, ac.signal);
    await waitUntil(() => seen.some((s) => s.url.startsWith('/slow')));
    ac.abort();
    await expect(pending).rejects.toThrow(`failed to call webhook: Post "https://127.0.0.1:${rawPort}/slow?timeout=10s": context canceled`);
    c.close();
  });

  it('a refused connection names the URL', async () => {
    const c = createWebhookClient({ url: 'https://127.0.0.1:1/hook', caBundle: pki.ca.toString() });
    await expect(c.call(ctx)).rejects.toThrow('failed to call webhook: Post "https://127.0.0.1:1/hook?timeout=10s": connect ECONNREFUSED 127.0.0.1:1');
    c.close();
  });

  it('refuses a URL that is not https and a caBundle that is no certificate', () => {
    expect(() => createWebhookClient({ url: 'http://127.0.0.1/x' })).toThrow("'https' is the only allowed URL scheme");
    expect(() => createWebhookClient({ url: 'https://127.0.0.1/x', caBundle: 'bm90IGEgY2VydA==' })).toThrow('clientConfig.caBundle');
  });
});
