/**
 * Staged rollout (karmada-lite extension after Karmada proposal #7891, "staged propagation"; issue #21):
 * a new revision of a template whose policy has `rolloutStrategy.type: Staged` reaches its clusters one
 * stage at a time, each stage opening once the previous one passed its gate (health, named conditions,
 * a bake time), with a per-stage timeout and a failure action.
 *
 * This reconciler is the one decision-maker: it writes the binding's `status.rollout` (every cluster's
 * revision, every stage's times) and the `Rollout` condition, and the binding controller renders exactly
 * what that status says (`rolloutRender`). Nothing is kept in memory: a restarted controller reads the
 * status back. Clusters not let through yet keep the previous manifest (their Works are rendered from
 * `status.rollout.stableTemplate`), so the data path is the usual Work manifest plus the user's own
 * `suspendDispatching`; only a cluster with nothing to keep (a template's first revision) gets a
 * suspended Work.
 */
import {
  BindingRollout,
  ClusterConditionReady,
  ClusterResourceBindingAnnotation,
  ClusterPropagationPolicyPermanentIDLabel,
  EventReasonRolloutAborted,
  EventReasonRolloutCompleted,
  EventReasonRolloutPaused,
  EventReasonRolloutPromoted,
  EventReasonRolloutRestarted,
  EventReasonRolloutResumed,
  EventReasonRolloutRolledBack,
  EventReasonRolloutStageFailed,
  EventReasonRolloutStageOpened,
  EventReasonRolloutStagePassed,
  EventReasonRolloutStarted,
  fnv32a,
  PropagationPolicyPermanentIDLabel,
  ResourceBindingNameAnnotation,
  ResourceBindingNamespaceAnnotation,
  ResourceTemplateGenerationAnnotation,
  RolloutAbortAnnotation,
  RolloutControllerName,
  RolloutPauseAnnotation,
  RolloutPromoteAnnotation,
  RolloutReasonAborted,
  RolloutReasonCompleted,
  RolloutReasonPaused,
  RolloutReasonProgressing,
  RolloutReasonRolledBack,
  RolloutReasonStageFailed,
  RolloutTypeStaged,
  WorkApplied,
} from '../api/constants.js';
import type { ResourceBindingStatus, RolloutGate, RolloutStatus, RolloutStrategy, Work } from '../api/generated/types.js';
import { deepClone, deepEqual, isObject } from '../json/value.js';
import { clusterOfWork, isSuspendedFor, worksOf } from './binding.js';
import { cppClaimOf, policyId, ppClaimOf } from './claim.js';
import { manifestsOf } from './execution.js';
import { bindingType, CLUSTER, CPP, CRB, PP, RB, type Binding, type Policy } from './kinds.js';
import { clockStamp, findCondition, isTerminating, parseRefKey, parseTime, refKey, refOf, rfc3339, setCondition, withMeta, type KObject } from './object.js';
import { emptyResult, isBindingChange, isChangeOf, isPolicyChange, type AggregatedStatusItem, type CoreEvent, type ObjectChange, type ObjectReader, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';
import { removeIrrelevantFields } from './prune.js';
import { matchLabelSelector } from './selectors.js';

export const ROLLOUT = 'rollout';

export type StagedRollout = NonNullable<RolloutStrategy['staged']>;
type StageStatus = RolloutStatus['stages'][number];
type ClusterStatus = RolloutStatus['clusters'][number];
type Phase = NonNullable<RolloutStatus['phase']>;
type FailureAction = NonNullable<NonNullable<StagedRollout['onFailure']>['action']>;

/** A stage's gate with the defaults applied. */
export interface Gate {
  requireHealthy: boolean;
  requiredConditions: readonly string[];
  minHealthySeconds: number;
  timeoutSeconds?: number;
}

/** A stage resolved against the binding's scheduled clusters. */
export interface Stage {
  name: string;
  clusters: string[];
  gate: Gate;
}

// ---------------------------------------------------------------------------------------------
// What the policy asks for

function claimingPolicy(reader: ObjectReader, b: Binding): Policy | undefined {
  const pp = ppClaimOf(b);
  if (pp) {
    const p = reader.get(PP, pp.namespace, pp.name);
    return p && policyId(p) === pp.id ? p : undefined;
  }
  const cpp = cppClaimOf(b);
  if (!cpp) return undefined;
  const p = reader.get(CPP, undefined, cpp.name);
  return p && policyId(p) === cpp.id ? p : undefined;
}

/** The staged rollout of the policy that claims the binding; undefined for AllAtOnce (or no policy). */
export function stagedRolloutOf(reader: ObjectReader, b: Binding): StagedRollout | undefined {
  const rs = claimingPolicy(reader, b)?.spec?.rolloutStrategy;
  if (rs?.type !== RolloutTypeStaged) return undefined;
  return rs.staged ?? {};
}

export function gateOf(g: RolloutGate | undefined): Gate {
  const gate: Gate = { requireHealthy: g?.requireHealthy !== false, requiredConditions: g?.requiredConditions ?? [], minHealthySeconds: Math.max(0, g?.minHealthySeconds ?? 0) };
  if (typeof g?.timeoutSeconds === 'number' && g.timeoutSeconds > 0) gate.timeoutSeconds = g.timeoutSeconds;
  return gate;
}

/**
 * The stages over the binding's scheduled clusters (spec.clusters, in its order). A cluster belongs to the
 * first stage that names or selects it, else to the last one. Without stages, one stage per cluster, named
 * after it: a stage keeps its identity when failover or rescheduling changes the cluster list.
 */
export function resolveStages(staged: StagedRollout, b: Binding, reader: ObjectReader): Stage[] {
  const scheduled = (b.spec?.clusters ?? []).map((c) => c.name);
  const specs = staged.stages ?? [];
  if (!specs.length) return scheduled.map((c) => ({ name: c, clusters: [c], gate: gateOf(staged.gate) }));
  const stages: Stage[] = specs.map((s, i) => ({ name: s.name || `stage-${i}`, clusters: [], gate: gateOf(s.gate ?? staged.gate) }));
  for (const c of scheduled) {
    let k = specs.findIndex((s) => s.clusterNames?.includes(c));
    const labels = reader.get(CLUSTER, undefined, c)?.metadata.labels;
    const bySelector = specs.findIndex((s) => !!s.labelSelector && matchLabelSelector(labels, s.labelSelector));
    if (bySelector >= 0 && (k < 0 || bySelector < k)) k = bySelector;
    stages[k < 0 ? stages.length - 1 : k]!.clusters.push(c);
  }
  return stages;
}

/**
 * A template's revision: its generation, which moves with every spec change; a kind without one gets a
 * hash of everything but metadata and status.
 */
export function revisionOf(tpl: KObject): string {
  const gen = tpl.metadata.generation;
  if (typeof gen === 'number' && gen > 0) return String(gen);
  const { metadata: _m, status: _s, ...body } = tpl;
  return `h${fnv32a(JSON.stringify(sortKeys(body))).toString(16)}`;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
}

/** What the status keeps of a template: what a Work would get, before overrides. */
function snapshot(tpl: KObject): Record<string, unknown> {
  return removeIrrelevantFields(tpl);
}

function templateOf(v: Record<string, unknown> | undefined): KObject | undefined {
  if (!v) return undefined;
  const { apiVersion, kind, metadata } = v;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !isObject(metadata)) return undefined;
  return { ...v, apiVersion, kind, metadata: { ...metadata } };
}

