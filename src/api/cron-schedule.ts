/**
 * Cron schedules as Karmada's CronFederatedHPA reads them (gocron over robfig/cron's standard parser): five
 * fields (minute hour day-of-month month day-of-week) or a descriptor (@yearly, @monthly, @weekly, @daily,
 * @hourly, ...), in a rule's IANA time zone. The arithmetic is croner's; what Karmada accepts is decided here,
 * since croner also takes seconds and years that Karmada's scheduler would refuse.
 */
import { Cron } from 'croner';

const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** Why a schedule is not one Karmada runs, or undefined when it is. */
export function cronScheduleProblem(schedule: string): string | undefined {
  const s = schedule.trim();
  if (!DESCRIPTORS.has(s) && s.split(/\s+/).length !== 5) return 'invalid cron format';
  try {
    new Cron(s, { paused: true });
    return undefined;
  } catch {
    return 'invalid cron format';
  }
}

/** Why a time zone is unknown, in Go's time.LoadLocation words, or undefined when it is known. */
export function timeZoneProblem(zone: string): string | undefined {
  if (zone === '') return undefined; // Go's LoadLocation("") is UTC
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return undefined;
  } catch {
    return `unknown time zone ${zone}`;
  }
}

/** The first time strictly after `after` the schedule fires in `zone` (UTC when unset), or undefined for none. */
export function nextCronTime(schedule: string, zone: string | undefined, after: Date): Date | undefined {
  if (cronScheduleProblem(schedule) || (zone && timeZoneProblem(zone))) return undefined;
  return new Cron(schedule.trim(), { paused: true, timezone: zone || 'UTC' }).nextRun(after) ?? undefined;
}
