/**
 * Karmada's deployment replicas syncer (pkg/controllers/deploymentreplicassyncer): a Deployment template whose
 * member copies are scaled by HPAs in the members (label `resourcetemplate.karmada.io/retain-replicas: "true"`,
 * put there by the HPA scale target marker) gets `spec.replicas` from what the members run, the
 * `status.replicas` the status controller aggregated into the template. Without it the template keeps the
 * replicas a person wrote, the scheduler keeps dividing those, and every member HPA decision is invisible on
 * the control plane.
 *
 * It writes only once everything it reads agrees, as Karmada's isDeploymentStatusCollected: the binding carries
 * the template's current replicas, the scheduler acted on the binding's generation, every scheduled cluster
 * reported a status with replicas above 0 (an HPA's minReplicas is at least 1, so 0 means not reported yet),
 * and their sum is the template's status.replicas. Karmada polls that every second; here the changes of the
 * template and of its binding wake the same check.
 */
import { generateBindingName, RetainReplicasLabel, RetainReplicasValue } from '../api/constants.js';
import type { ResourceBinding } from '../api/generated/types.js';
import { replicaSchedulingType } from '../scheduler/types.js';
import { RB } from './kinds.js';
import { parseRefKey, withMetaAndSpec, type KObject } from './object.js';
import { emptyResult, type ReconcileContext, type ReconcileResult } from './ports.js';

/** The name karmada-lite's --controllers knows it by (Karmada's deploymentReplicasSyncer; off by default there too). */
export const DEPLOYMENT_REPLICAS_SYNCER = 'deployment-replicas-syncer';

export const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;

/** Whether the members' HPAs own this template's replicas. */
export const retainsReplicas = (o: KObject | undefined): boolean => o?.metadata.labels?.[RetainReplicasLabel] === RetainReplicasValue;

const integer = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);

/** The binding of a Deployment template, by Karmada's name for it. */
export function deploymentBinding(ctx: ReconcileContext, namespace: string, name: string): ResourceBinding | undefined {
  return ctx.reader.get(RB, namespace, generateBindingName(DEPLOYMENT.kind, name));
}

/**
 * Why the template's status.replicas cannot be taken as the members' count yet, or undefined when it can
 * (Karmada's isDeploymentStatusCollected, its checks in its order).
 */
export function replicasNotCollected(deployment: KObject, binding: ResourceBinding): string | undefined {
  const specReplicas = integer(deployment.spec?.replicas);
  if (specReplicas === undefined) return 'the template has no spec.replicas';
  if (specReplicas !== (binding.spec.replicas ?? 0)) return `the binding carries ${binding.spec.replicas ?? 0} replicas, the template ${specReplicas}`;
  if (binding.metadata.generation !== binding.status?.schedulerObservedGeneration) return 'the scheduler has not acted on the binding yet';
  const collected = binding.status?.aggregatedStatus ?? [];
  if (collected.length !== (binding.spec.clusters ?? []).length) return `${collected.length} of ${(binding.spec.clusters ?? []).length} clusters reported`;
  let sum = 0;
  for (const item of collected) {
    const replicas = integer(item.status?.replicas) ?? 0;
    if (replicas <= 0) return `${item.clusterName} has not reported its replicas`;
    sum += replicas;
  }
  const statusReplicas = integer(deployment.status?.replicas) ?? 0;
  if (statusReplicas !== sum) return `the template's status.replicas ${statusReplicas} is not yet the members' ${sum}`;
  return undefined;
}

export function reconcileDeploymentReplicas(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const deployment = ctx.reader.get(DEPLOYMENT, ref.namespace, ref.name);
  if (!deployment || deployment.metadata.deletionTimestamp || !retainsReplicas(deployment)) return emptyResult();
  const binding = deploymentBinding(ctx, ref.namespace ?? '', ref.name);
  if (!binding || replicaSchedulingType(binding.spec.placement) !== 'Divided') return emptyResult();
  const statusReplicas = integer(deployment.status?.replicas) ?? 0;
  if (integer(deployment.spec?.replicas) === statusReplicas) return emptyResult();
  if (replicasNotCollected(deployment, binding) !== undefined) return emptyResult();
  const synced = withMetaAndSpec(deployment);
  synced.spec.replicas = statusReplicas;
  return { writes: [{ op: 'update', object: synced }], events: [] };
}