// ---------------------------------------------------------------------------------------------
// The binding controller's view

/** Which template a cluster's Work is rendered from, and whether the rollout holds its dispatching. */
export interface RolloutRenderChoice {
  template: KObject;
  hold: boolean;
}

export type RolloutRender = (cluster: string) => RolloutRenderChoice;

/**
 * How the binding controller renders each cluster under a staged rollout: `undefined` when the policy
 * has none (the usual render), `pending` until the rollout controller first wrote the binding's status
 * (nothing is rendered, so that no cluster gets a revision before its stage opens), else a choice per
 * cluster read from `status.rollout`: the current template for a cluster given the revision, the stable
 * one for the others (a cluster status does not list yet included), and a held (suspended) Work when
 * there is no stable revision to keep.
 */
export function rolloutRender(reader: ObjectReader, b: Binding, tpl: KObject): RolloutRender | 'pending' | undefined {
  if (!stagedRolloutOf(reader, b)) return undefined;
  const st = b.status?.rollout;
  if (!st) return 'pending';
  const rev = revisionOf(tpl);
  const snap = templateOf(st.stableTemplate);
  let stable: KObject | undefined;
  if (snap && st.stableRevision) {
    const gen = Number(st.stableRevision);
    stable = { ...snap, metadata: { ...snap.metadata, uid: tpl.metadata.uid } };
    if (Number.isInteger(gen) && gen > 0) stable.metadata.generation = gen;
  }
  const entries = new Map(st.clusters.map((c) => [c.name, c]));
  return (cluster) => {
    const e = entries.get(cluster);
    const current = st.revision === rev && (e ? e.revision === rev : st.phase === 'Completed');
    if (current) return { template: tpl, hold: false };
    return stable ? { template: stable, hold: false } : { template: tpl, hold: true };
  };
}

