import type { KubeConfig } from '@kubernetes/client-node';
import type { LeaseClient, LeaseRecord } from '../runtime/leader-election.js';
import { isApiNotFound, RestClient } from './rest.js';

// Plain JSON, not client-node's generated model: that one turns MicroTime into a Date and writes it
// back in a form the apiserver refuses ("cannot be handled as a Lease: parsing time").
function toRecord(spec: Record<string, any> = {}): LeaseRecord {
  return {
    holderIdentity: spec.holderIdentity ?? '',
    leaseDurationSeconds: spec.leaseDurationSeconds,
    acquireTime: spec.acquireTime,
    renewTime: spec.renewTime,
    leaseTransitions: spec.leaseTransitions,
  };
}

/** The Lease `namespace/name` on a real apiserver; update carries the resourceVersion, so a 409 throws. */
export function restLeaseClient(rest: RestClient, namespace: string, name: string): LeaseClient {
  const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  return {
    async get() {
      try {
        const lease = await rest.request('GET', `${base}/${encodeURIComponent(name)}`);
        return { record: toRecord(lease.spec), resourceVersion: lease.metadata?.resourceVersion ?? '' };
      } catch (err) {
        if (isApiNotFound(err)) return undefined;
        throw err;
      }
    },
    async create(record) {
      await rest.request('POST', base, { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: record } });
    },
    async update(record, resourceVersion) {
      await rest.request('PUT', `${base}/${encodeURIComponent(name)}`, { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace, resourceVersion }, spec: record } });
    },
  };
}

export function kubeLeaseClient(kc: KubeConfig, namespace: string, name: string): LeaseClient {
  return restLeaseClient(new RestClient(kc), namespace, name);
}
