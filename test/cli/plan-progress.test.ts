import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { planProgress } from '../../src/cli/plan-progress.js';

function stream(tty: boolean) {
  const s = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  s.isTTY = tty;
  s.columns = 120;
  let text = '';
  s.on('data', (d: Buffer) => (text += d.toString()));
  return { s, text: () => text };
}

describe('plan progress', () => {
  const step = { phase: 'settle' as const, loaded: 3, total: 3, writes: 40 };

  it('draws on a terminal once the plan has run longer than the threshold, and clears itself at the end', () => {
    const out = stream(true);
    let t = 0;
    const p = planProgress(out.s, 2000, () => t);
    p.onProgress({ ...step, phase: 'load', loaded: 1, writes: 0 });
    expect(out.text()).toBe('');
    t = 2500;
    p.onProgress(step);
    expect(out.text()).toContain('settling: 3/3 documents, 40 writes');
    p.stop();
  });

  it('draws nothing when stderr is not a terminal, however long the plan runs', () => {
    const out = stream(false);
    let t = 0;
    const p = planProgress(out.s, 2000, () => t);
    t = 60_000;
    p.onProgress(step);
    p.stop();
    expect(out.text()).toBe('');
  });
});
