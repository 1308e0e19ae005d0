// End to end: the real binary (dist/karmada-lite controller) against the host, member1 and member2 apiservers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane } from '../../src/store/control-plane.js';
import type { KObject } from '../../src/core/object.js';
import { RB, WORK } from '../../src/core/kinds.js';
import { cluster, waitFor, type ClusterName } from './env.js';
import { freePort, get, ignoreConflict, MemberProxy, prepareHost, rest, startController, stopController, type Proc } from './harness.js';
import { itWithFleet, waitDeploymentAvailable } from './fleet.js';

const NS = `ctrl-e2e-${Date.now().toString(36)}`;

/** What does not depend on which store ran the reconcile: ids, versions, times. */
function comparable(o: KObject): unknown {
  const drop = new Set(['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields']);
  const walk = (v: unknown, k?: string): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [kk, vv] of Object.entries(v as Record<string, unknown>)) {
        if (drop.has(kk) || /permanent-id$/.test(kk) || kk === 'lastTransitionTime' || kk === 'lastScheduledTime') continue;
        // The template's uid differs per store; a real apiserver also bumps a Deployment's generation when
        // its annotations change (the detector's claim), which the embedded store does not.
        if (kk === 'resourcetemplate.karmada.io/uid' || kk === 'resourcetemplate.karmada.io/generation') continue;
        out[kk] = walk(vv, kk);
      }
      return out;
    }
    return k === 'resourceVersion' ? undefined : v;
  };
  return walk({ metadata: { name: o.metadata.name, namespace: o.metadata.namespace, labels: o.metadata.labels, annotations: o.metadata.annotations }, spec: o.spec });
}

