// The fault matrix, Pull mode (issue 33): the real `karmada-lite agent` serves a Cluster of its own, `pulled`,
// whose apiserver is member2's, and reaches the host through a FaultProxy (test/integration/faults.ts) in front
// of the HOST apiserver; the controller reaches the host directly. agent.test.ts covers the host refusing
// connections and the agent SIGKILLed; here the link is blackholed: connections stay open and nothing comes
// back, as on a partition, so neither the agent's watches nor its Lease renewals get an error. The agent's host
// identity is the one `karmada-lite register` issues; in the member it uses member2's admin kubeconfig, as the
// member-side RBAC is agent.test.ts's subject, not this one's.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cluster, waitFor } from './env.js';
import { FaultProxy, freeze } from './faults.js';
import { binary, createDeploymentWithPolicy, diagnose, edit, freePort, get, prepareHost, type Proc, removeRegistered, rest, startController, stopController } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `fault-agent-${Date.now().toString(36)}`;
const PULL = 'pulled';
const ES = `karmada-es-${PULL}`;
const GRACE_SECONDS = 4;
const host = rest('host');
const member2 = rest('member2');
const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;
const ppPath = (name: string) => `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${name}`;
const clusterPath = `/apis/cluster.karmada.io/v1alpha1/clusters/${PULL}`;
const leasePath = `/apis/coordination.k8s.io/v1/namespaces/karmada-cluster/leases/${PULL}`;
const imageOf = (d: any) => d?.spec?.template?.spec?.containers?.[0]?.image;
const condition = (o: any, type: string) => ((o?.status?.conditions ?? []) as any[]).find((c) => c.type === type);
/** What the agent writes of a member copy (not its status or resourceVersion, the member's controllers move those). */
const written = (d: any) => ({ uid: d?.metadata?.uid, generation: d?.metadata?.generation, labels: d?.metadata?.labels, annotations: d?.metadata?.annotations, spec: d?.spec });

let dir: string;
let proxy: FaultProxy;
let agent: Proc | undefined;
let ctrl: Proc | undefined;
let thaw: (() => void) | undefined;
const created: string[] = [];

