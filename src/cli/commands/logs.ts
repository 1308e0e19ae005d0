import type { Command } from 'commander';
import { InputError } from '../../io/documents.js';
import { addHostFlags, connectHost, runFleet, type HostFlags } from '../fleet/command.js';
import { defaultContainer, podName, podPath } from '../fleet/pod.js';
import { memberClient } from '../fleet/sources.js';

interface LogsFlags extends HostFlags {
  cluster?: string;
  container?: string;
  follow?: boolean;
  tail?: number;
  previous?: boolean;
  timestamps?: boolean;
  sinceSeconds?: number;
}

const wholeNumber = (flag: string) => (v: string) => {
  if (!/^-?\d+$/.test(v)) throw new InputError(`${flag} takes a whole number, got ${JSON.stringify(v)}`);
  return Number(v);
};

export function registerLogs(program: Command): void {
  const cmd = program
    .command('logs')
    .description('Print the logs of a container of a pod in a member cluster, through the host\'s cluster proxy.')
    .argument('<pod>', 'the pod, as POD or pod/POD')
    .option('-C, --cluster <name>', 'the member cluster the pod runs in (required)')
    .option('-c, --container <name>', 'the container (default: the pod\'s kubectl.kubernetes.io/default-container, else its first)')
    .option('-f, --follow', 'stream new lines as they are written, until the container ends or you press Ctrl-C')
    .option('--tail <lines>', 'only the last N lines; -1 (the default) for all', wholeNumber('--tail'))
    .option('-p, --previous', 'the previous instance of the container, after a restart')
    .option('--timestamps', 'an RFC3339 timestamp before each line')
    .option('--since-seconds <n>', 'only lines newer than this many seconds', wholeNumber('--since-seconds'));
  addHostFlags(cmd).addHelpText(
    'after',
    `
The lines are printed as the member sends them (nothing is buffered), so -f follows the container.
A member's refusal (no such pod, a pod not yet on a node) is printed as the member's own error.

--request-timeout (default 10s) bounds the wait for the member to start answering; once the lines
flow, -f follows them for as long as the container writes.

Examples:
  karmada-lite logs web-7d4b9 -n shop -C member1
  karmada-lite logs pod/web-7d4b9 -n shop -C member1 -c sidecar -f --tail 20

Exit status: 0 printed, 1 the member or the pod could not be read, 2 usage error.`,
  );
  cmd.action(async (pod: string, flags: LogsFlags) => {
    if (!flags.cluster) throw new InputError('must specify a cluster: -C/--cluster names the member the pod runs in');
    const name = podName(pod);
    await runFleet(async () => {
      const host = await connectHost(flags);
      const member = await memberClient(host.client, flags.cluster!);
      const container = flags.container ?? (await defaultContainer(member, host.namespace, name, (s) => process.stderr.write(s)));
      const res = await member.stream(podPath(host.namespace, name, 'log'), {
        query: {
          container,
          follow: flags.follow || undefined,
          tailLines: flags.tail !== undefined && flags.tail >= 0 ? flags.tail : undefined,
          previous: flags.previous || undefined,
          timestamps: flags.timestamps || undefined,
          sinceSeconds: flags.sinceSeconds,
        },
      });
      for await (const chunk of res) process.stdout.write(chunk as Buffer);
    });
  });
}
