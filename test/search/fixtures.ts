// Cluster and ResourceRegistry objects the search tests build their fleets from.
import { vi } from 'vitest';
import { scaled } from '../time-scale.js';
import { MultiClusterCache } from '../../src/search/cache.js';
import { DEPLOYMENT, POD, SimulatedMember, simulatedConnector } from '../../src/search/memory-feed.js';

export const cluster = (name: string, opts: { ready?: boolean; labels?: Record<string, string>; apis?: Array<{ groupVersion: string; resources: Array<{ name: string; kind: string }> }> } = {}) => ({
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name, labels: opts.labels ?? {} },
  spec: { apiEndpoint: `https://${name}` },
  status: { conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }], apiEnablements: opts.apis },
});

export const registry = (name: string, targetCluster: object, resourceSelectors: object[]) => ({ apiVersion: 'search.karmada.io/v1alpha1', kind: 'ResourceRegistry', metadata: { name }, spec: { targetCluster, resourceSelectors } });

/** Simulated members serving Deployments and Pods, and a cache over them. */
export function fleet(names: string[]) {
  const members = new Map(names.map((n) => [n, new SimulatedMember(n, new Map([['apps/v1/Deployment', DEPLOYMENT], ['v1/Pod', POD]]))]));
  let changes = 0;
  const cache = new MultiClusterCache({ connector: simulatedConnector(members), resolveRetryMs: 5, onChange: () => changes++ });
  return { members, cache, changes: () => changes };
}

/** Waits for a condition (the feeds are asynchronous), never for a time. */
export const until = (cond: () => boolean): Promise<void> =>
  vi.waitFor(() => {
    if (!cond()) throw new Error('not yet');
  }, { timeout: scaled(10_000), interval: 2 });
