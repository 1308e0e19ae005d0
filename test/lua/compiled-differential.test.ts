/**
 * The compiling path (src/lua/compiled) against fengari, the reference: every Lua script the repository
 * holds runs through both with the inputs its own tests give it, and both must give the same result or
 * the same error text. Each sandbox call of the existing test runners (interpret test of the conformance
 * trees, the hostile fixtures) is run a second time on a shadow sandbox with engine 'auto'.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinCustomizations } from '../../src/interpreter/builtin.js';
import { createInterpreter } from '../../src/interpreter/interpreter.js';
import { runTestTree } from '../../src/interpreter/test-tree.js';
import { OPERATIONS, type KubeObject, type RIC } from '../../src/interpreter/types.js';
import { scriptOf } from '../../src/interpreter/ric.js';
import { luaToJs } from '../../src/lua/convert.js';
import { loadCompiledLua, LuaSandbox } from '../../src/lua/sandbox.js';
import { scaled } from '../time-scale.js';

await loadCompiledLua();

const root = join(import.meta.dirname, '../..');

interface Outcome {
  ok: boolean;
  value?: unknown;
  error?: string;
  kind?: string;
}

const shadows = new WeakMap<LuaSandbox, LuaSandbox>();
const allShadows: LuaSandbox[] = [];
const mismatches: string[] = [];
const budgetRaces: string[] = [];
const BUDGETS = new Set(['timeout', 'memory']);
let calls = 0;
let compiledCalls = 0;
const original = LuaSandbox.prototype.run;

function outcome(f: () => unknown): Outcome {
  try {
    return { ok: true, value: f() };
  } catch (e) {
    return { ok: false, error: (e as Error).message, kind: (e as { kind?: string }).kind ?? (e as Error).name };
  }
}

function shadowOf(sb: LuaSandbox): LuaSandbox {
  let s = shadows.get(sb);
  if (s === undefined) {
    s = new LuaSandbox({ ...sb.options, engine: 'auto' });
    shadows.set(sb, s);
    allShadows.push(s);
  }
  return s;
}

beforeAll(() => {
  LuaSandbox.prototype.run = function (this: LuaSandbox, ...args: Parameters<LuaSandbox['run']>) {
    if (this.options.engine === 'auto') return original.apply(this, args);
    const a = outcome(() => original.apply(this, args));
    const shadow = shadowOf(this);
    const compiled = shadow.compiledEngine!.chunk(args[0]) !== null;
    const b = outcome(() => original.apply(shadow, args));
    calls++;
    if (compiled) compiledCalls++;
    let same = a.ok === b.ok && (a.ok ? JSON.stringify(a.value) === JSON.stringify(b.value) : a.error === b.error && a.kind === b.kind);
    // Which budget stops a hostile script first (time or memory) is a race the fixtures accept either way
    // (conformance/lua Hostile): the compiled path, being faster, can reach the memory limit where fengari
    // runs out of time. Both stopped by a budget is agreement; counted apart.
    if (!same && !a.ok && !b.ok && BUDGETS.has(a.kind!) && BUDGETS.has(b.kind!)) {
      same = true;
      budgetRaces.push(`${a.error} | ${b.error}`);
    }
    if (!same) mismatches.push(`${args[2]} ${args[1]} of\n${args[0].slice(0, 300)}\n  fengari:  ${JSON.stringify(a).slice(0, 400)}\n  compiled: ${JSON.stringify(b).slice(0, 400)}`);
    if (a.ok) return a.value as never;
    throw Object.assign(new Error(a.error), { kind: a.kind });
  } as LuaSandbox['run'];
});

afterAll(() => {
  LuaSandbox.prototype.run = original;
});

function tree(dir: string): void {
  const lines: string[] = [];
  runTestTree(join(root, dir), { log: (l) => lines.push(l), verbose: false });
}

describe('compiled path agrees with fengari', () => {
  it('on conformance/interpreters (the built-in interpreters)', () => {
    const before = calls;
    tree('conformance/interpreters');
    expect(calls - before).toBeGreaterThan(50);
    expect(mismatches).toEqual([]);
  }, scaled(180_000));

  it('on conformance/lua', () => {
    tree('conformance/lua');
    expect(mismatches).toEqual([]);
  }, scaled(120_000));

  it('on conformance/interpreter-library and conformance/argocd-health', () => {
    tree('conformance/interpreter-library');
    tree('conformance/argocd-health');
    expect(mismatches).toEqual([]);
  }, scaled(120_000));

  it('on test/lua/fixtures (the hostile RICs, the xpcall loop)', () => {
    const fixtures = join(root, 'test/lua/fixtures');
    const deployment = parse(readFileSync(join(fixtures, "deployment.yaml"), "utf8")) as KubeObject;
    const files = [...readdirSync(join(fixtures, 'hostile')).map((f) => join(fixtures, 'hostile', f)), join(fixtures, 'xpcall-loop-ric.yaml')];
    for (const file of files) {
      const ric = parse(readFileSync(file, 'utf8')) as RIC;
      const interp = createInterpreter({ customizations: [ric], builtin: false, native: false, budgetMs: 30_000 });
      for (const op of OPERATIONS) {
        if (scriptOf(ric, op) === '') continue;
        outcome(() => {
          switch (op) {
            case 'InterpretHealth':
              return interp.interpretHealth(deployment);
            case 'InterpretStatus':
              return interp.reflectStatus(deployment);
            case 'InterpretReplica':
              return interp.getReplicas(deployment);
            case 'Retain':
              return interp.retain(deployment, deployment);
            case 'ReviseReplica':
              return interp.reviseReplica(deployment, 2);
            case 'AggregateStatus':
              return interp.aggregateStatus(deployment, []);
            case 'InterpretDependency':
              return interp.getDependencies(deployment);
            default:
              return interp.getComponents(deployment);
          }
        });
      }
    }
    expect(mismatches).toEqual([]);
  }, scaled(300_000));

  it('takes every built-in interpreter script (none falls back to fengari)', () => {
    const sb = new LuaSandbox({ engine: 'auto' });
    const fellBack: string[] = [];
    let scripts = 0;
    for (const ric of builtinCustomizations()) {
      for (const op of OPERATIONS) {
        const s = scriptOf(ric, op);
        if (s === '') continue;
        scripts++;
        if (sb.compiledEngine!.chunk(s) === null) fellBack.push(`${ric.metadata?.name} ${op}`);
      }
    }
    expect(scripts).toBeGreaterThan(50);
    expect(fellBack).toEqual([]);
    // And across the whole run above, most calls ran compiled; the scripts that fell back say why.
    const reasons = new Map<string, string>();
    for (const s of allShadows) for (const [k, v] of s.compiledEngine!.stats.reasons) reasons.set(k, v);
    console.log(`differential: ${calls} calls, ${compiledCalls} on the compiled path; ${reasons.size} scripts on fengari:`, [...reasons.values()]);
    console.log(`budget races (both stopped, by different budgets): ${budgetRaces.length}`, budgetRaces);
    expect(budgetRaces.length).toBeLessThan(5);
    expect(compiledCalls).toBeGreaterThan(calls / 2);
  });
});

describe('compiled path budgets: stopped within budget with fengari\'s text', () => {
  // Long enough for fengari to build the 128 MiB string the memory case refuses (it is slow at it).
  // A memory limit fengari reaches well within that time too (it allocates more slowly).
  const limits = { budgetMs: 5000, memoryLimitBytes: 48 * 1024 * 1024 };
  const fengari = new LuaSandbox(limits);
  const compiled = new LuaSandbox({ ...limits, engine: 'auto' });
  const quickLimits = { budgetMs: 500 };
  const fengariQuick = new LuaSandbox(quickLimits);
  const compiledQuick = new LuaSandbox({ ...quickLimits, engine: 'auto' });
  const run = (sb: LuaSandbox, script: string): Outcome => outcome(() => original.call(sb, script, 'f', 'Test', [{}], 1, (L) => luaToJs(L, 1)));

  it.each([
    ['an infinite loop', 'function f(o) while true do end end', true],
    ['an infinite numeric for', 'function f(o) local n = 0 for i = 1, math.huge do n = n + 1 end return n end', true],
    ['an infinite loop of calls', 'local function g(i) return i + 1 end\nfunction f(o) local i = 0 repeat i = g(i) until false end', true],
    ['a runaway recursion', 'local function r(n) return 1 + r(n + 1) end\nfunction f(o) return r(1) end', true],
    ['a huge string', 'function f(o) local s = "x" for i = 1, 40 do s = s .. s end return #s end', false],
    ['a loop that keeps what it builds', 'function f(o) local t = {} local i = 0 while true do i = i + 1 t[i] = {i, i, i, i} end end', false],
  ] as const)('%s', (_name, script, quickBudget) => {
    const [csb, fsb] = quickBudget ? [compiledQuick, fengariQuick] : [compiled, fengari];
    const start = performance.now();
    const c = run(csb, script);
    const took = performance.now() - start;
    expect(csb.compiledEngine!.chunk(script)).not.toBeNull();
    const f = run(fsb, script);
    expect(c.ok).toBe(false);
    // The heap figure differs between the two (different objects); the rest of the text is the same.
    const norm = (s: string | undefined) => s?.replace(/\d{6,}/g, 'N');
    expect(norm(c.error)).toBe(norm(f.error));
    expect(c.kind).toBe(f.kind);
    expect(took).toBeLessThan(scaled(csb.budgetMs + 1000));
  }, scaled(60_000));
});

describe('compiled path: the semantics the subset must keep, case by case', () => {
  const fengari = new LuaSandbox();
  const compiled = new LuaSandbox({ engine: 'auto' });
  const obj = { a: 2, b: 'x', c: { d: 1, e: [1, null, 3] }, u: 'ü', n: null, list: [{ k: 'v' }, { k: 'w' }] };
  const run = (sb: LuaSandbox, script: string): Outcome => outcome(() => original.call(sb, script, 'f', 'Test', [obj], 1, (L) => luaToJs(L, 1)));

  it.each([
    ['pairs order of a converted object after reads', 'function f(o) local _ = o.c local t = {} for k in pairs(o) do t[#t + 1] = k end return t end'],
    ['a table constructor: keyed fields before positional items', 'function f(o) local t = {1, 2, x = 3, 4} local ks = {} for k in pairs(t) do ks[#ks + 1] = tostring(k) end return ks end'],
    ['deleting while iterating', 'function f(o) local t = {a = 1, b = 2, c = 3} for k in pairs(t) do t[k] = nil end return next(t) == nil end'],
    ['a field assigned nil stays nil', 'function f(o) o.c = nil o.a = nil return {o.c, o.a, o.b} end'],
    ['# with holes', 'function f(o) local t = {1, 2, nil, 4} t[6] = 6 return #t end'],
    ['unpack returns the same tables', 'function f(o) local t = {} local a = unpack({t}) a.x = 1 return t.x end'],
    ['select with a negative index', 'function f(o) local t = {} local a = select(-1, 1, t) return a == t end'],
    ['table.remove moves the script\'s own values', 'function f(o) local t = {{1}, {2}, {3}} local r = table.remove(t, 1) r[2] = 9 return {t, r} end'],
    ['table.sort with a comparator and equal keys', 'function f(o) local t = {} for i = 1, 30 do t[i] = {k = i % 4, i = i} end table.sort(t, function(a, b) return a.k < b.k end) local r = {} for i, v in ipairs(t) do r[i] = v.i end return r end'],
    ['an invalid order function', 'function f(o) local t = {} for i = 1, 20 do t[i] = i end table.sort(t, function(a, b) return true end) return t end'],
    ['strings with control bytes order as fengari orders them', 'function f(o) local t = {"a b", "a\\nb", "a\\tb", "a", "ab", "\\1"} table.sort(t) return {t, "a\\nb" < "a b", "x" <= "x\\0"} end'],
    ['argument errors as fengari words them: function f() table.sort({3, 1}, 5) end', 'function f() table.sort({3, 1}, 5) end'],
    ['argument errors as fengari words them: function f() local s = table.sort; s({3, 1}, 5) end', 'function f() local s = table.sort; s({3, 1}, 5) end'],
    ['argument errors as fengari words them: function f() local ok, e = pcall(table.sort, {3, 1}, 5) return e end', 'function f() local ok, e = pcall(table.sort, {3, 1}, 5) return e end'],
    ['argument errors as fengari words them: function f() local t = {sort = table.sort}; t:sort(5) end', 'function f() local t = {sort = table.sort}; t:sort(5) end'],
    ['argument errors as fengari words them: function f() table.sort(5) end', 'function f() table.sort(5) end'],
    ['argument errors as fengari words them: function f() return table.sort() end', 'function f() return table.sort() end'],
    ['argument errors as fengari words them: function f() return select(-5, 1) end', 'function f() return select(-5, 1) end'],
    ['argument errors as fengari words them: function f() local ok, e = pcall(select, -5, 1) return e end', 'function f() local ok, e = pcall(select, -5, 1) return e end'],
    ['argument errors as fengari words them: function f() return select(0, 1) end', 'function f() return select(0, 1) end'],
    ['argument errors as fengari words them: function f() return select(1.5, 1) end', 'function f() return select(1.5, 1) end'],
    ['argument errors as fengari words them: function f() return select("x", 1) end', 'function f() return select("x", 1) end'],
    ['argument errors as fengari words them: function f() local t = {s = select}; t.s(0) end', 'function f() local t = {s = select}; t.s(0) end'],
    ['argument errors as fengari words them: function f() local t = {} t[1] = select; t[1](0) end', 'function f() local t = {} t[1] = select; t[1](0) end'],
    ['argument errors as fengari words them: function f() table.insert({}, 5, 1) end', 'function f() table.insert({}, 5, 1) end'],
    ['argument errors as fengari words them: function f() table.insert({}, 1.5, 1) end', 'function f() table.insert({}, 1.5, 1) end'],
    ['argument errors as fengari words them: function f() table.insert(5, 1) end', 'function f() table.insert(5, 1) end'],
    ['argument errors as fengari words them: function f() table.remove({}, 5) end', 'function f() table.remove({}, 5) end'],
    ['argument errors as fengari words them: function f() table.remove(5) end', 'function f() table.remove(5) end'],
    ['argument errors as fengari words them: function f() for i, v in ipairs(nil) do end end', 'function f() for i, v in ipairs(nil) do end end'],
    ['argument errors as fengari words them: function f() for i, v in ipairs() do end end', 'function f() for i, v in ipairs() do end end'],
    ['argument errors as fengari words them: function f() return unpack(5) end', 'function f() return unpack(5) end'],
    ['argument errors as fengari words them: function f() return table.concat({1, {}}) end', 'function f() return table.concat({1, {}}) end'],
    ['comparing a number with nil', 'function f(o) return o.missing > 1 end'],
    ['arithmetic on a numeric string', 'function f(o) return "10" + 1 end'],
    ['arithmetic on a table', 'function f(o) return o.c * 2 end'],
    ['concat of a nil in the middle', 'function f(o) return "a" .. o.b .. o.missing .. "z" end'],
    ['length of a number', 'function f(o) return #o.a end'],
    ['calling a nil field', 'function f(o)\n  return o.nothing(1)\nend'],
    ['UTF-8 strings are bytes', 'function f(o) return {#o.u, string.upper(o.u), o.u .. "é", string.byte(o.u, 1)} end'],
    ['numbers printed as gopher-lua prints them', 'function f(o) return {tostring(1e15), tostring(1e16), tostring(0.1 + 0.2), tostring(-0.0), 7 / 2, 2^53, 10 % -3, -7 % 3} end'],
    ['pcall keeps the error value', 'function f(o) local ok, e = pcall(error, {code = 1}) return {ok, e} end'],
    ['a big table constructor (stored 50 at a time)', 'function f(o) local t = {' + Array.from({ length: 120 }, (_, i) => `${i}`).join(', ') + ', k = 1, (select(1, 5, 6))} local ks = {} for k in pairs(t) do ks[#ks + 1] = tostring(k) end return ks end'],
    ['error with a number', 'function f(o) error(42) end'],
    ['library errors under pcall carry no position', 'function f(o) local a, b = pcall(error, "x") local c, d = pcall(math.floor) local e, g = pcall(string.find) return {b, d, g} end'],
    ['a Lua function under pcall keeps its positions', 'local function bad() error("inside") end\nfunction f(o) local ok, e = pcall(bad) return e end'],
    ['assert with a message', 'function f(o) assert(o.missing, "needed") end'],
    ['ipairs stops at the first nil', 'function f(o) local n = 0 for i, v in ipairs(o.c.e) do n = n + v end return n end'],
    ['a numeric for with a fractional step', 'function f(o) local r = {} for x = 0.1, 1, 0.3 do r[#r + 1] = x end return r end'],
    ['library tables are restored after the call', 'function f(o) local before = string.upper string.upper = nil return before ~= nil end'],
    ['globals do not survive a call', 'function f(o) local seen = counter counter = 1 return seen end'],
    ['a missing entry function', 'function g(o) return 1 end'],
    ['an entry that is not a function', 'f = 3'],
    ['string methods', 'function f(o) local s = "a,b,c" local r = {} for w in s:gmatch("[^,]+") do r[#r + 1] = w:upper() end return r end'],
    ['kube library', 'local kube = require("kube")\nfunction f(o) return {kube.resourceAdd("1", "500m"), kube.getResourceQuantity("2Gi")} end'],
    ['a refused function', 'function f(o) return setmetatable({}, {}) end'],
    ['string.rep refused for RICs', 'function f(o) return string.rep("x", 3) end'],
    ['multiple results and parentheses', 'local function two() return 1, 2 end\nfunction f(o) local t = {two(), two()} local u = {(two())} return {#t, #u, select("#", two())} end'],
  ])('%s', (_name, script) => {
    const c = run(compiled, script);
    const f = run(fengari, script);
    expect(c).toEqual(f);
  });

  it('takes every case above (none of them ran on fengari instead)', () => {
    expect([...compiled.compiledEngine!.stats.reasons.values()]).toEqual([]);
  });
});
