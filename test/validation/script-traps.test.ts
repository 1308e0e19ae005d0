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

// Issue 32: the shapes of the hostile scripts, where they can be seen without running anything.
describe('findScriptTraps: what a script produces', () => {
  const fixture = async (name: string) => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { parse } = await import('yaml');
    const ric = parse(readFileSync(join(import.meta.dirname, '..', 'lua', 'fixtures', 'hostile', `${name}.yaml`), 'utf8')) as Record<string, unknown>;
    return ricScriptWarnings(ric);
  };

  it.each([
    ['a width Go refuses', `return string.format("%99999999d", 1)`, "1: string.format width or precision 99999999 is more than Go's fmt takes: it prints %!(NOVERB) and drops the rest of the format"],
    ['a huge width', `local s = string.format("%0999999d", 1)`, '1: string.format pads to 999999 bytes; no field of a status or a spec holds that much'],
    ['a huge precision, as a method', `return ("%.5000000f"):format(1)`, '1: string.format pads to 5M bytes; no field of a status or a spec holds that much'],
    [
      'a loop storing one big string',
      `local s = string.format("%0999999d", 1)\nlocal t = {}\nfor i = 1, 3000 do\n  t[i] = s\nend\nreturn {big = t}`,
      '4: t gets the 999999-byte string s once per loop round: one string to the memory budget, but every reference is copied when the result is converted (a result past 1.5 MiB is refused) or the table is joined',
    ],
    [
      'table.insert of a big string in a loop',
      `local s = string.rep("ab", 500000)\nlocal t = {}\nwhile #t < 10 do table.insert(t, s) end`,
      '3: t gets the 1M-byte string s once per loop round: one string to the memory budget, but every reference is copied when the result is converted (a result past 1.5 MiB is refused) or the table is joined',
    ],
    [
      'error() of such a table joined',
      `local s = string.format("%0999999d", 1)\nlocal t = {}\nfor i = 1, 50 do t[i] = s end\nerror(table.concat(t))`,
      '4: error(table.concat(t)) raises a message holding every copy of s; only its first 4 KiB is kept',
    ],
    [
      'string.find with plain over a big string',
      `local hay = string.format("%0999999d", 0)\nreturn string.find(hay, needle, 1, true)`,
      '2: string.find with plain over the 999999-byte string hay reads all of it on every call',
    ],
  ])('%s', (_what, src, expected) => {
    expect(messages(src)).toContain(expected);
  });

  it.each([
    ['an ordinary format', `return string.format("%s/%s: %5.2f%%", ns, name, ratio)`],
    ['a format of a variable', `return string.format(fmt, 1)`],
    ['a loop storing small strings', `local s = "x"\nlocal t = {}\nfor i = 1, 10 do t[i] = s end`],
    ['error of conditions joined', `local msgs = {}\nfor _, c in ipairs(conds) do table.insert(msgs, c.message) end\nerror(table.concat(msgs, "; "))`],
    ['a big string stored once, outside a loop', `local s = string.format("%0200000d", 1)\nlocal t = {}\nt[1] = s`],
    ['a big string concatenated in the loop, not stored as is', `local s = string.format("%0200000d", 1)\nfor i = 1, 3 do t[i] = s .. i end`],
    ['string.find without plain, or over small strings', `local s = "abc"\nreturn string.find(s, "b", 1, true)`],
  ])('passes %s', (_what, src) => {
    expect(messages(src).filter((m) => !m.includes('pads to'))).toEqual([]);
  });

  it('names the shapes of the hostile fixtures', async () => {
    expect(await fixture('format-huge-width')).toEqual([
      "InterpreterOperation(InterpretStatus) Lua script line 2: string.format width or precision 99999999 is more than Go's fmt takes: it prints %!(NOVERB) and drops the rest of the format",
    ]);
    expect((await fixture('huge-result-by-references')).some((w) => w.includes('t gets the 999999-byte string s once per loop round'))).toBe(true);
    expect((await fixture('huge-error-message')).some((w) => w.includes('error(table.concat(t)) raises a message'))).toBe(true);
    expect((await fixture('find-plain-quadratic')).some((w) => w.includes('string.find with plain over the 999999-byte string hay'))).toBe(true);
  });
});
