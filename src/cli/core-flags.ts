/**
 * The flags that change a decision of the reconcile core. `controller` and `plan` (and `simulate`) add
 * them from this one list, so that an offline plan predicts what the controller does with the same
 * defaults: a decision flag that exists on one and not the other is a bug.
 */
import type { Command } from 'commander';
import { DefaultClusterFailureThresholdSeconds, DefaultGracefulEvictionTimeoutSeconds } from '../api/constants.js';
import { coreGateOptions, CoreFeatureGates } from '../api/feature-gates.js';
import type { CoreOptions } from '../core/ports.js';

/** Go-style durations as Karmada's flags take them: 5ms, 1000s, 1m30s; a bare number is seconds. Milliseconds. */
export function parseDuration(flag: string, v: string): number {
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(v))) {
    total += Number(m[1]) * unit[m[2]!]!;
    end = re.lastIndex;
  }
  if (end !== v.length || end === 0) throw new Error(`${flag} must be a duration like 5ms, 10s or 1m, got ${v}`);
  return total;
}

/** The parsed values commander hands over for the flags below. */
export interface CoreFlags {
  featureGates?: string;
  clusterFailureThreshold: string;
  gracefulEvictionTimeout: string;
}

/** Adds every decision flag, with Karmada's defaults, to a command. */
export function addCoreFlags(cmd: Command): Command {
  return cmd
    .option('--feature-gates <gates>', `core gates, e.g. PropagationPolicyPreemption=true (known: ${CoreFeatureGates.join(', ')}; off by default, as in Karmada)`)
    .option(
      '--cluster-failure-threshold <duration>',
      'how long a cluster may stay not ready before it gets the NoExecute taint that evicts its workloads',
      `${DefaultClusterFailureThresholdSeconds}s`,
    )
    .option('--graceful-eviction-timeout <duration>', 'how long a gracefully evicted cluster keeps its copy when the new placement never becomes healthy', `${DefaultGracefulEvictionTimeoutSeconds}s`);
}

/** The core options of those flags; throws a message that names the flag. */
export function coreOptionsFromFlags(flags: CoreFlags): Partial<CoreOptions> {
  let gates;
  try {
    gates = coreGateOptions(flags.featureGates);
  } catch (e) {
    throw new Error(`--feature-gates: ${(e as Error).message}`);
  }
  const failureThresholdMs = parseDuration('--cluster-failure-threshold', flags.clusterFailureThreshold);
  if (failureThresholdMs < 1000) {
    throw new Error(`--cluster-failure-threshold must be at least 1s (a shorter one would evict on a single failed probe), got ${flags.clusterFailureThreshold}`);
  }
  const gracefulMs = parseDuration('--graceful-eviction-timeout', flags.gracefulEvictionTimeout);
  return { ...gates, clusterFailureThresholdSeconds: failureThresholdMs / 1000, gracefulEvictionTimeoutSeconds: gracefulMs / 1000 };
}
