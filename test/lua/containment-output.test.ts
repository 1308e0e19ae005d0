// Issue 32: what a script produces is under its budget. The message it throws and the result it returns
// are bounded as the host will hold them, and library functions whose cost is O(n·m) in their arguments
// run inside the call's budget.
import { describe, expect, it } from 'vitest';
import { luaToJs, MAX_RESULT_BYTES } from '../../src/lua/convert.js';
import { MAX_MESSAGE_BYTES } from '../../src/lua/message.js';
import { LuaSandbox, LuaScriptError, type LuaFailureKind } from '../../src/lua/sandbox.js';
import { runLua } from './helpers.js';
import { scaled } from '../time-scale.js';

/** A 999,999-byte string of zeros ending in `d` (string.rep is one of Karmada's disabled functions). */
const MB = (d = 1) => `string.format("%0999999d", ${d})`;

function failure(sb: LuaSandbox, script: string): { kind: LuaFailureKind; message: string } {
  try {
    sb.run(script, 'f', 'Test', [], 1, (L) => luaToJs(L, 1));
  } catch (e) {
    if (e instanceof LuaScriptError) return { kind: e.kind, message: e.message };
    throw e;
  }
  throw new Error('expected the script to fail');
}

/** The whole size a cut message notes, or null when the message was not cut. */
function cutTotal(message: string): number | null {
  const m = /\.\.\. \[message cut to its first (\d+) of (\d+) bytes\]$/.exec(message);
  if (!m) return null;
  expect(Number(m[1])).toBe(MAX_MESSAGE_BYTES);
  return Number(m[2]);
}

describe('the message a script throws is bounded', () => {
  const sb = new LuaSandbox({ budgetMs: 20_000 });
  const fifty = `local s = ${MB()} local t = {} for i = 1, 50 do t[i] = s end`;

  it('error() over 50 copies of a 1 MB string: the first 4 KiB and the whole size', () => {
    const r = failure(sb, `function f() ${fifty} error(table.concat(t)) end`);
    expect(r.kind).toBe('runtime');
    expect(Buffer.byteLength(r.message)).toBeLessThan(MAX_MESSAGE_BYTES + 100);
    expect(r.message.startsWith('<string>:1: 00000')).toBe(true);
    // The position Lua adds plus the 50 pieces.
    expect(cutTotal(r.message)).toBe('<string>:1: '.length + 50 * 999_999);
  });

  it('assert(false, message) is cut the same way', () => {
    const r = failure(sb, `function f() ${fifty} assert(false, table.concat(t)) end`);
    expect(cutTotal(r.message)).toBe(50 * 999_999 + (r.message.startsWith('<string>') ? '<string>:1: '.length : 0));
    expect(Buffer.byteLength(r.message)).toBeLessThan(MAX_MESSAGE_BYTES + 100);
  });

  it('error(value, 0) with no position, and a message cut inside a multi-byte character', () => {
    // 'é' is two bytes: 4095 bytes of ASCII then 'é' straddles the cut, which backs up to the character's start.
    const r = failure(sb, `function f() local a = string.format("%04095d", 0) error(a .. "é" .. ${MB()}, 0) end`);
    expect(r.message.startsWith('0'.repeat(4095) + '... [message cut')).toBe(true);
    expect(cutTotal(r.message)).toBe(4095 + 2 + 999_999);
  });

  it('a compile error quoting a long token is cut too', () => {
    const r = failure(sb, `function f() return "${'x'.repeat(100_000)}\nend`);
    expect(r.kind).toBe('compile');
    expect(Buffer.byteLength(r.message)).toBeLessThan(MAX_MESSAGE_BYTES + 100);
    expect(cutTotal(r.message)).toBeGreaterThan(100_000);
    // compile() (validate, the webhook's compile check) answers the same bounded text.
    expect(sb.compile(`function f() return "${'x'.repeat(100_000)}\nend`)).toBe(r.message);
  });

  it('inside the script the message is whole: pcall sees all of it', () => {
    expect(runLua(sb, `function f() ${fifty} local ok, m = pcall(error, table.concat(t), 0) return #m end`)).toBe(50 * 999_999);
  });

  it('ordinary messages are unchanged', () => {
    expect(failure(sb, 'function f() error("boom") end').message).toBe('<string>:1: boom');
    expect(failure(sb, 'function f() assert(false, "no") end').message).toBe('<string>:1: no');
    expect(failure(sb, 'function f() error({}) end').message).toMatch(/^table: 0x[0-9a-f]+$/);
  });
});

