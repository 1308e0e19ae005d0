import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError, parseDocuments } from '../../src/io/documents.js';
import { indentQuotedContinuations } from '../../src/io/yaml-quoted.js';

const CORPUS = join(import.meta.dirname, '../../conformance/yaml');
const files = readdirSync(CORPUS).filter((f) => f.endsWith('.yaml'));

describe('conformance/yaml: what go-yaml accepts is accepted', () => {
  for (const f of files.filter((x) => !x.startsWith('reject-'))) {
    it(f, () => {
      const text = readFileSync(join(CORPUS, f), 'utf8');
      const want = JSON.parse(readFileSync(join(CORPUS, f.replace(/\.yaml$/, '.json')), 'utf8')) as unknown;
      const fixture = f.includes('-in-fixture');
      const got = parseDocuments(text, f, fixture ? { duplicateKeys: 'last-wins' } : {}).map((d) => d.object);
      expect(Array.isArray(want) ? got : got[0]).toEqual(want);
      // Manifests keep kubectl's strict decoding: a duplicate key is refused there.
      if (fixture) expect(() => parseDocuments(text, f)).toThrow(/Map keys must be unique/);
    });
  }
  for (const f of files.filter((x) => x.startsWith('reject-'))) {
    it(`${f} stays rejected, with the first parse's message`, () => {
      const text = readFileSync(join(CORPUS, f), 'utf8');
      expect(() => parseDocuments(text, f)).toThrow(InputError);
      expect(() => parseDocuments(text, f)).toThrow(/Missing closing "quote/);
    });
  }
});

describe('indentQuotedContinuations', () => {
  it('leaves text that needs nothing alone', () => {
    expect(indentQuotedContinuations('a:\n  b: "x\n    y"\n')).toBeNull();
    expect(indentQuotedContinuations("a: it's\nb: 'c'\n")).toBeNull();
  });
  it('indents a continuation one column past the node that holds the scalar', () => {
    expect(indentQuotedContinuations('a:\n  b: "x\n  y"\n')).toBe('a:\n  b: "x\n   y"\n');
    expect(indentQuotedContinuations('- m: "x\n  y"\n')).toBe('- m: "x\n   y"\n');
  });
  it('does not look inside block scalars or comments', () => {
    expect(indentQuotedContinuations('s: |\n  "open\nt: 1 # "open\n')).toBeNull();
  });
});
