/**
 * Application failover (spec §6 and README points 1, 2, 4): a cluster where the workload stays
 * Unhealthy longer than tolerationSeconds is evicted: it leaves spec.clusters, a graceful-eviction task
 * records it, and (extension) spec.activeEvictionHistory keeps it out of scheduling for
 * blockPredecessorSeconds. The clocks are kept on the binding; suspended clusters are not judged.
 */
import {
  CRBApplicationFailoverControllerName,
  DefaultBlockPredecessorSeconds,
  DefaultGracePeriodSeconds,
  DefaultTolerationSeconds,
  EventReasonEvictWorkloadFromClusterFailed,
  EventReasonFailoverPausedBySuspension,
  EvictionReasonApplicationFailure,
  FailoverClocksAnnotation,
  PurgeModeGracefully,
  PurgeModeNever,
  RBApplicationFailoverControllerName,
} from '../api/constants.js';
import { isClusterBinding, isSuspendedFor, normalizePurgeMode } from './binding.js';
import { withMetaAndSpec, deepEqual, isTerminating, parseRefKey, parseTime, refOf, rfc3339, type KObject, type ObjectRef } from './object.js';
import { evalJsonPath } from './jsonpath.js';
import { emptyResult, type AggregatedStatusItem, type CoreEvent, type ReconcileContext, type ReconcileResult } from './ports.js';

export const FAILOVER = 'application-failover';

interface ApplicationFailover {
  decisionConditions?: { tolerationSeconds?: number };
  purgeMode?: string;
  gracePeriodSeconds?: number;
  preConditions?: { delaySeconds?: number; healthyState?: string };
  blockPredecessorSeconds?: number;
  statePreservation?: { rules?: Array<{ aliasLabelName: string; jsonPath: string }> };
}

interface Clock {
  statusSince?: string;
  unhealthySince?: string;
}

interface HistoryEntry {
  clusterName: string;
  creationTimestamp: string;
  blockPredecessorSeconds?: number;
  reason?: string;
}

export function readClocks(b: KObject): Record<string, Clock> {
  const raw = b.metadata.annotations?.[FailoverClocksAnnotation];
  if (!raw) return {};
  try {
    const v = JSON.parse(raw) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, Clock>) : {};
  } catch {
    // A hand-edited, unreadable annotation restarts the clocks rather than blocking failover.
    return {};
  }
}

