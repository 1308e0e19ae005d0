import type { Command } from 'commander';
import { errorMessage } from '../../json/error.js';
import { createLogger, isLevel, isLogFormat, logFormatError } from '../../runtime/log.js';
import { addClientLimitFlags, clientLimitsFromFlags, type ClientLimitFlags } from '../client-flags.js';
import { addComponentFlags, componentOptionsFromFlags, wholeNumber, type ComponentFlags } from '../component-flags.js';
import { addInterpreterLibraryFlags, interpreterLibrariesFromFlags, parseDuration, type InterpreterLibraryFlags } from '../core-flags.js';
import { loadKubeConfig } from '../kubeconfig.js';
import { clusterNameRuleProblem } from '../registration.js';
import { serveUntilSignal } from '../serve.js';
import { logLevelFor } from '../verbosity.js';

interface AgentFlags extends InterpreterLibraryFlags, ClientLimitFlags, ComponentFlags {
  karmadaKubeconfig?: string;
  karmadaContext?: string;
  clusterName?: string;
  kubeconfig?: string;
  context?: string;
  clusterNamespace: string;
  clusterApiEndpoint?: string;
  proxyServerAddress?: string;
  clusterProvider?: string;
  clusterRegion?: string;
  clusterZones?: string;
  clusterStatusUpdateFrequency: string;
  clusterLeaseDuration: string;
  clusterLeaseRenewIntervalFraction: string;
  leaderElect: boolean | string;
  leaderElectResourceNamespace: string;
  concurrentWorkSyncs: string;
  logLevel: string;
  logFormat?: string;
}

/** `--cluster-name` checked as Karmada checks cluster names (clusterNameRuleProblem), naming the flag. */
export function clusterNameProblem(name: string | undefined): string | undefined {
  if (!name) return '--cluster-name is required: the name of the Cluster this agent registers and serves (e.g. --cluster-name edge-1)';
  const problem = clusterNameRuleProblem(name);
  return problem && `--cluster-name ${name}: ${problem}`;
}

/** `--leader-elect`, `--leader-elect=true|false` (Karmada's spelling; on by default, as Karmada's agent). */
function leaderElectOf(v: boolean | string): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new Error(`--leader-elect takes true or false, got ${v}`);
}

function fraction(v: string): number {
  const f = Number(v);
  if (v.trim() === '' || !(f > 0 && f < 1)) throw new Error(`--cluster-lease-renew-interval-fraction must be greater than 0 and less than 1, got ${v}`);
  return f;
}

