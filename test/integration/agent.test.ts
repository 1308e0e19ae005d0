// End to end, Pull mode: the real binary's `karmada-lite agent` serves a Cluster of its own, member2-pull, whose
// apiserver is member2's, reaching the host through a TCP proxy on loopback the test can close; the controller
// runs beside it with member1 (and member2) in Push mode. A Cluster name of its own leaves member2's Push
// Cluster, which other suites use, as it is. The agent's identity on the host is the one `karmada-lite
// register` issues, with its least-privilege RBAC; in the member it is register's ServiceAccount
// karmada-system/karmada-agent-sa with exactly register's member RBAC (the ClusterRole aggregation played by
// the test, as no kube-controller-manager runs here), not an administrator.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentAggregationLabel, AgentMemberServiceAccount, AgentWorkVerbs, DefaultAgentImage, DefaultAgentNamespace, DefaultClusterNamespace, memberSetupObjects } from '../../src/kube/register.js';
import { cluster, waitFor, type ClusterName } from './env.js';
import { aggregated, putAll, serviceAccountKubeconfig, type RbacDoc } from './rbac-roles.js';
import { binary, createDeploymentWithPolicy, diagnose, edit, evenSplitWithFailover, freePort, get, MemberProxy, prepareHost, type Proc, removeRegistered, rest, startController, stopController } from './harness.js';
import { FaultLabel, gatedPodSpec, openReadinessGate, podsOf, withFleet } from './fleet.js';
import { scaled } from '../time-scale.js';
import { KubeConfig } from '@kubernetes/client-node';
import { RestClient } from '../../src/kube/rest.js';

function kubeConfigFile(file: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(file);
  return kc;
}

const NS = `agent-e2e-${Date.now().toString(36)}`;
const PULL = 'member2-pull';
const ES = `karmada-es-${PULL}`;

const host = rest('host');
const member = (m: ClusterName) => rest(m);
const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;
const ppPath = (name: string) => `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${name}`;
const clusterPath = `/apis/cluster.karmada.io/v1alpha1/clusters/${PULL}`;
const leasePath = `/apis/coordination.k8s.io/v1/namespaces/karmada-cluster/leases/${PULL}`;
const electionPath = `/apis/coordination.k8s.io/v1/namespaces/karmada-system/leases/karmada-agent-${PULL}`;
const imageOf = (d: any) => d?.spec?.template?.spec?.containers?.[0]?.image;
/**
 * What the agent writes of a member copy, to compare before and after: not its resourceVersion, which the
 * member's own controllers move on the fleet when they write the status.
 */
const written = (d: any) => ({ uid: d?.metadata?.uid, generation: d?.metadata?.generation, labels: d?.metadata?.labels, annotations: d?.metadata?.annotations, spec: d?.spec });

/** The Deployments this suite created. */
const created: string[] = [];

/** Duplicated to member1 (Push) and member2-pull (Pull). */
async function createWorkload(name: string, extra: Record<string, unknown> = {}): Promise<void> {
  created.push(name);
  await createDeploymentWithPolicy(NS, name, 2, { placement: { clusterAffinity: { clusterNames: ['member1', PULL] }, replicaScheduling: { replicaSchedulingType: 'Duplicated' } }, ...extra });
  for (const m of ['member1', 'member2'] as const) await waitFor(`${name} on ${m}`, () => get(member(m), deployPath(name)));
}