export function reconcileApplicationFailover(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const b = ctx.reader.get(ref, ref.namespace, ref.name);
  if (!b || isTerminating(b)) return emptyResult();
  const now = ctx.now.getTime();
  const next = withMetaAndSpec(b);
  const events: CoreEvent[] = [];
  /** Clusters this pass evicts the application from. */
  const evicted: string[] = [];
  let requeue: number | undefined;
  const candidate = (seconds: number) => {
    const s = Math.max(1, Math.ceil(seconds));
    requeue = requeue === undefined ? s : Math.min(requeue, s);
  };

  // Extension: eviction history entries expire after their block period (0 = never).
  const history = (b.spec?.activeEvictionHistory ?? []) as HistoryEntry[];
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

  const app = b.spec?.failover?.application as ApplicationFailover | undefined;
  const items = (b.status?.aggregatedStatus ?? []) as AggregatedStatusItem[];
  const resource = b.spec?.resource as ObjectRef | undefined;
  const eligible =
    !!app && items.length > 0 && !!resource && ctx.interpreter.hookEnabled(resource, 'InterpretHealth') && (isClusterBinding(b) || b.spec?.propagateDeps === true);
  const clocks = eligible ? readClocks(b) : {};
  const source = isClusterBinding(b) ? CRBApplicationFailoverControllerName : RBApplicationFailoverControllerName;

  if (eligible) {
    const toleration = app!.decisionConditions?.tolerationSeconds ?? DefaultTolerationSeconds;
    const delay = app!.preConditions?.delaySeconds ?? 0;
    const needSettled = app!.preConditions?.healthyState === 'Healthy';
    const evicting = new Set(((b.spec?.gracefulEvictionTasks ?? []) as Array<{ fromCluster: string }>).map((t) => t.fromCluster));
    const scheduled = new Set(((b.spec?.clusters ?? []) as Array<{ name: string }>).map((c) => c.name));
    const toEvict: string[] = [];
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
      if (isSuspendedFor(b, c)) {
        if (clock.unhealthySince) {
          events.push({ involvedObject: refOf(b), type: 'Normal', reason: EventReasonFailoverPausedBySuspension, message: `Failover from cluster ${c} is paused while dispatching to it is suspended.`, source });
        }
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
      // 0 means at once (Karmada would wait for the next status event).
      if (now >= first + toleration * 1000) toEvict.push(c);
      else candidate((first + toleration * 1000 - now) / 1000);
    }
    for (const c of Object.keys(clocks)) if (!items.some((i) => i.clusterName === c)) delete clocks[c];

    if (toEvict.length) {
      evicted.push(...toEvict);
      const before = ((b.spec?.clusters ?? []) as Array<{ name: string; replicas?: number }>);
      const purgeMode = normalizePurgeMode(app!.purgeMode) ?? PurgeModeGracefully;
      const tasks = [...((next.spec.gracefulEvictionTasks ?? []) as Array<Record<string, unknown>>)];
      const hist = [...((next.spec.activeEvictionHistory ?? []) as HistoryEntry[])];
      for (const c of toEvict) {
        const replicas = before.find((x) => x.name === c)?.replicas ?? 0;
        if (!tasks.some((t) => t.fromCluster === c)) {
          const task: Record<string, unknown> = { fromCluster: c, purgeMode };
          if (replicas > 0) task.replicas = replicas;
          task.reason = EvictionReasonApplicationFailure;
          task.producer = source;
          if (purgeMode === PurgeModeGracefully) task.gracePeriodSeconds = app!.gracePeriodSeconds ?? DefaultGracePeriodSeconds;
          if (purgeMode === PurgeModeNever) task.suppressDeletion = true;
          const rules = app!.statePreservation?.rules ?? [];
          if (ctx.options.statefulFailoverInjection && rules.length) {
            try {
              task.preservedLabelState = preservedLabelState(rules, items.find((i) => i.clusterName === c), c);
            } catch (e) {
              // Nothing is written: the eviction is tried again once the status is there.
              return { ...emptyResult(), events, error: (e as Error).message };
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
        delete clocks[c];
        if (entry.blockPredecessorSeconds! > 0) candidate(entry.blockPredecessorSeconds!);
      }
      const remaining = before.filter((x) => !toEvict.includes(x.name));
      if (remaining.length) next.spec.clusters = remaining;
      else delete next.spec.clusters;
      next.spec.gracefulEvictionTasks = tasks;
      setHistory(next, hist);
    }
  }
  setClocks(next, eligible ? clocks : {});
  if (deepEqual(next, b)) return { ...emptyResult(), events, requeueAfterSeconds: requeue };
  // Karmada reports a failed binding update per evicted cluster, on the binding and the template.
  const failureEvents: CoreEvent[] = evicted.flatMap((c) =>
    (resource ? [refOf(b), resource] : [refOf(b)]).map((o) => ({ involvedObject: o, type: 'Warning' as const, reason: EventReasonEvictWorkloadFromClusterFailed, message: `Evict from cluster ${c} failed.`, source })),
  );
  return { writes: [{ op: 'update', object: next, ...(failureEvents.length ? { failureEvents } : {}) }], events, requeueAfterSeconds: requeue };
}

/** Gate StatefulFailoverInjection: each rule's alias label, valued from the evicted cluster's reflected status. */
function preservedLabelState(rules: Array<{ aliasLabelName: string; jsonPath: string }>, item: AggregatedStatusItem | undefined, cluster: string): Record<string, string> {
  if (!item?.status) throw new Error(`the application status has not yet been collected from Cluster(${cluster})`);
  const out: Record<string, string> = {};
  for (const r of rules) out[r.aliasLabelName] = evalJsonPath(r.jsonPath, item.status);
  return out;
}

/**
 * A clock reading kept to the millisecond (like a MicroTime): cut to the second, as metav1.Time is, a
 * persisted clock would let failover fire up to a second before tolerationSeconds has passed.
 */
function clockStamp(d: Date): string {
  const iso = d.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
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
