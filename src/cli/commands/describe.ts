import type { Command } from 'commander';
import { addHostFlags, connectHost, runFleet, type HostFlags } from '../fleet/command.js';
import { loadDescription, loadMemberDescription, renderDescription, renderMemberDescription } from '../fleet/describe.js';
import { loadKarmadaDescription, renderKarmadaDescription } from '../fleet/describe-karmada.js';
import { discover, isKarmadaGroup, resolveResource } from '../fleet/discovery.js';
import { memberClient, operationScope } from '../fleet/sources.js';
import { InputError } from '../../io/documents.js';

interface DescribeFlags extends HostFlags {
  cluster?: string;
  operationScope?: string;
}

export function registerDescribe(program: Command): void {
  const cmd = program
    .command('describe')
    .description('Show a resource template on the host with its policy, binding, per-cluster placement and status, Works, conditions and events; Karmada\'s own objects (clusters, policies, bindings, ...) as themselves; with -C MEMBER, the member\'s own object and its events.')
    .argument('<kind>', 'the resource type, as kubectl names it: deployment, deploy, deployments.apps, configmap, ...')
    .argument('[name]', 'the template\'s name (or KIND/NAME as the first argument)')
    .option('-C, --cluster <name>', "describe the object in this member cluster instead (through the host's cluster proxy, as the caller)")
    .option('-s, --operation-scope <scope>', 'karmada (the template on the host, the default) or members (an object in the --cluster member); --cluster alone means members');
  addHostFlags(cmd).addHelpText(
    'after',
    `
Without --cluster it reads only the host apiserver: the template, its ResourceBinding
(ClusterResourceBinding when the kind is cluster-scoped), the Works in the karmada-es-<cluster>
namespaces and the events of all of them.

Karmada's own kinds (every *.karmada.io group) are described as themselves: a Cluster with its sync
mode, endpoint, taints, conditions, nodes, resource summary and API enablements; rb/crb with the
resource they bind, their placement, per-cluster state and Works; pp/cpp with their selectors,
placement and the bindings they claimed; op/cop with their selectors and rules; ric with its target
and operations.

Every request waits --request-timeout (default 10s) at most: a member that does not answer ends the
command with an error naming the request, instead of hanging.

With --cluster MEMBER (karmadactl's describe --operation-scope=members --cluster=MEMBER) it describes
the member's own object, read through /apis/cluster.karmada.io/v1alpha1/clusters/MEMBER/proxy with the
host kubeconfig: its fields in kubectl's generic describe layout and its events on the member. KIND is
resolved against the member's discovery, so its CRDs can be named too.

Examples:
  karmada-lite describe deployment web -n shop
  karmada-lite describe deploy/web -n shop
  karmada-lite describe cluster member1
  karmada-lite describe rb web-deployment -n shop
  karmada-lite describe cpp default-placement
  karmada-lite describe clusterrole viewer --context karmada-host
  karmada-lite describe deployment web -n shop -C member1
  karmada-lite describe pod web-7d4b9-abcde -n shop --operation-scope members --cluster member2
  karmada-lite describe deploy web -n shop -C member1 --request-timeout 3s

Exit status: 0 shown, 1 the object, the Cluster or the host could not be read, 2 usage error.`,
  );
  cmd.action(async (kindArg: string, nameArg: string | undefined, flags: DescribeFlags) => {
    await runFleet(async () => {
      const [kind, name] = kindAndName(kindArg, nameArg);
      const member = memberOf(flags);
      const host = await connectHost(flags);
      if (member !== undefined) {
        const client = await memberClient(host.client, member);
        const resource = resolveResource(await discover(client), kind);
        process.stdout.write(renderMemberDescription(await loadMemberDescription(client, member, resource, name, host.namespace), new Date()));
        return;
      }
      const resource = resolveResource(await discover(host.client), kind);
      // Karmada's own objects are described as themselves, never as templates to propagate
      if (isKarmadaGroup(resource.group)) {
        process.stdout.write(renderKarmadaDescription(await loadKarmadaDescription(host.client, resource, name, host.namespace), new Date()));
        return;
      }
      const d = await loadDescription(host.client, resource, name, host.namespace);
      process.stdout.write(renderDescription(d, new Date()));
    });
  });
}

/** `KIND NAME` or `KIND/NAME`, as kubectl takes them. */
function kindAndName(kind: string, name: string | undefined): [string, string] {
  const slash = kind.indexOf('/');
  if (slash > 0 && name === undefined) return [kind.slice(0, slash), kind.slice(slash + 1)];
  if (name === undefined || slash >= 0) throw new InputError('describe takes KIND NAME or KIND/NAME, e.g. karmada-lite describe deployment web -n shop');
  return [kind, name];
}

/** The member to describe in, as karmadactl decides it: scope members needs --cluster; karmada describes on the host. */
function memberOf(flags: DescribeFlags): string | undefined {
  const cluster = flags.cluster?.trim() || undefined;
  if (flags.operationScope === 'karmada' && cluster) throw new InputError('--cluster needs --operation-scope members: scope karmada describes the template on the host');
  const scope = operationScope(flags.operationScope, cluster ? [cluster] : undefined, 'karmada');
  if (scope === 'all') throw new InputError('--operation-scope: describe takes karmada or members (one object in one place), not all');
  if (scope === 'members' && !cluster) throw new InputError('must specify a member cluster: --cluster MEMBER with --operation-scope members');
  if (cluster?.includes(',')) throw new InputError(`--cluster names one member, got ${cluster}`);
  return scope === 'members' ? cluster : undefined;
}
