/**
 * The flags that change a decision of the reconcile core. `controller` and `plan` (and `simulate`) add
 * them from this one list, so that an offline plan predicts what the controller does with the same
 * defaults: a decision flag that exists on one and not the other is a bug.
 */
import { existsSync } from 'node:fs';
import { InputError } from '../io/documents.js';
import { Option, type Command } from 'commander';
import {
  DefaultClusterFailureThresholdSeconds,
  DefaultDeschedulingIntervalSeconds,
  DefaultGracefulEvictionTimeoutSeconds,
  DefaultNoExecuteTaintEvictionPurgeMode,
  DefaultSkippedPropagatingNamespacesFlag,
  DefaultUnschedulableThresholdSeconds,
  PurgeModeDirectly,
  PurgeModeGracefully,
} from '../api/constants.js';
import { coreGateOptions, CoreFeatureGates } from '../api/feature-gates.js';
import { coreControllers, selectControllers } from '../core/controllers.js';
import { compileSkippedNamespaces } from '../core/namespace.js';
import { parseGoDuration } from '../core/duration.js';
import { withCoreDefaults, type CoreOptions } from '../core/ports.js';
import { loadInterpreterLibraries, type InterpreterLibraries } from '../interpreter/library.js';

/** Go-style durations as Karmada's flags take them: 5ms, 1000s, 1m30s; a bare number is seconds. Milliseconds. */
export function parseDuration(flag: string, v: string): number {
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const ms = parseGoDuration(v);
  if (ms === undefined) throw new Error(`${flag} must be a duration like 5ms, 10s or 1m, got ${v}`);
  return ms;
}

/** The parsed values commander hands over for the flags below. */
export interface CoreFlags {
  featureGates?: string;
  clusterFailureThreshold: string;
  gracefulEvictionTimeout: string;
  /** Optional so that callers built before the descheduler flags keep compiling; commander always sets them. */
  deschedulingInterval?: string;
  unschedulableThreshold?: string;
  /** Optional for the same reason: commander always sets them. */
  skippedPropagatingNamespaces?: string;
  /** true for the bare flag, the text after `=` otherwise, undefined when not given. */
  enableNoExecuteTaintEviction?: boolean | string;
  noExecuteTaintEvictionPurgeMode?: string;
  /** Optional for the same reason: commander always sets it. */
  controllers?: string;
  /** true for the bare flag, the text after `=` otherwise, undefined when not given. */
  enableSchedulerEstimator?: boolean | string;
}

/** Adds every decision flag, with Karmada's defaults, to a command. */
export function addCoreFlags(cmd: Command): Command {
  return cmd
    .option('--controllers <list>', 'controllers to run: * for all, -name to turn one off (e.g. "*,-application-failover")', '*')
    .option('--feature-gates <gates>', `Karmada's gates, e.g. PropagationPolicyPreemption=true or AllAlpha=true,AllBeta=true (followed: ${CoreFeatureGates.join(', ')}; off by default as in Karmada, but Failover, on here; other Karmada gates are accepted with a warning)`)
    .option(
      '--cluster-failure-threshold <duration>',
      'how long a cluster may stay not ready before it gets the NoExecute taint that evicts its workloads',
      `${DefaultClusterFailureThresholdSeconds}s`,
    )
    .option('--graceful-eviction-timeout <duration>', 'how long a gracefully evicted cluster keeps its copy when the new placement never becomes healthy', `${DefaultGracefulEvictionTimeoutSeconds}s`)
    .option(
      '--descheduling-interval <duration>',
      'how often the descheduler looks again at a Deployment divided by available replicas whose replicas are not all ready (0: every second)',
      `${DefaultDeschedulingIntervalSeconds / 60}m`,
    )
    .option(
      '--unschedulable-threshold <duration>',
      'how long a replica must stay unschedulable on a member before the descheduler moves it to clusters with room',
      `${DefaultUnschedulableThresholdSeconds / 60}m`,
    )
    .option(
      '--skipped-propagating-namespaces <regexps>',
      'comma-separated namespaces (each an anchored regular expression) the namespace controller and the detector leave alone; karmada-system, karmada-cluster, karmada-es-* and default are always skipped',
      DefaultSkippedPropagatingNamespacesFlag,
    )
    .option(
      '--enable-no-execute-taint-eviction [bool]',
      'NoExecute taints evict every binding that does not tolerate them, and only ClusterTaintPolicies and users add NoExecute taints (current Karmada); =false: no NoExecute eviction at all. Not given: the v1.2-style default, see README "Taint eviction"',
    )
    .option(
      '--enable-scheduler-estimator [bool]',
      "the accurate estimator (replicas that fit on each member's Nodes, in process over the members' Nodes and Pods) beside the resource summary, for dynamic weights, Aggregated and the descheduler; on unless =false (Karmada's flag is off by default and needs a karmada-scheduler-estimator per member)",
    )
    .addOption(purgeModeOption());
}

/** `--interpreters` and `--health-checks`, as commander collects them (each repeatable). */
export interface InterpreterLibraryFlags {
  interpreters?: string[];
  healthChecks?: string[];
}

const collect = (v: string, prev: string[] | undefined): string[] => [...(prev ?? []), v];

