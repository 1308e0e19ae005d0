import { addClientLimitFlags, clientLimitsFromFlags, type ClientLimitFlags } from '../client-flags.js';
import { addComponentFlags, componentOptionsFromFlags, type ComponentFlags } from '../component-flags.js';
import type { Command } from 'commander';
import { addCoreFlags, addInterpreterLibraryFlags, coreOptionsFromFlags, interpreterLibrariesFromFlags, parseDuration, type CoreFlags, type InterpreterLibraryFlags } from '../core-flags.js';
import { createLogger, isLevel, isLogFormat, logFormatError } from '../../runtime/log.js';
import { serveUntilSignal } from '../serve.js';
import { loadKubeConfig } from '../kubeconfig.js';
import { logLevelFor } from '../verbosity.js';
import { errorMessage } from '../../json/error.js';
import { coreControllers } from '../../core/controllers.js';
import { withCoreDefaults } from '../../core/ports.js';

const CONTROLLERS = coreControllers(withCoreDefaults());

/** Comma-separated names in lines of at most 110 characters, as the rest of the help is laid out. */
function wrap(names: readonly string[]): string[] {
  const lines: string[] = [];
  for (const n of names) {
    const last = lines.length ? lines[lines.length - 1]! : undefined;
    if (last !== undefined && last.length + n.length + 2 <= 110) lines[lines.length - 1] = `${last}, ${n}`;
    else lines.push(n);
  }
  return lines.map((l, i) => (i < lines.length - 1 ? `${l},` : l));
}

interface ControllerFlags extends CoreFlags, InterpreterLibraryFlags, ClientLimitFlags, ComponentFlags {
  kubeconfig?: string;
  context?: string;
  controllers: string;
  leaderElect: boolean;
  leaderElectResourceNamespace: string;
  leaderElectResourceName: string;
  rateLimiterBaseDelay: string;
  rateLimiterMaxDelay: string;
  rateLimiterQps: string;
  rateLimiterBucketSize: string;
  concurrentSyncs?: string;
  interpreterWebhookMemo: boolean;
  clusterProbeInterval: string;
  clusterMonitorGracePeriod: string;
  clusterStartupGracePeriod: string;
  withWebhook: boolean;
  webhookCertFile?: string;
  webhookKeyFile?: string;
  webhookPort: string;
  webhookBindAddress: string;
  webhookFeatureGates?: string;
  webhookSchema: string;
  webhookTlsMinVersion: string;
  webhookCertReloadInterval: string;
  webhookRejectRiskyScripts?: boolean;
  webhookAllowNoExecuteTaintPolicy?: boolean;
  logLevel: string;
  logFormat?: string;
  aggregatedApiserver?: boolean;
  aggregatedApiserverCertFile?: string;
  aggregatedApiserverKeyFile?: string;
  aggregatedApiserverPort: string;
  aggregatedApiserverBindAddress: string;
  dashboard?: boolean;
  dashboardAddress: string;
  dashboardPort: string;
}

/** The webhook command's flags, each under --webhook-<name> here. */
const WEBHOOK_FLAGS = ['cert-file', 'key-file', 'port', 'bind-address', 'feature-gates', 'schema', 'tls-min-version', 'cert-reload-interval', 'reject-risky-scripts', 'allow-no-execute-taint-policy'] as const;

/** The webhook's own errors name its flags; here they are spelled with the --webhook- prefix. */
function asWebhookFlags(message: string): string {
  return message.replace(new RegExp(`--(${WEBHOOK_FLAGS.join('|')})\\b`, 'g'), '--webhook-$1');
}

/**
 * `--with-webhook`: the webhook command's options from the prefixed flags, checked the same way. The
 * existing RICs for the conflict check come from the host cluster the controller already talks to.
 */
