// `karmada-lite describe` against the real host apiserver: a template, the binding and Work Karmada would
// have made of it, and their events, written here directly so no controller is needed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from '../../src/kube/rest.js';
import { cluster, kubeConfig } from './env.js';
import { ignoreConflict, installCrds } from './k8s-env.js';
import { runCli } from '../cli/run-cli.js';
import { serveAggregated, type Aggregated } from './aggregated-env.js';
import { registerMembers } from './harness.js';

const host = new RestClient(kubeConfig('host'));
const ns = `describe-${process.pid}`;
const es = 'karmada-es-member1';
const kubeconfig = cluster('host').kubeconfig;

async function event(namespace: string, name: string, involved: { kind: string; name: string; namespace?: string; uid: string; apiVersion: string }, reason: string, message: string, type = 'Normal'): Promise<void> {
  const now = new Date().toISOString();
  await host.request('POST', `/api/v1/namespaces/${namespace}/events`, {
    body: { metadata: { name, namespace }, involvedObject: involved, reason, message, type, source: { component: 'resource-binding-controller' }, firstTimestamp: now, lastTimestamp: now, count: 1 },
  });
}

describe('karmada-lite describe', () => {
  beforeAll(async () => {
    await installCrds(host);
    for (const n of [ns, es]) await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: n } } }));
    const deploy = await host.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: {
        metadata: { name: 'web', labels: { app: 'web' }, annotations: { 'propagationpolicy.karmada.io/name': 'web-pp', 'propagationpolicy.karmada.io/namespace': ns } },
        spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
      },
    });
    const rb = await host.request('POST', `/apis/work.karmada.io/v1alpha2/namespaces/${ns}/resourcebindings`, {
      body: {
        apiVersion: 'work.karmada.io/v1alpha2',
        kind: 'ResourceBinding',
        metadata: { name: 'web-deployment', labels: { 'resourcebinding.karmada.io/permanent-id': `${ns}-rb-id` } },
        spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web', uid: deploy.metadata.uid }, replicas: 3, clusters: [{ name: 'member1', replicas: 2 }, { name: 'member2', replicas: 1 }] },
      },
    });
    const t = new Date().toISOString();
    await host.request('PUT', `/apis/work.karmada.io/v1alpha2/namespaces/${ns}/resourcebindings/web-deployment/status`, {
      body: {
        ...rb,
        status: {
          conditions: [
            { type: 'Scheduled', status: 'True', reason: 'Success', message: 'Binding has been scheduled successfully.', lastTransitionTime: t },
            { type: 'FullyApplied', status: 'False', reason: 'FullyAppliedFailed', message: 'Failed to apply all works', lastTransitionTime: t },
          ],
          aggregatedStatus: [
            { clusterName: 'member1', applied: true, health: 'Healthy', status: { replicas: 2, readyReplicas: 2 } },
            { clusterName: 'member2', applied: false, appliedMessage: 'namespaces "shop" not found', health: 'Unknown' },
          ],
        },
      },
    });
    const work = await host.request('POST', `/apis/work.karmada.io/v1alpha1/namespaces/${es}/works`, {
      body: { apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work', metadata: { name: `web-${ns}`, labels: { 'resourcebinding.karmada.io/permanent-id': `${ns}-rb-id` } }, spec: { workload: { manifests: [] } } },
    });
    await event(ns, 'web.1', { kind: 'Deployment', name: 'web', namespace: ns, uid: deploy.metadata.uid, apiVersion: 'apps/v1' }, 'ApplyPolicySucceed', `Apply policy(${ns}/web-pp) succeed`);
    await event(ns, 'rb.1', { kind: 'ResourceBinding', name: 'web-deployment', namespace: ns, uid: rb.metadata.uid, apiVersion: 'work.karmada.io/v1alpha2' }, 'ScheduleBindingSucceed', 'Binding has been scheduled successfully.');
    await event(es, `${ns}.work.1`, { kind: 'Work', name: work.metadata.name, namespace: es, uid: work.metadata.uid, apiVersion: 'work.karmada.io/v1alpha1' }, 'WorkDispatching', 'Work is dispatching');
  });
  afterAll(async () => {
    await host.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    await host.request('DELETE', `/apis/work.karmada.io/v1alpha1/namespaces/${es}/works/web-${ns}`).catch(() => undefined);
  });

  it('shows the policy, the binding with its clusters and conditions, the Work and the events of all three', async () => {
    const r = await runCli(['describe', 'deploy', 'web', '-n', ns, '--kubeconfig', kubeconfig]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Name:\s+web$/m);
    expect(r.stdout).toMatch(/^Kind:\s+Deployment \(apps\/v1\)$/m);
    expect(r.stdout).toContain(`PropagationPolicy ${ns}/web-pp`);
    expect(r.stdout).toContain(`ResourceBinding ${ns}/web-deployment`);
    expect(r.stdout).toMatch(new RegExp(`member1\\s+2\\s+True\\s+Healthy\\s+${es}/web-${ns}`));
    expect(r.stdout).toMatch(/member2\s+1\s+False\s+Unknown\s+<none>/);
    expect(r.stdout).toContain('member2: namespaces "shop" not found');
    expect(r.stdout).toMatch(/readyReplicas: 2/);
    expect(r.stdout).toMatch(/FullyApplied\s+False\s+FullyAppliedFailed/);
    expect(r.stdout).toMatch(new RegExp(`${es}\\s+web-${ns}`));
    expect(r.stdout).toMatch(/Normal\s+ApplyPolicySucceed\s+\S+\s+resource-binding-controller\s+Deployment\/web/);
    expect(r.stdout).toMatch(/ScheduleBindingSucceed\s+\S+\s+\S+\s+ResourceBinding\/web-deployment/);
    expect(r.stdout).toMatch(new RegExp(`WorkDispatching\\s+\\S+\\s+\\S+\\s+Work/web-${ns}`));
  });

  it('accepts KIND/NAME; a missing template is the server\'s NotFound with exit 1, an unknown kind kubectl\'s message', async () => {
    expect((await runCli(['describe', 'deployments.apps/web', '-n', ns, '--kubeconfig', kubeconfig])).code).toBe(0);
    const missing = await runCli(['describe', 'deployment', 'nope', '-n', ns, '--kubeconfig', kubeconfig]);
    expect(missing).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): deployments.apps "nope" not found\n' });
    const unknown = await runCli(['describe', 'flurble', 'x', '--kubeconfig', kubeconfig]);
    expect(unknown).toMatchObject({ code: 1, stderr: 'error: the server doesn\'t have a resource type "flurble"\n' });
  });

  it('Karmada\'s own objects are described as themselves: a binding by its resource and Works, a Cluster by its state', async () => {
    const rb = await runCli(['describe', 'rb', 'web-deployment', '-n', ns, '--kubeconfig', kubeconfig]);
    expect(rb).toMatchObject({ code: 0, stderr: '' });
    expect(rb.stdout).toMatch(/^Kind:\s+ResourceBinding \(work\.karmada\.io\/v1alpha2\)$/m);
    expect(rb.stdout).toMatch(new RegExp(`^Resource:\\s+Deployment ${ns}/web \\(apps/v1\\)$`, 'm'));
    expect(rb.stdout).toMatch(new RegExp(`member1\\s+2\\s+True\\s+Healthy\\s+${es}/web-${ns}`));
    expect(rb.stdout).toMatch(/ScheduleBindingSucceed/);
    // not described as a template: no binding of a binding
    expect(rb.stdout).not.toMatch(/^Policy:/m);
    await registerMembers(host);
    const c = await runCli(['describe', 'cluster', 'member1', '--kubeconfig', kubeconfig]);
    expect(c).toMatchObject({ code: 0, stderr: '' });
    expect(c.stdout).toMatch(/^Kind:\s+Cluster \(cluster\.karmada\.io\/v1alpha1\)$/m);
    expect(c.stdout).toMatch(/^Sync Mode:\s+Push$/m);
    expect(c.stdout).toMatch(/^API Endpoint:\s+https:\/\/127\.0\.0\.1:\d+$/m);
    expect(c.stdout).toMatch(/^Resource Summary:$/m);
    expect(c.stdout).toMatch(/^API Enablements:$/m);
    expect(c.stdout).not.toMatch(/^Binding:/m);
  });

  it('a template no policy claimed says so', async () => {
    await host.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'lonely' } } });
    const r = await runCli(['describe', 'cm', 'lonely', '-n', ns, '--kubeconfig', kubeconfig]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Binding:\s+<none>/m);
    expect(r.stdout).toMatch(/^Events:\s+<none>$/m);
  });

  describe('-C MEMBER: the member\'s own object through the host\'s cluster proxy', () => {
    const member1 = new RestClient(kubeConfig('member1'));
    let aggregated: Aggregated | undefined;
    beforeAll(async () => {
      await registerMembers(host);
      aggregated = await serveAggregated(['cluster.karmada.io/v1alpha1']);
      await ignoreConflict(member1.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }));
      const cm = await member1.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'settings', labels: { tier: 'back' } }, data: { logLevel: 'debug' } } });
      const t = new Date().toISOString();
      await member1.request('POST', `/api/v1/namespaces/${ns}/events`, {
        body: { metadata: { name: 'settings.1' }, involvedObject: { kind: 'ConfigMap', name: 'settings', namespace: ns, uid: cm.metadata.uid, apiVersion: 'v1' }, reason: 'Synced', message: 'seen on member1', type: 'Normal', source: { component: 'member-agent' }, firstTimestamp: t, lastTimestamp: t, count: 1 },
      });
    });
    afterAll(async () => {
      await aggregated?.stop();
      await member1.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    });

    it('prints the object in kubectl\'s generic layout with its events on the member, headed by the cluster', async () => {
      const r = await runCli(['describe', 'configmap', 'settings', '-n', ns, '-C', 'member1', '--kubeconfig', kubeconfig]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Cluster:\s+member1$/m);
      expect(r.stdout).toMatch(/^Name:\s+settings$/m);
      expect(r.stdout).toMatch(new RegExp(`^Namespace:\\s+${ns}$`, 'm'));
      expect(r.stdout).toMatch(/^Labels:\s+tier=back$/m);
      expect(r.stdout).toMatch(/^API Version:\s+v1$/m);
      expect(r.stdout).toMatch(/^Data:\n {2}Log Level:\s+debug$/m);
      expect(r.stdout).toMatch(/Normal\s+Synced\s+\S+\s+member-agent\s+seen on member1/);
      expect(r.stdout).not.toContain('Managed Fields');
      // the host has no such object: the member's answer is what was shown
      const onHost = await runCli(['describe', 'configmap', 'settings', '-n', ns, '--kubeconfig', kubeconfig]);
      expect(onHost).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): configmaps "settings" not found\n' });
    });

    it('follows karmadactl\'s flags: members needs a cluster, an unknown cluster is the host\'s NotFound', async () => {
      expect(await runCli(['describe', 'cm', 'settings', '-n', ns, '--operation-scope', 'members', '--kubeconfig', kubeconfig])).toMatchObject({ code: 2 });
      const unknown = await runCli(['describe', 'cm', 'settings', '-n', ns, '-C', 'nope', '--kubeconfig', kubeconfig]);
      expect(unknown).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): clusters.cluster.karmada.io "nope" not found\n' });
      expect((await runCli(['describe', 'cm', 'settings', '-n', ns, '-s', 'members', '--cluster', 'member1', '--kubeconfig', kubeconfig])).code).toBe(0);
    });
  });
});
