import { luaToJs, pushJs } from '../../src/lua/convert.js';
import { LuaSandbox } from '../../src/lua/sandbox.js';

/** Runs global `fn` of `script` with JS arguments and returns its first result as JSON-like JS. */
export function runLua(sb: LuaSandbox, script: string, fn = 'f', args: unknown[] = [], op = 'Test'): unknown {
  return sb.run(
    script,
    fn,
    op,
    (L) => {
      for (const a of args) pushJs(L, a);
      return args.length;
    },
    1,
    (L) => luaToJs(L, 1),
  );
}

/** The error message of a failing run, or throws if it succeeded. */
export function luaError(sb: LuaSandbox, script: string, fn = 'f', args: unknown[] = [], op = 'Test'): string {
  try {
    runLua(sb, script, fn, args, op);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected the script to fail');
}
