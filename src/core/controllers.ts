/**
 * The controllers of the core in pipeline order, each a reconciler plus its watches: which store
 * changes wake which keys. Predicates follow Karmada's (generation changes, status-only changes
 * ignored, member events mapped to Works through their annotations).
 */
import {
  AppliedPlacementAnnotation,
  BindingScheduled,
  ClusterConditionReady,
  ClusterResourceBindingAnnotation,
  generateExecutionSpaceName,
  ManagedLabel,
  ManagedLabelValue,
  ResourceBindingNameAnnotation,
  ResourceBindingNamespaceAnnotation,
  TaintEffectNoExecute,
  WorkApplied,
  WorkNameAnnotation,
  WorkNamespaceAnnotation,
} from '../api/constants.js';
import { BINDING, reconcileBinding } from './binding.js';
import { cppClaimOf, hasAnyClaim, ppClaimOf } from './claim.js';
import { CLUSTER_CONTROLLER, reconcileCluster } from './cluster.js';
import { CLUSTER_TAINT_POLICY, clustersOfPolicy, reconcileClusterTaintPolicy } from './cluster-taint-policy.js';
import { clustersOfRemedy, reconcileRemedy, REMEDY_CONTROLLER } from './remedy.js';
import { CRON_FHPA_CONTROLLER, reconcileCronFederatedHPA } from './cron-federated-hpa.js';
import { FHPA_CONTROLLER, reconcileFederatedHPA } from './federated-hpa.js';
import { DEPENDENCIES, dependencyKeys, isDependencyType, reconcileDependencies } from './dependencies.js';
import { DEPLOYMENT, DEPLOYMENT_REPLICAS_SYNCER, reconcileDeploymentReplicas, retainsReplicas } from './deployment-replicas-syncer.js';
import { HPA_SCALE_TARGET_MARKER, hasBeenPropagated, isHpaType, reconcileHpaScaleTarget, scaleTargetKey } from './hpa-scale-target-marker.js';
import { DESCHEDULER, deschedulerKeys, reconcileDeschedule } from './descheduler.js';
import { DETECTOR, detectorKey, reconcileTemplate } from './detector.js';
import { EVICTION, reconcileGracefulEviction } from './eviction.js';
import { EXECUTION, reconcileWork } from './execution.js';
import { FAILOVER, reconcileApplicationFailover } from './failover.js';
import { federatedResourceQuotaControllers } from './federated-resource-quota.js';
import { INTERPRETER_HEALTH, reconcileInterpreterHealth } from './interpreter-health.js';
import { multiClusterServiceControllers } from './multi-cluster-service.js';
import { serviceExportControllers } from './service-export.js';
import { CLUSTER, COP, CPP, CRB, CRON_FHPA, CTP, FHPA, is, isBinding, isIgnoredNamespace, isPolicy, isTemplateType, NAMESPACE, OP, PP, policyType, RB, REMEDY, RIC, WORK, WORKLOAD_REBALANCER, type Binding, type Policy } from './kinds.js';
import { NAMESPACE_SYNC, namespaceKey, namespaceShouldBeSynced, reconcileNamespace } from './namespace.js';
import { deepEqual, deepEqualExcept } from '../json/value.js';
import { findCondition, lastOf, refKey, refOf, type KObject } from './object.js';
import type { Cluster, ClusterOverridePolicy, OverridePolicy, Work } from '../api/generated/types.js';
import { POLICY, reconcilePolicy } from './policy.js';
import { isBindingChange, isChangeOf, isPolicyChange, type ControllerSpec, type CoreOptions, type ObjectChange, type ObjectReader } from './ports.js';
import { ROLLOUT, reconcileRollout, rolloutKeys, rolloutRenderChanged } from './rollout.js';
import { awaitingPlacement, SCHEDULER, reconcileSchedule, workloadGroupPeerKeys } from './scheduling.js';
import { BINDING_STATUS, reconcileBindingStatus, reconcileWorkStatus, WORK_STATUS } from './status.js';
import { forExecutedClusters, LEASE, PULL_CLUSTER_HEALTH, pullClusterHealthKeys, reconcilePullClusterHealth } from './pull-cluster.js';
import { noExecuteEvictionMode, reconcileTaintManager, TAINT_MANAGER, taintEvictionApplies, type NoExecuteEvictionMode } from './taint-manager.js';
import { taintsOf } from './taint.js';
import { reconcileWorkloadRebalancer, WORKLOAD_REBALANCER_CONTROLLER, workloadRebalancerKeys } from './workload-rebalancer.js';

