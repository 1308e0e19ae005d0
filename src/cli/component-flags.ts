/**
 * The flags the controller and the agent share, as Karmada's controller-manager and agent share them:
 * the leader election's timing and identity, the server of /metrics, /healthz and /readyz, and the
 * worker threads of user Lua scripts. Each command adds its own `--leader-elect` (off for the
 * controller, on for the agent, as in Karmada) and the Lease's namespace and name.
 */
import type { Command } from 'commander';
import { parseDuration } from './core-flags.js';
import { poolMemoryBoundMiB, POOL_DEFAULTS } from '../interpreter/pool.js';

const MiB = 1024 * 1024;
const workerBoundMiB = poolMemoryBoundMiB({ ...POOL_DEFAULTS, size: 1 });

/** A flag's value as a whole number in [min, max]; the error names the flag and the range. */
export function wholeNumber(flag: string, v: string, min: number, max: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max) throw new Error(`${flag} must be a whole number from ${min} to ${max}, got ${v}`);
  return n;
}

export function addComponentFlags(cmd: Command): Command {
  return cmd
    .option('--leader-elect-lease-duration <duration>', 'how long a standby waits after the last renewal before taking over', '15s')
    .option('--leader-elect-retry-period <duration>', 'how often the leader renews and standbys retry', '2s')
    .option('--leader-elect-identity <id>', 'this replica\'s identity in the Lease (default: hostname_pid)')
    .option('--metrics-port <port>', 'port of /metrics, /healthz and /readyz', '8080')
    .option('--bind-address <address>', 'address of the metrics and probe server', '0.0.0.0')
    .option(
      '--interpreter-workers <n>',
      `worker threads that run the Lua scripts of user ResourceInterpreterCustomizations, off the event loop; 0 runs them in-process. Each worker may hold up to ${workerBoundMiB} MiB (heap caps plus the ${POOL_DEFAULTS.memoryLimitBytes / MiB} MiB per-call budget of heap and string memory): raise the pod's memory limit with the count`,
      String(POOL_DEFAULTS.workers),
    );
}

export interface ComponentFlags {
  leaderElectLeaseDuration: string;
  leaderElectRetryPeriod: string;
  leaderElectIdentity?: string;
  metricsPort: string;
  bindAddress: string;
  interpreterWorkers: string;
}

export function componentOptionsFromFlags(flags: ComponentFlags): { leaseDurationSeconds: number; retryPeriodMs: number; identity?: string; metricsPort: number; bindAddress: string; interpreterWorkers: number } {
  return {
    leaseDurationSeconds: parseDuration('--leader-elect-lease-duration', flags.leaderElectLeaseDuration) / 1000,
    retryPeriodMs: parseDuration('--leader-elect-retry-period', flags.leaderElectRetryPeriod),
    identity: flags.leaderElectIdentity,
    metricsPort: wholeNumber('--metrics-port', flags.metricsPort, 0, 65535),
    bindAddress: flags.bindAddress,
    interpreterWorkers: wholeNumber('--interpreter-workers', flags.interpreterWorkers, 0, 64),
  };
}
