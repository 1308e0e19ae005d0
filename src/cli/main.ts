import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import { registerValidate } from './commands/validate.js';
import { registerCrds } from './commands/crds.js';
import { registerInterpret } from './commands/interpret.js';
import { registerWebhook } from './commands/webhook.js';
import { registerApiserver } from './commands/apiserver.js';
import { registerPlan } from './commands/plan.js';
import { registerController } from './commands/controller.js';
import { registerSimulate } from './commands/simulate.js';
import { registerVersion } from './commands/version.js';
import { registerCompletion } from './commands/completion.js';
import { registerDescribe } from './commands/describe.js';
import { registerGet } from './commands/get.js';
import { registerLogs } from './commands/logs.js';
import { registerExec } from './commands/exec.js';
import { addVerbosityFlag } from './verbosity.js';

// Exit codes scripts can rely on: 0 success, 1 the input is invalid / a check failed, 2 usage error or
// unreadable input. Commander's own parse errors therefore exit 2, not its default 1: every command of the
// tree throws them (exitOverride) to main(), which also maps an InputError thrown by an action to 2.
export function buildProgram(): Command {
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
  registerValidate(program);
  registerCrds(program);
  registerInterpret(program);
  registerWebhook(program);
  registerApiserver(program);
  registerPlan(program);
  registerController(program);
  registerSimulate(program);
  registerGet(program);
  registerDescribe(program);
  registerLogs(program);
  registerExec(program);
  registerVersion(program);
  registerCompletion(program);
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
  const program = buildProgram();
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
