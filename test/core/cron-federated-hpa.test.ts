// CronFederatedHPA (src/core/cron-federated-hpa.ts, src/validation/cron-federated-hpa.ts): Karmada's cron rules,
// with the status as the schedule and the clock as an input.
import { describe, expect, it } from 'vitest';
import { cronScheduleProblem, nextCronTime, timeZoneProblem } from '../../src/api/cron-schedule.js';
import { coreControllers } from '../../src/core/controllers.js';
import { CRON_FHPA_CONTROLLER, reconcileCronFederatedHPA } from '../../src/core/cron-federated-hpa.js';
import { CRON_FHPA } from '../../src/core/kinds.js';
import { refKey, type KObject } from '../../src/core/object.js';
import { withCoreDefaults, type ReconcileContext } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';
import { aggregate } from '../../src/validation/field-errors.js';
import { validateCronFederatedHPA } from '../../src/validation/cron-federated-hpa.js';

const ctxAt = (now: string, objects: KObject[]): ReconcileContext => {
  const store = new EmbeddedStore();
  for (const o of objects) store.create(o);
  return { reader: store, now: new Date(now), interpreter: {} as never, schedule: (() => ({})) as never, options: withCoreDefaults({ skippedPropagatingNamespaces: [] }) };
};
const web = (replicas: number): KObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { replicas } });
const cron = (rules: Record<string, unknown>[], status?: Record<string, unknown>, target: Record<string, unknown> = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }): KObject => ({
  ...CRON_FHPA,
  metadata: { name: 'scale', namespace: 'shop' },
  spec: { scaleTargetRef: target, rules },
  ...(status ? { status } : {}),
});
const KEY = refKey({ ...CRON_FHPA, namespace: 'shop', name: 'scale' });
const statusOf = (r: ReturnType<typeof reconcileCronFederatedHPA>) => (r.writes.find((w) => w.op === 'updateStatus') as { object: KObject } | undefined)?.object.status;
const targetOf = (r: ReturnType<typeof reconcileCronFederatedHPA>) => (r.writes.find((w) => w.op === 'update') as { object: KObject } | undefined)?.object;

describe('cron schedules as Karmada runs them', () => {
  it('five fields or a descriptor, in a time zone', () => {
    expect(cronScheduleProblem('*/5 * * * *')).toBeUndefined();
    expect(cronScheduleProblem('@daily')).toBeUndefined();
    expect(cronScheduleProblem('0 */5 * * * *')).toBe('invalid cron format');
    expect(cronScheduleProblem('61 * * * *')).toBe('invalid cron format');
    expect(timeZoneProblem('Asia/Shanghai')).toBeUndefined();
    expect(timeZoneProblem('Mars/Base')).toBe('unknown time zone Mars/Base');
    // 09:00 on weekdays in New York, from a Saturday: Monday 14:00 UTC (EST)
    expect(nextCronTime('0 9 * * 1-5', 'America/New_York', new Date('2024-01-06T00:00:00Z'))?.toISOString()).toBe('2024-01-08T14:00:00.000Z');
    expect(nextCronTime('0 9 * * *', undefined, new Date('2024-01-06T09:00:00Z'))?.toISOString()).toBe('2024-01-07T09:00:00.000Z');
  });
});

