// Replicas from members' HPAs, end to end on the kwok fleet (issue 37): a Deployment Divided 1:1 and its HPA
// propagated to member1 and member2 by one policy; each member's own kube-controller-manager (its HPA
// controller) raises its copy to the HPA's minReplicas, as it does without any metrics. The controller runs
// with Karmada's two controllers for this, which are off by default: the HPA scale target marker labels the
// template retain-replicas (so the members keep what their HPAs decided), and the deployment replicas syncer
// brings the members' sum back into the template. No status is written by the test.
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { waitFor } from './env.js';
import { itWithFleet as it } from './fleet.js';
import { diagnose, evenSplit, get, prepareHost, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `hpa-replicas-${Date.now().toString(36)}`;
const RETAIN = 'resourcetemplate.karmada.io/retain-replicas';
const MIN = 3;
const host = rest('host');
const deployPath = `/apis/apps/v1/namespaces/${NS}/deployments/web`;
const hpaPath = `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers/web`;
const rbPath = `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/web-deployment`;
const specReplicas = async (c: ReturnType<typeof rest>, p: string) => (await get(c, p))?.spec?.replicas as number | undefined;

describe('replicas from members\' HPAs (hpa-scale-target-marker, deployment-replicas-syncer)', () => {
  let ctrl: Proc | undefined;

  beforeAll(async () => {
    await prepareHost(host, NS);
    ctrl = await startController(['--controllers', '*,hpa-scale-target-marker,deployment-replicas-syncer']);
  }, 120_000);

  afterAll(async () => {
    await host.request('DELETE', hpaPath).catch(() => undefined);
    await removeDeployments(NS, ['web']);
    const code = await stopController(ctrl);
    if (code !== 0) console.error(await diagnose(ctrl));
  }, 120_000);

  it('the members\' HPAs own the replicas: kept on each member, summed into the template and its binding; the label goes with the HPA', async () => {
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
      body: {
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'PropagationPolicy',
        metadata: { name: 'web', namespace: NS },
        spec: {
          resourceSelectors: [
            { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
            { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', name: 'web' },
          ],
          placement: evenSplit('member1', 'member2'),
        },
      },
    });
    await host.request('POST', `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`, {
      body: {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'web', namespace: NS },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          minReplicas: MIN,
          maxReplicas: 10,
          metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
        },
      },
    });
    await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: NS, labels: { app: 'web' } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25', resources: { requests: { cpu: '10m' } } }] } },
        },
      },
    });

    // The marker: the HPA is claimed by the policy, so the workload it scales is marked.
    await waitFor('the template labelled retain-replicas', async () => ((await get(host, deployPath))?.metadata?.labels?.[RETAIN] === 'true' ? true : undefined), 60_000);
    // Each member's HPA controller raises its copy from 1 to minReplicas, and the Work's Retain keeps that.
    for (const m of ['member1', 'member2'] as const) {
      await waitFor(`${m}'s HPA in the member`, async () => ((await get(rest(m), hpaPath)) ? true : undefined), 60_000);
      await waitFor(`${m}'s copy at ${MIN} replicas (its HPA's minReplicas)`, async () => ((await specReplicas(rest(m), deployPath)) === MIN ? true : undefined), 120_000);
    }
    // The syncer: the template takes the members' sum once their status came back through the binding.
    await waitFor(`the template at ${2 * MIN} replicas`, async () => ((await specReplicas(host, deployPath)) === 2 * MIN ? true : undefined), 120_000);
    const rb = await waitFor(`the binding at ${2 * MIN} replicas, scheduled ${MIN} + ${MIN}`, async () => {
      const b = await get(host, rbPath);
      return b?.spec?.replicas === 2 * MIN && b.status?.schedulerObservedGeneration === b.metadata.generation ? b : undefined;
    }, 60_000);
    expect(((rb.spec.clusters ?? []) as any[]).map((c) => `${c.name}=${c.replicas}`).sort()).toEqual([`member1=${MIN}`, `member2=${MIN}`]);
    // Nothing fights the members' HPAs: their copies stay where the HPAs put them.
    for (const m of ['member1', 'member2'] as const) expect(await specReplicas(rest(m), deployPath)).toBe(MIN);
    expect((await get(host, deployPath)).status.replicas).toBe(2 * MIN);

    // The HPA deleted: no HPA points at the workload any more, the label goes.
    await host.request('DELETE', hpaPath);
    await waitFor('the retain-replicas label removed', async () => ((await get(host, deployPath))?.metadata?.labels?.[RETAIN] === undefined ? true : undefined), 60_000);
  }, 420_000);
});
