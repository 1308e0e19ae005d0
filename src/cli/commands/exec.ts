import type { Command } from 'commander';
import { InputError } from '../../io/documents.js';
import { addHostFlags, connectHost, runFleet, type HostFlags } from '../fleet/command.js';
import { execInPod } from '../fleet/exec.js';
import { defaultContainer, podName, podPath } from '../fleet/pod.js';
import { memberClient, operationScope } from '../fleet/sources.js';

interface ExecFlags extends HostFlags {
  cluster?: string;
  operationScope?: string;
  container?: string;
  stdin?: boolean;
  tty?: boolean;
  quiet?: boolean;
}

export function registerExec(program: Command): void {
  const cmd = program
    .command('exec')
    .description('Run a command in a container of a pod, on the host or in a member cluster through the host\'s cluster proxy.')
    .argument('<pod>', 'the pod, as POD or pod/POD')
    .argument('<command...>', 'the command and its arguments, after --')
    .option('-C, --cluster <name>', 'the member cluster the pod runs in (without it, a pod of the host)')
    .option('-s, --operation-scope <scope>', 'karmada (a pod of the host) or members (needs --cluster); default members when --cluster is given')
    .option('-c, --container <name>', 'the container (default: the pod\'s kubectl.kubernetes.io/default-container, else its first)')
    .option('-i, --stdin', 'pass standard input to the command')
    .option('-t, --tty', 'standard input is a terminal (raw mode, window size passed on)')
    .option('-q, --quiet', 'print only what the command prints');
  addHostFlags(cmd).addHelpText(
    'after',
    `
The command runs over a WebSocket (v5.channel.k8s.io, else v4), as kubectl's; its exit status is this
command's.

--request-timeout (default 10s) bounds the pod lookup and the upgrade; the command itself then runs
for as long as it takes.

Examples:
  karmada-lite exec web-7d4b9 -n shop -C member1 -- ls /usr/share/nginx/html
  karmada-lite exec -it web-7d4b9 -n shop -C member1 -c web -- sh

Exit status: the command's own; 1 the pod or member could not be reached; 2 usage error.`,
  );
  cmd.action(async (pod: string, command: string[], flags: ExecFlags) => {
    const scope = operationScope(flags.operationScope, flags.cluster ? [flags.cluster] : undefined, 'karmada');
    if (scope === 'all') throw new InputError('--operation-scope: not support operation scope: all (use karmada or members)');
    if (scope === 'members' && !flags.cluster) throw new InputError('must specify a member cluster: -C/--cluster names the member the pod runs in');
    const name = podName(pod);
    await runFleet(async () => {
      const host = await connectHost(flags);
      const client = scope === 'members' ? await memberClient(host.client, flags.cluster!) : host.client;
      const notice = (s: string) => flags.quiet || process.stderr.write(s);
      const container = flags.container ?? (await defaultContainer(client, host.namespace, name, notice));
      const stdin = process.stdin;
      const tty = Boolean(flags.tty && flags.stdin && stdin.isTTY);
      if (flags.tty && !tty && !flags.quiet) process.stderr.write('Unable to use a TTY - input is not a terminal or the right kind of file\n');
      if (tty) stdin.setRawMode(true);
      try {
        const r = await execInPod(
          client,
          podPath(host.namespace, name, 'exec'),
          { command, container, stdin: flags.stdin || undefined, stdout: true, stderr: !tty, tty: tty || undefined },
          {
            stdin: flags.stdin ? stdin : undefined,
            stdout: process.stdout,
            stderr: process.stderr,
            size: tty ? () => ({ width: process.stdout.columns, height: process.stdout.rows }) : undefined,
            onResize: tty
              ? (l) => {
                  process.stdout.on('resize', l);
                  return () => process.stdout.off('resize', l);
                }
              : undefined,
          },
        );
        // A message that says `error:` itself (some error channels do) is not prefixed twice.
        if (r.message && !flags.quiet) process.stderr.write(r.code > 0 && /exit code/.test(r.message) ? `${r.message}\n` : `error: ${r.message.replace(/^error:\s*/i, '')}\n`);
        return r.code;
      } finally {
        if (tty) stdin.setRawMode(false);
      }
    });
  });
}
