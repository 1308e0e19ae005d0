// early-heap.ts in a process of its own (the vitest worker's heap has grown already): imported first, as
// main.ts imports it, it keeps the webhook's young generation at V8's initial size under the same
// allocations that grow it for any other command.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandWord } from '../../src/cli/command-word.js';

const earlyHeap = fileURLToPath(new URL('../../src/cli/early-heap.ts', import.meta.url));
const script = `
  import { getHeapSpaceStatistics } from 'node:v8';
  await import(${JSON.stringify(earlyHeap)});
  // Objects that live a little while (as a review's do), so that the scavenger sees survivors and grows the space.
  let keep = [];
  for (let round = 0; round < 60; round++) {
    for (let i = 0; i < 50000; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 20000) keep = []; }
    await new Promise((r) => setImmediate(r));
  }
  console.log(getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
`;
// node -e puts its first argument at argv[1], where a script's path would be: the command words follow it.
const newSpaceMB = (...argv: string[]) => Number(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, 'karmada-lite', ...argv], { encoding: 'utf8' }).trim()) / 1048576;

describe('early-heap', () => {
  it('holds the young generation of a webhook run at its initial size, and only of a webhook run', () => {
    const other = newSpaceMB('validate', '-f', 'x.yaml');
    const webhook = newSpaceMB('-v', '4', 'webhook', '--cert-file', 'tls.crt');
    // Here tsx's loader runs first and grows it a step (to 2 MB per semi-space); from the bundle, where
    // this module is the first evaluated, it stays at V8's initial 1 MB per semi-space.
    expect(webhook).toBeLessThanOrEqual(4);
    expect(other).toBeGreaterThan(webhook);
  });

  it('finds the command past -v and its level', () => {
    expect(commandWord(['-v', '4', 'webhook'])).toBe('webhook');
    expect(commandWord(['--v', 'webhook'])).toBeUndefined();
    expect(commandWord(['--help'])).toBeUndefined();
    expect(commandWord(['plan', '-f', 'x'])).toBe('plan');
  });
});
