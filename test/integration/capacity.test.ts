// End to end: the cluster status controller's capacity report (issue 36). On the kwok fleet each member has fake
// Nodes whose kubelet kwok plays and a kube-scheduler that binds Pods to them: the controller must post
// status.nodeSummary and status.resourceSummary on the member's Cluster from those Nodes and Pods, as Karmada's
// cluster status controller does. On the bare fleet (apiservers only) there are no Nodes and nothing binds a Pod,
// so the tests are skipped, named as such. The last suite needs no kwok: a member whose Nodes and Pods the
// credentials may not list is probed Ready as before, only without a summary.
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './env.js';
import { itWithFleet, withFleet } from './fleet.js';
import { createDeploymentWithPolicy, diagnose, get, ignoreConflict, installCrds, prepareHost, registerMembers, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';
import { cluster, kubeConfig } from './env.js';
import { KubeStore } from '../../src/kube/store.js';
import { parseQuantity, type Quantity } from '../../src/quantity/quantity.js';
import { createLogger } from '../../src/runtime/log.js';
import { scaled } from '../time-scale.js';

const ID = Date.now().toString(36);
const NS = `capacity-e2e-${ID}`;
const NAME = `fill-${ID}`;
const CLUSTER = '/apis/cluster.karmada.io/v1alpha1/clusters/member1';
const REPLICAS = 3;
const FRQ_NAME = `quota-${ID}`;
const FILLER = `filler-${ID}`;
const DYN_NAME = `dyn-${ID}`;
const OVF_NAME = `ovf-${ID}`;

/** Sums of the quantities of every list, per resource name, in the form the API server prints them. */
function sum(lists: ReadonlyArray<Record<string, string> | undefined>): Record<string, string> {
  const out = new Map<string, Quantity>();
  for (const l of lists) {
    for (const [k, v] of Object.entries(l ?? {})) {
      const q = parseQuantity(v);
      const had = out.get(k);
      out.set(k, had ? had.add(q) : q);
    }
  }
  return Object.fromEntries([...out].map(([k, q]) => [k, q.toString()]));
}

const milli = (v: string | undefined): bigint => (v === undefined ? 0n : parseQuantity(v).milliValueBig());
const bytes = (v: string | undefined): bigint => (v === undefined ? 0n : parseQuantity(v).valueBig());

describe('karmada-lite controller: cluster capacity (nodeSummary, resourceSummary)', () => {
  const host = rest('host');
  const member1 = rest('member1');
  let ctrl: Proc | undefined;

  beforeAll(async () => {
    if (!withFleet()) return;
    await prepareHost(host, NS);
    ctrl = await startController();
  });

  afterAll(async () => {
    if (!withFleet()) return;
    await host.request('DELETE', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/federatedresourcequotas/${FRQ_NAME}`).catch(() => undefined);
    await removeDeployments(NS, [NAME, DYN_NAME, OVF_NAME]);
    await host.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
    const code = await stopController(ctrl);
    if (code !== 0) console.error(await diagnose(ctrl));
  });

  itWithFleet("member1's nodeSummary and resourceSummary.allocatable are its kwok Nodes'", async () => {
    const status = await waitFor('member1 with a nodeSummary and a resourceSummary matching its Nodes', async () => {
      const nodes = ((await member1.request('GET', '/api/v1/nodes')).items ?? []) as any[];
      const c = await get(host, CLUSTER);
      const ready = nodes.filter((n) => (n.status?.conditions ?? []).some((x: any) => x.type === 'Ready' && x.status === 'True')).length;
      const want = { nodeSummary: { totalNum: nodes.length, readyNum: ready }, allocatable: sum(nodes.map((n) => n.status?.allocatable)) };
      const got = { nodeSummary: c?.status?.nodeSummary, allocatable: c?.status?.resourceSummary?.allocatable };
      return nodes.length > 0 && isDeepStrictEqual(got, want) ? { status: c.status, nodes: nodes.length } : undefined;
    });
    // kwok's Nodes as scripts/k8s/env.sh registers them: 32 CPUs, 256Gi and 110 Pods each.
    const n = status.nodes;
    expect(status.status.resourceSummary.allocatable).toEqual({ cpu: String(32 * n), memory: `${256 * n}Gi`, pods: String(110 * n) });
    // No resource models on the Cluster: Karmada's nine default grades, every Node in the top ones by CPU and memory.
    const modelings = status.status.resourceSummary.allocatableModelings as Array<{ grade: number; count: number }>;
    expect(modelings.map((m) => m.grade)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(modelings.reduce((t, m) => t + m.count, 0)).toBeLessThanOrEqual(n);
  });

  itWithFleet("allocated is the requests of member1's bound, unfinished Pods, a new Deployment's among them", async () => {
    await createDeploymentWithPolicy(
      NS,
      NAME,
      REPLICAS,
      { placement: { clusterAffinity: { clusterNames: ['member1'] } } },
      { containers: [{ name: 'c', image: 'nginx:1.25', resources: { requests: { cpu: '250m', memory: '64Mi' } } }] },
    );
    await waitFor(`${REPLICAS} Pods of ${NAME} bound on member1`, async () => {
      const pods = ((await member1.request('GET', `/api/v1/namespaces/${NS}/pods`)).items ?? []) as any[];
      return pods.filter((p) => !p.metadata.deletionTimestamp && p.spec.nodeName).length === REPLICAS ? true : undefined;
    });
    // Other suites' Pods may still be going away: the summary is compared with what member1 holds at the
    // same moment, until the two agree (the Pods here have containers only, so their requests are the sums).
    const agreed = await waitFor(
      "member1's allocated equal to its bound, unfinished Pods' requests",
      async () => {
        const rs = (await get(host, CLUSTER))?.status?.resourceSummary;
        const pods = (((await member1.request('GET', '/api/v1/pods')).items ?? []) as any[]).filter((p) => p.spec.nodeName && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
        const requests = pods.flatMap((p) => (p.spec.containers ?? []).map((c: any) => c.resources?.requests ?? {}));
        const cpu = requests.reduce((n: bigint, r: any) => n + milli(r.cpu), 0n);
        const memory = requests.reduce((n: bigint, r: any) => n + bytes(r.memory), 0n);
        const ok = rs && bytes(rs.allocated?.pods) === BigInt(pods.length) && milli(rs.allocated?.cpu) === cpu && bytes(rs.allocated?.memory) === memory;
        return ok ? { rs, ours: pods.filter((p) => p.metadata.namespace === NS).length } : undefined;
      },
      60_000,
    );
    expect(agreed.ours).toBe(REPLICAS);
    expect(milli(agreed.rs.allocated.cpu)).toBeGreaterThanOrEqual(BigInt(REPLICAS * 250));
  });

  itWithFleet("a FederatedResourceQuota's static assignment becomes member1's ResourceQuota; its usage comes back as aggregatedStatus and overallUsed", async () => {
    // After the previous test: the Deployment's 3 Pods of 250m run in NS on member1.
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/federatedresourcequotas`, {
      body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'FederatedResourceQuota', metadata: { name: FRQ_NAME, namespace: NS }, spec: { overall: { cpu: '4', pods: '10' }, staticAssignments: [{ clusterName: 'member1', hard: { cpu: '2', pods: '5' } }] } },
    });
    const rq = await waitFor("member1's ResourceQuota", async () => get(member1, `/api/v1/namespaces/${NS}/resourcequotas/${FRQ_NAME}`));
    expect(rq.spec.hard).toEqual({ cpu: '2', pods: '5' });
    // member2 is not assigned: no ResourceQuota there.
    expect(await get(rest('member2'), `/api/v1/namespaces/${NS}/resourcequotas/${FRQ_NAME}`)).toBeUndefined();
    // member1's kube-controller-manager counts the usage; the work-status and quota status controllers bring it back.
    const status = await waitFor(
      'the FederatedResourceQuota status with member1 usage',
      async () => {
        const q = await get(host, `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/federatedresourcequotas/${FRQ_NAME}`);
        return q?.status?.aggregatedStatus?.[0]?.used?.pods === String(REPLICAS) ? q.status : undefined;
      },
      60_000,
    );
    expect(status).toEqual({
      overall: { cpu: '4', pods: '10' },
      overallUsed: { cpu: `${REPLICAS * 250}m`, pods: String(REPLICAS) },
      aggregatedStatus: [{ clusterName: 'member1', hard: { cpu: '2', pods: '5' }, used: { cpu: `${REPLICAS * 250}m`, pods: String(REPLICAS) } }],
    });
    // Deleted, its ResourceQuota goes with its Work.
    await host.request('DELETE', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/federatedresourcequotas/${FRQ_NAME}`);
    await waitFor("member1's ResourceQuota removed", async () => ((await get(member1, `/api/v1/namespaces/${NS}/resourcequotas/${FRQ_NAME}`)) ? undefined : true));
  });

  itWithFleet('member1 filled up: dynamic weight puts every replica on member2, and an affinity group on member1 alone overflows to the next', async () => {
    // Filler Pods straight on member1 (not through Karmada): 30 of each Node's 32 CPUs.
    const nodes = ((await member1.request('GET', '/api/v1/nodes')).items ?? []) as any[];
    await member1.request('POST', '/apis/apps/v1/namespaces/default/deployments', {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: FILLER },
        spec: {
          replicas: nodes.length,
          selector: { matchLabels: { app: FILLER } },
          template: {
            metadata: { labels: { app: FILLER } },
            spec: {
              containers: [{ name: 'c', image: 'nginx:1.25', resources: { requests: { cpu: '30' } } }],
              // One per Node: kube-scheduler would have no room for two anyway.
              topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: FILLER } } }],
            },
          },
        },
      },
    });
    try {
      await waitFor(
        "member1's resourceSummary with the filler allocated",
        async () => (milli((await get(host, CLUSTER))?.status?.resourceSummary?.allocated?.cpu) >= BigInt(nodes.length * 30_000) ? true : undefined),
        60_000,
      );
      const fourCpus = { containers: [{ name: 'c', image: 'nginx:1.25', resources: { requests: { cpu: '4' } } }] };
      const rbOf = (name: string) => get(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${name}-deployment`);

      // Dynamic weight by available replicas: member1 has room for no 4-CPU replica, member2 for many.
      await createDeploymentWithPolicy(NS, DYN_NAME, 6, {
        placement: {
          clusterAffinity: { clusterNames: ['member1', 'member2'] },
          replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted', weightPreference: { dynamicWeight: 'AvailableReplicas' } },
        },
      }, fourCpus);
      const dyn = await waitFor('the dynamic weight binding scheduled', async () => (await rbOf(DYN_NAME))?.spec?.clusters);
      expect(dyn).toEqual([{ name: 'member2', replicas: 6 }]);

      // Two affinity groups, member1 first: it cannot hold 2 replicas of 4 CPUs, so the scheduler moves to the next.
      await createDeploymentWithPolicy(NS, OVF_NAME, 2, {
        placement: {
          clusterAffinities: [
            { affinityName: 'primary', clusterNames: ['member1'] },
            { affinityName: 'backup', clusterNames: ['member2'] },
          ],
          replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
        },
      }, fourCpus);
      // The scheduler writes spec.clusters, then the status naming the affinity group it used.
      const ovf = await waitFor('the overflow binding scheduled, its affinity group recorded', async () => {
        const rb = await rbOf(OVF_NAME);
        return rb?.spec?.clusters?.length && rb.status?.schedulerObservingAffinityName ? rb : undefined;
      });
      expect(ovf.spec.clusters).toEqual([{ name: 'member2', replicas: 2 }]);
      expect(ovf.status.schedulerObservingAffinityName).toBe('backup');
    } finally {
      await member1.request('DELETE', `/apis/apps/v1/namespaces/default/deployments/${FILLER}`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } }).catch(() => undefined);
    }
  });
});

