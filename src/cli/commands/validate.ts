import type { Command } from 'commander';
import { InputError, readDocuments } from '../../io/documents.js';
import { formatLintResult, formatLintWarnings, lintDocuments, lintExitCode } from '../../validation/lint.js';
import { parseFeatureGates } from '../../validation/binding.js';
import { luaCompile } from '../../validation/lua-compile.js';

interface ValidateOptions {
  filename: string[];
  output: 'text' | 'json';
  quiet?: boolean;
  featureGates?: string;
  strict?: boolean;
}

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('Validate Karmada objects offline: schemas, defaulting and the admission webhook\'s rules (no cluster needed).')
    .requiredOption('-f, --filename <path...>', 'a file, a directory (every .yaml/.yml/.json below it) or - for standard input; repeatable')
    .option('-o, --output <format>', 'text or json', 'text')
    .option('-q, --quiet', 'print only errors, no summary line')
    .option('--feature-gates <gates>', 'Karmada alpha rules to turn on, e.g. MultiplePodTemplatesScheduling=true')
    .option('--strict', 'warnings are errors: a RIC script with a known trap (or a deprecated spelling) fails the check')
    .addHelpText(
      'after',
      `
Every document in multi-document YAML or JSON is checked. PropagationPolicy, ClusterPropagationPolicy,
OverridePolicy, ClusterOverridePolicy, ResourceBinding, ClusterResourceBinding, Work, Cluster and
ResourceInterpreterCustomization are checked as the API server would admit them on create: CRD
defaults and the mutating webhook first, then the schema, then the validating webhook's rules (the
same messages Karmada gives). ResourceInterpreterCustomizations must compile, and must not script an
operation that an earlier one in the input already scripts for the same target. Other Kubernetes
objects (resource templates) only need apiVersion, kind and metadata.name.

A document without metadata.namespace is checked as if applied with -n: the resource selectors'
namespaces are then not compared with the policy's. Deprecated spellings that defaulting rewrites
(purgeMode Immediately/Graciously) are accepted with a warning.

RIC scripts are also scanned for known traps: an xpcall message handler with a loop or recursion,
\`while true do\` (or \`repeat ... until false\`) with no break, return or error(), string.rep of a huge
constant, \`s = s .. s\` in a loop, a for loop to math.huge. Each is a warning naming the operation
and line; --strict makes warnings errors (exit 1).

Errors name the file, the document index, the object and the field:
  policy.yaml[2] PropagationPolicy default/nginx: spec.placement.replicaScheduling.replicaSchedulingType: must be one of Duplicated, Divided
  pp.yaml[0] PropagationPolicy default/web: spec.placement.spreadConstraints[0]: Invalid value: {"spreadByField":"cluster","minGroups":3,"maxGroups":2}: maxGroups lower than minGroups is not allowed

Exit status: 0 all valid, 1 something is invalid, 2 unreadable input (missing file, bad YAML,
unknown apiVersion/kind).

Examples:
  karmada-lite validate -f policies/
  kubectl get pp -A -o yaml | karmada-lite validate -f -
  karmada-lite validate -f pp.yaml -o json | jq '.[] | select(.status != "valid")'`,
    )
    .action((opts: ValidateOptions) => {
      if (opts.output !== 'text' && opts.output !== 'json') throw new InputError(`--output must be text or json, got ${opts.output}`);
      // An InputError (missing file, bad YAML) reaches main(), which prints it and exits 2.
      const docs = readDocuments(opts.filename);
      let gates;
      try {
        gates = parseFeatureGates(opts.featureGates);
      } catch (err) {
        process.stderr.write(`error: ${(err as Error).message}\n`);
        process.exitCode = 2;
        return;
      }
      const results = lintDocuments(docs, { gates, compileLua: luaCompile, strict: opts.strict });
      if (opts.output === 'json') {
        process.stdout.write(JSON.stringify(results, null, 2) + '\n');
      } else {
        results.forEach((r, i) => {
          for (const line of formatLintResult(r, docs[i]!.object)) process.stderr.write(line + '\n');
          for (const line of formatLintWarnings(r, docs[i]!.object)) process.stderr.write(line + '\n');
        });
        if (!opts.quiet) {
          const bad = results.filter((r) => r.status !== 'valid').length;
          const files = new Set(results.map((r) => r.file)).size;
          const warned = results.filter((r) => r.warnings.length > 0).length;
          process.stdout.write(`${results.length} document(s) in ${files} file(s): ${results.length - bad} valid, ${bad} invalid${warned ? `, ${warned} with warnings` : ''}\n`);
        }
      }
      process.exitCode = lintExitCode(results);
    });
}
