import { existsSync, statSync } from 'node:fs';
import { Command, Option } from 'commander';
import { stringify } from 'yaml';
import { InputError, readDocuments } from '../../io/documents.js';
import { addInputFlags, readObjects, readOptionsFromFlags, type InputFlags } from '../input-flags.js';
import { addNamespaceFlag, applyNamespace, inputPaths } from '../input.js';
import { outputOption, parseOutput, printObjects, toJson, type Output } from '../output.js';
import { compileCheck } from '../../interpreter/check.js';
import { executeRule } from '../../interpreter/harness.js';
import { createInterpreter } from '../../interpreter/interpreter.js';
import { isRIC, ricName, targetOf } from '../../interpreter/ric.js';
import { runTestTree } from '../../interpreter/test-tree.js';
import { registerInterpretServe, runWebhookTests } from './interpret-serve.js';
import { isHealthCheckInput, runHealthCheckFile } from './interpret-health.js';
import { addInterpreterLibraryFlags, interpreterLibrariesFromFlags, type InterpreterLibraryFlags } from '../core-flags.js';
import { gvkString, OPERATIONS, parseOperation, unsupportedOperationMessage, type AggregatedStatusItem, type KubeObject, type RIC } from '../../interpreter/types.js';
import { errorMessage } from '../../json/error.js';

const HELP = `
Run and test the Lua scripts of ResourceInterpreterCustomizations (RICs) exactly as Karmada would.

Check that every script compiles (Lua 5.1, as Karmada's webhook checks it):
  karmada-lite interpret --check -f my-ric.yaml

Run one rule on an object and print its results as YAML:
  karmada-lite interpret -f my-ric.yaml --operation InterpretHealth --observed-file observed.yaml
  karmada-lite interpret -f my-ric.yaml --operation ReviseReplica --desired-file d.yaml --desired-replica 3
  karmada-lite interpret -f my-ric.yaml --operation AggregateStatus --desired-file d.yaml --status-file items.yaml
  karmada-lite interpret -f my-ric.yaml --operation Retain --desired-file d.yaml --observed-file o.yaml
  karmada-lite interpret my-ric.yaml --operation InterpretHealth --observed-file o.yaml -o jsonpath='{.healthy}'

Run one Argo CD health check, or the health checks of a tree, on an object (status, message, health):
  karmada-lite interpret -f argo-cd/resource_customizations/cert-manager.io/Certificate/health.lua --observed-file cert.yaml
  karmada-lite interpret --health-checks argo-cd/resource_customizations --operation InterpretHealth --observed-file cert.yaml

Run a rule of an interpreter library (Karmada's layout) on an object:
  karmada-lite interpret --interpreters thirdparty/ --operation InterpretReplica --desired-file cloneset.yaml

Run a test tree in Karmada's layout (<group>/<version>/<Kind>/customizations.yaml + testdata/*.yaml):
  karmada-lite interpret test my-customizations/
  karmada-lite interpret test conformance/interpreters      (dirs without customizations.yaml test the built-ins)
  karmada-lite interpret test argo-cd/resource_customizations   (Argo CD layout: health.lua + health_test.yaml)

Operations: ${OPERATIONS.join(', ')} (case-insensitive).
Retain needs --desired-file and --observed-file; every other operation needs exactly one of them.
Unlike karmadactl, a failing rule prints "Execute <Rule> error: ..." to stderr and exits 1.
Exit codes: 0 ok, 1 a script failed / a check or test failed, 2 usage error or unreadable input.`;

interface InterpretOptions extends InputFlags, InterpreterLibraryFlags {
  filename?: string[];
  namespace?: string;
  output: string;
  recursive?: boolean;
  check?: boolean;
  operation?: string;
  desiredFile?: string;
  observedFile?: string;
  statusFile?: string;
  desiredReplica?: string;
  budgetMs?: string;
}

function out(s: string): void {
  process.stdout.write(s);
}

function err(s: string): void {
  process.stderr.write(s);
}