describe('cluster status probe: a member whose Nodes and Pods cannot be listed', () => {
  const host = rest('host');
  const member1 = rest('member1');
  const BLIND = `blind-${ID}`;
  const SA = `blind-${ID}`;
  let store: KubeStore | undefined;
  const lines: Array<{ level: string; msg: string; kind?: string; err?: string }> = [];
  let synced = 0;

  beforeAll(async () => {
    await installCrds(host);
    await registerMembers(host);
    // On member1: a ServiceAccount that may list Namespaces (the probe's request that needs rights) and nothing else.
    await ignoreConflict(member1.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: SA } } }));
    await ignoreConflict(member1.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: { metadata: { name: SA }, rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] }] } }));
    await ignoreConflict(
      member1.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        body: { metadata: { name: SA }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: SA }, subjects: [{ kind: 'ServiceAccount', name: SA, namespace: 'default' }] },
      }),
    );
    const tr = await member1.request('POST', `/api/v1/namespaces/default/serviceaccounts/${SA}/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } } });
    const caBundle = kubeConfig('member1').getCurrentCluster()!.caData!;
    await host.request('POST', '/api/v1/namespaces/karmada-cluster/secrets', { body: { metadata: { name: BLIND, namespace: 'karmada-cluster' }, data: { token: Buffer.from(tr.status.token).toString('base64'), caBundle } } });
    await host.request('POST', '/apis/cluster.karmada.io/v1alpha1/clusters', {
      body: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: BLIND }, spec: { apiEndpoint: cluster('member1').server, syncMode: 'Push', secretRef: { namespace: 'karmada-cluster', name: BLIND } } },
    });
    const log = createLogger({
      level: 'debug',
      write: (s: string) => {
        for (const line of s.split('\n').filter(Boolean)) {
          const o = JSON.parse(line);
          if (o.cluster === BLIND) lines.push(o);
        }
      },
    });
    store = new KubeStore({ host: kubeConfig('host'), log, probeIntervalMs: 500, warmUpTimeoutMs: 2_000, onClusterSynced: (name) => (name === BLIND ? synced++ : undefined) });
    await store.start();
  }, scaled(120_000));

  afterAll(async () => {
    store?.stop();
    await host.request('DELETE', `/apis/cluster.karmada.io/v1alpha1/clusters/${BLIND}`).catch(() => undefined);
    await host.request('DELETE', `/api/v1/namespaces/karmada-cluster/secrets/${BLIND}`).catch(() => undefined);
    await member1.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${SA}`).catch(() => undefined);
    await member1.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${SA}`).catch(() => undefined);
    await member1.request('DELETE', `/api/v1/namespaces/default/serviceaccounts/${SA}`).catch(() => undefined);
  });

  it('is Ready, the refused lists are logged, and no summary is posted, probe after probe', async () => {
    const readyOf = async () => ((await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${BLIND}`))?.status?.conditions ?? []).find((c: any) => c.type === 'Ready')?.status;
    await waitFor(`${BLIND} Ready`, async () => ((await readyOf()) === 'True' ? true : undefined));
    await waitFor('the Node and Pod lists refused, logged as warnings', async () =>
      ['Node', 'Pod'].every((k) => lines.some((l) => l.level === 'warn' && l.kind === k && /forbidden|403/i.test(l.err ?? ''))) ? true : undefined,
    );
    // Three more probes after the refusals: each ends (none hangs on the informers) and the member stays Ready.
    const from = synced;
    await waitFor(`three more probes of ${BLIND}`, async () => (synced >= from + 3 ? true : undefined));
    const c = await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${BLIND}`);
    expect(((c.status?.conditions ?? []) as any[]).find((x) => x.type === 'Ready')?.status).toBe('True');
    expect(c.status?.resourceSummary).toBeUndefined();
    expect(c.status?.nodeSummary).toBeUndefined();
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
  });
});

describe('FederatedQuotaEnforcement: the scheduler charges bindings against the overall limit', () => {
  const host = rest('host');
  const QNS = `quota-e2e-${ID}`;
  const QUOTA = 'overall';
  const FRQS = `/apis/policy.karmada.io/v1alpha1/namespaces/${QNS}/federatedresourcequotas`;
  const RBS = `/apis/work.karmada.io/v1alpha2/namespaces/${QNS}/resourcebindings`;
  let ctrl: Proc | undefined;

  beforeAll(async () => {
    await prepareHost(host, QNS);
    ctrl = await startController(['--feature-gates', 'FederatedQuotaEnforcement=true']);
  });

  afterAll(async () => {
    await removeDeployments(QNS, ['over', 'under']);
    await host.request('DELETE', `${FRQS}/${QUOTA}`).catch(() => undefined);
    await host.request('DELETE', `/api/v1/namespaces/${QNS}`).catch(() => undefined);
    const code = await stopController(ctrl);
    if (code !== 0) console.error(await diagnose(ctrl));
  });

  it('a Deployment whose replicas would pass overall is refused with Karmada\'s words; one within it is scheduled and counted', async () => {
    await host.request('POST', FRQS, { body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'FederatedResourceQuota', metadata: { name: QUOTA, namespace: QNS }, spec: { overall: { cpu: '1' } } } });
    // The enforcement controller has seen it once it wrote overall: from then on the scheduler charges against it.
    await waitFor('the quota enforced', async () => ((await get(host, `${FRQS}/${QUOTA}`))?.status?.overall?.cpu === '1' ? true : undefined));
    const requests = { containers: [{ name: 'c', image: 'nginx:1.25', resources: { requests: { cpu: '500m' } } }] };
    const toMember1 = { placement: { clusterAffinity: { clusterNames: ['member1'] } } };
    await createDeploymentWithPolicy(QNS, 'over', 3, toMember1, requests);
    const refused = await waitFor('the binding of over refused for quota', async () => {
      const rb = await get(host, `${RBS}/over-deployment`);
      const c = ((rb?.status?.conditions ?? []) as any[]).find((x) => x.type === 'Scheduled');
      return c?.reason === 'QuotaExceeded' ? { rb, c } : undefined;
    });
    expect(refused.c.status).toBe('False');
    expect(refused.c.message).toBe(`admission webhook "resourcebinding.karmada.io" denied the request: FederatedResourceQuota(${QNS}/${QUOTA}) exceeded for resource cpu: requested sum 1500m, limit 1.`);
    expect(refused.rb.spec.clusters ?? []).toEqual([]);

    await createDeploymentWithPolicy(QNS, 'under', 1, toMember1, requests);
    await waitFor('under scheduled to member1', async () => ((await get(host, `${RBS}/under-deployment`))?.spec?.clusters?.[0]?.name === 'member1' ? true : undefined));
    const q = await waitFor('overallUsed counting under', async () => {
      const s = (await get(host, `${FRQS}/${QUOTA}`))?.status;
      return s?.overallUsed?.cpu === '500m' ? s : undefined;
    });
    expect(q.overall).toEqual({ cpu: '1' });
    // over is still refused: 500m used + 1500m asked.
    const c = ((await get(host, `${RBS}/over-deployment`))?.status?.conditions ?? []).find((x: any) => x.type === 'Scheduled');
    expect(c?.reason).toBe('QuotaExceeded');
  });
});