/** The part of a binding's rollout status the binding controller renders from: when it changes, Works are rendered again. */
export function rolloutRenderView(b: Binding | undefined): unknown {
  const st = b?.status?.rollout;
  if (!st) return undefined;
  return [st.revision, st.phase, st.stableRevision, st.clusters.map((c) => [c.name, c.revision])];
}

// ---------------------------------------------------------------------------------------------
// The gate of one cluster

interface GateInput {
  reader: ObjectReader;
  b: Binding;
  rev: string;
  gate: Gate;
  works: ReadonlyMap<string, Work>;
  items: ReadonlyMap<string, AggregatedStatusItem>;
  now: Date;
  /** The cluster's stage is the one being gated and the rollout is not paused: timeouts apply. */
  gating: boolean;
}

/** Why a cluster of an opened stage does not satisfy the gate yet, or undefined when it does. */
function unmet(name: string, inp: GateInput): { reason: string; message: string } | undefined {
  const { b, rev, gate } = inp;
  if (isSuspendedFor(b, name)) return { reason: 'Suspended', message: 'dispatching to this cluster is suspended (spec.suspension)' };
  // A member that does not answer keeps its last collected status, which says nothing about now: passing a
  // gate (or a bake time) on it would open the next stage on a canary nobody can see. A cluster never probed
  // (no Ready condition, as in `plan`) is judged by its Work and status alone.
  const ready = findCondition(inp.reader.get(CLUSTER, undefined, name)?.status?.conditions, ClusterConditionReady);
  if (ready && ready.status !== 'True') return { reason: 'ClusterNotReady', message: `cluster ${name} is not Ready (${ready.reason ?? ready.status}): its workload's status cannot be observed` };
  const w = inp.works.get(name);
  const m = w && manifestsOf(w)[0];
  const stamped = m?.metadata?.annotations?.[ResourceTemplateGenerationAnnotation];
  if (!w || !m || w.spec?.suspendDispatching === true || (/^\d+$/.test(rev) && stamped !== rev)) {
    return { reason: 'NotApplied', message: `waiting for the Work to carry revision ${rev}` };
  }
  const applied = findCondition(w.status?.conditions, WorkApplied);
  if (applied?.status !== 'True') return { reason: 'NotApplied', message: applied?.message || `revision ${rev} is not applied yet` };
  const member = inp.reader.get(m, m.metadata?.namespace, m.metadata?.name ?? '', name);
  const onMember = member?.metadata.annotations?.[ResourceTemplateGenerationAnnotation];
  if (member && /^\d+$/.test(rev) && onMember !== rev) return { reason: 'NotApplied', message: `the member object is at revision ${onMember ?? '(none)'}, not ${rev} yet` };
  const item = inp.items.get(name);
  if (!item?.applied) return { reason: 'NotApplied', message: `no applied status collected for revision ${rev} yet` };
  // Built-in workloads reflect the template generation the member object was rendered from: a status of an
  // older revision says nothing about this one.
  const seen = item.status?.resourceTemplateGeneration;
  if (typeof seen === 'number' && /^\d+$/.test(rev) && seen !== Number(rev)) {
    return { reason: 'StaleStatus', message: `the collected status is of revision ${seen}, not ${rev}` };
  }
  if (gate.requireHealthy && item.health !== 'Healthy') {
    const health = item.health ?? 'Unknown';
    return { reason: health === 'Unknown' ? 'HealthUnknown' : 'Unhealthy', message: item.healthMessage || `health is ${health}` };
  }
  if (gate.requiredConditions.length) {
    // The member object's own conditions: the built-in workloads' reflected status leaves them out.
    const conds: unknown = member?.status?.conditions ?? item.status?.conditions;
    const generation = member?.metadata.generation;
    for (const type of gate.requiredConditions) {
      const c = Array.isArray(conds) ? conds.find((x) => isObject(x) && x.type === type) : undefined;
      const status = isObject(c) && typeof c.status === 'string' ? c.status : undefined;
      if (status !== 'True') return { reason: 'ConditionNotTrue', message: `condition ${type} is ${status ?? 'missing'}` };
      // A condition written for an older generation of the member object says nothing about this revision.
      if (isObject(c) && typeof c.observedGeneration === 'number' && typeof generation === 'number' && c.observedGeneration < generation) {
        return { reason: 'ConditionNotTrue', message: `condition ${type} was observed at generation ${c.observedGeneration}, the object is at ${generation}` };
      }
    }
  }
  return undefined;
}

