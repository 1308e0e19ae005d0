// `controller --dashboard` end to end: the real binary against the host, member1 and member2 apiservers. The
// page and its stream change when a policy's dispatching suspension changes, without a reload (a real
// browser when Chromium is installed); through the host apiserver's service proxy, the host's RBAC decides.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ApiError } from '../../src/kube/rest.js';
import { errorMessage } from '../../src/json/error.js';
import type { FleetModel } from '../../src/report/model.js';
import { ARTIFACTS_DIR, chromiumMissing, launchChromium } from '../browser/chromium.js';
import { openStream, type SseStream } from '../dashboard/sse-client.js';
import { netnsMissing, netnsRelay, type NetnsRelay } from '../dashboard/netns.js';
import { kubeConfigUpstream, readAll, roundTrip } from '../../src/apiserver/upstream.js';
import { kubeConfig, repoRoot, waitFor } from './env.js';
import { createDeploymentWithPolicy, diagnose, freePort, get, ignoreConflict, prepareHost, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';

const SUFFIX = Date.now().toString(36);
const NS = `dashboard-e2e-${SUFFIX}`;
const NAME = 'shop';
const VIEWER = `dashboard-viewer-${SUFFIX}`;
const STRANGER = `dashboard-stranger-${SUFFIX}`;
const host = rest('host');
const PROXY = '/api/v1/namespaces/karmada-system/services/http:karmada-lite-controller:dashboard/proxy/';
const ENDPOINTS = '/api/v1/namespaces/karmada-system/endpoints/karmada-lite-controller';
const POD = `karmada-lite-controller-${SUFFIX}`;
const ppPath = `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${NAME}`;

const lastModel = (s: SseStream) => JSON.parse(s.messages.filter((m) => m.event === 'model').at(-1)!.data) as FleetModel;

/** The matrix cell of this suite's template on a cluster: dispatched, suspended, ... */
const cellState = (model: FleetModel, cluster: string) => model.rows.find((r) => r.namespace === NS && r.name === NAME)?.cells.find((c) => c.cluster === cluster)?.state;
/** The same cell in the page (src/report/client's markup). */
const CELL = (cluster: string) => `td[data-row$="/${NS}/${NAME}"][data-cluster="${cluster}"]`;

async function setSuspension(suspension: Record<string, unknown> | undefined): Promise<void> {
  for (;;) {
    const pp = await get(host, ppPath);
    if (suspension) pp.spec.suspension = suspension;
    else delete pp.spec.suspension;
    try {
      await host.request('PUT', ppPath, { body: pp });
      return;
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 409)) throw e;
    }
  }
}

/** The Service and viewer Role of deploy/controller/controller.yaml (the Deployment's pods are not run here), the Role bound to VIEWER. */
async function serviceProxySetup(): Promise<void> {
  await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'karmada-system' } } }));
  await ignoreConflict(
    host.request('POST', '/api/v1/namespaces/karmada-system/services', {
      body: { metadata: { name: 'karmada-lite-controller' }, spec: { selector: { 'app.kubernetes.io/name': 'karmada-lite-controller' }, ports: [{ name: 'dashboard', port: 8090, targetPort: 'dashboard' }] } },
    }),
  );
  const role = parseAllDocuments(readFileSync(path.join(repoRoot, 'deploy', 'controller', 'controller.yaml'), 'utf8'))
    .map((d) => d.toJS())
    .find((d) => d?.kind === 'Role' && d.metadata.name === 'karmada-lite-dashboard-viewer');
  expect(role).toBeDefined();
  await ignoreConflict(host.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/karmada-system/roles', { body: role }));
  await ignoreConflict(
    host.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/karmada-system/rolebindings', {
      body: { metadata: { name: VIEWER }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'karmada-lite-dashboard-viewer' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: VIEWER }] },
    }),
  );
}

