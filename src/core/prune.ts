/**
 * What the binding controller removes from a template before it becomes a Work manifest: fields the
 * control plane's apiserver and controllers own, which must not be pushed to a member cluster.
 */
import type { KObject } from './object.js';

const PRUNED_METADATA = [
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'managedFields',
  'resourceVersion',
  'selfLink',
  'uid',
  'ownerReferences',
  'finalizers',
] as const;

const JOB_GENERATED_LABELS = ['controller-uid', 'batch.kubernetes.io/controller-uid', 'job-name', 'batch.kubernetes.io/job-name'];

/** Prunes a mutable manifest in place. */
export function pruneManifest(m: KObject): void {
  const meta = m.metadata as Record<string, unknown>;
  for (const k of PRUNED_METADATA) delete meta[k];
  delete m.status;
  switch (m.kind) {
    case 'Deployment':
      if (m.metadata.annotations) {
        delete m.metadata.annotations['deployment.kubernetes.io/revision'];
        if (!Object.keys(m.metadata.annotations).length) delete m.metadata.annotations;
      }
      break;
    case 'Job': {
      if (m.spec) {
        delete m.spec.ttlSecondsAfterFinished;
        if (m.spec.manualSelector !== true) {
          const sel = m.spec.selector?.matchLabels as Record<string, string> | undefined;
          if (sel && JOB_GENERATED_LABELS.some((l) => l in sel)) delete m.spec.selector;
          const labels = m.spec.template?.metadata?.labels as Record<string, string> | undefined;
          if (labels) for (const l of JOB_GENERATED_LABELS) delete labels[l];
        }
      }
      break;
    }
    case 'Service':
      if (m.spec && m.spec.clusterIP !== 'None') {
        delete m.spec.clusterIP;
        delete m.spec.clusterIPs;
      }
      break;
    case 'ServiceAccount':
      if (Array.isArray(m.secrets)) {
        const name = m.metadata.name ?? '';
        const kept = (m.secrets as Array<{ name?: string }>).filter((s) => !(s.name ?? '').startsWith(`${name}-token-`));
        if (kept.length) m.secrets = kept;
        else delete m.secrets;
      }
      break;
    case 'Secret':
      if (m.type === 'kubernetes.io/service-account-token') {
        delete m.data;
        if (m.metadata.annotations) delete m.metadata.annotations['kubernetes.io/service-account.uid'];
      }
      break;
  }
}
