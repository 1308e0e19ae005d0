import type { Command } from 'commander';
import { InputError } from '../../io/documents.js';
import { errorMessage } from '../../json/error.js';
import { loadKubeConfig } from '../kubeconfig.js';
import { FleetClient, isNotFound } from '../fleet/client.js';
import { addHostFlags, connectHost, runFleet, type HostFlags } from '../fleet/command.js';
import { apiVersionOf, discover, qualifiedResource, resolveResource, resourcePath, type ResourceInfo } from '../fleet/discovery.js';
import { policyNameFor, promotedTemplate, promotePolicy, type KubeObject } from '../fleet/policies.js';
import { memberClient } from '../fleet/sources.js';
import { addMutationFlags, dryRunQuery, parseDryRun, parseMutationOutput, printMutation, type DryRun } from '../mutation.js';

interface PromoteFlags extends HostFlags {
  cluster?: string;
  clusterKubeconfig?: string;
  clusterContext?: string;
  dependencies?: boolean;
  autoCreatePolicy: string | boolean;
  policyName?: string;
  dryRun?: string | boolean;
  output: string;
}

/** A Go-style boolean flag value (`--auto-create-policy=false`); a bare flag is true. */
export function parseBoolFlag(flag: string, value: string | boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (/^(true|1|t)$/i.test(value)) return true;
  if (/^(false|0|f)$/i.test(value)) return false;
  throw new InputError(`${flag} must be true or false, got ${JSON.stringify(value)}`);
}

/** The field manager of what promote writes on the host. */
const FIELD_MANAGER = 'karmada-lite';

const RESOURCE_INTERPRETER_CUSTOMIZATIONS = '/apis/config.karmada.io/v1alpha1/resourceinterpretercustomizations';

export function registerPromote(program: Command): void {
  const cmd = program
    .command('promote')
    .description('Adopt a resource that already runs in a member cluster: its template and a PropagationPolicy to that cluster on the host, the member copy taken over in place, as karmadactl promote.')
    .argument('<resource>', 'the resource type as kubectl names it (deployment, deployments.apps, deployment.v1.apps, secret, ...)')
    .argument('<name>', 'the name of the object in the member cluster')
    .option('-C, --cluster <name>', 'the member cluster the object runs in (required)')
    .option('--cluster-kubeconfig <path>', "read the object with this kubeconfig of the member instead of through the host's cluster proxy")
    .option('--cluster-context <name>', 'the context in --cluster-kubeconfig (default: the one named as the cluster, else its current-context)')
    .option('-d, --dependencies', 'promote what the object depends on too (the ConfigMaps, Secrets, ServiceAccounts, PVCs its Pod template names, as the interpreters tell), and set propagateDeps', false)
    .option('--auto-create-policy [bool]', 'create a PropagationPolicy (a ClusterPropagationPolicy for cluster-scoped kinds) that sends the template to the cluster; =false: the template only', true)
    .option('--policy-name <name>', "the policy's name (default: the object's name and karmadactl's hash of its namespace and kind, e.g. web-6c5d8d7f9b)");
  addMutationFlags(addHostFlags(cmd)).addHelpText(
    'after',
    `
What it does, as karmadactl promote: reads the object from the member (through the host's cluster
proxy, or --cluster-kubeconfig), removes what the member's server wrote (status, uid, resourceVersion,
managedFields, owner references, a Deployment's revision annotation: Karmada's RemoveIrrelevantFields),
adds work.karmada.io/conflict-resolution: overwrite unless the object has that annotation, and creates it
on the host as a resource template, then a PropagationPolicy selecting it to that one cluster with
conflictResolution: Overwrite and preserveResourcesOnDeletion: true. The controller then adopts the
member's copy in place (same uid, no restart: the member's copy is updated, never re-created), and
deleting the template later leaves the member's copy running.

Nothing is written when the template or the policy already exists on the host (exit 1): edit the policy
to propagate the object instead. -n (or the context's namespace) is the object's namespace.

--dry-run=client prints what would be created and sends nothing; --dry-run=server sends every create
with dryRun=All (the webhook checks them, nothing is stored); -o yaml|json prints the objects (the
template, the dependencies, the policy) as created, or as they would be. karmadactl's \`-o yaml\`
alone writes nothing; here add --dry-run, as kubectl.

Exit status: 0 promoted, 1 the object or cluster does not exist, the template or policy already exists,
or the host refused, 2 usage error.

Examples:
  karmada-lite promote deployment web -n shop -C member1
  karmada-lite promote deployment.v1.apps web -n shop -C member1 -d        # with its ConfigMaps, Secrets, ...
  karmada-lite promote deployment web -n shop -C member1 --dry-run -o yaml > web.yaml   # for a GitOps repository
  karmada-lite promote secret web-tls -n shop -C member1 --policy-name web-tls
  karmada-lite promote clusterrole view-shop -C member1 --auto-create-policy=false
  karmada-lite promote deployment web -n shop -C member1 --cluster-kubeconfig member1.config`,
  );
  cmd.action(async (resource: string, name: string, flags: PromoteFlags) => {
    if (!flags.cluster) throw new InputError('the cluster cannot be empty: name the member the object runs in with -C, e.g. -C member1');
    const dryRun = parseDryRun(flags.dryRun);
    const out = parseMutationOutput(flags.output);
    const autoCreatePolicy = parseBoolFlag('--auto-create-policy', flags.autoCreatePolicy);
    const cluster = flags.cluster;
    await runFleet(async () => {
      const host = await connectHost(flags);
      const member = flags.clusterKubeconfig ? await directMember(flags.clusterKubeconfig, flags.clusterContext, cluster, host.client.timeoutMs) : await memberClient(host.client, cluster);
      const memberTypes = await discover(member);
      const hostTypes = await discover(host.client);

      /** The object in the member and the host's resource for its kind. */
      const read = async (info: ResourceInfo, objName: string, namespace: string | undefined) => {
        let obj: KubeObject;
        try {
          obj = await member.get<KubeObject>(resourcePath(info, namespace, objName));
        } catch (e) {
          throw new Error(`failed to get resource in cluster(${cluster}): ${errorMessage(e)}`);
        }
        const onHost = hostTypes.find((r) => apiVersionOf(r) === obj.apiVersion && r.kind === obj.kind);
        if (!onHost) throw new Error(`the host does not serve ${obj.kind} in ${obj.apiVersion}: install its CRD on the control plane before promoting ${qualifiedResource(info)}/${objName}`);
        const { aliases: _aliases, ...hostInfo } = onHost;
        return { template: promotedTemplate(obj), hostInfo: hostInfo as ResourceInfo };
      };

      const info = resolveResource(memberTypes, resource);
      const namespace = info.namespaced ? host.namespace : undefined;
      const main = await read(info, name, namespace);
      const creates: Array<{ info: ResourceInfo; object: KubeObject }> = [];

      if (flags.dependencies) {
        for (const dep of await dependenciesOf(host.client, main.template)) {
          const depInfo = memberTypes.find((r) => apiVersionOf(r) === dep.apiVersion && r.kind === dep.kind);
          if (!depInfo || !dep.name) continue; // a label-selected dependency names no one object to promote
          const d = await read(depInfo, dep.name, depInfo.namespaced ? (dep.namespace ?? namespace) : undefined);
          if (await exists(host.client, d.hostInfo, d.template)) {
            process.stderr.write(`Dependency resource ${qualifiedResource(d.hostInfo)}(${where(d.template)}) already exist in karmada control plane: left as it is\n`);
            continue;
          }
          creates.push({ info: d.hostInfo, object: d.template });
        }
      }

      if (await exists(host.client, main.hostInfo, main.template)) {
        throw new Error(`Resource ${qualifiedResource(main.hostInfo)}(${where(main.template)}) already exist in karmada control plane, you can edit PropagationPolicy and OverridePolicy to propagate it`);
      }
      creates.push({ info: main.hostInfo, object: main.template });

      if (autoCreatePolicy) {
        const policyName = policyNameFor({ apiVersion: main.template.apiVersion, kind: main.template.kind, name, namespace }, flags.policyName);
        const policy = promotePolicy({ apiVersion: apiVersionOf(main.hostInfo), kind: main.template.kind, name, namespace, cluster, policyName, deps: Boolean(flags.dependencies) });
        const policyInfo = hostTypes.find((r) => apiVersionOf(r) === policy.apiVersion && r.kind === policy.kind);
        if (!policyInfo) throw new Error(`the host does not serve ${policy.kind}: install the CRDs (karmada-lite crds | kubectl apply -f -)`);
        if (await exists(host.client, policyInfo, policy)) {
          throw new Error(`the ${policy.kind}(${where(policy)}) already exist, please edit it to propagate resource`);
        }
        creates.push({ info: policyInfo, object: policy });
      }

      const done: Array<{ object: KubeObject; verb: string }> = [];
      for (const c of creates) {
        const stored = await create(host.client, c.info, c.object, dryRun);
        done.push({ object: stored, verb: 'created' });
        if (out.format === 'text') process.stdout.write(printMutation([{ object: stored, verb: 'created' }], out, dryRun));
      }
      if (out.format !== 'text') process.stdout.write(printMutation(done, out, dryRun));
      return 0;
    });
  });
}

