/**
 * The detector's policy side (spec §1.4, §1.6, §1.7): what happens to claims when a PropagationPolicy
 * or ClusterPropagationPolicy is created, edited or deleted, and preemption.
 */
import {
  ClusterPropagationPolicyControllerFinalizer,
  ClusterPropagationPolicyPermanentIDLabel,
  EventReasonPreemptPolicySucceed,
  generateBindingName,
  PropagationPolicyControllerFinalizer,
  PropagationPolicyPermanentIDLabel,
  ResourceDetectorName,
} from '../api/constants.js';
import { cppClaimOf, hasAnyClaim, isClusterPolicy, policyId, ppClaimOf, setClaim, withoutClaim } from './claim.js';
import { DETECTOR, detectorKey, selectorsOf } from './detector.js';
import { COP, CPP, CRB, OP, PP, policyType, RB, type Policy } from './kinds.js';
import { withMeta, hasFinalizer, isTerminating, parseRefKey, refOf, removeFinalizer, type KObject } from './object.js';
import { emptyResult, type CoreEvent, type EnqueueRequest, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';
import { matchesAnySelector } from './selectors.js';

export const POLICY = 'policy';

export function reconcilePolicy(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const policy = ctx.reader.get(policyType(ref), ref.namespace, ref.name);
  if (!policy) return emptyResult();
  return isTerminating(policy) ? onPolicyDeleted(ctx, policy) : onPolicyChanged(ctx, policy);
}

function idLabelOf(policy: KObject): string {
  return isClusterPolicy(policy) ? ClusterPropagationPolicyPermanentIDLabel : PropagationPolicyPermanentIDLabel;
}

/**
 * Unclaims every template this policy claimed, binding first then template, each guarded by the id;
 * bindings, Works and member objects stay (preserveResourcesOnDeletion is irrelevant here).
 */
function onPolicyDeleted(ctx: ReconcileContext, policy: Policy): ReconcileResult {
  const finalizer = isClusterPolicy(policy) ? ClusterPropagationPolicyControllerFinalizer : PropagationPolicyControllerFinalizer;
  if (!hasFinalizer(policy, finalizer)) return emptyResult();
  const cluster = isClusterPolicy(policy);
  const id = policyId(policy);
  const writes: Write[] = [];
  const seen = new Set<string>();
  for (const s of selectorsOf(policy)) {
    const ns = cluster ? s.namespace || undefined : policy.metadata.namespace;
    const typeKey = `${s.apiVersion}|${s.kind}|${ns ?? ''}`;
    if (seen.has(typeKey)) continue;
    seen.add(typeKey);
    const opts = ns ? { namespace: ns, labels: { [idLabelOf(policy)]: id } } : { labels: { [idLabelOf(policy)]: id } };
    for (const tpl of ctx.reader.list({ apiVersion: s.apiVersion, kind: s.kind }, opts)) {
      const binding = ctx.reader.get(tpl.metadata.namespace ? RB : CRB, tpl.metadata.namespace, generateBindingName(tpl.kind, tpl.metadata.name!));
      const b = binding && withoutClaim(binding, cluster, id);
      if (b) writes.push({ op: 'update', object: b });
      const t = withoutClaim(tpl, cluster, id);
      if (t) writes.push({ op: 'update', object: t });
    }
  }
  const done = withMeta(policy);
  removeFinalizer(done, finalizer);
  writes.push({ op: 'update', object: done });
  return { writes, events: [] };
}

function onPolicyChanged(ctx: ReconcileContext, policy: Policy): ReconcileResult {
  const cluster = isClusterPolicy(policy);
  const id = policyId(policy);
  const lazy = policy.spec?.activationPreference === 'Lazy';
  const sels = selectorsOf(policy);
  const writes: Write[] = [];
  const events: CoreEvent[] = [];
  const enqueue: EnqueueRequest[] = [];
  const queued = new Set<string>();
  const push = (tpl: KObject) => {
    const k = detectorKey(refOf(tpl), lazy);
    if (queued.has(k)) return;
    queued.add(k);
    enqueue.push({ controller: DETECTOR, key: k });
  };

  // 1+2. Bindings of this policy: unclaim templates it no longer selects, re-evaluate the others.
  const label = { [idLabelOf(policy)]: id };
  const bindings = cluster
    ? [...ctx.reader.list(RB, { labels: label }), ...ctx.reader.list(CRB, { labels: label })]
    : ctx.reader.list(RB, { namespace: policy.metadata.namespace, labels: label });
  for (const b of bindings) {
    const r = b.spec?.resource;
    if (!r) continue;
    const tpl = ctx.reader.get(r, r.namespace, r.name);
    if (!tpl) continue;
    if (!matchesAnySelector(tpl, sels)) {
      const t = withoutClaim(tpl, cluster, id);
      if (t) writes.push({ op: 'update', object: t });
      const nb = withoutClaim(b, cluster, id);
      if (nb) writes.push({ op: 'update', object: nb });
      continue;
    }
    // A new policy's bindings were built from this very version: nothing to refresh.
    if ((policy.metadata.generation ?? 1) > 1) push(tpl);
  }

  // 3. Waiting templates (claimed by nobody) this policy selects.
  const claimedCount = enqueue.length;
  let waiting = 0;
  const seen = new Set<string>();
  for (const s of sels) {
    const ns = cluster ? s.namespace || undefined : policy.metadata.namespace;
    const typeKey = `${s.apiVersion}|${s.kind}|${ns ?? ''}`;
    if (seen.has(typeKey)) continue;
    seen.add(typeKey);
    for (const tpl of ctx.reader.list({ apiVersion: s.apiVersion, kind: s.kind }, ns ? { namespace: ns } : {})) {
      if (hasAnyClaim(tpl) || isTerminating(tpl) || !matchesAnySelector(tpl, sels)) continue;
      waiting++;
      push(tpl);
    }
  }
  if (waiting > 0) {
    for (const n of policy.spec?.dependentOverrides ?? []) {
      const found = cluster ? ctx.reader.get(COP, undefined, n) : ctx.reader.get(OP, policy.metadata.namespace, n);
      if (!found) return { writes, events, enqueue: enqueue.slice(0, claimedCount), error: 'waiting for dependent overrides' };
    }
  }

  // 4. Preemption.
  if (ctx.options.policyPreemption && policy.spec?.preemption === 'Always') preempt(ctx, policy, writes, events);
  return { writes, events, enqueue };
}

function priorityOf(p: Policy | undefined): number {
  return p?.spec?.priority ?? 0;
}

/**
 * A preempting policy takes named templates claimed by a same-kind policy of strictly lower explicit
 * priority; a PP also takes templates claimed by any CPP. A CPP never takes a PP's template.
 */
function preempt(ctx: ReconcileContext, policy: Policy, writes: Write[], events: CoreEvent[]): void {
  const cluster = isClusterPolicy(policy);
  const id = policyId(policy);
  const mine = priorityOf(policy);
  for (const s of selectorsOf(policy)) {
    if (!s.name) continue;
    const ns = cluster ? s.namespace || undefined : policy.metadata.namespace;
    const tpl = ctx.reader.get({ apiVersion: s.apiVersion, kind: s.kind }, ns, s.name);
    if (!tpl || isTerminating(tpl)) continue;
    const pp = ppClaimOf(tpl);
    const cpp = cppClaimOf(tpl);
    let take = false;
    let from = '';
    if (!cluster) {
      if (pp && pp.id !== id) {
        const other = ctx.reader.get(PP, pp.namespace, pp.name);
        if (priorityOf(other) < mine) {
          take = true;
          from = `propagation policy(${pp.namespace}/${pp.name})`;
        }
      } else if (!pp && cpp) {
        take = true;
        from = `cluster propagation policy(${cpp.name})`;
      }
    } else if (!pp && cpp && cpp.id !== id) {
      const other = ctx.reader.get(CPP, undefined, cpp.name);
      if (priorityOf(other) < mine) {
        take = true;
        from = `cluster propagation policy(${cpp.name})`;
      }
    }
    if (!take) continue;
    const t = withMeta(tpl);
    setClaim(t, policy);
    writes.push({ op: 'update', object: t });
    const me = cluster ? `Cluster propagation policy(${policy.metadata.name})` : `Propagation policy(${policy.metadata.namespace}/${policy.metadata.name})`;
    events.push({ involvedObject: refOf(tpl), type: 'Normal', reason: EventReasonPreemptPolicySucceed, message: `${me} preempted ${from} successfully`, source: ResourceDetectorName });
  }
}