function toYaml(v: unknown): string {
  const sortKeys = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sortKeys);
    if (x !== null && typeof x === 'object') {
      const o: Record<string, unknown> = {};
      for (const k of Object.keys(x).sort()) o[k] = sortKeys((x as Record<string, unknown>)[k]);
      return o;
    }
    return x;
  };
  return stringify(sortKeys(JSON.parse(JSON.stringify(v ?? null))), { indent: 2, indentSeq: false, lineWidth: 0 });
}

function parseBudget(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InputError(`--budget-ms must be a positive integer (milliseconds), got "${v}"`);
  return n;
}

function runCheck(files: string[], flags: InputFlags): number {
  const input = readObjects(files, flags);
  if (!input) return 1;
  const docs = input.documents;
  let failed = false;
  for (const doc of docs) {
    const o = doc.object as RIC & { apiVersion?: unknown; kind?: unknown };
    const raw = doc.object as Record<string, unknown>;
    const name = typeof o.metadata?.name === 'string' && o.metadata.name ? o.metadata.name : `${doc.file}[${doc.index}]`;
    out('-----------------------------------\n');
    out(`SOURCE: ${name}\n`);
    if (!isRIC(o)) {
      out(`not a ResourceInterpreterCustomization, got ${gvkString({ apiVersion: String(raw.apiVersion ?? ''), kind: String(raw.kind ?? '') })}\n`);
      failed = true;
      continue;
    }
    const t = targetOf(o);
    if (!t.kind) {
      out('target.kind no set\n');
      failed = true;
      continue;
    }
    if (!t.apiVersion) {
      out('target.apiVersion no set\n');
      failed = true;
      continue;
    }
    out(`TARGET: ${t.apiVersion} ${t.kind}\n`);
    out('RULERS:\n');
    const results = compileCheck(o);
    const width = Math.max(6, ...results.map((r) => `    ${r.rule}:`.length)) + 3;
    for (const r of results) {
      const label = `    ${r.rule}:`.padEnd(width);
      if (r.status === 'ERROR') {
        failed = true;
        out(`${label}ERROR: ${r.error.trim()}\n`);
      } else out(`${label}${r.status}\n`);
    }
  }
  return failed ? 1 : 0;
}

function singleObject(file: string | undefined, what: string, namespace: string | undefined): KubeObject | null {
  if (file === undefined) return null;
  const docs = applyNamespace(readDocuments([file]), namespace);
  if (docs.length > 1) throw new InputError(`${file}: --${what} must hold one object, found ${docs.length}`);
  return docs.length === 1 ? (docs[0]!.object as KubeObject) : null;
}

