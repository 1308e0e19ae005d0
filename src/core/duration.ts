/**
 * Go's time.ParseDuration as Kubernetes and Karmada write durations (flags, metav1.Duration, the metrics APIs'
 * `window`): a sequence of decimal numbers each with a unit, `300ms`, `1m30s`, `2h45m`. One parser for the
 * flags, `plan --run-for` and the FederatedHPA's metric windows.
 */
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or undefined when `v` is not a Go duration ("0" alone is one, as in Go). */
export function parseGoDuration(v: string): number | undefined {
  if (v === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let end = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(v))) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    end = re.lastIndex;
  }
  return end > 0 && end === v.length ? total : undefined;
}
