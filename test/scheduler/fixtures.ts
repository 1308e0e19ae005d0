/**
 * Builders shared by the scheduler tests and the conformance runner: compact cluster and binding
 * descriptions (documented in conformance/scheduler/README.md) expanded into Karmada objects.
 */
import type { Binding, Cluster, Placement, TargetCluster } from '../../src/scheduler/types.js';
import { APPLIED_PLACEMENT_ANNOTATION } from '../../src/scheduler/messages.js';

export interface CompactCluster {
  name: string;
  labels?: Record<string, string>;
  provider?: string;
  region?: string;
  zone?: string;
  zones?: string[];
  taints?: Array<{ key: string; value?: string; effect: string }>;
  deleting?: boolean;
  /** Shorthand: allocatable pods (what a workload without requirements can get). */
  available?: number;
  allocatable?: Record<string, string | number>;
  allocated?: Record<string, string | number>;
  allocating?: Record<string, string | number>;
  allocatableModelings?: Array<{ grade: number; count: number }>;
  resourceModels?: Array<{ grade: number; ranges: Array<{ name: string; min: string | number; max: string | number }> }>;
  /** No resource summary at all (the general estimator gives 0). */
  noSummary?: boolean;
  /** `groupVersion/Kind` entries; default: the binding's resource only. */
  apis?: string[];
}

export const DEFAULT_RESOURCE = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'default' };
export const DEFAULT_PODS = 100;

export function cluster(c: CompactCluster | string, resource: { apiVersion: string; kind: string } = DEFAULT_RESOURCE): Cluster {
  if (typeof c === 'string') c = { name: c };
  const apis = c.apis ?? [`${resource.apiVersion}/${resource.kind}`];
  const byGV = new Map<string, string[]>();
  for (const a of apis) {
    const i = a.lastIndexOf('/');
    const gv = a.slice(0, i);
    const kind = a.slice(i + 1);
    byGV.set(gv, [...(byGV.get(gv) ?? []), kind]);
  }
  const allocatable = c.allocatable ?? { pods: c.available ?? DEFAULT_PODS };
  if (c.available !== undefined && c.allocatable) allocatable.pods = c.available;
  const out: Cluster = {
    metadata: {
      name: c.name,
      labels: c.labels ?? {},
      ...(c.deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}),
    },
    spec: {
      ...(c.provider ? { provider: c.provider } : {}),
      ...(c.region ? { region: c.region } : {}),
      ...(c.zone ? { zone: c.zone } : {}),
      ...(c.zones ? { zones: c.zones } : {}),
      ...(c.taints ? { taints: c.taints } : {}),
      ...(c.resourceModels ? { resourceModels: c.resourceModels } : {}),
    },
    status: {
      apiEnablements: [...byGV].map(([groupVersion, kinds]) => ({
        groupVersion,
        resources: kinds.map((kind) => ({ name: kind.toLowerCase() + 's', kind })),
      })),
      ...(c.noSummary
        ? {}
        : {
            resourceSummary: {
              allocatable,
              ...(c.allocated ? { allocated: c.allocated } : {}),
              ...(c.allocating ? { allocating: c.allocating } : {}),
              ...(c.allocatableModelings ? { allocatableModelings: c.allocatableModelings } : {}),
            },
          }),
    },
  };
  return out;
}

/** `"m1:3"` is `{name: m1, replicas: 3}`; `"m1"` has no replicas field. */
export function target(t: string | TargetCluster): TargetCluster {
  if (typeof t !== 'string') return t;
  const i = t.indexOf(':');
  return i < 0 ? { name: t.trim() } : { name: t.slice(0, i).trim(), replicas: Number(t.slice(i + 1)) };
}

export function targets(list: ReadonlyArray<string | TargetCluster> | null | undefined): TargetCluster[] | null | undefined {
  if (list === null || list === undefined) return list;
  return list.map(target);
}