/** The Work in `ns` of the binding `binding` of this suite's namespace. */
async function workFor(binding: string, ns: string): Promise<any> {
  const items = (await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/${ns}/works`)).items as any[];
  return items.find((w) => w.metadata.annotations?.['resourcebinding.karmada.io/namespace'] === NS && w.metadata.annotations?.['resourcebinding.karmada.io/name'] === binding);
}

/** The Work in `ns` of the Deployment `name`. */
const workOf = (name: string, ns: string): Promise<any> => workFor(`${name}-deployment`, ns);

const condition = (o: any, type: string) => (o?.status?.conditions ?? []).find((c: any) => c.type === type);
const notReadyTaints = (c: any): Array<{ key: string; effect: string }> => ((c?.spec?.taints ?? []) as any[]).filter((t) => t.key === 'cluster.karmada.io/not-ready' || t.key === 'cluster.karmada.io/unreachable');

/**
 * Deletes member2-pull: the controller removes its Works, the agent their finalizers, then the Cluster's goes.
 * Whatever is still there after `waitMs` (no agent runs: an interrupted earlier run) loses its finalizers by hand.
 */
async function deleteCluster(waitMs: number): Promise<void> {
  await host.request('DELETE', clusterPath).catch(() => undefined);
  const gone = async () => ((await get(host, clusterPath)) ? undefined : true);
  if (await waitFor('member2-pull deleted', gone, waitMs).catch(() => false)) return;
  const unblock = (p: string, o: any) => host.request('PUT', p, { body: { ...o, metadata: { ...o.metadata, finalizers: [] } } }).catch(() => undefined);
  const works = `/apis/work.karmada.io/v1alpha1/namespaces/${ES}/works`;
  for (const w of ((await host.request('GET', works).catch(() => ({ items: [] }))).items ?? []) as any[]) await unblock(`${works}/${w.metadata.name}`, w);
  const c = await get(host, clusterPath);
  if (c) await unblock(clusterPath, c);
  await waitFor('member2-pull deleted', gone);
}

interface AgentProc extends Proc {
  kubeconfig: string;
}

let dir: string;
let proxy: MemberProxy;
/** The agent's kubeconfig for member2: a token of register's member ServiceAccount. */
let memberKubeconfig: string;
/** register's member objects for member2-pull: the namespace, the ServiceAccount, the RBAC. */
const memberSetup = memberSetupObjects({ clusterName: PULL, clusterNamespace: DefaultClusterNamespace, agentNamespace: DefaultAgentNamespace, image: DefaultAgentImage, replicas: 1 }) as unknown as RbacDoc[];
/** A labelled ClusterRole the test adds in member2: PodDisruptionBudgets for the agent. */
const pdbRole: RbacDoc = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'karmada-agent:pdbs-e2e', labels: { [AgentAggregationLabel]: 'true' } },
  rules: [{ apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: [...AgentWorkVerbs] }],
};

/**
 * register's member RBAC in member2 as a cluster with kube-controller-manager holds it (the aggregated
 * ClusterRole filled from the labelled ones), and a kubeconfig with a token of its ServiceAccount.
 */
async function agentIdentityInMember(): Promise<string> {
  await putAll(member('member2'), aggregated(memberSetup));
  return serviceAccountKubeconfig('member2', { namespace: DefaultAgentNamespace, name: AgentMemberServiceAccount }, path.join(dir, 'member.kubeconfig'));
}
let agent: AgentProc | undefined;
let ctrl: Proc | undefined;

/** The agent binary against member2, reaching the host through the proxy; resolves when it serves /readyz. */
async function startAgent(leaderElect = false): Promise<AgentProc> {
  const port = await freePort();
  const kubeconfig = path.join(dir, 'karmada.kubeconfig');
  const child = spawn(
    binary,
    ['agent', '--karmada-kubeconfig', kubeconfig, '--cluster-name', PULL, '--kubeconfig', memberKubeconfig, '--metrics-port', String(port), '--bind-address', '127.0.0.1', `--leader-elect=${leaderElect}`, '--cluster-status-update-frequency', '1s', '--log-format', 'json'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const logs: string[] = [];
  child.stderr!.on('data', (d: Buffer) => logs.push(...d.toString('utf8').split('\n').filter(Boolean)));
  const p = { child, port, logs, kubeconfig };
  await waitFor(
    'the agent to be ready',
    async () => {
      if (child.exitCode !== null) throw new Error(`the agent exited with ${child.exitCode}:\n${logs.join('\n')}`);
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return res?.status === 200 ? true : undefined;
    },
    60_000,
  );
  return p;
}

/** The agent's count of execution reconciles: a Work change it has acted on moves it. */
async function executionReconciles(p: Proc): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${p.port}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('controller_runtime_reconcile_total{') && l.includes('controller="execution"'))
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

/** Waits until the agent has reconciled the Work again after `before` (its count then). */
const agentReconciledSince = (before: number) => waitFor('the agent to reconcile the changed Work', async () => ((await executionReconciles(agent!)) > before ? true : undefined));

describe('karmada-lite agent (Pull mode) end to end', () => {
  beforeAll(async () => {
    await prepareHost(host, NS);
    // What an interrupted earlier run against a reused environment may have left.
    await deleteCluster(2_000);
    await host.request('DELETE', leasePath).catch(() => undefined);
    dir = mkdtempSync(path.join(tmpdir(), 'karmada-lite-agent-'));
    const hostPort = cluster('host').port;
    proxy = new MemberProxy(await freePort(), hostPort);
    await proxy.up();
    // The agent's identity is the least-privilege one `karmada-lite register` makes (its own Cluster, Leases
    // and Works); register also creates the Cluster, which the agent then adopts.
    const id = (await member('member2').request('GET', '/api/v1/namespaces/kube-system')).metadata.uid as string;
    const registered = spawnSync(binary, ['register', '--karmada-kubeconfig', cluster('host').kubeconfig, '--cluster-name', PULL, '--cluster-id', id, '--kubeconfig-out', path.join(dir, 'agent.config')], { encoding: 'utf8' });
    expect(registered.status, registered.stderr).toBe(0);
    // The host's serving certificate is for 127.0.0.1, whatever the port: the proxy is transparent to TLS.
    const agentConfig = readFileSync(path.join(dir, 'agent.config'), 'utf8');
    expect(agentConfig).toContain(`https://127.0.0.1:${hostPort}`);
    writeFileSync(path.join(dir, 'karmada.kubeconfig'), agentConfig.replace(`https://127.0.0.1:${hostPort}`, `https://127.0.0.1:${proxy.port}`));
    memberKubeconfig = await agentIdentityInMember();
    ctrl = await startController();
    agent = await startAgent();
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail') return;
    console.error(`--- agent\n${(agent?.logs ?? []).slice(-150).join('\n')}`);
    console.error(`--- controller\n${(ctrl?.logs ?? []).slice(-80).join('\n')}`);
    console.error(await diagnose(ctrl));
  });

  afterAll(async () => {
    await proxy?.up();
    // Templates and policies go while both run, so that their Works and member copies go too.
    for (const n of created) await host.request('DELETE', deployPath(n)).catch(() => undefined);
    await waitFor('the Works of the suite removed', async () => {
      for (const n of created) for (const ns of ['karmada-es-member1', ES]) if (await workOf(n, ns)) return undefined;
      return true;
    }).catch((e) => console.warn(`cleanup: ${(e as Error).message}`));
    for (const n of created) {
      await host.request('DELETE', ppPath(n)).catch(() => undefined);
      // preserved copies
      for (const m of ['member1', 'member2'] as const) await member(m).request('DELETE', deployPath(n)).catch(() => undefined);
    }
    for (const p of [`/api/v1/namespaces/${NS}/configmaps/settings`, `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/budget`]) await host.request('DELETE', p).catch(() => undefined);
    await waitFor('the ConfigMap and PodDisruptionBudget Works removed', async () => ((await workFor('settings-configmap', ES)) || (await workFor('budget-poddisruptionbudget', ES)) ? undefined : true)).catch((e) => console.warn(`cleanup: ${(e as Error).message}`));
    await host.request('DELETE', ppPath('rbac-kinds')).catch(() => undefined);
    await member('member2').request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${pdbRole.metadata.name}`).catch(() => undefined);
    await putAll(member('member2'), aggregated(memberSetup));
    // member2-pull goes while the agent runs (the finalizers of its Works are the agent's): no other suite knows it.
    await deleteCluster(60_000).catch((e) => console.warn(`cleanup: ${(e as Error).message}`));
    const agentCode = await stopController(agent);
    if (agent && agentCode !== 0) console.error(agent.logs.slice(-50).join('\n'));
    // what register made (no garbage collector runs here to follow the Cluster's ownership)
    await removeRegistered(host, PULL);
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
    await proxy?.down();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('registers its Cluster in Pull mode, keeps it Ready with the member\'s API list and version, and renews its Lease', async () => {
    const c = await waitFor('member2-pull Ready', async () => {
      const o = await get(host, clusterPath);
      return condition(o, 'Ready')?.status === 'True' && o.status?.apiEnablements?.length ? o : undefined;
    });
    const kubeSystem = await member('member2').request('GET', '/api/v1/namespaces/kube-system');
    expect(c.spec).toMatchObject({ syncMode: 'Pull', id: kubeSystem.metadata.uid });
    expect(condition(c, 'Ready')).toMatchObject({ reason: 'ClusterReady', message: 'cluster is healthy and ready to accept workloads' });
    expect(c.status.kubernetesVersion).toBe((await member('member2').request('GET', '/version')).gitVersion);
    expect(c.status.apiEnablements.map((g: any) => g.groupVersion)).toContain('apps/v1');
    const lease = await waitFor('the cluster Lease', () => get(host, leasePath));
    expect(lease.spec).toMatchObject({ holderIdentity: PULL, leaseDurationSeconds: 40 });
    expect(lease.metadata.ownerReferences).toEqual([{ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', name: PULL, uid: c.metadata.uid }]);
    // renewed every 40s x 0.25
    // register makes the Lease without a renewTime: the agent's first renewal sets it, the next one moves it
    const renewTime = () => get(host, leasePath).then((l) => l?.spec?.renewTime as string | undefined);
    const first = await waitFor('a Lease renewal', renewTime);
    await waitFor('the next Lease renewal', async () => ((await renewTime()) !== first ? true : undefined), 60_000);
    // the controller does not reach a Pull cluster itself
    expect(ctrl!.logs.some((l) => l.includes('member cluster connected') && l.includes(PULL))).toBe(false);
  });

  it('refuses a Push cluster of the same name with an error saying what to do', async () => {
    // with the host's administrator kubeconfig: the agent's own identity may not even read Cluster member1
    const child = spawn(binary, ['agent', '--karmada-kubeconfig', cluster('host').kubeconfig, '--cluster-name', 'member1', '--kubeconfig', cluster('member2').kubeconfig, '--metrics-port', '0', '--leader-elect=false'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(2);
    expect(err).toContain('the cluster name member1 has been registered (syncMode Push');
    expect(err).toContain('another --cluster-name');
    expect((await get(host, '/apis/cluster.karmada.io/v1alpha1/clusters/member1')).spec.syncMode).toBe('Push');
  });

  it('applies a Duplicated Deployment to the Pull member with the Push member\'s manifest, and reports status from both', async () => {
    await createWorkload('dup');
    const [m1, m2] = await Promise.all([get(member('member1'), deployPath('dup')), get(member('member2'), deployPath('dup'))]);
    expect(m2.spec).toEqual(m1.spec);
    const karmadaLabels = (d: any) => Object.fromEntries(Object.entries(d.metadata.labels ?? {}).filter(([k]) => k.includes('karmada.io') && !k.startsWith('work.karmada.io')));
    expect(karmadaLabels(m2)).toEqual(karmadaLabels(m1));
    expect(m2.metadata.annotations['work.karmada.io/namespace']).toBe(ES);
    if (withFleet()) {
      // The members' controllers report; one of member1's two Pods is made never Ready, so its copy reports 1.
      const pods = await waitFor('both Pods of dup on member1', async () => {
        const ps = await podsOf(member('member1'), NS, 'dup');
        return ps.length === 2 ? ps : undefined;
      });
      await member('member1').request('PATCH', `/api/v1/namespaces/${NS}/pods/${pods[0].metadata.name}`, { body: { metadata: { labels: { [FaultLabel.unready]: 'true' } } }, contentType: 'application/merge-patch+json' });
    } else {
      // The bare fleet (KARMADA_LITE_FLEET=bare) runs no kube-controller-manager: each member's status by hand.
      for (const [m, ready] of [['member1', 1], ['member2', 2]] as const) {
        await edit(member(m), deployPath('dup'), (d) => (d.status = { observedGeneration: d.metadata.generation, replicas: 2, updatedReplicas: 2, readyReplicas: ready, availableReplicas: ready }), '/status');
      }
    }
    const rb = await waitFor('aggregatedStatus of both members', async () => {
      const b = await get(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/dup-deployment`);
      const items = (b?.status?.aggregatedStatus ?? []) as any[];
      const of = (c: string) => items.find((i) => i.clusterName === c);
      return of('member1')?.status?.readyReplicas === 1 && of(PULL)?.status?.readyReplicas === 2 ? items : undefined;
    });
    expect(rb.find((i: any) => i.clusterName === PULL)).toMatchObject({ applied: true, health: 'Healthy' });
    expect(rb.find((i: any) => i.clusterName === 'member1')).toMatchObject({ applied: true, health: 'Unhealthy' });
    // the Work status the agent wrote back
    const w = await workOf('dup', ES);
    expect(condition(w, 'Applied')).toMatchObject({ status: 'True' });
    expect(w.status.manifestStatuses[0].status.readyReplicas).toBe(2);
    await waitFor('the template status aggregated', async () => ((await get(host, deployPath('dup')))?.status?.readyReplicas === 3 ? true : undefined));
  });

  it('applies a ConfigMap with the agent\'s default member role; a kind it is not granted fails on the Work, clearly, until a labelled ClusterRole grants it', async () => {
    const m2 = member('member2');
    // The agent's identity in the member is no administrator.
    const may = async (verb: string, group: string, resource: string) =>
      (await new RestClient(kubeConfigFile(memberKubeconfig)).request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { group, resource, verb, namespace: NS } } } })).status.allowed;
    expect(await may('create', 'apps', 'deployments')).toBe(true);
    expect(await may('get', '', 'secrets')).toBe(false);
    expect(await may('create', 'rbac.authorization.k8s.io', 'roles')).toBe(false);
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
      body: {
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'PropagationPolicy',
        metadata: { name: 'rbac-kinds', namespace: NS },
        spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'settings' }, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', name: 'budget' }], placement: { clusterAffinity: { clusterNames: [PULL] } } },
      },
    });
    await host.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: NS }, data: { level: 'info' } } });
    await host.request('POST', `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, { body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'budget', namespace: NS }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'budget' } } } } });
    const cm = await waitFor('the ConfigMap on member2', () => get(m2, `/api/v1/namespaces/${NS}/configmaps/settings`));
    expect(cm.data).toEqual({ level: 'info' });
    await waitFor('the ConfigMap Work Applied', async () => (condition(await workFor('settings-configmap', ES), 'Applied')?.status === 'True' ? true : undefined));
    // Not granted: the Work says so, with the member's refusal and what to do.
    const refused = await waitFor('the PodDisruptionBudget Work Applied=False', async () => {
      const c = condition(await workFor('budget-poddisruptionbudget', ES), 'Applied');
      return c?.status === 'False' ? c : undefined;
    });
    expect(refused.message).toContain('PodDisruptionBudget in member2-pull');
    expect(refused.message).toContain(`poddisruptionbudgets.policy is forbidden: User "system:serviceaccount:${DefaultAgentNamespace}:${AgentMemberServiceAccount}" cannot list resource "poddisruptionbudgets"`);
    expect(refused.message).toContain('grant this identity get, list and watch on it');
    expect(await get(m2, `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/budget`)).toBeUndefined();
    // One labelled ClusterRole in the member (the aggregation adds it to karmada-agent) and the Work is applied.
    await putAll(m2, aggregated([...memberSetup, pdbRole]));
    const pdb = await waitFor('the PodDisruptionBudget on member2', () => get(m2, `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/budget`), 90_000);
    expect(pdb.spec.minAvailable).toBe(1);
    await waitFor('the PodDisruptionBudget Work Applied', async () => (condition(await workFor('budget-poddisruptionbudget', ES), 'Applied')?.status === 'True' ? true : undefined));
  });

  it('holds the Pull member\'s copy while its dispatching is suspended, and applies the change once resumed', async () => {
    await createWorkload('held');
    await edit(host, ppPath('held'), (pp) => (pp.spec.suspension = { dispatchingOnClusters: { clusterNames: [PULL] } }));
    // the Dispatching condition on the Pull cluster's Work is the agent's
    await waitFor('the Pull Work suspended', async () => {
      const w = await workOf('held', ES);
      return w?.spec?.suspendDispatching === true && condition(w, 'Dispatching')?.reason === 'SuspendDispatching' ? true : undefined;
    });
    const before = await executionReconciles(agent!);
    await edit(host, deployPath('held'), (d) => (d.spec.template.spec.containers[0].image = 'nginx:1.26'));
    await waitFor('the new image on member1', async () => (imageOf(await get(member('member1'), deployPath('held'))) === 'nginx:1.26' ? true : undefined));
    await waitFor('the new image in the Pull Work', async () => (imageOf((await workOf('held', ES))?.spec?.workload?.manifests?.[0]) === 'nginx:1.26' ? true : undefined));
    await agentReconciledSince(before);
    expect(imageOf(await get(member('member2'), deployPath('held')))).toBe('nginx:1.25');
    await edit(host, ppPath('held'), (pp) => delete pp.spec.suspension);
    await waitFor('the new image on member2 after resuming', async () => (imageOf(await get(member('member2'), deployPath('held'))) === 'nginx:1.26' ? true : undefined));
  });

  it('leaves the Pull member\'s copy in place on deletion when the policy preserves resources, and deletes it otherwise', async () => {
    await createWorkload('kept', { preserveResourcesOnDeletion: true });
    await createWorkload('dropped');
    const keptUid = (await get(member('member2'), deployPath('kept'))).metadata.uid;
    for (const n of ['kept', 'dropped']) await host.request('DELETE', deployPath(n));
    // The Pull Works' finalizers are the agent's: their going means it handled the deletion.
    await waitFor('the Pull Works deleted', async () => ((await workOf('kept', ES)) || (await workOf('dropped', ES)) ? undefined : true));
    await waitFor('dropped gone from member2', async () => ((await get(member('member2'), deployPath('dropped'))) ? undefined : true));
    const kept = await get(member('member2'), deployPath('kept'));
    expect(kept?.metadata.uid).toBe(keptUid);
    expect(await get(member('member1'), deployPath('kept'))).toBeDefined();
  });

  it('keeps the member\'s objects while the host is unreachable, and resumes its watches when it is back', async () => {
    await createWorkload('steady');
    const before = await get(member('member2'), deployPath('steady'));
    const seen = agent!.logs.length;
    await proxy.down();
    await waitFor('the agent to lose the host', async () => (agent!.logs.slice(seen).some((l) => l.includes('watch failed') || l.includes('cannot renew the cluster lease')) ? true : undefined));
    // The control plane changes the template meanwhile (the controller reaches the host directly).
    await edit(host, deployPath('steady'), (d) => (d.spec.template.spec.containers[0].image = 'nginx:1.28'));
    await waitFor('the new image in the Pull Work', async () => (imageOf((await workOf('steady', ES))?.spec?.workload?.manifests?.[0]) === 'nginx:1.28' ? true : undefined));
    const during = await get(member('member2'), deployPath('steady'));
    // Nothing wrote what the agent owns; on the fleet the member's controllers still write the status.
    expect(written(during)).toEqual(written(before));
    expect(agent!.child.exitCode).toBeNull();
    await proxy.up();
    const after = await waitFor('the change applied once the host is back', async () => {
      const d = await get(member('member2'), deployPath('steady'));
      return imageOf(d) === 'nginx:1.28' ? d : undefined;
    });
    expect(after.metadata.uid).toBe(before.metadata.uid);
    // and the status flows again
    await waitFor('Work status written back', async () => (condition(await workOf('steady', ES), 'Applied')?.status === 'True' && imageOf((await workOf('steady', ES))?.spec?.workload?.manifests?.[0]) === 'nginx:1.28' ? true : undefined));
  });

  it('SIGKILLed: its Cluster turns Ready Unknown, is tainted NoExecute and the workload fails over to member1; started again, Ready returns and nothing is re-created', async () => {
    // Short grace periods for this test only: the others run against the controller's defaults.
    const graceSeconds = 4;
    expect(await stopController(ctrl)).toBe(0);
    ctrl = await startController(['--cluster-monitor-grace-period', `${graceSeconds}s`, '--cluster-startup-grace-period', `${graceSeconds}s`, '--cluster-failure-threshold', '3s']);
    try {
      // The shape pull-cluster.test.ts fails over: Divided 1:1, failover.cluster Gracefully.
      created.push('web');
      // On the fleet, member1's Pods wait on a readiness gate the test opens: member1 turns healthy, and ends the
      // eviction, only when the test says so.
      await createDeploymentWithPolicy(NS, 'web', 4, evenSplitWithFailover('member1', PULL), withFleet() ? gatedPodSpec : {});
      const replicasOn = async (m: ClusterName) => (await get(member(m), deployPath('web')))?.spec?.replicas as number | undefined;
      for (const m of ['member1', 'member2'] as const) await waitFor(`2 replicas of web on ${m}`, async () => ((await replicasOn(m)) === 2 ? true : undefined));
      const copy0 = await get(member('member2'), deployPath('web'));
      const work0 = await workOf('web', ES);

      // No goodbye: nothing renews the Lease or posts Ready from here.
      const killed = agent!;
      const exited = new Promise((r) => killed.child.once('exit', r));
      killed.child.kill('SIGKILL');
      await exited;
      expect(killed.child.signalCode).toBe('SIGKILL');
      const tainted = await waitFor(
        'member2-pull Ready Unknown and tainted NoExecute',
        async () => {
          const c = await get(host, clusterPath);
          return condition(c, 'Ready')?.status === 'Unknown' && notReadyTaints(c).some((t) => t.effect === 'NoExecute') ? c : undefined;
        },
        60_000,
      );
      expect(condition(tainted, 'Ready')).toMatchObject({ reason: 'ClusterStatusUnknown', message: 'Cluster status controller stopped posting cluster status.' });
      expect(notReadyTaints(tainted).map((t) => `${t.key}:${t.effect}`).sort()).toEqual(['cluster.karmada.io/unreachable:NoExecute', 'cluster.karmada.io/unreachable:NoSchedule']);
      // Ready turned because the Lease went quiet: its last renewal is at least the grace period before.
      const lastRenewal = Date.parse((await get(host, leasePath)).spec.renewTime);
      expect(Date.parse(condition(tainted, 'Ready').lastTransitionTime) - lastRenewal).toBeGreaterThanOrEqual(graceSeconds * 1000 - 1000);

      const rbPath = `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/web-deployment`;
      const rb = await waitFor('web evicted from member2-pull and rescheduled', async () => {
        const b = await get(host, rbPath);
        return b?.spec?.gracefulEvictionTasks?.length && b.spec.clusters?.length === 1 && b.spec.clusters[0].replicas === 4 ? b : undefined;
      }, 60_000);
      expect(rb.spec.clusters).toEqual([{ name: 'member1', replicas: 4 }]);
      expect(rb.spec.gracefulEvictionTasks).toMatchObject([{ fromCluster: PULL, purgeMode: 'Gracefully', reason: 'TaintUntolerated', producer: 'TaintManager' }]);
      await waitFor('4 replicas of web on member1', async () => ((await replicasOn('member1')) === 4 ? true : undefined));
      // Gracefully: member2-pull's Work stays, as it was, until the new placement is healthy.
      expect((await workOf('web', ES))?.metadata?.uid).toBe(work0.metadata.uid);

      agent = await startAgent();
      await waitFor('member2-pull Ready and its taints gone', async () => {
        const c = await get(host, clusterPath);
        return condition(c, 'Ready')?.status === 'True' && notReadyTaints(c).length === 0 ? true : undefined;
      }, 60_000);
      // The new agent takes every Work of its namespace once; after that, the copy it found is the one it keeps.
      const works = ((await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/${ES}/works`)).items as any[]).length;
      await waitFor('the restarted agent to reconcile every Work', async () => ((await executionReconciles(agent!)) >= works ? true : undefined));
      const copy1 = await get(member('member2'), deployPath('web'));
      expect(copy1.metadata.uid).toBe(copy0.metadata.uid);
      expect(written(copy1)).toEqual(written(copy0));
      expect((await workOf('web', ES))?.metadata?.uid).toBe(work0.metadata.uid);
      expect(agent.logs.some((l) => l.includes('registered the cluster with the control plane'))).toBe(false);
      // Divided replicas do not go back by themselves (Karmada's scheduler leaves a settled division as it is).
      expect((await get(host, rbPath)).spec.clusters).toEqual([{ name: 'member1', replicas: 4 }]);

      // member1 healthy ends the eviction; the restarted agent then removes the copy it kept.
      if (withFleet()) await openReadinessGate(member('member1'), NS, 'web');
      else await edit(member('member1'), deployPath('web'), (d) => (d.status = { observedGeneration: d.metadata.generation, replicas: 4, updatedReplicas: 4, readyReplicas: 4, availableReplicas: 4 }), '/status');
      await waitFor('the eviction done and the Pull Work gone', async () => {
        const b = await get(host, rbPath);
        return !b?.spec?.gracefulEvictionTasks?.length && !(await workOf('web', ES)) ? true : undefined;
      }, 60_000);
      await waitFor('web gone from member2', async () => ((await get(member('member2'), deployPath('web'))) ? undefined : true));
    } finally {
      if (!agent || agent.child.exitCode !== null || agent.child.signalCode !== null) agent = await startAgent();
      await stopController(ctrl);
      ctrl = await startController();
    }
  }, scaled(300_000));

  it('stopped and started again, catches up with what changed meanwhile without re-creating anything', async () => {
    const dup0 = await get(member('member2'), deployPath('dup'));
    const steady0 = await get(member('member2'), deployPath('steady'));
    expect(await stopController(agent)).toBe(0);
    await edit(host, deployPath('dup'), (d) => (d.spec.template.spec.containers[0].image = 'nginx:1.27'));
    await waitFor('the new image in the Pull Work', async () => (imageOf((await workOf('dup', ES))?.spec?.workload?.manifests?.[0]) === 'nginx:1.27' ? true : undefined));
    expect(imageOf(await get(member('member2'), deployPath('dup')))).toBe('nginx:1.25');
    // this time behind leader election, on by default as in Karmada's agent
    agent = await startAgent(true);
    // register made this Lease with an empty spec (as Karmada's does), so it exists before anyone leads
    const election = await waitFor('the agent to lead', async () => {
      const lease = await get(host, electionPath);
      return lease?.spec?.holderIdentity ? lease : undefined;
    });
    expect(election.spec.holderIdentity).toMatch(/_\d+$/);
    const dup1 = await waitFor('the change applied after the restart', async () => {
      const d = await get(member('member2'), deployPath('dup'));
      return imageOf(d) === 'nginx:1.27' ? d : undefined;
    });
    expect(dup1.metadata.uid).toBe(dup0.metadata.uid);
    // The restarted agent takes every Work of its namespace once: after as many reconciles, nothing else may have changed.
    const works = ((await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/${ES}/works`)).items as any[]).length;
    await waitFor('the restarted agent to reconcile every Work', async () => ((await executionReconciles(agent!)) >= works ? true : undefined));
    const steady1 = await get(member('member2'), deployPath('steady'));
    expect(steady1.metadata.uid).toBe(steady0.metadata.uid);
    expect(written(steady1)).toEqual(written(steady0));
    expect(agent.logs.some((l) => l.includes('registered the cluster with the control plane'))).toBe(false);
  });
});
