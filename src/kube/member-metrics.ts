/**
 * The members' resource metrics for the FederatedHPA (src/core/federated-hpa.ts's MemberMetrics port): Karmada
 * reads them through karmada-metrics-adapter, which asks each member's metrics.k8s.io; here the controller
 * asks each member directly, `GET /apis/metrics.k8s.io/v1beta1/namespaces/<ns>/pods?labelSelector=`.
 *
 * The reconcile is synchronous, so a read answers from a cache: an answer younger than `maxAgeMs` is given,
 * an older or missing one starts a fetch and reads as "not yet" (undefined), and the reconcile comes back
 * for it (the core's METRICS_PENDING_RETRY_SECONDS). A fetch that fails is an answer too (the error), so a
 * member without a metrics API makes the autoscaler report it rather than wait. Entries not asked for a
 * while are dropped.
 */
import type { MemberMetrics, PodMetricsRead, PodMetricsSample } from '../core/federated-hpa.js';
import { errorMessage } from '../json/error.js';
import type { RestClient } from './rest.js';

export interface MemberMetricsOptions {
  /** How old an answer may be and still be given (default 10 s: fresher than the 15 s sync period). */
  maxAgeMs?: number;
  /** Entries not asked for this long are dropped (default 2 min). */
  idleMs?: number;
  /** Per-request timeout (default 10 s). */
  timeoutMs?: number;
  now?: () => number;
}

interface Entry {
  read?: PodMetricsRead;
  fetchedAt: number;
  askedAt: number;
  inflight: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parts of a PodMetrics the calculator reads; anything else in the answer is dropped. */
export function podMetricsSamples(body: unknown): PodMetricsSample[] {
  const items = isObject(body) && Array.isArray(body.items) ? body.items : [];
  const out: PodMetricsSample[] = [];
  for (const it of items) {
    if (!isObject(it) || !isObject(it.metadata) || typeof it.metadata.name !== 'string') continue;
    const containers = (Array.isArray(it.containers) ? it.containers : []).filter(isObject).map((c) => ({
      ...(typeof c.name === 'string' ? { name: c.name } : {}),
      usage: Object.fromEntries(Object.entries(isObject(c.usage) ? c.usage : {}).filter((e): e is [string, string | number] => typeof e[1] === 'string' || typeof e[1] === 'number')),
    }));
    out.push({ name: it.metadata.name, ...(typeof it.timestamp === 'string' ? { timestamp: it.timestamp } : {}), ...(typeof it.window === 'string' ? { window: it.window } : {}), containers });
  }
  return out;
}

export class MemberMetricsCache implements MemberMetrics {
  private readonly entries = new Map<string, Entry>();
  private readonly maxAgeMs: number;
  private readonly idleMs: number;
  private readonly now: () => number;

  constructor(
    private readonly restOf: (cluster: string) => RestClient | undefined,
    private readonly opts: MemberMetricsOptions = {},
  ) {
    this.maxAgeMs = opts.maxAgeMs ?? 10_000;
    this.idleMs = opts.idleMs ?? 120_000;
    this.now = opts.now ?? Date.now;
  }

  podMetrics(cluster: string, namespace: string, labelSelector: string): PodMetricsRead | undefined {
    const now = this.now();
    this.sweep(now);
    const key = `${cluster}\u0000${namespace}\u0000${labelSelector}`;
    let e = this.entries.get(key);
    if (!e) this.entries.set(key, (e = { fetchedAt: 0, askedAt: now, inflight: false }));
    e.askedAt = now;
    if (e.read && now - e.fetchedAt <= this.maxAgeMs) return e.read;
    if (!e.inflight) void this.fetch(e, cluster, namespace, labelSelector);
    return undefined;
  }

  private async fetch(e: Entry, cluster: string, namespace: string, labelSelector: string): Promise<void> {
    const rest = this.restOf(cluster);
    if (!rest) {
      e.read = { error: `cluster ${cluster} is not connected` };
      e.fetchedAt = this.now();
      return;
    }
    e.inflight = true;
    try {
      const body = await rest.request('GET', `/apis/metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/pods`, { query: labelSelector ? { labelSelector } : {}, timeoutMs: this.opts.timeoutMs ?? 10_000 });
      e.read = { items: podMetricsSamples(body) };
    } catch (err) {
      e.read = { error: errorMessage(err) };
    } finally {
      e.fetchedAt = this.now();
      e.inflight = false;
    }
  }

  private sweep(now: number): void {
    for (const [k, e] of this.entries) if (!e.inflight && now - e.askedAt > this.idleMs) this.entries.delete(k);
  }
}
