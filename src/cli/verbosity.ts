/**
 * `-v N` / `--v=N` on every command, as kubectl and Karmada's components (klog) mean it: 0 is the
 * default, 2 adds steady-state detail (which kubeconfig, context and server), 4 is debug. Long-running
 * commands map it onto their log level (4 or more logs at debug); the CLI's own detail is klog-style
 * `I` lines on standard error, so standard output stays what scripts parse.
 */
import { Option, type Command } from 'commander';
import type { Level } from '../runtime/log.js';
import { InputError } from '../io/input-error.js';

let current = 0;

/** The verbosity of this run (0 unless -v was given). */
export function verbosity(): number {
  return current;
}

/** `-v 4`, `-v=4`, `--v=4`, `-v4`: klog's levels are whole numbers from 0. */
export function parseVerbosity(v: string): number {
  const s = v.startsWith('=') ? v.slice(1) : v;
  if (!/^\d+$/.test(s)) throw new InputError(`-v takes a log level, a whole number from 0 (e.g. -v 4 for debug logs), got ${JSON.stringify(v)}`);
  return Number(s);
}

/** Adds the flag to the top-level command; commander then accepts it before or after any subcommand. */
export function addVerbosityFlag(program: Command): Command {
  return program
    .addOption(new Option('-v, --v <level>', 'log level verbosity, as kubectl: 2 names the kubeconfig context and server, 4 and more log at debug level').argParser(parseVerbosity))
    .hook('preAction', (cmd) => {
      current = (cmd.opts() as { v?: number }).v ?? 0;
    });
}

/** The log level of a long-running command: --log-level, or debug from -v 4 up. */
export function logLevelFor(level: string): string {
  return current >= 4 ? 'debug' : level;
}

/** One klog-style line on standard error when the verbosity is at least `level`. */
export function logV(level: number, message: string, now: () => Date = () => new Date()): void {
  if (current < level) return;
  const d = now();
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  process.stderr.write(`I${p(d.getMonth() + 1)}${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds() * 1000, 6)} ${process.pid} ${message}\n`);
}

/** For tests: runs start from 0. */
export function setVerbosity(v: number): void {
  current = v;
}
