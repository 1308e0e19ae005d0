// First: the webhook's young generation is held before any other module allocates (early-heap.ts).
import './early-heap.js';
import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import { addVerbosityFlag } from './verbosity.js';
import { commandWord } from './command-word.js';

type Register = (program: Command) => void;

/**
 * Every command, in the order --help lists them: its name and the loader of the module that registers it.
 * A run loads only the module of the command it names (`karmada-lite webhook` never loads the controller's
 * client-node or the interpreters' fengari); --help, `help`, completion and a mistyped command load them
 * all, so the tree they walk is the whole one. A new command is one line here.
 */
export const COMMANDS: ReadonlyArray<readonly [name: string, load: () => Promise<Register>, needs?: 'every command']> = [
  ['validate', async () => (await import('./commands/validate.js')).registerValidate],
  ['crds', async () => (await import('./commands/crds.js')).registerCrds],
  ['interpret', async () => (await import('./commands/interpret.js')).registerInterpret],
  ['webhook', async () => (await import('./commands/webhook.js')).registerWebhook],
  ['apiserver', async () => (await import('./commands/apiserver.js')).registerApiserver],
  ['plan', async () => (await import('./commands/plan.js')).registerPlan],
  ['controller', async () => (await import('./commands/controller.js')).registerController],
  ['agent', async () => (await import('./commands/agent.js')).registerAgent],
  ['simulate', async () => (await import('./commands/simulate.js')).registerSimulate],
  ['get', async () => (await import('./commands/get.js')).registerGet],
  ['describe', async () => (await import('./commands/describe.js')).registerDescribe],
  ['logs', async () => (await import('./commands/logs.js')).registerLogs],
  ['exec', async () => (await import('./commands/exec.js')).registerExec],
  ['join', async () => (await import('./commands/join.js')).registerJoin],
  ['unjoin', async () => (await import('./commands/unjoin.js')).registerUnjoin],
  ['promote', async () => (await import('./commands/promote.js')).registerPromote],
  ['cordon', async () => (await import('./commands/cordon.js')).registerCordon],
  ['uncordon', async () => (await import('./commands/cordon.js')).registerUncordon],
  ['taint', async () => (await import('./commands/taint.js')).registerTaint],
  ['top', async () => (await import('./commands/top.js')).registerTop],
  ['apply', async () => (await import('./commands/apply.js')).registerApply],
  ['register', async () => (await import('./commands/register.js')).registerRegister],
  ['unregister', async () => (await import('./commands/unregister.js')).registerUnregister],
  ['version', async () => (await import('./commands/version.js')).registerVersion],
  ['completion', async () => (await import('./commands/completion.js')).registerCompletion, 'every command'],
];

/**
 * The commands a run of `argv` needs: the one its first word names, or every command when it names none
 * (`--help`, `--version` alone, `help webhook`, a typo commander should suggest a fix for) or names one
 * that walks the whole tree (completion).
 */
export function commandsFor(argv: readonly string[]): typeof COMMANDS {
  const word = commandWord(argv);
  if (word === undefined && argv.includes('--version')) return []; // the version needs no command
  const named = COMMANDS.find(([name]) => name === word);
  return named && !named[2] ? [named] : COMMANDS;
}

// Exit codes scripts can rely on: 0 success, 1 the input is invalid / a check failed, 2 usage error or
// unreadable input. Commander's own parse errors therefore exit 2, not its default 1: every command of the
// tree throws them (exitOverride) to main(), which also maps an InputError thrown by an action to 2.
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command('karmada-lite')
    .description('A Karmada-compatible multi-cluster policy engine: the same YAML as Karmada, linted, planned and reconciled.')
    .addHelpText(
      'after',
      `
Examples:
  karmada-lite validate -f policies/        lint every document against the Karmada schemas
  karmada-lite crds | kubectl apply -f -    install the CRDs into a cluster
  karmada-lite version -o json              the version, for scripts
  source <(karmada-lite completion bash)    tab completion in this shell

Exit status: 0 success, 1 invalid input or a failed check, 2 usage error or unreadable input.`,
    )
    // -v is kubectl's verbosity (verbosity.ts); the version is --version, or `version -o json`.
    .version(VERSION, '--version', 'print the version number and exit')
    // Every command's --help lists -v too: it works on all of them. Set before the commands inherit the settings.
    .configureHelp({ showGlobalOptions: true });
  addVerbosityFlag(program);
  for (const register of await Promise.all(commandsFor(argv).map(([, load]) => load()))) register(program);
  const conventions = (cmd: Command) => {
    cmd.exitOverride().showHelpAfterError('(run with --help for usage)');
    cmd.commands.forEach(conventions);
  };
  conventions(program);
  return program;
}

let epipeHandled = false;

export async function main(argv: string[]): Promise<number> {
  // `karmada-lite crds | head` closes the pipe early; that is not an error worth a stack trace.
  if (!epipeHandled) {
    epipeHandled = true;
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw err;
    });
  }
  const program = await buildProgram(argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
      return 2;
    }
    process.stderr.write(`error: ${(err as Error).message}\n`);
    return 2;
  }
}

// `tsx src/cli/main.ts ...` from a checkout; bundles and bin/ start from entry.ts instead.
if (process.argv[1] && /main\.ts$/.test(process.argv[1])) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
