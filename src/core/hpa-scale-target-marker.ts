/**
 * Karmada's HPA scale target marker (pkg/controllers/hpascaletargetmarker): the workload an HPA scales, once
 * that HPA is propagated (it carries a PropagationPolicy or ClusterPropagationPolicy permanent-id label), gets
 * `resourcetemplate.karmada.io/retain-replicas: "true"`. From then on the members' HPAs own the replicas: the
 * Deployment's Retain keeps each member's spec.replicas, and the deployment replicas syncer brings their sum
 * back into the template.
 *
 * Karmada acts on HPA events: it adds the label for a propagated HPA, and takes it off the old target when an
 * HPA is deleted or points elsewhere. Here a target is looked at whenever an HPA that points (or pointed) at
 * it changes, and the label follows what the HPAs say now: on while a propagated HPA points at it, off once
 * none points at it at all. An HPA that points at it without being propagated leaves the label as it is, as
 * Karmada leaves it.
 */
import { ClusterPropagationPolicyPermanentIDLabel, PropagationPolicyPermanentIDLabel, RetainReplicasLabel, RetainReplicasValue } from '../api/constants.js';
import { parseRefKey, refKey, typeKey, withMeta, type KObject, type TypeRef } from './object.js';
import { emptyResult, type ObjectReader, type ReconcileContext, type ReconcileResult } from './ports.js';

/** The name karmada-lite's --controllers knows it by (Karmada's hpaScaleTargetMarker; off by default there too). */
export const HPA_SCALE_TARGET_MARKER = 'hpa-scale-target-marker';

const HPA_GROUP_KIND = typeKey({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' });

export const isHpaType = (t: TypeRef): boolean => typeKey(t) === HPA_GROUP_KIND;

interface ScaleTarget {
  apiVersion: string;
  kind: string;
  name: string;
}

/** spec.scaleTargetRef, when it names something (the same shape in autoscaling/v1 and v2). */
export function scaleTargetOf(hpa: KObject | undefined): ScaleTarget | undefined {
  // spec is untyped JSON: each field is checked before it is used.
  const apiVersion: unknown = hpa?.spec?.scaleTargetRef?.apiVersion;
  const kind: unknown = hpa?.spec?.scaleTargetRef?.kind;
  const name: unknown = hpa?.spec?.scaleTargetRef?.name;
  return typeof apiVersion === 'string' && typeof kind === 'string' && typeof name === 'string' && name !== '' ? { apiVersion, kind, name } : undefined;
}

/** Karmada's hasBeenPropagated: a policy claimed the HPA. */
export const hasBeenPropagated = (hpa: KObject): boolean =>
  hpa.metadata.labels?.[PropagationPolicyPermanentIDLabel] !== undefined || hpa.metadata.labels?.[ClusterPropagationPolicyPermanentIDLabel] !== undefined;

/** The queue key of the workload an HPA scales (in the HPA's namespace). */
export function scaleTargetKey(hpa: KObject | undefined): string | undefined {
  const t = scaleTargetOf(hpa);
  return t && hpa ? refKey({ apiVersion: t.apiVersion, kind: t.kind, namespace: hpa.metadata.namespace, name: t.name }) : undefined;
}

const pointsAt = (hpa: KObject, target: ScaleTarget): boolean => {
  const t = scaleTargetOf(hpa);
  return t !== undefined && t.name === target.name && typeKey(t) === typeKey(target);
};

/** The HPAs of a namespace, from every HPA version the reader watches (a policy may select v1 or v2). */
function hpasIn(reader: ObjectReader, namespace: string | undefined): KObject[] {
  return reader.types().filter(isHpaType).flatMap((t) => reader.list(t, { namespace }));
}

export function reconcileHpaScaleTarget(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const target = ctx.reader.get({ apiVersion: ref.apiVersion, kind: ref.kind }, ref.namespace, ref.name);
  if (!target || target.metadata.deletionTimestamp) return emptyResult();
  const pointing = hpasIn(ctx.reader, ref.namespace).filter((h) => !h.metadata.deletionTimestamp && pointsAt(h, ref));
  const marked = target.metadata.labels?.[RetainReplicasLabel] === RetainReplicasValue;
  const want = pointing.some(hasBeenPropagated) ? true : pointing.length === 0 ? false : marked;
  if (want === marked) return emptyResult();
  const next = withMeta(target);
  const labels = { ...(next.metadata.labels ?? {}) };
  if (want) labels[RetainReplicasLabel] = RetainReplicasValue;
  else delete labels[RetainReplicasLabel];
  next.metadata.labels = labels;
  return { writes: [{ op: 'update', object: next }], events: [] };
}