async function webhookOptions(flags: ControllerFlags, logLevel: string, kc: import('@kubernetes/client-node').KubeConfig) {
  const given = WEBHOOK_FLAGS.filter((f) => {
    const k = `webhook${f.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}` as keyof ControllerFlags;
    return flags[k] !== undefined && flags[k] !== DEFAULTS[k as keyof typeof DEFAULTS];
  });
  if (!flags.withWebhook) {
    if (given.length) throw new Error(`--webhook-${given[0]} is only used with --with-webhook; add --with-webhook to serve the admission webhook in this process`);
    return undefined;
  }
  if (!flags.webhookCertFile || !flags.webhookKeyFile) {
    throw new Error('--with-webhook needs --webhook-cert-file and --webhook-key-file: the PEM certificate and key the webhook serves HTTPS with (see deploy/webhook/README.md)');
  }
  const { toServerOptions } = await import('./webhook.js');
  const { clusterRicLister } = await import('../../webhook/ric-source.js');
  try {
    const opts = await toServerOptions({
      certFile: flags.webhookCertFile,
      keyFile: flags.webhookKeyFile,
      port: flags.webhookPort,
      bindAddress: flags.webhookBindAddress,
      featureGates: flags.webhookFeatureGates,
      schema: flags.webhookSchema,
      logLevel,
      logFormat: flags.logFormat,
      tlsMinVersion: flags.webhookTlsMinVersion,
      certReloadInterval: flags.webhookCertReloadInterval,
      rejectRiskyScripts: flags.webhookRejectRiskyScripts,
      allowNoExecuteTaintPolicy: flags.webhookAllowNoExecuteTaintPolicy,
      // No file list: the lister below reads the host cluster, in-cluster config included.
      existingRics: [],
    });
    opts.review.listRics = clusterRicLister(kc);
    return opts;
  } catch (e) {
    throw new Error(asWebhookFlags((e as Error).message));
  }
}

const DEFAULTS = {
  webhookPort: '8443',
  webhookBindAddress: '0.0.0.0',
  webhookSchema: 'decode',
  webhookTlsMinVersion: 'TLSv1.3',
  webhookCertReloadInterval: '1000',
} as const;

export { parseDuration };

/** `--concurrent-syncs execution=5,work-status=3`: controller names are checked against the selected controllers later. */
export function parseConcurrency(v: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z-]+)=(\d+)$/.exec(part);
    if (!m || Number(m[2]) < 1) throw new Error(`--concurrent-syncs takes name=n pairs with n at least 1 (e.g. execution=5), got ${part}`);
    out[m[1]!] = Number(m[2]);
  }
  return out;
}

/** The Pull clusters' grace periods, in seconds (CoreOptions). */
function pullHealthFromFlags(flags: ControllerFlags): { clusterMonitorGracePeriodSeconds: number; clusterStartupGracePeriodSeconds: number } {
  const seconds = (flag: string, v: string) => {
    const ms = parseDuration(flag, v);
    if (ms < 1000) throw new Error(`${flag} must be at least 1s (the agent renews its Lease every 10s by default; the grace period should be a few renewals), got ${v}`);
    return ms / 1000;
  };
  return {
    clusterMonitorGracePeriodSeconds: seconds('--cluster-monitor-grace-period', flags.clusterMonitorGracePeriod),
    clusterStartupGracePeriodSeconds: seconds('--cluster-startup-grace-period', flags.clusterStartupGracePeriod),
  };
}

