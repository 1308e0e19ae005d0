/**
 * The NoExecute taint manager (spec: scheduler §5 "Taint manager", controllers §7): a binding scheduled
 * to a cluster with a NoExecute taint its placement does not tolerate is evicted from that cluster with
 * a graceful-eviction task (reason TaintUntolerated, producer TaintManager); a toleration with
 * tolerationSeconds delays that until taint.timeAdded + tolerationSeconds, one without tolerates forever.
 * The scheduler then places the evicted replicas elsewhere (ClusterEviction filter, sum mismatch).
 *
 * Which bindings are evicted follows the Failover gate and `--enable-no-execute-taint-eviction`
 * (noExecuteEvictionMode): by default (v1.2-style) only those whose policy enables cluster failover
 * (`spec.failover.cluster`); with the flag on, as current Karmada, every binding, its purge mode from
 * failover.cluster (empty: Gracefully) or else `--no-execute-taint-eviction-purge-mode`; with the gate or
 * the flag off, none. README point 1: while dispatching to a cluster is
 * suspended, the eviction waits; it happens when suspension is lifted, counted from the taint's
 * timeAdded as before (the taint, not the binding, carries this clock).
 */
import {
  AppliedPlacementAnnotation,
  DefaultNoExecuteTaintEvictionPurgeMode,
  EventReasonEvictWorkloadFromClusterSucceed,
  EventReasonFailoverPausedBySuspension,
  EvictionProducerTaintManager,
  EvictionReasonTaintUntolerated,
  PurgeModeGracefully,
  TaintEffectNoExecute,
} from '../api/constants.js';
import type { ResourceBindingSpec } from '../api/generated/types.js';
import { toleratesTaint } from '../scheduler/filters.js';
import { parsePlacement, type Toleration } from '../scheduler/types.js';
import { isSuspendedFor, normalizePurgeMode } from './binding.js';
import type { EvictionTask } from './eviction.js';
import { bindingType, CLUSTER, type Binding } from './kinds.js';
import { isTerminating, parseRefKey, parseTime, refOf, withMetaAndSpec } from './object.js';
import { emptyResult, type CoreEvent, type CoreOptions, type ReconcileContext, type ReconcileResult } from './ports.js';
import { describeTaint, taintsOf, type Taint } from './taint.js';

export const TAINT_MANAGER = 'taint-manager';

/** When a binding must leave a cluster: now, at a time, or never. */
export type EvictionVerdict =
  | { evict: 'now'; taint: Taint; tolerated: boolean }
  | { evict: 'at'; at: number }
  | { evict: 'never' };

/**
 * Karmada's GetMatchingTolerations + GetMinTolerationTime: each NoExecute taint is matched by the
 * first toleration that tolerates it; one untolerated taint means now; otherwise the earliest
 * timeAdded + tolerationSeconds among the tolerations that have seconds (<= 0 means now).
 */
export function evictionVerdict(taints: readonly Taint[], tolerations: readonly Toleration[], now: number): EvictionVerdict {
  let at: number | undefined;
  for (const taint of taints) {
    if (taint.effect !== TaintEffectNoExecute) continue;
    const used = tolerations.find((t) => toleratesTaint(t, taint));
    if (!used) return { evict: 'now', taint, tolerated: false };
    const seconds = used.tolerationSeconds;
    if (seconds === undefined || seconds === null) continue;
    if (seconds <= 0) return { evict: 'now', taint, tolerated: true };
    // The cluster controller stamps timeAdded on every NoExecute taint; until then the clock has not started.
    const added = parseTime(taint.timeAdded);
    if (added === undefined) continue;
    const due = added + seconds * 1000;
    // Karmada evicts once the trigger time is Before(now): strictly after it.
    if (due < now) return { evict: 'now', taint, tolerated: true };
    at = at === undefined ? due : Math.min(at, due);
  }
  return at === undefined ? { evict: 'never' } : { evict: 'at', at };
}

/** The placement the scheduler last applied (its annotation), else the binding's own. */
function tolerationsOf(b: Binding): readonly Toleration[] {
  const raw = b.metadata.annotations?.[AppliedPlacementAnnotation];
  // An unreadable annotation: the binding's placement is what the scheduler will apply next.
  const p = raw ? parsePlacement(raw) : undefined;
  if (p) return Array.isArray(p.clusterTolerations) ? p.clusterTolerations : [];
  const t = b.spec?.placement?.clusterTolerations;
  return Array.isArray(t) ? t : [];
}

/**
 * Which bindings a NoExecute taint evicts: `failover-policy` (karmada-lite's v1.2-style default: those
 * whose policy sets failover.cluster), `all` (`--enable-no-execute-taint-eviction`, current Karmada) or
 * `off` (the flag set to false, or the Failover gate off: Karmada then registers no taint manager).
 */