export interface CompactBinding {
  kind?: string;
  metadata?: Binding['metadata'];
  spec?: Partial<Binding['spec']>;
  status?: Binding['status'];
  name?: string;
  namespace?: string;
  generation?: number;
  deleting?: boolean;
  replicas?: number;
  placement?: Placement;
  clusters?: Array<string | TargetCluster> | null;
  uid?: string;
  resource?: Partial<Binding['spec']['resource']>;
  resourceRequest?: Record<string, string | number>;
  gracefulEvictionTasks?: Binding['spec']['gracefulEvictionTasks'];
  activeEvictionHistory?: Binding['spec']['activeEvictionHistory'];
  failover?: Binding['spec']['failover'];
  rescheduleTriggeredAt?: string;
  observedAffinity?: string;
  lastScheduledTime?: string;
  observedGeneration?: number;
  /** The applied-placement annotation: `current` for the binding's own placement, else a placement object or raw string. */
  appliedPlacement?: 'current' | Placement | string;
  labels?: Record<string, string>;
  schedulerName?: string;
}

export function binding(b: CompactBinding = {}): Binding {
  const resource = { ...DEFAULT_RESOURCE, ...(b.spec?.resource ?? {}), ...(b.resource ?? {}) };
  if (b.uid !== undefined) resource.uid = b.uid;
  const spec: Binding['spec'] = { ...(b.spec ?? {}), resource } as Binding['spec'];
  if (b.replicas !== undefined) spec.replicas = b.replicas;
  if (b.placement !== undefined) spec.placement = b.placement;
  if (spec.placement === undefined) spec.placement = {};
  if (b.clusters !== undefined) spec.clusters = targets(b.clusters);
  else if (spec.clusters) spec.clusters = targets(spec.clusters as Array<string | TargetCluster>);
  if (b.resourceRequest !== undefined) spec.replicaRequirements = { resourceRequest: b.resourceRequest };
  if (b.gracefulEvictionTasks !== undefined) spec.gracefulEvictionTasks = b.gracefulEvictionTasks;
  if (b.activeEvictionHistory !== undefined) spec.activeEvictionHistory = b.activeEvictionHistory;
  if (b.failover !== undefined) spec.failover = b.failover;
  if (b.rescheduleTriggeredAt !== undefined) spec.rescheduleTriggeredAt = b.rescheduleTriggeredAt;
  if (b.schedulerName !== undefined) spec.schedulerName = b.schedulerName;
  const status: NonNullable<Binding['status']> = { ...(b.status ?? {}) };
  if (b.observedAffinity !== undefined) status.schedulerObservingAffinityName = b.observedAffinity;
  if (b.lastScheduledTime !== undefined) status.lastScheduledTime = b.lastScheduledTime;
  if (b.observedGeneration !== undefined) status.schedulerObservedGeneration = b.observedGeneration;
  const annotations: Record<string, string> = { ...(b.metadata?.annotations ?? {}) };
  if (b.appliedPlacement !== undefined) {
    annotations[APPLIED_PLACEMENT_ANNOTATION] =
      b.appliedPlacement === 'current'
        ? JSON.stringify(spec.placement)
        : typeof b.appliedPlacement === 'string'
          ? b.appliedPlacement
          : JSON.stringify(b.appliedPlacement);
  }
  const clusterScoped = b.kind === 'ClusterResourceBinding';
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: b.kind ?? 'ResourceBinding',
    metadata: {
      name: b.name ?? `${resource.name}-${resource.kind.toLowerCase()}`,
      ...(clusterScoped ? {} : { namespace: b.namespace ?? 'default' }),
      generation: b.generation ?? 1,
      labels: b.labels ?? { 'propagationpolicy.karmada.io/permanent-id': 'f3e8d3f2-0000-4000-8000-000000000001' },
      ...(b.deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}),
      ...(b.metadata ?? {}),
      annotations,
    },
    spec,
    status,
  };
}
