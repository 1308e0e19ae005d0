import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, ScenarioRun } from './runner.js';

const dir = join(import.meta.dirname, '../../conformance/scenarios');
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();

describe('conformance scenarios', () => {
  it('has at least 50 scenarios', () => {
    expect(files.length).toBeGreaterThanOrEqual(50);
  });
  for (const f of files) {
    const s = loadScenario(join(dir, f));
    it(`${f}: ${s.name}`, () => {
      new ScenarioRun(s).run();
    });
  }
});
