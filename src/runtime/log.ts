/**
 * Logs through pino: JSON lines (level, time, msg and the caller's fields) for log pipelines, or
 * pino-pretty's text for a human at a terminal. The format defaults to text when standard error is a
 * TTY and JSON otherwise; `--log-format` overrides it.
 *
 * pino-pretty is used as a formatting function on this thread, never as a pino transport: a transport
 * runs in a worker thread loaded from a file, and the standalone executable has no files to load it from.
 */
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import { prettyFactory } from 'pino-pretty';

export type Level = 'debug' | 'info' | 'warn' | 'error';

const LEVELS: readonly Level[] = ['debug', 'info', 'warn', 'error'];

export type LogFormat = 'json' | 'text';

export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];

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
  /** json or text; default: text when standard error is a TTY (and no `write` is given), else json. */
  format?: LogFormat;
  /** Where lines go, one call per line; defaults to standard error so that standard output stays free for command results. */
  write?: (line: string) => void;
  fields?: Fields;
  now?: () => Date;
  /** text only: colours; default: when writing to a TTY standard error. */
  colorize?: boolean;
}

export function isLevel(v: string): v is Level {
  return (LEVELS as readonly string[]).includes(v);
}

export function isLogFormat(v: string): v is LogFormat {
  return (LOG_FORMATS as readonly string[]).includes(v);
}

export const logFormatError = (v: string) => `--log-format must be json or text, got ${v}`;

/** The `--log-format` value, checked; undefined picks by the terminal. Throws an error that names the flag. */
export function parseLogFormat(v: string | undefined): LogFormat | undefined {
  if (v === undefined) return undefined;
  if (!isLogFormat(v)) throw new Error(logFormatError(v));
  return v;
}

const stderrIsTTY = () => process.stderr.isTTY === true;

/**
 * Standard error for JSON: sonic-boom writing asynchronously on this thread (a synchronous write per line
 * costs a busy server a large share of its throughput); pino flushes what is pending when the process exits.
 */
let stderrJson: DestinationStream | undefined;

/** Fields whose value is an Error are logged as its message, as callers expect. */
function plain(fields: Fields | undefined): Fields | undefined {
  if (!fields) return fields;
  let out: Fields | undefined;
  for (const k in fields) {
    const v = fields[k];
    if (v instanceof Error) (out ??= { ...fields })[k] = v.message;
  }
  return out ?? fields;
}

function wrap(p: PinoLogger<never>): Logger {
  return {
    debug: (m, f) => p.debug(plain(f) ?? {}, m),
    info: (m, f) => p.info(plain(f) ?? {}, m),
    warn: (m, f) => p.warn(plain(f) ?? {}, m),
    error: (m, f) => p.error(plain(f) ?? {}, m),
    child: (fields) => wrap(p.child(plain(fields) ?? {})),
    enabled: (level) => p.isLevelEnabled(level),
  };
}

function destination(format: LogFormat, opts: LoggerOptions): DestinationStream {
  if (format === 'json') {
    if (opts.write) return { write: opts.write };
    return (stderrJson ??= pino.destination({ dest: 2, sync: false }));
  }
  const colorize = opts.colorize ?? (!opts.write && stderrIsTTY());
  const prettify = prettyFactory({ colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true, errorLikeObjectKeys: [] });
  // A terminal is written synchronously: lines a human reads must not be lost when the process exits.
  const out = opts.write ?? ((s: string) => process.stderr.write(s));
  return { write: (line: string) => out(prettify(line)) };
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const format = opts.format ?? (!opts.write && stderrIsTTY() ? 'text' : 'json');
  const now = opts.now;
  const p = pino(
    {
      level: opts.level ?? 'info',
      base: opts.fields ? (plain(opts.fields) as Fields) : null,
      messageKey: 'msg',
      timestamp: now ? () => `,"time":"${now().toISOString()}"` : pino.stdTimeFunctions.isoTime,
      // Level names in JSON, as log pipelines filter on; pino-pretty reads pino's level numbers.
      formatters: format === 'json' ? { level: (label) => ({ level: label }) } : {},
    },
    destination(format, opts),
  );
  return wrap(p as PinoLogger<never>);
}

/** Discards everything; for tests and benchmarks that measure something else. */
export const silentLogger: Logger = createLogger({ level: 'error', write: () => {} });