/** The status of a cluster running the revision: Healthy since when, Progressing and why, or Failed on timeout. */
function evaluateCluster(name: string, stage: number, prev: ClusterStatus | undefined, inp: GateInput): ClusterStatus {
  const same = prev?.revision === inp.rev && prev.state !== 'Waiting';
  if (same && prev.state === 'Failed' && prev.reason === 'GateTimeout') return { ...prev, stage };
  const out: ClusterStatus = { name, stage, state: 'Progressing', revision: inp.rev };
  const why = unmet(name, inp);
  if (why?.reason === 'Suspended') return { ...out, ...why };
  const now = clockStamp(inp.now);
  out.progressingSince = (same && prev.reason !== 'Suspended' && prev.progressingSince) || now;
  if (!why) return { ...out, state: 'Healthy', healthySince: (same && prev.state === 'Healthy' && prev.healthySince) || now };
  const timeout = inp.gate.timeoutSeconds;
  const since = parseTime(out.progressingSince) ?? inp.now.getTime();
  if (inp.gating && timeout !== undefined && inp.now.getTime() - since >= timeout * 1000) {
    return { ...out, state: 'Failed', reason: 'GateTimeout', message: `not through the gate within ${timeout}s: ${why.message}` };
  }
  return { ...out, ...why };
}

// ---------------------------------------------------------------------------------------------
// The reconciler

interface Step {
  status: RolloutStatus;
  events: Array<{ type: 'Normal' | 'Warning'; reason: string; message: string }>;
  /** One-shot annotations acted on, to be removed from the binding. */
  consumed: string[];
  requeueAfterSeconds?: number;
}

/** The rollout status a fresh revision starts from. */
function startFrom(prev: RolloutStatus | undefined, rev: string, now: string, adopt: KObject | undefined): RolloutStatus {
  if (adopt) return { revision: rev, phase: 'Completed', currentStage: 0, startedAt: now, stages: [], clusters: [], stableRevision: rev, stableTemplate: snapshot(adopt) };
  const st: RolloutStatus = { revision: rev, phase: 'Progressing', currentStage: 0, startedAt: now, stages: [], clusters: [] };
  const stableRevision = prev?.phase === 'Completed' ? prev.revision : prev?.stableRevision;
  if (prev && stableRevision && prev.stableTemplate) {
    st.stableRevision = stableRevision;
    st.stableTemplate = prev.stableTemplate;
  }
  return st;
}

const stageLabel = (i: number, s: Stage) => (s.name === `stage-${i}` ? `stage ${i}` : `stage ${i} (${s.name})`);

/**
 * One step of the rollout state machine, pure: from the previous status, the resolved stages, the Works
 * and collected status of the binding and the clock, the next status, its events and when to look again.
 */
