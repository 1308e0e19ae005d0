import type { Command } from 'commander';
import { InputError } from '../../io/documents.js';
import { addMutationFlags } from '../mutation.js';
import { changePrinter, checkClusterName, kubeconfigFor, memberKubeconfig, runRegistration, say, type RegistrationFlags } from '../registration.js';

interface JoinFlags extends RegistrationFlags {
  kubeconfig?: string;
  karmadaContext?: string;
  clusterProvider?: string;
  clusterRegion?: string;
  clusterZones?: string[];
}

export function registerJoin(program: Command): void {
  const cmd = program
    .command('join')
    .argument('<cluster-name>', 'the name of the Cluster on the control plane')
    .description('Register a cluster to the Karmada control plane with Push mode: its ServiceAccount, RBAC and token in the member; the Cluster and its Secrets on the control plane.')
    .option('--kubeconfig <path>', "an administrator's kubeconfig of the Karmada control plane (default: $KUBECONFIG, ~/.kube/config)")
    .option('--karmada-context <name>', 'the context in --kubeconfig (default: its current-context)')
    .option('--cluster-kubeconfig <path>', "kubeconfig of the member cluster, with the rights to create a ServiceAccount and a ClusterRole there (required)")
    .option('--cluster-context <name>', 'the context in --cluster-kubeconfig (default: the context named like the cluster if there is one, else the current-context)')
    .option('--cluster-namespace <ns>', 'namespace of the credentials, in the member and on the control plane', 'karmada-cluster')
    .option('--cluster-provider <name>', 'spec.provider of the Cluster (spread constraints can use it)')
    .option('--cluster-region <name>', 'spec.region of the Cluster')
    .option('--cluster-zones <list>', 'spec.zones of the Cluster, comma-separated or repeated', (v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
  addMutationFlags(cmd).addHelpText(
    'after',
    `
What it writes, by server-side apply (field manager karmada-lite-join); running it again changes nothing:

In the member (--cluster-kubeconfig): namespace <ns> (karmada.io/system=true, when it is not there);
ServiceAccount karmada-<cluster> with ClusterRole and ClusterRoleBinding karmada-controller-manager:karmada-<cluster>
(every verb on every resource, as Karmada); ServiceAccount karmada-impersonator (impersonate users, groups and
service accounts: the cluster proxy's identity); a token Secret for each, filled by the member's token controller.

On the control plane (--kubeconfig): namespaces <ns> and karmada-es-<cluster>; Secrets <ns>/<cluster> (token,
caBundle) and <ns>/<cluster>-impersonator, owned by the Cluster; the Cluster (syncMode Push, apiEndpoint the
member kubeconfig's server, spec.id the uid of the member's kube-system namespace). A Cluster of that name that
is another cluster (another id, none, or a Pull cluster) is refused, as is this member joined under another name.

The controller connects at once; the Cluster is Ready after its first probe:
  kubectl --kubeconfig karmada.config wait --for=condition=Ready clusters.cluster.karmada.io/<cluster>

--dry-run=client writes nothing (it reads the member's id and the control plane's Clusters); --dry-run=server
sends every write with dryRun=All (no token is issued, so the Secrets carry no data). -o yaml prints the objects.
To undo: karmada-lite unjoin <cluster> --cluster-kubeconfig <member>.

Exit status: 0 joined, 1 the control plane or the member refused (or no token came), 2 usage error.

Examples:
  karmada-lite join member1 --kubeconfig karmada.config --cluster-kubeconfig member1.config
  karmada-lite join member1 --cluster-kubeconfig ~/.kube/config --cluster-context kind-member1 --cluster-region eu-west-1
  karmada-lite join member1 --cluster-kubeconfig member1.config --dry-run=server
  karmada-lite join member1 --cluster-kubeconfig member1.config --dry-run=client -o yaml > member1-join.yaml`,
  );
  cmd.action((name: string, flags: JoinFlags) =>
    runRegistration(async () => {
      const clusterName = checkClusterName(name);
      const print = changePrinter(flags);
      if (!flags.clusterKubeconfig) throw new InputError('--cluster-kubeconfig is required: the kubeconfig of the member cluster to join');
      const memberKc = await memberKubeconfig(flags, clusterName);
      const karmada = await kubeconfigFor(flags.kubeconfig, flags.karmadaContext, '--kubeconfig', '--karmada-context');
      const { RestClient } = await import('../../kube/rest.js');
      const { join } = await import('../../kube/join.js');
      const host = new RestClient(karmada);
      const member = new RestClient(memberKc);
      try {
        const r = await join({
          plan: {
            clusterName,
            clusterNamespace: flags.clusterNamespace,
            ...(flags.clusterProvider ? { provider: flags.clusterProvider } : {}),
            ...(flags.clusterRegion ? { region: flags.clusterRegion } : {}),
            zones: (flags.clusterZones ?? []).flatMap((z) => z.split(',')).map((z) => z.trim()).filter(Boolean),
          },
          host,
          member,
          memberKubeconfig: memberKc,
          dryRun: print.dryRun,
          onChange: print.onChange,
        });
        print.end(r.changes);
        if (print.dryRun === 'none') {
          say(print.text, `cluster(${clusterName}) is joined successfully`);
          say(print.text, `Ready once the controller probed it: kubectl${flags.kubeconfig ? ` --kubeconfig ${flags.kubeconfig}` : ''} wait --for=condition=Ready clusters.cluster.karmada.io/${clusterName}`);
        }
      } finally {
        host.close();
        member.close();
      }
    }),
  );
}
