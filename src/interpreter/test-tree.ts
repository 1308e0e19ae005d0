/**
 * Runs a tree of customization tests in Karmada's layout:
 * `<group>/<version>/<Kind>/customizations.yaml` + `testdata/*.yaml`. A directory with `testdata/` but no
 * customizations.yaml tests the built-in interpreter for that kind (user RICs absent: built-in Lua, then
 * native).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseDocuments } from '../io/documents.js';
import { LuaSandbox } from '../lua/sandbox.js';
import { loadCustomizationFiles } from './builtin.js';
import { runTestCase, toTestCase } from './harness.js';
import { createInterpreter } from './interpreter.js';
import { ricName, targetOf } from './ric.js';
import { parseOperation } from './types.js';

export interface TreeResult {
  passed: number;
  failed: number;
}

export interface TreeOptions {
  budgetMs?: number;
  /** Receives each output line. */
  log: (line: string) => void;
  /** Show passing cases too (default true). */
  verbose?: boolean;
  /**
   * Run with the controllers' result memo (interpreter.ts `memoize`), each case twice: the first run
   * fills the memo, the second must pass from it. How the memo is checked against every fixture.
   */
  memoize?: boolean;
}

/** Directories below `root` (or root itself) that contain a `testdata` directory. */
export function findTestDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    const entries = readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    if (entries.some((e) => e.isDirectory() && e.name === 'testdata')) out.push(d);
    for (const e of entries) if (e.isDirectory() && e.name !== 'testdata') walk(join(d, e.name));
  };
  walk(root);
  return out;
}

export function runTestTree(root: string, opts: TreeOptions): TreeResult {
  const log = opts.log;
  const verbose = opts.verbose ?? true;
  const sandbox = new LuaSandbox({ budgetMs: opts.budgetMs });
  let passed = 0;
  let failed = 0;
  const dirs = statSync(root).isDirectory() ? findTestDirs(root) : [];
  for (const dir of dirs) {
    const rel = relative(root, dir) || '.';
    const ricFile = join(dir, 'customizations.yaml');
    const userMode = existsSync(ricFile);
    const rics = userMode ? loadCustomizationFiles([ricFile]) : [];
    const labels = userMode ? rics.map(ricName) : ['builtin'];
    const interp = createInterpreter({
      customizations: rics,
      builtin: !userMode,
      native: !userMode,
      sandbox,
      memoize: opts.memoize,
    });
    const layoutProblem = userMode ? checkLayout(rel, rics.map(targetOf)) : null;
    if (layoutProblem) {
      failed++;
      log(`FAIL ${rel}: ${layoutProblem}`);
    }
    const files = readdirSync(join(dir, 'testdata'))
      .filter((f) => /\.(ya?ml|json)$/.test(f))
      .sort();
    for (const f of files) {
      const file = join(dir, 'testdata', f);
      for (const doc of parseDocuments(readFileSync(file, 'utf8'), file)) {
        const tc = toTestCase(doc.object);
        const opName = parseOperation(String(tc.operation ?? '')) ?? String(tc.operation ?? '');
        for (const label of labels) {
          const title = `${rel} [${label}/${opName}]: ${tc.name ?? `${f}[${doc.index}]`}`;
          let r = runTestCase(interp, tc);
          if (r.ok && opts.memoize) r = runTestCase(interp, tc);
          if (r.ok) {
            passed++;
            if (verbose) log(`PASS ${title}`);
          } else {
            failed++;
            log(`FAIL ${title}`);
            for (const line of (r.detail ?? '').split('\n')) log(`    ${line}`);
          }
        }
      }
    }
  }
  log(`${passed} passed, ${failed} failed`);
  return { passed, failed };
}

/** Karmada's harness insists the directory names match the RIC's target. */
function checkLayout(rel: string, targets: { apiVersion: string; kind: string }[]): string | null {
  const parts = rel.split(/[\\/]/);
  if (parts.length < 3) return null;
  const [group, version, kind] = parts.slice(-3) as [string, string, string];
  for (const t of targets) {
    if (t.kind !== kind || (t.apiVersion !== `${group}/${version}` && t.apiVersion !== version)) {
      return `target ${t.apiVersion} ${t.kind} does not match the directory ${group}/${version}/${kind}`;
    }
  }
  return null;
}
