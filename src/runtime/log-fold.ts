/**
 * Repeated failures folded: a member that does not answer fails every write, watch and probe to it, once
 * per retry. The first failure of a kind is logged at once; the repeats within the interval after it are
 * counted and logged as one line when the interval ends (the last occurrence's fields, `repeated` and
 * `intervalSeconds`). An interval without repeats ends the fold: the next failure is logged at once again.
 *
 * Two failures are of the same kind when their level, message and identifying fields (controller,
 * cluster, kind, namespace, reason) are equal and their errors differ only in the object they name.
 */
import type { Fields, Level, Logger } from './log.js';

export interface LogFoldOptions {
  /** Default 30 s. */
  intervalMs?: number;
  /** Milliseconds; the wall clock by default. */
  now?: () => number;
  /** Fields that tell kinds of failure apart. */
  keyFields?: readonly string[];
}

const DEFAULT_KEY_FIELDS = ['controller', 'cluster', 'kind', 'namespace', 'reason'] as const;

/**
 * What kind of failure an error message tells of: its first line without the parts that name one object
 * (quoted strings, parenthesized references, URL paths, numbers such as resourceVersions).
 */
export function failureKind(err: unknown): string {
  const line = String(err ?? '').split('\n')[0]!;
  return line.replace(/"[^"]*"|'[^']*'|\([^)]*\)|\/[\w.~%:-]+(?:\/[\w.~%:-]+)*|\b\d+(?:\.\d+)?\b/g, '_');
}

interface Folded {
  level: Level;
  msg: string;
  /** Start of the current interval. */
  since: number;
  /** Occurrences since `since` not logged yet. */
  count: number;
  fields: Fields;
  /** The logger (with its child fields) the first line went to; the folded line goes there too. */
  inner: Logger;
}

export class LogFold {
  private readonly folds = new Map<string, Folded>();
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly keyFields: readonly string[];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly log: Logger,
    opts: LogFoldOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 30_000;
    this.now = opts.now ?? Date.now;
    this.keyFields = opts.keyFields ?? DEFAULT_KEY_FIELDS;
  }

  /** A logger whose warn and error lines are folded; debug and info lines pass as they are. */
  logger(base: Fields = {}): Logger {
    const inner = Object.keys(base).length ? this.log.child(base) : this.log;
    const fold = (level: Level) => (msg: string, fields?: Fields) => this.record(inner, level, msg, { ...base, ...fields }, fields);
    return {
      debug: (m, f) => inner.debug(m, f),
      info: (m, f) => inner.info(m, f),
      warn: fold('warn'),
      error: fold('error'),
      child: (fields) => this.logger({ ...base, ...fields }),
      enabled: (level) => inner.enabled(level),
    };
  }

  private key(level: Level, msg: string, all: Fields): string {
    const parts: unknown[] = [level, msg];
    for (const f of this.keyFields) parts.push(all[f]);
    parts.push(failureKind(all.err instanceof Error ? all.err.message : all.err));
    return JSON.stringify(parts);
  }

  private record(inner: Logger, level: Level, msg: string, all: Fields, own: Fields | undefined): void {
    if (!inner.enabled(level)) return;
    const key = this.key(level, msg, all);
    const f = this.folds.get(key);
    if (f) {
      f.count++;
      f.fields = own ?? {};
      return;
    }
    this.folds.set(key, { level, msg, since: this.now(), count: 0, fields: own ?? {}, inner });
    inner[level](msg, own);
  }

  /** Ends the intervals that are over (all of them with `all`): one line per fold with repeats. */
  tick(all = false): void {
    const now = this.now();
    for (const [key, f] of this.folds) {
      if (!all && now - f.since < this.intervalMs) continue;
      if (f.count > 0) {
        f.inner[f.level](f.msg, { ...f.fields, repeated: f.count, intervalSeconds: Math.round((now - f.since) / 1000) });
        f.count = 0;
        f.since = now;
        if (!all) continue;
      }
      this.folds.delete(key);
    }
  }

  /** Ends intervals on the wall clock until stop(). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), Math.max(1000, Math.floor(this.intervalMs / 4)));
    this.timer.unref();
  }

  /** Stops the timer and logs the repeats not logged yet. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.tick(true);
  }
}