describe('the result counts as the host will hold it', () => {
  const sb = new LuaSandbox();

  it('3,000 references to one 1 MB string are refused while converting, naming the operation and the bound', () => {
    const r = failure(sb, `function f() local s = ${MB()} local t = {} for i = 1, 3000 do t[i] = s end return {big = t} end`);
    expect(r.kind).toBe('memory');
    expect(r.message).toMatch(new RegExp(`^Test: result is larger than ${MAX_RESULT_BYTES} bytes as JSON \\(conversion stopped at \\d+ bytes\\)`));
    // Stopped at the first string past the bound, not after building 3 GB.
    const stopped = Number(/stopped at (\d+)/.exec(r.message)![1]);
    expect(stopped).toBeGreaterThan(MAX_RESULT_BYTES);
    expect(stopped).toBeLessThan(MAX_RESULT_BYTES + 1_000_010);
  });

  it('many small values count too', () => {
    // 250,000 elements of 7 bytes each ("abcd" and a comma) are 1.75 MB.
    const r = failure(new LuaSandbox({ budgetMs: 20_000 }), 'function f() local t = {} for i = 1, 250000 do t[i] = "abcd" end return t end');
    expect(r.message).toMatch(/^Test: result is larger than/);
  });

  it('numbers count as their text: 700,000 one-digit numbers (1.4 MB as JSON) are under the bound', () => {
    const n = runLua(new LuaSandbox({ budgetMs: 20_000 }), 'function f() local t = {} for i = 1, 700000 do t[i] = i % 10 end return t end') as number[];
    expect(JSON.stringify(n).length).toBe(1_400_001);
  });

  it('a result under the bound is returned whole', () => {
    const v = runLua(sb, `function f() local s = ${MB()} return {one = s, n = 1} end`) as { one: string; n: number };
    expect(v.one.length).toBe(999_999);
    expect(v.n).toBe(1);
  });
});

