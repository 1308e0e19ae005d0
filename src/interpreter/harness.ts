/**
 * Karmada's customization test harness (spec §5): test files of multi-document YAML cases run against
 * an interpreter, with Karmada's comparison rules. Extensions: a case may carry `error: <message>` to
 * expect the operation to fail with exactly that message (trailing whitespace ignored), and
 * `exact: true` to compare every result as JSON (null, [], {} and absent all differ) where Karmada's
 * harness compares typed values (requires, dependencies, components).
 */
import { stringify } from 'yaml';
import { parseQuantity } from '../quantity/quantity.js';
import type { Interpreter } from './interpreter.js';
import { compareDependencies } from './dependencies.js';
import {
  gvkOf,
  InterpreterError,
  parseOperation,
  unsupportedOperationMessage,
  type AggregatedStatusItem,
  type KubeObject,
  type Operation,
  type ReplicaResult,
} from './types.js';
import { errorMessage } from '../json/error.js';

export interface TestCase {
  name?: string;
  description?: string;
  operation?: string;
  desiredObj?: KubeObject;
  observedObj?: KubeObject;
  statusItems?: AggregatedStatusItem[];
  inputReplicas?: number;
  output?: Record<string, unknown>;
  /** Extension: the exact error the operation must fail with. */
  error?: string;
  /** Extension: a regular expression the error must match (for errors whose wording races, e.g. time vs memory). */
  errorMatches?: string;
  /** Extension: compare every result as JSON, not as typed values. */
  exact?: boolean;
}

const FIELDS = ['name', 'description', 'operation', 'desiredObj', 'observedObj', 'statusItems', 'inputReplicas', 'output', 'error', 'errorMatches', 'exact'];

/** Go's encoding/json matches field names case-insensitively; so do we. */
export function toTestCase(doc: Record<string, unknown>): TestCase {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) {
    const f = FIELDS.find((x) => x.toLowerCase() === k.toLowerCase());
    if (f && !(f in out)) out[f] = v;
  }
  return out as TestCase;
}

export const RESULT_NAMES: Record<Operation, string[]> = {
  Retain: ['retained'],
  InterpretReplica: ['replica', 'requires'],
  InterpretComponent: ['components'],
  ReviseReplica: ['revised'],
  InterpretStatus: ['status'],
  AggregateStatus: ['aggregatedStatus'],
  InterpretHealth: ['healthy'],
  InterpretDependency: ['dependencies'],
};

export interface RuleArgs {
  desired?: KubeObject | null;
  observed?: KubeObject | null;
  statusItems?: AggregatedStatusItem[] | null;
  replicas?: number;
}

/** The object a rule runs on, after karmadactl's checks of its arguments. Throws on a missing or extra object. */
export function ruleObject(op: Operation, args: RuleArgs): KubeObject {
  const { desired, observed } = args;
  if (op === 'Retain') {
    if (!desired) throw new InterpreterError('desired, desired-file options are not set', op);
    if (!observed) throw new InterpreterError('observed, observed-file options are not set', op);
  } else {
    if (!desired && !observed) throw new InterpreterError('desired-file, observed-file options are not set', op);
    if (desired && observed) throw new InterpreterError('you can not specify both desired-file and observed-file options', op);
  }
  return (desired ?? observed)!;
}

/** An operation's value under its result names (RESULT_NAMES); InterpretReplica's splits in two. */
export function namedResults(op: Operation, value: unknown): [string, unknown][] {
  if (op !== 'InterpretReplica') return [[RESULT_NAMES[op][0]!, value]];
  const r = value as ReplicaResult;
  return [
    ['replica', r.replicas],
    ['requires', r.requirements],
  ];
}

/** Runs one operation as karmadactl does and returns its named results in order. Throws on error. */
export function executeRule(interp: Interpreter, op: Operation, args: RuleArgs): [string, unknown][] {
  const { desired, observed } = args;
  const obj = ruleObject(op, args);
  if (!interp.hookEnabled({ apiVersion: String(obj.apiVersion ?? ''), kind: String(obj.kind ?? '') }, op)) {
    throw new InterpreterError('rule is not enabled', op);
  }
  switch (op) {
    case 'Retain':
      return [['retained', interp.retain(desired!, observed!)]];
    case 'InterpretReplica':
      return namedResults(op, interp.getReplicas(obj));
    case 'InterpretComponent':
      return [['components', interp.getComponents(obj)]];
    case 'ReviseReplica':
      return [['revised', interp.reviseReplica(obj, args.replicas ?? 0)]];
    case 'InterpretStatus':
      return [['status', interp.reflectStatus(obj)]];
    case 'AggregateStatus':
      return [['aggregatedStatus', interp.aggregateStatus(obj, args.statusItems ?? null)]];
    case 'InterpretHealth':
      return [['healthy', interp.interpretHealth(obj)]];
    case 'InterpretDependency': {
      // Karmada's native handlers return a nil slice when there is none (null); a Lua result is a list.
      const deps = interp.getDependencies(obj);
      const native = interp.layerFor(gvkOf(obj), op) !== 'customization';
      return [['dependencies', deps.length === 0 && native ? null : deps]];
    }
  }
}

