/**
 * The long-running controller: the core's controllers on the runner, reading from a KubeStore and
 * writing through it, behind Lease leader election, with /metrics /healthz /readyz. The same wiring
 * as the embedded control plane (coreControllers + real scheduler + interpreter following the RICs),
 * on the wall clock.
 */
import { hostname } from 'node:os';
import type { Server } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { coreControllers, INTERPRETER_HEALTH, selectControllers } from '../core/controllers.js';
import { CLUSTER, RIC } from '../core/kinds.js';
import { refKey, refOf } from '../core/object.js';
import { SCHEDULER } from '../core/scheduling.js';
import { withCoreDefaults, type ControllerSpec, type CoreOptions, type Interpreter, type InterpreterOperation } from '../core/ports.js';
import { createInterpreter, type InterpreterOptions } from '../interpreter/interpreter.js';
import { InterpreterPool, POOL_DEFAULTS } from '../interpreter/pool.js';
import { createPooledInterpreter, InterpreterPendingError, type PooledInterpreter } from '../interpreter/pool-interpreter.js';
import { configurationFollower, createWebhookInterpreter, httpsWebhookCaller, RIWC } from '../interpreter/webhook-interpreter.js';
import { startProbeServer } from '../runtime/http.js';
import { LeaderElector } from '../runtime/leader-election.js';
import { actionLogger } from '../runtime/action-log.js';
import type { Logger } from '../runtime/log.js';
import { LogFold } from '../runtime/log-fold.js';
import { subjectOf } from '../runtime/karmada-metrics.js';
import { Metrics } from '../runtime/metrics.js';
import { Runner } from '../runtime/runner.js';
import { interpreterPort, realScheduler } from '../store/control-plane.js';
import { kubeLeaseClient } from './lease.js';
import { limiterOptions } from './rate-limiter.js';
import { checkHost } from './preflight.js';
import { observeRateLimiter, observeRequests } from './rest.js';
import { KubeStore, type ClientLimits, type KubeStoreOptions } from './store.js';

export interface ControllerOptions {
  kubeconfig: KubeConfig;
  log: Logger;
  /** Karmada's --controllers syntax: `*`, names, `-name` to turn one off. */
  controllers: string[];
  leaderElect: boolean;
  leaseNamespace: string;
  leaseName: string;
  leaseDurationSeconds: number;
  retryPeriodMs: number;
  identity?: string;
  metricsPort: number;
  bindAddress: string;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Overall retry rate per controller queue. */
  qps: number;
  bucketSize: number;
  /** Keys reconciled at once, by controller name (default 1). */
  concurrency?: Record<string, number>;
  probeIntervalMs: number;
  /** `--kube-api-qps/-burst`, `--cluster-api-qps/-burst` (unset: no limit, as tests and benches that build a Controller directly expect). */
  clientLimits?: ClientLimits;
  core?: Partial<CoreOptions>;
  /**
   * Worker threads that run user RIC scripts (`--interpreter-workers`, default 2); 0 runs them on the
   * event loop, as the interpret and plan commands do.
   */
  interpreterWorkers?: number;
  /** `--interpreter-webhook-memo`: remember interpreter webhooks' successful answers (they are not known to be pure). */
  interpreterWebhookMemo?: boolean;
  /** `--interpreters` and `--health-checks`, loaded: the third-party and health check layers (run in the workers too). */
  interpreterLibraries?: Pick<InterpreterOptions, 'library' | 'healthChecks'>;
  /** Told once the caches are filled (`--dashboard` reads them; a standby has none until it leads). */
  onCachesFilled?: (store: KubeStore) => void;
  /** The agent's KubeStore options (src/kube/agent.ts): its part of the host and its own cluster. */
  store?: Pick<KubeStoreOptions, 'hostKinds' | 'optionalHostKinds' | 'hostScope' | 'localMember' | 'component'>;
}

/** Karmada's --controllers lives with the controllers (plan and simulate select them too). */
export { selectControllers };

