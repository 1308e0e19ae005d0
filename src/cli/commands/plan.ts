import type { Command } from 'commander';
import { addCoreFlags, addInterpreterLibraryFlags, coreOptionsFromFlags, interpreterLibrariesFromFlags, type CoreFlags, type InterpreterLibraryFlags } from '../core-flags.js';
import { InputError, readDocuments, type SourceDocument } from '../../io/documents.js';
import { addInputFlags, addKubernetesVersionFlag, kubernetesVersionFromFlag, readObjects, readOptionsFromFlags, type InputFlags } from '../input-flags.js';
import { formatPlanJson, formatPlanYaml, planObjects, planStart, planWithWebhooks, type PlanOptions, type PlanResult } from '../../store/plan.js';
import { formatPlanTable } from '../../store/plan-table.js';
import { diffPlans, formatPlanDiff, planToCompare, type PlanChange } from '../../store/plan-diff.js';
import { planProgress } from '../plan-progress.js';
import { addNamespaceFlag, applyNamespace, inputPaths } from '../input.js';
import { outputOption, parseOutput, printObjects, type KubeObject } from '../output.js';
import { CLUSTER, is } from '../../core/kinds.js';
import type { KObject } from '../../core/object.js';
import { fleetInputOfPlan, fleetReport } from '../../report/model.js';
import { reportHtml } from '../../report/html.js';
import { parseGoDuration } from '../../core/duration.js';

interface PlanFlags extends CoreFlags, InputFlags, InterpreterLibraryFlags {
  filename?: string[];
  namespace?: string;
  kubernetesVersion?: string;
  clusters?: string[];
  status?: string[];
  output: string;
  at?: string;
  runFor?: string;
  showManagedFields?: boolean;
  diffAgainst?: string[];
  exitCode?: boolean;
}

/** `30s`, `5m`, `1h30m`, or plain seconds; in seconds. */
function parseDuration(v: string): number {
  const t = v.trim();
  const ms = /^\d+(\.\d+)?$/.test(t) ? Number(t) * 1000 : parseGoDuration(t);
  if (ms === undefined) throw new InputError(`--run-for: ${v} is not a duration; use seconds or a number with s, m or h (e.g. 300, 5m, 1h30m)`);
  return ms / 1000;
}

const PLAN_OUTPUTS = ['yaml', 'json', 'table', 'wide', 'name', 'jsonpath', 'custom-columns', 'html'] as const;

/** `-o html`: the fleet report (src/report/), with the change from OLD marked when --diff-against gave one. */
function planHtml(r: PlanResult, docs: SourceDocument[], diff?: PlanChange[]): string {
  const clusters = docs.map((d) => d.object as unknown as KObject).filter((o) => is(o, CLUSTER));
  return reportHtml(fleetReport(fleetInputOfPlan(r, clusters, diff)));
}

