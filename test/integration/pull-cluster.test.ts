// End to end: the control plane's side of Pull mode, on the real binary (dist/karmada-lite register and
// controller) against the host and member1 apiservers. No agent runs here: the test plays it, with the
// credentials `register` issued, renewing the heartbeat Lease and posting the Cluster's Ready condition; so
// the same loop proves what those credentials may and may not do.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentAggregationLabel } from '../../src/kube/register.js';
import { ApiError, RestClient } from '../../src/kube/rest.js';
import { cluster, waitFor } from './env.js';
import { binary, evenSplitWithFailover, freePort, get, prepareHost, recordVersions, removeDeployments, removeRegistered, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `pull-e2e-${Date.now().toString(36)}`;
const NAME = 'edge1';
const CLUSTER_ID = `edge1-id-${Date.now().toString(36)}`;
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const LEASE = `/apis/coordination.k8s.io/v1/namespaces/karmada-cluster/leases/${NAME}`;
/** The grace period the controller runs with; the agent (the test) renews every second. */
const GRACE_SECONDS = 4;

const host = rest('host');
const dir = mkdtempSync(path.join(tmpdir(), 'pull-e2e-'));
const agentKubeconfig = path.join(dir, 'agent.config');

function register(...args: string[]) {
  return spawnSync(binary, ['register', '--karmada-kubeconfig', cluster('host').kubeconfig, ...args], { encoding: 'utf8', timeout: scaled(60_000) });
}

const registerArgs = (port: number) => ['--cluster-name', NAME, '--cluster-id', CLUSTER_ID, '--cluster-api-endpoint', `https://127.0.0.1:${port}`, '--kubeconfig-out', agentKubeconfig];

/** The HTTP status of a request with the agent's credentials (2xx as 200). */
async function status(c: RestClient, method: string, p: string, body?: unknown): Promise<number> {
  try {
    await c.request(method, p, body === undefined ? {} : { body });
    return 200;
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
}

const readyOf = (c: any) => ((c?.status?.conditions ?? []) as any[]).find((x) => x.type === 'Ready');
const notReadyTaints = (c: any) => ((c?.spec?.taints ?? []) as any[]).filter((t) => t.key === 'cluster.karmada.io/not-ready' || t.key === 'cluster.karmada.io/unreachable');

/** What an agent does, with the agent's credentials: renew the Lease, post Ready (with member1's API list, so the scheduler takes it). */
class FakeAgent {
  renewals = 0;
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly c: RestClient) {}

  async renew(): Promise<void> {
    const l = await this.c.request('GET', LEASE);
    l.spec = { ...l.spec, holderIdentity: NAME, leaseDurationSeconds: 40, renewTime: new Date().toISOString().replace(/Z$/, '000Z') };
    await this.c.request('PUT', LEASE, { body: l });
    this.renewals++;
  }

  async postReady(): Promise<void> {
    const apiEnablements = (await get(host, `${CLUSTERS}/member1`))?.status?.apiEnablements ?? [];
    for (;;) {
      const c = await this.c.request('GET', `${CLUSTERS}/${NAME}`);
      c.status = {
        ...c.status,
        apiEnablements,
        conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', message: 'cluster is healthy and ready to accept workloads', lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') }],
      };
      try {
        await this.c.request('PUT', `${CLUSTERS}/${NAME}/status`, { body: c });
        return;
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 409)) throw e;
      }
    }
  }

  start(): void {
    const loop = () => {
      void this.renew()
        .catch((e) => console.warn(`renewal failed: ${(e as Error).message}`))
        .finally(() => {
          if (this.timer) this.timer = setTimeout(loop, 1000);
        });
    };
    this.timer = setTimeout(loop, 0);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

describe('Pull clusters on the control plane: register, the heartbeat, failover', () => {
  let ctrl: Proc | undefined;
  let agent: RestClient;
  let fake: FakeAgent;
  // The Pull cluster's apiEndpoint: a listener that counts connections. The controller must make none.
  let endpoint: Server;
  let endpointPort = 0;
  let connections = 0;

  beforeAll(async () => {
    await prepareHost(host, NS);
    endpointPort = await freePort();
    endpoint = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => endpoint.listen(endpointPort, '127.0.0.1', r));
    const r = register(...registerArgs(endpointPort));
    expect(r.status, r.stderr).toBe(0);
    const kc = new KubeConfig();
    kc.loadFromFile(agentKubeconfig);
    agent = new RestClient(kc);
    fake = new FakeAgent(agent);
    ctrl = await startController([
      '--cluster-monitor-grace-period', `${GRACE_SECONDS}s`,
      '--cluster-startup-grace-period', `${GRACE_SECONDS}s`,
      '--cluster-failure-threshold', '3s',
    ]);
  }, scaled(180_000));

  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail' && ctx.task.name.includes('register') === false) console.error(ctrl?.logs.filter((l) => !l.includes('"level":"debug"')).slice(-60).join('\n'));
  });

  afterAll(async () => {
    fake?.stop();
    await removeDeployments(NS, ['web']);
    await host.request('DELETE', `${CLUSTERS}/${NAME}`).catch(() => undefined);
    await waitFor(`${NAME} gone`, async () => ((await get(host, `${CLUSTERS}/${NAME}`)) === undefined ? true : undefined), 30_000).catch((e) => console.warn(`cleanup: ${(e as Error).message}`));
    // Any Work left (the test failed before the deletion test): its finalizer would keep the namespace.
    for (const w of ((await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${NAME}/works`).catch(() => ({ items: [] }))).items ?? []) as any[]) {
      const p = `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${NAME}/works/${w.metadata.name}`;
      await host.request('PUT', p, { body: { ...w, metadata: { ...w.metadata, finalizers: [] } } }).catch(() => undefined);
      await host.request('DELETE', p).catch(() => undefined);
    }
    // Not the namespace karmada-es-edge1: no namespace controller runs here, it would stay Terminating.
    // No garbage collector runs here: the Leases the Cluster owned stay, so they go with the rest.
    await removeRegistered(host, NAME);
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
    agent?.close();
    await new Promise((r) => endpoint?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('register makes the Cluster (Pull, the id), its namespace, identity and Leases; a second run changes nothing', async () => {
    const c = await get(host, `${CLUSTERS}/${NAME}`);
    expect(c.spec).toMatchObject({ syncMode: 'Pull', id: CLUSTER_ID, apiEndpoint: `https://127.0.0.1:${endpointPort}` });
    expect(c.spec.secretRef).toBeUndefined();
    const lease = await get(host, LEASE);
    expect(lease.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Cluster', name: NAME, uid: c.metadata.uid })]);
    expect(await get(host, `/api/v1/namespaces/karmada-es-${NAME}`)).toBeDefined();
    expect(c.metadata.finalizers).toContain('karmada.io/cluster-controller');
    // Not the Cluster: the controller writes it (no status yet: Ready Unknown after the startup grace, taints).
    const paths = [
      LEASE,
      `/apis/coordination.k8s.io/v1/namespaces/karmada-system/leases/karmada-agent-${NAME}`,
      `/apis/rbac.authorization.k8s.io/v1/clusterroles/system:karmada:${NAME}:agent`,
      `/apis/rbac.authorization.k8s.io/v1/namespaces/karmada-es-${NAME}/roles/system:karmada:${NAME}:agent-work`,
      `/api/v1/namespaces/karmada-cluster/serviceaccounts/karmada-agent-${NAME}`,
    ];
    const before = await Promise.all(paths.map(async (p) => (await get(host, p))?.metadata?.resourceVersion));
    expect(before.every((rv) => typeof rv === 'string')).toBe(true);
    const again = register(...registerArgs(endpointPort));
    expect(again.status, again.stderr).toBe(0);
    const lines = again.stdout.split('\n').filter((l) => l.endsWith('(host)'));
    expect(lines.length).toBeGreaterThanOrEqual(14);
    expect(lines.filter((l) => !/ unchanged \(host\)$/.test(l))).toEqual([]);
    const after = await Promise.all(paths.map(async (p) => (await get(host, p))?.metadata?.resourceVersion));
    expect(after).toEqual(before);
    // The reissued token works as well as the first one.
    const kc = new KubeConfig();
    kc.loadFromFile(agentKubeconfig);
    const second = new RestClient(kc);
    expect(await status(second, 'GET', `${CLUSTERS}/${NAME}`)).toBe(200);
    second.close();

    // Another member under the same name, and a Push cluster's name, are refused.
    const other = register('--cluster-name', NAME, '--cluster-id', 'someone-else', '--kubeconfig-out', path.join(dir, 'other.config'));
    expect(other.status).toBe(1);
    expect(other.stderr).toContain(`the cluster name ${NAME} has been registered (syncMode Pull, cluster ID ${CLUSTER_ID}`);
    const push = register('--cluster-name', 'member1', '--cluster-id', 'x', '--kubeconfig-out', path.join(dir, 'push.config'));
    expect(push.status).toBe(1);
    expect(push.stderr).toContain('it is a Push cluster the controller reaches directly');
    expect((await get(host, `${CLUSTERS}/member1`)).spec.syncMode).toBe('Push');
    // Usage mistakes are exit code 2, saying what to give.
    const usage = register('--cluster-name', NAME);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("give the member's --kubeconfig (the agent is installed there) or --kubeconfig-out FILE");
  }, scaled(120_000));

  it('renewed by its agent, the Pull cluster stays Ready and takes its share of a workload; the controller never connects to it', async () => {
    await fake.renew();
    await fake.postReady();
    fake.start();
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
      body: {
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'PropagationPolicy',
        metadata: { name: 'web', namespace: NS },
        spec: {
          resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
          ...evenSplitWithFailover('member1', NAME),
        },
      },
    });
    await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: NS, labels: { app: 'web' } },
        spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } } },
      },
    });
    const rbPath = `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/web-deployment`;
    const rb = await waitFor('web divided between member1 and edge1', async () => {
      const b = await get(host, rbPath);
      return b?.spec?.clusters?.length === 2 ? b : undefined;
    });
    expect([...rb.spec.clusters].sort((a: any, b: any) => a.name.localeCompare(b.name))).toEqual([{ name: NAME, replicas: 2 }, { name: 'member1', replicas: 2 }]);
    await waitFor('2 replicas on member1', async () => ((await get(rest('member1'), `/apis/apps/v1/namespaces/${NS}/deployments/web`))?.spec?.replicas === 2 ? true : undefined));
    // edge1's Work waits in its execution namespace for its agent: the control plane applies nothing of it.
    const works = await waitFor('a Work for edge1', async () => {
      const items = (await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${NAME}/works`)).items as any[];
      const w = items.find((x) => x.metadata.annotations?.['resourcebinding.karmada.io/name'] === 'web-deployment');
      return w ? w : undefined;
    });
    expect(works.status?.conditions ?? []).toEqual([]);

    // Past twice the grace period, renewal by renewal (not by the clock): still Ready, untainted.
    const from = fake.renewals;
    await waitFor('renewals for twice the grace period', async () => (fake.renewals >= from + 2 * GRACE_SECONDS ? true : undefined), 60_000);
    const c = await get(host, `${CLUSTERS}/${NAME}`);
    expect(readyOf(c)).toMatchObject({ status: 'True', reason: 'ClusterReady' });
    expect(notReadyTaints(c)).toEqual([]);
    expect(connections).toBe(0);
    expect(ctrl!.logs.filter((l) => l.includes(NAME) && /connect|probe|Secret/i.test(l))).toEqual([]);
  }, scaled(120_000));

  it("the agent's credentials write its own Work status, Lease and Cluster status, and nothing of another cluster", async () => {
    const own = (await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${NAME}/works`)).items[0];
    const other = (await host.request('GET', '/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works')).items[0];
    expect(own).toBeDefined();
    expect(other).toBeDefined();
    const ownWork = `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${NAME}/works/${own.metadata.name}`;
    const otherWork = `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works/${other.metadata.name}`;
    const mine = await agent.request('GET', ownWork);
    expect(await status(agent, 'PUT', `${ownWork}/status`, { ...mine, status: { ...(mine.status ?? {}), manifestStatuses: [] } })).toBe(200);
    expect(await status(agent, 'PUT', `${otherWork}/status`, other)).toBe(403);
    expect(await status(agent, 'GET', otherWork)).toBe(403);
    expect(await status(agent, 'GET', '/apis/work.karmada.io/v1alpha1/works')).toBe(403);
    expect(await status(agent, 'DELETE', ownWork)).toBe(403);

    // Its own Cluster by name (a list only with the name's field selector); member1's not at all.
    expect(await status(agent, 'GET', `${CLUSTERS}?fieldSelector=metadata.name%3D${NAME}`)).toBe(200);
    expect(await status(agent, 'GET', CLUSTERS)).toBe(403);
    const member1 = await get(host, `${CLUSTERS}/member1`);
    expect(await status(agent, 'GET', `${CLUSTERS}/member1`)).toBe(403);
    expect(await status(agent, 'PUT', `${CLUSTERS}/member1`, member1)).toBe(403);
    expect(await status(agent, 'PUT', `${CLUSTERS}/member1/status`, member1)).toBe(403);
    expect(await status(agent, 'POST', CLUSTERS, { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'edge1-twin' }, spec: { syncMode: 'Pull' } })).toBe(403);

    // Its own heartbeat only: member1's Lease name, a new Lease, the member Secrets are refused.
    await fake.renew();
    const body = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'member1', namespace: 'karmada-cluster' }, spec: { holderIdentity: 'member1' } };
    expect(await status(agent, 'POST', '/apis/coordination.k8s.io/v1/namespaces/karmada-cluster/leases', body)).toBe(403);
    expect(await status(agent, 'GET', '/apis/coordination.k8s.io/v1/namespaces/karmada-system/leases/karmada-lite-controller')).toBe(403);
    expect(await status(agent, 'GET', '/api/v1/namespaces/karmada-cluster/secrets/member1')).toBe(403);
  }, scaled(60_000));

  it('silent past the grace period: Ready Unknown, then the NoExecute taint and the workload leaves for member1; renewed again, Ready returns', async () => {
    const rbPath = `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/web-deployment`;
    const binding = recordVersions(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings`, 'web-deployment', (await get(host, rbPath)).metadata.resourceVersion);
    fake.stop();
    const tainted = await waitFor(
      'edge1 Ready Unknown and tainted NoExecute',
      async () => {
        const c = await get(host, `${CLUSTERS}/${NAME}`);
        return readyOf(c)?.status === 'Unknown' && notReadyTaints(c).some((t) => t.effect === 'NoExecute') ? c : undefined;
      },
      60_000,
    );
    expect(readyOf(tainted)).toMatchObject({ status: 'Unknown', reason: 'ClusterStatusUnknown', message: 'Cluster status controller stopped posting cluster status.' });
    // The Lease went quiet at least the grace period before Ready turned.
    const renewTime = Date.parse((await get(host, LEASE)).spec.renewTime);
    expect(Date.parse(readyOf(tainted).lastTransitionTime) - renewTime).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000 - 1000);
    // The task goes as soon as member1 is healthy, which the fleet's controllers report within a second.
    const rb = await binding.seen('web evicted from edge1 and rescheduled', (b) => b.spec?.gracefulEvictionTasks?.length && b.spec.clusters?.length === 1 && b.spec.clusters[0].replicas === 4, 60_000);
    binding.stop();
    expect(rb.spec.clusters).toEqual([{ name: 'member1', replicas: 4 }]);
    expect(rb.spec.gracefulEvictionTasks).toMatchObject([{ fromCluster: NAME, purgeMode: 'Gracefully', reason: 'TaintUntolerated', producer: 'TaintManager' }]);
    await waitFor('4 replicas on member1', async () => ((await get(rest('member1'), `/apis/apps/v1/namespaces/${NS}/deployments/web`))?.spec?.replicas === 4 ? true : undefined));

    await fake.renew();
    await fake.postReady();
    fake.start();
    await waitFor('edge1 Ready and its taints gone', async () => {
      const c = await get(host, `${CLUSTERS}/${NAME}`);
      return readyOf(c)?.status === 'True' && notReadyTaints(c).length === 0 ? true : undefined;
    }, 60_000);
    expect(connections).toBe(0);
  }, scaled(180_000));

  it('deleted while its agent is silent: its Works lose the execution finalizer and the Cluster goes', async () => {
    fake.stop();
    await waitFor('edge1 Ready Unknown', async () => (readyOf(await get(host, `${CLUSTERS}/${NAME}`))?.status === 'Unknown' ? true : undefined), 60_000);
    const works = (await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${NAME}/works`)).items as any[];
    expect(works.some((w) => (w.metadata.finalizers ?? []).includes('karmada.io/execution-controller'))).toBe(true);
    await host.request('DELETE', `${CLUSTERS}/${NAME}`);
    await waitFor('edge1 and its Works gone', async () => {
      const left = (await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${NAME}/works`)).items as any[];
      return left.length === 0 && (await get(host, `${CLUSTERS}/${NAME}`)) === undefined ? true : undefined;
    }, 60_000);
  }, scaled(120_000));

  it("with the member's --kubeconfig: the agent's Secret (a kubeconfig that works), RBAC and Deployment in the member; again, only the Secret changes", async () => {
    const name = 'edge2';
    const member = rest('member2');
    const memberPaths = {
      secret: '/api/v1/namespaces/karmada-system/secrets/karmada-kubeconfig',
      deployment: '/apis/apps/v1/namespaces/karmada-system/deployments/karmada-agent',
      sa: '/api/v1/namespaces/karmada-system/serviceaccounts/karmada-agent-sa',
      role: '/apis/rbac.authorization.k8s.io/v1/clusterroles/karmada-agent',
      binding: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/karmada-agent',
    };
    try {
      // --cluster-id: member2's own id belongs to the agent suite's Pull cluster.
      const args = ['--cluster-name', name, '--cluster-id', `${CLUSTER_ID}-2`, '--kubeconfig', cluster('member2').kubeconfig, '--karmada-agent-image', 'registry.example/karmada-lite:test'];
      const r = register(...args);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(`cluster(${name}) is joined successfully`);
      const d = await get(member, memberPaths.deployment);
      expect(d.spec.template.spec.containers[0]).toMatchObject({ image: 'registry.example/karmada-lite:test', command: ['/karmada-lite', 'agent'] });
      expect(d.spec.template.spec.containers[0].args).toContain(`--cluster-name=${name}`);
      const secret = await get(member, memberPaths.secret);
      const kc = new KubeConfig();
      kc.loadFromString(Buffer.from(secret.data['karmada-kubeconfig'], 'base64').toString('utf8'));
      expect(kc.getCurrentCluster()?.server).toBe(cluster('host').server);
      const fromSecret = new RestClient(kc);
      expect(await status(fromSecret, 'GET', `${CLUSTERS}/${name}`)).toBe(200);
      expect(await status(fromSecret, 'GET', `${CLUSTERS}/member1`)).toBe(403);
      fromSecret.close();
      // The member's kube-controller-manager fills karmada-agent's rules from the labelled ClusterRoles in writes of
      // its own, after register returns: the versions are compared once it has (else its late write reads as ours).
      await waitFor("member2's kube-controller-manager to aggregate karmada-agent's rules", async () => {
        const labelled = (await member.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { query: { labelSelector: `${AgentAggregationLabel}=true` } })).items as Array<{ rules?: unknown[] }>;
        const want = new Set(labelled.flatMap((r) => (r.rules ?? []).map((x) => JSON.stringify(x))));
        const got = new Set((((await get(member, memberPaths.role))?.rules ?? []) as unknown[]).map((x) => JSON.stringify(x)));
        return want.size > 0 && want.size === got.size && [...want].every((x) => got.has(x)) ? true : undefined;
      });
      // The Deployment by its generation: the member's deployment controller writes its status meanwhile.
      const versions = () => Promise.all(Object.values(memberPaths).map(async (p) => (p === memberPaths.deployment ? `generation ${(await get(member, p)).metadata.generation}` : (await get(member, p)).metadata.resourceVersion)));
      const before = await versions();
      const again = register(...args);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout.split('\n').filter((l) => l.endsWith('(member)') && !l.endsWith(' unchanged (member)'))).toEqual(['secret/karmada-kubeconfig -n karmada-system configured (member)']);
      const after = await versions();
      expect(after.slice(1)).toEqual(before.slice(1));
    } finally {
      // The namespace karmada-system stays (no namespace controller here), and the host's karmada-es-edge2.
      for (const p of Object.values(memberPaths)) await member.request('DELETE', p).catch(() => undefined);
      await host.request('DELETE', `${CLUSTERS}/${name}`).catch(() => undefined);
      await waitFor(`${name} gone`, async () => ((await get(host, `${CLUSTERS}/${name}`)) === undefined ? true : undefined), 30_000).catch((e) => console.warn(`cleanup: ${(e as Error).message}`));
      for (const p of [
        `/apis/rbac.authorization.k8s.io/v1/clusterroles/system:karmada:${name}:agent`,
        `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:karmada:${name}:agent`,
        `/api/v1/namespaces/karmada-cluster/serviceaccounts/karmada-agent-${name}`,
        `/apis/rbac.authorization.k8s.io/v1/namespaces/karmada-cluster/roles/system:karmada:${name}:agent-lease`,
        `/apis/rbac.authorization.k8s.io/v1/namespaces/karmada-cluster/rolebindings/system:karmada:${name}:agent-lease`,
        `/apis/rbac.authorization.k8s.io/v1/namespaces/karmada-system/roles/system:karmada:${name}:agent-leader-election`,
        `/apis/rbac.authorization.k8s.io/v1/namespaces/karmada-system/rolebindings/system:karmada:${name}:agent-leader-election`,
        `/apis/coordination.k8s.io/v1/namespaces/karmada-cluster/leases/${name}`,
        `/apis/coordination.k8s.io/v1/namespaces/karmada-system/leases/karmada-agent-${name}`,
      ]) await host.request('DELETE', p).catch(() => undefined);
    }
  }, scaled(120_000));
});
