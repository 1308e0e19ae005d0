import { describe, expect, it } from 'vitest';
import { jsonPointerError, labelValueErrors, qualifiedNameErrors, subdomainErrors } from '../../src/validation/labels.js';

const NAME_REGEX_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('qualified names (label keys)', () => {
  it.each(['a', 'app', 'MyName', 'my.name', '123-abc', 'example.com/my_state', 'a'.repeat(63), `${'a'.repeat(253)}/x`])('accepts %s', (k) => {
    expect(qualifiedNameErrors(k)).toEqual([]);
  });

  it('rejects names that start or end badly with the regex message', () => {
    expect(qualifiedNameErrors('-a')).toEqual([NAME_REGEX_MSG]);
    expect(qualifiedNameErrors('a_')).toEqual([NAME_REGEX_MSG]);
    expect(qualifiedNameErrors('a b')).toEqual([NAME_REGEX_MSG]);
  });

  it('gives both the empty and the regex error for an empty name', () => {
    expect(qualifiedNameErrors('')).toEqual(['name part must be non-empty', NAME_REGEX_MSG]);
    expect(qualifiedNameErrors('example.com/')).toEqual(['name part must be non-empty', NAME_REGEX_MSG]);
  });

  it('counts bytes, not characters', () => {
    expect(qualifiedNameErrors('a'.repeat(64))).toEqual(['name part must be no more than 63 bytes']);
    // 62 ASCII letters + one two-byte letter: 63 characters, 64 bytes, and not alphanumeric either
    expect(qualifiedNameErrors(`${'a'.repeat(61)}ék`)).toEqual(['name part must be no more than 63 bytes', NAME_REGEX_MSG]);
  });

  it('checks the prefix as a lowercase DNS subdomain', () => {
    expect(qualifiedNameErrors('/name')).toEqual(['prefix part must be non-empty']);
    expect(qualifiedNameErrors('Example.com/name')[0]).toMatch(/^prefix part a lowercase RFC 1123 subdomain must consist of/);
    expect(qualifiedNameErrors(`${'a'.repeat(254)}/name`)).toEqual(['prefix part must be no more than 253 bytes']);
  });

  it('rejects more than one slash with a single message', () => {
    const errs = qualifiedNameErrors('a/b/c');
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/);
  });

  it('subdomains can be too long and malformed at once', () => {
    expect(subdomainErrors(`-${'a'.repeat(253)}`)).toHaveLength(2);
  });
});

describe('label values', () => {
  it.each(['', 'a', 'my_value', '12345', 'a'.repeat(63)])('accepts %j', (v) => expect(labelValueErrors(v)).toEqual([]));
  it('rejects long and malformed values', () => {
    expect(labelValueErrors('a'.repeat(64))).toEqual(['must be no more than 63 bytes']);
    expect(labelValueErrors('-x')[0]).toMatch(/^a valid label must be an empty string or consist of alphanumeric characters/);
  });
});

describe('JSON pointers', () => {
  it('accepts empty and slash-led pointers only', () => {
    expect(jsonPointerError('')).toBeUndefined();
    expect(jsonPointerError('/a/b~1c')).toBeUndefined();
    expect(jsonPointerError('a/b')).toBe('JSON pointer must be empty or start with a "/"\nJSON pointer error');
  });
});