/** The object's queue key. Several controllers ask for the key of one change in a row: built once for them. */
const key = lastOf((o: KObject) => refKey({ apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name! }));

function generationChanged(c: ObjectChange): boolean {
  return c.type === 'ADDED' || (c.type === 'MODIFIED' && c.old?.metadata.generation !== c.object.metadata.generation);
}

const TOP_SKIP = new Set(['status', 'metadata']);
const META_SKIP = new Set(['managedFields', 'resourceVersion']);
const USER_META_SKIP = new Set(['managedFields', 'resourceVersion', 'generation', 'labels', 'annotations']);

/** Equal once status, managedFields and resourceVersion are ignored (the detector's update filter). */
function sameIgnoringStatus(a: KObject, b: KObject): boolean {
  return deepEqualExcept(a, b, TOP_SKIP) && deepEqualExcept(a.metadata, b.metadata, META_SKIP);
}

/** Labels and annotations a user sets: Karmada's own (`*.karmada.io`) left out, but for skip-auto-propagation. */
const isUserKey = (k: string) => !k.includes('.karmada.io') || k === 'namespace.karmada.io/skip-auto-propagation';

function sameUserKeys(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  if (a === b) return true;
  let na = 0;
  for (const k in a ?? {}) {
    const v = a![k];
    if (v === undefined || !isUserKey(k)) continue;
    na++;
    if (!deepEqual(v, b?.[k])) return false;
  }
  let nb = 0;
  for (const k in b ?? {}) if (b![k] !== undefined && isUserKey(k)) nb++;
  return na === nb;
}

/** Equal for a Lazy policy's purposes: Karmada's own labels and annotations and the generation ignored too. */
function sameUserContent(a: KObject, b: KObject): boolean {
  return (
    deepEqualExcept(a, b, TOP_SKIP) &&
    deepEqualExcept(a.metadata, b.metadata, USER_META_SKIP) &&
    sameUserKeys(a.metadata.labels, b.metadata.labels) &&
    sameUserKeys(a.metadata.annotations, b.metadata.annotations)
  );
}

function claimedPolicyIsLazy(tpl: KObject, reader: ObjectReader): boolean {
  const pp = ppClaimOf(tpl);
  const policy = pp ? reader.get(PP, pp.namespace, pp.name) : (() => {
    const c = cppClaimOf(tpl);
    return c ? reader.get(CPP, undefined, c.name) : undefined;
  })();
  return policy?.spec?.activationPreference === 'Lazy';
}

/**
 * The binding a Work belongs to, from the Work's annotations. Asked for one change by more than one
 * controller, and by one controller for the old and new Work.
 */
export const bindingKeyOfWork = lastOf(bindingKeyFromAnnotations);

function bindingKeyFromAnnotations(w: KObject): string | undefined {
  const a = w.metadata.annotations ?? {};
  if (a[ResourceBindingNameAnnotation] && a[ResourceBindingNamespaceAnnotation]) {
    return refKey({ apiVersion: RB.apiVersion, kind: RB.kind, namespace: a[ResourceBindingNamespaceAnnotation], name: a[ResourceBindingNameAnnotation] });
  }
  if (a[ClusterResourceBindingAnnotation]) return refKey({ apiVersion: CRB.apiVersion, kind: CRB.kind, name: a[ClusterResourceBindingAnnotation] });
  return undefined;
}

/** The Work a member object came from, from its work.karmada.io annotations (built once per change for the controllers asking). */
const workKeyOfMember = lastOf(workKeyFromAnnotations);

function workKeyFromAnnotations(o: KObject): string | undefined {
  const a = o.metadata.annotations ?? {};
  const ns = a[WorkNamespaceAnnotation];
  const name = a[WorkNameAnnotation];
  return ns && name ? refKey({ apiVersion: WORK.apiVersion, kind: WORK.kind, namespace: ns, name }) : undefined;
}