export function stepRollout(args: {
  reader: ObjectReader;
  b: Binding;
  tpl: KObject;
  staged: StagedRollout;
  stages: readonly Stage[];
  works: readonly Work[];
  now: Date;
}): Step {
  const { b, tpl, staged, stages, now } = args;
  const nowS = rfc3339(now);
  const rev = revisionOf(tpl);
  const events: Step['events'] = [];
  const consumed: string[] = [];
  const action: FailureAction = staged.onFailure?.action ?? 'Pause';
  const prev = b.status?.rollout;

  let st: RolloutStatus;
  if (!prev) {
    // A policy that gains a rollout over clusters already served starts nothing: what they run is the stable revision.
    st = startFrom(undefined, rev, nowS, args.works.length ? tpl : undefined);
    if (st.phase !== 'Completed') events.push({ type: 'Normal', reason: EventReasonRolloutStarted, message: `Rollout of revision ${rev} started over ${stages.length} stage(s).` });
  } else if (prev.revision !== rev) {
    st = startFrom(prev, rev, nowS, undefined);
    const restart = prev.phase === 'Progressing' || prev.phase === 'Paused' || prev.phase === 'StageFailed';
    events.push(
      restart
        ? { type: 'Normal', reason: EventReasonRolloutRestarted, message: `Revision ${rev} replaces revision ${prev.revision} mid-rollout: the rollout starts again from the first stage.` }
        : { type: 'Normal', reason: EventReasonRolloutStarted, message: `Rollout of revision ${rev} started over ${stages.length} stage(s).` },
    );
  } else st = deepClone(prev);

  const ann = b.metadata.annotations ?? {};
  const wasPaused = st.phase === 'Paused';
  const paused = ann[RolloutPauseAnnotation] === 'true' || b.spec?.suspension?.dispatching === true;
  let phase: Phase = st.phase === 'Paused' ? 'Progressing' : (st.phase ?? 'Progressing');

  const prevStages = new Map(st.stages.map((s) => [s.name ?? `stage-${s.index}`, s]));
  const stageStatus: StageStatus[] = stages.map((s, index) => {
    const p = prevStages.get(s.name);
    const out: StageStatus = { index, name: s.name, clusters: s.clusters };
    if (p?.openedAt) out.openedAt = p.openedAt;
    if (p?.passedAt) out.passedAt = p.passedAt;
    if (p?.failedAt) out.failedAt = p.failedAt;
    if (p?.reason) out.reason = p.reason;
    return out;
  });
  const prevClusters = new Map(st.clusters.map((c) => [c.name, c]));
  const works = new Map<string, Work>();
  for (const w of args.works) {
    if (isTerminating(w)) continue;
    try {
      works.set(clusterOfWork(w), w);
    } catch {
      // A Work outside an execution namespace belongs to no cluster of this rollout.
    }
  }
  const items = new Map((b.status?.aggregatedStatus ?? []).map((i) => [i.clusterName, i]));
  const stable = st.stableRevision;

  if (ann[RolloutAbortAnnotation] === 'true') {
    consumed.push(RolloutAbortAnnotation);
    if (phase !== 'Completed' && phase !== 'Aborted') {
      phase = 'Aborted';
      events.push({ type: 'Warning', reason: EventReasonRolloutAborted, message: stable ? `Rollout of revision ${rev} aborted: every cluster gets revision ${stable} back.` : `Rollout of revision ${rev} aborted: there is no earlier revision, so dispatching stops on every cluster.` });
    }
  }

  let i = stageStatus.findIndex((s) => !s.passedAt);
  if (i < 0) i = stageStatus.length;
  if (phase === 'Completed') i = stageStatus.length;

  if (ann[RolloutPromoteAnnotation] === 'true') {
    consumed.push(RolloutPromoteAnnotation);
    if ((phase === 'Progressing' || phase === 'StageFailed' || phase === 'RolledBack') && i < stageStatus.length) {
      const s = stageStatus[i]!;
      s.openedAt ??= nowS;
      s.passedAt = nowS;
      s.reason = 'Promoted';
      phase = 'Progressing';
      events.push({ type: 'Normal', reason: EventReasonRolloutPromoted, message: `${stageLabel(i, stages[i]!)} promoted by the annotation ${RolloutPromoteAnnotation}: the next stage opens without waiting for its gate.` });
      i++;
    }
  }

  const inputFor = (k: number, gating: boolean): GateInput => ({ reader: args.reader, b, rev, gate: stages[k]!.gate, works, items, now, gating });
  const clusterStatus = new Map<string, ClusterStatus>();
  const evaluateStage = (k: number, gating: boolean) => {
    for (const c of stages[k]!.clusters) clusterStatus.set(c, evaluateCluster(c, k, prevClusters.get(c), inputFor(k, gating)));
  };
  let wake: number | undefined;
  const wakeAt = (t: number) => {
    if (wake === undefined || t < wake) wake = t;
  };

  while (phase === 'Progressing' && i < stageStatus.length) {
    const s = stageStatus[i]!;
    const stage = stages[i]!;
    if (!s.openedAt) {
      if (paused) break;
      s.openedAt = nowS;
      events.push({ type: 'Normal', reason: EventReasonRolloutStageOpened, message: `${stageLabel(i, stage)} opened: revision ${rev} goes to ${stage.clusters.join(', ') || 'no cluster'}.` });
    }
    evaluateStage(i, !paused);
    const cs = stage.clusters.map((c) => clusterStatus.get(c)!);
    if (!cs.length) {
      s.passedAt = nowS;
      s.reason = 'Empty';
      events.push({ type: 'Normal', reason: EventReasonRolloutStagePassed, message: `${stageLabel(i, stage)} has no scheduled cluster: passed.` });
      i++;
      continue;
    }
    const failed = cs.find((c) => c.state === 'Failed');
    if (failed) {
      s.failedAt ??= nowS;
      events.push({ type: 'Warning', reason: EventReasonRolloutStageFailed, message: `${stageLabel(i, stage)} failed: cluster ${failed.name}: ${failed.message}. onFailure: ${action}.` });
      if (action === 'Continue') {
        s.passedAt = nowS;
        s.reason = 'Continued';
        i++;
        continue;
      }
      if (action === 'Rollback') {
        phase = 'RolledBack';
        events.push({
          type: 'Warning',
          reason: EventReasonRolloutRolledBack,
          message: stable ? `Revision ${stable} dispatched again to ${stage.clusters.join(', ')} (the clusters of the failed stage).` : `There is no earlier revision to roll back to: dispatching stops on ${stage.clusters.join(', ')}.`,
        });
      } else phase = 'StageFailed';
      break;
    }
    if (cs.every((c) => c.state === 'Healthy')) {
      const since = Math.max(...cs.map((c) => parseTime(c.healthySince) ?? now.getTime()));
      const due = since + stage.gate.minHealthySeconds * 1000;
      if (due <= now.getTime()) {
        s.passedAt = nowS;
        s.reason = 'GatePassed';
        events.push({ type: 'Normal', reason: EventReasonRolloutStagePassed, message: `${stageLabel(i, stage)} passed its gate on ${stage.clusters.join(', ')}.` });
        i++;
        continue;
      }
      wakeAt(due);
    } else if (!paused && stage.gate.timeoutSeconds !== undefined) {
      for (const c of cs) {
        const since = parseTime(c.progressingSince);
        if (c.state === 'Progressing' && since !== undefined) wakeAt(since + stage.gate.timeoutSeconds * 1000);
      }
    }
    break;
  }
  if (phase === 'Progressing' && i >= stageStatus.length) {
    phase = 'Completed';
    events.push({ type: 'Normal', reason: EventReasonRolloutCompleted, message: `Revision ${rev} is on every cluster (${stageStatus.length} stage(s)).` });
  }
  if (phase === 'Completed') {
    st.stableRevision = rev;
    st.stableTemplate = snapshot(tpl);
  }
  if (phase === 'Progressing' && paused) phase = 'Paused';
  if (phase === 'Paused' && !wasPaused) events.push({ type: 'Normal', reason: EventReasonRolloutPaused, message: `Rollout of revision ${rev} paused: no stage opens until the annotation ${RolloutPauseAnnotation} (or spec.suspension.dispatching) is removed.` });
  if (wasPaused && phase !== 'Paused') events.push({ type: 'Normal', reason: EventReasonRolloutResumed, message: `Rollout of revision ${rev} resumed.` });

  // Every cluster's state: the gated stage's were evaluated above; the others follow from their stage.
  const clusters: ClusterStatus[] = [];
  stages.forEach((stage, k) => {
    const s = stageStatus[k]!;
    for (const c of stage.clusters) {
      const prevC = prevClusters.get(c);
      let out: ClusterStatus;
      if (phase === 'Aborted') out = { name: c, stage: k, state: 'Waiting', reason: 'Aborted', message: stable ? `aborted: runs revision ${stable}` : 'aborted: dispatching stopped' };
      else if (phase === 'RolledBack' && k === i) out = { name: c, stage: k, state: 'Failed', reason: 'RolledBack', message: stable ? `rolled back to revision ${stable}` : 'no earlier revision: dispatching stopped' };
      else if (phase === 'Completed' || s.openedAt) out = clusterStatus.get(c) ?? evaluateCluster(c, k, prevC, inputFor(k, false));
      else out = { name: c, stage: k, state: 'Waiting', reason: paused ? 'Paused' : 'StageNotOpen', message: `waits for ${stageLabel(k, stage)} to open` };
      if (out.state === 'Waiting' || out.reason === 'RolledBack') {
        if (stable) out.revision = stable;
        else delete out.revision;
      }
      clusters.push(out);
    }
  });

  const status: RolloutStatus = { revision: rev, phase, currentStage: Math.min(i, stageStatus.length), stages: stageStatus, clusters };
  if (st.startedAt) status.startedAt = st.startedAt;
  if (st.stableRevision) status.stableRevision = st.stableRevision;
  if (st.stableTemplate) status.stableTemplate = st.stableTemplate;
  const step: Step = { status, events, consumed };
  if (wake !== undefined && (phase === 'Progressing' || phase === 'Paused')) step.requeueAfterSeconds = Math.max(1, Math.ceil((wake - now.getTime()) / 1000));
  return step;
}

