// CronFederatedHPA end to end: the real binary against the host apiserver. Two CronFederatedHPAs whose rules run
// every minute (cron's finest step), one scaling a Deployment template, one pointing at a Deployment that does
// not exist; both run at the same minute boundary, so the suite waits for at most one of them. The times are
// the controller's clock; the test only waits for the status to say a run happened, then checks it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextCronTime } from '../../src/api/cron-schedule.js';
import { waitFor } from './env.js';
import { diagnose, get, prepareHost, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `cronfhpa-e2e-${Date.now().toString(36)}`;
const CRONS = `/apis/autoscaling.karmada.io/v1alpha1/namespaces/${NS}/cronfederatedhpas`;
const deployPath = `/apis/apps/v1/namespaces/${NS}/deployments/web`;
const host = rest('host');

const historyOf = async (name: string, rule: string) => ((await get(host, `${CRONS}/${name}`))?.status?.executionHistories ?? []).find((h: any) => h.ruleName === rule);

describe('karmada-lite controller: CronFederatedHPA', () => {
  let ctrl: Proc | undefined;

  beforeAll(async () => {
    await prepareHost(host, NS);
    ctrl = await startController();
  }, scaled(120_000));

  afterAll(async () => {
    for (const n of ['scale', 'missing']) await host.request('DELETE', `${CRONS}/${n}`).catch(() => undefined);
    await host.request('DELETE', deployPath).catch(() => undefined);
    const code = await stopController(ctrl);
    if (code !== 0) console.error(await diagnose(ctrl));
  }, scaled(60_000));

  it('each rule gets its next time in its time zone; a due rule scales its target or records why not, and moves on to its next time', async () => {
    await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: NS },
        spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } },
      },
    });
    const cron = (name: string, target: string, rules: Record<string, unknown>[]) =>
      host.request('POST', CRONS, { body: { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'CronFederatedHPA', metadata: { name, namespace: NS }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target }, rules } } });
    await cron('scale', 'web', [
      { name: 'every-minute', schedule: '* * * * *', targetReplicas: 3 },
      { name: 'tokyo-morning', schedule: '0 9 * * *', timeZone: 'Asia/Tokyo', targetReplicas: 4 },
      { name: 'paused', schedule: '* * * * *', targetReplicas: 9, suspend: true },
    ]);
    await cron('missing', 'nope', [{ name: 'every-minute', schedule: '* * * * *', targetReplicas: 2 }]);

    const first = await waitFor('the rules\' next execution times', async () => {
      const h = await historyOf('scale', 'every-minute');
      return h?.nextExecutionTime && (await historyOf('scale', 'tokyo-morning'))?.nextExecutionTime ? h : undefined;
    });
    // on a minute boundary, within the next minute
    expect(first.nextExecutionTime).toMatch(/:00Z$/);
    const tokyo = await historyOf('scale', 'tokyo-morning');
    expect(tokyo.nextExecutionTime).toBe(nextCronTime('0 9 * * *', 'Asia/Tokyo', new Date(Date.parse(tokyo.nextExecutionTime) - 60_000))!.toISOString().replace('.000Z', 'Z'));
    expect(new Date(tokyo.nextExecutionTime).getUTCHours()).toBe(0); // 09:00 in Tokyo
    expect(await historyOf('scale', 'paused')).toEqual({ ruleName: 'paused' });

    // The minute comes: the workload is scaled and the run recorded with the time it was due.
    const ran = await waitFor('the every-minute rule to run', async () => ((await historyOf('scale', 'every-minute'))?.successfulExecutions?.length ? historyOf('scale', 'every-minute') : undefined), 100_000);
    expect(ran.successfulExecutions[0]).toMatchObject({ scheduleTime: expect.stringMatching(/:00Z$/), appliedReplicas: 3 });
    expect(Date.parse(ran.nextExecutionTime)).toBe(Date.parse(ran.successfulExecutions[0].scheduleTime) + 60_000);
    expect((await get(host, deployPath)).spec.replicas).toBe(3);
    expect((await get(host, deployPath)).spec.replicas).not.toBe(9);

    const failed = await waitFor('the run against a missing target to fail', async () => ((await historyOf('missing', 'every-minute'))?.failedExecutions?.length ? historyOf('missing', 'every-minute') : undefined), 100_000);
    expect(failed.failedExecutions[0].message).toBe('deployments.apps "nope" not found');
    // Events are written behind the controller's other requests (the recorder's low lane): waited for.
    await waitFor('the ScaleFailed event of missing', async () => {
      const events = await host.request<any>('GET', `/api/v1/namespaces/${NS}/events`);
      return (events.items as any[]).some((e) => e.involvedObject.name === 'missing' && e.reason === 'ScaleFailed' && e.type === 'Warning' && e.message === 'deployments.apps "nope" not found') ? true : undefined;
    });
  }, scaled(300_000));
});
