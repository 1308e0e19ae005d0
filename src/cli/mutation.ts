/**
 * What every command that writes (join, unjoin, cordon, taint, promote, apply ...) shares with kubectl's
 * writing verbs: `--dry-run=none|client|server` and `-o json|yaml|name`, and the one line per object kubectl
 * prints otherwise (`cluster.cluster.karmada.io/member1 cordoned`, `... (server dry run)`), so a GitOps user
 * can commit exactly what a command would make.
 */
import { Option, type Command } from 'commander';
import { InputError } from '../io/documents.js';
import { objectName, outputOption, parseOutput, printObjects, type KubeObject, type Output, type OutputName } from './output.js';

export type DryRun = 'none' | 'client' | 'server';

const DryRuns: readonly DryRun[] = ['none', 'client', 'server'];

/** `text` is kubectl's default for writing verbs: one `<kind>/<name> <verb>` line per object. */
export const MutationOutputFormats: readonly OutputName[] = ['text', 'json', 'yaml', 'name'];

/** Adds `--dry-run[=STRATEGY]` and `-o/--output` as kubectl's writing verbs have them. */
export function addMutationFlags(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        '--dry-run [strategy]',
        'none, client or server: client prints what would be written and sends nothing; server sends every write with dryRun=All, so admission (the webhook) checks it and nothing is stored. A bare --dry-run is client, as kubectl',
      ).default('none'),
    )
    .addOption(outputOption(MutationOutputFormats, 'json, yaml or name print the objects written (or, with --dry-run, those that would be)'));
}

/** The flag's value as commander gives it (true for a bare flag); anything else is a usage error naming the choices. */
export function parseDryRun(value: string | boolean | undefined): DryRun {
  if (value === undefined || value === false) return 'none';
  if (value === true) return 'client';
  if ((DryRuns as readonly string[]).includes(value)) return value as DryRun;
  throw new InputError(`--dry-run must be "none", "server", or "client", got ${JSON.stringify(value)}`);
}

export const parseMutationOutput = (value: string): Output => parseOutput(value, MutationOutputFormats);

/** The query a write carries: the server runs admission and stores nothing under dryRun=All. */
export const dryRunQuery = (dryRun: DryRun): Record<string, string> => (dryRun === 'server' ? { dryRun: 'All' } : {});

/** kubectl's suffix of the line a writing verb prints: `(dry run)` for client, `(server dry run)` for server. */
const dryRunSuffix = (dryRun: DryRun) => (dryRun === 'client' ? ' (dry run)' : dryRun === 'server' ? ' (server dry run)' : '');

/**
 * What a writing verb prints for the objects it wrote (or would write): `-o text` one line each with its verb
 * (`created`, `cordoned`, `unchanged` ...), any other format the objects themselves.
 */
export function printMutation(changes: ReadonlyArray<{ object: KubeObject; verb: string }>, out: Output, dryRun: DryRun): string {
  if (out.format === 'text') return changes.map((c) => `${objectName(c.object)} ${c.verb}${dryRunSuffix(dryRun)}\n`).join('');
  return printObjects(
    changes.map((c) => c.object),
    out,
  );
}