const REASON: Record<Phase, string> = {
  Progressing: RolloutReasonProgressing,
  Paused: RolloutReasonPaused,
  StageFailed: RolloutReasonStageFailed,
  RolledBack: RolloutReasonRolledBack,
  Aborted: RolloutReasonAborted,
  Completed: RolloutReasonCompleted,
};

/** The Rollout condition's message: where the rollout stands and what it waits for. */
function conditionMessage(st: RolloutStatus, stages: readonly Stage[]): string {
  const phase = st.phase ?? 'Progressing';
  if (phase === 'Completed') return `Revision ${st.revision} is on every cluster.`;
  if (phase === 'Aborted') return `Rollout of revision ${st.revision} aborted${st.stableRevision ? `; clusters run revision ${st.stableRevision}` : ''}.`;
  const i = st.currentStage;
  const stage = stages[i];
  if (!stage) return `Rollout of revision ${st.revision}.`;
  const waiting = st.clusters.filter((c) => c.stage === i && c.state !== 'Healthy').map((c) => `${c.name}: ${c.message ?? c.reason ?? c.state}`);
  const at = `${stageLabel(i, stage)} of ${stages.length}`;
  if (phase === 'StageFailed') return `Revision ${st.revision} stopped at ${at}: ${waiting.join('; ')}. Promote or abort with the binding annotations ${RolloutPromoteAnnotation} / ${RolloutAbortAnnotation}, or change the template.`;
  if (phase === 'RolledBack') return `Revision ${st.revision} failed at ${at}; its clusters got revision ${st.stableRevision ?? '(none)'} back.`;
  if (phase === 'Paused') return `Revision ${st.revision} paused at ${at}.`;
  return waiting.length ? `Revision ${st.revision} at ${at}: ${waiting.join('; ')}.` : `Revision ${st.revision} at ${at}: healthy, baking.`;
}

