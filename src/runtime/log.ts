/**
 * Structured logs: one JSON object per line with level, time, msg and the caller's fields, so that log
 * pipelines can filter on uid, kind or verdict without parsing prose.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type Fields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: Fields): Logger;
  enabled(level: Level): boolean;
}

export interface LoggerOptions {
  level?: Level;
  /** Where lines go; defaults to standard error so that standard output stays free for command results. */
  write?: (line: string) => void;
  fields?: Fields;
  now?: () => Date;
}

export function isLevel(v: string): v is Level {
  return v in RANK;
}

/**
 * Standard error, written in batches: a write to a file or pipe is a synchronous system call in Node, and
 * one per log line costs a busy server a large share of its throughput. Lines are joined and written once
 * per turn of the event loop, and whatever is pending is written synchronously at exit.
 */
function batchedStderr(): (line: string) => void {
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const chunk = pending.join('');
    pending = [];
    process.stderr.write(chunk);
  };
  process.once('exit', flush);
  return (line) => {
    pending.push(line);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}

let stderrWriter: ((line: string) => void) | undefined;

export function createLogger(opts: LoggerOptions = {}): Logger {
  const min = RANK[opts.level ?? 'info'];
  const write = opts.write ?? (stderrWriter ??= batchedStderr());
  const now = opts.now ?? (() => new Date());
  const base = opts.fields ?? {};
  const emit = (level: Level, msg: string, fields?: Fields) => {
    if (RANK[level] < min) return;
    const record: Fields = { level, time: now().toISOString(), msg, ...base, ...fields };
    for (const [k, v] of Object.entries(record)) if (v instanceof Error) record[k] = v.message;
    write(JSON.stringify(record) + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ ...opts, fields: { ...base, ...fields } }),
    enabled: (level) => RANK[level] >= min,
  };
}

/** Discards everything; for tests and benchmarks that measure something else. */
export const silentLogger: Logger = createLogger({ level: 'error', write: () => {} });
