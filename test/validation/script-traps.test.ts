// The static trap scan of RIC scripts: each known trap is found, with its line; ordinary scripts pass clean.
import { describe, expect, it } from 'vitest';
import { findScriptTraps, ricScriptWarnings } from '../../src/validation/script-traps.js';

const messages = (src: string) => findScriptTraps(src).map((t) => `${t.line}: ${t.message}`);

describe('findScriptTraps', () => {
  it.each([
    ['an inline handler with a while loop', `xpcall(function() error('x') end, function(e) while x do end return e end)`, '1: the xpcall message handler contains a while loop; a handler should only format the error and return it'],
    ['an inline handler with a repeat loop', `xpcall(f, function(e) repeat e = e .. 'x' until #e > 10 return e end)`, '1: the xpcall message handler contains a repeat loop; a handler should only format the error and return it'],
    ['a named handler with a for loop', `local function h(e)\n  for i = 1, 10 do end\n  return e\nend\nreturn xpcall(f, h)`, '5: the xpcall message handler contains a for loop; a handler should only format the error and return it'],
    ['a recursive handler', `local function h(e) return h(e) end\nxpcall(f, h)`, '2: the xpcall message handler contains recursion through h; a handler should only format the error and return it'],
    ['a handler that calls a looping function', `local function spin() while x do end end\nxpcall(f, function(e) spin() return e end)`, '2: the xpcall message handler contains a while loop in spin; a handler should only format the error and return it'],
    ['while true with no exit', `local n = 0\nwhile true do\n  n = n + 1\nend`, '2: while true do has no break, return or error(): it loops until the time budget ends'],
    ['a break that only leaves an inner loop', `while true do for i = 1, 2 do break end end`, '1: while true do has no break, return or error(): it loops until the time budget ends'],
    ['repeat until false', `repeat local x = 1 until false`, '1: repeat ... until false has no break, return or error(): it loops until the time budget ends'],
    ['string.rep of a constant product', `return string.rep("x", 1024 * 1024 * 1024)`, '1: string.rep builds a string of 1.1G bytes; scripts get a memory budget far below that'],
    ['a method rep of a power', `return ("ab"):rep(2^24)`, '1: string.rep builds a string of 33.6M bytes; scripts get a memory budget far below that'],
    ['doubling in a loop', `local s = "x"\nfor i = 1, 64 do\n  s = s .. s\nend`, '3: s = s .. s in a loop doubles the string each time round; it outgrows the memory budget in a few dozen rounds'],
    ['a for loop to math.huge', `for i = 1, math.huge do x = i end`, '1: the for loop runs to math.huge with no break, return or error(): it loops until the time budget ends'],
  ])('%s', (_what, src, expected) => {
    expect(messages(src)).toContain(expected);
  });

  it.each([
    ['a handler that formats the error', `return xpcall(f, function(e) return 'failed: ' .. tostring(e) end)`],
    ['debug.traceback as the handler', `return xpcall(f, debug.traceback)`],
    ['while true with a break', `while true do if x then break end end`],
    ['while true with a return in an inner loop', `while true do for i = 1, 2 do return 1 end end`],
    ['while true ended by error()', `while true do error('stop') end`],
    ['a loop in a nested function is not the outer loop\'s way out, but not a trap of the handler either', `local t = {}\nfor _, v in ipairs(items) do t[#t + 1] = v end\nreturn xpcall(f, function(e) return e end)`],
    ['a small string.rep', `return string.rep("-", 80)`],
    ['string.rep of a variable', `return string.rep("-", n)`],
    ['concatenation of two names', `for i = 1, 3 do s = s .. t end`],
    ['doubling outside any loop', `local s = "ab"\ns = s .. s`],
    ['a for loop over a length', `for i = 1, #items do end`],
    ['traps inside comments and strings', `-- while true do end\nlocal s = [[ while true do end ]]\nlocal u = "xpcall(f, function() while true do end end)"`],
  ])('passes %s', (_what, src) => {
    expect(messages(src)).toEqual([]);
  });

  it('passes every built-in interpreter script', async () => {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { parseAllDocuments } = await import('yaml');
    const root = join(import.meta.dirname, '..', '..', 'interpreters');
    const files = (d: string): string[] => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? files(join(d, n)) : n.endsWith('.yaml') ? [join(d, n)] : []));
    let scripts = 0;
    const found: string[] = [];
    for (const f of files(root)) {
      for (const doc of parseAllDocuments(readFileSync(f, 'utf8'))) {
        const ric = doc.toJS() as Record<string, unknown> | null;
        if (!ric) continue;
        scripts += Object.keys(((ric.spec as Record<string, Record<string, unknown>>)?.customizations ?? {}) as object).length;
        found.push(...ricScriptWarnings(ric).map((w) => `${f}: ${w}`));
      }
    }
    expect(scripts).toBeGreaterThan(50);
    expect(found).toEqual([]);
  });
});

describe('ricScriptWarnings', () => {
  it('names the operation and the line, in the order of the operations', () => {
    const ric = {
      spec: {
        customizations: {
          healthInterpretation: { luaScript: 'function InterpretHealth(o)\n  while true do end\nend' },
          retention: { luaScript: 'function Retain(d, o)\n  return string.rep("x", 1e9)\nend' },
        },
      },
    };
    expect(ricScriptWarnings(ric)).toEqual([
      'InterpreterOperation(Retain) Lua script line 2: string.rep builds a string of 1G bytes; scripts get a memory budget far below that',
      'InterpreterOperation(InterpretHealth) Lua script line 2: while true do has no break, return or error(): it loops until the time budget ends',
    ]);
  });

  it('sums up past ten warnings in one line', () => {
    const script = Array.from({ length: 14 }, () => 'while true do end').join('\n');
    const w = ricScriptWarnings({ spec: { customizations: { healthInterpretation: { luaScript: script } } } });
    expect(w).toHaveLength(10);
    expect(w[9]).toBe('and 5 more risky constructs in these scripts');
  });
});
