/** kubectl's AGE column (apimachinery's duration.HumanDuration): precise while it is short, coarser as it grows. */
export function humanDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < -1) return '<invalid>';
  if (s < 0) return '0s';
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  const two = (big: number, bigUnit: string, small: number, smallUnit: string) => (small === 0 ? `${big}${bigUnit}` : `${big}${bigUnit}${small}${smallUnit}`);
  if (m < 10) return two(m, 'm', s % 60, 's');
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return two(h, 'h', m % 60, 'm');
  if (h < 48) return `${h}h`;
  if (h < 24 * 8) return two(Math.floor(h / 24), 'd', h % 24, 'h');
  if (h < 24 * 365 * 2) return `${Math.floor(h / 24)}d`;
  if (h < 24 * 365 * 8) return two(Math.floor(h / (24 * 365)), 'y', Math.floor(h / 24) % 365, 'd');
  return `${Math.floor(h / (24 * 365))}y`;
}

/** The age of a timestamp at `now`, `<unknown>` when there is none (as kubectl). */
export function ageOf(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== 'string' || !timestamp) return '<unknown>';
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now.getTime() - t);
}
