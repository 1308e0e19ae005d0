/**
 * The members' Nodes, Pods and ResourceQuotas as the embedded store holds them (a scenario's `members:` and
 * `memberApply`): the same input the controller's lean informers give the accurate estimator and the
 * descheduler, so that `plan` and `simulate` divide replicas by what a fleet file says the members hold. A
 * member given no Node is unknown to the accurate estimator (-1), and the Cluster's resource summary decides
 * alone, as before.
 */
import { POD } from '../core/estimator.js';
import { NodeCapacity, type MemberCapacity } from '../core/node-estimator.js';
import type { TypeRef } from '../core/object.js';
import type { EmbeddedStore } from './embedded.js';

const NODE: TypeRef = { apiVersion: 'v1', kind: 'Node' };
const RESOURCE_QUOTA: TypeRef = { apiVersion: 'v1', kind: 'ResourceQuota' };

export function embeddedMemberCapacity(store: EmbeddedStore): MemberCapacity {
  return {
    nodeCapacity(cluster) {
      const nodes = store.list(NODE, {}, cluster);
      return nodes.length ? new NodeCapacity(nodes, store.list(POD, {}, cluster)) : undefined;
    },
    pods: (cluster, namespace) => store.list(POD, { namespace }, cluster),
    resourceQuotas: (cluster, namespace) => store.list(RESOURCE_QUOTA, { namespace }, cluster),
  };
}
