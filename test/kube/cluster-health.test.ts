import { describe, expect, it } from 'vitest';
import { collectionFailedCondition, collectionFailedEvent, readyConditionOf } from '../../src/kube/cluster-health.js';

const secret = 'karmada-cluster/member2';

describe('readyConditionOf', () => {
  it('is Ready when the health endpoint and the request that needs rights both succeed', () => {
    expect(readyConditionOf({}, secret)).toEqual({ status: 'True', reason: 'ClusterReady', message: 'cluster is healthy and ready to accept workloads' });
  });

  it('is not reachable when the health endpoint does not answer or answers an error (as Karmada)', () => {
    expect(readyConditionOf({ health: { message: 'request timed out after 5000 ms' } }, secret)).toEqual({ status: 'False', reason: 'ClusterNotReachable', message: 'cluster is not reachable: request timed out after 5000 ms' });
    const unauthorized = readyConditionOf({ health: { code: 401, message: 'GET /readyz: 401 Unauthorized' } }, secret);
    expect(unauthorized).toMatchObject({ status: 'False', reason: 'ClusterNotReachable' });
    expect(unauthorized.message).toBe('cluster is not reachable: GET /readyz: 401 Unauthorized; the member refuses the credentials: put a valid token (or kubeconfig) in Secret karmada-cluster/member2');
  });

  it('is not ready, with the reason, when the member answers 403 to a request that needs rights (revoked RBAC)', () => {
    const c = readyConditionOf({ access: { code: 403, message: 'GET /api/v1/namespaces?limit=1: 403 Forbidden: namespaces is forbidden' } }, secret);
    expect(c).toEqual({
      status: 'False',
      reason: 'ClusterNotReady',
      message: 'cluster is reachable but the credentials in Secret karmada-cluster/member2 are not allowed to work on the member: give them their RBAC rights back: GET /api/v1/namespaces?limit=1: 403 Forbidden: namespaces is forbidden',
    });
    expect(readyConditionOf({ access: { message: 'socket hang up' } }, secret)).toMatchObject({ status: 'False', reason: 'ClusterNotReachable' });
  });

  it('a Cluster whose client cannot be made is StatusCollectionFailed (Karmada\'s reason)', () => {
    expect(collectionFailedCondition('the secret of cluster m has neither token nor kubeconfig')).toEqual({
      status: 'False',
      reason: 'StatusCollectionFailed',
      message: 'failed to create a ClusterClient: the secret of cluster m has neither token nor kubeconfig',
    });
  });

  it('says what to create when the Secret is missing, what to grant when it may not be read, and puts it in a Warning Event', () => {
    const ref = { namespace: 'karmada-cluster', name: 'm' };
    const missing = collectionFailedCondition('GET /api/v1/namespaces/karmada-cluster/secrets/m: 404 NotFound: secrets "m" not found', ref, 404);
    expect(missing.message).toContain('; create Secret karmada-cluster/m with the member\'s token and caBundle (or a kubeconfig)');
    expect(collectionFailedCondition('403 Forbidden', ref, 403).message).toContain('; the controller may not read Secret karmada-cluster/m: grant it get, list and watch on secrets in karmada-cluster');
    expect(collectionFailedEvent({ metadata: { name: 'm', uid: 'u1' } }, missing)).toEqual({
      involvedObject: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', name: 'm', uid: 'u1' },
      type: 'Warning',
      reason: 'StatusCollectionFailed',
      message: missing.message,
      source: 'cluster-status',
    });
  });
});
