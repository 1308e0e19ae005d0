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
import { HEALTH_SCRIPT_FILE, HEALTH_TEST_FILE } from './argocd-health.js';
import { runHealthTests } from './argocd-test-tree.js';
import { loadCustomizationFiles } from './builtin.js';
import { runTestCase, toTestCase, type CaseResult, type TestCase } from './harness.js';
import { createInterpreter, type Interpreter } from './interpreter.js';
import { ricName, targetOf } from './ric.js';
import { parseOperation, type RIC } from './types.js';
import { errorMessage } from '../json/error.js';

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
  /** RICs of `--interpreters` trees: the third-party layer under test for folders without customizations.yaml. */
  library?: RIC[];
}

const ARGOCD_FILES = new Set([HEALTH_SCRIPT_FILE, HEALTH_TEST_FILE, 'action_test.yaml', 'discovery.lua']);

/** Directories below `root` (or root itself) that contain a `testdata` directory. */
export function findTestDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    const entries = readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    // Argo CD's folders (health checks, actions) have testdata/ too; argocd-test-tree.ts runs the health checks.
    if (entries.some((e) => e.isDirectory() && e.name === 'testdata') && !entries.some((e) => e.isFile() && ARGOCD_FILES.has(e.name))) out.push(d);
    for (const e of entries) if (e.isDirectory() && e.name !== 'testdata') walk(join(d, e.name));
  };
  walk(root);
  return out;
}

/** One case of the tree, with the interpreter of its directory. */
interface TreeCase {
  title: string;
  interp: Interpreter;
  tc: TestCase;
}

/** The tree's cases in order; a directory whose RICs do not match its path is a failure of its own. */
function* treeCases(root: string, opts: TreeOptions, layoutFailed: (line: string) => void): Generator<TreeCase> {
  const sandbox = new LuaSandbox({ budgetMs: opts.budgetMs });
  const dirs = statSync(root).isDirectory() ? findTestDirs(root) : [];
  for (const dir of dirs) {
    const rel = relative(root, dir) || '.';
    const ricFile = join(dir, 'customizations.yaml');
    const userMode = existsSync(ricFile);
    let rics: RIC[] = [];
    try {
      if (userMode) rics = loadCustomizationFiles([ricFile]);
    } catch (e) {
      // One unreadable or unparsable file is a failed case; the run goes on to the summary.
      layoutFailed(`FAIL ${rel}: ${ricFile}\n    ${errorMessage(e)}`);
      continue;
    }
    const labels = userMode ? rics.map(ricName) : ['builtin'];
    const interp = createInterpreter({
      customizations: rics,
      library: userMode ? undefined : opts.library,
      builtin: !userMode,
      native: !userMode,
      sandbox,
      memoize: opts.memoize,
    });
    const layoutProblem = userMode ? checkLayout(rel, rics.map(targetOf)) : null;
    if (layoutProblem) layoutFailed(`FAIL ${rel}: ${layoutProblem}`);
    const files = readdirSync(join(dir, 'testdata'))
      .filter((f) => /\.(ya?ml|json)$/.test(f))
      .sort();
    for (const f of files) {
      const file = join(dir, 'testdata', f);
      let docs;
      try {
        docs = parseDocuments(readFileSync(file, 'utf8'), file, { duplicateKeys: 'last-wins' });
      } catch (e) {
        layoutFailed(`FAIL ${rel}: ${file}\n    ${errorMessage(e)}`);
        continue;
      }
      for (const doc of docs) {
        const tc = toTestCase(doc.object);
        const opName = parseOperation(String(tc.operation ?? '')) ?? String(tc.operation ?? '');
        for (const label of labels) yield { title: `${rel} [${label}/${opName}]: ${tc.name ?? `${f}[${doc.index}]`}`, interp, tc };
      }
    }
  }
}

function counter(root: string, opts: TreeOptions) {
  const verbose = opts.verbose ?? true;
  const result: TreeResult = { passed: 0, failed: 0 };
  return {
    result,
    layoutFailed(line: string) {
      result.failed++;
      opts.log(line);
    },
    record(title: string, r: CaseResult) {
      if (r.ok) {
        result.passed++;
        if (verbose) opts.log(`PASS ${title}`);
      } else {
        result.failed++;
        opts.log(`FAIL ${title}`);
        for (const line of (r.detail ?? '').split('\n')) opts.log(`    ${line}`);
      }
    },
    done(): TreeResult {
      // Argo CD-layout folders of the tree (health.lua + health_test.yaml) count in the same summary.
      if (statSync(root).isDirectory()) {
        const health = runHealthTests(root, { log: opts.log, verbose, budgetMs: opts.budgetMs });
        result.passed += health.passed;
        result.failed += health.failed;
      }
      opts.log(`${result.passed} passed, ${result.failed} failed`);
      return result;
    },
  };
}

export function runTestTree(root: string, opts: TreeOptions): TreeResult {
  const c = counter(root, opts);
  for (const { title, interp, tc } of treeCases(root, opts, c.layoutFailed)) {
    let r = runTestCase(interp, tc);
    if (r.ok && opts.memoize) r = runTestCase(interp, tc);
    c.record(title, r);
  }
  return c.done();
}

/**
 * The tree with each case run by `run` (a webhook: `interpret test --webhook`), given the in-process
 * interpreter of the case's directory for a side-by-side comparison.
 */
export async function runTestTreeWith(root: string, opts: TreeOptions, run: (interp: Interpreter, tc: TestCase) => Promise<CaseResult>): Promise<TreeResult> {
  const c = counter(root, opts);
  for (const { title, interp, tc } of treeCases(root, opts, c.layoutFailed)) c.record(title, await run(interp, tc));
  return c.done();
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
