// End to end: setup mistakes said with what to do, and what the controller tells a human about a member.
// A host without the Karmada CRDs (a member apiserver stands in for one) stops the controller at start with
// the command that installs them; a Cluster whose Secret is missing gets a condition and an Event; a
// reachable member's Cluster gets its Kubernetes version (kubectl's VERSION column); propagating a
// Deployment is one info line per member in the JSON logs.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cluster, waitFor } from './env.js';
import { binary, get, prepareHost, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const run = Date.now().toString(36);
const NS = `setup-e2e-${run}`;
const NO_SECRET = `nosecret-${run}`;
const DEPLOY = 'told';

/** Runs the binary to its end; its exit code and standard error. */
function runToEnd(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('karmada-lite controller: setup mistakes and what it tells', () => {
  const host = rest('host');
  let p: Proc | undefined;

  beforeAll(async () => {
    await prepareHost(host, NS);
    await host.request('POST', '/apis/cluster.karmada.io/v1alpha1/clusters', {
      body: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: NO_SECRET }, spec: { apiEndpoint: cluster('member1').server, syncMode: 'Push', secretRef: { namespace: 'karmada-cluster', name: NO_SECRET } } },
    });
    p = await startController();
  }, scaled(180_000));

  afterAll(async () => {
    await removeDeployments(NS, [DEPLOY]);
    await host.request('DELETE', `/apis/cluster.karmada.io/v1alpha1/clusters/${NO_SECRET}`).catch(() => undefined);
    const code = await stopController(p);
    if (p && code !== 0 && code !== null) console.error(p.logs.slice(-30).join('\n'));
  });

  it('stops at start on a host without the Karmada CRDs, saying how to install them', async () => {
    const { code, stderr } = await runToEnd(['controller', '--kubeconfig', cluster('member1').kubeconfig, '--metrics-port', '0', '--bind-address', '127.0.0.1']);
    expect(code).toBe(2);
    expect(stderr).toContain('the Karmada CRDs are not installed on the host cluster');
    expect(stderr).toContain('install them with `karmada-lite crds | kubectl apply -f -`');
  });

  it('says what to do when --kubeconfig names no file', async () => {
    const { code, stderr } = await runToEnd(['controller', '--kubeconfig', `/nonexistent/${run}.config`]);
    expect(code).toBe(2);
    expect(stderr).toContain(`--kubeconfig /nonexistent/${run}.config: no such file; give the path of the host cluster's kubeconfig`);
  });

  it('gives a Cluster whose Secret is missing a Ready=False condition and a Warning Event saying what to create', async () => {
    const cond = await waitFor('the Ready condition of the Cluster without a Secret', async () => {
      const c = await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${NO_SECRET}`);
      return (c?.status?.conditions ?? []).find((x: any) => x.type === 'Ready' && x.reason === 'StatusCollectionFailed');
    });
    expect(cond.status).toBe('False');
    expect(cond.message).toContain(`create Secret karmada-cluster/${NO_SECRET}`);
    const ev = await waitFor('the Event on the Cluster without a Secret', async () => {
      const list = await host.request('GET', `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(`involvedObject.name=${NO_SECRET}`)}`);
      return (list.items as any[]).find((e) => e.involvedObject?.kind === 'Cluster' && e.reason === 'StatusCollectionFailed');
    });
    expect(ev.type).toBe('Warning');
    expect(ev.message).toContain(`create Secret karmada-cluster/${NO_SECRET}`);
    // Tried again every probe round (1s here): the Event counts the tries, the log says it once and then counts.
    await waitFor('a few more tries', async () => {
      const list = await host.request('GET', `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(`involvedObject.name=${NO_SECRET}`)}`);
      return (list.items as any[]).some((e) => e.reason === 'StatusCollectionFailed' && e.count >= 3) ? true : undefined;
    });
    const told = p!.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'cannot connect to member cluster' && l.cluster === NO_SECRET);
    expect(told.filter((l) => l.repeated === undefined)).toHaveLength(1);
  });

  it("fills the Cluster's VERSION column from the member's /version", async () => {
    for (const m of ['member1', 'member2'] as const) {
      const { gitVersion } = await rest(m).request('GET', '/version');
      const version = await waitFor(`${m}'s status.kubernetesVersion`, async () => (await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${m}`))?.status?.kubernetesVersion);
      expect(version).toBe(gitVersion);
    }
  });

  it('logs one info line per member a Deployment is propagated to, with the template and the cluster', async () => {
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
      body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: DEPLOY, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: DEPLOY }], placement: { clusterAffinity: { clusterNames: ['member1', 'member2'] } } } },
    });
    await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: DEPLOY, namespace: NS }, spec: { replicas: 1, selector: { matchLabels: { app: DEPLOY } }, template: { metadata: { labels: { app: DEPLOY } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } } },
    });
    const template = `Deployment ${NS}/${DEPLOY}`;
    const lines = await waitFor('the propagated lines', async () => {
      const found = p!.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'propagated' && l.template === template);
      return new Set(found.map((l) => l.cluster)).size === 2 ? found : undefined;
    });
    expect(lines.every((l) => l.level === 'info' && l.controller === 'execution')).toBe(true);
  });

  it("exports /metrics under controller-runtime's and Karmada's names", async () => {
    const text = await waitFor('the member metrics', async () => {
      const t = await (await fetch(`http://127.0.0.1:${p!.port}/metrics`)).text();
      return /^cluster_ready_state\{member_cluster="member1"\} 1$/m.test(t) ? t : undefined;
    });
    expect(text).toMatch(/^workqueue_adds_total\{name="execution"\} [1-9]/m);
    expect(text).toMatch(/^workqueue_queue_duration_seconds_count\{name="execution"\} [1-9]/m);
    expect(text).toMatch(/^workqueue_work_duration_seconds_count\{name="execution"\} [1-9]/m);
    expect(text).toMatch(/^workqueue_retries_total\{name="[a-z-]+"\} \d/m);
    expect(text).toMatch(/^workqueue_longest_running_processor_seconds\{name="execution"\} /m);
    expect(text).toMatch(new RegExp(`^rest_client_requests_total\\{code="200",method="GET",host="${new URL(cluster('host').server).host.replace(/\./g, '\\.')}"\\} [1-9]`, 'm'));
    expect(text).toMatch(/^rest_client_requests_total\{code="201",method="POST",host="[^"]+"\} [1-9]/m);
    expect(text).toMatch(new RegExp(`^cluster_ready_state\\{member_cluster="${NO_SECRET}"\\} 0$`, 'm'));
    expect(text).toMatch(/^cluster_sync_status_duration_seconds_count\{member_cluster="member1"\} [1-9]/m);
  });
});
