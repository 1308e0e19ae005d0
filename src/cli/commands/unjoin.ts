import type { Command } from 'commander';
import { addMutationFlags } from '../mutation.js';
import { changePrinter, checkClusterName, kubeconfigFor, memberKubeconfig, runRegistration, say, waitFlag, type RegistrationFlags } from '../registration.js';

interface UnjoinFlags extends RegistrationFlags {
  kubeconfig?: string;
  karmadaContext?: string;
  force?: boolean;
  wait: string;
}

export function registerUnjoin(program: Command): void {
  const cmd = program
    .command('unjoin')
    .argument('<cluster>', 'the name of the Push cluster to remove')
    .description('Remove a Push cluster from the Karmada control plane: its Cluster (once its Works are gone) and Secrets; with --cluster-kubeconfig, what join made in the member.')
    .option('--kubeconfig <path>', "an administrator's kubeconfig of the Karmada control plane (default: $KUBECONFIG, ~/.kube/config)")
    .option('--karmada-context <name>', 'the context in --kubeconfig (default: its current-context)')
    .option('--cluster-kubeconfig <path>', "kubeconfig of the member cluster: the ServiceAccounts, RBAC and tokens join made there are deleted too")
    .option('--cluster-context <name>', 'the context in --cluster-kubeconfig (default: the context named like the cluster if there is one, else the current-context)')
    .option('--cluster-namespace <ns>', 'namespace of the credentials, in the member and on the control plane', 'karmada-cluster')
    .option('--force', "when the Cluster does not go within --wait, remove the finalizers of its Works and its own: the member may keep copies of what the Works carried", false)
    .option('--wait <duration>', 'how long the Cluster may take to go (its Works deleted from the member first); a timeout says what is left', '60s');
  addMutationFlags(cmd).addHelpText(
    'after',
    `
The order, as karmadactl's: the Cluster is deleted; the controller deletes the Works of karmada-es-<cluster>
(each one deleting its objects from the member), then the namespace, then lets the Cluster go. unjoin waits for
that (--wait), then deletes the Secrets <ns>/<cluster> and <ns>/<cluster>-impersonator (when the garbage
collector has not) and, with --cluster-kubeconfig, in the member: ClusterRoleBinding and ClusterRole
karmada-controller-manager:karmada-<cluster>, ServiceAccount karmada-<cluster> and its token Secret; the
impersonator and namespace <ns> too unless another Cluster joined from this member still uses them. A namespace
join did not make (no karmada.io/system label) stays. Running it again after a timeout carries on.

--dry-run=client lists what would be deleted; --dry-run=server sends each delete with dryRun=All (nothing
waits: the Cluster is not deleted). -o yaml prints the objects deleted.

Exit status: 0 removed, 1 no such cluster, a Pull cluster (use unregister), a refusal, or --wait ran out
(the message says what is left), 2 usage error.

Examples:
  karmada-lite unjoin member1 --kubeconfig karmada.config --cluster-kubeconfig member1.config
  karmada-lite unjoin member1 --kubeconfig karmada.config                       # the member's objects stay
  karmada-lite unjoin member1 --cluster-kubeconfig member1.config --wait 2m
  karmada-lite unjoin member1 --cluster-kubeconfig member1.config --dry-run=client`,
  );
  cmd.action((name: string, flags: UnjoinFlags) =>
    runRegistration(async () => {
      const clusterName = checkClusterName(name);
      const print = changePrinter(flags);
      const waitMs = await waitFlag(flags.wait);
      const memberKc = flags.clusterKubeconfig || flags.clusterContext ? await memberKubeconfig(flags, clusterName) : undefined;
      const karmada = await kubeconfigFor(flags.kubeconfig, flags.karmadaContext, '--kubeconfig', '--karmada-context');
      const { RestClient } = await import('../../kube/rest.js');
      const { unjoin } = await import('../../kube/join.js');
      const host = new RestClient(karmada);
      const member = memberKc ? new RestClient(memberKc) : undefined;
      try {
        const changes = await unjoin({
          clusterName,
          clusterNamespace: flags.clusterNamespace,
          host,
          ...(member ? { member } : {}),
          dryRun: print.dryRun,
          waitMs,
          force: flags.force === true,
          onChange: print.onChange,
          onWaiting: (left) => process.stderr.write(`${left}\n`),
        });
        print.end(changes);
        if (print.dryRun === 'none') say(print.text, `cluster(${clusterName}) is unjoined successfully${member ? '' : "; its ServiceAccount and RBAC stay in the member (give --cluster-kubeconfig to remove them)"}`);
      } finally {
        host.close();
        member?.close();
      }
    }),
  );
}
