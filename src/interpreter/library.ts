/**
 * Interpreter libraries in Karmada's layout (`--interpreters DIR`): trees of
 * `<group>/<version>/<Kind>/customizations.yaml` (with `testdata/`), as Karmada's third-party
 * interpreters ship (pkg/resourceinterpreter/default/thirdparty/resourcecustomizations). Loaded as the
 * third-party layer: after the cluster's RICs (and interpreter webhooks), before karmada-lite's own
 * `interpreters/` and the native layer, so that a library the user brings replaces a built-in script
 * of the same kind and operation.
 *
 * Loading never stops at one bad file: an unreadable or unparsable file, a script that does not compile
 * and two RICs claiming one kind and operation are problems reported with their files; what loads is
 * used (of a conflict, the first RIC by name, as mergeCustomizations picks it).
 */
import { readFileSync } from 'node:fs';
import { parseDocuments } from '../io/documents.js';
import { LuaSandbox } from '../lua/sandbox.js';
import { loadHealthChecks, type HealthChecks } from './argocd-health.js';
import { findCustomizationFiles } from './builtin.js';
import { compileCheck } from './check.js';
import { isRIC, ricName, scriptOf, targetOf } from './ric.js';
import { gvkString, OPERATIONS, type RIC } from './types.js';
import { errorMessage } from '../json/error.js';

export interface LibraryProblem {
  file: string;
  message: string;
}

export interface Library {
  rics: RIC[];
  problems: LibraryProblem[];
}

/** Reads the trees below `roots` (a root may also be one customizations file). */
export function loadLibrary(roots: readonly string[], sandbox?: LuaSandbox): Library {
  if (roots.length === 0) return { rics: [], problems: [] };
  const sb = sandbox ?? new LuaSandbox();
  const rics: RIC[] = [];
  const problems: LibraryProblem[] = [];
  const owners = new Map<string, { name: string; file: string }>();
  const files: string[] = [];
  for (const root of roots) {
    const found = /\.(ya?ml|json)$/.test(root) ? [root] : findCustomizationFiles(root);
    if (found.length === 0) problems.push({ file: root, message: 'no <group>/<version>/<Kind>/customizations.yaml below it' });
    files.push(...found);
  }
  const loaded: { ric: RIC; file: string }[] = [];
  for (const file of files) {
    let docs;
    try {
      docs = parseDocuments(readFileSync(file, 'utf8'), file);
    } catch (e) {
      problems.push({ file, message: errorMessage(e) });
      continue;
    }
    for (const d of docs) {
      if (!isRIC(d.object)) continue;
      const ric = d.object as RIC;
      const broken = compileCheck(ric, sb).filter((r) => r.status === 'ERROR');
      if (broken.length > 0) {
        for (const r of broken) problems.push({ file, message: `${ricName(ric)}: ${r.rule}: ${r.status === 'ERROR' ? r.error.trim() : ''}` });
        continue;
      }
      loaded.push({ ric, file });
    }
  }
  // The winner of a kind and operation is the first RIC by name (mergeCustomizations).
  loaded.sort((a, b) => (ricName(a.ric) < ricName(b.ric) ? -1 : ricName(a.ric) > ricName(b.ric) ? 1 : 0));
  for (const { ric, file } of loaded) {
    const target = gvkString(targetOf(ric));
    for (const op of OPERATIONS) {
      if (op === 'InterpretDependency' || scriptOf(ric, op) === '') continue;
      const k = `${target}\0${op}`;
      const first = owners.get(k);
      if (first) problems.push({ file, message: `${ricName(ric)}: ${op} of ${target} is already defined by ${first.name} (${first.file}); that one is used` });
      else owners.set(k, { name: ricName(ric), file });
    }
    rics.push(ric);
  }
  return { rics, problems };
}

/** One line per problem, for start-up logs and stderr. */
export function describeProblems(problems: readonly LibraryProblem[]): string[] {
  return problems.map((p) => `${p.file}: ${p.message}`);
}

/** What `--interpreters` and `--health-checks` load: the third-party layer and the health check layer. */
export interface InterpreterLibraries {
  library: RIC[];
  healthChecks: HealthChecks;
  /** Every file that did not load, or lost a conflict, as `file: message`. */
  problems: string[];
}

/** Loads both kinds of trees; problems are collected, never thrown, so that one bad file stops nothing. */
export function loadInterpreterLibraries(interpreters: readonly string[], healthChecks: readonly string[]): InterpreterLibraries {
  const lib = loadLibrary(interpreters);
  const hc = loadHealthChecks(healthChecks);
  return { library: lib.rics, healthChecks: hc.checks, problems: [...describeProblems(lib.problems), ...describeProblems(hc.problems)] };
}
