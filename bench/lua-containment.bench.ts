/**
 * Hostile Lua scripts against the sandbox's default budgets (1 s, 256 MiB):
 * `npx tsx bench/lua-containment.bench.ts [--case NAME] [--timeout S] [--rss-cap MIB]`.
 *
 * Each case runs in a child process of its own, so its figures are its own: the time from the call
 * starting to it failing, how far that is past the 1 s budget, and the child's peak RSS beside its RSS
 * just before the call. The parent kills a child that runs past `--timeout` seconds (default 30) or
 * whose RSS passes `--rss-cap` MiB (default 1536), so a case that escapes its budget cannot take the
 * machine down; such a case is reported as killed. Targets: every case fails within budget + 100 ms
 * with its peak RSS under the memory cap + 64 MiB.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { luaToJs } from '../src/lua/convert.js';
import { lauxlib, lua, to_luastring, type LuaState } from '../src/lua/fengari.js';
import { LuaSandbox } from '../src/lua/sandbox.js';

const MB1 = 'string.format("%0999999d", 1)';
const LOOP = 'while true do end';
const ALLOC = 'local t = {} local i = 0 while true do i = i + 1 t[i] = {i} end';

/** Script cases: `f` is called with one argument, a table whose metamethods (if asked for) run `meta`. */
interface Case {
  name: string;
  script: string;
  /** Body of every metamethod of the argument table, when the case needs one (scripts cannot set metatables). */
  meta?: string;
}

const CASES: Case[] = [
  { name: 'xpcall handler loops forever', script: `function f() return xpcall(function() error('x') end, function() ${LOOP} end) end` },
  { name: 'xpcall handler loops 1e9 times', script: `function f() return xpcall(function() error('x') end, function() local n = 0 for i = 1, 1e9 do n = n + i end return n end) end` },
  { name: 'xpcall handler allocates', script: `function f() return xpcall(function() error('x') end, function() ${ALLOC} end) end` },
  { name: 'xpcall handler after a timeout', script: `function f() return xpcall(function() ${LOOP} end, function() ${LOOP} end) end` },
  { name: 'xpcall handler after a stack overflow', script: `function f() return xpcall(function() local function r() return 1 + r() end return r() end, function() ${LOOP} end) end` },
  { name: 'nested xpcall handlers', script: `function f() return xpcall(function() return xpcall(function() error('x') end, function() ${LOOP} end) end, function() ${LOOP} end) end` },
  { name: 'pcall in a loop', script: `function f() while true do pcall(error, 'x') end end` },
  { name: 'table.concat 2,000 x 1 MB', script: `function f() local s = ${MB1} local t = {} for i = 1, 2000 do t[i] = s end return #table.concat(t) end` },
  { name: 's = s .. s doubling', script: `function f() local s = 'x' while true do s = s .. s end end` },
  { name: 'one 8-operand concat of 32 MB', script: `function f() local s = ${MB1} for i = 1, 5 do s = s .. s end local t = s .. s .. s .. s .. s .. s .. s .. s return #t end` },
  { name: 'long string compares in a loop', script: `function f() local s = ${MB1} for i = 1, 4 do s = s .. s end local a, b = s .. 'x', s .. 'y' while true do local e = a == b end end` },
  { name: 'long string as a table key', script: `function f() local s = ${MB1} for i = 1, 3 do s = s .. s end local t = {} for i = 1, 1e9 do t[s .. i] = i end end` },
  { name: 'table.insert at the front of 300k', script: `function f() local t = {} for i = 1, 300000 do t[i] = i end for i = 1, 1e9 do table.insert(t, 1, i) end end` },
  { name: 'table.sort comparator loops', script: `function f() local t = {3, 2, 1} table.sort(t, function(a, b) ${LOOP} end) end` },
  { name: 'generic for iterator loops', script: `function f() for x in function() ${LOOP} end do end end` },
  { name: '__index loops', script: 'function f(o) return o.x end', meta: LOOP },
  { name: '__index allocates', script: 'function f(o) return o.x end', meta: ALLOC },
  { name: '__newindex loops', script: 'function f(o) o.x = 1 end', meta: LOOP },
  { name: '__call loops', script: 'function f(o) return o() end', meta: LOOP },
  { name: '__concat loops', script: 'function f(o) return o .. "x" end', meta: LOOP },
  { name: '__eq loops', script: 'function f(o) return o == {} end', meta: LOOP },
  { name: '__lt loops (table.sort)', script: 'function f(o) table.sort({o, o, o}) end', meta: LOOP },
  { name: '__le loops', script: 'function f(o) return o <= o end', meta: LOOP },
  { name: '__tostring loops (string.format)', script: 'function f(o) return string.format("%s", o) end', meta: LOOP },
  { name: '__len loops', script: 'function f(o) return #o end', meta: LOOP },
  { name: '__index loops, xpcall handler loops', script: `function f(o) return xpcall(function() return o.x end, function() ${LOOP} end) end`, meta: LOOP },
  // Issue 32: what a script produces (test/lua/fixtures/hostile has them as RICs).
  { name: 'error() of 50 x 1 MB (50 MB message)', script: `function f() local s = ${MB1} local t = {} for i = 1, 50 do t[i] = s end error(table.concat(t)) end` },
  { name: 'result of 3,000 refs to one 1 MB string', script: `function f() local s = ${MB1} local t = {} for i = 1, 3000 do t[i] = s end return {big = t} end` },
  { name: 'string.find plain, 30 KB needle in 1 MB', script: `function f() local n = string.format("%015000d", 0) .. "1" .. string.format("%014999d", 0) return string.find(string.format("%0999999d", 0), n, 1, true) end` },
  { name: 'string.format("%99999999d")', script: 'function f() return #string.format("%99999999d", 1) end' },
  { name: 'string.format of 100 x "%9999999d"', script: 'function f() local t, a = {}, {} for i = 1, 100 do t[i] = "%9999999d" a[i] = i end return #string.format(table.concat(t), unpack(a)) end' },
  { name: 'table.sort by tonumber of 1 MB strings', script: `function f() local s = ${MB1} local t = {} for i = 1, 2000 do t[i] = s end table.sort(t, tonumber) end` },
  { name: 'table.sort, comparator always true', script: 'function f() local t = {} for i = 1, 200000 do t[i] = i % 7 end table.sort(t, function() return true end) end' },
];

