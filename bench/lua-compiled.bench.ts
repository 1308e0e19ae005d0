/**
 * The Lua compiling path against fengari and gopher-lua: `npx tsx bench/lua-compiled.bench.ts [--quick]`.
 *
 * In one run, on the built-in Deployment interpreter and the same object as bench/interpreter.bench.ts:
 * - fengari and compiled: the whole operation (InterpretHealth, AggregateStatus over three members) as the
 *   controllers call it, arguments converted and results checked;
 * - compiled VM floor: the compiled entry function called with arguments already converted;
 * - gopher-lua: its bare VM (bench/gopher-lua, built here into a temporary folder), the script loaded once
 *   and its arguments built as Lua tables once, N calls timed.
 * Figures are calls per second of wall time, best of three alternating rounds.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { builtinCustomizations } from '../src/interpreter/builtin.js';
import { createInterpreter } from '../src/interpreter/interpreter.js';
import { itemsForLua } from '../src/interpreter/lua-operations.js';
import { scriptOf } from '../src/interpreter/ric.js';
import type { AggregatedStatusItem, Operation } from '../src/interpreter/types.js';
import { fromJs } from '../src/lua/compiled/table.js';
import { loadCompiledLua, LuaSandbox } from '../src/lua/sandbox.js';
import { memberStatusItems, realisticDeployment } from './deployment-fixture.js';

await loadCompiledLua();

const quick = process.argv.includes('--quick');
const seconds = quick ? 0.4 : 1.5;
const root = join(import.meta.dirname, '..');

function rate(f: () => unknown): number {
  const w = performance.now();
  for (let i = 0; i < 20_000 || performance.now() - w < 300; i++) f();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    for (let i = 0; i < 500; i++) f();
    n += 500;
  }
  return n / ((performance.now() - start) / 1000);
}

const ric = builtinCustomizations().find((r) => r.spec?.target?.kind === 'Deployment' && r.spec.target.apiVersion === 'apps/v1');
if (!ric) throw new Error('no built-in Deployment interpreter');
const d = realisticDeployment();
const items = memberStatusItems() as AggregatedStatusItem[];

const fengari = createInterpreter({ sandbox: new LuaSandbox(), native: false });
const compiledSb = new LuaSandbox({ engine: 'auto' });
const compiled = createInterpreter({ sandbox: compiledSb, native: false });

interface Case {
  name: string;
  op: Operation;
  fn: string;
  args: unknown[];
  fengari: () => unknown;
  compiled: () => unknown;
}
const cases: Case[] = [
  { name: 'InterpretHealth', op: 'InterpretHealth', fn: 'InterpretHealth', args: [d], fengari: () => fengari.interpretHealth(d), compiled: () => compiled.interpretHealth(d) },
  {
    name: 'AggregateStatus (3 clusters)',
    op: 'AggregateStatus',
    fn: 'AggregateStatus',
    args: [d, itemsForLua(items)],
    fengari: () => fengari.aggregateStatus(d, items),
    compiled: () => compiled.aggregateStatus(d, items),
  },
];

// The same answers from both paths before anything is timed (key order aside: fengari's reuse of an
// argument converted by an earlier call stores the fields that call read first).
for (const c of cases) {
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(c.fengari())), JSON.parse(JSON.stringify(c.compiled())))) throw new Error(`${c.name}: the paths disagree`);
}

const dir = mkdtempSync(join(tmpdir(), 'gopher-bench-'));
try {
  const bin = join(dir, 'gopher-bench');
  execFileSync('go', ['build', '-o', bin, '.'], { cwd: join(root, 'bench/gopher-lua'), stdio: 'inherit' });
  const engine = compiledSb.compiledEngine!;
  const host = { tick: () => {}, stringBuilt: () => {}, impure: () => {} };
  console.log(`| operation | fengari | compiled | compiled VM floor | gopher-lua VM | compiled / gopher-lua | compiled / fengari |`);
  console.log(`| --- | --- | --- | --- | --- | --- | --- |`);
  for (const c of cases) {
    const script = scriptOf(ric, c.op);
    const chunk = engine.chunk(script);
    if (!chunk) throw new Error(`${c.name}: the compiler did not take the built-in script`);
    // The VM floor: arguments converted once and read in full (lazy tables materialized) before timing.
    const floorArgs = JSON.parse(JSON.stringify(c.args)).map(fromJs) as unknown[];
    engine.call(chunk, c.fn, floorArgs, host);
    const input = join(dir, `${c.fn}.json`);
    writeFileSync(input, JSON.stringify({ script, function: c.fn, args: c.args, nresults: 1 }));
    const best = { f: 0, c: 0, floor: 0, go: 0 };
    for (let round = 0; round < 3; round++) {
      best.f = Math.max(best.f, rate(c.fengari));
      best.c = Math.max(best.c, rate(c.compiled));
      best.floor = Math.max(best.floor, rate(() => engine.call(chunk, c.fn, floorArgs, host)));
      const out = execFileSync(bin, ['-input', input, '-seconds', String(seconds)], { encoding: 'utf8' });
      best.go = Math.max(best.go, Number(/calls_per_second (\d+)/.exec(out)![1]));
    }
    const k = (n: number) => `${Math.round(n).toLocaleString('en-US')}/s`;
    console.log(`| ${c.name} | ${k(best.f)} | ${k(best.c)} | ${k(best.floor)} | ${k(best.go)} | ${(best.c / best.go).toFixed(2)}× (floor ${(best.floor / best.go).toFixed(2)}×) | ${(best.c / best.f).toFixed(2)}× |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
