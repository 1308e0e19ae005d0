// End to end: a custom resource whose health only an Argo CD-layout health check folder knows
// (`--health-checks conformance/argocd-health`, db.example.com/Database/health.lua), and an application
// failover that the check's Degraded verdict drives, by the real binary against the host, member1 and
// member2 apiservers. The tests write the member objects' status themselves: Database is a custom kind, and
// no controller of Kubernetes (the kwok fleet's included) writes its status; its operator would, and the test
// plays that operator.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { ApiError, type RestClient } from '../../src/kube/rest.js';
import { repoRoot, waitFor, type ClusterName } from './env.js';
import { diagnose, get, ignoreConflict, prepareHost, rest, startController, stopController, type Proc } from './harness.js';

const NS = `health-checks-e2e-${Date.now().toString(36)}`;
const NAME = 'orders';
const host = rest('host');
const member = (m: ClusterName) => rest(m);
const GROUP = 'db.example.com';
const dbPath = `/apis/${GROUP}/v1/namespaces/${NS}/databases/${NAME}`;
const rbPath = `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${NAME}-database`;

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `databases.${GROUP}` },
  spec: {
    group: GROUP,
    names: { kind: 'Database', plural: 'databases', singular: 'database', listKind: 'DatabaseList' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

async function installCrd(c: RestClient): Promise<void> {
  await ignoreConflict(c.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: CRD }));
  await waitFor(`the Database CRD established`, async () => {
    const crd = await get(c, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/databases.${GROUP}`);
    return crd?.status?.conditions?.some((x: any) => x.type === 'Established' && x.status === 'True') ? true : undefined;
  });
}

/** Writes the member object's status.phase (what the health check reads); retried on 409. */
async function setPhase(c: RestClient, phase: string, reason?: string): Promise<void> {
  for (;;) {
    const d = await get(c, dbPath);
    if (!d) throw new Error(`Database ${NS}/${NAME} is not on the member`);
    d.status = { phase, ...(reason ? { reason } : {}) };
    try {
      await c.request('PUT', `${dbPath}/status`, { body: d });
      return;
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 409)) throw e;
    }
  }
}

const itemOf = (rb: any, cluster: string) => ((rb?.status?.aggregatedStatus ?? []) as any[]).find((i) => i.clusterName === cluster);
const clustersOf = (rb: any) => ((rb?.spec?.clusters ?? []) as any[]).map((c) => c.name as string);

describe('health checks end to end', () => {
  let ctrl: Proc | undefined;

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail') return;
    console.error((ctrl?.logs ?? []).slice(-300).join('\n'));
    console.error(await diagnose(ctrl));
  });

  beforeAll(async () => {
    await prepareHost(host, NS);
    for (const c of ['host', 'member1', 'member2'] as const) await installCrd(rest(c));
    for (const m of ['member1', 'member2'] as const) await ignoreConflict(member(m).request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }));
    ctrl = await startController(['--health-checks', path.join(repoRoot, 'conformance/argocd-health')]);
    for (const m of ['member1', 'member2']) {
      await waitFor(`${m} Ready`, async () => {
        const c = await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${m}`);
        return c?.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? true : undefined;
      });
    }
  });

  afterAll(async () => {
    await host.request('DELETE', dbPath).catch(() => undefined);
    await waitFor('the member copies removed', async () => {
      for (const m of ['member1', 'member2'] as const) if (await get(member(m), dbPath)) return undefined;
      return true;
    }).catch((e) => console.warn(`cleanup: ${(e as Error).message}`));
    await host.request('DELETE', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${NAME}`).catch(() => undefined);
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
    await host.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
  });

  it('the check decides health, keeps its message, and a Degraded member fails the application over', async () => {
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
      body: {
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'PropagationPolicy',
        metadata: { name: NAME, namespace: NS },
        spec: {
          propagateDeps: true,
          resourceSelectors: [{ apiVersion: `${GROUP}/v1`, kind: 'Database', name: NAME }],
          placement: { clusterAffinity: { clusterNames: ['member1', 'member2'] }, spreadConstraints: [{ spreadByField: 'cluster', maxGroups: 1, minGroups: 1 }] },
          failover: { application: { decisionConditions: { tolerationSeconds: 3 }, purgeMode: 'Directly' } },
        },
      },
    });
    await host.request('POST', `/apis/${GROUP}/v1/namespaces/${NS}/databases`, {
      body: { apiVersion: `${GROUP}/v1`, kind: 'Database', metadata: { name: NAME, namespace: NS }, spec: { size: 1 } },
    });
    const first = await waitFor('the Database scheduled', async () => {
      const rb = await get(host, rbPath);
      return clustersOf(rb).length === 1 ? clustersOf(rb)[0]! : undefined;
    });
    const other = first === 'member1' ? 'member2' : 'member1';
    await waitFor(`the Database on ${first}`, () => get(member(first as ClusterName), dbPath));

    // No status yet: Progressing, which karmada-lite reads as Unknown, with the check's message.
    const progressing = await waitFor('Unknown with the message', async () => {
      const i = itemOf(await get(host, rbPath), first);
      return i?.health === 'Unknown' && i?.healthMessage ? i : undefined;
    });
    expect(progressing.healthMessage).toBe('Waiting for the database');

    await setPhase(member(first as ClusterName), 'Running');
    const healthy = await waitFor('Healthy from the check', async () => {
      const i = itemOf(await get(host, rbPath), first);
      return i?.health === 'Healthy' ? i : undefined;
    });
    expect(healthy.healthMessage).toBe('Database is running');

    await setPhase(member(first as ClusterName), 'Failed', 'disk full');
    const unhealthy = await waitFor('Unhealthy from the check', async () => {
      const rb = await get(host, rbPath);
      const i = itemOf(rb, first);
      return i?.health === 'Unhealthy' || !clustersOf(rb).includes(first) ? (i ?? { moved: true }) : undefined;
    });
    if (!unhealthy.moved) expect(unhealthy.healthMessage).toBe('disk full');

    // Degraded past tolerationSeconds: evicted from the first cluster and placed on the other.
    await waitFor(`moved to ${other}`, async () => {
      const rb = await get(host, rbPath);
      return clustersOf(rb).join() === other ? true : undefined;
    });
    await waitFor(`the Database on ${other}`, () => get(member(other as ClusterName), dbPath));

    // Events are written behind the controller's other requests (the recorder's low lane): waited for.
    await waitFor('the InterpretHealthSucceed event saying Unhealthy', async () => {
      const events = (await host.request('GET', `/api/v1/namespaces/karmada-es-${first}/events`)).items as any[];
      return events.some((e) => e.reason === 'InterpretHealthSucceed' && String(e.message).includes('as Unhealthy. disk full')) ? true : undefined;
    });
  });
});
