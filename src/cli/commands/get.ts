import type { Command } from 'commander';
import { InputError } from '../../io/documents.js';
import { outputOption, parseOutput, type OutputName } from '../output.js';
import { addHostFlags, connectHost, runFleet, type HostFlags } from '../fleet/command.js';
import { parseTargets, runGet } from '../fleet/get.js';
import { operationScope, sourcesFor, splitClusters } from '../fleet/sources.js';

const GET_OUTPUTS: readonly OutputName[] = ['table', 'wide', 'json', 'yaml', 'name', 'jsonpath', 'custom-columns'];

interface GetFlags extends HostFlags {
  allNamespaces?: boolean;
  clusters?: string[];
  operationScope?: string;
  selector?: string;
  fieldSelector?: string;
  output: string;
  watch?: boolean;
  watchOnly?: boolean;
  outputWatchEvents?: boolean;
  headers: boolean;
  showLabels?: boolean;
  ignoreNotFound?: boolean;
  raw?: string;
}

const collect = (v: string, prev: string[] | undefined) => [...(prev ?? []), v];

export function registerGet(program: Command): void {
  const cmd = program
    .command('get')
    .description('Display resources of the host and of member clusters (through the host\'s cluster proxy), as karmadactl get.')
    .argument('[resource...]', 'TYPE[,TYPE...] [NAME...] or TYPE/NAME...; types as kubectl names them (deploy, deployments.apps, pods, ...)')
    .option('-A, --all-namespaces', 'list across all namespaces')
    .option('-C, --clusters <names>', 'the member clusters to read, comma separated or repeated (default every Cluster)', collect)
    .option('-s, --operation-scope <scope>', 'karmada (the host only), members (the member clusters only) or all; default all, members when --clusters is given')
    .option('-l, --selector <selector>', 'label selector, e.g. -l app=web,tier!=cache')
    .option('--field-selector <selector>', 'field selector, e.g. --field-selector status.phase=Running')
    .addOption(outputOption(GET_OUTPUTS, 'table (the default) has CLUSTER and ADOPTION columns; json and yaml print one object, or a v1 List'))
    .option('-w, --watch', 'after listing, watch for changes (one resource type)')
    .option('--watch-only', 'watch for changes without listing first')
    .option('--output-watch-events', 'with --watch, an EVENT column (ADDED, MODIFIED, DELETED)')
    .option('--no-headers', 'leave the table header out')
    .option('--show-labels', 'a LABELS column (table and wide output only)')
    .option('--ignore-not-found', 'a named object that exists nowhere is not an error')
    .option('--raw <path>', 'GET a path of the host apiserver and print the answer as it comes, e.g. the search API');
  addHostFlags(cmd).addHelpText(
    'after',
    `
The host's objects show CLUSTER Karmada; a member's objects show its name, and ADOPTION Y when Karmada
manages them (label karmada.io/managed=true), N when not. Members are reached as karmadactl reaches
them: /apis/cluster.karmada.io/v1alpha1/clusters/<name>/proxy/ on the host, with its credentials.

Never hangs: every request waits --request-timeout (default 10s; 0 waits forever) at most. A member
that does not answer in time, or answers with an error, is named on stderr (error: ... cluster(NAME)
...) and the others are printed; the exit status is then 1.

Karmada's own kinds (clusters, propagationpolicies, resourcebindings, works, ...: every *.karmada.io
group) are read from the host only, whatever --operation-scope says.

A Pull cluster with no spec.apiEndpoint cannot be reached through the cluster proxy: it is read
through karmada-search's cache (/apis/search.karmada.io/v1alpha1/search/cache/...) for the types a
ResourceRegistry caches of it (a table of its own, the cache's columns), and otherwise skipped with a
warning naming it (not an error: the exit status stays 0).

In -o json|yaml every member object carries the annotation karmada-search uses,
resource.karmada.io/cached-from-cluster: <member>; -o name prints it as a prefix
(member1/deployment.apps/web); jsonpath and custom-columns read it with kubectl's escaped dots.

Examples:
  karmada-lite get deploy -A                          # every Deployment on the host and on each member
  karmada-lite get pods -n shop -C member1,member2 -o wide
  karmada-lite get deploy web -n shop -s members -o yaml
  karmada-lite get deploy -n shop --request-timeout 3s   # a frozen member costs 3 s, not forever
  karmada-lite get clusters                           # from the host only
  karmada-lite get deploy -A -o custom-columns='NAME:.metadata.name,CLUSTER:.metadata.annotations.resource\\.karmada\\.io/cached-from-cluster'
  karmada-lite get deploy -n shop -C member1 -w
  karmada-lite get --raw /apis/search.karmada.io/v1alpha1/search/cache/apis/apps/v1/deployments

Exit status: 0 success (skipped Pull clusters included), 1 an object or cluster could not be read
(the rest is printed), 2 usage error.`,
  );
  cmd.action(async (args: string[], flags: GetFlags) => {
    const out = parseOutput(flags.output, GET_OUTPUTS);
    if (flags.raw !== undefined) {
      if (args.length) throw new InputError('--raw takes no resource arguments: karmada-lite get --raw /api/v1/namespaces');
      return runFleet(async () => {
        const host = await connectHost(flags);
        const res = await host.client.stream(flags.raw!);
        for await (const chunk of res) process.stdout.write(chunk as Buffer);
      });
    }
    const targets = parseTargets(args);
    if (typeof targets === 'string') throw new InputError(targets);
    if (flags.showLabels && out.format !== 'table' && out.format !== 'wide') throw new InputError(`--show-labels option cannot be used with ${out.format} printer`);
    const watch = Boolean(flags.watch || flags.watchOnly);
    if (flags.outputWatchEvents && !watch) throw new InputError('--output-watch-events option can only be used with --watch or --watch-only');
    const clusters = splitClusters(flags.clusters);
    const scope = operationScope(flags.operationScope, clusters, 'all');
    await runFleet(async () => {
      const host = await connectHost(flags);
      const sources = await sourcesFor(host.client, scope, clusters);
      const human = out.format === 'table' || out.format === 'wide';
      return runGet(
        sources,
        {
          targets,
          namespace: host.namespace,
          allNamespaces: Boolean(flags.allNamespaces),
          selector: flags.selector,
          fieldSelector: flags.fieldSelector,
          output: human ? undefined : out,
          wide: out.format === 'wide',
          watch,
          watchOnly: Boolean(flags.watchOnly),
          outputWatchEvents: Boolean(flags.outputWatchEvents),
          noHeaders: flags.headers === false,
          showLabels: Boolean(flags.showLabels),
          ignoreNotFound: Boolean(flags.ignoreNotFound),
        },
        { write: (s) => process.stdout.write(s), error: (s) => process.stderr.write(s) },
        scope === 'members',
      );
    });
  });
}
