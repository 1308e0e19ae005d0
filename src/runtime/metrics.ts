import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ClusterConditionReady } from '../api/constants.js';
import { tryParseQuantity } from '../quantity/quantity.js';
import { exponentialBuckets, KarmadaMetrics } from './karmada-metrics.js';
import type { QueueObserver } from './queue.js';

/** client-go's workqueue buckets: prometheus.ExponentialBuckets(10e-9, 10, 12), 10 ns to 1000 s. */
const WORKQUEUE_BUCKETS = exponentialBuckets(10e-9, 10, 12);

/** Karmada's label for member clusters on its cluster metrics. */
const MEMBER_CLUSTER = 'member_cluster';

const quantity = (v: unknown): number | undefined => {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const q = tryParseQuantity(String(v));
  return typeof q === 'string' ? undefined : q.asApproximateFloat64();
};

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
  readonly interpreterWebhookCalls = new Counter({ name: 'karmada_lite_interpreter_webhook_calls_total', help: 'Interpreter webhook calls per hook (<configuration>/<hook>), operation and result.', labelNames: ['webhook', 'operation', 'result'] as const, registers: [this.registry] });
  readonly interpreterWebhookErrors = new Counter({ name: 'karmada_lite_interpreter_webhook_errors_total', help: 'Interpreter webhook calls that failed (timeout, TLS, HTTP status, invalid answer), per hook and operation.', labelNames: ['webhook', 'operation'] as const, registers: [this.registry] });
  readonly interpreterWebhookSeconds = new Histogram({ name: 'karmada_lite_interpreter_webhook_duration_seconds', help: 'Interpreter webhook call latency per hook and operation.', labelNames: ['webhook', 'operation'] as const, buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [this.registry] });
  readonly clusters = new Gauge({ name: 'karmada_lite_clusters', help: 'Member clusters by readiness.', labelNames: ['ready'] as const, registers: [this.registry] });
  readonly clusterReady = new Gauge({ name: 'karmada_lite_cluster_ready', help: '1 when the member cluster answers /readyz, else 0.', labelNames: ['cluster'] as const, registers: [this.registry] });

  // client-go's workqueue metrics, as controller-runtime exports them (label `name`: the controller).
  readonly queueAdds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name'] as const, registers: [this.registry] });
  readonly queueRetries = new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: ['name'] as const, registers: [this.registry] });
  readonly queueLatency = new Histogram({ name: 'workqueue_queue_duration_seconds', help: 'How long in seconds an item stays in workqueue before being requested', labelNames: ['name'] as const, buckets: WORKQUEUE_BUCKETS, registers: [this.registry] });
  readonly workDuration = new Histogram({ name: 'workqueue_work_duration_seconds', help: 'How long in seconds processing an item from workqueue takes.', labelNames: ['name'] as const, buckets: WORKQUEUE_BUCKETS, registers: [this.registry] });
  readonly unfinishedWork = new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads.",
    labelNames: ['name'] as const,
    registers: [this.registry],
    collect: () => this.collectInProgress(),
  });
  readonly longestRunning = new Gauge({ name: 'workqueue_longest_running_processor_seconds', help: 'How many seconds has the longest running processor for workqueue been running.', labelNames: ['name'] as const, registers: [this.registry] });

  readonly leaderElection = new Gauge({
    name: 'leader_election_master_status',
    help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
    labelNames: ['name'] as const,
    registers: [this.registry],
  });
  readonly rateLimiterSeconds = new Histogram({ name: 'rest_client_rate_limiter_duration_seconds', help: "Client side rate limiter latency in seconds (requests that found the client's token bucket empty), by host.", labelNames: ['host'] as const, buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60], registers: [this.registry] });
  readonly rateLimiterWaiting = new Gauge({ name: 'karmada_lite_rest_client_rate_limiter_waiting', help: "Requests waiting now for their client's token bucket (--kube-api-qps, --cluster-api-qps), by host.", labelNames: ['host'] as const, registers: [this.registry] });
  readonly eventsDropped = new Counter({ name: 'karmada_lite_events_dropped_total', help: 'Event occurrences not written because 32,768 Event series were waiting to be written already (client-go drops past 1,000 queued), by reason.', labelNames: ['reason'] as const, registers: [this.registry] });
  readonly eventsWaiting: Gauge = new Gauge({
    name: 'karmada_lite_events_waiting',
    help: 'Event series waiting to be written or being written now (they take the host client\'s tokens no other request needs).',
    registers: [this.registry],
    collect: (): void => this.eventsWaiting.set(this.eventsWaitingNow?.() ?? 0),
  });
  readonly restRequests = new Counter({ name: 'rest_client_requests_total', help: 'Number of HTTP requests, partitioned by status code, method, and host.', labelNames: ['code', 'method', 'host'] as const, registers: [this.registry] });

  // Karmada's cluster status metrics (pkg/metrics/cluster.go), from each Cluster's status.
  readonly clusterReadyState = new Gauge({ name: 'cluster_ready_state', help: 'State of the cluster (1 if ready, 0 otherwise).', labelNames: [MEMBER_CLUSTER], registers: [this.registry] });
  readonly clusterNodes = new Gauge({ name: 'cluster_node_number', help: 'Number of nodes in the cluster.', labelNames: [MEMBER_CLUSTER], registers: [this.registry] });
  readonly clusterReadyNodes = new Gauge({ name: 'cluster_ready_node_number', help: 'Number of ready nodes in the cluster.', labelNames: [MEMBER_CLUSTER], registers: [this.registry] });
  readonly clusterMemoryAllocatable = new Gauge({ name: 'cluster_memory_allocatable_bytes', help: 'Allocatable cluster memory resource in bytes.', labelNames: [MEMBER_CLUSTER], registers: [this.registry] });
  readonly clusterCpuAllocatable = new Gauge({ name: 'cluster_cpu_allocatable_number', help: 'Number of allocatable CPU in the cluster.', labelNames: [MEMBER_CLUSTER], registers: [this.registry] });
  readonly clusterPodAllocatable = new Gauge({ name: 'cluster_pod_allocatable_number', help: 'Number of allocatable pods in the cluster.', labelNames: [MEMBER_CLUSTER], registers: [this.registry] });
  readonly clusterMemoryAllocated = new Gauge({ name: 'cluster_memory_allocated_bytes', help: 'Allocated cluster memory resource in bytes.', labelNames: [MEMBER_CLUSTER], registers: [this.registry] });
  readonly clusterCpuAllocated = new Gauge({ name: 'cluster_cpu_allocated_number', help: 'Number of allocated CPU in the cluster.', labelNames: [MEMBER_CLUSTER], registers: [this.registry] });
  readonly clusterPodAllocated = new Gauge({ name: 'cluster_pod_allocated_number', help: 'Number of allocated pods in the cluster.', labelNames: [MEMBER_CLUSTER], registers: [this.registry] });
  readonly clusterSyncDuration = new Histogram({ name: 'cluster_sync_status_duration_seconds', help: 'Duration in seconds for syncing the status of the cluster once.', labelNames: [MEMBER_CLUSTER], registers: [this.registry] });

  /** Karmada's scheduler, resource and build metrics under Karmada's names (karmada-metrics.ts). */
  readonly karmada = new KarmadaMetrics(this.registry);

  /** Where workqueue_unfinished_work_seconds and workqueue_longest_running_processor_seconds come from at scrape time. */
  private inProgress?: () => Record<string, { unfinishedSeconds: number; longestSeconds: number }>;
  private eventsWaitingNow?: () => number;

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

  observeInterpreterWebhook(webhook: string, operation: string, seconds: number, error: string | undefined): void {
    this.interpreterWebhookCalls.inc({ webhook, operation, result: error === undefined ? 'success' : 'error' });
    if (error !== undefined) this.interpreterWebhookErrors.inc({ webhook, operation });
    this.interpreterWebhookSeconds.observe({ webhook, operation }, seconds);
  }

  /** A controller queue's observer (RunnerOptions.queueObserver). */
  workqueue(name: string): QueueObserver {
    const adds = this.queueAdds.labels({ name });
    const retries = this.queueRetries.labels({ name });
    const latency = this.queueLatency.labels({ name });
    const work = this.workDuration.labels({ name });
    return { added: () => adds.inc(), retried: () => retries.inc(), waited: (s) => latency.observe(s), worked: (s) => work.observe(s) };
  }

  /** The runner's work in progress, read at every scrape (Runner.inProgress). */
  followWorkInProgress(source: () => Record<string, { unfinishedSeconds: number; longestSeconds: number }>): void {
    this.inProgress = source;
  }

  /** The Event recorder's waiting series, read at every scrape (EventRecorder.waiting). */
  followEventsWaiting(source: () => number): void {
    this.eventsWaitingNow = source;
  }

  private collectInProgress(): void {
    for (const [name, p] of Object.entries(this.inProgress?.() ?? {})) {
      this.unfinishedWork.set({ name }, p.unfinishedSeconds);
      this.longestRunning.set({ name }, p.longestSeconds);
    }
  }

  /** leader_election_master_status for the Lease `name`. */
  setLeader(name: string, leading: boolean): void {
    this.leaderElection.set({ name }, leading ? 1 : 0);
  }

  /** One request of the REST client (rest.ts); `code` is the HTTP status, or `<error>` when none came, as client-go. */
  observeRateLimiter(host: string, waiting: 1 | -1, waitedMs?: number): void {
    this.rateLimiterWaiting.inc({ host }, waiting);
    if (waitedMs !== undefined) this.rateLimiterSeconds.observe({ host }, waitedMs / 1000);
  }

  observeRequest(code: number | undefined, method: string, host: string): void {
    this.restRequests.inc({ code: code === undefined ? '<error>' : String(code), method, host });
  }

  /** Karmada's RecordClusterStatus: the cluster gauges from a Cluster's status (node and resource summaries when present). */
  recordClusterStatus(cluster: { metadata: { name?: string }; status?: Record<string, any> }): void {
    const labels = { [MEMBER_CLUSTER]: cluster.metadata.name ?? '' };
    const status = cluster.status ?? {};
    const ready = ((status.conditions ?? []) as Array<{ type?: string; status?: string }>).some((c) => c.type === ClusterConditionReady && c.status === 'True');
    this.clusterReadyState.set(labels, ready ? 1 : 0);
    const nodes = status.nodeSummary as { totalNum?: number; readyNum?: number } | undefined;
    if (nodes) {
      this.clusterNodes.set(labels, nodes.totalNum ?? 0);
      this.clusterReadyNodes.set(labels, nodes.readyNum ?? 0);
    }
    const summary = status.resourceSummary as { allocatable?: Record<string, unknown>; allocated?: Record<string, unknown> } | undefined;
    const set = (g: Gauge<string>, list: Record<string, unknown> | undefined, resource: string) => {
      if (list) g.set(labels, quantity(list[resource]) ?? 0);
    };
    set(this.clusterMemoryAllocatable, summary?.allocatable, 'memory');
    set(this.clusterCpuAllocatable, summary?.allocatable, 'cpu');
    set(this.clusterPodAllocatable, summary?.allocatable, 'pods');
    set(this.clusterMemoryAllocated, summary?.allocated, 'memory');
    set(this.clusterCpuAllocated, summary?.allocated, 'cpu');
    set(this.clusterPodAllocated, summary?.allocated, 'pods');
  }

  /** Karmada's RecordClusterSyncStatusDuration: one status sync (probe and write) of a member. */
  observeClusterSync(cluster: string, seconds: number): void {
    this.clusterSyncDuration.observe({ [MEMBER_CLUSTER]: cluster }, seconds);
  }

  /** Karmada's CleanupMetricsForCluster: a deleted Cluster leaves no series behind. */
  forgetCluster(cluster: string): void {
    const labels = { [MEMBER_CLUSTER]: cluster };
    for (const g of [this.clusterReadyState, this.clusterNodes, this.clusterReadyNodes, this.clusterMemoryAllocatable, this.clusterCpuAllocatable, this.clusterPodAllocatable, this.clusterMemoryAllocated, this.clusterCpuAllocated, this.clusterPodAllocated]) g.remove(labels);
    this.clusterSyncDuration.remove(labels);
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