function clusterReadyChanged(c: ObjectChange<Cluster>): boolean {
  const ready = (o: Cluster | undefined) => findCondition(o?.status?.conditions, ClusterConditionReady)?.status;
  return c.type !== 'MODIFIED' || ready(c.old) !== ready(c.object) || !!c.object.metadata.deletionTimestamp !== !!c.old?.metadata.deletionTimestamp;
}

/** The cluster controller's inputs: the Ready condition (status and since when) and the taints. */
function readyOrTaintsChanged(c: ObjectChange<Cluster>): boolean {
  if (c.type !== 'MODIFIED' || !c.old) return true;
  const ready = (o: Cluster) => findCondition(o.status?.conditions, ClusterConditionReady);
  const a = ready(c.old);
  const b = ready(c.object);
  return a?.status !== b?.status || a?.lastTransitionTime !== b?.lastTransitionTime || !deepEqual(c.old.spec?.taints, c.object.spec?.taints);
}

const noExecuteTaints = (o: Cluster | undefined) => (o ? taintsOf(o).filter((t) => t.effect === TaintEffectNoExecute) : []);

/** Bindings taint eviction applies to, scheduled to this cluster: the taint manager's keys when its NoExecute taints change. */
function failoverBindingsOn(reader: ObjectReader, cluster: string, mode: NoExecuteEvictionMode): string[] {
  return [...reader.list(RB), ...reader.list(CRB)]
    .filter((b) => taintEvictionApplies(b, mode) && (b.spec?.clusters ?? []).some((t) => t.name === cluster))
    .map(key);
}

/** The namespaces a ClusterOverridePolicy selects (Karmada's mapping: a Namespace selector without a name means all). */
function namespacesSelectedBy(policy: ClusterOverridePolicy | OverridePolicy | undefined, reader: ObjectReader): string[] {
  const out = new Set<string>();
  for (const s of policy?.spec?.resourceSelectors ?? []) {
    if (s.apiVersion !== 'v1' || s.kind !== NAMESPACE.kind) continue;
    if (!s.name) return reader.list(NAMESPACE).map((n) => n.metadata.name!);
    out.add(s.name);
  }
  return [...out];
}

function worksOfCluster(reader: ObjectReader, cluster: string): string[] {
  return reader.list(WORK, { namespace: generateExecutionSpaceName(cluster) }).map(key);
}

/**
 * Karmada's deprioritization: when a policy's explicit priority goes down, the preempting policies of the
 * same kind and scope whose priority lies strictly between the new and the old value may now take its
 * templates, so they are reconciled again, highest priority first.
 */
function deprioritized(c: ObjectChange<Policy>, reader: ObjectReader): string[] {
  const was = c.old?.spec?.priority;
  const now = c.object.spec?.priority ?? 0;
  if (c.type !== 'MODIFIED' || typeof was !== 'number' || now >= was) return [];
  const peers = reader.list(policyType(c.object), c.object.metadata.namespace === undefined ? undefined : { namespace: c.object.metadata.namespace });
  const priority = (p: Policy) => p.spec?.priority ?? 0;
  return peers
    .filter((p) => p.spec?.preemption === 'Always' && typeof p.spec?.priority === 'number' && p.spec.priority > now && p.spec.priority < was && p.metadata.name !== c.object.metadata.name)
    .sort((a, b) => priority(b) - priority(a))
    .map(key);
}

function allBindings(reader: ObjectReader): string[] {
  return [...reader.list(RB), ...reader.list(CRB)].map(key);
}

/** Bindings whose current generation the scheduler has not placed: not acted on yet, or Scheduled not True. */
function unscheduledBindings(reader: ObjectReader): string[] {
  return [...reader.list(RB), ...reader.list(CRB)].filter(awaitingPlacement).map(key);
}

/** The bindings whose owner reference names this template (a namespaced template's are in its namespace). */
function bindingsOwnedBy(template: KObject, reader: ObjectReader): Binding[] {
  const uid = template.metadata.uid;
  if (!uid) return [];
  const ns = template.metadata.namespace;
  const candidates: Binding[] = ns === undefined ? reader.list(CRB) : reader.list(RB, { namespace: ns });
  return candidates.filter((b) => (b.metadata.ownerReferences ?? []).some((o) => o.uid === uid));
}