/** Adds the interpreter library flags (controller, plan, interpret): declared here once. */
export function addInterpreterLibraryFlags(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--interpreters <dir>', 'a tree of RICs in Karmada\'s layout (<group>/<version>/<Kind>/customizations.yaml), loaded as the third-party layer: after the cluster\'s RICs, before the built-ins; repeatable').argParser(collect),
    )
    .addOption(
      new Option('--health-checks <dir>', 'a tree of Argo CD health checks (<group>/<Kind>/health.lua, _ wildcard folders) used as InterpretHealth for the kinds it covers; repeatable').argParser(collect),
    );
}

/**
 * Loads the trees the flags name. A folder that does not exist is a usage error (thrown, naming the
 * flag); a file in it that does not load is a problem handed to `warn`, and the rest loads.
 */
export function interpreterLibrariesFromFlags(flags: InterpreterLibraryFlags, warn: (line: string) => void): Pick<InterpreterLibraries, 'library' | 'healthChecks'> | undefined {
  const interpreters = flags.interpreters ?? [];
  const healthChecks = flags.healthChecks ?? [];
  if (interpreters.length === 0 && healthChecks.length === 0) return undefined;
  for (const [flag, dirs] of [['--interpreters', interpreters], ['--health-checks', healthChecks]] as const) {
    for (const d of dirs) if (!existsSync(d)) throw new InputError(`${flag} ${d}: no such file or directory`);
  }
  const loaded = loadInterpreterLibraries(interpreters, healthChecks);
  for (const p of loaded.problems) warn(p);
  return { library: loaded.library, healthChecks: loaded.healthChecks };
}

/** Karmada's flag name starts with `no-`, which commander would read as the negation of a boolean. */
function purgeModeOption(): Option {
  const o = new Option(
    '--no-execute-taint-eviction-purge-mode <mode>',
    'Gracefully or Directly: how a NoExecute eviction removes a binding without failover.cluster in its policy (with --enable-no-execute-taint-eviction)',
  ).default(DefaultNoExecuteTaintEvictionPurgeMode);
  o.negate = false;
  return o;
}

/** A Go-style boolean flag value: the bare flag is true. */
function boolFlag(flag: string, v: boolean | string | undefined): boolean | undefined {
  if (v === undefined || typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new Error(`${flag} must be true or false, got ${v}`);
}

/** The core options of those flags; throws a message that names the flag. */
export function coreOptionsFromFlags(flags: CoreFlags, onGateWarning: (message: string) => void = (m) => process.stderr.write(`warning: ${m}\n`)): Partial<CoreOptions> {
  let parsed;
  try {
    parsed = coreGateOptions(flags.featureGates);
  } catch (e) {
    // pflag's words for a value its flag refused, as Karmada's components print them.
    throw new Error(`invalid argument ${JSON.stringify(flags.featureGates)} for "--feature-gates" flag: ${(e as Error).message}`);
  }
  const { warning, ...gates } = parsed;
  if (warning) onGateWarning(warning);
  const failureThresholdMs = parseDuration('--cluster-failure-threshold', flags.clusterFailureThreshold);
  if (failureThresholdMs < 1000) {
    throw new Error(`--cluster-failure-threshold must be at least 1s (a shorter one would evict on a single failed probe), got ${flags.clusterFailureThreshold}`);
  }
  const gracefulMs = parseDuration('--graceful-eviction-timeout', flags.gracefulEvictionTimeout);
  const descheduler: Partial<CoreOptions> = {};
  if (flags.deschedulingInterval !== undefined) descheduler.deschedulingIntervalSeconds = parseDuration('--descheduling-interval', flags.deschedulingInterval) / 1000;
  if (flags.unschedulableThreshold !== undefined) descheduler.unschedulableThresholdSeconds = parseDuration('--unschedulable-threshold', flags.unschedulableThreshold) / 1000;
  const estimator = boolFlag('--enable-scheduler-estimator', flags.enableSchedulerEstimator);
  if (estimator !== undefined) descheduler.schedulerEstimator = estimator;
  const taints: Partial<CoreOptions> = {};
  const enable = boolFlag('--enable-no-execute-taint-eviction', flags.enableNoExecuteTaintEviction);
  if (enable !== undefined) taints.enableNoExecuteTaintEviction = enable;
  if (flags.noExecuteTaintEvictionPurgeMode !== undefined) {
    const mode = flags.noExecuteTaintEvictionPurgeMode;
    if (mode !== PurgeModeGracefully && mode !== PurgeModeDirectly) throw new Error(`--no-execute-taint-eviction-purge-mode must be Gracefully or Directly, got ${mode}`);
    taints.noExecuteTaintEvictionPurgeMode = mode;
  }
  if (flags.skippedPropagatingNamespaces !== undefined) {
    try {
      taints.skippedPropagatingNamespaces = compileSkippedNamespaces(flags.skippedPropagatingNamespaces.split(',').map((s) => s.trim()).filter(Boolean));
    } catch (e) {
      throw new Error(`--skipped-propagating-namespaces: ${(e as Error).message}`);
    }
  }
  const selection: Partial<CoreOptions> = {};
  if (flags.controllers !== undefined) {
    const list = flags.controllers.split(',').map((s) => s.trim()).filter(Boolean);
    try {
      selectControllers(coreControllers(withCoreDefaults()), list);
    } catch (e) {
      throw new Error(`--controllers: ${(e as Error).message}`);
    }
    selection.controllers = list;
  }
  return { ...gates, clusterFailureThresholdSeconds: failureThresholdMs / 1000, gracefulEvictionTimeoutSeconds: gracefulMs / 1000, ...descheduler, ...taints, ...selection };
}
