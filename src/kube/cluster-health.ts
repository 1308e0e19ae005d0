/**
 * A member cluster's Ready condition from what its probe saw, as Karmada's cluster status controller
 * words it: not reachable (no answer, or the health endpoint answered an error), reachable but not
 * ready, ready; and StatusCollectionFailed when no client could be made from the Cluster and its Secret.
 *
 * One check beyond Karmada's /readyz: the health endpoints are open to every authenticated user (and
 * anonymous ones), so a credential whose RBAC was revoked still passes them. The probe also makes one
 * request that needs rights (listing namespaces, which Karmada's member credentials are always given), and
 * a 401 or 403 there makes the cluster not ready: the controller could neither read nor write it.
 */

import { CLUSTER } from '../core/kinds.js';
import type { CoreEvent } from '../core/ports.js';
import { ClusterNotReachableReason, ClusterNotReadyReason, ClusterReadyMessage, ClusterReadyReason, StatusCollectionFailedReason } from '../api/constants.js';

/** One request of the probe that failed: `code` is the HTTP status when the member answered. */
export interface ProbeFailure {
  code?: number;
  message: string;
  /** No answer within the probe's timeout (a frozen apiserver, a blackholed link), as opposed to one that failed fast. */
  timedOut?: boolean;
}

export interface ProbeOutcome {
  /** /readyz (or /healthz where /readyz is not served); undefined when it answered 200. */
  health?: ProbeFailure;
  /** The request that needs rights; undefined when it was allowed (or not made because health failed). */
  access?: ProbeFailure;
}

export interface ReadyCondition {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** The request of the probe that needs rights. */
export const ACCESS_CHECK_PATH = '/api/v1/namespaces';

/** Probes that failed fast (a refused or reset connection, an error answer) in a row that turn a ready member not ready. */
export const FAST_FAILURES_TO_NOT_READY = 2;

/**
 * Whether the failed probe just made turns the member not ready now. A member never seen ready is not
 * ready at once. A ready one that failed fast gets a second probe first: a connection reset while its
 * apiserver restarts is a blip, not an outage. One that let a request go unanswered for the whole probe
 * timeout has been silent that long already, and a second timeout would only double the time a frozen
 * member keeps its replicas: Karmada's health check, too, is one request bounded by its client's timeout,
 * whose failure is the observed condition at once.
 */
export function failedProbeDecides(probe: ProbeOutcome, wasReady: boolean | undefined, failuresInRow: number): boolean {
  if (!wasReady) return true;
  if (probe.health?.timedOut || probe.access?.timedOut) return true;
  return failuresInRow >= FAST_FAILURES_TO_NOT_READY;
}

export function readyConditionOf(probe: ProbeOutcome, secret: string): ReadyCondition {
  if (probe.health) {
    const hint = probe.health.code === 401 ? `; the member refuses the credentials: put a valid token (or kubeconfig) in Secret ${secret}` : '';
    return { status: 'False', reason: ClusterNotReachableReason, message: `cluster is not reachable: ${probe.health.message}${hint}` };
  }
  if (probe.access) {
    const { code, message } = probe.access;
    if (code === undefined) return { status: 'False', reason: ClusterNotReachableReason, message: `cluster is not reachable: ${message}` };
    const hint =
      code === 401
        ? `the member refuses the credentials: put a valid token (or kubeconfig) in Secret ${secret}`
        : code === 403
          ? `the credentials in Secret ${secret} are not allowed to work on the member: give them their RBAC rights back`
          : 'its API answered an error';
    return { status: 'False', reason: ClusterNotReadyReason, message: `cluster is reachable but ${hint}: ${message}` };
  }
  return { status: 'True', reason: ClusterReadyReason, message: ClusterReadyMessage };
}

/**
 * The condition of a Cluster whose client could not be made (Secret missing or unreadable, no endpoint),
 * with what to do when the host said why: `code` is its HTTP answer to reading the Secret.
 */
export function collectionFailedCondition(err: string, secret?: { namespace: string; name: string }, code?: number): ReadyCondition {
  const where = secret ? `${secret.namespace}/${secret.name}` : '';
  const hint =
    code === 404 && secret
      ? `; create Secret ${where} with the member's token and caBundle (or a kubeconfig), e.g. kubectl -n ${secret.namespace} create secret generic ${secret.name} --from-file=token --from-file=caBundle`
      : code === 403 && secret
        ? `; the controller may not read Secret ${where}: grant it get, list and watch on secrets in ${secret.namespace} (deploy/controller)`
        : '';
  return { status: 'False', reason: StatusCollectionFailedReason, message: `failed to create a ClusterClient: ${err}${hint}` };
}

/**
 * karmada-lite's own: a Warning Event beside that condition (Karmada only logs it), so that
 * `kubectl describe cluster` and `kubectl get events` show it too.
 */
export function collectionFailedEvent(cluster: { metadata: { name: string; uid?: string } }, cond: ReadyCondition): CoreEvent {
  return {
    involvedObject: { apiVersion: CLUSTER.apiVersion, kind: CLUSTER.kind, name: cluster.metadata.name, ...(cluster.metadata.uid ? { uid: cluster.metadata.uid } : {}) },
    type: 'Warning',
    reason: cond.reason,
    message: cond.message,
    source: 'cluster-status',
  };
}
