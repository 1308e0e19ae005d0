import { CoordinationV1Api, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import type { LeaseClient, LeaseRecord } from '../runtime/leader-election.js';

const toDate = (s?: string) => (s ? new Date(s) : undefined);
// client-node parses MicroTime into Date; keep microsecond strings on our side.
const toIso = (d?: Date | string) => (d === undefined ? undefined : typeof d === 'string' ? d : d.toISOString().replace(/Z$/, '000Z'));

function toRecord(lease: V1Lease): LeaseRecord {
  const s = lease.spec ?? {};
  return {
    holderIdentity: s.holderIdentity ?? '',
    leaseDurationSeconds: s.leaseDurationSeconds,
    acquireTime: toIso(s.acquireTime as Date | undefined),
    renewTime: toIso(s.renewTime as Date | undefined),
    leaseTransitions: s.leaseTransitions,
  };
}

function toSpec(r: LeaseRecord): V1Lease['spec'] {
  return {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    // The generated model types MicroTime as Date; the serializer writes it back as RFC 3339.
    acquireTime: toDate(r.acquireTime) as never,
    renewTime: toDate(r.renewTime) as never,
    leaseTransitions: r.leaseTransitions,
  };
}

const isNotFound = (err: unknown) => (err as { code?: number }).code === 404;

/** The Lease `namespace/name` on a real apiserver; update carries the resourceVersion, so a 409 throws. */
export function kubeLeaseClient(kc: KubeConfig, namespace: string, name: string): LeaseClient {
  const api = kc.makeApiClient(CoordinationV1Api);
  return {
    async get() {
      try {
        const lease = await api.readNamespacedLease({ name, namespace });
        return { record: toRecord(lease), resourceVersion: lease.metadata?.resourceVersion ?? '' };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async create(record) {
      await api.createNamespacedLease({ namespace, body: { metadata: { name, namespace }, spec: toSpec(record) } });
    },
    async update(record, resourceVersion) {
      await api.replaceNamespacedLease({ name, namespace, body: { metadata: { name, namespace, resourceVersion }, spec: toSpec(record) } });
    },
  };
}