async function workOf(name: string): Promise<any> {
  const items = (await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/${ES}/works`)).items as any[];
  return items.find((w) => w.metadata.annotations?.['resourcebinding.karmada.io/namespace'] === NS && w.metadata.annotations?.['resourcebinding.karmada.io/name'] === `${name}-deployment`);
}

async function startAgent(): Promise<Proc> {
  const port = await freePort();
  const child = spawn(
    binary,
    ['agent', '--karmada-kubeconfig', path.join(dir, 'karmada.kubeconfig'), '--cluster-name', PULL, '--kubeconfig', cluster('member2').kubeconfig, '--metrics-port', String(port), '--bind-address', '127.0.0.1', '--leader-elect=false', '--cluster-status-update-frequency', '1s', '--log-format', 'json'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const logs: string[] = [];
  child.stderr!.on('data', (d: Buffer) => logs.push(...d.toString('utf8').split('\n').filter(Boolean)));
  const p = { child, port, logs };
  await waitFor('the agent to be ready', async () => {
    if (child.exitCode !== null) throw new Error(`the agent exited with ${child.exitCode}:\n${logs.join('\n')}`);
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    return res?.status === 200 ? true : undefined;
  }, 60_000);
  return p;
}

const readyStatus = async () => condition(await get(host, clusterPath), 'Ready');

describe('fault matrix: a Pull agent cut off from the host or from its member', () => {
  beforeAll(async () => {
    await prepareHost(host, NS);
    dir = mkdtempSync(path.join(tmpdir(), 'karmada-lite-fault-agent-'));
    const hostPort = cluster('host').port;
    proxy = new FaultProxy(hostPort);
    await proxy.start();
    const id = (await member2.request('GET', '/api/v1/namespaces/kube-system')).metadata.uid as string;
    const registered = spawnSync(binary, ['register', '--karmada-kubeconfig', cluster('host').kubeconfig, '--cluster-name', PULL, '--cluster-id', id, '--kubeconfig-out', path.join(dir, 'agent.config')], { encoding: 'utf8' });
    expect(registered.status, registered.stderr).toBe(0);
    // The host's serving certificate names 127.0.0.1, whatever the port: the proxy is transparent to TLS.
    writeFileSync(path.join(dir, 'karmada.kubeconfig'), readFileSync(path.join(dir, 'agent.config'), 'utf8').replace(`https://127.0.0.1:${hostPort}`, proxy.endpoint));
    ctrl = await startController(['--cluster-monitor-grace-period', `${GRACE_SECONDS}s`, '--cluster-startup-grace-period', `${GRACE_SECONDS}s`, '--cluster-failure-threshold', '3s']);
    agent = await startAgent();
    await waitFor(`${PULL} Ready`, async () => ((await readyStatus())?.status === 'True' ? true : undefined), 60_000);
  }, scaled(240_000));

  afterEach(async (ctx) => {
    proxy?.pass();
    thaw?.();
    thaw = undefined;
    if (ctx.task.result?.state !== 'fail') return;
    console.error(`--- agent\n${(agent?.logs ?? []).slice(-100).join('\n')}`);
    console.error(`--- controller\n${(ctrl?.logs ?? []).slice(-80).join('\n')}`);
    console.error(await diagnose(ctrl));
  });

  afterAll(async () => {
    proxy?.pass();
    // Templates, policies and the Cluster go while the agent runs: the finalizers of its Works are its own.
    for (const n of created) await host.request('DELETE', deployPath(n)).catch(() => undefined);
    await waitFor('the Works removed', async () => {
      for (const n of created) if (await workOf(n)) return undefined;
      return true;
    }).catch((e) => console.warn(`cleanup: ${(e as Error).message}`));
    for (const n of created) await host.request('DELETE', ppPath(n)).catch(() => undefined);
    await host.request('DELETE', clusterPath).catch(() => undefined);
    await waitFor(`${PULL} deleted`, async () => ((await get(host, clusterPath)) ? undefined : true), 60_000).catch((e) => console.warn(`cleanup: ${(e as Error).message}`));
    const agentCode = await stopController(agent);
    if (agent && agentCode !== 0) console.error(agent.logs.slice(-50).join('\n'));
    await removeRegistered(host, PULL);
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
    await proxy?.stop();
    for (const n of created) await member2.request('DELETE', deployPath(n)).catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, scaled(180_000));

  /**
   * After the fault ends: Ready again, the change made meanwhile applied to the same member copy, and the Work
   * Applied with it. Resolves with how long Ready and the change took from `since`.
   */
  async function recovered(name: string, before: any, since: number, what: string): Promise<{ readyMs: number; appliedMs: number }> {
    await waitFor(`${PULL} Ready again`, async () => ((await readyStatus())?.status === 'True' ? true : undefined), 60_000);
    const readyMs = Date.now() - since;
    const after = await waitFor(`the change applied once ${what}`, async () => {
      const d = await get(member2, deployPath(name));
      return imageOf(d) === 'nginx:1.26' ? d : undefined;
    }, 60_000);
    const appliedMs = Date.now() - since;
    expect(after.metadata.uid).toBe(before.metadata.uid);
    await waitFor('the Work Applied with the change', async () => {
      const w = await workOf(name);
      return condition(w, 'Applied')?.status === 'True' && imageOf(w?.spec?.workload?.manifests?.[0]) === 'nginx:1.26' ? true : undefined;
    });
    return { readyMs, appliedMs };
  }

  it('link to the host blackholed: Ready Unknown after the grace period, the member copy kept as it was; healed, Ready again and the change made meanwhile applied to the same copy', async () => {
    const name = 'partitioned';
    created.push(name);
    await createDeploymentWithPolicy(NS, name, 1, { placement: { clusterAffinity: { clusterNames: [PULL] } } });
    await waitFor(`${name} on member2`, () => get(member2, deployPath(name)));
    await waitFor(`the Work of ${name} Applied`, async () => (condition(await workOf(name), 'Applied')?.status === 'True' ? true : undefined));
    const before = await get(member2, deployPath(name));

    const t0 = Date.now();
    proxy.set({ mode: 'blackhole' });
    const unknown = await waitFor(`${PULL} Ready Unknown`, async () => {
      const c = await readyStatus();
      return c?.status === 'Unknown' ? c : undefined;
    }, 60_000);
    const unknownMs = Date.now() - t0;
    expect(unknown).toMatchObject({ reason: 'ClusterStatusUnknown', message: 'Cluster status controller stopped posting cluster status.' });
    // The Lease went quiet: Ready turned no sooner than the grace period after the fault.
    expect(unknownMs).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000 - 1000);

    // The control plane changes the template meanwhile; the Work holds the change, the member cannot have it yet.
    await edit(host, deployPath(name), (d) => (d.spec.template.spec.containers[0].image = 'nginx:1.26'));
    await waitFor('the new image in the Pull Work', async () => (imageOf((await workOf(name))?.spec?.workload?.manifests?.[0]) === 'nginx:1.26' ? true : undefined));
    await waitFor(`${PULL} tainted NoExecute`, async () => (((await get(host, clusterPath))?.spec?.taints ?? []).some((t: any) => t.effect === 'NoExecute') ? true : undefined), 60_000);
    const during = await get(member2, deployPath(name));
    expect(written(during)).toEqual(written(before));
    expect(agent!.child.exitCode).toBeNull();
    // No failover in the policy: the binding keeps the Pull cluster.
    expect((await get(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${name}-deployment`)).spec.clusters).toEqual([{ name: PULL, replicas: 1 }]);
    const partitionMs = Date.now() - t0;

    const t1 = Date.now();
    proxy.pass();
    const { readyMs, appliedMs } = await recovered(name, before, t1, 'the link is back');
    await waitFor(`${PULL}'s taints gone`, async () => (((await get(host, clusterPath))?.spec?.taints ?? []).length === 0 ? true : undefined), 60_000);
    console.log(`agent: host link blackholed: Ready Unknown after ${unknownMs} ms (grace ${GRACE_SECONDS} s), partition held ${partitionMs} ms; healed: Ready in ${readyMs} ms, change applied in ${appliedMs} ms`);
  }, scaled(240_000));

  it('its member\'s apiserver frozen (SIGSTOP): the agent, still renewing its Lease, reports Ready=False after one probe timeout; thawed, Ready again and the change made meanwhile applied to the same copy', async () => {
    const name = 'member-frozen';
    created.push(name);
    await createDeploymentWithPolicy(NS, name, 1, { placement: { clusterAffinity: { clusterNames: [PULL] } } });
    await waitFor(`${name} on member2`, () => get(member2, deployPath(name)));
    await waitFor(`the Work of ${name} Applied`, async () => (condition(await workOf(name), 'Applied')?.status === 'True' ? true : undefined));
    await waitFor(`${PULL} Ready`, async () => ((await readyStatus())?.status === 'True' ? true : undefined), 60_000);
    const before = await get(member2, deployPath(name));

    const t0 = Date.now();
    thaw = freeze(cluster('member2'));
    const notReady = await waitFor(`${PULL} Ready=False`, async () => {
      const c = await readyStatus();
      return c?.status === 'False' ? c : undefined;
    }, 60_000);
    const notReadyMs = Date.now() - t0;
    expect(notReady.reason).toBe('ClusterNotReachable');
    expect(notReady.message).toMatch(/no answer within 5s/);
    // The agent is alive and says so: its Lease is renewed after the fault, so Ready is False, not Unknown.
    await waitFor('the Lease renewed after the fault', async () => (Date.parse((await get(host, leasePath))?.spec?.renewTime ?? '') > t0 + 1000 ? true : undefined), 30_000);
    await edit(host, deployPath(name), (d) => (d.spec.template.spec.containers[0].image = 'nginx:1.26'));
    await waitFor('the new image in the Pull Work', async () => (imageOf((await workOf(name))?.spec?.workload?.manifests?.[0]) === 'nginx:1.26' ? true : undefined));
    expect(agent!.child.exitCode).toBeNull();
    expect((await readyStatus())?.status).toBe('False');

    const t1 = Date.now();
    thaw();
    thaw = undefined;
    const { readyMs, appliedMs } = await recovered(name, before, t1, 'the member answers');
    console.log(`agent: member frozen: Ready=False after ${notReadyMs} ms; thawed: Ready in ${readyMs} ms, change applied in ${appliedMs} ms`);
  }, scaled(240_000));
});