describe('karmada-lite controller end to end', () => {
  const host = rest('host');
  let ctrl: Proc | undefined;

  beforeAll(async () => {
    await prepareHost(host, NS);
    ctrl = await startController();
  });

  afterAll(async () => {
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
    // On the bare fleet no namespace controller runs, and a deleted namespace would stay Terminating.
    for (const p of [`/apis/apps/v1/namespaces/${NS}/deployments/web`, `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/web`]) await host.request('DELETE', p).catch(() => undefined);
  });

  it('probes the members and sets their Cluster Ready condition and API list', async () => {
    for (const m of ['member1', 'member2']) {
      const c = await waitFor(`${m} Ready`, async () => {
        const c = await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${m}`);
        return c?.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
      });
      const apps = c.status.apiEnablements.find((g: any) => g.groupVersion === 'apps/v1');
      expect(apps.resources).toContainEqual({ name: 'deployments', kind: 'Deployment' });
    }
    await waitFor('the readiness metric', async () => {
      const metrics = await (await fetch(`http://127.0.0.1:${ctrl!.port}/metrics`)).text();
      return /karmada_lite_clusters\{ready="true"\} 2/.test(metrics) ? true : undefined;
    });
  });

  it('propagates a Deployment with divided replicas; binding and Works match the embedded control plane', async () => {
    const deployment: KObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS, labels: { app: 'web' } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } },
      },
    };
    const policy: KObject = {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'web', namespace: NS },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
        placement: {
          clusterAffinity: { clusterNames: ['member1', 'member2'] },
          replicaScheduling: {
            replicaSchedulingType: 'Divided',
            replicaDivisionPreference: 'Weighted',
            weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ['member1'] }, weight: 2 }, { targetCluster: { clusterNames: ['member2'] }, weight: 1 }] },
          },
        },
      },
    };
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, { body: policy });
    await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, { body: deployment });

    const want: Record<string, number> = { member1: 2, member2: 1 };
    for (const m of ['member1', 'member2'] as const) {
      const d = await waitFor(`the Deployment on ${m}`, () => get(rest(m), `/apis/apps/v1/namespaces/${NS}/deployments/web`));
      expect(d.spec.replicas).toBe(want[m]);
      expect(d.metadata.labels).toMatchObject({ app: 'web', 'karmada.io/managed': 'true', 'propagationpolicy.karmada.io/permanent-id': expect.any(String), 'work.karmada.io/permanent-id': expect.any(String) });
      expect(d.metadata.annotations).toMatchObject({
        'propagationpolicy.karmada.io/name': 'web',
        'propagationpolicy.karmada.io/namespace': NS,
        'resourcebinding.karmada.io/name': 'web-deployment',
        'work.karmada.io/namespace': `karmada-es-${m}`,
        'work.karmada.io/conflict-resolution': 'abort',
      });
    }

    // The same input on the embedded control plane, with the template and policy as the apiserver defaulted them.
    const stored = await get(host, `/apis/apps/v1/namespaces/${NS}/deployments/web`);
    const m0 = stored.metadata;
    const template: KObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: m0.name, namespace: m0.namespace, labels: deployment.metadata.labels }, spec: stored.spec };
    const storedPolicy = await get(host, `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/web`);
    const cp = new ControlPlane();
    for (const m of ['member1', 'member2']) cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: m }, spec: { apiEndpoint: cluster(m as ClusterName).server, syncMode: 'Push' } });
    cp.apply({ apiVersion: policy.apiVersion, kind: policy.kind, metadata: policy.metadata, spec: storedPolicy.spec });
    cp.apply(template);
    cp.settle();
    const [embeddedRb] = cp.store.list(RB, { namespace: NS });
    expect(embeddedRb).toBeDefined();
    const rb = await waitFor('the ResourceBinding to be scheduled', async () => {
      const b = await get(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${embeddedRb!.metadata.name}`);
      return b?.spec?.clusters?.length === 2 ? b : undefined;
    });
    expect(comparable(rb)).toEqual(comparable(embeddedRb!));
    const embeddedWorks = cp.store.list(WORK).filter((w) => w.metadata.annotations?.['resourcebinding.karmada.io/namespace'] === NS);
    expect(embeddedWorks).toHaveLength(2);
    for (const ew of embeddedWorks) {
      const w = await waitFor(`Work ${ew.metadata.namespace}/${ew.metadata.name}`, () => get(host, `/apis/work.karmada.io/v1alpha1/namespaces/${ew.metadata.namespace}/works/${ew.metadata.name}`));
      expect(comparable(w)).toEqual(comparable(ew));
    }
  });
  // The members' status is their own deployment controllers' (the kwok fleet runs the Pods), not the test's.
  itWithFleet('member status flows back into the Works, the binding and the template', async () => {
    const want: Record<string, number> = { member1: 2, member2: 1 };
    for (const m of ['member1', 'member2'] as const) {
      const d = await waitDeploymentAvailable(rest(m), NS, 'web');
      expect(d.status.availableReplicas).toBe(want[m]);
    }
    const rb = await waitFor('aggregatedStatus with both members ready', async () => {
      const b = await get(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/web-deployment`);
      const items = (b?.status?.aggregatedStatus ?? []) as any[];
      return items.length === 2 && items.every((i) => i.status?.readyReplicas === want[i.clusterName] && i.health === 'Healthy') ? b : undefined;
    });
    expect(rb.status.aggregatedStatus.map((i: any) => i.clusterName).sort()).toEqual(['member1', 'member2']);
    const tpl = await waitFor('the template status', async () => {
      const d = await get(host, `/apis/apps/v1/namespaces/${NS}/deployments/web`);
      return d?.status?.readyReplicas === 3 ? d : undefined;
    });
    expect(tpl.status).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3 });
    const metrics = await (await fetch(`http://127.0.0.1:${ctrl!.port}/metrics`)).text();
    expect(metrics).toMatch(/karmada_lite_interpreter_calls_total\{operation="AggregateStatus",result="success"\} [1-9]/);
    expect(metrics).toMatch(/controller_runtime_reconcile_total\{controller="binding-status",result="success"\} [1-9]/);
    expect(metrics).toMatch(/workqueue_depth\{name="execution"\} \d/);
  });

  it('suspended dispatching keeps an image change from the suspended member only', async () => {
    const ppPath = `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/web`;
    const pp = await get(host, ppPath);
    pp.spec.suspension = { dispatchingOnClusters: { clusterNames: ['member1'] } };
    await host.request('PUT', ppPath, { body: pp });
    const w1 = await waitFor('member1 Work suspended', async () => {
      const works = (await host.request('GET', '/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works')).items as any[];
      const w = works.find((x) => x.metadata.annotations?.['resourcebinding.karmada.io/namespace'] === NS);
      return w?.status?.conditions?.some((c: any) => c.type === 'Dispatching' && c.reason === 'SuspendDispatching') ? w : undefined;
    });
    expect(w1.spec.suspendDispatching).toBe(true);

    const dPath = `/apis/apps/v1/namespaces/${NS}/deployments/web`;
    const d = await get(host, dPath);
    d.spec.template.spec.containers[0].image = 'nginx:1.27';
    await host.request('PUT', dPath, { body: d });
    await waitFor('the new image on member2', async () => {
      const m = await get(rest('member2'), dPath);
      return m?.spec.template.spec.containers[0].image === 'nginx:1.27' ? true : undefined;
    });
    // member2 got it, so the change went through the pipeline: member1 stays as it was.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await get(rest('member1'), dPath)).spec.template.spec.containers[0].image).toBe('nginx:1.25');

    const cur = await get(host, ppPath);
    delete cur.spec.suspension;
    await host.request('PUT', ppPath, { body: cur });
    await waitFor('the new image on member1 after resuming', async () => {
      const m = await get(rest('member1'), dPath);
      return m?.spec.template.spec.containers[0].image === 'nginx:1.27' ? true : undefined;
    });
  });

  it('deleting the template removes the member copies, and a preserving policy leaves them without Karmada metadata', async () => {
    const mk = (name: string, preserve: boolean) => ({
      pp: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', name }], placement: { clusterAffinity: { clusterNames: ['member1', 'member2'] } }, ...(preserve ? { preserveResourcesOnDeletion: true } : {}) } },
      cm: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, labels: { team: 'a' } }, data: { k: 'v' } },
    });
    for (const [name, preserve] of [['plain', false], ['kept', true]] as const) {
      const { pp, cm } = mk(name, preserve);
      await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, { body: pp });
      await host.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: cm });
      for (const m of ['member1', 'member2'] as const) await waitFor(`${name} on ${m}`, () => get(rest(m), `/api/v1/namespaces/${NS}/configmaps/${name}`));
      await host.request('DELETE', `/api/v1/namespaces/${NS}/configmaps/${name}`);
    }
    // What the embedded control plane leaves behind for the same input.
    const cp = new ControlPlane();
    for (const m of ['member1', 'member2']) cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: m }, spec: { syncMode: 'Push' } });
    const { pp, cm } = mk('kept', true);
    cp.apply(pp as KObject);
    cp.apply(cm as KObject);
    cp.settle();
    cp.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'kept' });
    cp.settle();
    const embedded = cp.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'kept' }, 'member1')!;
    expect(embedded).toBeDefined();
    for (const m of ['member1', 'member2'] as const) {
      await waitFor(`plain gone from ${m}`, async () => ((await get(rest(m), `/api/v1/namespaces/${NS}/configmaps/plain`)) === undefined ? true : undefined));
      const kept = await waitFor(`kept on ${m} without Karmada's labels`, async () => {
        const c = await get(rest(m), `/api/v1/namespaces/${NS}/configmaps/kept`);
        return c && !Object.keys(c.metadata.labels ?? {}).some((k) => k.includes('karmada.io')) ? c : undefined;
      });
      expect(kept.metadata.labels).toEqual({ team: 'a' });
      expect(kept.metadata.annotations ?? {}).toEqual(embedded.metadata.annotations ?? {});
      expect(kept.data).toEqual({ k: 'v' });
    }
  });

  it('deleting a template while its dispatching is suspended still removes it from the members', async () => {
    const ppPath = `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`;
    await host.request('POST', ppPath, {
      body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: 'susp', namespace: NS }, spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'susp' }], placement: { clusterAffinity: { clusterNames: ['member1', 'member2'] } } } },
    });
    await host.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'susp', namespace: NS }, data: { v: '1' } } });
    const cmPath = `/api/v1/namespaces/${NS}/configmaps/susp`;
    for (const m of ['member1', 'member2'] as const) await waitFor(`susp on ${m}`, () => get(rest(m), cmPath));
    const pp = await get(host, `${ppPath}/susp`);
    pp.spec.suspension = { dispatching: true };
    await host.request('PUT', `${ppPath}/susp`, { body: pp });
    await waitFor('both Works suspended', async () => {
      const works = await Promise.all(['member1', 'member2'].map(async (m) => ((await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${m}/works`)).items as any[]).find((w) => w.metadata.annotations?.['resourcebinding.karmada.io/name'] === 'susp-configmap' && w.metadata.annotations?.['resourcebinding.karmada.io/namespace'] === NS)));
      return works.every((w) => w?.status?.conditions?.some((c: any) => c.type === 'Dispatching' && c.reason === 'SuspendDispatching')) ? true : undefined;
    });
    await host.request('DELETE', cmPath);
    for (const m of ['member1', 'member2'] as const) await waitFor(`susp gone from ${m}`, async () => ((await get(rest(m), cmPath)) === undefined ? true : undefined));
  });

  it('a member outage: the cluster turns not ready, the others keep being served, and it catches up on return', async () => {
    // member3 is member2's apiserver behind a TCP proxy that the test can take down and bring back.
    const proxy = new MemberProxy(await freePort(), cluster('member2').port);
    await proxy.up();
    const readyOf = async (name: string) => (await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${name}`))?.status?.conditions?.find((c: any) => c.type === 'Ready')?.status;
    try {
      await ignoreConflict(
        host.request('POST', '/apis/cluster.karmada.io/v1alpha1/clusters', {
          body: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'member3' }, spec: { apiEndpoint: `https://127.0.0.1:${proxy.port}`, syncMode: 'Push', secretRef: { namespace: 'karmada-cluster', name: 'member2' } } },
        }),
      );
      await waitFor('member3 Ready', async () => ((await readyOf('member3')) === 'True' ? true : undefined));
      await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
        body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: 'outage', namespace: NS }, spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'outage' }], placement: { clusterAffinity: { clusterNames: ['member1', 'member3'] } } } },
      });
      const cmPath = `/api/v1/namespaces/${NS}/configmaps/outage`;
      await host.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'outage', namespace: NS }, data: { v: '1' } } });
      const has = (c: ClusterName, v: string) => async () => ((await get(rest(c), cmPath))?.data?.v === v ? true : undefined);
      await waitFor('outage on member1', has('member1', '1'));
      await waitFor('outage on member3 (member2)', has('member2', '1'));

      await proxy.down();
      await waitFor('member3 not ready', async () => ((await readyOf('member3')) === 'False' ? true : undefined));
      const cur = await get(host, cmPath);
      await host.request('PUT', cmPath, { body: { ...cur, data: { v: '2' } } });
      await waitFor('member1 still served', has('member1', '2'));
      expect((await get(rest('member2'), cmPath)).data.v).toBe('1');

      await proxy.up();
      await waitFor('member3 ready again', async () => ((await readyOf('member3')) === 'True' ? true : undefined));
      await waitFor('member3 caught up', has('member2', '2'));
    } finally {
      await host.request('DELETE', '/apis/cluster.karmada.io/v1alpha1/clusters/member3').catch(() => undefined);
      // Its finalizer is this controller's to remove, and the next test stops it.
      await waitFor('member3 gone', async () => ((await get(host, '/apis/cluster.karmada.io/v1alpha1/clusters/member3')) === undefined ? true : undefined), 60_000).catch((e) => console.warn(`cleanup: ${(e as Error).message}`));
      await proxy.down().catch(() => undefined);
    }
  });

  it('leader election: one of two replicas acts; the other takes over when it dies, and SIGTERM releases the lease', async () => {
    // The replica started in beforeAll runs without leader election: it must not act alongside these.
    await stopController(ctrl);
    const lease = `karmada-lite-e2e-${Date.now().toString(36)}`;
    const args = ['--leader-elect', '--leader-elect-resource-name', lease, '--leader-elect-lease-duration', '4s', '--leader-elect-retry-period', '500ms'];
    const a = await startController([...args, '--leader-elect-identity', 'replica-a']);
    await waitFor('replica-a to lead', async () => (a.logs.some((l) => l.includes('became leader')) ? true : undefined));
    const b = await startController([...args, '--leader-elect-identity', 'replica-b']);
    try {
      await new Promise((r) => setTimeout(r, 1500));
      expect(b.logs.some((l) => l.includes('became leader'))).toBe(false);
      a.child.kill('SIGKILL');
      // How soon is bench material; here it only has to happen (the lease is 4 s).
      await waitFor('replica-b to take over', async () => (b.logs.some((l) => l.includes('became leader')) ? true : undefined), 15_000);

      // The new leader acts: a change reaches the members.
      const dPath = `/apis/apps/v1/namespaces/${NS}/deployments/web`;
      const d = await get(host, dPath);
      d.spec.replicas = 6;
      await host.request('PUT', dPath, { body: d });
      await waitFor('member1 scaled by the new leader', async () => ((await get(rest('member1'), dPath))?.spec.replicas === 4 ? true : undefined));

      expect(await stopController(b)).toBe(0);
      const l = await host.request('GET', `/apis/coordination.k8s.io/v1/namespaces/karmada-system/leases/${lease}`);
      expect(l.spec.holderIdentity ?? '').toBe('');
    } finally {
      await stopController(a);
      await stopController(b);
    }
  });
});