describe('library functions whose cost is O(n·m) run inside the budget', () => {
  it(
    'string.find plain: a 30 KB needle against a 1 MB haystack answers at once (naively 3e10 compares)',
    () => {
      const sb = new LuaSandbox();
      const needle = `string.format("%015000d", 0) .. "1" .. string.format("%014999d", 0)`;
      expect(runLua(sb, `function f() local hay = ${MB(0)} return {string.find(hay, ${needle}, 1, true)} end`)).toEqual([]);
      // The same search that finds: where the haystack holds the needle.
      expect(runLua(sb, `function f() local hay = string.format("%0500000d", 0) .. "1" .. string.format("%0499998d", 0) return {string.find(hay, ${needle}, 1, true)} end`)).toEqual([
        500_000 - 15_000 + 1,
        500_000 - 15_000 + 30_000,
      ]);
    },
    scaled(20_000),
  );

  it('string.find plain agrees with a naive search on many small random cases', () => {
    const sb = new LuaSandbox();
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const cases: [string, string, number][] = [];
    for (let k = 0; k < 300; k++) {
      const hay = Array.from({ length: 20 + rnd(200) }, () => 'ab'[rnd(2)]).join('');
      const needle = Array.from({ length: 1 + rnd(40) }, () => 'ab'[rnd(2)]).join('');
      cases.push([hay, needle, 1 + rnd(10)]);
    }
    const got = runLua(sb, 'function f(cases) local out = {} for i, c in ipairs(cases) do out[i] = string.find(c[1], c[2], c[3], true) or 0 end return out end', 'f', [cases]);
    expect(got).toEqual(cases.map(([h, n, init]) => h.indexOf(n, init - 1) + 1));
  });

  it(
    'string.format with many wide directives stops as the string grows, not once it is built',
    () => {
      const sb = new LuaSandbox();
      const r = failure(sb, 'function f() local t, a = {}, {} for i = 1, 100 do t[i] = "%999999d" a[i] = i end return string.format(table.concat(t), unpack(a)) end');
      expect(r.kind).toBe('memory');
      // 100 directives are 99,999,900 bytes; the check fires within a directive of the 64 MiB limit.
      const size = Number(/string of (\d+) bytes exceeds/.exec(r.message)![1]);
      expect(size).toBeLessThan(64 * 1024 * 1024 + 1_000_001);
    },
    scaled(20_000),
  );

  it('string.format takes the widths gopher-lua (Go fmt) takes: up to 7 digits, no `*` from a Lua number', () => {
    const sb = new LuaSandbox();
    expect(runLua(sb, 'function f() return string.format("%99999999d", 1) end')).toBe('%!(NOVERB)%!(EXTRA lua.LNumber=1)');
    expect(runLua(sb, 'function f() return string.format("a%.99999999fb%d", 1, 2) end')).toBe('a%!(NOVERB)%!(EXTRA lua.LNumber=1, lua.LNumber=2)');
    expect(runLua(sb, 'function f() return string.format("%*d", 5, 1) end')).toBe('%!(BADWIDTH)%!d(MISSING)');
    expect(runLua(sb, 'function f() return #string.format("%2000000d", 1) end')).toBe(2_000_000);
    expect(runLua(sb, 'function f() return string.format("%5.2f|%-4d|", 3.14159, 7) end')).toBe(' 3.14|7   |');
  });

  it(
    'table.sort with a library function as comparator is stopped by the budget',
    () => {
      // tonumber of a 1 MB string runs no Lua instruction and takes tens of milliseconds; a sort of 2,000
      // makes thousands of them (two minutes before).
      const sb = new LuaSandbox();
      const r = failure(sb, `function f() local s = ${MB()} local t = {} for i = 1, 2000 do t[i] = s end table.sort(t, tonumber) return #t end`);
      expect(r).toEqual({ kind: 'timeout', message: 'Test: script exceeded its 1s budget' });
    },
    scaled(20_000),
  );

  it('table.sort keeps its results and errors', () => {
    const sb = new LuaSandbox();
    expect(runLua(sb, 'function f() local t = {3, 1, 2} table.sort(t) return t end')).toEqual([1, 2, 3]);
    expect(runLua(sb, 'function f() local t = {3, 1, 2} table.sort(t, function(a, b) return a > b end) return t end')).toEqual([3, 2, 1]);
    expect(runLua(sb, 'function f() local t = {"b", "a"} table.sort(t, nil) return t end')).toEqual(['a', 'b']);
    // The texts of fengari's sort, as before.
    expect(failure(sb, 'function f() table.sort({3, 1}, 5) end').message).toBe("<string>:1: bad argument #2 to 'sort' (function expected, got number)");
    expect(failure(sb, 'function f() table.sort({3, "x", 1}) end').message).toBe('attempt to compare string with number');
    expect(failure(sb, 'function f() table.sort({3, 2, 1}, function(a, b) return a.x < b end) end').message).toBe("<string>:1: attempt to index a non-table object(number) with key 'x'");
    expect(failure(sb, 'function f() local t = {} for i = 1, 1000 do t[i] = i % 7 end table.sort(t, function() return true end) end').message).toBe(
      '<string>:1: invalid order function for sorting',
    );
  });
});