export class Controller {
  readonly metrics = new Metrics({ processMetrics: true });
  private store?: KubeStore;
  private runner?: Runner;
  private abort?: AbortController;
  private running?: Promise<void>;
  private elector?: LeaderElector;
  private server?: Server;
  private pool?: InterpreterPool;
  private webhookCaller?: ReturnType<typeof httpsWebhookCaller>;
  private synced = false;
  private stopping = false;
  /** Repeated failures (a member that does not answer, a reconcile failing the same way) as one line per interval. */
  private fold?: LogFold;
  private readonly controllers: ControllerSpec[];
  readonly identity: string;

  constructor(private readonly opts: ControllerOptions) {
    // The control plane executes Push clusters' Works; a Pull cluster's agent executes its own.
    const core = withCoreDefaults({ executionSyncMode: 'Push', ...opts.core });
    this.core = core;
    // The scheduler's queue counts what puts bindings in it, as Karmada's queue_incoming_bindings_total.
    this.controllers = selectControllers(coreControllers(core), opts.controllers).map((c) =>
      c.name === SCHEDULER ? { ...c, keysFor: (change, reader) => this.metrics.karmada.countedKeys(change, c.keysFor(change, reader)) } : c,
    );
    // Checked here, before campaigning for the lease, so that a typo fails at start-up with exit code 2.
    for (const name of Object.keys(opts.concurrency ?? {})) {
      if (!this.controllers.some((c) => c.name === name)) throw new Error(`--concurrent-syncs: no running controller named ${name}; running: ${this.controllers.map((c) => c.name).join(', ')}`);
    }
    this.identity = opts.identity ?? `${hostname()}_${process.pid}`;
  }

  private readonly core: CoreOptions;

  /** Acting on the cluster: the Lease holder, or the only replica without --leader-elect. */
  get leading(): boolean {
    return this.elector ? this.elector.isLeader : this.runner !== undefined || this.store !== undefined;
  }

  async start(): Promise<void> {
    const log = this.opts.log;
    // Before anything listens or campaigns: a host without the CRDs is a setup mistake, told once with what to do.
    await checkHost(this.opts.kubeconfig);
    observeRequests((code, method, host) => this.metrics.observeRequest(code, method, host));
    observeRateLimiter((host, waiting, waitedMs) => this.metrics.observeRateLimiter(host, waiting, waitedMs));
    this.fold = new LogFold(log);
    this.fold.start();
    this.server = await startProbeServer({
      port: this.opts.metricsPort,
      bindAddress: this.opts.bindAddress,
      metrics: this.metrics,
      healthy: () => !this.stopping,
      // A standby is ready: it can take over. A leader is ready once its caches are filled.
      ready: () => !this.stopping && (this.elector ? !this.elector.isLeader || this.synced : this.synced),
    });
    log.info('serving metrics and probes', { port: this.opts.metricsPort, controllers: this.controllers.map((c) => c.name) });
    if (!this.opts.leaderElect) {
      this.actInBackground();
      return;
    }
    this.elector = new LeaderElector(kubeLeaseClient(this.opts.kubeconfig, this.opts.leaseNamespace, this.opts.leaseName, limiterOptions(this.opts.clientLimits?.host)), {
      identity: this.identity,
      leaseDurationSeconds: this.opts.leaseDurationSeconds,
      retryPeriodMs: this.opts.retryPeriodMs,
      onStartedLeading: () => {
        this.metrics.setLeader(this.opts.leaseName, true);
        log.info('became leader', { identity: this.identity, lease: `${this.opts.leaseNamespace}/${this.opts.leaseName}` });
        this.actInBackground();
      },
      onStoppedLeading: () => {
        this.metrics.setLeader(this.opts.leaseName, false);
        if (this.stopping) return;
        // client-go's answer: another replica may act already, so this one must not write any more.
        log.error('lost the lease; exiting', { identity: this.identity });
        process.exit(1);
      },
      // A host that does not answer fails every renewal: folded into one line per interval.
      onError: (e) => (this.fold?.logger() ?? log).warn('leader election', { err: (e as Error).message }),
    });
    this.metrics.setLeader(this.opts.leaseName, false);
    log.info('campaigning for the lease', { identity: this.identity, lease: `${this.opts.leaseNamespace}/${this.opts.leaseName}` });
    this.elector.start();
  }

  private actInBackground(): void {
    void this.act().catch((e) => {
      this.opts.log.error('controller failed', { err: (e as Error).message });
      process.exit(1);
    });
  }

