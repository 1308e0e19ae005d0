/**
 * The resource models a Cluster has in Karmada when its spec names none: Karmada's registry fills in
 * these nine grades on create (feature gate CustomizedClusterResourceModeling, Beta, on), and sorts the
 * grades a user gives, with the first grade's minimums at zero. A karmada-lite Cluster is a CRD object
 * that nothing defaults, so the status controller and the general estimator both read its models through
 * `effectiveResourceModels`, which gives what Karmada's stored object would hold.
 */
import type { ResourceModel } from './types.js';

/** Go's math.MaxInt64 as text: the upper bound of the last grade. */
const MAX_INT64 = '9223372036854775807';

/** n GiB as Go prints a BinarySI quantity of them: `0`, `4Gi`, `1Ti` (1024Gi). */
const gi = (n: number): string => (n === 0 ? '0' : n % 1024 === 0 ? `${n / 1024}Ti` : `${n}Gi`);

/** [cpu min, cpu max, memory min GiB, memory max GiB] per grade; the last grade's maxima are MaxInt64. */
const GRADES: ReadonlyArray<readonly [number, number | null, number, number | null]> = [
  [0, 1, 0, 4],
  [1, 2, 4, 16],
  [2, 4, 16, 32],
  [4, 8, 32, 64],
  [8, 16, 64, 128],
  [16, 32, 128, 256],
  [32, 64, 256, 512],
  [64, 128, 512, 1024],
  [128, null, 1024, null],
];

/** Karmada's SetDefaultClusterResourceModels (pkg/apis/cluster/mutation), as the API server would store them. */
export function defaultResourceModels(): ResourceModel[] {
  return GRADES.map(([cpuMin, cpuMax, memMin, memMax], grade) => ({
    grade,
    ranges: [
      { name: 'cpu', min: String(cpuMin), max: cpuMax === null ? MAX_INT64 : String(cpuMax) },
      { name: 'memory', min: gi(memMin), max: memMax === null ? MAX_INT64 : gi(memMax) },
    ],
  }));
}

/**
 * Karmada's StandardizeClusterResourceModels: grades in ascending order, the first grade's minimums zero
 * and the last grade's maximums MaxInt64 (a copy; the input is not changed).
 */
export function standardizeResourceModels(models: readonly ResourceModel[]): ResourceModel[] {
  const out = models.map((m) => ({ ...m, ranges: (m.ranges ?? []).map((r) => ({ ...r })) }));
  out.sort((a, b) => (a.grade ?? 0) - (b.grade ?? 0));
  if (out.length === 0) return out;
  for (const r of out[0]!.ranges) r.min = '0';
  for (const r of out[out.length - 1]!.ranges) r.max = MAX_INT64;
  return out;
}

const DEFAULTS = defaultResourceModels();

/** The models Karmada's stored Cluster would have: its own, standardized, or the defaults when it names none. */
export function effectiveResourceModels(models: readonly ResourceModel[] | null | undefined): ResourceModel[] {
  return models && models.length > 0 ? standardizeResourceModels(models) : DEFAULTS;
}
