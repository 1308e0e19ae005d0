/**
 * Compile-only checking of a RIC's scripts, for `interpret --check` and the admission webhook. Scripts
 * are compiled (Lua 5.1 grammar, gopher-lua error text) and never executed.
 */
import { LuaSandbox } from '../lua/sandbox.js';
import { scriptOf } from './ric.js';
import { OPERATIONS, type Operation, type RIC } from './types.js';

export type RuleStatus = { rule: Operation; status: 'PASS' } | { rule: Operation; status: 'UNSET' } | { rule: Operation; status: 'ERROR'; error: string };

let shared: LuaSandbox | null = null;

/** Per rule, in rule order: PASS, UNSET (no script) or ERROR with the raw compile error (ends in a newline). */
export function compileCheck(ric: RIC, sandbox: LuaSandbox = (shared ??= new LuaSandbox())): RuleStatus[] {
  return OPERATIONS.map((rule) => {
    const script = scriptOf(ric, rule);
    if (script === '') return { rule, status: 'UNSET' };
    const error = sandbox.compile(script);
    return error === null ? { rule, status: 'PASS' } : { rule, status: 'ERROR', error };
  });
}

/**
 * The webhook's compile step: the first failing rule as
 * `InterpreterOperation(<Rule>) Lua script error: <compile error>`, or null when every script compiles.
 */
export function compileCheckMessage(ric: RIC, sandbox?: LuaSandbox): string | null {
  for (const r of compileCheck(ric, sandbox)) {
    if (r.status === 'ERROR') return `InterpreterOperation(${r.rule}) Lua script error: ${r.error}`;
  }
  return null;
}
