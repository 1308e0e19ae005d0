/**
 * Runs the tests of an Argo CD-layout health check tree as Argo CD's own test does
 * (util/lua/health_test.go): every folder with a health.lua has a health_test.yaml listing
 * `tests: [{inputPath, healthStatus: {status, message}}]`; the object at inputPath is matched to a
 * health check of the tree (as at run time, wildcards included) and the result must equal status and
 * message exactly. Extension: `error: <message>` (or `errorMatches: <regexp>`) beside inputPath expects
 * the script to fail. A file that cannot be read or parsed is a failed case with its path and the
 * parser's message; the run goes on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocuments } from '../io/documents.js';
import { LuaSandbox } from '../lua/sandbox.js';
import { findHealthCheckDirs, HEALTH_TEST_FILE, healthCheckFor, loadHealthChecks, runHealthCheck, type HealthResult } from './argocd-health.js';
import { gvkOf, type KubeObject } from './types.js';
import { errorMessage } from '../json/error.js';

export interface HealthTestOptions {
  budgetMs?: number;
  log: (line: string) => void;
  verbose: boolean;
}

interface HealthTest {
  inputPath?: unknown;
  healthStatus?: { status?: unknown; message?: unknown };
  error?: unknown;
  errorMatches?: unknown;
}

/** Go's encoding/json (behind sigs.k8s.io/yaml) matches field names case-insensitively: `inputpath` is inputPath. */
function field(o: unknown, name: string): unknown {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return undefined;
  const rec = o as Record<string, unknown>;
  if (name in rec) return rec[name];
  const k = Object.keys(rec).find((x) => x.toLowerCase() === name.toLowerCase());
  return k === undefined ? undefined : rec[k];
}

function toHealthTest(o: unknown): HealthTest {
  const hs = field(o, 'healthStatus');
  return {
    inputPath: field(o, 'inputPath'),
    healthStatus: hs === undefined ? undefined : { status: field(hs, 'status'), message: field(hs, 'message') },
    error: field(o, 'error'),
    errorMatches: field(o, 'errorMatches'),
  };
}

function readYaml(file: string): Record<string, unknown>[] {
  return parseDocuments(readFileSync(file, 'utf8'), file, { duplicateKeys: 'last-wins' }).map((d) => d.object as Record<string, unknown>);
}

/** Counts of the health tests below root (no summary line: the caller prints one for the whole run). */
export function runHealthTests(root: string, opts: HealthTestOptions): { passed: number; failed: number } {
  const { log, verbose } = opts;
  let passed = 0;
  let failed = 0;
  const fail = (title: string, detail: string) => {
    failed++;
    log(`FAIL ${title}`);
    for (const line of detail.split('\n')) log(`    ${line}`);
  };
  const sandbox = new LuaSandbox({ budgetMs: opts.budgetMs, stringLibrary: 'argocd' });
  const { checks, problems } = loadHealthChecks([root], sandbox);
  for (const p of problems) fail(p.file, p.message);
  for (const dir of findHealthCheckDirs(root)) {
    const testFile = join(root, dir, HEALTH_TEST_FILE);
    let tests: HealthTest[];
    try {
      const doc = readYaml(testFile)[0] ?? {};
      const t = field(doc, 'tests');
      if (!Array.isArray(t)) throw new Error(`${testFile}: expected "tests:" with a list of {inputPath, healthStatus}`);
      tests = t.map(toHealthTest);
    } catch (e) {
      fail(`${dir}: ${HEALTH_TEST_FILE}`, errorMessage(e));
      continue;
    }
    for (const [i, tc] of tests.entries()) {
      const input = typeof tc.inputPath === 'string' ? tc.inputPath : '';
      const title = `${dir} [health]: ${input || `tests[${i}]`}`;
      if (!input) {
        fail(title, `${testFile}: tests[${i}] has no inputPath`);
        continue;
      }
      let obj: KubeObject;
      try {
        const docs = readYaml(join(root, dir, input));
        if (docs.length !== 1) throw new Error(`${join(root, dir, input)}: expected one object, found ${docs.length}`);
        obj = docs[0] as KubeObject;
      } catch (e) {
        fail(title, errorMessage(e));
        continue;
      }
      const gvk = gvkOf(obj);
      const check = healthCheckFor(checks, gvk);
      if (!check) {
        fail(title, `no health check of the tree matches ${gvk.apiVersion} ${gvk.kind}`);
        continue;
      }
      let got: HealthResult | undefined;
      let error: string | undefined;
      try {
        got = runHealthCheck(sandbox, check, obj);
      } catch (e) {
        error = errorMessage(e);
      }
      const detail = expectMismatch(tc, got, error);
      if (detail) fail(title, detail);
      else {
        passed++;
        if (verbose) log(`PASS ${title}`);
      }
    }
  }
  return { passed, failed };
}

/** What differs from the case's expectation, or null when it holds. */
function expectMismatch(tc: HealthTest, got: HealthResult | undefined, error: string | undefined): string | null {
  if (typeof tc.error === 'string' || typeof tc.errorMatches === 'string') {
    if (error === undefined) return `expected an error, got status ${JSON.stringify(got!.status)} message ${JSON.stringify(got!.message)}`;
    if (typeof tc.error === 'string' && error.trimEnd() !== tc.error.trimEnd()) return `expected error: ${tc.error}\n     got error: ${error}`;
    if (typeof tc.errorMatches === 'string' && !new RegExp(tc.errorMatches).test(error)) return `expected an error matching /${tc.errorMatches}/\n     got error: ${error}`;
    return null;
  }
  if (error !== undefined) return `error: ${error}`;
  const want = { status: String(tc.healthStatus?.status ?? ''), message: String(tc.healthStatus?.message ?? '') };
  if (want.status === got!.status && want.message === got!.message) return null;
  return `expected status ${JSON.stringify(want.status)} message ${JSON.stringify(want.message)}\n     got status ${JSON.stringify(got!.status)} message ${JSON.stringify(got!.message)}`;
}
