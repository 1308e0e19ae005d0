/**
 * The members' metrics for the FederatedHPA (src/core/federated-hpa.ts's MemberMetrics port): Karmada reads them
 * through karmada-metrics-adapter, which asks each member's metrics.k8s.io and custom.metrics.k8s.io; here the
 * controller asks each member directly, `GET /apis/metrics.k8s.io/v1beta1/namespaces/<ns>/pods?labelSelector=`
 * and `GET /apis/custom.metrics.k8s.io/v1beta2/<path>`.
 *
 * The reconcile is synchronous, so a read answers from a cache: an answer younger than `maxAgeMs` is given,
 * an older or missing one starts a fetch and reads as "not yet" (undefined), and the reconcile comes back
 * for it (the core's METRICS_PENDING_RETRY_SECONDS). A fetch that fails is an answer too (the error), so a
 * member without a metrics API makes the autoscaler report it rather than wait. Entries not asked for a
 * while are dropped.
 */
import type { CustomMetricSample, CustomMetricsRead, MemberMetrics, PodMetricsRead, PodMetricsSample } from '../core/federated-hpa.js';
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

interface Entry<T> {
  read?: T | { error: string };
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

/** The parts of a custom.metrics.k8s.io MetricValueList the calculator reads. */
export function customMetricSamples(body: unknown): CustomMetricSample[] {
  const items = isObject(body) && Array.isArray(body.items) ? body.items : [];
  const out: CustomMetricSample[] = [];
  for (const it of items) {
    if (!isObject(it) || !isObject(it.describedObject) || typeof it.describedObject.name !== 'string') continue;
    if (typeof it.value !== 'string' && typeof it.value !== 'number') continue;
    out.push({
      object: it.describedObject.name,
      value: it.value,
      ...(typeof it.timestamp === 'string' ? { timestamp: it.timestamp } : {}),
      ...(typeof it.windowSeconds === 'number' ? { windowSeconds: it.windowSeconds } : {}),
    });
  }
  return out;
}

export class MemberMetricsCache implements MemberMetrics {
  private readonly podEntries = new Map<string, Entry<PodMetricsRead>>();
  private readonly customEntries = new Map<string, Entry<CustomMetricsRead>>();
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
    return this.answer(this.podEntries, cluster, `/apis/metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/pods`, labelSelector ? { labelSelector } : {}, (body) => ({ items: podMetricsSamples(body) }));
  }

  customMetrics(cluster: string, path: string, query: Readonly<Record<string, string>>): CustomMetricsRead | undefined {
    return this.answer(this.customEntries, cluster, `/apis/custom.metrics.k8s.io/v1beta2/${path}`, query, (body) => ({ items: customMetricSamples(body) }));
  }

  /** The cached answer to one GET, if fresh enough; otherwise a fetch starts (once) and the read is "not yet". */
  private answer<T>(entries: Map<string, Entry<T>>, cluster: string, urlPath: string, query: Readonly<Record<string, string>>, parse: (body: unknown) => T): T | { error: string } | undefined {
    const now = this.now();
    this.sweep(now);
    const key = `${cluster}\u0000${urlPath}\u0000${JSON.stringify(query)}`;
    let e = entries.get(key);
    if (!e) entries.set(key, (e = { fetchedAt: 0, askedAt: now, inflight: false }));
    e.askedAt = now;
    if (e.read && now - e.fetchedAt <= this.maxAgeMs) return e.read;
    if (!e.inflight) void this.fetch(e, cluster, urlPath, query, parse);
    return undefined;
  }

  private async fetch<T>(e: Entry<T>, cluster: string, urlPath: string, query: Readonly<Record<string, string>>, parse: (body: unknown) => T): Promise<void> {
    const rest = this.restOf(cluster);
    if (!rest) {
      e.read = { error: `cluster ${cluster} is not connected` };
      e.fetchedAt = this.now();
      return;
    }
    e.inflight = true;
    try {
      e.read = parse(await rest.request('GET', urlPath, { query: { ...query }, timeoutMs: this.opts.timeoutMs ?? 10_000 }));
    } catch (err) {
      e.read = { error: errorMessage(err) };
    } finally {
      e.fetchedAt = this.now();
      e.inflight = false;
    }
  }

  private sweep(now: number): void {
    for (const entries of [this.podEntries, this.customEntries]) for (const [k, e] of entries) if (!e.inflight && now - e.askedAt > this.idleMs) entries.delete(k);
  }
}
