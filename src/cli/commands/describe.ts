import type { Command } from 'commander';
import { addHostFlags, connectHost, runFleet, type HostFlags } from '../fleet/command.js';
import { loadDescription, renderDescription } from '../fleet/describe.js';
import { discover, resolveResource } from '../fleet/discovery.js';
import { InputError } from '../../io/documents.js';

export function registerDescribe(program: Command): void {
  const cmd = program
    .command('describe')
    .description('Show a resource template on the host with its policy, binding, per-cluster placement and status, Works, conditions and events.')
    .argument('<kind>', 'the resource type, as kubectl names it: deployment, deploy, deployments.apps, configmap, ...')
    .argument('[name]', 'the template\'s name (or KIND/NAME as the first argument)');
  addHostFlags(cmd).addHelpText(
    'after',
    `
It reads only the host apiserver: the template, its ResourceBinding (ClusterResourceBinding when the
kind is cluster-scoped), the Works in the karmada-es-<cluster> namespaces and the events of all of them.

Examples:
  karmada-lite describe deployment web -n shop
  karmada-lite describe deploy/web -n shop
  karmada-lite describe clusterrole viewer --context karmada-host

Exit status: 0 shown, 1 the template or the host could not be read, 2 usage error.`,
  );
  cmd.action(async (kindArg: string, nameArg: string | undefined, flags: HostFlags) => {
    await runFleet(async () => {
      const [kind, name] = kindAndName(kindArg, nameArg);
      const host = await connectHost(flags);
      const resource = resolveResource(await discover(host.client), kind);
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