export interface CaseResult {
  ok: boolean;
  /** Why it failed: an error, a mismatch description, and a diff. */
  detail?: string;
}

/** A case's rule arguments. */
export function caseArgs(tc: TestCase): RuleArgs {
  return {
    desired: tc.desiredObj ?? null,
    observed: tc.observedObj ?? null,
    statusItems: tc.statusItems === undefined || tc.statusItems === null ? null : tc.statusItems,
    replicas: typeof tc.inputReplicas === 'number' ? tc.inputReplicas : 0,
  };
}

/** Runs one test case; never throws for script problems (they become failures). */
export function runTestCase(interp: Interpreter, tc: TestCase): CaseResult {
  const op = parseOperation(String(tc.operation ?? ''));
  if (!op) return { ok: false, detail: unsupportedOperationMessage(String(tc.operation ?? ''), true) };
  let results: [string, unknown][];
  try {
    results = executeRule(interp, op, caseArgs(tc));
  } catch (e) {
    return judgeError(tc, e);
  }
  return judgeResults(tc, op, results);
}

/** Runs a rule somewhere else than in-process (a webhook): its named results, or a throw. */
export type RuleExecutor = (op: Operation, args: RuleArgs) => Promise<[string, unknown][]>;

/** runTestCase with the rule run by `exec`. */
export async function runTestCaseWith(exec: RuleExecutor, tc: TestCase): Promise<CaseResult> {
  const op = parseOperation(String(tc.operation ?? ''));
  if (!op) return { ok: false, detail: unsupportedOperationMessage(String(tc.operation ?? ''), true) };
  let results: [string, unknown][];
  try {
    results = await exec(op, caseArgs(tc));
  } catch (e) {
    return judgeError(tc, e);
  }
  return judgeResults(tc, op, results);
}

function judgeError(tc: TestCase, e: unknown): CaseResult {
  const msg = errorMessage(e);
  if (tc.error !== undefined) {
    if (msg.trimEnd() === String(tc.error).trimEnd()) return { ok: true };
    return { ok: false, detail: `expected error:\n  ${String(tc.error).trimEnd()}\ngot error:\n  ${msg.trimEnd()}` };
  }
  if (tc.errorMatches !== undefined) {
    if (new RegExp(String(tc.errorMatches)).test(msg)) return { ok: true };
    return { ok: false, detail: `expected an error matching:\n  ${String(tc.errorMatches)}\ngot error:\n  ${msg.trimEnd()}` };
  }
  return { ok: false, detail: `error: ${msg.trimEnd()}` };
}

function judgeResults(tc: TestCase, op: Operation, results: [string, unknown][]): CaseResult {
  const wanted = tc.error ?? (tc.errorMatches !== undefined ? `an error matching ${String(tc.errorMatches)}` : undefined);
  if (wanted !== undefined) return { ok: false, detail: `expected error:\n  ${String(wanted).trimEnd()}\nbut the operation succeeded` };
  if (tc.output === undefined || tc.output === null) return { ok: true };
  const produced = new Map(results);
  const problems: string[] = [];
  for (const [key, expected] of Object.entries(tc.output)) {
    if (!produced.has(key)) {
      problems.push(`output key "${key}" is not a result of ${op} (results: ${RESULT_NAMES[op].join(', ')})`);
      continue;
    }
    const actual = produced.get(key);
    const cmp = tc.exact === true ? exactCompare(expected, actual) : compareResult(key, expected, actual);
    if (!cmp.equal) problems.push(`${key} differs:\n${diffText(cmp.expected, cmp.actual)}`);
  }
  return problems.length ? { ok: false, detail: problems.join('\n') } : { ok: true };
}

// ---------------------------------------------------------------------------------------------------
// Comparison (spec §5).

const EXCLUDE = '{{EXCLUDE}}';

