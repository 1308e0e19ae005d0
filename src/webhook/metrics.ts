/**
 * The webhook's Prometheus metrics, served at /metrics on its own HTTPS port. The duration histogram is
 * measured inside the server (from the request's headers being parsed to the response being handed to
 * the kernel), so a latency tail seen by a client can be split into the server's part and everything
 * else: the network, the client, and time spent waiting for a core. The process metrics include garbage
 * collection pauses and event-loop delay, the two ways the server can stall without being busy.
 */
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { exponentialBuckets } from '../runtime/buckets.js';

/** Fine below 5 ms (the latency target at 1,000 reviews/s), then doubling, so a stall is still placed. */
export const DURATION_BUCKETS_SECONDS = [
  0.0001, 0.00025, 0.0005, 0.00075, 0.001, 0.0015, 0.002, 0.003, 0.004, 0.005, 0.0075, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12,
];

export class WebhookMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'karmada_lite_webhook_requests_total',
    help: 'Admission requests answered, per review path (other for every path that serves none) and verdict (allowed, denied, patched, malformed, errored).',
    labelNames: ['path', 'verdict'] as const,
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: 'karmada_lite_webhook_request_duration_seconds',
    help: 'Time inside the server per admission request, from its headers being parsed to its response being written to the socket.',
    buckets: DURATION_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  // controller-runtime's webhook metrics, which karmada-webhook exports (label `webhook`: the review path).
  readonly hookRequests = new Counter({ name: 'controller_runtime_webhook_requests_total', help: 'Total number of admission requests by HTTP status code.', labelNames: ['webhook', 'code'] as const, registers: [this.registry] });
  readonly hookLatency = new Histogram({ name: 'controller_runtime_webhook_latency_seconds', help: 'Histogram of the latency of processing admission requests', labelNames: ['webhook'] as const, buckets: exponentialBuckets(10e-9, 10, 12), registers: [this.registry] });
  readonly hookInFlight = new Gauge({ name: 'controller_runtime_webhook_requests_in_flight', help: 'Current number of admission requests being served.', labelNames: ['webhook'] as const, registers: [this.registry] });

  constructor(opts: { processMetrics?: boolean } = {}) {
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** One request to `webhook` (a review path, or `other`): in flight until its response is closed, then counted by status code. */
  track(webhook: string, res: ServerResponse): void {
    const started = performance.now();
    this.hookInFlight.inc({ webhook });
    res.once('close', () => {
      this.hookInFlight.dec({ webhook });
      this.hookRequests.inc({ webhook, code: String(res.statusCode) });
      this.hookLatency.observe({ webhook }, (performance.now() - started) / 1000);
    });
  }
}
