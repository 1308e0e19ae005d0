// End to end: the controller (the real binary, on the host, member1 and member2 apiservers) calls a real HTTPS
// interpreter webhook on loopback, verified with a generated CA, for a custom resource kind (a CRD on the
// host and the members): replicas, their revision per member, status, health, status aggregation and
// dependencies all come from the webhook. Then the configuration points at a hook that times out, one that
// answers 500 and one that returns a nil patch: each fails the reconcile with its Warning Event and is
// retried (its error count grows), while a Deployment under another policy keeps propagating.
//
// The webhook is a small node:https server speaking the ResourceInterpreterContext protocol the way
// Karmada's example webhook (examples/customresourceinterpreter) answers, and then `karmada-lite interpret
// serve` itself with a Lua RIC for the kind.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makePki } from '../webhook/certs.js';
import { scaled } from '../time-scale.js';
import { waitFor } from './env.js';
import { binary, createDeploymentWithPolicy, diagnose, freePort, get, ignoreConflict, prepareHost, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';

const ID = Date.now().toString(36);
const NS = `riwc-e2e-${ID}`;
const MEMBERS = ['member1', 'member2'] as const;
const host = rest('host');
const CONFIG = `riwc-e2e-${ID}`;
const GROUP = 'workload.example.io';
const CRD_NAME = `workloads.${GROUP}`;
const wlPath = (name: string, ns = NS) => `/apis/${GROUP}/v1alpha1/namespaces/${ns}/workloads/${name}`;

const WORKLOAD_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: CRD_NAME },
  spec: {
    group: GROUP,
    names: { kind: 'Workload', listKind: 'WorkloadList', plural: 'workloads', singular: 'workload' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
      },
    ],
  },
};

type Mode = 'ok' | 'hang' | 'fail500' | 'nilpatch';

/** What the example webhook answers, per operation; `mode` is the URL path. */
function answer(mode: Mode, req: any): any {
  const base = { uid: req.uid, successful: true, status: { code: 200 } };
  const obj = req.object ?? {};
  const patch = (ops: unknown[]) => ({ ...base, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') });
  switch (req.operation) {
    case 'InterpretReplica':
      return { ...base, replicas: obj.spec?.replicas ?? 1 };
    case 'ReviseReplica':
      if (mode === 'nilpatch') return { ...base, patchType: 'JSONPatch' };
      return patch([{ op: 'replace', path: '/spec/replicas', value: req.replicas }]);
    case 'Retain':
      return patch(req.observedObject?.spec?.paused === undefined ? [] : [{ op: 'add', path: '/spec/paused', value: req.observedObject.spec.paused }]);
    case 'AggregateStatus': {
      const ready = (req.aggregatedStatus ?? []).reduce((n: number, i: any) => n + (i.status?.readyReplicas ?? 0), 0);
      return patch([{ op: obj.status ? 'replace' : 'add', path: '/status', value: { ...(obj.status ?? {}), readyReplicas: ready } }]);
    }
    case 'InterpretStatus':
      return { ...base, rawStatus: obj.status?.readyReplicas ? { readyReplicas: obj.status.readyReplicas } : {} };
    case 'InterpretHealth':
      return { ...base, healthy: (obj.status?.readyReplicas ?? 0) === (obj.spec?.replicas ?? 1) };
    case 'InterpretDependency': {
      const cm = obj.spec?.template?.spec?.containers?.[0]?.envFrom?.[0]?.configMapRef?.name;
      return { ...base, dependencies: cm ? [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: req.namespace, name: cm }] : [] };
    }
    default:
      return { uid: req.uid, successful: false, status: { code: 400, message: `wrong request operation type: ${req.operation}` } };
  }
}

const calls: Array<{ mode: string; operation: string }> = [];

function startWebhook(cert: Buffer, key: Buffer): Promise<{ server: Server; port: number }> {
  const server = createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const mode = (new URL(req.url ?? '/', 'https://x').pathname.slice(1) || 'ok') as Mode;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      calls.push({ mode, operation: body.request?.operation });
      if (mode === 'hang') return; // never answers: the caller's timeout ends it
      if (mode === 'fail500') {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        return res.end('interpreter exploded');
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ response: answer(mode, body.request) }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port })));
}

