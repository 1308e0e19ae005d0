// scripts/casts.mjs: the casts of src/core and src/scheduler stay within scripts/casts-allowed.json.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const made: string[] = [];
afterEach(() => made.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function copy(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'karmada-lite-casts-'));
  made.push(d);
  for (const p of ['scripts/casts-allowed.json', 'src/core', 'src/scheduler']) cpSync(path.join(repoRoot, p), path.join(d, p), { recursive: true });
  return d;
}
const run = (root: string, ...args: string[]) =>
  spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'casts.mjs'), ...args], { encoding: 'utf8', env: { ...process.env, KARMADA_LITE_CASTS_ROOT: root } });

describe('scripts/casts.mjs', () => {
  it('passes the checkout', () => {
    const r = run(repoRoot);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^casts in src\/core and src\/scheduler: \d+, none over the allowance/);
  });

  it('refuses a cast more than a file is allowed, and a cast in a file not listed; `as const` is no cast', () => {
    const d = copy();
    const file = path.join(d, 'src/core/taint.ts');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\nexport const extra = (globalThis as { x?: number }).x;\nexport const names = ['a'] as const;\n`);
    writeFileSync(path.join(d, 'src/scheduler/new.ts'), 'export const n = (1 as unknown) as number;\n');
    const r = run(d);
    expect(r.status).toBe(1);
    const allowed = JSON.parse(readFileSync(path.join(repoRoot, 'scripts/casts-allowed.json'), 'utf8'))['src/core/taint.ts'] ?? 0;
    expect(r.stderr).toContain(`src/core/taint.ts: ${allowed + 1} casts, ${allowed} allowed.`);
    expect(r.stderr).toContain('src/scheduler/new.ts: 2 casts, 0 allowed.');
    expect(run(d, '--list', 'src/scheduler/new.ts').stdout).toBe('src/scheduler/new.ts:1: export const n = (1 as unknown) as number;\nsrc/scheduler/new.ts:1: export const n = (1 as unknown) as number;\n');
  });

  it('--update lowers an allowance once casts are gone, and never raises one', () => {
    const d = copy();
    const allowedPath = path.join(d, 'scripts/casts-allowed.json');
    // Files of its own with known casts and allowances: the checkout's allowance goes down to none (#16).
    const file = 'src/core/one-cast.ts';
    const other = 'src/scheduler/two-casts.ts';
    writeFileSync(path.join(d, file), 'export const a = 1 as unknown;\n');
    writeFileSync(path.join(d, other), 'export const b = (1 as unknown) as number;\n');
    const before: Record<string, number> = { ...JSON.parse(readFileSync(allowedPath, 'utf8')), [file]: 1, [other]: 2 };
    const listed = run(d, '--list', file).stdout;
    expect(listed.split('\n').filter(Boolean)).toHaveLength(1);
    // Raise the allowance of another file by hand: --update must bring it back to the count, not keep it.
    writeFileSync(allowedPath, JSON.stringify({ ...before, [other]: before[other]! + 5 }));
    writeFileSync(path.join(d, file), '');
    expect(run(d).stderr).toContain('file(s) now under it');
    expect(run(d, '--update').status).toBe(0);
    const after = JSON.parse(readFileSync(allowedPath, 'utf8')) as Record<string, number>;
    expect(after[file]).toBeUndefined();
    expect(after[other]).toBe(before[other]);
  });
});
