/**
 * docs/cli-reference.md is what scripts/cli-reference.ts makes from every command's --help: a changed --help
 * fails here until `npx tsx scripts/cli-reference.ts` is run and its output committed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cliReferencePath, renderCliReference } from '../../scripts/cli-reference.js';
import { scaled } from '../time-scale.js';

describe('docs/cli-reference.md', () => {
  it('is current: regenerate it with `npx tsx scripts/cli-reference.ts` when a --help changed', async () => {
    const want = await renderCliReference();
    // every command is there, with its examples (the text added after the options)
    for (const cmd of ['validate', 'plan', 'interpret test', 'interpret serve', 'controller', 'get', 'register', 'completion']) {
      expect(want).toContain(`\n## karmada-lite ${cmd}\n`);
    }
    expect(want).toMatch(/## karmada-lite plan\n\n```text\nUsage: karmada-lite plan [^]*?Examples?:/);
    expect(want).not.toContain('## karmada-lite __complete');
    expect(readFileSync(cliReferencePath, 'utf8') === want, 'docs/cli-reference.md is stale: run npx tsx scripts/cli-reference.ts').toBe(true);
  }, scaled(60_000));
});