/** Karmada's --controllers: `*` is every controller, `-foo` removes one, a bare name adds one. */
export function selectControllers(all: readonly ControllerSpec[], wanted: readonly string[]): ControllerSpec[] {
  const names = new Set(all.map((c) => c.name));
  for (const w of wanted) {
    const n = w.replace(/^-/, '');
    if (n !== '*' && !names.has(n)) throw new Error(`unknown controller ${n}; known: ${[...names].join(', ')}`);
  }
  // As Karmada's: `*` is every controller not disabled by default; those run only when named.
  const star = wanted.includes('*');
  return all.filter((c) => !wanted.includes(`-${c.name}`) && ((star && !c.disabledByDefault) || wanted.includes(c.name)));
}

export interface ControllerOptions extends Pick<Partial<CoreOptions>, 'failover' | 'enableNoExecuteTaintEviction' | 'executionSyncMode'> {
  skippedPropagatingNamespaces: readonly RegExp[];
}

export function coreControllers(opts: ControllerOptions): ControllerSpec[] {
  const evictionMode = noExecuteEvictionMode(opts);
  const synced = (name: string) => namespaceShouldBeSynced(name, opts.skippedPropagatingNamespaces);
  return [
    {
      name: DETECTOR,
      watches: (t, cluster) => cluster === undefined && isTemplateType(t),
      reconcile: reconcileTemplate,
      keysFor(c, reader) {
        if (c.cluster !== undefined || !isTemplateType(c.object)) return [];
        if (isIgnoredNamespace(c.object.metadata.namespace, opts.skippedPropagatingNamespaces)) return [];
        if (c.type === 'DELETED') return [];
        if (c.type === 'MODIFIED' && c.old) {
          if (sameIgnoringStatus(c.old, c.object)) return [];
          // The detector's own claim write: the binding was built from it in the same reconcile.
          if (c.origin === DETECTOR && hasAnyClaim(c.object) && sameUserContent(c.old, c.object)) return [];
          if (sameUserContent(c.old, c.object) && claimedPolicyIsLazy(c.object, reader)) return [detectorKey(refOf(c.object), true)];
        }
        return [detectorKey(refOf(c.object))];
      },
    },
    {
      name: NAMESPACE_SYNC,
      watches: (t, cluster) => cluster === undefined && (is(t, NAMESPACE) || is(t, CLUSTER) || is(t, COP)),
      reconcile: reconcileNamespace,
      keysFor(c, reader) {
        if (c.cluster !== undefined) return [];
        if (is(c.object, NAMESPACE)) {
          const name = c.object.metadata.name!;
          if (!synced(name)) return [];
          if (c.type === 'MODIFIED' && c.old && sameIgnoringStatus(c.old, c.object)) return [];
          return [namespaceKey(name)];
        }
        // A new cluster gets every namespace.
        if (isChangeOf(c, CLUSTER)) return c.type === 'ADDED' ? reader.list(NAMESPACE).map((n) => n.metadata.name!).filter(synced).map(namespaceKey) : [];
        if (isChangeOf(c, COP)) return [...new Set([...namespacesSelectedBy(c.object, reader), ...namespacesSelectedBy(c.old, reader)])].filter(synced).map(namespaceKey);
        return [];
      },
    },
    {
      name: POLICY,
      watches: (t, cluster) => cluster === undefined && isPolicy(t),
      reconcile: reconcilePolicy,
      keysFor(c, reader) {
        if (c.cluster !== undefined || !isPolicyChange(c) || c.type === 'DELETED') return [];
        return generationChanged(c) ? [key(c.object), ...deprioritized(c, reader)] : [];
      },
    },
    {
      name: DEPENDENCIES,
      watches: (t, cluster) => cluster === undefined && (is(t, RB) || (isDependencyType(t) && isTemplateType(t))),
      reconcile: reconcileDependencies,
      // A dependency's update counts when more than status or server-owned metadata changed (Karmada's SpecificationChanged).
      keysFor: (c, reader) => (c.type === 'MODIFIED' && !isChangeOf(c, RB) && c.old && sameIgnoringStatus(c.old, c.object) ? [] : dependencyKeys(c, reader)),
    },
    {
      name: SCHEDULER,
      watches: (t, cluster) => cluster === undefined && (isBinding(t) || is(t, CLUSTER)),
      reconcile: reconcileSchedule,
      keysFor(c, reader) {
        if (c.cluster !== undefined) return [];
        if (isBinding(c.object)) {
          const own = c.type !== 'DELETED' && generationChanged(c) ? [key(c.object)] : [];
          // WorkloadAffinity: the group's unscheduled bindings, once a member's targets moved or it went away.
          if (!isChangeOf(c, RB) || c.type === 'ADDED' || (c.type === 'MODIFIED' && c.old && deepEqual(c.old.spec?.clusters, c.object.spec?.clusters))) return own;
          return [...own, ...workloadGroupPeerKeys(c.object, reader).map(key)];
        }
        if (isChangeOf(c, CLUSTER)) {
          const old = c.type === 'MODIFIED' ? c.old : undefined;
          if (old && deepEqual(old.spec, c.object.spec) && deepEqual(old.metadata.labels, c.object.metadata.labels) && !!old.metadata.deletionTimestamp === !!c.object.metadata.deletionTimestamp) {
            // Only the status moved (readiness, APIs, the resource summary at every probe while Pods come and go).
            // Karmada's scheduler ignores such changes; here the bindings still waiting for a placement try again
            // (a member turning Ready or gaining room may be what they wait for), and placed ones stay as they are:
            // waking all of them at every probe kept a thousand Duplicated bindings rescheduling during creates.
            return deepEqual(old.status, c.object.status) ? [] : unscheduledBindings(reader);
          }
          return allBindings(reader);
        }
        return [];
      },
    },
    {
      // Staged rollout (karmada-lite extension): decides which revision each cluster gets, before the binding controller renders.
      name: ROLLOUT,
      watches: (t, cluster) => cluster !== undefined || isBinding(t) || isPolicy(t) || is(t, CLUSTER),
      reconcile: reconcileRollout,
      keysFor: rolloutKeys,
    },
    {
      name: BINDING,
      watches: (t, cluster) => cluster === undefined && (isBinding(t) || is(t, OP) || is(t, COP) || is(t, WORK) || isTemplateType(t)),
      reconcile: reconcileBinding,
      keysFor(c, reader) {
        if (c.cluster !== undefined) return [];
        if (isBinding(c.object)) return c.type !== 'DELETED' && (generationChanged(c) || rolloutRenderChanged(c)) ? [key(c.object)] : [];
        // A deleted template's bindings go through the binding controller (templateGone), so a failed delete is
        // retried like any reconcile; with no garbage collector on the host nothing else would take them.
        if (isTemplateType(c.object)) return c.type === 'DELETED' ? bindingsOwnedBy(c.object, reader).map(key) : [];
        if (is(c.object, OP)) return reader.list(RB, { namespace: c.object.metadata.namespace }).map(key);
        if (is(c.object, COP)) return allBindings(reader);
        if (is(c.object, WORK) && c.type === 'DELETED') {
          const k = bindingKeyOfWork(c.object);
          return k ? [k] : [];
        }
        return [];
      },
    },
    {
      name: EXECUTION,
      watches: (t, cluster) => cluster !== undefined || is(t, WORK) || is(t, CLUSTER),
      reconcile: forExecutedClusters(reconcileWork),
      keysFor(c, reader) {
        if (c.cluster !== undefined) {
          if (c.object.metadata.labels?.[ManagedLabel] !== ManagedLabelValue) return [];
          const k = workKeyOfMember(c.object);
          if (!k) return [];
          if (c.type === 'DELETED') return [k];
          // Karmada ignores the events of its own writes, and updates that only touch status.
          if (c.type === 'MODIFIED' && c.origin !== EXECUTION && c.old && !sameIgnoringStatus(c.old, c.object)) return [k];
          return [];
        }
        if (is(c.object, WORK)) return c.type !== 'DELETED' && generationChanged(c) ? [key(c.object)] : [];
        if (isChangeOf(c, CLUSTER) && clusterReadyChanged(c)) return worksOfCluster(reader, c.object.metadata.name!);
        return [];
      },
    },
    {
      name: WORK_STATUS,
      watches: (t, cluster) => cluster !== undefined || is(t, WORK) || is(t, CLUSTER),
      reconcile: forExecutedClusters(reconcileWorkStatus),
      keysFor(c, reader) {
        if (c.cluster !== undefined) {
          const k = workKeyOfMember(c.object);
          return k && c.type !== 'DELETED' ? [k] : [];
        }
        if (isChangeOf(c, WORK) && c.type !== 'DELETED') {
          const applied = (o: Work | undefined) => findCondition(o?.status?.conditions, WorkApplied)?.status;
          return c.type === 'ADDED' || applied(c.old) !== applied(c.object) ? [key(c.object)] : [];
        }
        if (isChangeOf(c, CLUSTER) && clusterReadyChanged(c)) return worksOfCluster(reader, c.object.metadata.name!);
        return [];
      },
    },
    {
      name: BINDING_STATUS,
      watches: (t, cluster) => cluster === undefined && (isBinding(t) || is(t, WORK)),
      reconcile: reconcileBindingStatus,
      keysFor(c) {
        if (c.cluster !== undefined) return [];
        if (is(c.object, WORK)) {
          if (c.type === 'MODIFIED' && c.old && deepEqual(c.old.status, c.object.status) && !c.object.metadata.deletionTimestamp) return [];
          const k = bindingKeyOfWork(c.object);
          return k ? [k] : [];
        }
        if (isBindingChange(c) && c.type !== 'DELETED') {
          if (!c.object.status?.lastScheduledTime) return [];
          if (c.type === 'ADDED' || !c.old) return [key(c.object)];
          const o = c.old;
          const n = c.object;
          const changed =
            o.spec?.resource?.resourceVersion !== n.spec?.resource?.resourceVersion ||
            o.status?.lastScheduledTime !== n.status?.lastScheduledTime ||
            !deepEqual(o.spec?.clusters, n.spec?.clusters) ||
            !deepEqual(o.spec?.gracefulEvictionTasks, n.spec?.gracefulEvictionTasks) ||
            !deepEqual(o.spec?.requiredBy, n.spec?.requiredBy);
          return changed ? [key(n)] : [];
        }
        return [];
      },
    },
    {
      name: FAILOVER,
      watches: (t, cluster) => cluster === undefined && isBinding(t),
      reconcile: reconcileApplicationFailover,
      keysFor(c) {
        if (c.cluster !== undefined || !isBindingChange(c) || c.type === 'DELETED') return [];
        if (!c.object.spec?.failover?.application && !c.old?.spec?.failover?.application) return [];
        if (c.type === 'MODIFIED' && c.old && deepEqual(c.old.spec, c.object.spec) && deepEqual(c.old.status?.aggregatedStatus, c.object.status?.aggregatedStatus)) return [];
        return [key(c.object)];
      },
    },
    {
      name: TAINT_MANAGER,
      watches: (t, cluster) => cluster === undefined && (isBinding(t) || is(t, CLUSTER)),
      reconcile: reconcileTaintManager,
      keysFor(c, reader) {
        if (c.cluster !== undefined || c.type === 'DELETED') return [];
        if (isBindingChange(c)) {
          if (!taintEvictionApplies(c.object, evictionMode)) return [];
          if (c.type === 'MODIFIED' && c.old && !generationChanged(c) && c.old.metadata.annotations?.[AppliedPlacementAnnotation] === c.object.metadata.annotations?.[AppliedPlacementAnnotation]) return [];
          return [key(c.object)];
        }
        if (isChangeOf(c, CLUSTER)) {
          const now = noExecuteTaints(c.object);
          if (c.type === 'ADDED' ? now.length === 0 : deepEqual(noExecuteTaints(c.old), now)) return [];
          return failoverBindingsOn(reader, c.object.metadata.name!, evictionMode);
        }
        return [];
      },
    },
    {
      name: EVICTION,
      watches: (t, cluster) => cluster === undefined && isBinding(t),
      reconcile: reconcileGracefulEviction,
      keysFor(c) {
        if (c.cluster !== undefined || !isBindingChange(c) || c.type === 'DELETED') return [];
        if (!((c.object.spec?.gracefulEvictionTasks?.length ?? 0) > 0)) return [];
        if (c.type === 'MODIFIED' && c.old && deepEqual(c.old.spec, c.object.spec) && deepEqual(c.old.status, c.object.status)) return [];
        return [key(c.object)];
      },
    },
    {
      // Feeds the scheduler: replicas unschedulable past the threshold leave spec.clusters.
      name: DESCHEDULER,
      watches: (t, cluster) => cluster === undefined && is(t, RB),
      reconcile: reconcileDeschedule,
      keysFor: deschedulerKeys,
    },
    {
      name: WORKLOAD_REBALANCER_CONTROLLER,
      watches: (t, cluster) => cluster === undefined && is(t, WORKLOAD_REBALANCER),
      reconcile: reconcileWorkloadRebalancer,
      keysFor: workloadRebalancerKeys,
    },
    {
      name: CLUSTER_CONTROLLER,
      watches: (t, cluster) => cluster === undefined && (is(t, CLUSTER) || is(t, WORK)),
      reconcile: reconcileCluster,
      keysFor(c) {
        if (c.cluster !== undefined) return [];
        if (isChangeOf(c, CLUSTER) && c.type !== 'DELETED') return c.object.metadata.deletionTimestamp || readyOrTaintsChanged(c) ? [key(c.object)] : [];
        if (is(c.object, WORK) && c.type === 'DELETED') {
          const ns = c.object.metadata.namespace ?? '';
          if (ns.startsWith('karmada-es-')) return [refKey({ apiVersion: CLUSTER.apiVersion, kind: CLUSTER.kind, name: ns.slice('karmada-es-'.length) })];
        }
        return [];
      },
    },
    {
      // Karmada's monitorClusterHealth for Pull clusters: Ready Unknown once the agent's Lease went stale, then
      // the cluster controller's taints. Only where agents execute the Pull clusters (the controller, Push):
      // plan and the embedded store simulate every member, so there it watches nothing.
      name: PULL_CLUSTER_HEALTH,
      watches: (t, cluster) => opts.executionSyncMode === 'Push' && cluster === undefined && (is(t, CLUSTER) || is(t, LEASE)),
      reconcile: reconcilePullClusterHealth,
      keysFor: pullClusterHealthKeys,
    },
    {
      name: CLUSTER_TAINT_POLICY,
      watches: (t, cluster) => cluster === undefined && (is(t, CLUSTER) || is(t, CTP)),
      reconcile: reconcileClusterTaintPolicy,
      keysFor(c, reader) {
        if (c.cluster !== undefined || c.type === 'DELETED') return [];
        if (isChangeOf(c, CLUSTER)) {
          if (c.type === 'MODIFIED' && c.old && deepEqual(c.old.status?.conditions, c.object.status?.conditions)) return [];
          return [key(c.object)];
        }
        if (isChangeOf(c, CTP)) {
          if (c.type === 'MODIFIED' && c.old && deepEqual(c.old.spec, c.object.spec)) return [];
          return clustersOfPolicy(reader, c.object).map((name) => refKey({ apiVersion: CLUSTER.apiVersion, kind: CLUSTER.kind, name }));
        }
        return [];
      },
    },
    {
      // Karmada's remedy controller: a Cluster is looked at when its conditions or its actions change (someone
      // else rewrote them), and when a Remedy that may look at it is added, edited or deleted.
      name: REMEDY_CONTROLLER,
      watches: (t, cluster) => cluster === undefined && (is(t, CLUSTER) || is(t, REMEDY)),
      reconcile: reconcileRemedy,
      keysFor(c, reader) {
        if (c.cluster !== undefined) return [];
        if (isChangeOf(c, CLUSTER)) {
          if (c.type === 'DELETED') return [];
          const old = c.type === 'MODIFIED' ? c.old : undefined;
          if (old && deepEqual(old.status?.conditions, c.object.status?.conditions) && deepEqual(old.status?.remedyActions ?? [], c.object.status?.remedyActions ?? [])) return [];
          return [key(c.object)];
        }
        if (isChangeOf(c, REMEDY)) {
          if (c.type === 'MODIFIED' && c.old && deepEqual(c.old.spec, c.object.spec)) return [];
          return clustersOfRemedy(reader, [c.object, c.type === 'MODIFIED' ? c.old : undefined]);
        }
        return [];
      },
    },
    {
      // Karmada's hpaScaleTargetMarker, off by default as there: the workload an HPA points at, before and
      // after a change of the HPA, is looked at again.
      name: HPA_SCALE_TARGET_MARKER,
      disabledByDefault: true,
      watches: (t, cluster) => cluster === undefined && isHpaType(t),
      reconcile: reconcileHpaScaleTarget,
      keysFor(c) {
        if (c.cluster !== undefined || !isHpaType(c.object)) return [];
        const now = scaleTargetKey(c.object);
        const before = c.type === 'MODIFIED' ? scaleTargetKey(c.old) : undefined;
        if (c.type === 'MODIFIED' && c.old && now === before && hasBeenPropagated(c.old) === hasBeenPropagated(c.object)) return [];
        return [...new Set([now, before].filter((k): k is string => k !== undefined))];
      },
    },
    {
      // Karmada's deploymentReplicasSyncer, off by default as there: a template whose members' HPAs own the
      // replicas, when its replicas or the status its binding collected change.
      name: DEPLOYMENT_REPLICAS_SYNCER,
      disabledByDefault: true,
      watches: (t, cluster) => cluster === undefined && (is(t, DEPLOYMENT) || is(t, RB)),
      reconcile: reconcileDeploymentReplicas,
      keysFor(c) {
        if (c.cluster !== undefined || c.type === 'DELETED') return [];
        if (is(c.object, DEPLOYMENT)) {
          if (!retainsReplicas(c.object)) return [];
          const old = c.type === 'MODIFIED' ? c.old : undefined;
          if (old && retainsReplicas(old) && old.spec?.replicas === c.object.spec?.replicas && old.status?.replicas === c.object.status?.replicas) return [];
          return [key(c.object)];
        }
        if (isChangeOf(c, RB)) {
          const res = c.object.spec.resource;
          if (!is(res, DEPLOYMENT)) return [];
          const old = c.type === 'MODIFIED' ? c.old : undefined;
          if (old && old.spec.replicas === c.object.spec.replicas && deepEqual(old.status, c.object.status) && old.metadata.generation === c.object.metadata.generation) return [];
          return [refKey({ apiVersion: DEPLOYMENT.apiVersion, kind: DEPLOYMENT.kind, namespace: c.object.metadata.namespace, name: res.name })];
        }
        return [];
      },
    },
    {
      // Karmada's cronFederatedHorizontalPodAutoscaler: a CronFederatedHPA whose spec changed; its rules' times
      // come back through requeueAfterSeconds.
      name: CRON_FHPA_CONTROLLER,
      watches: (t, cluster) => cluster === undefined && is(t, CRON_FHPA),
      reconcile: reconcileCronFederatedHPA,
      keysFor: (c) => (c.cluster === undefined && c.type !== 'DELETED' && is(c.object, CRON_FHPA) && generationChanged(c) ? [key(c.object)] : []),
    },
    {
      // Karmada's federatedHorizontalPodAutoscaler: a FederatedHPA whose spec changed; then every sync period
      // (15 s) through requeueAfterSeconds, as the metrics change without a watch event.
      name: FHPA_CONTROLLER,
      watches: (t, cluster) => cluster === undefined && is(t, FHPA),
      reconcile: reconcileFederatedHPA,
      keysFor: (c) => (c.cluster === undefined && c.type !== 'DELETED' && is(c.object, FHPA) && generationChanged(c) ? [key(c.object)] : []),
    },
    ...federatedResourceQuotaControllers(),
    ...multiClusterServiceControllers(),
    ...serviceExportControllers(),
    {
      // A RIC's ScriptsHealthy condition. The interpreter enqueues a RIC whose failure records change
      // (it is the one that sees scripts fail); a RIC added or edited is looked at here.
      name: INTERPRETER_HEALTH,
      watches: (t, cluster) => cluster === undefined && is(t, RIC),
      reconcile: reconcileInterpreterHealth,
      keysFor: (c) => (c.cluster === undefined && is(c.object, RIC) && generationChanged(c) ? [key(c.object)] : []),
    },
  ];
}

export { ROLLOUT };
export { BINDING, BINDING_STATUS, CLUSTER_CONTROLLER, CLUSTER_TAINT_POLICY, REMEDY_CONTROLLER, DEPENDENCIES, NAMESPACE_SYNC, DESCHEDULER, DETECTOR, EVICTION, EXECUTION, FAILOVER, INTERPRETER_HEALTH, POLICY, SCHEDULER, TAINT_MANAGER, WORK_STATUS, WORKLOAD_REBALANCER_CONTROLLER };
