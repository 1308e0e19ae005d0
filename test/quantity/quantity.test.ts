import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseQuantity, Quantity, QuantityParseError, quantitiesEqual } from '../../src/quantity/quantity.js';

const sum = (...xs: (string | null)[]) => xs.reduce<Quantity>((acc, x) => (x === null ? acc : acc.add(parseQuantity(x))), Quantity.zero()).toString();

describe('parseQuantity canonical form', () => {
  it.each([
    ['1.2', '1200m'],
    ['100m', '100m'],
    ['1000m', '1'],
    ['0.5', '500m'],
    ['1Ki', '1Ki'],
    ['1024Ki', '1Mi'],
    ['1536Ki', '1536Ki'],
    ['1.5Gi', '1536Mi'],
    ['1000', '1k'],
    ['1024', '1024'],
    ['0.1Ki', '102400m'],
    ['129e-2', '1290e-3'],
    ['1e3', '1e3'],
    ['0.1n', '1n'],
    ['-1.5', '-1500m'],
    ['+1', '+1'],
    ['0', '0'],
    ['000', '0'],
    ['1G', '1G'],
  ])('%s -> %s', (input, canonical) => {
    expect(parseQuantity(input).toString()).toBe(canonical);
  });

  it('reads JSON numbers from their text', () => {
    expect(parseQuantity(2).toString()).toBe('2');
    expect(parseQuantity(0.25).toString()).toBe('250m');
  });

  it.each([
    ['abc', "cannot parse 'abc': quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['', "cannot parse '': quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['1Z', "cannot parse '1Z': quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['1e', "cannot parse '1e': unable to parse quantity's suffix"],
    ['1ee3', "cannot parse '1ee3': unable to parse quantity's suffix"],
  ])('rejects %j with Go\'s message', (input, message) => {
    expect(() => parseQuantity(input)).toThrowError(new QuantityParseError(input, message.split(': ').slice(1).join(': ')));
    expect(() => parseQuantity(input)).toThrow(message);
  });
});

describe('Quantity arithmetic', () => {
  it('adds like kube.resourceAdd', () => {
    expect(sum('100m', '1.2')).toBe('1300m');
    expect(sum('100M', '1.2G')).toBe('1300M');
    expect(sum(null, '500m')).toBe('500m');
    expect(sum('1Gi', '1Gi')).toBe('2Gi');
    expect(sum()).toBe('0');
  });

  it('takes the format of the first non-zero operand', () => {
    expect(sum('0', '1Ki', '1Ki')).toBe('2Ki');
    expect(sum('1k', '1Ki')).toBe('2024');
  });

  it('compares numerically regardless of format', () => {
    expect(parseQuantity('1Ki').cmp(parseQuantity('1024'))).toBe(0);
    expect(parseQuantity('1k').cmp(parseQuantity('1Ki'))).toBe(-1);
    expect(parseQuantity('2').cmp(parseQuantity('1500m'))).toBe(1);
    expect(quantitiesEqual('1.3G', 1300000000)).toBe(true);
  });

  it('rounds milli and whole values up, as Go does', () => {
    expect(parseQuantity('1.5').value()).toBe(2);
    expect(parseQuantity('1n').milliValue()).toBe(1);
    expect(parseQuantity('100m').milliValue()).toBe(100);
    expect(parseQuantity('-1.5').value()).toBe(-2);
    expect(parseQuantity('0').isZero()).toBe(true);
  });

  it('approximates floats with Go\'s mantissa times power of ten', () => {
    expect(parseQuantity('100m').asApproximateFloat64()).toBe(0.1);
    expect(parseQuantity('1Gi').asApproximateFloat64()).toBe(1073741824);
    expect(parseQuantity('1.2').asApproximateFloat64()).toBe(12 * 0.1);
  });

  it('renders the resource list formats the scheduler uses', () => {
    expect(Quantity.fromMilli(1500).toString()).toBe('1500m');
    expect(Quantity.fromMilli(2000).toString()).toBe('2');
    expect(Quantity.fromInt(134217728, 'BinarySI').toString()).toBe('128Mi');
    expect(Quantity.fromInt(1000000000, 'BinarySI').toString()).toBe('1000000000');
    expect(Quantity.fromInt(1000, 'BinarySI').toString()).toBe('1k');
  });

  it('round-trips: parsing the canonical form gives the same value', () => {
    const suffix = fc.constantFrom('', 'm', 'k', 'M', 'G', 'Ki', 'Mi', 'Gi', 'n', 'u', 'e3', 'E6');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 999 }), suffix, (whole, frac, suf) => {
        const q = parseQuantity(`${whole}.${String(frac).padStart(3, '0')}${suf}`);
        expect(parseQuantity(q.toString()).cmp(q)).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
