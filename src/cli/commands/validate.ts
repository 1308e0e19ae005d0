import type { Command } from 'commander';
import { InputError } from '../../io/documents.js';
import { addInputFlags, addKubernetesVersionFlag, kubernetesVersionFromFlag, readObjects, type InputFlags } from '../input-flags.js';
import { formatLintResult, formatLintWarnings, lintDocuments, lintExitCode } from '../../validation/lint.js';
import { parseFeatureGates } from '../../validation/binding.js';
import { luaCompile } from '../../validation/lua-compile.js';
import { addNamespaceFlag, applyNamespace, inputPaths } from '../input.js';

interface ValidateOptions extends InputFlags {
  filename?: string[];
  namespace?: string;
  kubernetesVersion?: string;
  output: 'text' | 'json';
  quiet?: boolean;
  featureGates?: string;
  strict?: boolean;
  allowNoExecuteTaintPolicy?: boolean;
}

export function registerValidate(program: Command): void {
  addNamespaceFlag(
    addKubernetesVersionFlag(addInputFlags(program.command('validate'))),
    'check namespaced objects that name no namespace as if in this one, as kubectl apply -n',
  )
    .description('Validate Karmada objects offline: schemas, defaulting and the admission webhook\'s rules (no cluster needed).')
    .argument('[files...]', 'files, directories or - (the same as -f)')
    .option('-f, --filename <path...>', 'a file, a directory (every .yaml/.yml/.json below it) or - for standard input; repeatable')
    .option('-o, --output <format>', 'text or json', 'text')
    .option('-q, --quiet', 'print only errors, no summary line')
    .option('--feature-gates <gates>', 'Karmada alpha rules to turn on, e.g. MultiplePodTemplatesScheduling=true')
    .option('--strict', 'warnings are errors: a RIC script with a known trap (or a deprecated spelling) fails the check')
    .option('--allow-no-execute-taint-policy', 'ClusterTaintPolicies may have NoExecute taints, as a webhook started with that flag admits them')
    .addHelpText(
      'after',
      `
Every document in multi-document YAML or JSON is checked. PropagationPolicy, ClusterPropagationPolicy,
OverridePolicy, ClusterOverridePolicy, ResourceBinding, ClusterResourceBinding, Work, Cluster and
ResourceInterpreterCustomization are checked as the API server would admit them on create: CRD
defaults and the mutating webhook first, then the schema, then the validating webhook's rules (the
same messages Karmada gives). ResourceInterpreterCustomizations must compile, and must not script an
operation that an earlier one in the input already scripts for the same target. Built-in Kubernetes
kinds (resource templates) are checked against the API schemas of --kubernetes-version, as kubeconform
-strict checks them: unknown fields, wrong types, missing required fields (the schemas are built in:
no network). Custom resources of other groups only need apiVersion, kind and metadata.name.

Input is read as kubectl gives it: a kind: List (or DeploymentList, ...) stands for its items, and
objects as the API server returns them (status, uid, resourceVersion, managedFields) are accepted.
Folders are read as real repositories hold them: kustomization.yaml, Helm charts (a folder with
Chart.yaml), values files, templates ({{ }}) and YAML that is not Kubernetes objects are skipped
with a notice on stderr. --skip-kinds and --ignore-filename-pattern leave out more, as kubeconform's
-skip and -ignore-filename-pattern do. No objects at all is an error (exit 1).

A document without metadata.namespace is checked as if applied with kubectl apply -n: the resource
selectors' namespaces are then not compared with the policy's. With -n NAMESPACE it is checked in that
namespace (one that names another namespace is an error, exit 2). Deprecated spellings that defaulting rewrites
(purgeMode Immediately/Graciously) are accepted with a warning.

RIC scripts are also scanned for known traps: an xpcall message handler with a loop or recursion,
\`while true do\` (or \`repeat ... until false\`) with no break, return or error(), string.rep of a huge
constant, \`s = s .. s\` in a loop, a for loop to math.huge. Each is a warning naming the operation
and line; --strict makes warnings errors (exit 1).

Errors name the file, the document index, the object and the field:
  policy.yaml[2] PropagationPolicy default/nginx: spec.placement.replicaScheduling.replicaSchedulingType: must be one of Duplicated, Divided
  pp.yaml[0] PropagationPolicy default/web: spec.placement.spreadConstraints[0]: Invalid value: {"spreadByField":"cluster","minGroups":3,"maxGroups":2}: maxGroups lower than minGroups is not allowed

Exit status: 0 all valid, 1 something is invalid, 2 unreadable input (missing file, bad YAML,
unknown apiVersion/kind). Input with no objects at all exits 1.

Examples:
  karmada-lite validate -f policies/
  karmada-lite validate pp.yaml op.yaml -n production
  kubectl get pp -A -o yaml | karmada-lite validate -f -
  karmada-lite validate -f deploy/ --skip-kinds Secret --ignore-filename-pattern '/tests?/'
  karmada-lite validate -f pp.yaml -o json | jq '.[] | select(.status != "valid")'`,
    )
    .action((files: string[], opts: ValidateOptions) => {
      if (opts.output !== 'text' && opts.output !== 'json') throw new InputError(`--output must be text or json, got ${opts.output}`);
      const kubernetesVersion = kubernetesVersionFromFlag(opts.kubernetesVersion);
      // An InputError (missing file, bad YAML) reaches main(), which prints it and exits 2.
      const input = readObjects(inputPaths(files, opts.filename, 'karmada-lite validate -f policies/'), opts);
      if (!input) return;
      const docs = applyNamespace(input.documents, opts.namespace);
      let gates;
      try {
        gates = parseFeatureGates(opts.featureGates, (m) => process.stderr.write(`warning: ${m}\n`));
      } catch (err) {
        process.stderr.write(`error: ${(err as Error).message}\n`);
        process.exitCode = 2;
        return;
      }
      const results = lintDocuments(docs, { gates, compileLua: luaCompile, strict: opts.strict, kubernetesVersion, allowNoExecuteTaintPolicy: opts.allowNoExecuteTaintPolicy === true });
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
          const skipped = input.skipped.length;
          process.stdout.write(`${results.length} document(s) in ${files} file(s): ${results.length - bad} valid, ${bad} invalid${warned ? `, ${warned} with warnings` : ''}${skipped ? `, ${skipped} skipped` : ''}\n`);
        }
      }
      process.exitCode = lintExitCode(results);
    });
}
