/**
 * Every offline command of README.md and docs/ runs as written (docs/development.md, "Commands in these docs
 * are tested"): each `<!-- test: offline -->` block runs with bash in a scratch copy of the checkout, with the
 * checkout's CLI as `karmada-lite`, and must exit 0; the README's set-up command must print its sample rows.
 * Blocks that need clusters run in test/integration/docs-commands.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { docFiles, extractBlocks, missingLines, runScript, scratchCheckout, scriptOf, setupBlock } from './blocks.js';
import { scaled } from '../time-scale.js';

const setup = setupBlock();
const extracted = docFiles().map((file) => ({ file, ...extractBlocks(file, file === 'README.md' ? [setup.line] : []) }));
const offline = extracted.flatMap((e) => e.blocks.filter((b) => b.kind === 'offline'));
const scratch = scratchCheckout();
afterAll(() => scratch.remove());

describe('the commands of README.md and docs/', () => {
  it('every shell block says how it is tested, and every skip says why', () => {
    expect(extracted.flatMap((e) => e.problems)).toEqual([]);
    // the pages this suite is for have commands at all (a parser that finds nothing would pass the rest)
    expect(offline.length).toBeGreaterThanOrEqual(10);
  });

  it(`README.md:${setup.line}, the first set-up command, runs offline and prints the README's sample rows`, async () => {
    const r = await runScript(`set -euo pipefail\n${setup.command.replace(/^npx /, '')}\n`, scratch.dir, scratch.env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(missingLines(setup.expectedOutput, r.stdout)).toEqual([]);
  }, scaled(120_000));

  for (const block of offline) {
    it(`${block.where} runs offline`, async () => {
      const r = await runScript(scriptOf(block), scratch.dir, scratch.env);
      expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' });
      if (block.expectedOutput !== undefined) expect(missingLines(block.expectedOutput, r.stdout)).toEqual([]);
    }, scaled(180_000));
  }
});
