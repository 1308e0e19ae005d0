/**
 * Status flow (spec §5): the work-status controller reflects each member object's status and health
 * into its Work; the binding-status controller aggregates Works into the binding's aggregatedStatus
 * with the FullyApplied condition, and writes AggregateStatus back onto the template.
 */
import {
  BindingFullyApplied,
  ClusterResourceBindingStatusControllerName,
  EventReasonAggregateStatusFailed,
  EventReasonAggregateStatusSucceed,
  FullyAppliedFailedMessage,
  FullyAppliedFailedReason,
  FullyAppliedSuccessMessage,
  FullyAppliedSuccessReason,
  fullyAppliedHeldMessage,
  getClusterName,
  ResourceBindingStatusControllerName,
  WorkApplied,
  WorkSuspendDispatchingReason,
} from '../api/constants.js';
import { clusterOfWork, expectedClusters, isClusterBinding, worksOf } from './binding.js';
import { isClusterReady, manifestsOf } from './execution.js';
import { bindingType, CLUSTER, WORK, type Binding } from './kinds.js';
import { errorMessage } from '../json/error.js';
import type { ResourceBindingStatus } from '../api/generated/types.js';
import { deepEqual } from '../json/value.js';
import { findCondition, groupOf, isTerminating, nsName, parseRefKey, refOf, setCondition } from './object.js';
import { reflectManifests } from './manifest-status.js';
import { rolloutRender } from './rollout.js';
import { emptyResult, type AggregatedStatusItem, type CoreEvent, type ReconcileContext, type ReconcileResult } from './ports.js';

export const WORK_STATUS = 'work-status';
export const BINDING_STATUS = 'binding-status';

export function reconcileWorkStatus(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const w = ctx.reader.get(WORK, ref.namespace, ref.name);
  if (!w || isTerminating(w)) return emptyResult();
  if (findCondition(w.status?.conditions, WorkApplied)?.status !== 'True') return emptyResult();
  let clusterName: string;
  try {
    clusterName = getClusterName(w.metadata.namespace ?? '');
  } catch (e) {
    return { ...emptyResult(), error: errorMessage(e) };
  }
  if (!isClusterReady(ctx.reader.get(CLUSTER, undefined, clusterName))) return { ...emptyResult(), error: `cluster(${clusterName}) not ready` };
  const manifests = manifestsOf(w);
  const { statuses, events, error } = reflectManifests(ctx, w, manifests, (i) => {
    const m = manifests[i]!;
    return ctx.reader.get(m, m.metadata?.namespace, m.metadata?.name ?? '', clusterName);
  });
  if (error) return { writes: [], events, error };
  if (deepEqual(statuses, w.status?.manifestStatuses ?? [])) return { writes: [], events };
  return { writes: [{ op: 'updateStatus', object: { ...w, status: { ...(w.status ?? {}), manifestStatuses: statuses } } }], events };
}

/** One aggregatedStatus item per (non-terminating) Work of the binding, sorted by cluster. */
export function aggregatedItems(ctx: ReconcileContext, b: Binding): AggregatedStatusItem[] {
  const tpl = b.spec.resource;
  const previous = new Map((b.status?.aggregatedStatus ?? []).map((i) => [i.clusterName, i]));
  const items: AggregatedStatusItem[] = [];
  for (const w of worksOf(ctx, b)) {
    if (isTerminating(w)) continue;
    let clusterName: string;
    try {
      clusterName = clusterOfWork(w);
    } catch {
      continue;
    }
    const applied = findCondition(w.status?.conditions, WorkApplied);
    const prev = previous.get(clusterName);
    let item: AggregatedStatusItem;
    if (applied?.status !== 'True') {
      item = { clusterName, applied: false, appliedMessage: applied?.message ?? '', health: 'Unknown' };
    } else {
      item = { clusterName, applied: true, health: 'Unknown' };
      for (const ms of w.status?.manifestStatuses ?? []) {
        const id = ms.identifier;
        if (id.kind === tpl.kind && id.name === tpl.name && (id.namespace ?? '') === (tpl.namespace ?? '') && id.group === groupOf(tpl.apiVersion)) {
          if (ms.status !== undefined) item.status = ms.status;
          item.health = ms.health ?? 'Unknown';
          if (ms.healthMessage) item.healthMessage = ms.healthMessage;
        }
      }
    }
    // karmada-lite extension: remember that the application was once healthy there (failover healthyState).
    if (prev?.settled || item.health === 'Healthy') item.settled = true;
    items.push(item);
  }
  return items.sort((a, c) => (a.clusterName < c.clusterName ? -1 : a.clusterName > c.clusterName ? 1 : 0));
}

