/**
 * Karmada's CronFederatedHPA controller (pkg/controllers/cronfederatedhpa): each rule, at the times of its cron
 * schedule, sets the target workload's replicas (targetReplicas) or a FederatedHPA's minReplicas/maxReplicas
 * (targetMinReplicas/targetMaxReplicas, the bounds the FederatedHPA controller then scales within), and records
 * the run in status.executionHistories: per rule the next execution time, and the latest successful and failed
 * runs, newest first, up to the rule's history limits.
 *
 * Karmada keeps a cron scheduler per rule in memory. Here the status is the schedule: a rule whose
 * nextExecutionTime has come runs, and every reconcile sets each rule's nextExecutionTime to the first time
 * of its schedule after now, so a changed schedule or time zone takes effect at once, and the controller asks
 * to be woken at the earliest of them. That makes the clock an input: `simulate` advances through a day, and a
 * run that came due while no controller ran takes place once when one is back (README differs 76).
 */
import { AutoscalingGroupVersion, EventReasonScaleFailed } from '../api/constants.js';
import type { CronFederatedHPA } from '../api/generated/types.js';
import { findBuiltinKind } from '../api/kubernetes-kinds.js';
import { deepEqual } from '../json/value.js';
import { nextCronTime } from '../api/cron-schedule.js';
import { CRON_FHPA, FHPA } from './kinds.js';
import { groupOf, parseRefKey, refOf, rfc3339, withMetaAndSpec, type KObject } from './object.js';
import { emptyResult, type CoreEvent, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';

/** The name karmada-lite's --controllers knows it by (Karmada's cronFederatedHorizontalPodAutoscaler). */
export const CRON_FHPA_CONTROLLER = 'cron-federated-hpa';

/** Karmada's DefaultHistoryLimit, for both kinds of run. */
export const DEFAULT_HISTORY_LIMIT = 3;

type Rule = CronFederatedHPA['spec']['rules'][number];
type History = NonNullable<NonNullable<CronFederatedHPA['status']>['executionHistories']>[number];

/** Newest first, at most `limit` (Karmada trims to limit-1 and prepends). */
const pushNewest = <T>(list: readonly T[] | undefined, item: T, limit: number): T[] => (limit <= 0 ? [] : [item, ...(list ?? [])].slice(0, limit));

/** What a rule's run did to the target, or why it could not. */
type Run = { ok: true } | { ok: false; message: string };

/** The target as a Kubernetes client names a missing object: `deployments.apps "web" not found`. */
function notFound(apiVersion: string, kind: string, name: string): string {
  const plural = findBuiltinKind(apiVersion, kind)?.plural ?? `${kind.toLowerCase()}s`;
  const group = groupOf(apiVersion);
  return `${plural}${group ? `.${group}` : ''} "${name}" not found`;
}

/**
 * One rule run against the target as this reconcile has it so far (two rules due together both apply, in
 * order, to one write). A workload gets spec.replicas, through its scale as in Karmada: a kind without
 * spec.replicas has no scale subresource.
 */
function runRule(cron: CronFederatedHPA, rule: Rule, target: KObject | undefined): Run {
  const ref = cron.spec.scaleTargetRef;
  const key = `${cron.metadata.namespace}/${cron.metadata.name}`;
  if (ref.apiVersion === AutoscalingGroupVersion) {
    if (ref.kind !== 'FederatedHPA') return { ok: false, message: `CronFederatedHPA(${key}) do not support scale target ${ref.apiVersion}/${ref.kind}` };
    if (!target) return { ok: false, message: `federatedhpas.autoscaling.karmada.io "${ref.name}" not found` };
    // Karmada's ScaleFHPA: the bounds the rule gives, the FederatedHPA's controller scales within them.
    if (rule.targetMaxReplicas !== undefined) target.spec.maxReplicas = rule.targetMaxReplicas;
    if (rule.targetMinReplicas !== undefined) target.spec.minReplicas = rule.targetMinReplicas;
    return { ok: true };
  }
  if (!target) return { ok: false, message: notFound(ref.apiVersion ?? 'v1', ref.kind, ref.name) };
  if (typeof target.spec?.replicas !== 'number') return { ok: false, message: `the server could not find the requested resource: ${ref.kind} ${ref.name} has no scale (spec.replicas)` };
  if (rule.targetReplicas === undefined) return { ok: false, message: `targetReplicas cannot be nil if you want to scale ${ref.kind}` };
  target.spec.replicas = rule.targetReplicas;
  return { ok: true };
}

export function reconcileCronFederatedHPA(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const cron = ctx.reader.get(CRON_FHPA, ref.namespace, ref.name);
  if (!cron || cron.metadata.deletionTimestamp) return emptyResult();
  const now = ctx.now;
  const targetRef = cron.spec.scaleTargetRef;
  const scalesFHPA = targetRef.apiVersion === AutoscalingGroupVersion;
  const before = scalesFHPA ? (targetRef.kind === 'FederatedHPA' ? ctx.reader.get(FHPA, cron.metadata.namespace, targetRef.name) : undefined) : ctx.reader.get({ apiVersion: targetRef.apiVersion ?? 'v1', kind: targetRef.kind }, cron.metadata.namespace, targetRef.name);
  const target = before && withMetaAndSpec(before);
  const old = new Map((cron.status?.executionHistories ?? []).map((h) => [h.ruleName, h]));
  const events: CoreEvent[] = [];
  let wake: number | undefined;
  const histories = cron.spec.rules.map((rule): History => {
    const h: History = { ...(old.get(rule.name) ?? {}), ruleName: rule.name };
    if (rule.suspend) {
      delete h.nextExecutionTime;
      return h;
    }
    if (h.nextExecutionTime !== undefined && Date.parse(h.nextExecutionTime) <= now.getTime()) {
      const run = runRule(cron, rule, target);
      const when = { scheduleTime: h.nextExecutionTime, executionTime: rfc3339(now) };
      if (run.ok) {
        const applied = { ...(rule.targetReplicas !== undefined ? { appliedReplicas: rule.targetReplicas } : {}), ...(rule.targetMaxReplicas !== undefined ? { appliedMaxReplicas: rule.targetMaxReplicas } : {}), ...(rule.targetMinReplicas !== undefined ? { appliedMinReplicas: rule.targetMinReplicas } : {}) };
        h.successfulExecutions = pushNewest(h.successfulExecutions, { ...when, ...applied }, rule.successfulHistoryLimit ?? DEFAULT_HISTORY_LIMIT);
      } else {
        h.failedExecutions = pushNewest(h.failedExecutions, { ...when, message: run.message }, rule.failedHistoryLimit ?? DEFAULT_HISTORY_LIMIT);
        events.push({ involvedObject: refOf(cron), type: 'Warning', reason: EventReasonScaleFailed, message: run.message, source: CRON_FHPA_CONTROLLER });
      }
    }
    const next = nextCronTime(rule.schedule, rule.timeZone, now);
    if (next) {
      h.nextExecutionTime = rfc3339(next);
      wake = Math.min(wake ?? Infinity, next.getTime());
    } else delete h.nextExecutionTime;
    return h;
  });
  const writes: Write[] = [];
  // The target first: if it fails, the status is not written either and the run is tried again.
  if (before && target && !deepEqual(target.spec, before.spec)) writes.push({ op: 'update', object: target });
  if (!deepEqual(cron.status?.executionHistories ?? [], histories)) writes.push({ op: 'updateStatus', object: { ...cron, status: { ...(cron.status ?? {}), executionHistories: histories } } });
  const result: ReconcileResult = { writes, events };
  if (wake !== undefined) result.requeueAfterSeconds = Math.max(1, Math.ceil((wake - now.getTime()) / 1000));
  return result;
}
