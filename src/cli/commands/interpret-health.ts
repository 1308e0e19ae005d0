/**
 * `interpret -f .../health.lua --observed-file F`: runs one Argo CD health check on an object and prints
 * Argo CD's status and message with karmada-lite's health for them (the mapping of src/interpreter/argocd-health.ts).
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { InputError } from '../../io/documents.js';
import { mapArgoHealth, runHealthCheck, wrapHealthScript, type HealthResult } from '../../interpreter/argocd-health.js';
import { LuaSandbox } from '../../lua/sandbox.js';
import type { KubeObject } from '../../interpreter/types.js';
import { errorMessage } from '../../json/error.js';

/** True when the -f files are Lua health checks, not RICs. */
export function isHealthCheckInput(files: readonly string[]): boolean {
  return files.length > 0 && files.every((f) => f.endsWith('.lua'));
}

export interface HealthRun {
  /** The object (--observed-file), or null when none was given. */
  observed: KubeObject | null;
  operation?: string;
  budgetMs?: number;
}

/** Argo CD's status and message, and karmada-lite's health: what the command prints. Throws InterpreterError for a script that fails. */
export function runHealthCheckFile(files: readonly string[], run: HealthRun): { health: string; status: string; message: string } {
  if (files.length !== 1) throw new InputError(`-f: give one health.lua to run, got ${files.length}`);
  if (run.operation !== undefined && run.operation.toLowerCase() !== 'interprethealth') {
    throw new InputError(`--operation ${run.operation}: a health.lua answers InterpretHealth only`);
  }
  if (!run.observed) throw new InputError('--observed-file is not set: a health check reads the observed object (karmada-lite interpret -f health.lua --observed-file obj.yaml)');
  const file = files[0]!;
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`${file}: cannot read: ${errorMessage(e)}`);
  }
  const sb = new LuaSandbox({ budgetMs: run.budgetMs, stringLibrary: 'argocd' });
  const r: HealthResult = runHealthCheck(sb, { key: dirname(file), file, source, script: wrapHealthScript(source) }, run.observed);
  return { health: mapArgoHealth(r.status), status: r.status, message: r.message };
}
