import type { Command } from 'commander';
import { describeObject, documentLocation, InputError } from '../../io/documents.js';
import { addInputFlags, readObjects, type InputFlags } from '../input-flags.js';
import { inputPaths } from '../input.js';
import { isNotFound, type FleetClient } from '../fleet/client.js';
import { addHostFlags, connectHost, errorLine, runFleet, type HostFlags } from '../fleet/command.js';
import { apiVersionOf, discover, resourcePath, type DiscoveredInfo } from '../fleet/discovery.js';
import { applyPolicy, type KubeObject } from '../fleet/policies.js';
import { memberNames, splitClusters } from '../fleet/sources.js';
import { addMutationFlags, dryRunQuery, parseDryRun, parseMutationOutput, printMutation, type DryRun } from '../mutation.js';

interface ApplyFlags extends HostFlags, InputFlags {
  filename?: string[];
  allClusters?: boolean;
  cluster?: string[];
  fieldManager: string;
  forceConflicts?: boolean;
  dryRun?: string | boolean;
  output: string;
}

const collect = (v: string, prev: string[] | undefined) => [...(prev ?? []), v];

export function registerApply(program: Command): void {
  const cmd = program
    .command('apply')
    .description('Apply objects to the host by server-side apply and, with --all-clusters or -C, propagate each with a PropagationPolicy of its own, as karmadactl apply.')
    .argument('[files...]', 'files, directories or - (the same as -f)')
    .option('-f, --filename <path...>', 'a file, a directory (every .yaml/.yml/.json below it) or - for standard input; repeatable')
    .option('--all-clusters', 'propagate every object to all member clusters: a (Cluster)PropagationPolicy per object, beside it')
    .option('-C, --cluster <names>', 'propagate every object to these member clusters, comma separated or repeated', collect)
    .option('--field-manager <name>', 'the field manager of the server-side apply', 'karmada-lite')
    .option('--force-conflicts', "take over fields another manager owns (server-side apply's force), instead of failing on them");
  addMutationFlags(addInputFlags(addHostFlags(cmd))).addHelpText(
    'after',
    `
Without --all-clusters or -C it is kubectl apply --server-side: every object is applied to the host, as
a resource template, and propagates only if a policy selects it. With --all-clusters (or -C) each object
also gets a PropagationPolicy (a ClusterPropagationPolicy for cluster-scoped kinds) applied right after
it, named as karmadactl names it (<name>-<hash of namespace and kind>), selecting exactly that object and
placing it on every cluster (an empty clusterAffinity) or on the clusters of -C. Applying again updates
both in place.

Objects are applied by server-side apply with --field-manager, whatever created them before; a field
another manager owns is a conflict (exit 1) unless --force-conflicts. Namespaced objects without a
namespace go to -n (or the context's namespace). Prints "<kind>/<name> created", "configured" or
"unchanged" per object, kubectl's words.

--dry-run=client prints what would be applied and sends nothing; --dry-run=server sends every apply
with dryRun=All (admission checks it, nothing is stored); -o yaml|json prints the objects as applied.

Exit status: 0 every object applied, 1 one could not be (the others are still applied), or a cluster of
-C does not exist, 2 usage error or unreadable input.

Examples:
  karmada-lite apply -f manifest.yaml                              # as kubectl apply --server-side
  karmada-lite apply -f dir/ --all-clusters                       # and propagate everything to every cluster
  karmada-lite apply -f manifest.yaml -C member1,member2
  karmada-lite apply -f app.yaml -n shop --all-clusters --dry-run=client -o yaml > propagated.yaml
  kubectl create configmap cfg --from-literal=a=1 --dry-run=client -o yaml | karmada-lite apply -f - --all-clusters`,
  );
  cmd.action(async (files: string[], flags: ApplyFlags) => {
    const clusters = splitClusters(flags.cluster);
    if (flags.allClusters && clusters?.length) throw new InputError('--all-clusters and --cluster cannot be used together');
    const dryRun = parseDryRun(flags.dryRun);
    const out = parseMutationOutput(flags.output);
    const input = readObjects(inputPaths(files, flags.filename, 'karmada-lite apply -f manifest.yaml'), flags);
    if (!input) return;
    await runFleet(async () => {
      const host = await connectHost(flags);
      if (clusters?.length) await memberNames(host.client, clusters);
      const types = await discover(host.client);
      const propagate = flags.allClusters || clusters?.length ? { clusters: clusters?.length ? clusters : undefined } : undefined;
      const done: Array<{ object: KubeObject; verb: string }> = [];
      let failed = false;
      const apply = async (o: KubeObject, info: DiscoveredInfo) => {
        const r = await serverSideApply(host.client, info, o, { dryRun, fieldManager: flags.fieldManager, force: Boolean(flags.forceConflicts) });
        done.push(r);
        if (out.format === 'text') process.stdout.write(printMutation([r], out, dryRun));
      };
      for (const doc of input.documents) {
        try {
          const o = doc.object as KubeObject;
          const info = typeOf(types, o, `${documentLocation(doc)} (${describeObject(o)})`);
          const obj = withNamespace(o, info, host.namespace, flags.namespace !== undefined);
          await apply(obj, info);
          if (!propagate) continue;
          const policy = applyPolicy({ apiVersion: o.apiVersion, kind: o.kind, name: obj.metadata.name, namespace: obj.metadata.namespace, clusters: propagate.clusters });
          await apply(policy, typeOf(types, policy, `the policy of ${describeObject(o)}`));
        } catch (e) {
          if (e instanceof InputError) throw e;
          failed = true;
          process.stderr.write(errorLine(e) + '\n');
        }
      }
      if (out.format !== 'text' && done.length) process.stdout.write(printMutation(done, out, dryRun));
      return failed ? 1 : 0;
    });
  });
}

