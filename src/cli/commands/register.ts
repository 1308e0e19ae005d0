import type { Command } from 'commander';
import { errorMessage } from '../../json/error.js';
import { loadKubeConfig } from '../kubeconfig.js';
import { clusterNameProblem } from './agent.js';

interface RegisterFlags {
  karmadaKubeconfig?: string;
  karmadaContext?: string;
  clusterName?: string;
  kubeconfig?: string;
  context?: string;
  kubeconfigOut?: string;
  clusterId?: string;
  clusterNamespace: string;
  namespace: string;
  clusterApiEndpoint?: string;
  proxyServerAddress?: string;
  clusterProvider?: string;
  clusterRegion?: string;
  clusterZones?: string;
  karmadaAgentImage?: string;
  karmadaAgentReplicas: string;
  tokenExpirationSeconds: string;
  dryRun?: boolean;
}

/** Usage mistakes: exit code 2. */
class UsageError extends Error {}

function wholeNumber(flag: string, v: string, min: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min) throw new UsageError(`${flag} must be a whole number of at least ${min}, got ${v}`);
  return n;
}

export function registerRegister(program: Command): void {
  program
    .command('register')
    .argument('[karmada-apiserver-endpoint]', "the control plane's URL as the member reaches it, written into the agent's kubeconfig (default: --karmada-kubeconfig's server)")
    .description("Join a member cluster in Pull mode: the agent's identity, least-privilege RBAC and its Cluster on the control plane; its kubeconfig, RBAC and Deployment in the member.")
    .option('--karmada-kubeconfig <path>', "an administrator's kubeconfig of the Karmada control plane (the host apiserver) (required)")
    .option('--karmada-context <name>', 'the context in --karmada-kubeconfig (default: its current-context)')
    .option('--cluster-name <name>', "name of the Cluster (default: the member kubeconfig's current cluster)")
    .option('--kubeconfig <path>', 'kubeconfig of the member cluster: the agent is installed there (namespace, RBAC, Secret karmada-kubeconfig, Deployment)')
    .option('--context <name>', 'the context in --kubeconfig (default: its current-context)')
    .option('--kubeconfig-out <path>', "write the agent's kubeconfig for the control plane to this file (mode 0600), e.g. to run `karmada-lite agent` outside the member")
    .option('--cluster-id <id>', "spec.id of the Cluster, what the agent registers: the uid of the member's kube-system namespace (default: read from --kubeconfig)")
    .option('--cluster-namespace <ns>', "namespace on the control plane of the agent's ServiceAccount and heartbeat Lease", 'karmada-cluster')
    .option('-n, --namespace <ns>', "the agent's namespace in the member, and of its leader election Lease on the control plane", 'karmada-system')
    .option('--cluster-api-endpoint <url>', "the member's API endpoint for the Cluster's spec.apiEndpoint (the control plane never connects to a Pull cluster; the cluster proxy may)")
    .option('--proxy-server-address <url>', "spec.proxyURL of the Cluster (the member kubeconfig's proxy-url wins, as in the agent)")
    .option('--cluster-provider <name>', 'spec.provider of the Cluster')
    .option('--cluster-region <name>', 'spec.region of the Cluster')
    .option('--cluster-zones <list>', 'spec.zones of the Cluster, comma-separated')
    .option('--karmada-agent-image <image>', "the agent's image in the member (default: karmada-lite:<version>, what `node scripts/image.mjs build` tags)")
    .option('--karmada-agent-replicas <n>', "the agent Deployment's replicas (they elect a leader)", '1')
    .option('--token-expiration-seconds <n>', "lifetime of the agent's ServiceAccount token (Karmada's --cert-expiration-seconds); run register again to renew it", '31536000')
    .option('--dry-run', 'print the objects register would write, as YAML, and write nothing (no credentials are issued)', false)
    .addHelpText(
      'after',
      `
What it writes, by server-side apply (field manager karmada-lite-register): running it again changes nothing
but the token, which is issued afresh (the previous one stays valid until it expires).

On the control plane, with --karmada-kubeconfig's (administrator's) rights:
  namespaces karmada-cluster, karmada-es-<cluster> and -n's; ServiceAccount karmada-cluster/karmada-agent-<cluster>
  and a token for it (TokenRequest: Karmada issues a certificate through a CSR instead, which needs the
  kube-controller-manager's signer); RBAC that lets that identity read and write only its own Cluster and
  its status, its own Leases (karmada-cluster/<cluster>, <ns>/karmada-agent-<cluster>) and the Works of
  karmada-es-<cluster> and their status, read the interpreter customizations and record Events; the
  Cluster (syncMode Pull, spec.id the member's kube-system uid); both Leases, owned by the Cluster.
  A Cluster of that name that is another cluster (a Push cluster, another id) is refused.

In the member (with --kubeconfig): namespace <ns> (karmada.io/system=true), ServiceAccount karmada-agent-sa
with ClusterRole karmada-agent, aggregated from the ClusterRoles labelled karmada-lite.io/aggregate-to-agent=true
(namespaces, the default template kinds; one more per further kind), Secret karmada-kubeconfig (the agent's
kubeconfig) and Deployment karmada-agent running \`karmada-lite agent\`. deploy/agent/ holds the same objects.

To undo: karmada-lite unregister <cluster> --karmada-config <control plane> --cluster-kubeconfig <member>
(the Cluster once its Works are gone, the agent's identity, RBAC and Leases, and the agent in the member).

Exit status: 0 registered, 1 the control plane or the member refused, 2 usage error.

Examples:
  karmada-lite register --karmada-kubeconfig karmada.config --kubeconfig edge-1.config --cluster-name edge-1
  karmada-lite register https://karmada.example.com:6443 --karmada-kubeconfig karmada.config --kubeconfig edge-1.config
  karmada-lite register --karmada-kubeconfig karmada.config --cluster-name edge-1 --cluster-id "$(kubectl --context edge-1 get ns kube-system -o jsonpath='{.metadata.uid}')" --kubeconfig-out agent.config
  karmada-lite register --cluster-name edge-1 --dry-run > edge-1.yaml`,
    )
    .action(async (endpoint: string | undefined, flags: RegisterFlags) => {
      try {
        process.exitCode = await run(endpoint, flags);
      } catch (e) {
        process.stderr.write(`error: ${errorMessage(e)}\n`);
        process.exitCode = e instanceof UsageError ? 2 : 1;
      }
    });
}

