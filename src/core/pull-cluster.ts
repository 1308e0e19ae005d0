/**
 * Readiness of a Pull cluster, decided on the control plane from the agent's heartbeat (Karmada's
 * cluster controller, monitorClusterHealth): the controller never connects to a Pull member, so when
 * neither the agent's Lease karmada-cluster/<name> nor the Ready condition moved for the grace period,
 * Ready turns Unknown; the taint rules (taint.ts) then act on it as for a Push cluster.
 *
 * Pure: the clock comes in as `now`, the Lease's renewTime as a string (or undefined when there is none).
 */
import type { Condition } from '../api/condition.js';
import { ClusterConditionReady, ExecutionControllerFinalizer, generateExecutionSpaceName, getClusterName } from '../api/constants.js';
import type { Cluster } from '../api/generated/types.js';
import { CLUSTER, is, WORK } from './kinds.js';
import { findCondition, parseRefKey, refKey, removeFinalizer, withMeta, type TypeRef } from './object.js';
import { emptyResult, isChangeOf, type ObjectChange, type ObjectReader, type ReconcileContext, type ReconcileResult, type Write } from './ports.js';

/** Karmada's defaults: --cluster-monitor-grace-period 40s, --cluster-startup-grace-period 60s. */
export const DefaultClusterMonitorGracePeriodSeconds = 40;
export const DefaultClusterStartupGracePeriodSeconds = 60;

export const NamespaceClusterLease = 'karmada-cluster';

export interface PullHealthOptions {
  monitorGracePeriodSeconds?: number;
  startupGracePeriodSeconds?: number;
}

export interface PullHealthDecision {
  /** The Ready condition to write, when it must change; undefined: leave the status as it is. */
  ready?: Condition;
  /** When to look again (seconds from now), while the cluster is still within its grace period. */
  requeueAfterSeconds?: number;
}

export function isPullCluster(c: Pick<Cluster, 'spec'> | undefined): boolean {
  return c?.spec?.syncMode === 'Pull';
}

function ms(t: string | undefined): number | undefined {
  if (!t) return undefined;
  const v = Date.parse(t);
  return Number.isNaN(v) ? undefined : v;
}

/**
 * The last sign of life is the later of the Lease's renewTime and the Ready condition's transition (or,
 * before the agent ever posted status, the Cluster's creation, with the longer startup grace).
 */
export function decidePullClusterHealth(
  cluster: Cluster,
  leaseRenewTime: string | undefined,
  now: Date,
  opts: PullHealthOptions = {},
): PullHealthDecision {
  if (!isPullCluster(cluster)) return {};
  const conditions: Condition[] = cluster.status?.conditions ?? [];
  const current = conditions.find((c) => c.type === ClusterConditionReady);
  const grace = current
    ? (opts.monitorGracePeriodSeconds ?? DefaultClusterMonitorGracePeriodSeconds)
    : (opts.startupGracePeriodSeconds ?? DefaultClusterStartupGracePeriodSeconds);
  const since = current ? ms(current.lastTransitionTime) : ms(cluster.metadata.creationTimestamp ?? undefined);
  const renewed = ms(leaseRenewTime);
  const probe = Math.max(since ?? 0, renewed ?? 0);
  const deadline = probe + grace * 1000;
  const nowMs = now.getTime();
  if (nowMs <= deadline) return { requeueAfterSeconds: Math.max(1, Math.ceil((deadline - nowMs) / 1000)) };
  const stamp = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (!current) {
    return {
      ready: {
        type: ClusterConditionReady,
        status: 'Unknown',
        reason: 'ClusterStatusNeverUpdated',
        message: 'Cluster status controller never posted cluster status.',
        lastTransitionTime: stamp,
      },
    };
  }
  if (current.status === 'Unknown') return {};
  return {
    ready: {
      ...current,
      status: 'Unknown',
      reason: 'ClusterStatusUnknown',
      message: 'Cluster status controller stopped posting cluster status.',
      lastTransitionTime: stamp,
    },
  };
}

/** The Cluster with its Ready condition replaced by `ready` (other conditions kept in their order). */
export function withReadyCondition(cluster: Cluster, ready: Condition): Cluster {
  const conditions = (cluster.status?.conditions ?? []).filter((c) => c.type !== ClusterConditionReady);
  return { ...cluster, status: { ...(cluster.status ?? {}), conditions: [...conditions, ready] } };
}

/**
 * Which Works this process executes (Karmada's helper predicates): the control plane's execution and
 * work-status controllers take the Works of Push clusters only, an agent those of its own Pull cluster.
 * `executionSyncMode` unset (the embedded store, `plan`): every cluster's Works, as before.
 */
export function executesWorkOf(ctx: ReconcileContext, key: string): boolean {
  const mode = ctx.options.executionSyncMode;
  if (mode === undefined) return true;
  let clusterName: string;
  try {
    clusterName = getClusterName(parseRefKey(key).namespace ?? '');
  } catch {
    return true; // the reconciler reports the bad namespace itself
  }
  const cluster = ctx.reader.get(CLUSTER, undefined, clusterName);
  if (!cluster) return true;
  return (cluster.spec?.syncMode ?? 'Push') === mode;
}