describe('CronFederatedHPA controller', () => {
  const rule = { name: 'morning', schedule: '0 8 * * *', targetReplicas: 5 };

  it('a new rule gets its next execution time and asks to be woken then', () => {
    const r = reconcileCronFederatedHPA(ctxAt('2024-01-01T07:30:00Z', [web(2), cron([rule])]), KEY);
    expect(statusOf(r)).toEqual({ executionHistories: [{ ruleName: 'morning', nextExecutionTime: '2024-01-01T08:00:00Z' }] });
    expect(targetOf(r)).toBeUndefined();
    expect(r.requeueAfterSeconds).toBe(1800);
  });

  it('a due rule scales the workload and records the run, newest first, within its history limit', () => {
    const old = [1, 2, 3].map((d) => ({ scheduleTime: `2023-12-2${d}T08:00:00Z`, executionTime: `2023-12-2${d}T08:00:01Z`, appliedReplicas: 5 }));
    const status = { executionHistories: [{ ruleName: 'morning', nextExecutionTime: '2024-01-01T08:00:00Z', successfulExecutions: old }] };
    const r = reconcileCronFederatedHPA(ctxAt('2024-01-01T08:00:02Z', [web(2), cron([rule], status)]), KEY);
    expect(targetOf(r)).toMatchObject({ metadata: { name: 'web' }, spec: { replicas: 5 } });
    const h = statusOf(r).executionHistories[0];
    expect(h.nextExecutionTime).toBe('2024-01-02T08:00:00Z');
    expect(h.successfulExecutions).toEqual([{ scheduleTime: '2024-01-01T08:00:00Z', executionTime: '2024-01-01T08:00:02Z', appliedReplicas: 5 }, old[0], old[1]]);
    // the target write goes first: if it fails, the status is not written and the run is tried again
    expect(r.writes.map((w) => w.op)).toEqual(['update', 'updateStatus']);
  });

  it('a run that cannot scale is a failed execution and a ScaleFailed event, in Karmada\'s words', () => {
    const status = { executionHistories: [{ ruleName: 'morning', nextExecutionTime: '2024-01-01T08:00:00Z' }] };
    const r = reconcileCronFederatedHPA(ctxAt('2024-01-01T08:00:00Z', [cron([rule], status)]), KEY);
    expect(statusOf(r).executionHistories[0].failedExecutions).toEqual([{ scheduleTime: '2024-01-01T08:00:00Z', executionTime: '2024-01-01T08:00:00Z', message: 'deployments.apps "web" not found' }]);
    expect(r.events).toMatchObject([{ type: 'Warning', reason: 'ScaleFailed', message: 'deployments.apps "web" not found' }]);
  });

  it('a changed schedule moves the next execution at once; a suspended rule has none; a removed rule loses its history', () => {
    const status = { executionHistories: [{ ruleName: 'morning', nextExecutionTime: '2024-01-01T08:00:00Z' }, { ruleName: 'gone', nextExecutionTime: '2024-01-01T09:00:00Z' }] };
    const r = reconcileCronFederatedHPA(ctxAt('2024-01-01T07:00:00Z', [web(2), cron([{ ...rule, schedule: '30 7 * * *' }, { name: 'paused', schedule: '0 9 * * *', targetReplicas: 1, suspend: true }], status)]), KEY);
    expect(statusOf(r).executionHistories).toEqual([{ ruleName: 'morning', nextExecutionTime: '2024-01-01T07:30:00Z' }, { ruleName: 'paused' }]);
    expect(r.requeueAfterSeconds).toBe(1800);
  });

  it('two rules due together both apply to one write of the target, in order', () => {
    const rules = [rule, { name: 'also', schedule: '0 8 * * *', targetReplicas: 7 }];
    const status = { executionHistories: rules.map((x) => ({ ruleName: x.name, nextExecutionTime: '2024-01-01T08:00:00Z' })) };
    const r = reconcileCronFederatedHPA(ctxAt('2024-01-01T08:00:00Z', [web(2), cron(rules, status)]), KEY);
    expect(r.writes.filter((w) => w.op === 'update')).toHaveLength(1);
    expect(targetOf(r)?.spec.replicas).toBe(7);
  });

  it('nothing to write when the status already says it all', () => {
    const status = { executionHistories: [{ ruleName: 'morning', nextExecutionTime: '2024-01-01T08:00:00Z' }] };
    const r = reconcileCronFederatedHPA(ctxAt('2024-01-01T07:59:00Z', [web(2), cron([rule], status)]), KEY);
    expect(r.writes).toEqual([]);
    expect(r.requeueAfterSeconds).toBe(60);
  });

  it('is a core controller under its --controllers name', () => {
    expect(coreControllers(withCoreDefaults()).map((c) => c.name)).toContain(CRON_FHPA_CONTROLLER);
  });
});

describe('CronFederatedHPA admission (Karmada /validate-cronfederatedhpa)', () => {
  const check = (spec: Record<string, unknown>) => aggregate(validateCronFederatedHPA({ spec }));
  const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

  it('accepts a workload target with targetReplicas, 0 included', () => {
    expect(validateCronFederatedHPA({ spec: { scaleTargetRef: target, rules: [{ name: 'a', schedule: '0 0 * * 6', targetReplicas: 0, timeZone: 'Europe/Paris' }] } })).toEqual([]);
  });

  it('refuses what Karmada refuses, in its words', () => {
    expect(check({ scaleTargetRef: { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'Other', name: 'x' }, rules: [] })).toBe(
      'spec.scaleTargetRef.kind: Invalid value: "Other": invalid scaleTargetRef kind: Other, only support FederatedHPA',
    );
    expect(check({ scaleTargetRef: target, rules: [{ name: 'a', schedule: 'every day', targetReplicas: 1 }, { name: 'a', schedule: '0 0 * * *', timeZone: 'Mars/Base' }] })).toBe(
      '[spec.rules[0].schedule: Invalid value: "every day": invalid cron format, spec.rules[1].name: Duplicate value: "a", spec.rules[1].timeZone: Invalid value: "Mars/Base": unknown time zone Mars/Base, spec.rules[1].targetReplicas: Invalid value: "": targetReplicas cannot be nil if you want to scale Deployment]',
    );
    expect(check({ scaleTargetRef: { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', name: 'f' }, rules: [{ name: 'a', schedule: '@hourly', targetMinReplicas: 5, targetMaxReplicas: 2 }] })).toBe(
      'spec.rules[0].targetMinReplicas: Invalid value: "": targetMaxReplicas should be larger than or equal to targetMinReplicas',
    );
    expect(check({ scaleTargetRef: { kind: '', name: 'a/b' }, rules: [] })).toBe("[spec.scaleTargetRef.kind: Required value, spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/']");
  });
});
