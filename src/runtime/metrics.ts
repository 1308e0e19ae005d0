import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The controller's Prometheus metrics, in one registry per process (tests make their own). Names follow
 * controller-runtime's where one exists, so existing Karmada dashboards need few changes.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly reconcileTotal = new Counter({ name: 'controller_runtime_reconcile_total', help: 'Reconciles per controller and result (success, error, requeue).', labelNames: ['controller', 'result'] as const, registers: [this.registry] });
  readonly reconcileErrors = new Counter({ name: 'controller_runtime_reconcile_errors_total', help: 'Reconciles that returned an error, per controller.', labelNames: ['controller'] as const, registers: [this.registry] });
  readonly reconcileSeconds = new Histogram({ name: 'controller_runtime_reconcile_time_seconds', help: 'Time per reconcile, per controller.', labelNames: ['controller'] as const, buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers: [this.registry] });
  readonly queueDepth = new Gauge({ name: 'workqueue_depth', help: 'Items waiting in each work queue.', labelNames: ['name'] as const, registers: [this.registry] });
  readonly interpreterCalls = new Counter({ name: 'karmada_lite_interpreter_calls_total', help: 'Resource interpreter calls per operation and result.', labelNames: ['operation', 'result'] as const, registers: [this.registry] });
  readonly interpreterSeconds = new Histogram({ name: 'karmada_lite_interpreter_duration_seconds', help: 'Resource interpreter call latency per operation.', labelNames: ['operation'] as const, buckets: [0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1], registers: [this.registry] });
  readonly clusters = new Gauge({ name: 'karmada_lite_clusters', help: 'Member clusters by readiness.', labelNames: ['ready'] as const, registers: [this.registry] });
  readonly clusterReady = new Gauge({ name: 'karmada_lite_cluster_ready', help: '1 when the member cluster answers /readyz, else 0.', labelNames: ['cluster'] as const, registers: [this.registry] });

  constructor(opts: { processMetrics?: boolean } = {}) {
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** Times one reconcile and counts its outcome. */
  async observeReconcile<T>(controller: string, fn: () => Promise<T> | T): Promise<T> {
    const end = this.reconcileSeconds.startTimer({ controller });
    try {
      const out = await fn();
      this.reconcileTotal.inc({ controller, result: 'success' });
      return out;
    } catch (err) {
      this.reconcileTotal.inc({ controller, result: 'error' });
      this.reconcileErrors.inc({ controller });
      throw err;
    } finally {
      end();
    }
  }

  observeInterpreter(operation: string, seconds: number, ok: boolean): void {
    this.interpreterCalls.inc({ operation, result: ok ? 'success' : 'error' });
    this.interpreterSeconds.observe({ operation }, seconds);
  }

  setClusterReadiness(ready: Record<string, boolean>): void {
    this.clusterReady.reset();
    let yes = 0;
    for (const [cluster, r] of Object.entries(ready)) {
      this.clusterReady.set({ cluster }, r ? 1 : 0);
      if (r) yes++;
    }
    this.clusters.set({ ready: 'true' }, yes);
    this.clusters.set({ ready: 'false' }, Object.keys(ready).length - yes);
  }
}
