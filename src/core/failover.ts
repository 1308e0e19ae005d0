/**
 * Application failover (spec §6 and README points 1, 2, 4): a cluster where the workload stays
 * Unhealthy longer than tolerationSeconds is evicted: it leaves spec.clusters, a graceful-eviction task
 * records it, and (extension) spec.activeEvictionHistory keeps it out of scheduling for
 * blockPredecessorSeconds. The clocks are kept on the binding; suspended clusters are not judged.
 */
import {
  BindingConditionFailoverExhausted,
  CRBApplicationFailoverControllerName,
  DefaultBlockPredecessorSeconds,
  DefaultGracePeriodSeconds,
  DefaultTolerationSeconds,
  EventReasonEvictWorkloadFromClusterFailed,
  EventReasonEvictWorkloadFromClusterSucceed,
  EventReasonFailoverExhausted,
  EventReasonFailoverPausedBySuspension,
  EvictionReasonApplicationFailure,
  FailoverClocksAnnotation,
  FailoverExhaustedAnnotation,
  fnv32a,
  PurgeModeGracefully,
  PurgeModeNever,
  RBApplicationFailoverControllerName,
  ReasonNoClusterLeft,
} from '../api/constants.js';
import { isClusterBinding, isSuspendedFor, normalizePurgeMode } from './binding.js';
import type { ObjectMeta, ResourceBindingSpec, ResourceBindingStatus } from '../api/generated/types.js';
import { errorMessage } from '../json/error.js';
import type { EvictionTask } from './eviction.js';
import { bindingType, CLUSTER, type Binding } from './kinds.js';
import { clockStamp, withMetaAndSpec, findCondition, isTerminating, parseRefKey, parseTime, refOf, rfc3339, setCondition, type KObject } from './object.js';
import { deepEqual, isObject } from '../json/value.js';
import { evalJsonPath } from './jsonpath.js';
import { emptyResult, type AggregatedStatusItem, type CoreEvent, type ReconcileContext, type ReconcileResult } from './ports.js';

export const FAILOVER = 'application-failover';

interface Clock {
  statusSince?: string;
  unhealthySince?: string;
}

type HistoryEntry = NonNullable<ResourceBindingSpec['activeEvictionHistory']>[number];

export function readClocks(b: { metadata: ObjectMeta }): Record<string, Clock> {
  const raw = b.metadata.annotations?.[FailoverClocksAnnotation];
  if (!raw) return {};
  try {
    const v: unknown = JSON.parse(raw);
    return isObject(v) ? v : {};
  } catch {
    // A hand-edited, unreadable annotation restarts the clocks rather than blocking failover.
    return {};
  }
}

