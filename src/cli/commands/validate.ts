import type { Command } from 'commander';
import { InputError, readDocuments } from '../../io/documents.js';
import { formatLintResult, lintDocuments, lintExitCode } from '../../validation/lint.js';

interface ValidateOptions {
  filename: string[];
  output: 'text' | 'json';
  quiet?: boolean;
}

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('Validate Karmada objects offline against the karmada-lite schemas (no cluster needed).')
    .requiredOption('-f, --filename <path...>', 'a file, a directory (every .yaml/.yml/.json below it) or - for standard input; repeatable')
    .option('-o, --output <format>', 'text or json', 'text')
    .option('-q, --quiet', 'print only errors, no summary line')
    .addHelpText(
      'after',
      `
Every document in multi-document YAML or JSON is checked. PropagationPolicy, ClusterPropagationPolicy,
OverridePolicy, ClusterOverridePolicy, ResourceBinding, ClusterResourceBinding, Work, Cluster and
ResourceInterpreterCustomization are validated against their schemas; other Kubernetes objects
(resource templates) only need apiVersion, kind and metadata.name.

Errors name the file, the document index, the object and the field:
  policy.yaml[2] PropagationPolicy default/nginx: spec.placement.replicaScheduling.replicaSchedulingType: must be one of Duplicated, Divided

Exit status: 0 all valid, 1 something is invalid, 2 unreadable input (missing file, bad YAML,
unknown apiVersion/kind).

Examples:
  karmada-lite validate -f policies/
  kubectl get pp -A -o yaml | karmada-lite validate -f -
  karmada-lite validate -f pp.yaml -o json | jq '.[] | select(.status != "valid")'`,
    )
    .action((opts: ValidateOptions) => {
      if (opts.output !== 'text' && opts.output !== 'json') throw new InputError(`--output must be text or json, got ${opts.output}`);
      let docs;
      try {
        docs = readDocuments(opts.filename);
      } catch (err) {
        if (err instanceof InputError) {
          process.stderr.write(`error: ${err.message}\n`);
          process.exitCode = 2;
          return;
        }
        throw err;
      }
      const results = lintDocuments(docs);
      if (opts.output === 'json') {
        process.stdout.write(JSON.stringify(results, null, 2) + '\n');
      } else {
        results.forEach((r, i) => {
          for (const line of formatLintResult(r, docs[i]!.object)) process.stderr.write(line + '\n');
        });
        if (!opts.quiet) {
          const bad = results.filter((r) => r.status !== 'valid').length;
          const files = new Set(results.map((r) => r.file)).size;
          process.stdout.write(`${results.length} document(s) in ${files} file(s): ${results.length - bad} valid, ${bad} invalid\n`);
        }
      }
      process.exitCode = lintExitCode(results);
    });
}