/** The host's resource for an object's apiVersion and kind; kubectl's message when it serves none. */
function typeOf(types: readonly DiscoveredInfo[], o: KubeObject, where: string): DiscoveredInfo {
  const found = types.find((r) => apiVersionOf(r) === o.apiVersion && r.kind === o.kind);
  if (!found) throw new Error(`${where}: resource mapping not found: no matches for kind "${o.kind}" in version "${o.apiVersion}"; ensure CRDs are installed first`);
  return found;
}

/** A namespaced object without a namespace goes to -n (or the context's); one naming another than an explicit -n is refused, as kubectl. */
function withNamespace(o: KubeObject, info: DiscoveredInfo, namespace: string, explicit: boolean): KubeObject {
  if (!info.namespaced) return o;
  const own = o.metadata.namespace;
  if (own && explicit && own !== namespace) {
    throw new InputError(`the namespace from the provided object "${own}" does not match the namespace "${namespace}". You must pass '--namespace=${own}' to perform this operation.`);
  }
  return own ? o : { ...o, metadata: { ...o.metadata, namespace } };
}

interface ApplyOptions {
  dryRun: DryRun;
  fieldManager: string;
  force: boolean;
}

/** One server-side apply, with kubectl's word for it: created, configured (the object changed) or unchanged. */
async function serverSideApply(host: FleetClient, info: DiscoveredInfo, o: KubeObject, opts: ApplyOptions): Promise<{ object: KubeObject; verb: string }> {
  const path = resourcePath(info, o.metadata.namespace, o.metadata.name);
  const before = await host.get<KubeObject>(path).catch((e: unknown) => {
    if (isNotFound(e)) return undefined;
    throw e;
  });
  if (opts.dryRun === 'client') return { object: o, verb: before ? 'configured' : 'created' };
  const stored = await host.send<KubeObject>('PATCH', path, {
    query: { ...dryRunQuery(opts.dryRun), fieldManager: opts.fieldManager, ...(opts.force ? { force: true } : {}) },
    // JSON is YAML: the apply patch needs no YAML encoder
    body: JSON.stringify(o),
    contentType: 'application/apply-patch+yaml',
  });
  const verb = !before ? 'created' : before.metadata.resourceVersion === stored.metadata.resourceVersion ? 'unchanged' : 'configured';
  return { object: stored, verb };
}