export function reconcileApplicationFailover(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const b = ctx.reader.get(bindingType(ref), ref.namespace, ref.name);
  if (!b || isTerminating(b)) return emptyResult();
  const now = ctx.now.getTime();
  let next = withMetaAndSpec(b);
  const events: CoreEvent[] = [];
  /** Extension (spec README point 13): this pass finds failover exhausted, or lifts that. */
  let exhaustion: { state: 'exhausted'; message: string } | { state: 'resumed' } | undefined;
  /** Clusters this pass evicts the application from. */
  const evicted: string[] = [];
  let requeue: number | undefined;
  const candidate = (seconds: number) => {
    const s = Math.max(1, Math.ceil(seconds));
    requeue = requeue === undefined ? s : Math.min(requeue, s);
  };
  // A deadline compared strictly is looked at again a millisecond past it, not a whole second later.
  const wakeJustAfter = (dueMs: number) => {
    const s = (dueMs - now + 1) / 1000;
    requeue = requeue === undefined ? s : Math.min(requeue, s);
  };

  // Extension: eviction history entries expire after their block period (0 = never).
  const history = b.spec?.activeEvictionHistory ?? [];
  const liveHistory = history.filter((h) => {
    const block = h.blockPredecessorSeconds ?? DefaultBlockPredecessorSeconds;
    const at = parseTime(h.creationTimestamp);
    if (block === 0 || at === undefined) return true;
    const left = (at + block * 1000 - now) / 1000;
    if (left <= 0) return false;
    candidate(left);
    return true;
  });
  setHistory(next, liveHistory);

  const app = b.spec?.failover?.application;
  const items = b.status?.aggregatedStatus ?? [];
  const resource = b.spec?.resource;
  const eligible =
    !!app && items.length > 0 && !!resource && ctx.interpreter.hookEnabled(resource, 'InterpretHealth') && (isClusterBinding(b) || b.spec?.propagateDeps === true);
  const clocks = eligible ? readClocks(b) : {};
  const source = isClusterBinding(b) ? CRBApplicationFailoverControllerName : RBApplicationFailoverControllerName;

  if (eligible) {
    const toleration = app!.decisionConditions?.tolerationSeconds ?? DefaultTolerationSeconds;
    const delay = app!.preConditions?.delaySeconds ?? 0;
    const needSettled = app!.preConditions?.healthyState === 'Healthy';
    const evicting = new Set((b.spec?.gracefulEvictionTasks ?? []).map((t) => t.fromCluster));
    const scheduled = new Set((b.spec?.clusters ?? []).map((c) => c.name));
    const toEvict: string[] = [];
    // Extension (spec README point 13): an exhausted failover waits for a healthy cluster or the user.
    let held = false;
    if (findCondition(b.status?.conditions, BindingConditionFailoverExhausted)?.status === 'True') {
      const userActed = b.metadata.annotations?.[FailoverExhaustedAnnotation] !== exhaustionFingerprint(b);
      if (userActed || items.some((i) => i.health === 'Healthy')) {
        exhaustion = { state: 'resumed' };
        // The toleration counts afresh from what the user changed, not from before the exhaustion.
        if (userActed) for (const c of Object.keys(clocks)) delete clocks[c]!.unhealthySince;
      } else held = true;
    }
    for (const item of items) {
      const c = item.clusterName;
      const clock: Clock = { ...(clocks[c] ?? {}) };
      if (delay > 0 && item.applied && !clock.statusSince) clock.statusSince = clockStamp(ctx.now);
      if (item.health !== 'Unhealthy' || evicting.has(c) || !scheduled.has(c)) {
        delete clock.unhealthySince;
        clocks[c] = clock;
        continue;
      }
      // README point 1: a suspended cluster is never failed over; its clock restarts on resume.
      // Reported whenever an unhealthy cluster is looked at, as the taint manager does for a due eviction.
      if (isSuspendedFor(b, c)) {
        events.push({ involvedObject: refOf(b), type: 'Normal', reason: EventReasonFailoverPausedBySuspension, message: `Failover from cluster ${c} is paused while dispatching to it is suspended.`, source });
        delete clock.unhealthySince;
        clocks[c] = clock;
        continue;
      }
      // Extension preConditions: only judge a cluster that had time to start, and (healthyState) that was once healthy.
      const since = parseTime(clock.statusSince);
      if (delay > 0 && since !== undefined && now < since + delay * 1000) {
        candidate((since + delay * 1000 - now) / 1000);
        delete clock.unhealthySince;
        clocks[c] = clock;
        continue;
      }
      if (needSettled && !item.settled) {
        delete clock.unhealthySince;
        clocks[c] = clock;
        continue;
      }
      if (!clock.unhealthySince) clock.unhealthySince = clockStamp(ctx.now);
      clocks[c] = clock;
      const first = parseTime(clock.unhealthySince)!;
      // Strictly after, as Karmada's After(); 0 means at once (Karmada would wait for the next status event).
      const due = first + toleration * 1000;
      if (now > due || toleration === 0) toEvict.push(c);
      else wakeJustAfter(due);
    }
    for (const c of Object.keys(clocks)) if (!items.some((i) => i.clusterName === c)) delete clocks[c];

    if (held) toEvict.length = 0;

    if (toEvict.length) {
      const trial = withMetaAndSpec(next);
      const before = b.spec?.clusters ?? [];
      const purgeMode = normalizePurgeMode(app!.purgeMode) ?? PurgeModeGracefully;
      const tasks: EvictionTask[] = [...(trial.spec.gracefulEvictionTasks ?? [])];
      const hist: HistoryEntry[] = [...(trial.spec.activeEvictionHistory ?? [])];
      const blocks: number[] = [];
      for (const c of toEvict) {
        const replicas = before.find((x) => x.name === c)?.replicas ?? 0;
        if (!tasks.some((t) => t.fromCluster === c)) {
          // Fields in Karmada's order: the task is written as built.
          const task: EvictionTask = { fromCluster: c, purgeMode, ...(replicas > 0 ? { replicas } : {}), reason: EvictionReasonApplicationFailure, producer: source };
          if (purgeMode === PurgeModeGracefully) task.gracePeriodSeconds = app!.gracePeriodSeconds ?? DefaultGracePeriodSeconds;
          if (purgeMode === PurgeModeNever) task.suppressDeletion = true;
          const rules = app!.statePreservation?.rules ?? [];
          if (ctx.options.statefulFailoverInjection && rules.length) {
            try {
              task.preservedLabelState = preservedLabelState(rules, items.find((i) => i.clusterName === c), c);
            } catch (e) {
              // Nothing is written: the eviction is tried again once the status is there.
              return { ...emptyResult(), events, error: errorMessage(e) };
            }
            task.clustersBeforeFailover = before.map((x) => x.name);
          }
          tasks.push(task);
        }
        const entry: HistoryEntry = {
          clusterName: c,
          creationTimestamp: rfc3339(ctx.now),
          blockPredecessorSeconds: app!.blockPredecessorSeconds ?? DefaultBlockPredecessorSeconds,
          reason: EvictionReasonApplicationFailure,
        };
        const i = hist.findIndex((h) => h.clusterName === c);
        if (i >= 0) hist[i] = entry;
        else hist.push(entry);
        if (entry.blockPredecessorSeconds! > 0) blocks.push(entry.blockPredecessorSeconds!);
      }
      const remaining = before.filter((x) => !toEvict.includes(x.name));
      if (remaining.length) trial.spec.clusters = remaining;
      else delete trial.spec.clusters;
      trial.spec.gracefulEvictionTasks = tasks;
      setHistory(trial, hist);
      const nowhere = remaining.length ? undefined : noClusterLeft(ctx, b, trial, toEvict);
      if (nowhere !== undefined) {
        // Evicting would leave the workload nowhere: it stays where it is, and failover stops cycling.
        exhaustion = {
          state: 'exhausted',
          message: `The workload is unhealthy on ${toEvict.join(', ')} and no other cluster can take it (${nowhere}); keeping the current placement until a cluster reports it healthy or the template or policy changes.`,
        };
      } else {
        next = trial;
        evicted.push(...toEvict);
        for (const c of toEvict) delete clocks[c];
        for (const s of blocks) candidate(s);
      }
    }
  }
  // A policy that no longer asks for application failover leaves nothing exhausted behind.
  if (!app && findCondition(b.status?.conditions, BindingConditionFailoverExhausted)) exhaustion = { state: 'resumed' };
  setClocks(next, eligible ? clocks : {});
  const ann = { ...(next.metadata.annotations ?? {}) };
  if (exhaustion?.state === 'exhausted') ann[FailoverExhaustedAnnotation] = exhaustionFingerprint(b);
  else if (exhaustion?.state === 'resumed' || !eligible) delete ann[FailoverExhaustedAnnotation];
  next.metadata.annotations = ann;
  if (!Object.keys(ann).length) delete next.metadata.annotations;
  const status = exhaustionStatus(b, exhaustion, ctx.now);
  if (exhaustion?.state === 'exhausted') {
    for (const o of resource ? [refOf(b), resource] : [refOf(b)]) events.push({ involvedObject: o, type: 'Warning', reason: EventReasonFailoverExhausted, message: exhaustion.message, source });
  }
  const statusWrite = (o: KObject) => ({ writes: status ? [{ op: 'updateStatus' as const, object: { ...o, status } }] : [] });
  if (deepEqual(next, b)) return { ...emptyResult(), writes: statusWrite(b).writes, events, requeueAfterSeconds: requeue };
  // Karmada reports a failed binding update per evicted cluster, on the binding and the template.
  // One event per evicted cluster on the binding and its template, as Karmada reports an eviction.
  const evictionEvents = (type: CoreEvent['type'], reason: string, outcome: string): CoreEvent[] =>
    evicted.flatMap((c) => (resource ? [refOf(b), resource] : [refOf(b)]).map((o) => ({ involvedObject: o, type, reason, message: `Evict from cluster ${c} ${outcome}.`, source })));
  const failureEvents = evictionEvents('Warning', EventReasonEvictWorkloadFromClusterFailed, 'failed');
  // The eviction is reported when it is decided, once the update went through (as the taint manager does): the
  // graceful-eviction controller's report comes only when the task ends, after later events such as
  // FailoverExhausted.
  const succeeded = evictionEvents('Normal', EventReasonEvictWorkloadFromClusterSucceed, 'succeed');
  const then = status || succeeded.length ? (o: KObject) => ({ ...statusWrite(o), events: succeeded }) : undefined;
  return { writes: [{ op: 'update', object: next, ...(then ? { then } : {}), ...(failureEvents.length ? { failureEvents } : {}) }], events, requeueAfterSeconds: requeue };
}