export function reconcileRollout(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const b = ctx.reader.get(bindingType(ref), ref.namespace, ref.name);
  if (!b || isTerminating(b)) return emptyResult();
  const staged = stagedRolloutOf(ctx.reader, b);
  if (!staged) {
    if (!b.status?.rollout && !findCondition(b.status?.conditions, BindingRollout)) return emptyResult();
    // The policy dropped its rollout (or the binding its policy): every cluster renders the current template.
    const status: ResourceBindingStatus = { ...(b.status ?? {}) };
    delete status.rollout;
    const conditions = (status.conditions ?? []).filter((c) => c.type !== BindingRollout);
    if (conditions.length) status.conditions = conditions;
    else delete status.conditions;
    return { writes: [{ op: 'updateStatus', object: { ...b, status } }], events: [] };
  }
  const r = b.spec?.resource;
  const tpl = r && ctx.reader.get(r, r.namespace, r.name);
  // A template being deleted is never held: its binding and Works go the usual way.
  if (!tpl || isTerminating(tpl)) return emptyResult();
  const stages = resolveStages(staged, b, ctx.reader);
  const step = stepRollout({ reader: ctx.reader, b, tpl, staged, stages, works: worksOf(ctx, b), now: ctx.now });
  const phase = step.status.phase ?? 'Progressing';
  const conditions = setCondition(
    b.status?.conditions,
    { type: BindingRollout, status: phase === 'Completed' ? 'True' : 'False', reason: REASON[phase], message: conditionMessage(step.status, stages) },
    ctx.now,
  );
  const status: ResourceBindingStatus = { ...(b.status ?? {}), rollout: step.status, conditions };
  const events: CoreEvent[] = [];
  for (const e of step.events) for (const o of [refOf(b), refOf(tpl)]) events.push({ involvedObject: o, ...e, source: RolloutControllerName });
  const writes: Write[] = [];
  const statusChanged = !deepEqual(status, b.status ?? {});
  if (step.consumed.length) {
    const done = withMeta(b);
    const annotations = { ...(done.metadata.annotations ?? {}) };
    for (const a of step.consumed) delete annotations[a];
    done.metadata.annotations = annotations;
    writes.push({ op: 'update', object: done, then: (written) => ({ writes: statusChanged ? [{ op: 'updateStatus', object: { ...written, status } }] : [] }) });
  } else if (statusChanged) writes.push({ op: 'updateStatus', object: { ...b, status } });
  const out: ReconcileResult = { writes, events };
  if (step.requeueAfterSeconds !== undefined) out.requeueAfterSeconds = step.requeueAfterSeconds;
  return out;
}