function runExecute(opts: InterpretOptions): number {
  if (isHealthCheckInput(opts.filename ?? [])) {
    const observed = singleObject(opts.observedFile, 'observed-file', opts.namespace);
    let r;
    try {
      r = runHealthCheckFile(opts.filename ?? [], { observed, operation: opts.operation, budgetMs: parseBudget(opts.budgetMs) });
    } catch (e) {
      if (e instanceof InputError) throw e;
      err(`Execute InterpretHealth error: ${errorMessage(e).trimEnd()}\n`);
      return 1;
    }
    const output = parseOutput(opts.output, EXECUTE_OUTPUTS);
    out(output.format === 'yaml' ? toYaml(r) : output.format === 'json' ? toJson(r) : printObjects([r], output));
    return 0;
  }
  if (!opts.operation) throw new InputError('operation is not set for executing (use --operation, e.g. --operation InterpretHealth)');
  const op = parseOperation(opts.operation);
  if (!op) throw new InputError(unsupportedOperationMessage(opts.operation));
  const rics = readDocuments(opts.filename ?? [], readOptionsFromFlags(opts))
    .map((d) => d.object)
    .filter(isRIC) as RIC[];
  const output = parseOutput(opts.output, EXECUTE_OUTPUTS);
  const desired = singleObject(opts.desiredFile, 'desired-file', opts.namespace);
  const observed = singleObject(opts.observedFile, 'observed-file', opts.namespace);
  const statusItems = opts.statusFile === undefined ? null : (readDocuments([opts.statusFile], { objects: false }).map((d) => d.object) as AggregatedStatusItem[]);
  let replicas = 0;
  if (opts.desiredReplica !== undefined) {
    replicas = Number(opts.desiredReplica);
    if (!Number.isInteger(replicas) || replicas < -2147483648 || replicas > 2147483647) {
      throw new InputError(`--desired-replica must be an int32, got "${opts.desiredReplica}"`);
    }
  }
  const libraries = interpreterLibrariesFromFlags(opts, (p) => err(`warning: ${p}\n`));
  const interp = createInterpreter({ customizations: rics, builtin: false, native: false, budgetMs: parseBudget(opts.budgetMs), ...libraries });
  if (op === 'InterpretHealth' && observed && interp.healthCheckFor({ apiVersion: String(observed.apiVersion ?? ''), kind: String(observed.kind ?? '') })) {
    // A --health-checks script answers: its status and message, not only a boolean.
    const d = interp.healthDetail(observed);
    if (d.error !== undefined) {
      err(`Execute ${op} error: ${d.error.trimEnd()}\n`);
      return 1;
    }
    const r = { health: d.health, message: d.message ?? '' };
    out(output.format === 'yaml' ? toYaml(r) : output.format === 'json' ? toJson(r) : printObjects([r], output));
    return 0;
  }
  let results: [string, unknown][];
  try {
    results = executeRule(interp, op, { desired, observed, statusItems, replicas });
  } catch (e) {
    err(`Execute ${op} error: ${(e as Error).message.trimEnd()}\n`);
    return 1;
  }
  out(formatResults(results, output));
  return 0;
}

const EXECUTE_OUTPUTS = ['yaml', 'json', 'jsonpath'] as const;

/**
 * A rule's results: yaml is karmadactl's listing, one document per result; json and jsonpath see one
 * object with a field per result name (retained, replica, healthy, ...).
 */
function formatResults(results: [string, unknown][], output: Output): string {
  if (output.format === 'yaml') return results.map(([name, value], i) => `---\n# [${i + 1}/${results.length}] ${name}:\n${toYaml(value)}`).join('');
  const byName = Object.fromEntries(results.map(([name, value]) => [name, JSON.parse(JSON.stringify(value ?? null)) as unknown]));
  return output.format === 'json' ? toJson(byName) : printObjects([byName], output);
}