export function registerAgent(program: Command): void {
  addClientLimitFlags(
    addComponentFlags(
      addInterpreterLibraryFlags(
        program
          .command('agent')
          .description('Run inside a member cluster in Pull mode: register it with the Karmada control plane, apply the Works of its execution namespace, report their status and the cluster\'s.'),
      ),
    ),
  )
    .option('--karmada-kubeconfig <path>', 'kubeconfig of the Karmada control plane (the host apiserver) the agent reaches out to (required)')
    .option('--karmada-context <name>', 'the context in --karmada-kubeconfig (default: its current-context)')
    .option('--cluster-name <name>', 'name of the Cluster this agent registers and serves (required)')
    .option('--kubeconfig <path>', 'kubeconfig of the member cluster (default: $KUBECONFIG, ~/.kube/config or the in-cluster service account)')
    .option('--context <name>', 'the context in --kubeconfig (default: its current-context)')
    .option('--cluster-namespace <ns>', 'namespace on the control plane for member cluster Secrets (accepted for Karmada\'s command line; this agent reports no Secrets)', 'karmada-cluster')
    .option('--cluster-api-endpoint <url>', 'the member\'s API endpoint, written to the Cluster\'s spec.apiEndpoint (for the control plane\'s cluster proxy); unset: left empty')
    .option('--proxy-server-address <url>', 'spec.proxyURL of the Cluster: the proxy the control plane reaches the member through (the member kubeconfig\'s proxy-url wins)')
    .option('--cluster-provider <name>', 'spec.provider of the Cluster')
    .option('--cluster-region <name>', 'spec.region of the Cluster')
    .option('--cluster-zones <list>', 'spec.zones of the Cluster, comma-separated')
    .option('--cluster-status-update-frequency <duration>', 'how often the member is probed and its Cluster\'s status (Ready, kubernetesVersion, apiEnablements) posted', '10s')
    .option('--cluster-lease-duration <duration>', 'leaseDurationSeconds of the heartbeat Lease karmada-cluster/<cluster> on the control plane', '40s')
    .option('--cluster-lease-renew-interval-fraction <f>', 'the Lease is renewed every --cluster-lease-duration times this fraction', '0.25')
    .option('--leader-elect [bool]', 'elect a leader among the agent\'s replicas through Lease <ns>/karmada-agent-<cluster> on the control plane; --leader-elect=false: act at once', true)
    .option('--leader-elect-resource-namespace <ns>', 'namespace of the leader election Lease on the control plane', 'karmada-system')
    .option('--concurrent-work-syncs <n>', 'Works applied (and their status reported) at once', '5')
    .option('--log-level <level>', 'debug, info, warn or error', 'info')
    .option('--log-format <format>', 'json or text (default: text when standard error is a terminal, else json)')
    .addHelpText(
      'after',
      `
Pull mode is for members the control plane cannot reach (behind NAT, in another network, at the edge): the
agent runs in the member and reaches out. On start it registers the member: the Cluster named --cluster-name
is created on the control plane with spec.syncMode Pull and spec.id the uid of the member's kube-system
namespace, or adopted when one with that name and id exists (an agent restarted). A Cluster of that name
that is another cluster (a Push cluster the controller reaches, or no id) is refused, as Karmada's agent
refuses it; so is this member registered under another name.

Then, in the leader (--leader-elect, on by default):
- the member is probed every --cluster-status-update-frequency (/readyz, then a namespaces list with the
  agent's member credentials), and the Cluster's Ready condition, kubernetesVersion and apiEnablements are
  posted, as the controller does for a Push member;
- Lease karmada-cluster/<cluster> is renewed every --cluster-lease-duration x
  --cluster-lease-renew-interval-fraction (10s); when it goes stale the control plane turns the cluster
  not ready and, after the failure threshold, fails its workloads over;
- the Works of karmada-es-<cluster> (and no other namespace) are applied to the member by the controller's
  own execution and work-status logic: conflict resolution, retention, suspension, preserve-on-deletion,
  status reflection; their status is written back.

A control plane that does not answer changes nothing on the member; the agent's watches resume when it is back.

The agent's identity on the control plane needs: clusters get, list, watch, create, update and
clusters/status update (its own), leases in karmada-cluster get, create, update, works and works/status in
karmada-es-<cluster>, interpreter configurations get, list, watch, events create (deploy/agent).

Examples:
  karmada-lite agent --karmada-kubeconfig /etc/karmada/kubeconfig --cluster-name edge-1
  karmada-lite agent --karmada-kubeconfig karmada.config --cluster-name edge-1 --kubeconfig edge-1.config --leader-elect=false`,
    )
    .action(async (flags: AgentFlags) => {
      const level = logLevelFor(flags.logLevel);
      if (!isLevel(level)) {
        process.stderr.write(`error: --log-level must be debug, info, warn or error, got ${level}\n`);
        process.exitCode = 2;
        return;
      }
      if (flags.logFormat !== undefined && !isLogFormat(flags.logFormat)) {
        process.stderr.write(`error: ${logFormatError(flags.logFormat)}\n`);
        process.exitCode = 2;
        return;
      }
      const log = createLogger({ level, format: flags.logFormat, fields: { component: 'agent' } });
      let agent: import('../../kube/agent.js').Agent;
      try {
        const problem = clusterNameProblem(flags.clusterName);
        if (problem) throw new Error(problem);
        const clusterName = flags.clusterName!;
        if (!flags.karmadaKubeconfig) throw new Error('--karmada-kubeconfig is required: the kubeconfig of the Karmada control plane the agent registers with');
        const { existsSync } = await import('node:fs');
        if (!existsSync(flags.karmadaKubeconfig)) throw new Error(`--karmada-kubeconfig ${flags.karmadaKubeconfig}: no such file; give the path of the control plane's kubeconfig`);
        const component = componentOptionsFromFlags(flags);
        const workSyncs = wholeNumber('--concurrent-work-syncs', flags.concurrentWorkSyncs, 1, 1000);
        const renewFraction = fraction(flags.clusterLeaseRenewIntervalFraction);
        const leaseDurationMs = parseDuration('--cluster-lease-duration', flags.clusterLeaseDuration);
        if (leaseDurationMs < 1000) throw new Error(`--cluster-lease-duration must be at least 1s, got ${flags.clusterLeaseDuration}`);
        const statusMs = parseDuration('--cluster-status-update-frequency', flags.clusterStatusUpdateFrequency);
        if (statusMs <= 0) throw new Error(`--cluster-status-update-frequency must be above 0, got ${flags.clusterStatusUpdateFrequency}`);
        const leaderElect = leaderElectOf(flags.leaderElect);
        const clientLimits = clientLimitsFromFlags(flags);
        const interpreterLibraries = interpreterLibrariesFromFlags(flags, (p) => log.warn('interpreter library file not loaded', { problem: p }));
        const karmada = await loadKubeConfig(flags.karmadaKubeconfig, flags.karmadaContext).catch((e: unknown) => {
          throw new Error(errorMessage(e).replace(/^--context/, '--karmada-context'));
        });
        if (flags.kubeconfig) {
          const { kubeconfigProblem } = await import('../../kube/preflight.js');
          const p = kubeconfigProblem(flags.kubeconfig);
          if (p) throw new Error(p.replace("the host cluster's kubeconfig", "the member cluster's kubeconfig"));
        }
        const member = await loadKubeConfig(flags.kubeconfig, flags.context);
        const { Agent } = await import('../../kube/agent.js');
        agent = new Agent({
          karmadaKubeconfig: karmada,
          memberKubeconfig: member,
          log,
          register: {
            clusterName,
            apiEndpoint: flags.clusterApiEndpoint,
            proxyURL: flags.proxyServerAddress,
            provider: flags.clusterProvider,
            region: flags.clusterRegion,
            zones: (flags.clusterZones ?? '').split(',').map((z) => z.trim()).filter(Boolean),
          },
          statusUpdateFrequencyMs: statusMs,
          clusterLeaseDurationSeconds: leaseDurationMs / 1000,
          clusterLeaseRenewIntervalFraction: renewFraction,
          leaderElect,
          leaseNamespace: flags.leaderElectResourceNamespace,
          ...component,
          // The controller's defaults (controller --rate-limiter-*).
          baseDelayMs: 5,
          maxDelayMs: 1_000_000,
          qps: 10,
          bucketSize: 100,
          concurrency: { execution: workSyncs, 'work-status': workSyncs },
          clientLimits,
          interpreterLibraries,
        });
        await agent.start();
      } catch (e) {
        process.stderr.write(`error: ${errorMessage(e)}\n`);
        process.exitCode = 2;
        return;
      }
      await serveUntilSignal(
        () => agent.stop(),
        (signal) => log.info('shutting down', { signal }),
      );
    });
}
