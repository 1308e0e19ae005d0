// FederatedHPA end to end: the real binary against the host, member1 and member2 apiservers of the kwok fleet.
// Each member serves metrics.k8s.io from a test server (pod-metrics-server.ts) that reports, for every Running
// Pod of the Deployment, the cpu usage the test sets. A Deployment template requesting 100m cpu per Pod is
// divided over both members; a FederatedHPA targets 50% cpu utilization across all of them. The test raises
// the usage and the template's replicas go up, lowers it and they come down (no scale-down stabilization
// window), then a CronFederatedHPA rule raises the FederatedHPA's minReplicas and the template follows. The same
// server answers custom.metrics.k8s.io (as a Prometheus adapter would) for a second Deployment scaled on a Pods
// metric, requests a second per Pod.
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { k8sEnv, waitFor } from './env.js';
import { conditionOf, itWithFleet, waitDeploymentAvailable, withFleet } from './fleet.js';
import { createDeploymentWithPolicy, diagnose, evenSplit, get, prepareHost, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';
import { registerMetricsApiService, startPodMetricsServer, unregisterMetricsApiService, type PodMetricsServer } from './pod-metrics-server.js';
import { scaled } from '../time-scale.js';

const NS = `fhpa-e2e-${Date.now().toString(36)}`;
const MEMBERS = ['member1', 'member2'] as const;
const FHPAS = `/apis/autoscaling.karmada.io/v1alpha1/namespaces/${NS}/federatedhpas`;
const CRONS = `/apis/autoscaling.karmada.io/v1alpha1/namespaces/${NS}/cronfederatedhpas`;
const deployPath = `/apis/apps/v1/namespaces/${NS}/deployments/web`;
const host = rest('host');

/** The cpu each of the Deployment's Pods uses, in millicores (100m requested: 50 is the 50% target). */
let cpuMillis = 50;
/** The requests a second each Pod of the second Deployment reports (the target is 10 a Pod). */
let qps = 10;

/** A FederatedHPA of the same name scaling the Deployment `name`. */
const postFhpa = (name: string, spec: Record<string, unknown>) =>
  host.request('POST', FHPAS, { body: { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', metadata: { name, namespace: NS }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, ...spec } } });
const templateReplicas = async (): Promise<number> => (await get(host, deployPath))?.spec?.replicas;
const fhpa = () => get(host, `${FHPAS}/web`);
/** Both members' copies rolled out, together as many as the template asks for. */
async function membersAvailable(total: number): Promise<void> {
  await waitFor(`the members' copies of web to add up to ${total}`, async () => {
    let sum = 0;
    for (const m of MEMBERS) sum += (await get(rest(m), deployPath))?.spec?.replicas ?? 0;
    return sum === total ? true : undefined;
  });
  for (const m of MEMBERS) if ((await get(rest(m), deployPath))?.spec?.replicas) await waitDeploymentAvailable(rest(m), NS, 'web');
}

describe.skipIf(!withFleet())('karmada-lite controller: FederatedHPA', () => {
  let ctrl: Proc | undefined;
  const servers: PodMetricsServer[] = [];

  beforeAll(async () => {
    await prepareHost(host, NS);
    for (const m of MEMBERS) {
      const s = await startPodMetricsServer(
        rest(m),
        k8sEnv().dir,
        m,
        (pod) => (pod.metadata.namespace === NS && pod.metadata.labels?.app === 'web' ? { cpu: `${cpuMillis}m`, memory: '20Mi' } : undefined),
        (pod, metric) => (pod.metadata.namespace === NS && pod.metadata.labels?.app === 'api' && metric === 'requests_per_second' ? String(qps) : undefined),
      );
      servers.push(s);
      await registerMetricsApiService(rest(m), s.port);
    }
    ctrl = await startController();
  }, scaled(180_000));

  afterAll(async () => {
    await host.request('DELETE', `${CRONS}/peak`).catch(() => undefined);
    for (const n of ['web', 'api']) await host.request('DELETE', `${FHPAS}/${n}`).catch(() => undefined);
    await removeDeployments(NS, ['web', 'api']);
    const code = await stopController(ctrl);
    if (code !== 0) console.error(await diagnose(ctrl));
    for (const m of MEMBERS) await unregisterMetricsApiService(rest(m));
    for (const s of servers) await s.close();
  }, scaled(120_000));

  itWithFleet(
    'scales the template from the members\' cpu usage, up and down, and within the bounds a CronFederatedHPA rule sets',
    async () => {
      const container = { name: 'c', image: 'nginx:1.25', resources: { requests: { cpu: '100m', memory: '64Mi' } } };
      await createDeploymentWithPolicy(NS, 'web', 2, { placement: evenSplit('member1', 'member2') }, { containers: [container] });
      await membersAvailable(2);

      await postFhpa('web', {
        // 2: at 10% two Pods would want one, so the scale-down settles at the bound instead of passing through 2
        minReplicas: 2,
        maxReplicas: 6,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
        behavior: { scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } },
      });

      // At the target: the status reports the utilization over both members' Pods, and no change.
      const steady = await waitFor('the FederatedHPA to report the cpu utilization', async () => {
        const f = await fhpa();
        return f?.status?.currentMetrics?.[0]?.resource?.current?.averageUtilization === 50 ? f : undefined;
      });
      expect(steady.status).toMatchObject({ currentReplicas: 2, desiredReplicas: 2 });
      expect(conditionOf(steady, 'ScalingActive')).toMatchObject({ status: 'True', reason: 'ValidMetricFound' });
      expect(conditionOf(steady, 'AbleToScale')?.status).toBe('True');
      expect(await templateReplicas()).toBe(2);

      // 150% of the requests: three times the replicas (6, also maxReplicas), on the template.
      cpuMillis = 150;
      await waitFor('the template scaled up', async () => ((await templateReplicas()) === 6 ? true : undefined), 90_000);
      const up = await waitFor('the FederatedHPA status after the scale-up', async () => {
        const f = await fhpa();
        return f?.status?.desiredReplicas === 6 && f.status.lastScaleTime ? f : undefined;
      });
      expect(up.status.currentMetrics[0].resource.current.averageUtilization).toBe(150);
      // Events are written behind the controller's other requests (the recorder's low lane): waited for.
      await waitFor('the SuccessfulRescale event to 6', async () => {
        const events = (await host.request<any>('GET', `/api/v1/namespaces/${NS}/events`)).items as any[];
        return events.some((e) => e.involvedObject.kind === 'FederatedHPA' && e.reason === 'SuccessfulRescale' && e.message === 'New size: 6; reason: cpu resource utilization (percentage of request) above target') ? true : undefined;
      });
      await membersAvailable(6);

      // 10%: down at once (no stabilization window) to what 10% of six Pods need at 50% each, 2, also minReplicas.
      cpuMillis = 10;
      await waitFor('the template scaled down', async () => ((await templateReplicas()) === 2 ? true : undefined), 90_000);
      const down = await waitFor('the FederatedHPA status after the scale-down', async () => {
        const f = await fhpa();
        return f?.status?.currentReplicas === 2 ? f : undefined;
      });
      expect(conditionOf(down, 'ScalingActive')?.status).toBe('True');
      expect(await templateReplicas()).toBe(2);
      await membersAvailable(2);

      // A CronFederatedHPA rule raises the FederatedHPA's minReplicas; the template follows.
      await host.request('POST', CRONS, {
        body: {
          apiVersion: 'autoscaling.karmada.io/v1alpha1',
          kind: 'CronFederatedHPA',
          metadata: { name: 'peak', namespace: NS },
          spec: { scaleTargetRef: { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', name: 'web' }, rules: [{ name: 'every-minute', schedule: '* * * * *', targetMinReplicas: 3 }] },
        },
      });
      await waitFor('the rule to set minReplicas', async () => ((await fhpa())?.spec?.minReplicas === 3 ? true : undefined), 100_000);
      await waitFor('the template at the new minimum', async () => ((await templateReplicas()) === 3 ? true : undefined), 60_000);
      const cron = await get(host, `${CRONS}/peak`);
      expect(cron.status.executionHistories[0].successfulExecutions[0]).toMatchObject({ appliedMinReplicas: 3 });
      expect(servers.every((s) => s.lists() > 0)).toBe(true);
    },
    scaled(480_000),
  );

  itWithFleet(
    'scales on a Pods metric of custom.metrics.k8s.io, averaged over both members\' Pods',
    async () => {
      await createDeploymentWithPolicy(NS, 'api', 2, { placement: evenSplit('member1', 'member2') });
      await waitFor('the members\' copies of api', async () => {
        for (const m of MEMBERS) if (!(await get(rest(m), `/apis/apps/v1/namespaces/${NS}/deployments/api`))) return undefined;
        return true;
      });
      for (const m of MEMBERS) await waitDeploymentAvailable(rest(m), NS, 'api');
      await postFhpa('api', { minReplicas: 1, maxReplicas: 4, metrics: [{ type: 'Pods', pods: { metric: { name: 'requests_per_second' }, target: { type: 'AverageValue', averageValue: '10' } } }] });
      const apiFhpa = () => get(host, `${FHPAS}/api`);
      const steady = await waitFor('the FederatedHPA to report the Pods metric', async () => {
        const f = await apiFhpa();
        return f?.status?.currentMetrics?.[0]?.pods?.current?.averageValue === '10' ? f : undefined;
      }).catch(async (e) => {
        // what the autoscaler says it could not read
        console.error('the FederatedHPA status:', JSON.stringify((await apiFhpa())?.status));
        throw e;
      });
      expect(steady.status).toMatchObject({ currentReplicas: 2, desiredReplicas: 2, currentMetrics: [{ type: 'Pods', pods: { metric: { name: 'requests_per_second' } } }] });
      expect(conditionOf(steady, 'ScalingActive')).toMatchObject({ status: 'True', reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from pods metric requests_per_second' });

      // Twice the target on every Pod: twice the replicas, 4 (also maxReplicas).
      qps = 20;
      await waitFor('the api template scaled up', async () => ((await get(host, `/apis/apps/v1/namespaces/${NS}/deployments/api`))?.spec?.replicas === 4 ? true : undefined), 90_000);
      const up = await waitFor('the status after the scale-up', async () => {
        const f = await apiFhpa();
        return f?.status?.desiredReplicas === 4 ? f : undefined;
      });
      expect(up.status.currentMetrics[0].pods.current.averageValue).toBe('20');
    },
    scaled(300_000),
  );
});