const METAMETHODS = ['__index', '__newindex', '__call', '__concat', '__eq', '__lt', '__le', '__tostring', '__len', '__add'];

/** Pushes a table whose metamethods are all the Lua chunk `body` (compiled outside the sandbox's library). */
function pushHostile(L: LuaState, body: string): number {
  lua.lua_createtable(L, 0, 0);
  lua.lua_createtable(L, 0, METAMETHODS.length);
  for (const name of METAMETHODS) {
    lua.lua_pushstring(L, to_luastring(name));
    if (lauxlib.luaL_loadbuffer(L, to_luastring(body), null, to_luastring('=meta')) !== lua.LUA_OK) throw new Error(lua.lua_tojsstring(L, -1));
    lua.lua_rawset(L, -3);
  }
  lua.lua_setmetatable(L, -2);
  return 1;
}

function rssMiB(): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : process.memoryUsage().rss / 2 ** 20;
}

interface Result {
  name: string;
  ms: number;
  error: string;
  baseRss: number;
  peakRss: number;
  /** Bytes of the error message as it left the sandbox (a script's huge message is cut to 4 KiB). */
  errorBytes: number;
}

function runCase(c: Case): Result {
  const sb = new LuaSandbox();
  // Warm up the state and the JIT so the figures are the hostile call's own.
  for (let i = 0; i < 200; i++) sb.run('function f(o) return 1 end', 'f', 'Warmup', [], 1, (L) => luaToJs(L, 1));
  const baseRss = rssMiB();
  const start = performance.now();
  let error = '';
  try {
    const r = sb.run(c.script, 'f', 'Bench', c.meta ? (L) => pushHostile(L, c.meta!) : [], 2, (L) => [luaToJs(L, 1), luaToJs(L, 2)]);
    error = `returned ${JSON.stringify(r)}`;
  } catch (e) {
    error = (e as Error).message;
  }
  const ms = performance.now() - start;
  return { name: c.name, ms, error, baseRss, peakRss: process.resourceUsage().maxRSS / 1024, errorBytes: Buffer.byteLength(error) };
}

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

async function parent(): Promise<void> {
  const timeoutS = option('--timeout', 30);
  const rssCap = option('--rss-cap', 1536);
  const only = process.argv.indexOf('--only');
  const cases = only >= 0 ? CASES.filter((c) => c.name.includes(process.argv[only + 1]!)) : CASES;
  const self = fileURLToPath(import.meta.url);
  console.log(`budget 1000 ms, memory cap 256 MiB; child killed after ${timeoutS} s or at ${rssCap} MiB RSS`);
  console.log('case'.padEnd(42), 'to error'.padStart(10), 'over budget'.padStart(12), 'RSS before'.padStart(11), 'peak RSS'.padStart(9), 'growth'.padStart(7), ' error');
  for (const c of cases) {
    const r = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [...process.execArgv, self, '--case', c.name], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      let peak = 0;
      const started = performance.now();
      child.stdout.on('data', (d) => (out += d));
      const watch = setInterval(() => {
        try {
          const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
          if (m) peak = Math.max(peak, Number(m[1]) / 1024);
        } catch {
          return;
        }
        const elapsed = (performance.now() - started) / 1000;
        if (elapsed > timeoutS + 5 || peak > rssCap) {
          child.kill('SIGKILL');
          resolve(`${c.name.padEnd(42)} ${'killed'.padStart(10)} ${''.padStart(12)} ${''.padStart(11)} ${peak.toFixed(0).padStart(9)} ${''.padStart(7)}  killed after ${elapsed.toFixed(1)} s at ${peak.toFixed(0)} MiB RSS (${peak > rssCap ? 'RSS cap' : 'time limit'})`);
        }
      }, 50);
      child.on('exit', () => {
        clearInterval(watch);
        try {
          const res = JSON.parse(out) as Result;
          resolve(
            `${res.name.padEnd(42)} ${`${res.ms.toFixed(0)} ms`.padStart(10)} ${`${(res.ms - 1000).toFixed(0)} ms`.padStart(12)} ${`${res.baseRss.toFixed(0)} MiB`.padStart(11)} ${`${res.peakRss.toFixed(0)}`.padStart(9)} ${`${(res.peakRss - res.baseRss).toFixed(0)}`.padStart(7)}  ${res.errorBytes > 110 ? `[${res.errorBytes} bytes] ` : ''}${res.error.slice(0, 110)}`,
          );
        } catch {
          resolve(`${c.name.padEnd(42)} (no result: ${out.slice(0, 80)})`);
        }
      });
    });
    console.log(r);
  }
}

const caseIdx = process.argv.indexOf('--case');
if (caseIdx >= 0) {
  const c = CASES.find((x) => x.name === process.argv[caseIdx + 1]);
  if (!c) throw new Error(`no case ${process.argv[caseIdx + 1]}`);
  process.stdout.write(JSON.stringify(runCase(c)));
} else await parent();