/** Removes `{{EXCLUDE}}` fields from expected and the same paths from actual. */
export function applyExclude(expected: unknown, actual: unknown): { expected: unknown; actual: unknown } {
  const exp = structuredClone(expected);
  const act = structuredClone(actual);
  const paths: (string | number)[][] = [];
  const walk = (v: unknown, path: (string | number)[]) => {
    if (Array.isArray(v)) v.forEach((el, i) => walk(el, [...path, i]));
    else if (v !== null && typeof v === 'object') {
      for (const [k, val] of Object.entries(v)) {
        if (val === EXCLUDE) {
          delete (v as Record<string, unknown>)[k];
          paths.push([...path, k]);
        } else walk(val, [...path, k]);
      }
    }
  };
  walk(exp, []);
  for (const p of paths) {
    let cur: unknown = act;
    for (let i = 0; i < p.length - 1 && cur !== null && typeof cur === 'object'; i++) cur = (cur as Record<string | number, unknown>)[p[i]!];
    if (cur !== null && typeof cur === 'object') delete (cur as Record<string | number, unknown>)[p[p.length - 1]!];
  }
  return { expected: exp, actual: act };
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}

/** Typed-struct view: zero values and empty collections are the same as absent; quantities compare numerically. */
function typedNormalize(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) return v.map((x) => typedNormalize(x));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      let val = (v as Record<string, unknown>)[k];
      if (key === 'resourceRequest' && (typeof val === 'string' || typeof val === 'number')) {
        try {
          val = `quantity(${parseQuantity(val).scaledValue(-9)})`;
        } catch {
          // keep the raw text: it will simply not match
        }
      } else val = typedNormalize(val, k);
      if (val === null || val === undefined || val === '' || val === 0 || val === false) continue;
      if (Array.isArray(val) && val.length === 0) continue;
      if (typeof val === 'object' && !Array.isArray(val) && Object.keys(val as object).length === 0) continue;
      out[k] = val;
    }
    return out;
  }
  return v;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** JSON as Go marshals it: sorted keys; integral floats print without a fraction (JS already does). */
function goJsonBytes(v: unknown): string {
  return JSON.stringify(sortKeys(v === undefined ? null : v));
}

function exactCompare(expected: unknown, actual: unknown): { equal: boolean; expected: unknown; actual: unknown } {
  return { equal: goJsonBytes(expected) === goJsonBytes(actual), expected, actual };
}

export function compareResult(key: string, expected: unknown, actual: unknown): { equal: boolean; expected: unknown; actual: unknown } {
  switch (key) {
    case 'retained':
    case 'revised':
    case 'aggregatedStatus': {
      const x = applyExclude(expected, actual);
      return { equal: deepEqual(JSON.parse(JSON.stringify(x.expected ?? null)), JSON.parse(JSON.stringify(x.actual ?? null))), expected: x.expected, actual: x.actual };
    }
    case 'requires':
      return { equal: deepEqual(typedNormalize({ r: expected }), typedNormalize({ r: actual })), expected, actual };
    case 'dependencies': {
      const e = [...((expected as never[]) ?? [])].sort(compareDependencies);
      const a = [...((actual as never[]) ?? [])].sort(compareDependencies);
      return { equal: deepEqual(typedNormalize({ d: e }), typedNormalize({ d: a })), expected: e, actual: a };
    }
    case 'components': {
      const byName = (x: { name?: string }, y: { name?: string }) => ((x.name ?? '') < (y.name ?? '') ? -1 : (x.name ?? '') > (y.name ?? '') ? 1 : 0);
      const e = [...((expected as { name?: string }[]) ?? [])].sort(byName);
      const a = [...((actual as { name?: string }[]) ?? [])].sort(byName);
      return { equal: deepEqual(typedNormalize({ c: e }), typedNormalize({ c: a })), expected: e, actual: a };
    }
    default:
      return exactCompare(expected, actual);
  }
}

// ---------------------------------------------------------------------------------------------------
// Diffs.


function toLines(v: unknown): string[] {
  return stringify(sortKeys(v === undefined ? null : v), { indent: 2, indentSeq: false, lineWidth: 0 }).trimEnd().split('\n');
}

/** A line diff of expected against actual, as YAML (`-` expected only, `+` actual only). */
export function diffText(expected: unknown, actual: unknown): string {
  const a = toLines(expected);
  const b = toLines(actual);
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: string[] = ['    --- expected', '    +++ actual'];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(`      ${a[i]}`);
      i++;
      j++;
    } else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      out.push(`    - ${a[i]}`);
      i++;
    } else {
      out.push(`    + ${b[j]}`);
      j++;
    }
  }
  return out.join('\n');
}