describe('controller --dashboard', () => {
  let ctrl: Proc | undefined;
  let url = '';
  let relay: NetnsRelay | undefined;
  let createdServiceAccount = false;

  beforeAll(async () => {
    await prepareHost(host, NS);
    const port = await freePort();
    ctrl = await startController(['--dashboard', '--dashboard-port', String(port)]);
    url = `http://127.0.0.1:${port}`;
    await createDeploymentWithPolicy(NS, NAME, 2, { placement: { clusterAffinity: { clusterNames: ['member1', 'member2'] } } });
    for (const m of ['member1', 'member2']) {
      await waitFor(`the ${m} Work`, async () => {
        const items = (await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${m}/works`)).items as any[];
        return items.some((w) => w.metadata.annotations?.['resourcebinding.karmada.io/namespace'] === NS) ? true : undefined;
      });
    }
    await waitFor('the template in the dashboard model, dispatched to both', async () => {
      const model = (await (await fetch(`${url}/model.json`)).json()) as FleetModel;
      return cellState(model, 'member1') === 'dispatched' && cellState(model, 'member2') === 'dispatched' ? true : undefined;
    });
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail') return;
    console.error((ctrl?.logs ?? []).slice(-100).join('\n'));
    console.error(await diagnose(ctrl));
  });

  afterAll(async () => {
    // what the service-proxy test created in the host's karmada-system: nothing of this suite stays behind
    for (const p of [
      `/apis/rbac.authorization.k8s.io/v1/namespaces/karmada-system/rolebindings/${VIEWER}`,
      '/apis/rbac.authorization.k8s.io/v1/namespaces/karmada-system/roles/karmada-lite-dashboard-viewer',
      '/api/v1/namespaces/karmada-system/services/karmada-lite-controller',
      ENDPOINTS,
      `/api/v1/namespaces/karmada-system/pods/${POD}?gracePeriodSeconds=0`,
      ...(createdServiceAccount ? ['/api/v1/namespaces/karmada-system/serviceaccounts/default'] : []),
    ])
      await host.request('DELETE', p).catch((e) => {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      });
    await relay?.close();
    await removeDeployments(NS, [NAME]).catch(() => undefined);
    await stopController(ctrl);
  });

  it('listens on 127.0.0.1, read-only, and says which replica serves it', async () => {
    expect(ctrl!.logs.some((l) => l.includes('serving the dashboard') && l.includes('127.0.0.1'))).toBe(true);
    expect((await fetch(`${url}/`, { method: 'POST', body: '{}' })).status).toBe(405);
    expect((await fetch(`${url}/model.json`, { method: 'DELETE' })).status).toBe(405);
    const page = await (await fetch(`${url}/`)).text();
    expect(page).toContain('leader: yes');
    // relative: the page works under the service proxy's path prefix
    expect(page).not.toContain('"/events"');
  });

  it('streams a new model when the policy suspends dispatching, and again when it resumes', async () => {
    const s = openStream(`${url}/events`);
    try {
      await waitFor('the first model', async () => (s.messages.length > 0 ? true : undefined));
      expect(s.response()?.headers['content-type']).toContain('text/event-stream');
      expect(cellState(lastModel(s), 'member1')).toBe('dispatched');
      await setSuspension({ dispatchingOnClusters: { clusterNames: ['member1'] } });
      await waitFor('a model with member1 suspended', async () => (cellState(lastModel(s), 'member1') === 'suspended' ? true : undefined));
      expect(cellState(lastModel(s), 'member2')).toBe('dispatched');
      await setSuspension(undefined);
      await waitFor('a model with member1 dispatched again', async () => (cellState(lastModel(s), 'member1') === 'dispatched' ? true : undefined));
    } finally {
      s.close();
    }
  });

  it('in a real browser: the cell changes without a reload', async (ctx) => {
    const missing = chromiumMissing();
    if (missing) {
      console.warn(`skipped: ${missing}`);
      ctx.skip();
      return;
    }
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    const chromium = await launchChromium();
    try {
      const page = await chromium.newPage();
      let loads = 0;
      page.on('load', () => loads++);
      await page.goto(`${url}/`);
      const cell = page.locator(CELL('member1'));
      await page.locator(`${CELL('member1')}[data-state="dispatched"]`).waitFor();
      expect(await page.locator('#title').innerText()).toContain('leader: yes');
      // a click fetches the row's detail from the dashboard (GET detail?row=...): the member manifest
      await cell.click();
      await page.locator('#panel pre.manifest[aria-label="manifest for member1"]').waitFor();
      expect(await page.locator('#panel pre.manifest').innerText()).toContain(`"namespace": "${NS}"`);
      await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'dashboard-before.png'), fullPage: true });
      await setSuspension({ dispatchingOnClusters: { clusterNames: ['member1'] } });
      await page.locator(`${CELL('member1')}[data-state="suspended"]`).waitFor();
      expect(await cell.innerText()).toContain('suspended');
      // the open panel follows: its Work is fetched again with the new model
      await page.locator('#panel h3', { hasText: '→ member1 (suspended)' }).waitFor();
      expect(await page.locator(CELL('member2')).getAttribute('data-state')).toBe('dispatched');
      await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'dashboard-suspended.png'), fullPage: true });
      await setSuspension(undefined);
      await page.locator(`${CELL('member1')}[data-state="dispatched"]`).waitFor();
      // the changes came over the stream: the page never loaded again
      expect(loads).toBe(1);
    } finally {
      await chromium.close();
    }
  });

  it("through the host apiserver's service proxy, the host's RBAC decides: a viewer is let through, a stranger gets 403", async () => {
    await serviceProxySetup();
    const proxy = PROXY;
    // as `kubectl --as`: the admin's credentials, impersonating the user
    const as = async (user: string) => {
      const res = await roundTrip(await kubeConfigUpstream(kubeConfig('host')).options('GET', proxy, { accept: 'text/html', 'Impersonate-User': user }));
      await readAll(res);
      return res.statusCode;
    };
    expect(await as(STRANGER)).toBe(403);
    // Past authorization: the service has no endpoints here (Endpoints refuse loopback addresses), so 404/503.
    await waitFor('the viewer authorized', async () => ((await as(VIEWER)) !== 403 ? true : undefined));
  });

  it("streams through the host apiserver's service proxy to an endpoint in a network namespace of the test, as a viewer", async (ctx) => {
    const missing = netnsMissing();
    if (missing) {
      // Endpoints refuse loopback addresses: without a namespace of its own the test has no address to give.
      console.warn(`skipped: ${missing}`);
      ctx.skip();
      return;
    }
    await serviceProxySetup();
    relay = await netnsRelay(Number(new URL(url).port));
    // No kubelet and no endpoints controller run here: the Pod (its status.podIPs set by hand) and the Endpoints are the
    // test's. The service proxy dials only an Endpoints address whose targetRef is a Pod with that IP.
    const sa = await host.request('POST', '/api/v1/namespaces/karmada-system/serviceaccounts', { body: { metadata: { name: 'default' } } }).then(
      () => true,
      (e) => {
        if (e instanceof ApiError && e.code === 409) return false;
        throw e;
      },
    );
    if (sa) createdServiceAccount = true;
    await ignoreConflict(
      host.request('POST', '/api/v1/namespaces/karmada-system/pods', {
        body: { metadata: { name: POD, labels: { 'app.kubernetes.io/name': 'karmada-lite-controller' } }, spec: { automountServiceAccountToken: false, containers: [{ name: 'controller', image: 'karmada-lite:test', ports: [{ name: 'dashboard', containerPort: 8090 }] }] } },
      }),
    );
    const pod = await get(host, `/api/v1/namespaces/karmada-system/pods/${POD}`);
    pod.status = { ...pod.status, phase: 'Running', podIP: relay.address, podIPs: [{ ip: relay.address }] };
    await host.request('PUT', `/api/v1/namespaces/karmada-system/pods/${POD}/status`, { body: pod });
    await ignoreConflict(
      host.request('POST', '/api/v1/namespaces/karmada-system/endpoints', {
        body: { metadata: { name: 'karmada-lite-controller' }, subsets: [{ addresses: [{ ip: relay.address, targetRef: { kind: 'Pod', namespace: 'karmada-system', name: POD } }], ports: [{ name: 'dashboard', port: relay.port }] }] },
      }),
    );
    const upstream = kubeConfigUpstream(kubeConfig('host'));
    const as = { 'Impersonate-User': VIEWER };
    let last = '';
    await waitFor('the page through the service proxy', async () => {
      const res = await roundTrip(await upstream.options('GET', PROXY, { accept: 'text/html', ...as }));
      const body = await readAll(res);
      last = `${res.statusCode}: ${body.slice(0, 400).replace(/\s+/g, " ")}`;
      return res.statusCode === 200 && body.includes('leader: yes') ? true : undefined;
    }).catch((e) => {
      throw new Error(`${errorMessage(e)}; the last answer: ${last}`);
    });
    const detail = await roundTrip(await upstream.options('GET', `${PROXY}detail?row=${encodeURIComponent(`Deployment/${NS}/${NAME}`)}`, { accept: 'application/json', ...as }));
    expect(detail.statusCode).toBe(200);
    expect(JSON.parse(await readAll(detail)).works.map((w: { cluster: string }) => w.cluster).sort()).toEqual(['member1', 'member2']);
    // a stranger is refused by the host before anything reaches the dashboard
    const stranger = await roundTrip(await upstream.options('GET', `${PROXY}events`, { accept: 'text/event-stream', 'Impersonate-User': STRANGER }));
    await readAll(stranger);
    expect(stranger.statusCode).toBe(403);

    const s = openStream(await upstream.options('GET', `${PROXY}events`, { accept: 'text/event-stream', ...as }));
    try {
      await waitFor('the first model through the proxy', async () => (s.messages.length > 0 ? true : undefined));
      expect(s.response()?.statusCode).toBe(200);
      expect(s.response()?.headers['content-type']).toContain('text/event-stream');
      expect(cellState(lastModel(s), 'member1')).toBe('dispatched');
      // the proxy passes each push on as it comes, not when the stream ends: the same response carries the change
      await setSuspension({ dispatchingOnClusters: { clusterNames: ['member1'] } });
      await waitFor('a model with member1 suspended through the proxy', async () => (cellState(lastModel(s), 'member1') === 'suspended' ? true : undefined));
      await setSuspension(undefined);
      await waitFor('member1 dispatched again through the proxy', async () => (cellState(lastModel(s), 'member1') === 'dispatched' ? true : undefined));
      expect(s.messages.length).toBeGreaterThanOrEqual(3);
    } finally {
      s.close();
    }
  });
});
