/**
 * prometheus.ExponentialBuckets(start, factor, count). Rounded to 15 digits, so that a bound prints as Go
 * prints it (`le="1e-05"`, not the float error of 1e-8 * 10 ** 3). Apart from karmada-metrics.ts, which
 * imports the core: the webhook's metrics need only this.
 */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => Number((start * factor ** i).toPrecision(15)));
}
