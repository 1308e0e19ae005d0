import type { Command } from 'commander';
import { cordonTaints } from '../cluster-taints.js';
import { addHostFlags, connectHost, runFleet, type HostFlags } from '../fleet/command.js';
import { editClusterTaints } from '../fleet/cluster-taints.js';
import { addMutationFlags, parseDryRun, parseMutationOutput, printMutation } from '../mutation.js';

interface CordonFlags extends HostFlags {
  dryRun?: string | boolean;
  output: string;
}

const HELP = (verb: 'cordon' | 'uncordon') => `
${
  verb === 'cordon'
    ? `Adds the taint cluster.karmada.io/unschedulable:NoSchedule to the Cluster, as karmadactl cordon: the
scheduler places no new workload there (a policy whose placement.clusterTolerations tolerates the taint
still may); what already runs there stays.`
    : `Removes the taint cluster.karmada.io/unschedulable:NoSchedule from the Cluster, as karmadactl uncordon:
the scheduler may place workloads there again.`
} Other taints are left as they are. Prints
"cluster.cluster.karmada.io/<name> ${verb}ed", or "... already ${verb}ed" when there was nothing to do.

--dry-run=client prints what would be written and sends nothing; --dry-run=server sends the write with
dryRun=All (admission checks it, nothing is stored); -o yaml|json prints the Cluster as written.

Exit status: 0 ${verb}ed (or already), 1 the Cluster does not exist or the host refused, 2 usage error.

Examples:
  karmada-lite ${verb} member1
  karmada-lite ${verb} member1 --dry-run=server -o yaml
  karmada-lite ${verb} member1 --kubeconfig karmada.config --context karmada-apiserver`;

function registerOne(program: Command, verb: 'cordon' | 'uncordon'): void {
  const cmd = program
    .command(verb)
    .description(verb === 'cordon' ? 'Mark a member cluster as unschedulable (the taint cluster.karmada.io/unschedulable:NoSchedule), as karmadactl cordon.' : 'Mark a member cluster as schedulable again, as karmadactl uncordon.')
    .argument('<cluster>', 'the name of the Cluster');
  addMutationFlags(addHostFlags(cmd, false)).addHelpText('after', HELP(verb));
  cmd.action(async (name: string, flags: CordonFlags) => {
    const dryRun = parseDryRun(flags.dryRun);
    const out = parseMutationOutput(flags.output);
    await runFleet(async () => {
      const host = await connectHost(flags);
      const r = await editClusterTaints(host.client, name, (taints) => cordonTaints(taints, verb === 'cordon'), dryRun);
      process.stdout.write(printMutation([{ object: r.cluster, verb: r.changed ? `${verb}ed` : `already ${verb}ed` }], out, r.changed ? dryRun : 'none'));
    });
  });
}

export const registerCordon = (program: Command): void => registerOne(program, 'cordon');
export const registerUncordon = (program: Command): void => registerOne(program, 'uncordon');