  /** Fills the caches and runs the controllers until stop(). */
  private async act(): Promise<void> {
    const log = this.opts.log;
    const folded = this.fold?.logger() ?? log;
    const store = new KubeStore({
      ...this.opts.store,
      host: this.opts.kubeconfig,
      log: folded,
      probeIntervalMs: this.opts.probeIntervalMs,
      clientLimits: this.opts.clientLimits,
      onClusterReadiness: (r) => this.metrics.setClusterReadiness(r),
      onClusterSynced: (cluster, seconds) => this.metrics.observeClusterSync(cluster, seconds),
      onEventDropped: (reason) => this.metrics.eventsDropped.inc({ reason }),
      skippedPropagatingNamespaces: this.core.skippedPropagatingNamespaces,
    });
    this.store = store;
    this.metrics.followEventsWaiting(() => store.eventsWaiting());
    store.watch((ev) => {
      if (ev.cluster !== undefined || ev.object.kind !== CLUSTER.kind || ev.object.apiVersion !== CLUSTER.apiVersion) return;
      if (ev.type === 'DELETED') this.metrics.forgetCluster(ev.object.metadata.name ?? '');
      else this.metrics.recordClusterStatus(ev.object);
    });
    await store.start();
    this.opts.onCachesFilled?.(store);
    // With --interpreter-workers 0 user scripts run here: the same per-call memory budget as in a worker.
    const real = createInterpreter({ nowMs: Date.now, builtin: true, memoize: true, memoryLimitBytes: POOL_DEFAULTS.memoryLimitBytes, ...this.opts.interpreterLibraries });
    const local = interpreterPort(real);
    const workers = this.opts.interpreterWorkers ?? 2;
    let pooled: PooledInterpreter | undefined;
    let runner: Runner | undefined;
    const healthKeys = this.controllers.some((c) => c.name === INTERPRETER_HEALTH);
    if (workers > 0) {
      // User scripts run in worker threads, so that one that spins until its budget (or past it) never
      // holds up probes, informers, metrics or the webhook in this process. Built-in layers stay here.
      this.pool = new InterpreterPool({
        size: workers,
        libraries: this.opts.interpreterLibraries,
        onReplaced: (reason, operation, message) => log.warn('interpreter worker replaced', { reason, operation, err: message }),
      });
      pooled = createPooledInterpreter({
        real,
        local,
        pool: this.pool,
        library: this.opts.interpreterLibraries?.library,
        onHealthChanged: (ric) => {
          if (healthKeys) runner?.enqueue(INTERPRETER_HEALTH, refKey({ apiVersion: RIC.apiVersion, kind: RIC.kind, name: ric }));
        },
      });
    }
    // Interpreter webhooks answer after the user RICs and before the built-in layers (spec 3.2).
    this.webhookCaller = httpsWebhookCaller();
    const webhooks = createWebhookInterpreter({
      inner: pooled ?? local,
      declarative: (t, op) => real.layerFor(t, op) === 'customization',
      caller: this.webhookCaller,
      memo: this.opts.interpreterWebhookMemo,
      onCall: (c) => {
        this.metrics.observeInterpreterWebhook(c.hook, c.operation, c.seconds, c.error);
        if (c.error !== undefined) folded.warn('interpreter webhook call failed', { webhook: c.hook, operation: c.operation, err: c.error });
      },
    });
    const followHooks = configurationFollower(webhooks);
    const port = this.instrument(webhooks);
    let ricSignature = '';
    const karmada = this.metrics.karmada;
    const sched = karmada.scheduler(realScheduler({ observe: karmada.algorithmObserver() }), (b) => store.get(refOf(b), b.metadata.namespace, b.metadata.name ?? '') === b);
    runner = new Runner(store, this.controllers, {
      clock: () => new Date(),
      writer: store,
      baseDelayMs: this.opts.baseDelayMs,
      maxDelayMs: this.opts.maxDelayMs,
      bucket: { qps: this.opts.qps, burst: this.opts.bucketSize },
      concurrency: this.opts.concurrency,
      // A write to a member that does not answer must not hold up the other members' Works (issue 12).
      parkAfterMs: 250,
      context: () => {
        const rics = store.list(RIC);
        const sig = rics.map((r) => `${r.metadata.name}@${r.metadata.resourceVersion}`).sort().join(',');
        if (sig !== ricSignature) {
          ricSignature = sig;
          (pooled ?? real).setCustomizations(rics as never);
        }
        followHooks(store.list(RIWC));
        return { interpreter: port, schedule: sched, options: this.core, capacity: store.memberCapacity, metrics: store.memberMetrics };
      },
      onReconcile: (controller, seconds, error, detail) => {
        karmada.observeReconcile(controller, seconds, error, detail, (key) => subjectOf(store, controller, key));
        this.metrics.reconcileSeconds.observe({ controller }, seconds);
        this.metrics.reconcileTotal.inc({ controller, result: error === undefined ? 'success' : 'error' });
        if (error !== undefined) {
          this.metrics.reconcileErrors.inc({ controller });
          // Conflicts and cold caches are routine on a live apiserver: they are retried with fresh state.
          const routine = / 409 |Conflict|not synced yet/.test(error);
          (routine ? folded.debug : folded.warn)('reconcile failed', { controller, err: error.split('\n')[0] });
        }
        for (const [name, depth] of Object.entries(runner!.depths())) this.metrics.queueDepth.set({ name }, depth);
      },
      deferrals: webhooks,
      // A reconcile that waits for interpreter workers: neither a success nor an error.
      onDeferred: (controller) => this.metrics.reconcileTotal.inc({ controller, result: 'deferred' }),
      queueObserver: (controller) => this.metrics.workqueue(controller),
      onWrite: actionLogger(log),
    });
    this.runner = runner;
    this.metrics.followWorkInProgress(() => runner!.inProgress());
    runner.start(store.existing());
    this.synced = true;
    log.info('caches synced; reconciling');
    this.abort = new AbortController();
    this.running = runner.run(this.abort.signal);
    await this.running;
  }

