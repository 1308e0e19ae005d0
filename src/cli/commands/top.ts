import type { Command } from 'commander';
import { InputError } from '../../io/documents.js';
import { addHostFlags, connectHost, runFleet, type HostFlags } from '../fleet/command.js';
import { CLUSTERS_PATH } from '../fleet/cluster-taints.js';
import { SORT_BY, topClustersTable, type ClusterForTop, type SortBy } from '../fleet/top.js';
import { isNotFound } from '../fleet/client.js';
import { outputOption, parseOutput } from '../output.js';

interface TopFlags extends HostFlags {
  sortBy?: string;
  headers: boolean;
  output: string;
}

export function registerTop(program: Command): void {
  const top = program.command('top').description('Display the resource (CPU/memory) use of member clusters, as kubectl top node displays a node.');
  const cmd = top
    .command('clusters')
    .alias('cluster')
    .description("Each Cluster's requested CPU, memory and pods against what its Nodes offer, from its status.resourceSummary.")
    .argument('[clusters...]', 'the Clusters to show (default every Cluster)')
    .option('--sort-by <field>', 'cpu or memory: the clusters with most requested first')
    .option('--no-headers', 'leave the header out')
    .addOption(outputOption(['table', 'wide'], 'wide adds what Pods not yet scheduled ask (ALLOCATING) and the ready/total Nodes'));
  addHostFlags(cmd, false).addHelpText(
    'after',
    `
Read from the host only: each Cluster's status.resourceSummary, which the cluster status controller
posts from the member's Nodes (allocatable) and Pods (allocated: requests of scheduled Pods; allocating:
of Pods not scheduled yet), and its nodeSummary. CPU(cores) and MEMORY(bytes) are what is allocated, in
millicores and Mi as kubectl top node prints them; CPU% and MEMORY% that as a share of the allocatable;
PODS allocated/allocatable. A Cluster without a summary (not probed yet, or a Pull cluster whose agent
does not post one) shows <unknown>.

This is what the scheduler sees (requests), not live usage: karmadactl top node/pod read the members'
metrics-server through karmada-metrics-adapter, which karmada-lite does not have.

Exit status: 0 printed, 1 a named Cluster does not exist or the host could not be read, 2 usage error.

Examples:
  karmada-lite top clusters
  karmada-lite top clusters member1 member2 --sort-by memory
  karmada-lite top clusters -o wide --no-headers`,
  );
  cmd.action(async (names: string[], flags: TopFlags) => {
    const out = parseOutput(flags.output, ['table', 'wide']);
    if (flags.sortBy !== undefined && !(SORT_BY as readonly string[]).includes(flags.sortBy)) throw new InputError('--sort-by accepts only cpu or memory');
    await runFleet(async () => {
      const host = await connectHost(flags);
      let clusters: ClusterForTop[];
      if (names.length === 0) clusters = (await host.client.get<{ items?: ClusterForTop[] }>(CLUSTERS_PATH)).items ?? [];
      else {
        clusters = [];
        const missing: string[] = [];
        for (const n of new Set(names)) {
          try {
            clusters.push(await host.client.get<ClusterForTop>(`${CLUSTERS_PATH}/${encodeURIComponent(n)}`));
          } catch (e) {
            if (!isNotFound(e)) throw e;
            missing.push(n);
          }
        }
        if (missing.length) process.stderr.write(`error: clusters don't exist: ${missing.join(',')}\n`);
        if (!clusters.length) return 1;
        process.stdout.write(topClustersTable(clusters, { sortBy: flags.sortBy as SortBy | undefined, noHeaders: flags.headers === false, wide: out.format === 'wide' }));
        return missing.length ? 1 : 0;
      }
      if (!clusters.length) {
        process.stderr.write('No resources found\n');
        return 0;
      }
      process.stdout.write(topClustersTable(clusters, { sortBy: flags.sortBy as SortBy | undefined, noHeaders: flags.headers === false, wide: out.format === 'wide' }));
      return 0;
    });
  });
}