export type NoExecuteEvictionMode = 'failover-policy' | 'all' | 'off';

export function noExecuteEvictionMode(o: Pick<Partial<CoreOptions>, 'failover' | 'enableNoExecuteTaintEviction'>): NoExecuteEvictionMode {
  if (o.failover === false || o.enableNoExecuteTaintEviction === false) return 'off';
  return o.enableNoExecuteTaintEviction ? 'all' : 'failover-policy';
}

/** The binding leaves a cluster whose NoExecute taint it does not tolerate, under this mode. */
export function taintEvictionApplies(b: { spec?: ResourceBindingSpec }, mode: NoExecuteEvictionMode): boolean {
  return mode === 'all' || (mode === 'failover-policy' && !!b.spec?.failover?.cluster);
}

/** Karmada's getPurgeMode: the policy's cluster failover purge mode (empty: Gracefully), else the flag's. */
function purgeModeOf(b: Binding, o: Partial<CoreOptions>): string {
  const cluster = b.spec?.failover?.cluster;
  if (cluster) return normalizePurgeMode(cluster.purgeMode) || PurgeModeGracefully;
  return normalizePurgeMode(o.noExecuteTaintEvictionPurgeMode) || DefaultNoExecuteTaintEvictionPurgeMode;
}

export function reconcileTaintManager(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const b = ctx.reader.get(bindingType(ref), ref.namespace, ref.name);
  if (!b || isTerminating(b) || !taintEvictionApplies(b, noExecuteEvictionMode(ctx.options))) return emptyResult();
  const targets = b.spec?.clusters ?? [];
  if (!targets.length) return emptyResult();
  const now = ctx.now.getTime();
  const tolerations = tolerationsOf(b);
  const events: CoreEvent[] = [];
  const toEvict: Array<{ cluster: string; taint: Taint }> = [];
  let wakeAt: number | undefined;
  for (const t of targets) {
    const cluster = ctx.reader.get(CLUSTER, undefined, t.name);
    if (!cluster) continue;
    const taints = taintsOf(cluster);
    if (!taints.some((x) => x.effect === TaintEffectNoExecute)) continue;
    const v = evictionVerdict(taints, tolerations, now);
    if (v.evict === 'never') continue;
    if (v.evict === 'at') {
      wakeAt = wakeAt === undefined ? v.at : Math.min(wakeAt, v.at);
      continue;
    }
    if (isSuspendedFor(b, t.name)) {
      events.push({
        involvedObject: refOf(b),
        type: 'Normal',
        reason: EventReasonFailoverPausedBySuspension,
        message: `Eviction from cluster ${t.name} (taint ${describeTaint(v.taint)}) is paused while dispatching to it is suspended.`,
        source: EvictionProducerTaintManager,
      });
      continue;
    }
    toEvict.push({ cluster: t.name, taint: v.taint });
  }
  // A millisecond past the trigger time, where the strict comparison above evicts (not a whole second later).
  const requeueAfterSeconds = wakeAt === undefined ? undefined : (wakeAt - now + 1) / 1000;
  if (!toEvict.length) return { ...emptyResult(), events, requeueAfterSeconds };

  const next = withMetaAndSpec(b);
  const purgeMode = purgeModeOf(b, ctx.options);
  const tasks: EvictionTask[] = [...(b.spec.gracefulEvictionTasks ?? [])];
  const evicted = new Set(toEvict.map((e) => e.cluster));
  for (const { cluster } of toEvict) {
    if (tasks.some((t) => t.fromCluster === cluster)) continue;
    const replicas = targets.find((x) => x.name === cluster)?.replicas ?? 0;
    // Fields in Karmada's order: the task is written as built.
    tasks.push({ fromCluster: cluster, purgeMode, ...(replicas > 0 ? { replicas } : {}), reason: EvictionReasonTaintUntolerated, producer: EvictionProducerTaintManager });
  }
  const remaining = targets.filter((x) => !evicted.has(x.name));
  if (remaining.length) next.spec.clusters = remaining;
  else delete next.spec.clusters;
  next.spec.gracefulEvictionTasks = tasks;

  // Karmada reports success on the binding and its template once the update went through.
  const tpl = b.spec?.resource;
  const succeeded: CoreEvent[] = [];
  for (const { cluster } of toEvict) {
    for (const o of tpl ? [refOf(b), tpl] : [refOf(b)]) {
      succeeded.push({ involvedObject: o, type: 'Normal', reason: EventReasonEvictWorkloadFromClusterSucceed, message: `Evict from cluster ${cluster} succeed.`, source: EvictionProducerTaintManager });
    }
  }
  return {
    writes: [{ op: 'update', object: next, then: () => ({ writes: [], events: succeeded }) }],
    events,
    requeueAfterSeconds,
  };
}