/** `reconcile` limited to the Works of the clusters this process executes; others are left untouched. */
export function forExecutedClusters(reconcile: (ctx: ReconcileContext, key: string) => ReconcileResult) {
  return (ctx: ReconcileContext, key: string): ReconcileResult => (executesWorkOf(ctx, key) ? reconcile(ctx, key) : emptyResult());
}

/**
 * Karmada's removeExecutionSpace for a Pull cluster being deleted while not Ready: nobody will clean the
 * member any more, so its Works lose the execution controller's finalizer and the cluster controller's
 * deletion of them (and then of the Cluster) completes. A Ready agent removes the finalizers itself.
 */
function releaseWorksOfSilentCluster(ctx: ReconcileContext, c: Cluster): ReconcileResult {
  if (findCondition(c.status?.conditions, ClusterConditionReady)?.status === 'True') return emptyResult();
  const works = ctx.reader.list(WORK, { namespace: generateExecutionSpaceName(c.metadata.name ?? '') });
  const writes: Write[] = [];
  for (const w of works) {
    if (!w.metadata.finalizers?.includes(ExecutionControllerFinalizer)) continue;
    const next = withMeta(w);
    removeFinalizer(next, ExecutionControllerFinalizer);
    writes.push({ op: 'update', object: next });
  }
  return { writes, events: [] };
}

/** The controller's name (`--controllers`): Karmada runs this inside its cluster controller (README differs). */
export const PULL_CLUSTER_HEALTH = 'pull-cluster-health';

/** `--cluster-monitor-grace-period` and `--cluster-startup-grace-period` from the core options. */
export function pullHealthOptionsOf(ctx: ReconcileContext): PullHealthOptions {
  return { monitorGracePeriodSeconds: ctx.options.clusterMonitorGracePeriodSeconds, startupGracePeriodSeconds: ctx.options.clusterStartupGracePeriodSeconds };
}

/**
 * The Cluster keys a change concerns: a Pull Cluster added, turned Pull, or whose Ready condition moved
 * (a new deadline), and the Cluster a heartbeat Lease in karmada-cluster belongs to.
 */
export function pullClusterHealthKeys(c: ObjectChange, reader: ObjectReader): string[] {
  if (c.cluster !== undefined) return [];
  const clusterKey = (name: string) => refKey({ apiVersion: CLUSTER.apiVersion, kind: CLUSTER.kind, name });
  if (isChangeOf(c, CLUSTER)) {
    if (c.type === 'DELETED' || !isPullCluster(c.object)) return [];
    if (c.type === 'MODIFIED' && c.old && isPullCluster(c.old) && !!c.old.metadata.deletionTimestamp === !!c.object.metadata.deletionTimestamp) {
      const a = findCondition(c.old.status?.conditions, ClusterConditionReady);
      const b = findCondition(c.object.status?.conditions, ClusterConditionReady);
      if (a?.status === b?.status && a?.lastTransitionTime === b?.lastTransitionTime) return [];
    }
    return [clusterKey(c.object.metadata.name ?? '')];
  }
  if (is(c.object, LEASE) && c.object.metadata.namespace === NamespaceClusterLease) {
    const name = c.object.metadata.name ?? '';
    return isPullCluster(reader.get(CLUSTER, undefined, name)) ? [clusterKey(name)] : [];
  }
  return [];
}

/** The agent's heartbeat: coordination.k8s.io Lease karmada-cluster/<cluster name>. */
export const LEASE: TypeRef = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' };

/**
 * The control plane's part for a Pull cluster: Ready Unknown once the heartbeat is older than the grace
 * period (a status write; the cluster controller's taint rules then follow), else a look again when it would be.
 */
export function reconcilePullClusterHealth(ctx: ReconcileContext, key: string, opts: PullHealthOptions = pullHealthOptionsOf(ctx)): ReconcileResult {
  // Only where agents execute the Pull clusters: plan and the embedded store (executionSyncMode unset)
  // simulate every member themselves, and an agent (Pull) keeps its own cluster's Ready condition.
  if (ctx.options.executionSyncMode !== 'Push') return emptyResult();
  const c = ctx.reader.get(CLUSTER, undefined, parseRefKey(key).name);
  if (!c || !isPullCluster(c)) return emptyResult();
  if (c.metadata.deletionTimestamp) return releaseWorksOfSilentCluster(ctx, c);
  const lease = ctx.reader.get(LEASE, NamespaceClusterLease, c.metadata.name ?? '');
  const renewTime = typeof lease?.spec?.renewTime === 'string' ? lease.spec.renewTime : undefined;
  const d = decidePullClusterHealth(c, renewTime, ctx.now, opts);
  if (!d.ready) return { ...emptyResult(), requeueAfterSeconds: d.requeueAfterSeconds };
  return { writes: [{ op: 'updateStatus', object: withReadyCondition(c, d.ready) }], events: [] };
}
