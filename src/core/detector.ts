/**
 * The resource detector: for one resource template, find the policy that owns it (sticky claims,
 * explicit then implicit priority then name, PP before CPP), write the claim on the template, and
 * build or refresh its ResourceBinding / ClusterResourceBinding (spec §1, §2).
 */
import {
  BindingControllerFinalizer,
  BindingGroupVersion,
  ClusterResourceBindingControllerFinalizer,
  DefaultSchedulerName,
  EventReasonApplyPolicyFailed,
  EventReasonApplyPolicySucceed,
  EventReasonGetReplicasFailed,
  EventReasonGetReplicasSucceed,
  generateBindingName,
  ResourceDetectorName,
  ResourceTemplateClaimedByLabel,
} from '../api/constants.js';
import {
  cppClaimOf,
  isClaimedBy,
  isClusterPolicy,
  policyId,
  ppClaimOf,
  removeCPPClaim,
  removePPClaim,
  setClaim,
  withoutClaim,
} from './claim.js';
import { COP, CPP, CRB, isIgnoredNamespace, isNamespaced, OP, PP, RB, type Binding, type Policy } from './kinds.js';
import { errorMessage } from '../json/error.js';
import type { Placement, ResourceBindingSpec } from '../api/generated/types.js';
import { deepClone, deepEqual } from '../json/value.js';
import { withMeta, withMetaAndSpecOf, getLabel, isTerminating, nsName, parseRefKey, refOf, type KObject, type ObjectRef } from './object.js';
import { emptyResult, type CoreEvent, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';
import { implicitPriority, matchesAnySelector, type ResourceSelector } from './selectors.js';

export const DETECTOR = 'detector';
/**
 * Keys flagged "changed by Karmada" (spec §1.8): under a Lazy policy such a change claims the
 * template but leaves its binding alone.
 */
export const LAZY_PREFIX = 'lazy:';

export function detectorKey(ref: ObjectRef, changedByKarmada = false): string {
  return (changedByKarmada ? LAZY_PREFIX : '') + `${ref.apiVersion}|${ref.kind}|${ref.namespace ?? ''}|${ref.name}`;
}

export function reconcileTemplate(ctx: ReconcileContext, key: string): ReconcileResult {
  const lazy = key.startsWith(LAZY_PREFIX);
  const ref = parseRefKey(lazy ? key.slice(LAZY_PREFIX.length) : key);
  if (isIgnoredNamespace(ref.namespace, ctx.options.skippedPropagatingNamespaces)) return emptyResult();
  const tpl = ctx.reader.get(ref, ref.namespace, ref.name);
  if (!tpl || isTerminating(tpl)) return emptyResult();
  if (getLabel(tpl, ResourceTemplateClaimedByLabel)) return emptyResult();

  const ppClaim = ppClaimOf(tpl);
  if (ppClaim) {
    const pp = ctx.reader.get(PP, ppClaim.namespace, ppClaim.name);
    return applyClaimedPolicy(ctx, tpl, pp, ppClaim.id, false, `${ppClaim.namespace}/${ppClaim.name}`, lazy);
  }
  const cppClaim = cppClaimOf(tpl);
  if (cppClaim) {
    const cpp = ctx.reader.get(CPP, undefined, cppClaim.name);
    return applyClaimedPolicy(ctx, tpl, cpp, cppClaim.id, true, cppClaim.name, lazy);
  }
  const policy = (isNamespaced(tpl) ? bestPolicy(tpl, ctx.reader.list(PP, { namespace: tpl.metadata.namespace })) : undefined) ?? bestPolicy(tpl, ctx.reader.list(CPP));
  // No policy: the template waits. Policy creation re-enqueues the unclaimed templates it matches.
  if (!policy) return emptyResult();
  const missing = missingDependentOverrides(ctx, policy);
  if (missing) return { ...emptyResult(), error: missing };
  return applyPolicy(ctx, tpl, policy, lazy);
}

function applyClaimedPolicy(
  ctx: ReconcileContext,
  tpl: KObject,
  policy: Policy | undefined,
  id: string,
  cluster: boolean,
  policyName: string,
  lazy: boolean,
): ReconcileResult {
  if (!policy || policyId(policy) !== id) {
    // The claiming policy is gone: strip the claim, binding first, then the template. The template
    // update re-enqueues it, and another policy may claim it.
    const writes: Write[] = [];
    const binding = ctx.reader.get(bindingTypeFor(tpl), tpl.metadata.namespace, generateBindingName(tpl.kind, tpl.metadata.name!));
    const b = binding && withoutClaim(binding, cluster, id);
    if (b) writes.push({ op: 'update', object: b });
    const t = withoutClaim(tpl, cluster, id);
    if (t) writes.push({ op: 'update', object: t });
    return { writes, events: [] };
  }
  if (isTerminating(policy)) {
    return { ...emptyResult(), error: cluster ? `policy(${policyName}) is being deleted` : `policy(${policyName}) is being deleted` };
  }
  // Served under two API groups: the claim stays, nothing is done for the non-matching view.
  if (!matchesAnySelector(tpl, selectorsOf(policy))) return emptyResult();
  const missing = missingDependentOverrides(ctx, policy);
  if (missing) return { ...emptyResult(), error: missing };
  return applyPolicy(ctx, tpl, policy, lazy);
}

/** Explicit priority first, then implicit priority, then the smaller name. Terminating policies never win. */
export function bestPolicy<P extends Policy>(tpl: KObject, policies: readonly P[]): P | undefined {
  let best: P | undefined;
  let bestExplicit = 0;
  let bestImplicit = 0;
  for (const p of policies) {
    if (isTerminating(p)) continue;
    const implicit = implicitPriority(tpl, selectorsOf(p));
    if (implicit === 0) continue;
    const explicit = p.spec?.priority ?? 0;
    if (
      !best ||
      explicit > bestExplicit ||
      (explicit === bestExplicit && (implicit > bestImplicit || (implicit === bestImplicit && p.metadata.name! < best.metadata.name!)))
    ) {
      best = p;
      bestExplicit = explicit;
      bestImplicit = implicit;
    }
  }
  return best;
}

export function selectorsOf(policy: Policy): ResourceSelector[] {
  const sels: ResourceSelector[] = policy.spec?.resourceSelectors ?? [];
  // The PP webhook defaults an empty selector namespace to the policy's own; do the same when the
  // policy was loaded without it.
  if (policy.kind === 'PropagationPolicy' && policy.metadata.namespace) {
    return sels.map((s) => (s.namespace ? s : { ...s, namespace: policy.metadata.namespace }));
  }
  return sels;
}

function missingDependentOverrides(ctx: ReconcileContext, policy: Policy): string | undefined {
  const names = policy.spec?.dependentOverrides ?? [];
  for (const n of names) {
    const found = isClusterPolicy(policy) ? ctx.reader.get(COP, undefined, n) : ctx.reader.get(OP, policy.metadata.namespace, n);
    if (!found) return 'waiting for dependent overrides';
  }
  return undefined;
}

function policyLabel(policy: Policy): string {
  return isClusterPolicy(policy) ? `cluster policy(${policy.metadata.name})` : `policy(${policy.metadata.namespace}/${policy.metadata.name})`;
}

/** Claims the template (if needed) and, unless this is a lazy pass, creates or refreshes its binding. */
function applyPolicy(ctx: ReconcileContext, tpl: KObject, policy: Policy, lazy: boolean): ReconcileResult {
  const skipBinding = lazy && policy.spec?.activationPreference === 'Lazy';
  if (!isClaimedBy(tpl, policy)) {
    const claimed = withMeta(tpl);
    setClaim(claimed, policy);
    const write: Write = { op: 'update', object: claimed };
    if (!skipBinding) write.then = (written) => bindingWrites(ctx, written, policy);
    return { writes: [write], events: [] };
  }
  if (skipBinding) return emptyResult();
  const r = bindingWrites(ctx, tpl, policy);
  return { writes: r.writes, events: r.events, error: r.error };
}

function bindingTypeFor(tpl: KObject) {
  return isNamespaced(tpl) ? RB : CRB;
}

/** Builds the binding from the (claimed) template and returns the write that brings the store to it. */
function bindingWrites(ctx: ReconcileContext, tpl: KObject, policy: Policy): { writes: Write[]; events: CoreEvent[]; error?: string } {
  const events: CoreEvent[] = [];
  const tref = refOf(tpl);
  const fail = (err: string) => {
    events.push({ involvedObject: tref, type: 'Warning', reason: EventReasonApplyPolicyFailed, message: `Apply ${policyLabel(policy)} failed: ${err}`, source: ResourceDetectorName });
    return { writes: [], events, error: err };
  };
  const type = bindingTypeFor(tpl);
  const name = generateBindingName(tpl.kind, tpl.metadata.name!);
  const existing = ctx.reader.get(type, tpl.metadata.namespace, name);
  if (existing) {
    const owner = existing.metadata.ownerReferences?.find((o) => o.controller === true);
    if (owner && owner.uid !== tpl.metadata.uid) {
      return fail(`${type.kind}(${nsName(tpl.metadata.namespace, name)}) is owned by another object (uid ${String(owner.uid)}); waiting for it to be garbage collected`);
    }
  }
  let replicas: { replicas: number; replicaRequirements?: Record<string, unknown> | null } | undefined;
  if (ctx.interpreter.hookEnabled(tpl, 'InterpretReplica')) {
    try {
      replicas = ctx.interpreter.getReplicas(tpl);
    } catch (e) {
      events.push({ involvedObject: tref, type: 'Warning', reason: EventReasonGetReplicasFailed, message: errorMessage(e), source: ResourceDetectorName });
      return fail(errorMessage(e));
    }
  }
  let schedulePriority: { priority: number } | undefined;
  const sp = policy.spec?.schedulePriority;
  if (sp && isNamespaced(tpl)) {
    if (sp.priorityClassSource !== 'KubePriorityClass') return fail(`priority class source ${sp.priorityClassSource} is not supported yet`);
    const pc = ctx.reader.get({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass' }, undefined, sp.priorityClassName ?? '');
    if (!pc) return fail(`PriorityClass ${sp.priorityClassName} not found: create it or drop spec.schedulePriority`);
    schedulePriority = { priority: Number(pc.value ?? 0) };
  }
  const desired = buildBinding(tpl, policy, existing, replicas, schedulePriority, ctx.options.workloadAffinity === true);
  if (existing && deepEqual(desired, existing)) return { writes: [], events };
  if (replicas) {
    events.push({ involvedObject: tref, type: 'Normal', reason: EventReasonGetReplicasSucceed, message: 'Get replicas of resource template successfully.', source: ResourceDetectorName });
  }
  events.push({ involvedObject: tref, type: 'Normal', reason: EventReasonApplyPolicySucceed, message: `Apply ${policyLabel(policy)} succeed`, source: ResourceDetectorName });
  return { writes: [existing ? { op: 'update', object: desired } : { op: 'create', object: desired }], events };
}

/**
 * Karmada's getWorkloadAffinityGroups: each term of the policy's workloadAffinity whose label the template
 * carries names a group `<groupByLabelKey>=<value>`; none, no groups.
 */
function workloadAffinityGroups(tpl: KObject, wa: Placement['workloadAffinity']): ResourceBindingSpec['workloadAffinityGroups'] {
  const labels = tpl.metadata.labels ?? {};
  const group = (term: { groupByLabelKey: string } | undefined) => (term && Object.hasOwn(labels, term.groupByLabelKey) ? `${term.groupByLabelKey}=${labels[term.groupByLabelKey]}` : undefined);
  const affinityGroup = group(wa?.affinity);
  const antiAffinityGroup = group(wa?.antiAffinity);
  if (!affinityGroup && !antiAffinityGroup) return undefined;
  return { ...(affinityGroup ? { affinityGroup } : {}), ...(antiAffinityGroup ? { antiAffinityGroup } : {}) };
}

/**
 * The binding for a template under a policy. On an existing binding: labels, annotations and
 * finalizers merge; the spec fields the detector owns are replaced; scheduling results, eviction
 * tasks, requiredBy and status are kept.
 */
export function buildBinding(
  tpl: KObject,
  policy: Policy,
  existing: Binding | undefined,
  replicas: { replicas: number; replicaRequirements?: Record<string, unknown> | null } | undefined,
  schedulePriority?: { priority: number },
  workloadAffinity = false,
): Binding {
  const namespaced = isNamespaced(tpl);
  const kind = namespaced ? 'ResourceBinding' : 'ClusterResourceBinding';
  const ps: Partial<Policy['spec']> = policy.spec ?? {};
  const resource: ResourceBindingSpec['resource'] = namespaced
    ? { apiVersion: tpl.apiVersion, kind: tpl.kind, namespace: tpl.metadata.namespace, name: tpl.metadata.name! }
    : { apiVersion: tpl.apiVersion, kind: tpl.kind, name: tpl.metadata.name! };
  if (tpl.metadata.uid) resource.uid = tpl.metadata.uid;
  if (tpl.metadata.resourceVersion) resource.resourceVersion = tpl.metadata.resourceVersion;
  const b: Binding = existing
    ? withMetaAndSpecOf(existing)
    : { apiVersion: BindingGroupVersion, kind, metadata: { name: generateBindingName(tpl.kind, tpl.metadata.name!) }, spec: { resource } };
  if (namespaced) b.metadata.namespace = tpl.metadata.namespace;
  b.metadata.ownerReferences = [
    { apiVersion: tpl.apiVersion, kind: tpl.kind, name: tpl.metadata.name, uid: tpl.metadata.uid, controller: true, blockOwnerDeletion: true },
  ];
  const fin = namespaced ? BindingControllerFinalizer : ClusterResourceBindingControllerFinalizer;
  if (!b.metadata.finalizers?.includes(fin)) b.metadata.finalizers = [...(b.metadata.finalizers ?? []), fin];
  // PP claims replace CPP claims on the binding too; the claim mirrors the template's.
  if (!isClusterPolicy(policy)) removeCPPClaim(b);
  else removePPClaim(b);
  setClaim(b, policy);

  const spec: ResourceBindingSpec = b.spec ?? { resource };
  spec.resource = resource;
  const set = <K extends keyof ResourceBindingSpec>(k: K, v: ResourceBindingSpec[K] | null | undefined) => {
    if (v === undefined || v === null) delete spec[k];
    else spec[k] = deepClone(v);
  };
  // The CRB update path never refreshes propagateDeps (spec §2).
  if (namespaced || !existing) set('propagateDeps', ps.propagateDeps);
  set('schedulerName', ps.schedulerName ?? DefaultSchedulerName);
  set('placement', ps.placement);
  set('failover', ps.failover);
  set('conflictResolution', ps.conflictResolution);
  set('preserveResourcesOnDeletion', ps.preserveResourcesOnDeletion);
  const scheduling = existing?.spec?.suspension?.scheduling;
  if (ps.suspension) set('suspension', scheduling === undefined ? ps.suspension : { ...ps.suspension, scheduling });
  else set('suspension', scheduling === undefined ? undefined : { scheduling });
  set('replicas', replicas && replicas.replicas > 0 ? replicas.replicas : undefined);
  set('replicaRequirements', replicas?.replicaRequirements ?? undefined);
  if (namespaced) set('schedulePriority', schedulePriority);
  // Recomputed on every build, so a relabelled template changes groups and a policy without the term drops them.
  set('workloadAffinityGroups', workloadAffinity && namespaced ? workloadAffinityGroups(tpl, ps.placement?.workloadAffinity) : undefined);
  b.spec = spec;
  return b;
}
