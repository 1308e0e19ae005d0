import { describe, expect, it } from 'vitest';
import { evalJsonPath } from '../../src/core/jsonpath.js';

const status = { replicas: 3, ready: true, id: 'job-42', items: [{ name: 'a' }, { name: 'b' }], labels: { 'app.kubernetes.io/name': 'web' }, nested: { x: 1 } };

describe('JSONPath of state preservation rules', () => {
  it('prints strings as they are and other values as JSON', () => {
    expect(evalJsonPath('{.id}', status)).toBe('job-42');
    expect(evalJsonPath('{ .replicas }', status)).toBe('3');
    expect(evalJsonPath('{.ready}', status)).toBe('true');
    expect(evalJsonPath('{.nested}', status)).toBe('{"x":1}');
  });
  it('indexes arrays (negative from the end) and quoted keys', () => {
    expect(evalJsonPath('{.items[1].name}', status)).toBe('b');
    expect(evalJsonPath('{.items[-1].name}', status)).toBe('b');
    expect(evalJsonPath("{.labels['app.kubernetes.io/name']}", status)).toBe('web');
  });
  it('a missing key, an index out of range or other syntax is an error naming the expression', () => {
    expect(() => evalJsonPath('{.absent}', status)).toThrow('jsonPath {.absent}: absent is not found');
    expect(() => evalJsonPath('{.items[5]}', status)).toThrow('array index out of bounds: index 5, length 2');
    expect(() => evalJsonPath('{.items[*].name}', status)).toThrow('unsupported syntax at "[*].name"');
    expect(() => evalJsonPath('.replicas', status)).toThrow('must be one {...} expression');
  });
});
