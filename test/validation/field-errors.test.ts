import { describe, expect, it } from 'vitest';
import { aggregate, errorText, goJSON, goNumber, goQuote, invalid, json, notSupported, plain, required, scalar, str, tooLong } from '../../src/validation/field-errors.js';

describe('field error texts', () => {
  it('renders each error type as apimachinery does', () => {
    expect(errorText(invalid('spec.x', str('ns-2'), 'detail'))).toBe('spec.x: Invalid value: "ns-2": detail');
    expect(errorText(invalid('spec.x', scalar(-100), 'd'))).toBe('spec.x: Invalid value: -100: d');
    expect(errorText(invalid('spec.x', scalar(false), 'd'))).toBe('spec.x: Invalid value: false: d');
    expect(errorText(invalid('spec.x', json(null), 'd'))).toBe('spec.x: Invalid value: null: d');
    expect(errorText(invalid('spec.x', json({ db: 'new' }), 'd'))).toBe('spec.x: Invalid value: {"db":"new"}: d');
    expect(errorText(required('spec.f[0]', 'must have one'))).toBe('spec.f[0]: Required value: must have one');
    expect(errorText(notSupported('spec.op', json('Lt'), ['', 'Exists']))).toBe('spec.op: Unsupported value: "Lt": supported values: "", "Exists"');
    expect(errorText(tooLong('spec.v', 262144))).toBe('spec.v: Too long: may not be more than 262144 bytes');
    expect(errorText(plain('the schedulerName should not be updated'))).toBe('the schedulerName should not be updated');
  });

  it('aggregates one error bare, several bracketed, duplicates once in first position', () => {
    const a = plain('a');
    const b = plain('b');
    expect(aggregate([a])).toBe('a');
    expect(aggregate([a, b, a])).toBe('[a, b]');
    expect(aggregate([b, a, b, a])).toBe('[b, a]');
  });

  it('quotes strings like Go %q', () => {
    expect(goQuote('plain')).toBe('"plain"');
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote('tab\there\nnl')).toBe('"tab\\there\\nnl"');
    expect(goQuote('\x01\x7f')).toBe('"\\x01\\x7f"');
    expect(goQuote('héllo ☃')).toBe('"héllo ☃"');
  });

  it('encodes JSON like Go encoding/json (HTML-safe)', () => {
    expect(goJSON({ a: '<b>&' })).toBe('{"a":"\\u003cb\\u003e\\u0026"}');
    expect(goJSON(undefined)).toBe('null');
    expect(goJSON(['\b'])).toBe('["\\u0008"]');
  });

  it('prints numbers like Go %v', () => {
    expect(goNumber(600)).toBe('600');
    expect(goNumber(1.5)).toBe('1.5');
    expect(goNumber(1e21)).toBe('1e+21');
    expect(goNumber(1e-7)).toBe('1e-07');
  });
});
