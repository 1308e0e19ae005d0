import type { Command } from 'commander';
import { addCoreFlags, coreOptionsFromFlags, type CoreFlags } from '../core-flags.js';
import { InputError, listManifestFiles } from '../../io/documents.js';
import { formatSimulation, loadScenario, simulate, type SimulationResult } from '../../simulate/scenario.js';

export function registerSimulate(program: Command): void {
  addCoreFlags(
    program
      .command('simulate')
      .argument('<file...>', 'scenario files, or directories of them (every .yaml/.yml/.json below)')
      .description('Run scenarios (objects, then steps of applies, deletes, member status and clock advances, each with expectations) against the reconcile core the controller runs.'),
  )
    .addHelpText(
      'after',
      `
A scenario is one YAML file:

  name: nginx moves to member2 once it has been unhealthy on member1 for 60s
  clusters: [member1, member2]          # default member1..3, Ready; {name, region, zone, labels, ready: false}
  objects: [...]                        # templates, policies, overrides, RICs
  steps:
    - name: member1 turns unhealthy
      memberStatus: {cluster: member1, apiVersion: apps/v1, kind: Deployment, namespace: default, name: nginx, health: Unhealthy}
      advance: 61s                      # virtual time; without it the step just settles
      expect:
        bindings: [{metadata: {name: nginx-deployment, namespace: default}, spec: {clusters: [{name: member2}]}}]
        events: [{reason: EvictWorkloadFromClusterFailed}]   # or noEvents, works, members, absent, workCount

Step operations: apply, delete, memberApply, memberDelete, memberStatus, clusterStatus, clusterReady, advance.
Expectations match partially: only the fields written are compared, null means absent, lists match
item by item. The format is described in full in conformance/scenarios/README.md of the repository.
The decision flags below are the scenario's defaults; its own options (preemption,
gracefulEvictionTimeoutSeconds, ...) win over them.

Exit status: 0 every expectation held, 1 one failed (the step and the difference are printed),
2 usage error, or a file that cannot be read or is not a scenario.

Examples:
  karmada-lite simulate failover.yaml
  karmada-lite simulate scenarios/ --graceful-eviction-timeout 5m`,
    )
    .action((paths: string[], flags: CoreFlags) => {
      let core;
      try {
        core = coreOptionsFromFlags(flags);
      } catch (e) {
        throw new InputError((e as Error).message);
      }
      const files = paths.flatMap((p) => listManifestFiles(p));
      if (!files.length) throw new InputError(`no scenario files under ${paths.join(', ')} (looked for .yaml, .yml, .json)`);
      // Every file is read and checked before any runs: a typo in the last one is not found after minutes.
      const loaded = files.map((f) => ({ file: f, scenario: loadScenario(f) }));
      const results: SimulationResult[] = loaded.map((l) => simulate(l.file, l.scenario, core));
      process.stdout.write(formatSimulation(results));
      process.exitCode = results.some((r) => r.failure) ? 1 : 0;
    });
}
