import { describe, expect, it } from 'vitest';
import { goSprintf, type FormatArg } from '../../src/lua/format.js';
import { formatLuaNumber, goFormatF, goFormatG, goToNumber } from '../../src/lua/numbers.js';
import { osDate, osTime } from '../../src/lua/oslib.js';
import { patternFind } from '../../src/lua/patterns.js';

const n = (v: number): FormatArg => ({ t: 'number', v });
const s = (v: string): FormatArg => ({ t: 'string', v });
const noTick = () => {};
const b = (x: string) => Buffer.from(x);

describe('gopher-lua number printing', () => {
  it.each([
    [3, '3'],
    [1e15, '1000000000000000'],
    [0.1 + 0.2, '0.30000000000000004'],
    [1234567.5, '1.2345675e+06'],
    [1e20, '1e+20'],
    [-0, '0'],
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
    [1e-5, '1e-05'],
    [-(2 ** 63), '-9223372036854775808'],
  ])('%s prints as %s', (v, out) => expect(formatLuaNumber(v)).toBe(out));

  it('rounds exact ties to even like Go', () => {
    expect(goFormatF(0.125, 2)).toBe('0.12');
    expect(goFormatF(0.375, 2)).toBe('0.38');
    expect(goFormatF(2.5, 0)).toBe('2');
    expect(goFormatG(1234.5678, 3)).toBe('1.23e+03');
  });
});

describe('tonumber', () => {
  it.each([
    ['1e3', null],
    ['+5', 5],
    ['1.5e3', 1500],
    ['inf', null],
    [' 12\n', 12],
    ['0x1F', 31],
    ['1.', 1],
    ['.5', 0.5],
    ['abc', null],
    ['9223372036854775808', null],
  ])('tonumber(%j) = %j', (input, out) => expect(goToNumber(input)).toBe(out));
  it('honours a base', () => expect(goToNumber('ff', 16)).toBe(255));
});

describe('string.format as Go Sprintf', () => {
  it.each<[string, FormatArg[], string]>([
    ['%d', [n(2.5)], '2'],
    ['%d', [n(-2.5)], '-2'],
    ['%s', [n(3)], '3'],
    ['%s', [n(0.1)], '0.1'],
    ['%5.2f', [n(1.005)], ' 1.00'],
    ['%f%s', [n(1408), s('Mi')], '1408.000000Mi'],
    ['%g', [n(1e6)], '1e+06'],
    ['%d and %d', [n(1)], '1 and %!d(MISSING)'],
    ['%q', [s('a"b')], '"a\\"b"'],
    ['%x', [n(255)], 'ff'],
    ['%05d', [n(-42)], '-0042'],
    ['%-4s|', [s('a')], 'a   |'],
    ['%d%%', [n(50)], '50%'],
    ['%d', [s('12')], '12'],
    ['%d', [s('abc')], '0'],
    ['%s', [{ t: 'nil' }], 'nil'],
    ['%v', [{ t: 'boolean', v: true }], 'true'],
    ['%c', [n(65)], 'A'],
    ['%e', [n(123456)], '1.234560e+05'],
  ])('format(%j, ...)', (fmt, args, out) => expect(goSprintf(fmt, args)).toBe(out));
});

describe('Lua 5.1 patterns', () => {
  it('finds with captures and anchors', () => {
    expect(patternFind(b('key=value'), b('(%w+)=(%w+)'), 0, false, true, noTick)).toMatchObject({ start: 1, end: 9 });
    expect(patternFind(b('1408Mi'), b('^(%d+%.?%d*)([a-z]*)$'), 0, false, false, noTick)).toBeNull();
    const m = patternFind(b('1408mi'), b('^(%d+%.?%d*)([a-z]*)$'), 0, false, false, noTick)!;
    expect(m.captures.map((c) => Buffer.from(c as Uint8Array).toString())).toEqual(['1408', 'mi']);
    expect(patternFind(b('a.b'), b('.'), 0, true, true, noTick)).toMatchObject({ start: 2, end: 2 });
    expect(patternFind(b('f(a(b)c)'), b('%b()'), 0, false, true, noTick)).toMatchObject({ start: 2, end: 8 });
    expect(patternFind(b('THE (quick) fox'), b('%f[%a]%a+'), 5, false, true, noTick)).toMatchObject({ start: 6, end: 10 });
  });

  it('stops a runaway match through the tick', () => {
    let ticks = 0;
    const tick = () => {
      if (++ticks > 10) throw new Error('budget');
    };
    expect(() => patternFind(b('a'.repeat(5000) + 'b'), b('a*a*a*a*c'), 0, false, true, tick)).toThrow('budget');
  });
});

describe('os library', () => {
  const t = Date.UTC(2024, 1, 3, 4, 5, 6);
  it('formats UTC dates with the reduced flag set', () => {
    expect(osDate('!%Y-%m-%dT%H:%M:%SZ', undefined, t)).toBe('2024-02-03T04:05:06Z');
    expect(osDate('!%a %A %b %B %p %y %%', undefined, t)).toBe('mon Saturday Feb February AM 24 %');
    expect(osDate('!%x', undefined, t)).toBe('04/05/06');
    expect(osDate('!%Q', undefined, t)).toBe('%Q');
    expect(osDate('!*t', undefined, t)).toMatchObject({ year: 2024, month: 2, day: 3, wday: 7, yday: 0, isdst: false });
  });
  it('defaults os.time fields like Karmada', () => {
    expect(osTime(undefined, t)).toBe(Math.floor(t / 1000));
    expect(osTime({ year: 2024, month: 1, day: 2, hour: 0 }, t) - osTime({ year: 2024, month: 1, day: 1, hour: 0 }, t)).toBe(86400);
  });
});
