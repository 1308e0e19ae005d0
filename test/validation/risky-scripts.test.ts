// `karmada-lite validate` on RICs whose scripts carry known traps: warnings by default, errors with --strict.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const file = 'test/validation/fixtures/risky-ric.yaml';
const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), ...args], { cwd: root, encoding: 'utf8' });

const WARNINGS = [
  `${file}[0] ResourceInterpreterCustomization xpcall-handler-loops: warning: InterpreterOperation(InterpretHealth) Lua script line 2: the xpcall message handler contains a while loop; a handler should only format the error and return it`,
  `${file}[0] ResourceInterpreterCustomization xpcall-handler-loops: warning: InterpreterOperation(InterpretHealth) Lua script line 2: while true do has no break, return or error(): it loops until the time budget ends`,
  `${file}[1] ResourceInterpreterCustomization rep-and-doubling: warning: InterpreterOperation(InterpretReplica) Lua script line 2: string.rep builds a string of 1.1G bytes; scripts get a memory budget far below that`,
  `${file}[1] ResourceInterpreterCustomization rep-and-doubling: warning: InterpreterOperation(AggregateStatus) Lua script line 4: s = s .. s in a loop doubles the string each time round; it outgrows the memory budget in a few dozen rounds`,
];

describe('validate: risky RIC scripts', () => {
  it('admits them with one warning line per trap, and exits 0', () => {
    const r = cli(['validate', '-f', file]);
    expect(r.status).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual(WARNINGS);
    expect(r.stdout).toBe('3 document(s) in 1 file(s): 3 valid, 0 invalid, 2 with warnings\n');
  });

  it('carries the warnings in the JSON output', () => {
    const r = cli(['validate', '-f', file, '-o', 'json']);
    expect(r.status).toBe(0);
    const results = JSON.parse(r.stdout) as Array<{ name: string; status: string; warnings: string[] }>;
    expect(results.map((x) => [x.name, x.status, x.warnings.length])).toEqual([
      ['xpcall-handler-loops', 'valid', 2],
      ['rep-and-doubling', 'valid', 2],
      ['clean', 'valid', 0],
    ]);
  });

  it('--strict makes them errors and exits 1', () => {
    const r = cli(['validate', '--strict', '-f', file]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual(WARNINGS.map((w) => `${w.replace(': warning: ', ': ')} (an error under --strict)`));
    expect(r.stdout).toBe('3 document(s) in 1 file(s): 1 valid, 2 invalid\n');
  });
});