  /** Times and counts every interpreter call, per operation. */
  private instrument(inner: Interpreter): Interpreter {
    const ops: Record<string, InterpreterOperation> = {
      getReplicas: 'InterpretReplica',
      reviseReplica: 'ReviseReplica',
      retain: 'Retain',
      reflectStatus: 'InterpretStatus',
      interpretHealth: 'InterpretHealth',
      aggregateStatus: 'AggregateStatus',
      getDependencies: 'InterpretDependency',
    };
    const out: Record<string, unknown> = { hookEnabled: inner.hookEnabled.bind(inner), scriptHealth: inner.scriptHealth?.bind(inner) };
    const timed =
      (op: InterpreterOperation, fn: (...a: unknown[]) => unknown, answered: (r: unknown) => boolean = () => true) =>
      (...args: unknown[]) => {
        const started = performance.now();
        let ok = false;
        let counted = true;
        try {
          const r = fn.apply(inner, args);
          ok = true;
          counted = answered(r);
          return r;
        } catch (e) {
          // Handed to a worker: not a call of its own (the retry that reads the result is).
          counted = !(e instanceof InterpreterPendingError);
          throw e;
        } finally {
          if (counted) this.metrics.observeInterpreter(op, (performance.now() - started) / 1000, ok);
        }
      };
    for (const [method, op] of Object.entries(ops)) out[method] = timed(op, (inner as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!);
    // A health check's answer (--health-checks); undefined hands the call on to interpretHealth, which counts itself.
    if (inner.healthDetail) out.healthDetail = timed('InterpretHealth', inner.healthDetail as (...a: unknown[]) => unknown, (r) => r !== undefined);
    return out as unknown as Interpreter;
  }

  /** Graceful shutdown: the reconcile in progress finishes, then the lease is released. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.abort?.abort();
    await this.running?.catch(() => undefined);
    this.runner?.stop();
    await this.pool?.close();
    this.webhookCaller?.close();
    await this.elector?.stop();
    // The last reconciles' events, but no longer than a few seconds: shutdown must not hang on the apiserver.
    await Promise.race([this.store?.drainEvents(), new Promise((r) => setTimeout(r, 3000).unref())]);
    this.store?.stop();
    this.fold?.stop();
    observeRequests(undefined);
    observeRateLimiter(undefined);
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    this.opts.log.info('stopped', { identity: this.identity });
  }
}