export function registerInterpret(program: Command): void {
  const cmd = addNamespaceFlag(addInterpreterLibraryFlags(addInputFlags(program.command('interpret'))), 'with --operation: the namespace of a desired or observed object that names none, as kubectl apply -n')
    .addOption(outputOption(EXECUTE_OUTPUTS, 'how --operation prints its results'))
    .argument('[files...]', 'RIC files or directories (the same as -f)')
    .description('run, check and test ResourceInterpreterCustomization Lua scripts')
    .addHelpText('after', HELP)
    .option('-f, --filename <path...>', 'RIC files or directories (YAML or JSON; "-" reads stdin), or one Argo CD health.lua')
    .option('-R, --recursive', 'accepted for karmadactl compatibility; directories are always read recursively')
    .option('--check', 'compile every rule of every RIC and report PASS / UNSET / ERROR per rule')
    .option('--operation <op>', `rule to run: ${OPERATIONS.join(', ')}`)
    .option('--desired-file <path>', 'the desired object (the resource template)')
    .option('--observed-file <path>', 'the observed object (as a member cluster returns it)')
    .option('--status-file <path>', 'AggregatedStatusItem documents for AggregateStatus')
    .option('--desired-replica <n>', 'replica count for ReviseReplica', undefined)
    .addOption(new Option('--budget-ms <ms>', 'per-call time budget in milliseconds').default(undefined, '1000'))
    .action((files: string[], opts: InterpretOptions) => {
      // Rules may come from --interpreters / --health-checks alone.
      const fromLibraries = !opts.check && files.length === 0 && !opts.filename?.length && !!(opts.interpreters?.length || opts.healthChecks?.length);
      opts.filename = fromLibraries ? [] : inputPaths(files, opts.filename, 'karmada-lite interpret --check -f my-ric.yaml');
      process.exitCode = opts.check ? runCheck(opts.filename, opts) : runExecute(opts);
    });

  cmd
    .command('test')
    .description('run a customization test tree (Karmada layout) and compare results')
    .argument('<dir>', 'root of <group>/<version>/<Kind>/{customizations.yaml,testdata/*.yaml}')
    .option('-q, --quiet', 'print failures and the summary only')
    .addOption(new Option('--budget-ms <ms>', 'per-call time budget in milliseconds').default(undefined, '1000'))
    .option('--webhook <url>', 'run every case through this resource interpreter webhook (e.g. one `interpret serve` runs) instead of in-process')
    .option('--webhook-ca <file>', 'with --webhook: the CA certificate (PEM) that signed its certificate (default: the system roots)')
    .option('--compare-local', 'with --webhook: also run each case in-process and fail it where the webhook answers differently')
    .addHelpText(
      'after',
      `
Each testdata file holds YAML documents, one case each, with: name, description, operation, desiredObj,
observedObj, statusItems, inputReplicas, output (expected results by name: retained, replica, requires,
components, revised, status, aggregatedStatus, healthy, dependencies). A value "{{EXCLUDE}}" in output skips
that field. Extension: "error: <message>" expects the operation to fail with exactly that message.
A <group>/<version>/<Kind> directory without customizations.yaml tests the built-in interpreter for that kind
(with --interpreters DIR: that library first, as the controller would use it).
Argo CD-layout folders (<group>/<Kind>/health.lua + health_test.yaml + testdata/) in the tree run as Argo CD
runs them: {inputPath, healthStatus: {status, message}} per case, both compared exactly; extension
"error:" / "errorMatches:" beside inputPath expects the script to fail.
A file that cannot be read or parsed is a failed case with its path and the parser's message.
The run ends with "N passed, M failed" and exits 1 if anything failed.

Against a webhook (the same tree, the answers from the webhook; a failed call's message is its error):
  karmada-lite interpret serve -f my-customizations/ --cert-file tls.crt --key-file tls.key &
  karmada-lite interpret test my-customizations/ --webhook https://127.0.0.1:8445/interpret --webhook-ca ca.crt
  karmada-lite interpret test my-customizations/ --webhook https://127.0.0.1:8445/interpret --webhook-ca ca.crt --compare-local`,
    )
    .action(async (dir: string, opts: { quiet?: boolean; budgetMs?: string; webhook?: string; webhookCa?: string; compareLocal?: boolean }) => {
      if (!existsSync(dir)) throw new InputError(`${dir}: no such file or directory`);
      if (!statSync(dir).isDirectory()) throw new InputError(`${dir}: not a directory (give the root of a <group>/<version>/<Kind> tree)`);
      if (!opts.webhook && (opts.webhookCa || opts.compareLocal)) throw new InputError('--webhook-ca and --compare-local need --webhook <url>');
      // --interpreters is the parent command's flag (commander reads it on either side of "test").
      const library = interpreterLibrariesFromFlags({ interpreters: (cmd.opts() as InterpretOptions).interpreters }, (p) => err(`warning: ${p}\n`))?.library;
      const treeOpts = { log: (l: string) => out(`${l}\n`), verbose: !opts.quiet, budgetMs: parseBudget(opts.budgetMs), library };
      const r = opts.webhook ? await runWebhookTests(dir, { ...treeOpts, webhook: opts.webhook, webhookCa: opts.webhookCa, compareLocal: opts.compareLocal }) : runTestTree(dir, treeOpts);
      if (r.passed + r.failed === 0) {
        // A tree with nothing to run must not pass in CI: a wrong path or layout would look like success.
        err(`error: no test cases in ${dir}: expected <group>/<version>/<Kind>/testdata/*.yaml below it, one case per document (name, operation, desiredObj or observedObj, output); see --help\n`);
        process.exitCode = 1;
        return;
      }
      process.exitCode = r.failed > 0 ? 1 : 0;
    });
  registerInterpretServe(cmd);
  cmd.exitOverride();
}
