// How much longer than on a quiet 4-core machine a test may wait for a condition before it gives up. Tests
// wait on conditions, never on the clock; a timeout only bounds how long a broken test hangs, so it must be
// long enough on a loaded 2-core machine (load average 16 was seen) and still end a hung run.
//
// KARMADA_LITE_TEST_TIME_SCALE overrides it (e.g. 4 under valgrind or on a slow emulated machine).
import { availableParallelism, loadavg } from 'node:os';

function scale(): number {
  const given = Number(process.env.KARMADA_LITE_TEST_TIME_SCALE);
  if (given > 0) return given;
  const cores = availableParallelism();
  // Fewer cores, or more runnable work than cores when the run starts, both stretch every wait.
  return Math.min(8, Math.max(1, 4 / cores, loadavg()[0]! / cores));
}

export const TIME_SCALE = scale();

/** A timeout of `ms` on the reference machine, stretched for this one. */
export const scaled = (ms: number): number => Math.round(ms * TIME_SCALE);
