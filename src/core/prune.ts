/**
 * Karmada's RemoveIrrelevantFields (native-interpreters spec §8): not an interpreter hook, applied to
 * manifests before they go into a Work and to member objects before comparison. Rules match on `kind`
 * only (any group). Returns a pruned deep copy; the input is left alone.
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

const METADATA_FIELDS = [
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
];

const JOB_SELECTOR_LABELS = ['controller-uid', 'batch.kubernetes.io/controller-uid'];
const JOB_TEMPLATE_LABELS = ['controller-uid', 'job-name', 'batch.kubernetes.io/controller-uid', 'batch.kubernetes.io/job-name'];

export interface PruneOptions {
  /** Also drop Job `spec.ttlSecondsAfterFinished` (the Work path and webhook do; `karmadactl promote` does not). */
  jobTTL?: boolean;
}

export function removeIrrelevantFields(input: Obj, opts: PruneOptions = {}): Obj {
  return pruneInPlace(structuredClone(input), opts);
}

/** The same pruning on an object the caller owns (the binding controller prunes its own render copy). */
export function pruneInPlace(obj: Obj, opts: PruneOptions = {}): Obj {
  const metadata = isObj(obj.metadata) ? obj.metadata : null;
  if (metadata) for (const f of METADATA_FIELDS) delete metadata[f];
  delete obj.status;
  const annotations = metadata && isObj(metadata.annotations) ? metadata.annotations : null;
  const spec = isObj(obj.spec) ? obj.spec : null;

  switch (obj.kind) {
    case 'Deployment':
      if (annotations) {
        delete annotations['deployment.kubernetes.io/revision'];
        delete annotations['deployment.kubernetes.io/revision-history'];
      }
      break;
    case 'Job':
      if (spec) {
        if (spec.manualSelector !== true) {
          const selector = isObj(spec.selector) ? spec.selector : null;
          if (selector && isObj(selector.matchLabels)) for (const l of JOB_SELECTOR_LABELS) delete selector.matchLabels[l];
          const tmeta = isObj(spec.template) && isObj(spec.template.metadata) ? spec.template.metadata : null;
          if (tmeta && isObj(tmeta.labels)) for (const l of JOB_TEMPLATE_LABELS) delete tmeta.labels[l];
        }
        if (opts.jobTTL) delete spec.ttlSecondsAfterFinished;
      }
      break;
    case 'Secret':
      if (obj.type === 'kubernetes.io/service-account-token') {
        if (annotations) delete annotations['kubernetes.io/service-account.uid'];
        obj.data = null;
      }
      break;
    case 'ServiceAccount': {
      const secrets = obj.secrets;
      const name = metadata && typeof metadata.name === 'string' ? metadata.name : '';
      if (Array.isArray(secrets) && secrets.length > 0) {
        // Karmada's loop removes an entry in place and then moves on, so the entry that slid into the
        // removed one's slot is never examined: of two adjacent token secrets the second survives.
        for (let i = 0; i < secrets.length; i++) {
          const s = secrets[i];
          const sname = isObj(s) && typeof s.name === 'string' ? s.name : '';
          if (sname.startsWith(`${name}-token-`)) secrets.splice(i, 1);
        }
        obj.secrets = secrets;
      }
      break;
    }
    case 'Service':
      if (spec && Object.hasOwn(spec, 'clusterIP') && spec.clusterIP !== 'None') {
        delete spec.clusterIP;
        delete spec.clusterIPs;
      }
      break;
    case 'PersistentVolumeClaim':
      if (annotations && typeof annotations['volume.kubernetes.io/selected-node'] === 'string' && annotations['volume.kubernetes.io/selected-node'] !== '') {
        delete annotations['volume.kubernetes.io/selected-node'];
      }
      break;
    default:
      break;
  }
  return obj;
}