async function run(endpoint: string | undefined, flags: RegisterFlags): Promise<number> {
  const reg = await import('../../kube/register.js');
  const replicas = wholeNumber('--karmada-agent-replicas', flags.karmadaAgentReplicas, 0);
  const tokenExpirationSeconds = wholeNumber('--token-expiration-seconds', flags.tokenExpirationSeconds, 600);
  if (endpoint !== undefined && !/^https?:\/\/[^/]+/.test(endpoint)) throw new UsageError(`karmada-apiserver-endpoint must be a URL like https://karmada.example.com:6443, got ${endpoint}`);
  const memberGiven = flags.kubeconfig !== undefined || flags.context !== undefined;
  const memberKc = memberGiven ? await loadKubeConfig(flags.kubeconfig, flags.context).catch((e: unknown) => Promise.reject(new UsageError(errorMessage(e)))) : undefined;
  const clusterName = flags.clusterName ?? memberKc?.getCurrentCluster()?.name;
  const problem = clusterNameProblem(clusterName);
  if (problem) throw new UsageError(problem.replace('this agent registers and serves', 'to register'));
  const plan: import('../../kube/register.js').RegisterPlan = {
    clusterName: clusterName!,
    clusterNamespace: flags.clusterNamespace,
    agentNamespace: flags.namespace,
    apiEndpoint: flags.clusterApiEndpoint,
    proxyURL: flags.proxyServerAddress,
    provider: flags.clusterProvider,
    region: flags.clusterRegion,
    zones: (flags.clusterZones ?? '').split(',').map((z) => z.trim()).filter(Boolean),
    image: flags.karmadaAgentImage ?? reg.DefaultAgentImage,
    replicas,
  };

  if (flags.dryRun) {
    const objects = [...reg.hostRbacObjects(plan)];
    if (flags.clusterId) objects.push(reg.clusterObject(plan, flags.clusterId, { insecureSkipTLSVerification: false }), ...reg.leaseObjects(plan, undefined));
    process.stdout.write(`# On the control plane (--karmada-kubeconfig). ${flags.clusterId ? 'The Leases get the Cluster as owner.' : 'The Cluster and its Leases follow, once its id is known (--cluster-id or the member).'}\n`);
    process.stdout.write(reg.toYamlDocuments(objects));
    process.stdout.write("---\n# In the member (--kubeconfig), with the Secret karmada-kubeconfig (the agent's kubeconfig, issued when not a dry run).\n");
    process.stdout.write(reg.toYamlDocuments(reg.memberObjects(plan)));
    return 0;
  }

  if (!flags.karmadaKubeconfig) throw new UsageError('--karmada-kubeconfig is required: an administrator\'s kubeconfig of the Karmada control plane (it creates RBAC and the Cluster)');
  if (!memberKc && !flags.kubeconfigOut) {
    throw new UsageError("nothing would receive the agent's credentials: give the member's --kubeconfig (the agent is installed there) or --kubeconfig-out FILE");
  }
  if (!memberKc && !flags.clusterId) throw new UsageError("the Cluster's id is the uid of the member's kube-system namespace: give the member's --kubeconfig, or --cluster-id");
  const { existsSync, writeFileSync } = await import('node:fs');
  if (!existsSync(flags.karmadaKubeconfig)) throw new UsageError(`--karmada-kubeconfig ${flags.karmadaKubeconfig}: no such file; give the path of the control plane's kubeconfig`);
  const karmada = await loadKubeConfig(flags.karmadaKubeconfig, flags.karmadaContext).catch((e: unknown) => Promise.reject(new UsageError(errorMessage(e).replace(/^--context/, '--karmada-context'))));
  const { RestClient } = await import('../../kube/rest.js');
  const host = new RestClient(karmada);
  const member = memberKc ? new RestClient(memberKc) : undefined;
  try {
    const result = await reg.register({
      plan,
      host,
      hostEndpoint: reg.hostEndpointOf(karmada, endpoint),
      ...(member && memberKc ? { member: { rest: member, kubeconfig: memberKc } } : {}),
      ...(flags.clusterId ? { clusterId: flags.clusterId } : {}),
      tokenExpirationSeconds,
      onApplied: (a) => process.stdout.write(`${a.kind.toLowerCase()}/${a.name}${a.namespace ? ` -n ${a.namespace}` : ''} ${a.outcome} (${a.where})\n`),
    });
    if (flags.kubeconfigOut) {
      writeFileSync(flags.kubeconfigOut, result.kubeconfig, { mode: 0o600 });
      process.stdout.write(`wrote the agent's kubeconfig to ${flags.kubeconfigOut}${result.tokenExpiration ? ` (token valid until ${result.tokenExpiration})` : ''}\n`);
    }
    process.stdout.write(
      member
        ? `cluster(${plan.clusterName}) is joined successfully\n`
        : `cluster(${plan.clusterName}) is registered; run the agent in the member: karmada-lite agent --karmada-kubeconfig ${flags.kubeconfigOut} --cluster-name ${plan.clusterName}\n`,
    );
    return 0;
  } finally {
    host.close();
    member?.close();
  }
}