/** The bindings a policy claims: what to look at again when its rolloutStrategy changes. */
export function bindingsOfPolicy(reader: ObjectReader, p: Policy): Binding[] {
  const id = policyId(p);
  if (p.kind === CPP.kind) {
    const labels = { [ClusterPropagationPolicyPermanentIDLabel]: id };
    return [...reader.list(RB, { labels }), ...reader.list(CRB, { labels })];
  }
  return reader.list(RB, { namespace: p.metadata.namespace, labels: { [PropagationPolicyPermanentIDLabel]: id } });
}

// ---------------------------------------------------------------------------------------------
// Watches

/** The binding a member object was rendered for, from the annotations its manifest carries. */
function bindingKeyOfManifest(o: KObject): string | undefined {
  const a = o.metadata.annotations ?? {};
  const name = a[ResourceBindingNameAnnotation];
  const namespace = a[ResourceBindingNamespaceAnnotation];
  if (name && namespace) return refKey({ apiVersion: RB.apiVersion, kind: RB.kind, namespace, name });
  const crb = a[ClusterResourceBindingAnnotation];
  return crb ? refKey({ apiVersion: CRB.apiVersion, kind: CRB.kind, name: crb }) : undefined;
}

const bindingKey = (b: Binding) => refKey({ apiVersion: b.apiVersion, kind: b.kind, namespace: b.metadata.namespace, name: b.metadata.name! });

/** A binding change that moves what its Works are rendered from: the binding controller renders again. */
export function rolloutRenderChanged(c: ObjectChange): boolean {
  return isBindingChange(c) && c.type === 'MODIFIED' && !!c.old && !deepEqual(rolloutRenderView(c.old), rolloutRenderView(c.object));
}

const readyOf = (c: KObject) => findCondition(c.status?.conditions, ClusterConditionReady)?.status;

/**
 * The rollout controller's keys: a binding under a staged rollout whose spec, annotations, collected status
 * or rollout status (written by someone else) changed; the bindings of a policy whose rolloutStrategy
 * changed; those still rolling out over a cluster whose labels or readiness changed.
 */
export function rolloutKeys(c: ObjectChange, reader: ObjectReader): string[] {
  if (c.cluster !== undefined) {
    // A member object's conditions (requiredConditions) do not all reach the binding's collected status.
    if (c.type !== 'MODIFIED' || !c.old || deepEqual(c.old.status?.conditions, c.object.status?.conditions)) return [];
    const k = bindingKeyOfManifest(c.object);
    if (!k) return [];
    const ref = parseRefKey(k);
    return reader.get(bindingType(ref), ref.namespace, ref.name)?.status?.rollout ? [k] : [];
  }
  if (isBindingChange(c)) {
    if (c.type === 'DELETED') return [];
    const b = c.object;
    if (!b.status?.rollout && !stagedRolloutOf(reader, b)) return [];
    const o = c.old;
    if (c.type === 'MODIFIED' && o) {
      const same =
        deepEqual(o.spec, b.spec) &&
        deepEqual(o.metadata.annotations, b.metadata.annotations) &&
        deepEqual(o.status?.aggregatedStatus, b.status?.aggregatedStatus) &&
        (c.origin === ROLLOUT || deepEqual(o.status?.rollout, b.status?.rollout));
      if (same) return [];
    }
    return [bindingKey(b)];
  }
  if (isPolicyChange(c)) {
    if (c.type === 'MODIFIED' && c.old && deepEqual(c.old.spec?.rolloutStrategy, c.object.spec?.rolloutStrategy)) return [];
    if (c.type === 'ADDED' && !c.object.spec?.rolloutStrategy) return [];
    return bindingsOfPolicy(reader, c.object).map(bindingKey);
  }
  // A cluster's labels (label-selected stages) or its readiness (a gate does not pass on a member that does not answer).
  if (isChangeOf(c, CLUSTER) && c.type === 'MODIFIED' && c.old && (!deepEqual(c.old.metadata.labels, c.object.metadata.labels) || readyOf(c.old) !== readyOf(c.object))) {
    return [...reader.list(RB), ...reader.list(CRB)].filter((b) => b.status?.rollout && b.status.rollout.phase !== 'Completed').map(bindingKey);
  }
  return [];
}