/**
 * The expected clusters a staged rollout holds (a suspended Work, or none yet, until their stage opens), when
 * they are all the binding waits for: every other expected cluster is applied. Otherwise undefined, and
 * FullyApplied reads as Karmada's failure. A Work the user suspended is not the rollout's and stays a failure,
 * as in Karmada.
 */
function heldForStage(ctx: ReconcileContext, b: Binding, items: readonly AggregatedStatusItem[], expected: ReadonlySet<string>): string[] | undefined {
  const r = b.spec?.resource;
  const tpl = r && ctx.reader.get(r, r.namespace, r.name);
  if (!tpl) return undefined;
  const render = rolloutRender(ctx.reader, b, tpl);
  if (render === undefined) return undefined;
  const applied = new Set(items.filter((i) => i.applied).map((i) => i.clusterName));
  const waiting = [...expected].filter((c) => !applied.has(c)).sort();
  if (!waiting.length || items.some((i) => !expected.has(i.clusterName))) return undefined;
  return render === 'pending' || waiting.every((c) => render(c).hold) ? waiting : undefined;
}

export function reconcileBindingStatus(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const b = ctx.reader.get(bindingType(ref), ref.namespace, ref.name);
  if (!b || isTerminating(b)) return emptyResult();
  const source = isClusterBinding(b) ? ClusterResourceBindingStatusControllerName : ResourceBindingStatusControllerName;
  const events: CoreEvent[] = [];
  const items = aggregatedItems(ctx, b);
  const expected = expectedClusters(b);
  const full = expected.size > 0 && items.length === expected.size && items.every((i) => i.applied && expected.has(i.clusterName));
  const held = full ? undefined : heldForStage(ctx, b, items, expected);
  const conditions = setCondition(
    b.status?.conditions,
    full
      ? { type: BindingFullyApplied, status: 'True', reason: FullyAppliedSuccessReason, message: FullyAppliedSuccessMessage }
      : held
        ? { type: BindingFullyApplied, status: 'False', reason: WorkSuspendDispatchingReason, message: fullyAppliedHeldMessage(held) }
        : { type: BindingFullyApplied, status: 'False', reason: FullyAppliedFailedReason, message: FullyAppliedFailedMessage },
    ctx.now,
  );
  const status: ResourceBindingStatus = { ...(b.status ?? {}), aggregatedStatus: items, conditions };
  if (!items.length) delete status.aggregatedStatus;
  const writes: ReconcileResult['writes'] = [];
  const bref = refOf(b);
  const what = isClusterBinding(b) ? `ClusterResourceBinding(${b.metadata.name})` : `ResourceBinding(${nsName(b.metadata.namespace, b.metadata.name!)})`;
  if (!deepEqual(status, b.status ?? {})) {
    writes.push({ op: 'updateStatus', object: { ...b, status } });
    events.push({ involvedObject: bref, type: 'Normal', reason: EventReasonAggregateStatusSucceed, message: `Update ${what} with AggregatedStatus successfully.`, source });
  }

  // AggregateStatus onto the template, when the kind has the hook.
  const r = b.spec?.resource;
  const tpl = r && ctx.reader.get(r, r.namespace, r.name);
  if (tpl && !isTerminating(tpl) && ctx.interpreter.hookEnabled(tpl, 'AggregateStatus')) {
    try {
      const next = ctx.interpreter.aggregateStatus(tpl, items);
      if (!deepEqual(next.status, tpl.status)) {
        writes.push({ op: 'updateStatus', object: { ...tpl, status: next.status } });
        events.push({ involvedObject: refOf(tpl), type: 'Normal', reason: EventReasonAggregateStatusSucceed, message: 'Update Resource with AggregatedStatus successfully.', source });
      }
    } catch (e) {
      events.push({ involvedObject: refOf(tpl), type: 'Warning', reason: EventReasonAggregateStatusFailed, message: errorMessage(e), source });
      return { writes, events, error: errorMessage(e) };
    }
  }
  return { writes, events };
}
