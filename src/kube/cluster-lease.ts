/**
 * The agent's heartbeat on the control plane: Lease `karmada-cluster/<cluster>` (Karmada's cluster status
 * controller on the agent runs component-helpers' lease controller for a Pull cluster): holder the
 * cluster's name, `--cluster-lease-duration` (40 s) as leaseDurationSeconds, renewed every duration ×
 * `--cluster-lease-renew-interval-fraction` (0.25: 10 s), owned by the Cluster as soon as its uid is known.
 * The control plane turns the cluster's Ready Unknown when it stops moving (src/core/pull-cluster.ts).
 *
 * Started, as in Karmada, once the cluster was first seen ready; then it runs until the agent stops, ready
 * or not: readiness is the Ready condition's business, the Lease only says the agent is alive.
 */
import { CLUSTER } from '../core/kinds.js';
import { LEASE, NamespaceClusterLease } from '../core/pull-cluster.js';
import { errorMessage } from '../json/error.js';
import type { Logger } from '../runtime/log.js';
import { isApiNotFound, type RestClient } from './rest.js';

/** Karmada's defaults: --cluster-lease-duration 40s, --cluster-lease-renew-interval-fraction 0.25. */
export const DefaultClusterLeaseDurationSeconds = 40;
export const DefaultClusterLeaseRenewIntervalFraction = 0.25;

/** Lease times are MicroTime: RFC 3339 with six fractional digits. */
export const microTime = (d: Date) => d.toISOString().replace(/Z$/, '000Z');

interface LeaseObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string; ownerReferences?: Array<Record<string, unknown>>; [k: string]: unknown };
  spec?: Record<string, unknown>;
}

/**
 * The Lease to write at `now`: the current one renewed (its other fields kept), or a new one. The owner
 * reference to the Cluster is added when there is none and the Cluster's uid is known (SetLeaseOwnerFunc).
 */
export function renewedClusterLease(current: LeaseObject | undefined, clusterName: string, clusterUid: string | undefined, now: Date, durationSeconds: number): LeaseObject {
  const base: LeaseObject = current ? { ...current, metadata: { ...current.metadata } } : { apiVersion: LEASE.apiVersion, kind: LEASE.kind, metadata: { name: clusterName, namespace: NamespaceClusterLease } };
  base.apiVersion = LEASE.apiVersion;
  base.kind = LEASE.kind;
  base.spec = { ...(current?.spec ?? {}), holderIdentity: clusterName, leaseDurationSeconds: durationSeconds, renewTime: microTime(now) };
  if (!(base.metadata.ownerReferences?.length) && clusterUid) {
    base.metadata.ownerReferences = [{ apiVersion: CLUSTER.apiVersion, kind: CLUSTER.kind, name: clusterName, uid: clusterUid }];
  }
  return base;
}

export interface ClusterLeaseOptions {
  rest: RestClient;
  clusterName: string;
  durationSeconds: number;
  renewIntervalMs: number;
  /** The Cluster's uid, when the agent's cache has it. */
  clusterUid: () => string | undefined;
  /** Whether the cluster has been seen ready (the renewals start then). */
  ready: () => boolean;
  log: Logger;
  /** Told after each renewal that reached the host (tests and the bench follow it). */
  onRenewed?: (renewTime: string) => void;
}

/** How often a renewer that has not started looks at readiness again. */
const START_POLL_MS = 1000;

/** The first retry of a failed renewal; doubled up to the renew interval, as the lease controller backs off. */
const RETRY_MIN_MS = 200;

export class ClusterLeaseRenewer {
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;
  private retryMs = RETRY_MIN_MS;
  private readonly path: string;

  constructor(private readonly opts: ClusterLeaseOptions) {
    this.path = `/apis/coordination.k8s.io/v1/namespaces/${NamespaceClusterLease}/leases`;
  }

  start(): void {
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    if (!this.started) {
      if (!this.opts.ready()) return this.schedule(START_POLL_MS);
      this.started = true;
      this.opts.log.info('renewing the cluster lease', { cluster: this.opts.clusterName, lease: `${NamespaceClusterLease}/${this.opts.clusterName}`, durationSeconds: this.opts.durationSeconds });
    }
    try {
      await this.renew();
      this.retryMs = RETRY_MIN_MS;
      this.schedule(this.opts.renewIntervalMs);
    } catch (e) {
      // The host may be unreachable for a while: retried, backing off to the renew interval.
      this.opts.log.warn('cannot renew the cluster lease', { cluster: this.opts.clusterName, err: errorMessage(e) });
      this.schedule(this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, this.opts.renewIntervalMs);
    }
  }

  private async renew(): Promise<void> {
    const { rest, clusterName } = this.opts;
    const named = `${this.path}/${encodeURIComponent(clusterName)}`;
    let current: LeaseObject | undefined;
    try {
      current = await rest.request<LeaseObject>('GET', named, { timeoutMs: this.opts.renewIntervalMs });
    } catch (e) {
      if (!isApiNotFound(e)) throw e;
    }
    const body = renewedClusterLease(current, clusterName, this.opts.clusterUid(), new Date(), this.opts.durationSeconds);
    const out = current
      ? await rest.request<LeaseObject>('PUT', named, { body, timeoutMs: this.opts.renewIntervalMs })
      : await rest.request<LeaseObject>('POST', this.path, { body, timeoutMs: this.opts.renewIntervalMs });
    const renewTime = out?.spec?.renewTime;
    if (typeof renewTime === 'string') this.opts.onRenewed?.(renewTime);
  }
}
