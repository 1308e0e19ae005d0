import type { Command } from 'commander';
import { addCoreFlags, coreOptionsFromFlags, type CoreFlags } from '../core-flags.js';
import { InputError, readDocuments, type SourceDocument } from '../../io/documents.js';
import { formatPlanJson, formatPlanTable, formatPlanYaml, plan } from '../../store/plan.js';

interface PlanFlags extends CoreFlags {
  filename: string[];
  clusters?: string[];
  status?: string[];
  output: string;
  at?: string;
  runFor?: string;
}

/** `30s`, `5m`, `2h`, or plain seconds. */
function parseDuration(v: string): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(v.trim());
  if (!m) throw new InputError(`--run-for: ${v} is not a duration; use seconds or a number with s, m or h (e.g. 300, 5m)`);
  const n = Number(m[1]);
  return m[2] === 'h' ? n * 3600 : m[2] === 'm' ? n * 60 : n;
}

export function registerPlan(program: Command): void {
  addCoreFlags(
    program
      .command('plan')
      .description('Show what Karmada would do with these templates and policies: bindings, schedule, Works, member manifests, status and events.'),
  )
    .requiredOption('-f, --filename <path...>', 'templates, policies, overrides, RICs (and Clusters): files, directories or - ; repeatable')
    .option('--clusters <path...>', 'Cluster objects of the fleet to plan against (may also come with -f)')
    .option('--status <path...>', 'simulated member state: {cluster, apiVersion, kind, namespace, name, health: Healthy|Unhealthy} or {..., status: {...}}')
    .option('-o, --output <format>', 'yaml, json or table', 'yaml')
    .option('--at <time>', 'the time the plan runs at (RFC 3339); default 2024-01-01T00:00:00Z so output is reproducible')
    .option('--run-for <duration>', 'let this much virtual time pass after loading (tolerations, grace periods), e.g. 10m')
    .addHelpText(
      'after',
      `
Everything is loaded into an embedded control plane with simulated member clusters (workloads roll
out healthy unless --status says otherwise); the reconcile core runs until nothing changes. Input is
validated first, as the webhooks would: unknown kinds, invalid objects and dangling references
(cluster names, dependentOverrides) fail with the file and document index.

Exit status: 0 planned, 1 invalid input or dangling reference, 2 unreadable input or unknown kind.

Examples:
  karmada-lite plan -f examples/
  karmada-lite plan -f app.yaml --clusters fleet.yaml -o table
  karmada-lite plan -f examples/ --status unhealthy.yaml --run-for 15m -o table`,
    )
    .action((flags: PlanFlags) => {
      // An InputError (bad flag value, missing file, bad YAML) reaches main(), which prints it and exits 2.
      if (!['yaml', 'json', 'table'].includes(flags.output)) throw new InputError(`--output must be yaml, json or table, got ${flags.output}`);
      let at: Date | undefined;
      if (flags.at !== undefined) {
        at = new Date(flags.at);
        if (Number.isNaN(at.getTime())) throw new InputError(`--at: ${flags.at} is not a time; use RFC 3339, e.g. 2024-07-01T08:00:00Z`);
      }
      let core;
      try {
        core = coreOptionsFromFlags(flags);
      } catch (e) {
        throw new InputError((e as Error).message);
      }
      const runForSeconds = flags.runFor !== undefined ? parseDuration(flags.runFor) : undefined;
      const docs: SourceDocument[] = readDocuments([...flags.filename, ...(flags.clusters ?? [])]);
      const status = flags.status ? readDocuments(flags.status) : undefined;
      const outcome = plan(docs, { at, runForSeconds, status, core });
      if (!outcome.ok) {
        for (const p of outcome.problems) process.stderr.write(`${p}\n`);
        process.exitCode = outcome.exitCode;
        return;
      }
      const r = outcome.result;
      const text = flags.output === 'json' ? formatPlanJson(r) : flags.output === 'table' ? formatPlanTable(r) : formatPlanYaml(r);
      process.stdout.write(text);
      for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
      process.exitCode = 0;
    });
}
