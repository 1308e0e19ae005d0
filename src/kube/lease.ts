import type { KubeConfig } from '@kubernetes/client-node';
import type { LeaseClient, LeaseRecord } from '../runtime/leader-election.js';
import { isApiNotFound, RestClient, type RestClientOptions } from './rest.js';

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

/**
 * `clientOptions.limiter`: the Lease's own token bucket. Karmada's Lease shares the host client's bucket
 * (controller-runtime copies the rest config's RateLimiter); here Events and async writes are sent
 * concurrently and can queue thousands of requests ahead of a renewal, which would then miss the renew
 * deadline and lose the lease. A bucket of the same qps and burst limits the Lease without that queue.
 */
export function kubeLeaseClient(kc: KubeConfig, namespace: string, name: string, clientOptions: RestClientOptions = {}): LeaseClient {
  return restLeaseClient(new RestClient(kc, clientOptions), namespace, name);
}