const where = (o: KubeObject) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);

async function exists(host: FleetClient, info: ResourceInfo, o: KubeObject): Promise<boolean> {
  try {
    await host.get(resourcePath(info, o.metadata.namespace, o.metadata.name));
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}

/** Creates an object on the host (or, with a dry run, what the server would store, or the object itself). */
async function create(host: FleetClient, info: ResourceInfo, o: KubeObject, dryRun: DryRun): Promise<KubeObject> {
  if (dryRun === 'client') return o;
  return host.send<KubeObject>('POST', resourcePath(info, o.metadata.namespace), { query: { ...dryRunQuery(dryRun), fieldManager: FIELD_MANAGER }, body: JSON.stringify(o) });
}

/** --cluster-kubeconfig: the member reached directly; the context named as the cluster when there is one, as karmadactl defaults it. */
async function directMember(file: string, context: string | undefined, cluster: string, timeoutMs: number): Promise<FleetClient> {
  const kc = await loadKubeConfig(file, context).catch((e: unknown) => Promise.reject(new InputError(errorMessage(e).replace(/^--context/, '--cluster-context'))));
  if (context === undefined && kc.getContextObject(cluster)) kc.setCurrentContext(cluster);
  return new FleetClient(kc, '', timeoutMs);
}

/** What the interpreters (the host's ResourceInterpreterCustomizations, then the built-in ones) say the object depends on. */
async function dependenciesOf(host: FleetClient, template: KubeObject) {
  const { createInterpreter } = await import('../../interpreter/interpreter.js');
  const rics = await host.get<{ items?: unknown[] }>(RESOURCE_INTERPRETER_CUSTOMIZATIONS).then(
    (l) => l.items ?? [],
    () => [],
  );
  const interpreter = createInterpreter({ customizations: rics as import('../../interpreter/types.js').RIC[] });
  return interpreter.orDefault.getDependencies(template);
}
