/**
 * The action log: one info line per change the controller made to a member cluster or a binding
 * (propagated, removed, preserved, suspended, resumed, scheduled, evicted, failed over), naming the
 * template and the cluster. It is read off the writes the runner applies (RunnerOptions.onWrite) and
 * the object each one replaced, so the reconcilers stay as they are: pure, and free of logging.
 */
import { EvictionReasonApplicationFailure, getClusterName, ManagedResourceLabels, WorkNameAnnotation } from '../api/constants.js';
import { CRB, RB, WORK } from '../core/kinds.js';
import type { KObject, ObjectRef } from '../core/object.js';
import type { Write } from '../core/ports.js';
import type { Logger } from './log.js';

export type ActionKind = 'propagated' | 'removed' | 'preserved' | 'suspended' | 'resumed' | 'scheduled' | 'evicted' | 'failed over';

export interface Action {
  action: ActionKind;
  /** `Kind namespace/name` (or `Kind name`) of the resource template. */
  template: string;
  /** The member cluster the action concerns; several for a scheduling change. */
  cluster: string;
  controller: string;
  /** Why, where the write says (an eviction task's reason). */
  reason?: string;
  /** Labels carried over to the new cluster (a stateful failover's preservedLabelState). */
  preserved?: string[];
}

const describe = (r: { kind?: string; namespace?: string; name?: string }) => `${r.kind ?? '?'} ${r.namespace ? `${r.namespace}/` : ''}${r.name ?? ''}`;

const same = (o: KObject | undefined, t: { apiVersion: string; kind: string }) => o?.kind === t.kind && o.apiVersion === t.apiVersion;

/** A member object the execution controller manages carries Karmada's marks; a preserved one has them stripped. */
function managed(o: KObject): boolean {
  const labels = o.metadata.labels ?? {};
  return ManagedResourceLabels.some((l) => l in labels) || WorkNameAnnotation in (o.metadata.annotations ?? {});
}

function workTemplate(w: KObject): string {
  const m = (w.spec?.workload?.manifests ?? [])[0] as KObject | undefined;
  return m ? describe({ kind: m.kind, namespace: m.metadata?.namespace, name: m.metadata?.name }) : describe({ kind: w.kind, namespace: w.metadata.namespace, name: w.metadata.name });
}

function clusterOfWork(w: KObject): string | undefined {
  try {
    return getClusterName(w.metadata.namespace ?? '');
  } catch {
    return undefined;
  }
}

interface Task {
  fromCluster?: string;
  reason?: string;
  preservedLabelState?: Record<string, string>;
}

function bindingActions(controller: string, after: KObject, before: KObject | undefined): Action[] {
  const tpl = after.spec?.resource as ObjectRef | undefined;
  const template = tpl ? describe(tpl) : describe({ kind: after.kind, namespace: after.metadata.namespace, name: after.metadata.name });
  const out: Action[] = [];
  const had = new Set(((before?.spec?.gracefulEvictionTasks ?? []) as Task[]).map((t) => t.fromCluster));
  for (const t of (after.spec?.gracefulEvictionTasks ?? []) as Task[]) {
    if (!t.fromCluster || had.has(t.fromCluster)) continue;
    const a: Action = { action: t.reason === EvictionReasonApplicationFailure ? 'failed over' : 'evicted', template, cluster: t.fromCluster, controller };
    if (t.reason) a.reason = t.reason;
    if (t.preservedLabelState && Object.keys(t.preservedLabelState).length) a.preserved = Object.keys(t.preservedLabelState).sort();
    out.push(a);
  }
  const names = (o: KObject | undefined) => ((o?.spec?.clusters ?? []) as Array<{ name: string }>).map((c) => c.name).sort().join(',');
  const now = names(after);
  if (now !== names(before) && now !== '') out.push({ action: 'scheduled', template, cluster: now, controller });
  return out;
}

/** What one applied write did, as actions (none for bookkeeping: statuses, finalizers, Works being written). */
export function actionsOf(controller: string, w: Write, before: KObject | undefined): Action[] {
  if (w.cluster !== undefined) {
    // A delete of what was not there (already gone, ignored as NotFound) changed nothing.
    if (w.op === 'delete') return before ? [{ action: 'removed', template: describe(w.ref), cluster: w.cluster, controller }] : [];
    if (w.op === 'updateStatus') return [];
    const o = w.object;
    const template = describe({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name });
    return [{ action: managed(o) ? 'propagated' : 'preserved', template, cluster: w.cluster, controller }];
  }
  if (w.op === 'delete' || w.op === 'updateStatus') return [];
  const o = w.object;
  if (same(o, WORK)) {
    const was = before?.spec?.suspendDispatching === true;
    const is = o.spec?.suspendDispatching === true;
    const cluster = clusterOfWork(o);
    if (was === is || cluster === undefined || (w.op === 'create' && !is)) return [];
    return [{ action: is ? 'suspended' : 'resumed', template: workTemplate(o), cluster, controller }];
  }
  if (same(o, RB) || same(o, CRB)) return bindingActions(controller, o, before);
  return [];
}

/** RunnerOptions.onWrite for a logger: each action as one info line. */
export function actionLogger(log: Logger): (controller: string, w: Write, before: KObject | undefined) => void {
  return (controller, w, before) => {
    if (!log.enabled('info')) return;
    for (const a of actionsOf(controller, w, before)) {
      const { action, ...fields } = a;
      log.info(action, fields);
    }
  };
}
