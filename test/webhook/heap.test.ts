// capYoungGeneration in a process of its own (the vitest worker's heap has grown already): the same
// allocations grow the new space past the cap without it, and not with it.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const heap = fileURLToPath(new URL('../../src/webhook/heap.ts', import.meta.url));
const script = (cap: boolean) => `
  import { getHeapSpaceStatistics } from 'node:v8';
  const { capYoungGeneration } = await import(${JSON.stringify(heap)});
  ${cap ? 'capYoungGeneration(2);' : ''}
  // Objects that live a little while (as a review's do), so that the scavenger sees survivors and grows the space.
  let keep = [];
  for (let round = 0; round < 60; round++) {
    for (let i = 0; i < 50000; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 20000) keep = []; }
    await new Promise((r) => setImmediate(r)); // lets the gc observer run between bursts
  }
  console.log(getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
`;
const newSpaceMB = (cap: boolean) => Number(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(cap)], { encoding: 'utf8' }).trim()) / 1048576;

describe('capYoungGeneration', () => {
  it('holds the new space at the cap where V8 would grow it further', () => {
    expect(newSpaceMB(false)).toBeGreaterThan(4);
    // 2 MB per semi-space: a new space of at most 4 MB
    expect(newSpaceMB(true)).toBeLessThanOrEqual(4);
  });
});