/** The user's inputs failover judged: the template's version, the placement and the failover policy. */
function exhaustionFingerprint(b: Binding): string {
  const r = b.spec?.resource;
  return `${r?.resourceVersion ?? ''}/${fnv32a(JSON.stringify([b.spec?.placement ?? null, b.spec?.failover ?? null]))}`;
}

/**
 * Why the binding `b`, once evicted as `trial` (its changed copy) says, could be scheduled nowhere (the
 * scheduler's own answer), or undefined when it could. Asked only when no target would remain. The answer
 * speaks of the other clusters: asked again without the clusters being left (`leaving`), which the trial's
 * own tasks would count as "in the process of eviction" though no eviction of them has happened.
 */
function noClusterLeft(ctx: ReconcileContext, b: Binding, trial: KObject, leaving: readonly string[]): string | undefined {
  const clusters = ctx.reader.list(CLUSTER).filter((c) => !isTerminating(c));
  // The trial is a new generation for the scheduler: it must place it, not skip it as already observed.
  const probe: Binding = { ...b, metadata: { ...trial.metadata, generation: (trial.metadata.generation ?? 0) + 1 }, spec: trial.spec };
  const why = (among: typeof clusters): string | undefined => {
    let pass;
    try {
      pass = ctx.schedule(probe, among, ctx.now);
    } catch (e) {
      return errorMessage(e);
    }
    if (pass.action === 'Failed') return pass.error?.message ?? 'no cluster fits';
    if (pass.clusters === null || (pass.clusters !== undefined && pass.clusters.length === 0)) return 'the schedule would be empty';
    return undefined;
  };
  const nowhere = why(clusters);
  if (nowhere === undefined) return undefined;
  return why(clusters.filter((c) => !leaving.includes(c.metadata.name!))) ?? nowhere;
}

