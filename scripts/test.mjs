#!/usr/bin/env node
// `npm test`: runs every vitest project (unit, then integration against real kube-apiservers) and ends
// with one plain `N passed, M failed` line, which CI reads whatever the reporter prints above it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

// One results file per run: two runs in one checkout must not read each other's counts.
const out = join('.tmp', `vitest-results-${process.pid}.json`);
mkdirSync('.tmp', { recursive: true });
const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...process.argv.slice(2)];
const r = spawnSync('npx', args, { stdio: 'inherit' });
let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(out)) {
  const res = JSON.parse(readFileSync(out, 'utf8'));
  passed = res.numPassedTests ?? 0;
  failed = (res.numFailedTests ?? 0) + (r.status !== 0 && !res.numFailedTests ? 1 : 0);
  skipped = (res.numPendingTests ?? 0) + (res.numTodoTests ?? 0);
} else {
  failed = 1;
}
rmSync(out, { force: true });
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(r.status ?? 1);
