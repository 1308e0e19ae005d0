import type { Command } from 'commander';
import { InputError } from '../../io/documents.js';
import { errorMessage } from '../../json/error.js';
import { parseTaints, splitTaintArgs, updateTaints, type TaintChanges, type TaintVerb } from '../cluster-taints.js';
import { addHostFlags, connectHost, errorLine, runFleet, type HostFlags } from '../fleet/command.js';
import { editClusterTaints, type ClusterObject } from '../fleet/cluster-taints.js';
import { addMutationFlags, parseDryRun, parseMutationOutput, printMutation } from '../mutation.js';

interface TaintFlags extends HostFlags {
  overwrite?: boolean;
  dryRun?: string | boolean;
  output: string;
}

/** The type word karmadactl takes (cluster, clusters), and the names kubectl gives the resource. */
const CLUSTER_TYPES = new Set(['cluster', 'clusters', 'cluster.cluster.karmada.io', 'clusters.cluster.karmada.io']);

/** The clusters and changes of `taint clusters NAME... SPEC...`; anything wrong is a usage error (exit 2). */
export function taintRequest(type: string, rest: readonly string[]): { clusters: string[]; changes: TaintChanges } {
  try {
    const { resources, specs } = splitTaintArgs([type, ...rest]);
    if (resources.length < 1) throw new Error('one or more resources must be specified as <resource> <name>');
    if (specs.length < 1) throw new Error('at least one taint update is required');
    const changes = parseTaints(specs);
    const kind = resources[0]!.toLowerCase();
    if (!CLUSTER_TYPES.has(kind)) throw new Error(`invalid resource type ${resources[0]}, only ["cluster" "clusters"] are supported`);
    if (resources.length < 2) throw new Error('at least one resource name must be specified');
    return { clusters: resources.slice(1), changes };
  } catch (e) {
    throw new InputError(errorMessage(e));
  }
}

export function registerTaint(program: Command): void {
  const cmd = program
    .command('taint')
    .description('Update the taints on one or more member clusters, as karmadactl taint (kubectl taint\'s syntax).')
    .argument('<resource>', 'clusters (or cluster): the only kind with taints here')
    .argument('<names-and-taints...>', 'NAME... then KEY[=VALUE]:EFFECT to add, KEY[:EFFECT]- to remove')
    .option('--overwrite', 'replace a taint the cluster already has with the same key and effect (otherwise that is an error)', false);
  addMutationFlags(addHostFlags(cmd, false)).addHelpText(
    'after',
    `
A taint is key=value:effect: the key a label key (an optional DNS-subdomain prefix and /), the value
optional (a label value), the effect NoSchedule or NoExecute (a Cluster takes no other; kubectl's
PreferNoSchedule is refused). KEY:EFFECT- removes the taint with that key and effect, KEY- every taint
with that key.

NoSchedule: the scheduler places no new workload on the cluster unless the policy's
placement.clusterTolerations tolerates it. NoExecute: the controller also evicts what runs there from
every binding that does not tolerate it (with --enable-no-execute-taint-eviction, or for policies with
failover.cluster; see \`karmada-lite controller --help\`), and the scheduler moves it elsewhere.
The cluster controller stamps timeAdded on a NoExecute taint (tolerationSeconds count from it).

Prints "cluster.cluster.karmada.io/<name> tainted" (a taint added), "untainted" (only removed) or
"modified" (both, or --overwrite), one line per cluster. The write is a merge patch of spec.taints
that carries the resourceVersion it was computed from: taints the controller adds meanwhile are kept.

Exit status: 0 every cluster updated, 1 a cluster does not exist, already has the taint (without
--overwrite), lacks one to remove, or the host refused (the other clusters are still updated),
2 usage error (a bad taint spec, a resource type other than clusters).

Examples:
  karmada-lite taint clusters member1 dedicated=special-user:NoSchedule
  karmada-lite taint clusters member1 dedicated:NoSchedule-        # remove that taint
  karmada-lite taint clusters member1 dedicated-                   # remove every taint with key dedicated
  karmada-lite taint clusters member1 member2 maintenance:NoExecute   # evict workloads that do not tolerate it
  karmada-lite taint clusters member1 dedicated=other:NoSchedule --overwrite
  karmada-lite taint clusters member1 bar:NoSchedule --dry-run=server -o yaml`,
  );
  cmd.action(async (type: string, rest: string[], flags: TaintFlags) => {
    const { clusters, changes } = taintRequest(type, rest);
    const dryRun = parseDryRun(flags.dryRun);
    const out = parseMutationOutput(flags.output);
    await runFleet(async () => {
      const host = await connectHost(flags);
      const done: Array<{ object: ClusterObject; verb: string }> = [];
      let failed = false;
      for (const name of clusters) {
        try {
          let verb: TaintVerb = 'untainted';
          const r = await editClusterTaints(
            host.client,
            name,
            (taints) => {
              const u = updateTaints(name, taints, changes, Boolean(flags.overwrite));
              verb = u.verb;
              return u.taints;
            },
            dryRun,
          );
          done.push({ object: r.cluster, verb });
          // text lines as they happen; objects once, as one document or a List
          if (out.format === 'text') process.stdout.write(printMutation([{ object: r.cluster, verb }], out, dryRun));
        } catch (e) {
          failed = true;
          process.stderr.write(errorLine(e) + '\n');
        }
      }
      if (out.format !== 'text' && done.length) process.stdout.write(printMutation(done, out, dryRun));
      return failed ? 1 : 0;
    });
  });
}