/** The binding status with the FailoverExhausted condition set or removed; undefined when unchanged. */
function exhaustionStatus(b: Binding, e: { state: 'exhausted'; message: string } | { state: 'resumed' } | undefined, now: Date): ResourceBindingStatus | undefined {
  if (!e) return undefined;
  const conds = b.status?.conditions ?? [];
  const next =
    e.state === 'exhausted'
      ? setCondition(conds, { type: BindingConditionFailoverExhausted, status: 'True', reason: ReasonNoClusterLeft, message: e.message }, now)
      : conds.filter((c) => c.type !== BindingConditionFailoverExhausted);
  if (deepEqual(next, conds)) return undefined;
  const status: ResourceBindingStatus = { ...(b.status ?? {}), conditions: next };
  if (!next.length) delete status.conditions;
  return status;
}

/** Gate StatefulFailoverInjection: each rule's alias label, valued from the evicted cluster's reflected status. */
function preservedLabelState(rules: Array<{ aliasLabelName: string; jsonPath: string }>, item: AggregatedStatusItem | undefined, cluster: string): Record<string, string> {
  if (!item?.status) throw new Error(`the application status has not yet been collected from Cluster(${cluster})`);
  const out: Record<string, string> = {};
  for (const r of rules) out[r.aliasLabelName] = evalJsonPath(r.jsonPath, item.status);
  return out;
}

function setHistory(b: KObject, h: HistoryEntry[]): void {
  if (h.length) b.spec.activeEvictionHistory = h;
  else delete b.spec.activeEvictionHistory;
}

function setClocks(b: KObject, clocks: Record<string, Clock>): void {
  const keep = Object.fromEntries(Object.entries(clocks).filter(([, c]) => c.statusSince || c.unhealthySince));
  const ann = { ...(b.metadata.annotations ?? {}) };
  if (Object.keys(keep).length) ann[FailoverClocksAnnotation] = JSON.stringify(keep, Object.keys(keep).sort().concat(['statusSince', 'unhealthySince']));
  else delete ann[FailoverClocksAnnotation];
  if (Object.keys(ann).length) b.metadata.annotations = ann;
  else delete b.metadata.annotations;
}
