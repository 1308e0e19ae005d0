import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runTestTree } from '../../src/interpreter/test-tree.js';
import { scaled } from '../time-scale.js';

// Every fixture tree runs through the same code as `karmada-lite interpret test DIR`.
function run(dir: string) {
  const lines: string[] = [];
  const r = runTestTree(dir, { log: (l) => lines.push(l), verbose: false });
  return { ...r, output: lines.join('\n') };
}

describe('interpret test conformance/lua', () => {
  it('passes every sandbox and conversion fixture', () => {
    const r = run('conformance/lua');
    expect(r.output).toMatch(/^\d+ passed, 0 failed$/m);
    expect(r.failed, r.output).toBe(0);
    expect(r.passed).toBeGreaterThan(60);
  }, scaled(60_000));
});

describe.skipIf(!existsSync('conformance/interpreters'))('interpret test conformance/interpreters', () => {
  it('passes every built-in interpreter fixture', () => {
    const r = run('conformance/interpreters');
    expect(r.failed, r.output).toBe(0);
    expect(r.passed).toBeGreaterThan(0);
  }, scaled(120_000));
});

describe.skipIf(!existsSync('conformance/interpreters'))('the controllers\' result memo', () => {
  it('gives every built-in interpreter fixture its expected result, run twice (recorded, then remembered)', () => {
    const lines: string[] = [];
    const r = runTestTree('conformance/interpreters', { log: (l) => lines.push(l), verbose: false, memoize: true });
    expect(r.failed, lines.join('\n')).toBe(0);
    expect(r.passed).toBe(run('conformance/interpreters').passed);
  }, scaled(120_000));

  it('gives every sandbox and conversion fixture its expected result, run twice', () => {
    const lines: string[] = [];
    const r = runTestTree('conformance/lua', { log: (l) => lines.push(l), verbose: false, memoize: true });
    expect(r.failed, lines.join('\n')).toBe(0);
  }, scaled(60_000));
});
