/**
 * The webhook's Prometheus metrics, served at /metrics on its own HTTPS port. The duration histogram is
 * measured inside the server (from the request's headers being parsed to the response being handed to
 * the kernel), so a latency tail seen by a client can be split into the server's part and everything
 * else: the network, the client, and time spent waiting for a core. The process metrics include garbage
 * collection pauses and event-loop delay, the two ways the server can stall without being busy.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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

  constructor(opts: { processMetrics?: boolean } = {}) {
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry });
  }
}