async function events(name: string): Promise<any[]> {
  const list = await host.request('GET', `/api/v1/namespaces/${NS}/events`);
  return (list.items as any[]).filter((e) => e.involvedObject?.name === name || e.involvedObject?.name?.startsWith(`${name}-`));
}

async function webhookErrors(p: Proc, hook: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${p.port}/metrics`)).text();
  const line = text.split('\n').filter((l) => l.startsWith('karmada_lite_interpreter_webhook_errors_total{') && l.includes(`webhook="${hook}"`));
  return line.reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

describe('interpreter webhooks end to end', () => {
  let ctrl: Proc | undefined;
  let server: Server | undefined;
  let port = 0;
  let caBundle = '';

  let dir = '';
  let serve: ChildProcess | undefined;

  const setConfig = async (mode: Mode | { url: string }, timeoutSeconds = 3) => {
    const body = {
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterWebhookConfiguration',
      metadata: { name: CONFIG },
      webhooks: [
        {
          name: 'workloads.example.com',
          rules: [{ operations: ['*'], apiGroups: [GROUP], apiVersions: ['v1alpha1'], kinds: ['Workload'] }],
          clientConfig: { url: typeof mode === 'string' ? `https://127.0.0.1:${port}/${mode}` : mode.url, caBundle },
          interpreterContextVersions: ['v1alpha1'],
          timeoutSeconds,
        },
      ],
    };
    const path = `/apis/config.karmada.io/v1alpha1/resourceinterpreterwebhookconfigurations/${CONFIG}`;
    const cur = await get(host, path);
    if (cur) await host.request('PUT', path, { body: { ...body, metadata: { ...body.metadata, resourceVersion: cur.metadata.resourceVersion } } });
    else await host.request('POST', '/apis/config.karmada.io/v1alpha1/resourceinterpreterwebhookconfigurations', { body });
  };

  const createWorkload = async (name: string, replicas: number, configMap?: string) => {
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
      body: {
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'PropagationPolicy',
        metadata: { name, namespace: NS },
        spec: {
          resourceSelectors: [{ apiVersion: `${GROUP}/v1alpha1`, kind: 'Workload', name }],
          propagateDeps: true,
          placement: {
            clusterAffinity: { clusterNames: [...MEMBERS] },
            replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted', weightPreference: { staticWeightList: MEMBERS.map((m) => ({ targetCluster: { clusterNames: [m] }, weight: 1 })) } },
          },
        },
      },
    });
    const container: Record<string, unknown> = { name: 'c', image: 'nginx:1.25' };
    if (configMap) container.envFrom = [{ configMapRef: { name: configMap } }];
    await host.request('POST', `/apis/${GROUP}/v1alpha1/namespaces/${NS}/workloads`, {
      body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'Workload', metadata: { name, namespace: NS }, spec: { replicas, template: { metadata: { labels: { app: name } }, spec: { containers: [container] } } } },
    });
  };

  beforeAll(async () => {
    await prepareHost(host, NS);
    for (const c of ['host', ...MEMBERS] as const) {
      const r = rest(c);
      await ignoreConflict(r.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: WORKLOAD_CRD }));
      await waitFor(`${CRD_NAME} established on ${c}`, async () => ((await get(r, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`))?.status?.conditions?.some((x: any) => x.type === 'Established' && x.status === 'True') ? true : undefined));
      if (c !== 'host') await ignoreConflict(r.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }));
      r.resetDiscovery();
    }
    dir = mkdtempSync(join(tmpdir(), 'riwc-e2e-'));
    const pki = makePki(dir);
    pki.issue(join(dir, 'tls.crt'), join(dir, 'tls.key'), 'interpreter-webhook');
    caBundle = pki.ca.toString('base64');
    ({ server, port } = await startWebhook(readFileSync(join(dir, 'tls.crt')), readFileSync(join(dir, 'tls.key'))));
    await setConfig('ok');
    ctrl = await startController();
  }, scaled(240_000));

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail') return;
    console.error((ctrl?.logs ?? []).slice(-150).join('\n'));
    console.error(await diagnose(ctrl));
  });

  afterAll(async () => {
    serve?.kill('SIGTERM');
    for (const n of ['wl', 'wl-timeout', 'wl-500', 'wl-nilpatch', 'wl-lua']) {
      await host.request('DELETE', wlPath(n)).catch(() => undefined);
      await host.request('DELETE', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${n}`).catch(() => undefined);
    }
    await removeDeployments(NS, [`plain-${ID}`]);
    await host.request('DELETE', `/apis/config.karmada.io/v1alpha1/resourceinterpreterwebhookconfigurations/${CONFIG}`).catch(() => undefined);
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server?.closeAllConnections();
  });

  it('replicas, their revision per member, status, health, aggregation and dependencies come from the webhook', async () => {
    await host.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: 'wl-env', namespace: NS }, data: { A: '1' } } });
    await createWorkload('wl', 4, 'wl-env');
    const rb = await waitFor('the binding with the webhook\'s replicas', async () => {
      const b = await get(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/wl-workload`);
      return b?.spec?.replicas === 4 ? b : undefined;
    });
    expect(rb.spec.resource).toMatchObject({ apiVersion: `${GROUP}/v1alpha1`, kind: 'Workload', name: 'wl' });
    // ReviseReplica: each member gets its share, patched by the webhook.
    for (const m of MEMBERS) {
      const w = await waitFor(`wl on ${m} with 2 replicas`, async () => {
        const o = await get(rest(m), wlPath('wl'));
        return o?.spec?.replicas === 2 ? o : undefined;
      });
      expect(w.spec.template.spec.containers[0].envFrom[0].configMapRef.name).toBe('wl-env');
      // InterpretDependency: the ConfigMap follows the workload.
      await waitFor(`wl-env on ${m}`, () => get(rest(m), `/api/v1/namespaces/${NS}/configmaps/wl-env`));
      // The member reports its status: Workload is a custom kind no controller of Kubernetes (the kwok fleet's
      // included) writes status for, so the test plays its operator. InterpretStatus and InterpretHealth read it.
      await rest(m).request('PATCH', `${wlPath('wl')}/status`, { body: { status: { readyReplicas: 2 } }, contentType: 'application/merge-patch+json' });
    }
    const bound = await waitFor('both members Healthy with the webhook\'s status', async () => {
      const b = await get(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/wl-workload`);
      const items = (b?.status?.aggregatedStatus ?? []) as any[];
      return items.length === 2 && items.every((i) => i.health === 'Healthy' && i.status?.readyReplicas === 2) ? b : undefined;
    });
    expect(bound.status.aggregatedStatus.map((i: any) => i.clusterName).sort()).toEqual([...MEMBERS]);
    // AggregateStatus: the template's status is the webhook's sum.
    await waitFor('the template status aggregated by the webhook', async () => ((await get(host, wlPath('wl')))?.status?.readyReplicas === 4 ? true : undefined));
    const ops = new Set(calls.filter((c) => c.mode === 'ok').map((c) => c.operation));
    for (const op of ['InterpretReplica', 'ReviseReplica', 'InterpretStatus', 'InterpretHealth', 'AggregateStatus', 'InterpretDependency']) expect(ops, op).toContain(op);
    const metrics = await (await fetch(`http://127.0.0.1:${ctrl!.port}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`karmada_lite_interpreter_webhook_calls_total\\{webhook="${CONFIG}/workloads.example.com",operation="InterpretReplica",result="success"\\} \\d+`));
  });

  it('a hook that times out, one that answers 500 and one that returns a nil patch: each a Warning Event and retries; other templates keep propagating', async () => {
    const hook = `${CONFIG}/workloads.example.com`;
    const cases: Array<{ mode: Mode; name: string; reason: string; text: RegExp }> = [
      { mode: 'hang', name: 'wl-timeout', reason: 'GetReplicasFailed', text: /failed calling webhook ".*": failed to call webhook: .*(deadline|timeout)/i },
      { mode: 'fail500', name: 'wl-500', reason: 'GetReplicasFailed', text: /failed calling webhook ".*": failed to call webhook: .*500/ },
      { mode: 'nilpatch', name: 'wl-nilpatch', reason: 'SyncWorkFailed', text: /received invalid webhook response: webhook returned empty response\.patch/ },
    ];
    for (const c of cases) {
      await setConfig(c.mode, 1);
      const before = await webhookErrors(ctrl!, hook);
      await createWorkload(c.name, 2);
      if (c.mode === 'hang') {
        // While calls to the hanging hook wait out their timeout, a Deployment under its own policy propagates.
        const plain = `plain-${ID}`;
        await createDeploymentWithPolicy(NS, plain, 1, { placement: { clusterAffinity: { clusterNames: [...MEMBERS] } } });
        for (const m of MEMBERS) await waitFor(`${plain} on ${m}`, () => get(rest(m), `/apis/apps/v1/namespaces/${NS}/deployments/${plain}`));
      }
      const ev = await waitFor(`${c.name}: a ${c.reason} Warning`, async () => (await events(c.name)).find((e) => e.type === 'Warning' && e.reason === c.reason && c.text.test(e.message)));
      expect(ev.message).toContain(`failed calling webhook "${hook}"`);
      // Retried with back-off: the hook is called again and fails again.
      await waitFor(`${c.name}: retried`, async () => ((await webhookErrors(ctrl!, hook)) >= before + 2 ? true : undefined), scaled(60_000));
      for (const m of MEMBERS) expect(await get(rest(m), wlPath(c.name)), `${c.name} on ${m}`).toBeUndefined();
    }
    // Back to a good hook: the failed templates propagate on a retry.
    await setConfig('ok');
    for (const m of MEMBERS) await waitFor(`wl-500 on ${m} once the hook answers`, () => get(rest(m), wlPath('wl-500')), scaled(90_000));
  });
  it('karmada-lite interpret serve, with a Lua RIC for the kind, is the webhook: replicas and their revision per member, health', async () => {
    const ric = {
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterCustomization',
      metadata: { name: 'workload' },
      spec: {
        target: { apiVersion: `${GROUP}/v1alpha1`, kind: 'Workload' },
        customizations: {
          replicaResource: { luaScript: 'function GetReplicas(obj)\n  return obj.spec.replicas, nil\nend' },
          replicaRevision: { luaScript: 'function ReviseReplica(obj, desired)\n  obj.spec.replicas = desired\n  return obj\nend' },
          healthInterpretation: { luaScript: 'function InterpretHealth(obj)\n  return obj.status ~= nil and obj.status.readyReplicas == obj.spec.replicas\nend' },
        },
      },
    };
    writeFileSync(join(dir, 'ric.json'), JSON.stringify(ric));
    const servePort = await freePort();
    const logs: string[] = [];
    serve = spawn(binary, ['interpret', 'serve', join(dir, 'ric.json'), '--cert-file', join(dir, 'tls.crt'), '--key-file', join(dir, 'tls.key'), '--port', String(servePort), '--workers', '1'], { stdio: ['ignore', 'ignore', 'pipe'] });
    serve.stderr!.on('data', (d: Buffer) => logs.push(d.toString('utf8')));
    await waitFor('interpret serve listening', async () => {
      if (serve!.exitCode !== null) throw new Error(`interpret serve exited with ${serve!.exitCode}: ${logs.join('')}`);
      return new Promise<true | undefined>((resolve) => {
        const sock = connect(servePort, '127.0.0.1', () => {
          sock.end();
          resolve(true);
        });
        sock.on('error', () => resolve(undefined));
      });
    });
    await setConfig({ url: `https://127.0.0.1:${servePort}/interpret` });
    await createWorkload('wl-lua', 6);
    const want = { member1: 3, member2: 3 };
    for (const m of MEMBERS) {
      await waitFor(`wl-lua on ${m} revised by the Lua RIC behind interpret serve`, async () => ((await get(rest(m), wlPath('wl-lua')))?.spec?.replicas === want[m] ? true : undefined), scaled(60_000));
      await rest(m).request('PATCH', `${wlPath('wl-lua')}/status`, { body: { status: { readyReplicas: want[m] } }, contentType: 'application/merge-patch+json' });
    }
    const rb = await get(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/wl-lua-workload`);
    expect(rb.spec.replicas).toBe(6);
    await waitFor('both members Healthy by the served InterpretHealth', async () => {
      const b = await get(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/wl-lua-workload`);
      const items = (b?.status?.aggregatedStatus ?? []) as any[];
      return items.length === 2 && items.every((i) => i.health === 'Healthy') ? true : undefined;
    });
  });
});