export function registerController(program: Command): void {
  addClientLimitFlags(
    addComponentFlags(
      addCoreFlags(
        addInterpreterLibraryFlags(
          program
            .command('controller')
            .description('Run the reconcile core against a Kubernetes control plane (the host) and push Works to member clusters.'),
        ),
      ),
    ),
  )
    .option('--kubeconfig <path>', 'kubeconfig of the host cluster (default: $KUBECONFIG, ~/.kube/config or in-cluster)')
    .option('--context <name>', 'the kubeconfig context of the host cluster (default: the current-context)')
    .option('--leader-elect', 'elect a leader through a coordination.k8s.io Lease; standbys wait', false)
    .option('--leader-elect-resource-namespace <ns>', 'namespace of the Lease', 'karmada-system')
    .option('--leader-elect-resource-name <name>', 'name of the Lease', 'karmada-lite-controller')
    .option('--rate-limiter-base-delay <duration>', 'first retry delay of a failed key', '5ms')
    .option('--rate-limiter-max-delay <duration>', 'longest retry delay of a failed key', '1000s')
    .option('--rate-limiter-qps <n>', 'overall retry rate of each controller queue, per second', '10')
    .option('--rate-limiter-bucket-size <n>', 'burst of the overall retry rate', '100')
    .option('--concurrent-syncs <list>', 'keys reconciled at once per controller, as name=n pairs (e.g. "execution=5,work-status=5"); Karmada\'s --concurrent-*-syncs; default 1 each')
    .option('--interpreter-webhook-memo', 'remember the successful answers of interpreter webhooks (ResourceInterpreterWebhookConfiguration) by hook, operation and object; off: every answer is asked for afresh, as a webhook is not known to be pure', false)
    .option('--cluster-probe-interval <duration>', 'how often each member is probed (/readyz, and a namespaces list with its own credentials): a probe no answer came to within 5s makes a ready cluster not ready, one that failed fast only when the next fails too', '10s')
    .option('--cluster-monitor-grace-period <duration>', 'how long a Pull cluster\'s agent may stay silent (no Lease renewal in karmada-cluster, no Ready change) before its Ready condition turns Unknown', '40s')
    .option('--cluster-startup-grace-period <duration>', 'the same for a Pull cluster whose agent never posted a Ready condition, from the Cluster\'s creation', '60s')
    .option('--with-webhook', 'also serve the admission webhook (what `karmada-lite webhook` serves) from this process, on every replica', false)
    .option('--webhook-cert-file <path>', 'with --with-webhook: PEM certificate the webhook presents (reloaded when the file changes)')
    .option('--webhook-key-file <path>', 'with --with-webhook: PEM private key of that certificate')
    .option('--webhook-port <port>', 'with --with-webhook: HTTPS port of the webhook', DEFAULTS.webhookPort)
    .option('--webhook-bind-address <address>', 'with --with-webhook: address the webhook listens on', DEFAULTS.webhookBindAddress)
    .option('--webhook-feature-gates <gates>', 'with --with-webhook: Karmada alpha rules to turn on, e.g. MultiplePodTemplatesScheduling=true')
    .option('--webhook-schema <mode>', 'with --with-webhook: decode (refuse wrong types only, as Karmada) or full (the whole schema)', DEFAULTS.webhookSchema)
    .option('--webhook-tls-min-version <version>', 'with --with-webhook: TLSv1.2 or TLSv1.3', DEFAULTS.webhookTlsMinVersion)
    .option('--webhook-cert-reload-interval <ms>', 'with --with-webhook: how often to check the certificate files for changes, in milliseconds', DEFAULTS.webhookCertReloadInterval)
    .option('--webhook-reject-risky-scripts', 'with --with-webhook: refuse RICs whose Lua scripts have a known trap instead of admitting them with warnings')
    .option('--webhook-allow-no-execute-taint-policy', 'with --with-webhook: admit ClusterTaintPolicies with NoExecute taints')
    .option('--aggregated-apiserver', 'also serve the aggregated APIs (what `karmada-lite apiserver` serves: Clusters, clusters/{name}/proxy, search) from this process, on every replica', false)
    .option('--aggregated-apiserver-cert-file <path>', 'with --aggregated-apiserver: PEM serving certificate (reloaded when the file changes)')
    .option('--aggregated-apiserver-key-file <path>', 'with --aggregated-apiserver: PEM private key of that certificate')
    .option('--aggregated-apiserver-port <port>', 'with --aggregated-apiserver: HTTPS port', '6443')
    .option('--aggregated-apiserver-bind-address <address>', 'with --aggregated-apiserver: address to listen on', '0.0.0.0')
    .option('--dashboard', 'also serve a read-only, live dashboard of the fleet (the plan -o html report, pushed by server-sent events) from this replica\'s caches', false)
    .option('--dashboard-address <address>', 'with --dashboard: address to listen on (0.0.0.0 to be reached through the host apiserver\'s service proxy)', '127.0.0.1')
    .option('--dashboard-port <port>', 'with --dashboard: HTTP port', '8090')
    .option('--log-level <level>', 'debug, info, warn or error', 'info')
    .option('--log-format <format>', 'json or text (default: text when standard error is a terminal, else json)')
    .addHelpText(
      'after',
      `
Controllers: ${wrap(CONTROLLERS.filter((c) => !c.disabledByDefault).map((c) => c.name)).join('\n')}.
Off unless --controllers names them, as in Karmada: ${CONTROLLERS.filter((c) => c.disabledByDefault).map((c) => c.name).join(', ')}
(members' HPAs own the replicas of the workloads they scale: e.g. --controllers '*,hpa-scale-target-marker,deployment-replicas-syncer').

Namespaces: every namespace of the host reaches every member (a Work per cluster) and is deleted there
with it, except karmada-system, karmada-cluster, karmada-es-*, default, those --skipped-propagating-namespaces
matches (default kube-.*) and those labelled namespace.karmada.io/skip-auto-propagation=true.

Descheduler: a Deployment divided by available replicas (Aggregated, or dynamic weights) whose replicas on a
member stay unschedulable longer than --unschedulable-threshold loses them there, and the scheduler puts
them where there is room; such bindings are looked at again every --descheduling-interval. A member's
unschedulable replicas are its Deployment pods with PodScheduled=False (Unschedulable) when its pods can be
listed, else the unavailable replicas its Deployment reports (Available=False) beyond the room its Cluster's
resourceSummary has left. Turn it off with --controllers '*,-descheduler'.

User ResourceInterpreterCustomizations: their Lua scripts run in --interpreter-workers worker threads, so
a script that spins until its 1s budget never stalls /healthz, informers or the webhook; a worker that
overruns its budget is replaced and the call fails with the budget error. A call may use 32 MiB of heap
and string memory; a worker left far above its start by a call is replaced, so memory is given back (each
worker needs up to 120 MiB of the pod's limit). A script that keeps failing is backed off (exponential, up
to 5 minutes) for its RIC, kind and operation, and its RIC gets the condition ScriptsHealthy=False (reason
ScriptTimeout, ScriptMemoryLimit or ScriptError) and a Warning Event. A RIC whose calls cost a worker twice
is quarantined: its calls fail at once until its scripts change, or for 5 minutes (doubling per relapse, up
to an hour); a restarted controller keeps the quarantine its condition records. The built-in interpreters
run in-process.

Interpreter webhooks (ResourceInterpreterWebhookConfiguration): for a kind and operation no user RIC
scripts, the first matching hook by <configuration>/<hook> is called over HTTPS, before the built-in
interpreters. Calls run in the background, at most 8 at once per hook; the reconcile that asked is
retried with the answer. A failure (timeout, TLS, HTTP status, unsuccessful answer) fails the reconcile
with a Warning Event and is retried with back-off. Metrics: karmada_lite_interpreter_webhook_*.

Cluster failover: the controller probes every member's /readyz, and lists its namespaces with the member's
own credentials (a 401 or 403 means not ready: revoked RBAC), every --cluster-probe-interval, into the
Cluster's Ready condition; a member's Secret is watched, so rotated credentials are used at once.
A not-ready cluster gets the taint cluster.karmada.io/not-ready:NoSchedule at once (no new placements);
once Ready has been False for --cluster-failure-threshold it also gets
cluster.karmada.io/not-ready:NoExecute. The taint-manager then evicts the cluster from every binding whose
policy sets failover.cluster (purgeMode Directly or Gracefully) and does not tolerate that taint in
placement.clusterTolerations (tolerationSeconds delays it); the scheduler moves the replicas elsewhere. Both
taints go when the cluster is Ready again. Bindings whose dispatching to that cluster is suspended are not
evicted until the suspension is lifted. That is the default (Karmada v1.2's way). With
--enable-no-execute-taint-eviction (current Karmada) the cluster controller adds no NoExecute taint; one
from a ClusterTaintPolicy or a user evicts every binding that does not tolerate it (purge mode: the
policy's failover.cluster, else --no-execute-taint-eviction-purge-mode). --enable-no-execute-taint-eviction=false
or --feature-gates Failover=false: no NoExecute eviction at all. ClusterTaintPolicies add and remove taints
on Clusters from their status conditions in every mode.

--with-webhook serves the validating and mutating webhook (the paths of \`karmada-lite webhook --help\`, plus
/healthz and /readyz) over HTTPS on --webhook-port, on every replica, leader or not. Its flags are the
webhook command's, prefixed with --webhook-; existing ResourceInterpreterCustomizations for the conflict
check are read from the host cluster.

--dashboard serves a read-only page of the fleet (templates by clusters, as \`plan -o html\`) on
--dashboard-address:--dashboard-port (default 127.0.0.1:8090), live from this replica's caches: updates are
pushed over server-sent events (./events) as the caches change; ./model.json is the same model. GET and HEAD
only. Reach it with kubectl port-forward, or through the host apiserver's service proxy (deploy/controller:
/api/v1/namespaces/karmada-system/services/http:karmada-lite-controller:dashboard/proxy/), where the host's
RBAC decides who sees it. A standby replica serves its own caches, empty until it leads (the page says so).

Member clusters are Cluster objects (cluster.karmada.io/v1alpha1, syncMode Push) with spec.apiEndpoint and
spec.secretRef naming a Secret with token + caBundle, or kubeconfig.

Pull clusters (syncMode Pull, joined with \`karmada-lite register\` and run by \`karmada-lite agent\` in the
member) are never connected to: their agent applies their Works and posts their status. Their readiness is
the agent's heartbeat, the Lease karmada-cluster/<cluster>: renewed by nobody for --cluster-monitor-grace-period
(--cluster-startup-grace-period before the first status), the Cluster's Ready turns Unknown
(ClusterStatusUnknown), and the taints and failover above follow as for a Push cluster.

Logs (standard error): text on a terminal, JSON lines otherwise (--log-format json|text). At info level, one
line per action that changed a member or a binding (propagated, removed, preserved, suspended, resumed,
scheduled, evicted, failed over) with its template and cluster; a failure that repeats (a member that does
not answer) is one line, then one line per 30s with the count. /metrics uses controller-runtime's and
Karmada's names (workqueue_*, rest_client_requests_total, leader_election_master_status, cluster_*).

SIGTERM drains: the reconcile in progress finishes, then the Lease is released so a standby takes over at once.

Examples:
  karmada-lite controller --kubeconfig ~/.kube/karmada.config
  karmada-lite controller --kubeconfig host.config --leader-elect --metrics-port 9090
  karmada-lite controller --kubeconfig host.config --cluster-failure-threshold 1m --cluster-probe-interval 5s
  karmada-lite controller --kubeconfig host.config --enable-no-execute-taint-eviction --skipped-propagating-namespaces 'kube-.*,sandbox-.*'
  karmada-lite controller --kubeconfig host.config --with-webhook --webhook-cert-file tls.crt --webhook-key-file tls.key
  karmada-lite controller --kubeconfig host.config --aggregated-apiserver --aggregated-apiserver-cert-file tls.crt --aggregated-apiserver-key-file tls.key`,
    )
    .action(async (flags: ControllerFlags) => {
      // -v 4 or more (kubectl's verbosity, on every command) logs at debug level.
      const level = logLevelFor(flags.logLevel);
      if (!isLevel(level)) {
        process.stderr.write(`error: --log-level must be debug, info, warn or error, got ${level}\n`);
        process.exitCode = 2;
        return;
      }
      const format = flags.logFormat;
      if (format !== undefined && !isLogFormat(format)) {
        process.stderr.write(`error: ${logFormatError(format)}\n`);
        process.exitCode = 2;
        return;
      }
      const log = createLogger({ level, format, fields: { component: 'controller' } });
      let controller: import('../../kube/controller.js').Controller;
      let webhook: import('../../webhook/server.js').WebhookServer | undefined;
      let aggregated: { stop(): Promise<void> } | undefined;
      let dashboard: import('../../dashboard/dashboard.js').Dashboard | undefined;
      try {
        const component = componentOptionsFromFlags(flags);
        // client-node is loaded only here: it costs every other CLI command startup time.
        const qps = Number(flags.rateLimiterQps);
        const bucketSize = Number(flags.rateLimiterBucketSize);
        if (!(qps > 0)) throw new Error(`--rate-limiter-qps must be a positive number, got ${flags.rateLimiterQps}`);
        if (!Number.isInteger(bucketSize) || bucketSize < 1) throw new Error(`--rate-limiter-bucket-size must be a positive integer, got ${flags.rateLimiterBucketSize}`);
        const clientLimits = clientLimitsFromFlags(flags);
        const { Controller } = await import('../../kube/controller.js');
        const core = { ...coreOptionsFromFlags(flags, (m) => log.warn(m)), ...pullHealthFromFlags(flags) };
        // Reported at start-up with their files; what loads is used.
        const interpreterLibraries = interpreterLibrariesFromFlags(flags, (p) => log.warn('interpreter library file not loaded', { problem: p }));
        const { kubeconfigProblem } = await import('../../kube/preflight.js');
        const problem = kubeconfigProblem(flags.kubeconfig);
        if (problem) throw new Error(problem);
        const kc = await loadKubeConfig(flags.kubeconfig, flags.context);
        const webhookOpts = await webhookOptions(flags, level, kc);
        controller = new Controller({
          kubeconfig: kc,
          log,
          controllers: [...(core.controllers ?? ['*'])],
          leaderElect: flags.leaderElect,
          leaseNamespace: flags.leaderElectResourceNamespace,
          leaseName: flags.leaderElectResourceName,
          ...component,
          baseDelayMs: parseDuration('--rate-limiter-base-delay', flags.rateLimiterBaseDelay),
          maxDelayMs: parseDuration('--rate-limiter-max-delay', flags.rateLimiterMaxDelay),
          qps,
          bucketSize,
          probeIntervalMs: parseDuration('--cluster-probe-interval', flags.clusterProbeInterval),
          clientLimits,
          concurrency: parseConcurrency(flags.concurrentSyncs),
          interpreterWebhookMemo: flags.interpreterWebhookMemo,
          interpreterLibraries,
          core,
          onCachesFilled: (store) => dashboard?.feed.attach(store),
        });
        if (webhookOpts) {
          const { WebhookServer } = await import('../../webhook/server.js');
          webhook = new WebhookServer(webhookOpts);
          try {
            const addr = await webhook.start();
            log.info('serving the admission webhook', { port: addr.port });
          } catch (e) {
            throw new Error(asWebhookFlags((e as Error).message));
          }
        }
        // before the controller: with the cluster.karmada.io APIService installed, its Cluster reads come here
        aggregated = await startAggregatedApiserver(flags, kc, log);
        dashboard = await startDashboardFromFlags(flags, controller, log);
        await controller.start();
      } catch (e) {
        await webhook?.stop().catch(() => undefined);
        await aggregated?.stop().catch(() => undefined);
        await dashboard?.stop().catch(() => undefined);
        process.stderr.write(`error: ${(e as Error).message}\n`);
        process.exitCode = 2;
        return;
      }
      await serveUntilSignal(
        async () => {
          await controller.stop();
          await webhook?.stop();
          await aggregated?.stop();
          await dashboard?.stop();
        },
        (signal) => log.info('shutting down', { signal }),
      );
    });
}

