import type { Command } from 'commander';
import { createLogger, isLevel } from '../../runtime/log.js';
import { serveUntilSignal } from '../serve.js';

interface ControllerFlags {
  kubeconfig?: string;
  controllers: string;
  leaderElect: boolean;
  leaderElectResourceNamespace: string;
  leaderElectResourceName: string;
  leaderElectLeaseDuration: string;
  leaderElectRetryPeriod: string;
  leaderElectIdentity?: string;
  metricsPort: string;
  bindAddress: string;
  rateLimiterBaseDelay: string;
  rateLimiterMaxDelay: string;
  rateLimiterQps: string;
  rateLimiterBucketSize: string;
  clusterProbeInterval: string;
  logLevel: string;
  v?: string;
}

/** Go-style durations as Karmada's flags take them: 5ms, 1000s, 1m30s; a bare number is seconds. */
export function parseDuration(flag: string, v: string): number {
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(v))) {
    total += Number(m[1]) * unit[m[2]!]!;
    end = re.lastIndex;
  }
  if (end !== v.length || end === 0) throw new Error(`${flag} must be a duration like 5ms, 10s or 1m, got ${v}`);
  return total;
}

export function registerController(program: Command): void {
  program
    .command('controller')
    .description('Run the reconcile core against a Kubernetes control plane (the host) and push Works to member clusters.')
    .option('--kubeconfig <path>', 'kubeconfig of the host cluster (default: $KUBECONFIG, ~/.kube/config or in-cluster)')
    .option('--controllers <list>', 'controllers to run: * for all, -name to turn one off (e.g. "*,-application-failover")', '*')
    .option('--leader-elect', 'elect a leader through a coordination.k8s.io Lease; standbys wait', false)
    .option('--leader-elect-resource-namespace <ns>', 'namespace of the Lease', 'karmada-system')
    .option('--leader-elect-resource-name <name>', 'name of the Lease', 'karmada-lite-controller')
    .option('--leader-elect-lease-duration <duration>', 'how long a standby waits after the last renewal before taking over', '15s')
    .option('--leader-elect-retry-period <duration>', 'how often the leader renews and standbys retry', '2s')
    .option('--leader-elect-identity <id>', 'this replica\'s identity in the Lease (default: hostname_pid)')
    .option('--metrics-port <port>', 'port of /metrics, /healthz and /readyz', '8080')
    .option('--bind-address <address>', 'address of the metrics and probe server', '0.0.0.0')
    .option('--rate-limiter-base-delay <duration>', 'first retry delay of a failed key', '5ms')
    .option('--rate-limiter-max-delay <duration>', 'longest retry delay of a failed key', '1000s')
    .option('--rate-limiter-qps <n>', 'overall retry rate of each controller queue, per second', '10')
    .option('--rate-limiter-bucket-size <n>', 'burst of the overall retry rate', '100')
    .option('--cluster-probe-interval <duration>', 'how often member clusters\' /readyz is probed', '10s')
    .option('--log-level <level>', 'debug, info, warn or error', 'info')
    .option('--v <n>', 'klog-style verbosity: 4 or more logs at debug level')
    .addHelpText(
      'after',
      `
Controllers: detector, policy, binding, scheduler, execution, work-status, binding-status, dependencies,
graceful-eviction, application-failover, cluster.

Member clusters are Cluster objects (cluster.karmada.io/v1alpha1, syncMode Push) with spec.apiEndpoint and
spec.secretRef naming a Secret with token + caBundle, or kubeconfig.

SIGTERM drains: the reconcile in progress finishes, then the Lease is released so a standby takes over at once.

Examples:
  karmada-lite controller --kubeconfig ~/.kube/karmada.config
  karmada-lite controller --kubeconfig host.config --leader-elect --metrics-port 9090`,
    )
    .action(async (flags: ControllerFlags) => {
      let level = flags.logLevel;
      if (flags.v !== undefined && Number(flags.v) >= 4) level = 'debug';
      if (!isLevel(level)) {
        process.stderr.write(`error: --log-level must be debug, info, warn or error, got ${level}\n`);
        process.exitCode = 2;
        return;
      }
      const log = createLogger({ level, fields: { component: 'controller' } });
      let controller: import('../../kube/controller.js').Controller;
      try {
        const port = Number(flags.metricsPort);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--metrics-port must be a port number, got ${flags.metricsPort}`);
        // client-node is loaded only here: it costs every other CLI command startup time.
        const qps = Number(flags.rateLimiterQps);
        const bucketSize = Number(flags.rateLimiterBucketSize);
        if (!(qps > 0)) throw new Error(`--rate-limiter-qps must be a positive number, got ${flags.rateLimiterQps}`);
        if (!Number.isInteger(bucketSize) || bucketSize < 1) throw new Error(`--rate-limiter-bucket-size must be a positive integer, got ${flags.rateLimiterBucketSize}`);
        const { KubeConfig } = await import('@kubernetes/client-node');
        const { Controller } = await import('../../kube/controller.js');
        const kc = new KubeConfig();
        if (flags.kubeconfig) kc.loadFromFile(flags.kubeconfig);
        else kc.loadFromDefault();
        controller = new Controller({
          kubeconfig: kc,
          log,
          controllers: flags.controllers.split(',').map((s) => s.trim()).filter(Boolean),
          leaderElect: flags.leaderElect,
          leaseNamespace: flags.leaderElectResourceNamespace,
          leaseName: flags.leaderElectResourceName,
          leaseDurationSeconds: parseDuration('--leader-elect-lease-duration', flags.leaderElectLeaseDuration) / 1000,
          retryPeriodMs: parseDuration('--leader-elect-retry-period', flags.leaderElectRetryPeriod),
          identity: flags.leaderElectIdentity,
          metricsPort: port,
          bindAddress: flags.bindAddress,
          baseDelayMs: parseDuration('--rate-limiter-base-delay', flags.rateLimiterBaseDelay),
          maxDelayMs: parseDuration('--rate-limiter-max-delay', flags.rateLimiterMaxDelay),
          qps,
          bucketSize,
          probeIntervalMs: parseDuration('--cluster-probe-interval', flags.clusterProbeInterval),
        });
        await controller.start();
      } catch (e) {
        process.stderr.write(`error: ${(e as Error).message}\n`);
        process.exitCode = 2;
        return;
      }
      await serveUntilSignal(() => controller.stop(), (signal) => log.info('shutting down', { signal }));
    });
}
