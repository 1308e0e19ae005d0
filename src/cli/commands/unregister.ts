import type { Command } from 'commander';
import { addMutationFlags } from '../mutation.js';
import { changePrinter, checkClusterName, kubeconfigFor, memberKubeconfig, runRegistration, say, waitFlag, type RegistrationFlags } from '../registration.js';

interface UnregisterFlags extends RegistrationFlags {
  karmadaConfig?: string;
  karmadaContext?: string;
  namespace: string;
  wait: string;
}

export function registerUnregister(program: Command): void {
  const cmd = program
    .command('unregister')
    .argument('<cluster>', 'the name of the Pull cluster to remove')
    .description('Remove a Pull cluster from the Karmada control plane: its Cluster (once its Works are gone), the agent\'s identity and Leases there and, with --cluster-kubeconfig, the agent in the member; the reverse of register.')
    .option('--karmada-config <path>', "an administrator's kubeconfig of the Karmada control plane (default: $KUBECONFIG, ~/.kube/config)")
    .option('--karmada-context <name>', 'the context in --karmada-config (default: its current-context)')
    .option('--cluster-kubeconfig <path>', "kubeconfig of the member cluster: the agent's Deployment, Secret karmada-kubeconfig and RBAC are deleted there too")
    .option('--cluster-context <name>', 'the context in --cluster-kubeconfig (default: the context named like the cluster if there is one, else the current-context)')
    .option('--cluster-namespace <ns>', "namespace on the control plane of the agent's ServiceAccount and heartbeat Lease", 'karmada-cluster')
    .option('-n, --namespace <ns>', "the agent's namespace in the member (kept: it may hold other things), and of its leader election Lease on the control plane", 'karmada-system')
    .option('--wait <duration>', 'how long the Cluster may take to go (the agent deletes its Works from the member first); a timeout says what is left', '60s');
  addMutationFlags(cmd).addHelpText(
    'after',
    `
The order, as karmadactl's: the Cluster is deleted while the agent still runs, so that it deletes the Works of
karmada-es-<cluster> from the member; unregister waits for the Cluster to go (--wait), then deletes on the control
plane what register made there (the agent's ServiceAccount, ClusterRole(Binding)s, Role(Binding)s and Leases) and
karmada-es-<cluster> if it is still there; with --cluster-kubeconfig, in the member the agent's Deployment,
Secret karmada-kubeconfig, ServiceAccount and RBAC. The agent's namespace (-n) stays.

Where it departs from karmadactl: the control plane's kubeconfig is --karmada-config or the default one, never
the agent's own from the member (the agent's rights do not cover deleting its own RBAC); --agent-name is not
taken (the agent's Deployment is always karmada-agent, as register makes it).

--dry-run=client lists what would be deleted; --dry-run=server sends each delete with dryRun=All (nothing
waits: the Cluster is not deleted). -o yaml prints the objects deleted.

Exit status: 0 removed, 1 no such cluster, a Push cluster (use unjoin), a refusal, or --wait ran out (the message
says what is left), 2 usage error.

Examples:
  karmada-lite unregister member3 --karmada-config karmada.config --cluster-kubeconfig member3.config
  karmada-lite unregister member3 --karmada-config karmada.config                  # the agent stays in the member
  karmada-lite unregister member3 --cluster-kubeconfig member3.config --wait 2m
  karmada-lite unregister member3 --cluster-kubeconfig member3.config --dry-run=client -o yaml`,
  );
  cmd.action((name: string, flags: UnregisterFlags) =>
    runRegistration(async () => {
      const clusterName = checkClusterName(name);
      const print = changePrinter(flags);
      const waitMs = await waitFlag(flags.wait);
      const memberKc = flags.clusterKubeconfig || flags.clusterContext ? await memberKubeconfig(flags, clusterName) : undefined;
      const karmada = await kubeconfigFor(flags.karmadaConfig, flags.karmadaContext, '--karmada-config', '--karmada-context');
      const { RestClient } = await import('../../kube/rest.js');
      const { unregister } = await import('../../kube/join.js');
      const { DefaultAgentImage } = await import('../../kube/register.js');
      const host = new RestClient(karmada);
      const member = memberKc ? new RestClient(memberKc) : undefined;
      try {
        const changes = await unregister({
          clusterName,
          plan: { clusterName, clusterNamespace: flags.clusterNamespace, agentNamespace: flags.namespace, image: DefaultAgentImage, replicas: 1 },
          host,
          ...(member ? { member } : {}),
          dryRun: print.dryRun,
          waitMs,
          onChange: print.onChange,
          onWaiting: (left) => process.stderr.write(`${left}\n`),
        });
        print.end(changes);
        if (print.dryRun === 'none') say(print.text, `cluster(${clusterName}) is unregistered successfully${member ? '' : '; the agent stays in the member (give --cluster-kubeconfig to remove it)'}`);
      } finally {
        host.close();
        member?.close();
      }
    }),
  );
}