/** `--dashboard`: the live page of this replica's caches; undefined when off. */
async function startDashboardFromFlags(flags: ControllerFlags, controller: import('../../kube/controller.js').Controller, log: import('../../runtime/log.js').Logger) {
  if (!flags.dashboard) return undefined;
  const port = Number(flags.dashboardPort);
  if (!/^\d+$/.test(flags.dashboardPort) || port > 65535) throw new Error(`--dashboard-port must be a port number, got ${flags.dashboardPort}`);
  const { startDashboard } = await import('../../dashboard/dashboard.js');
  const served = await startDashboard({ port, bindAddress: flags.dashboardAddress, identity: controller.identity, isLeader: () => controller.leading });
  log.info('serving the dashboard', { address: served.address.address, port: served.address.port });
  return served;
}

/** `--aggregated-apiserver`: the apiserver command's server, from the prefixed flags; undefined when off. */
async function startAggregatedApiserver(flags: ControllerFlags, kc: import('@kubernetes/client-node').KubeConfig, log: import('../../runtime/log.js').Logger) {
  if (!flags.aggregatedApiserver) {
    const given = flags.aggregatedApiserverCertFile ?? flags.aggregatedApiserverKeyFile;
    if (given) throw new Error('--aggregated-apiserver-cert-file and --aggregated-apiserver-key-file are only used with --aggregated-apiserver; add --aggregated-apiserver');
    return undefined;
  }
  if (!flags.aggregatedApiserverCertFile || !flags.aggregatedApiserverKeyFile) {
    throw new Error('--aggregated-apiserver needs --aggregated-apiserver-cert-file and --aggregated-apiserver-key-file: the certificate the host aggregator connects to (deploy/aggregated-api/README.md)');
  }
  const { apiserverOptionsFromFlags, startAggregatedApis } = await import('./apiserver.js');
  const opts = apiserverOptionsFromFlags(
    { tlsCertFile: flags.aggregatedApiserverCertFile, tlsPrivateKeyFile: flags.aggregatedApiserverKeyFile, securePort: flags.aggregatedApiserverPort, bindAddress: flags.aggregatedApiserverBindAddress },
    log,
    { port: '--aggregated-apiserver-port' },
  );
  try {
    const served = await startAggregatedApis(kc, opts, log);
    log.info('serving the aggregated APIs', { port: served.port });
    return served;
  } catch (e) {
    // the server's errors name the apiserver command's flags; here they have the prefix
    throw new Error(errorMessage(e).replace(/--tls-cert-file/g, '--aggregated-apiserver-cert-file').replace(/--tls-private-key-file/g, '--aggregated-apiserver-key-file'));
  }
}