export function registerPlan(program: Command): void {
  addNamespaceFlag(
    addCoreFlags(
      addInterpreterLibraryFlags(addKubernetesVersionFlag(addInputFlags(program.command('plan'))))
        .description('Show what Karmada would do with these templates and policies: bindings, schedule, Works, member manifests, status and events.'),
    ),
  )
    .argument('[files...]', 'files, directories or - (the same as -f)')
    .option('-f, --filename <path...>', 'templates, policies, overrides, RICs (and Clusters): files, directories or - ; repeatable')
    .option('--clusters <path...>', 'Cluster objects of the fleet to plan against (may also come with -f)')
    .option('--status <path...>', 'simulated member state: {cluster, apiVersion, kind, namespace, name, health: Healthy|Unhealthy} or {..., status: {...}}')
    .addOption(outputOption(PLAN_OUTPUTS, 'wide adds each row\'s binding and Work; html is one self-contained page (templates by clusters, filters, manifests; with --diff-against, the changes marked); name and custom-columns list the bindings and Works the plan makes; jsonpath sees the plan as -o json prints it'))
    .option('--at <time>', 'the time the plan runs at (RFC 3339); default now: pin it (e.g. 2024-01-01T00:00:00Z) for output that is the same on every run')
    .option('--run-for <duration>', 'let this much virtual time pass after loading (tolerations, grace periods), e.g. 10m')
    .option('--show-managed-fields', 'YAML: keep what the server stamps on every object (uid, resourceVersion, creationTimestamp, managedFields)')
    .option('--diff-against <path...>', 'print what changes from OLD instead of the plan: OLD is a saved `plan -o json`, or inputs planned the same way (same --clusters, --status, --at)')
    .option('--exit-code', 'with --diff-against: exit 1 when something changes, 0 when nothing does, 2 on any error (like git diff --exit-code)')
    .addHelpText(
      'after',
      `
Everything is loaded into an embedded control plane with simulated member clusters (workloads roll
out healthy unless --status says otherwise); the reconcile core runs until nothing changes. Input is
validated first, as the webhooks would: unknown kinds, invalid objects and dangling references
(dependentOverrides) fail with the file and document index; built-in kinds are checked
against the Kubernetes API schemas of --kubernetes-version, as \`validate\` checks them.

Input is read as kubectl gives it (kind: List, live objects with status, uid and resourceVersion) and
folders as repositories hold them (kustomization.yaml, Helm charts and templates, non-Kubernetes YAML
are skipped with a notice); --skip-kinds and --ignore-filename-pattern leave out more. No objects at
all is an error (exit 1).

A cluster name the fleet lacks is not refused: the plan goes on as the controller would (no cluster of
that name fits; NoClusterFit when none is left) and a warning names it.

The plan runs at the current time unless --at pins it; pin it for output that is the same on every run.
The table says why a template or cluster is absent: no policy matches, or the scheduler's reason for
a cluster it filtered out (taint, affinity, spread), with the image and the overrides that applied.
Plans that take more than a few seconds show progress on stderr when it is a terminal.

Exit status: 0 planned, 1 invalid input or dangling reference, 2 unreadable input or unknown kind.
With --diff-against and --exit-code: 0 no change, 1 changes, 2 any error.

Examples:
  karmada-lite plan -f examples/
  karmada-lite plan -f app.yaml --clusters fleet.yaml -o table
  karmada-lite plan app.yaml --clusters fleet.yaml -n staging         # objects without a namespace go to staging
  karmada-lite plan -f examples/ -o jsonpath='{range .works[*]}{.cluster}{" "}{.name}{"\\n"}{end}'
  karmada-lite plan -f examples/ --status unhealthy.yaml --run-for 15m -o table
  karmada-lite plan -f examples/ --at 2024-01-01T00:00:00Z -o yaml     # the same output on every run
  karmada-lite plan -f examples/ -o html > fleet.html                   # one page to open or attach to a pull request

  # Review a change: what the edited policies change, per template and cluster
  karmada-lite plan -f examples/ -o json > before.json
  karmada-lite plan -f edited/ --clusters examples/fleet --diff-against before.json
  karmada-lite plan -f new/ --clusters fleet.yaml --diff-against old/ --exit-code   # CI: 1 when it changes`,
    )
    .action(async (files: string[], flags: PlanFlags) => {
      // An InputError (bad flag value, missing file, bad YAML) reaches main(), which prints it and exits 2.
      const output = parseOutput(flags.output, PLAN_OUTPUTS);
      let at: Date | undefined;
      if (flags.at !== undefined) {
        at = new Date(flags.at);
        if (Number.isNaN(at.getTime())) throw new InputError(`--at: ${flags.at} is not a time; use RFC 3339, e.g. 2024-07-01T08:00:00Z`);
      }
      let core;
      let interpreterLibraries;
      try {
        core = coreOptionsFromFlags(flags);
        interpreterLibraries = interpreterLibrariesFromFlags(flags, (p) => process.stderr.write(`warning: ${p}\n`));
      } catch (e) {
        throw new InputError((e as Error).message);
      }
      if (flags.exitCode && !flags.diffAgainst) throw new InputError('--exit-code needs --diff-against OLD: it reports whether the plan changed from OLD');
      const runForSeconds = flags.runFor !== undefined ? parseDuration(flags.runFor) : undefined;
      const kubernetesVersion = kubernetesVersionFromFlag(flags.kubernetesVersion);
      // -f alone must hold objects: a failed `kubectl get` upstream must not pass as an empty plan of the fleet.
      const input = readObjects(inputPaths(files, flags.filename, 'karmada-lite plan -f examples/'), flags);
      if (!input) return;
      const fleet = flags.clusters ? readDocuments(flags.clusters, readOptionsFromFlags(flags)) : [];
      const docs: SourceDocument[] = applyNamespace([...input.documents, ...fleet], flags.namespace);
      // --status entries are not Kubernetes objects: nothing in them is skipped as "not an object".
      const status = flags.status ? readDocuments(flags.status, { objects: false }) : undefined;
      // One time for both sides of a diff, so timestamps alone never count as a change.
      const opts: PlanOptions = { at: planStart(at), runForSeconds, status, core, kubernetesVersion, interpreterLibraries };
      const failed = (problems: string[], code: 1 | 2, side = '') => {
        for (const p of problems) process.stderr.write(`${side}${p}\n`);
        process.exitCode = flags.exitCode ? 2 : code;
      };
      const progress = planProgress();
      let outcome;
      try {
        outcome = await planWithWebhooks(docs, { ...opts, onProgress: progress.onProgress });
      } finally {
        progress.stop();
      }
      if (!outcome.ok) return failed(outcome.problems, outcome.exitCode);
      const r = outcome.result;
      for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
      if (flags.diffAgainst) {
        const old = planToCompare(applyNamespace(readDocuments(flags.diffAgainst, { ...readOptionsFromFlags(flags), objects: false }), flags.namespace), flags.clusters ? readDocuments(flags.clusters) : [], opts);
        if (!old.ok) return failed(old.problems, old.exitCode, '--diff-against: ');
        const changes = diffPlans(old.result, r);
        if (output.format === 'html') {
          process.stdout.write(planHtml(r, docs, changes));
          process.exitCode = flags.exitCode && changes.length ? 1 : 0;
          return;
        }
        process.stdout.write(flags.output === 'json' ? JSON.stringify(changes, null, 2) + '\n' : formatPlanDiff(changes));
        process.exitCode = flags.exitCode && changes.length ? 1 : 0;
        return;
      }
      if (output.format === 'name' || output.format === 'custom-columns') {
        process.stdout.write(printObjects(planObjects(r) as KubeObject[], output));
        process.exitCode = 0;
        return;
      }
      if (output.format === 'jsonpath') {
        process.stdout.write(printObjects([JSON.parse(formatPlanJson(r)) as Record<string, unknown>], output));
        process.exitCode = 0;
        return;
      }
      if (output.format === 'html') {
        process.stdout.write(planHtml(r, docs));
        process.exitCode = 0;
        return;
      }
      const text = flags.output === 'json' ? formatPlanJson(r) : flags.output === 'table' || flags.output === 'wide' ? formatPlanTable(r, { wide: flags.output === 'wide' }) : formatPlanYaml(r, { showManagedFields: flags.showManagedFields });
      process.stdout.write(text);
      process.exitCode = 0;
    });
}
