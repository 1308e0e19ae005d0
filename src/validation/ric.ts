/** ResourceInterpreterCustomization admission rules (webhook spec §4, lua spec §7). */
import { plain, type FieldError } from './field-errors.js';
import { obj, strOf, type Obj } from './json.js';

/** customizations field -> InterpreterOperation, in the order every check walks them. */
export const RIC_OPERATIONS: ReadonlyArray<readonly [field: string, operation: string]> = [
  ['retention', 'Retain'],
  ['replicaResource', 'InterpretReplica'],
  ['componentResource', 'InterpretComponent'],
  ['replicaRevision', 'ReviseReplica'],
  ['statusReflection', 'InterpretStatus'],
  ['statusAggregation', 'AggregateStatus'],
  ['healthInterpretation', 'InterpretHealth'],
  ['dependencyInterpretation', 'InterpretDependency'],
];

/** Compiles (never runs) a Lua script; returns the compile error text, or undefined when it compiles. */
export type LuaCompile = (script: string) => string | undefined;

export function ricScript(ric: Obj, field: string): string {
  return strOf(obj(obj(obj(ric.spec)?.customizations)?.[field])?.luaScript);
}

function targetOf(ric: Obj): { apiVersion: string; kind: string } {
  const t = obj(obj(ric.spec)?.target);
  return { apiVersion: strOf(t?.apiVersion), kind: strOf(t?.kind) };
}

const nameOf = (o: Obj) => strOf(obj(o.metadata)?.name);

/**
 * The first operation that another RIC for the same target already scripts. Dependency scripts may be
 * split across RICs, so InterpretDependency never conflicts; the RIC itself (same name) is skipped.
 */
export function findRicConflict(ric: Obj, existing: Iterable<Obj>): FieldError | undefined {
  const target = targetOf(ric);
  const name = nameOf(ric);
  for (const other of existing) {
    if (nameOf(other) === name) continue;
    const t = targetOf(other);
    if (t.apiVersion !== target.apiVersion || t.kind !== target.kind) continue;
    for (const [field, op] of RIC_OPERATIONS) {
      if (op === 'InterpretDependency') continue;
      if (ricScript(ric, field) !== '' && ricScript(other, field) !== '') {
        return plain(`conflicting with InterpreterOperation(${op}) of existing ResourceInterpreterCustomization(${nameOf(other)})`);
      }
    }
  }
  return undefined;
}

/** The first script that does not compile. */
export function findRicCompileError(ric: Obj, compile: LuaCompile): FieldError | undefined {
  for (const [field, op] of RIC_OPERATIONS) {
    const script = ricScript(ric, field);
    if (script === '') continue;
    const err = compile(script);
    if (err !== undefined) return plain(`InterpreterOperation(${op}) Lua script error: ${err}`);
  }
  return undefined;
}

export function validateRic(ric: Obj, existing: Iterable<Obj>, compile: LuaCompile): FieldError[] {
  const conflict = findRicConflict(ric, existing);
  if (conflict) return [conflict];
  const compileError = findRicCompileError(ric, compile);
  return compileError ? [compileError] : [];
}
