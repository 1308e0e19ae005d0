/**
 * karmada-lite's interpreter-health controller (Karmada has none, and no RIC status): a RIC whose
 * scripts keep failing gets the condition ScriptsHealthy=False saying which operation fails and how
 * (ScriptTimeout, ScriptMemoryLimit, ScriptError), with a Warning Event when that begins or changes;
 * once its scripts run again, ScriptsHealthy=True (ScriptsSucceeded) and a Normal Event. Fed by the
 * interpreter's failure records (Interpreter.scriptHealth); an interpreter without them reports nothing.
 */
import {
  InterpreterHealthControllerName,
  ReasonScriptError,
  ReasonScriptMemoryLimit,
  ReasonScriptsSucceeded,
  ReasonScriptTimeout,
  RICConditionScriptsHealthy,
} from '../api/constants.js';
import { RIC } from './kinds.js';
import { findCondition, isTerminating, parseRefKey, refOf, setCondition, type Condition, type KObject } from './object.js';
import { emptyResult, type CoreEvent, type ReconcileContext, type ReconcileResult, type ScriptFailure } from './ports.js';

export const INTERPRETER_HEALTH = 'interpreter-health';

const REASON: Record<ScriptFailure['failure'], string> = { timeout: ReasonScriptTimeout, memory: ReasonScriptMemoryLimit, error: ReasonScriptError };
/** The reason the condition shows when several scripts fail: the costliest failure. */
const RANK: Record<ScriptFailure['failure'], number> = { timeout: 0, memory: 1, error: 2 };

/** A condition message is capped by the CRD (32768); a script's error text can be long. */
const MAX_MESSAGE = 4096;

/** Of one failure's text: its beginning, and its end, where a message the sandbox cut notes its size. */
const MESSAGE_HEAD = 1024;
const MESSAGE_TAIL = 120;

function describe(f: ScriptFailure): string {
  const m = f.message;
  const text = m.length > MESSAGE_HEAD + MESSAGE_TAIL ? `${m.slice(0, MESSAGE_HEAD)} ... ${m.slice(-MESSAGE_TAIL)}` : m;
  return `${f.operation} for ${f.apiVersion}, Kind=${f.kind} failed: ${text}`;
}

export function reconcileInterpreterHealth(ctx: ReconcileContext, key: string): ReconcileResult {
  const ref = parseRefKey(key);
  const ric = ctx.reader.get(RIC, undefined, ref.name);
  if (!ric || isTerminating(ric) || !ctx.interpreter.scriptHealth) return emptyResult();
  const health = ctx.interpreter.scriptHealth(ref.name);
  const conds = ric.status?.conditions;
  const prev = findCondition(conds, RICConditionScriptsHealthy);
  let next: Omit<Condition, 'lastTransitionTime'>;
  if (health.failures.length) {
    const worst = [...health.failures].sort((a, b) => RANK[a.failure] - RANK[b.failure])[0]!;
    let message = health.failures.map(describe).join('; ');
    if (message.length > MAX_MESSAGE) message = `${message.slice(0, MAX_MESSAGE)}...`;
    next = { type: RICConditionScriptsHealthy, status: 'False', reason: REASON[worst.failure], message, observedGeneration: ric.metadata.generation };
  } else if (prev && prev.status !== 'True' && health.succeeded) {
    next = { type: RICConditionScriptsHealthy, status: 'True', reason: ReasonScriptsSucceeded, message: 'the scripts of this RIC run without errors again', observedGeneration: ric.metadata.generation };
  } else {
    // Nothing failed, or nothing ran since the controller started: a condition from before stands.
    return emptyResult();
  }
  if (prev && prev.status === next.status && prev.reason === next.reason && prev.message === next.message && prev.observedGeneration === next.observedGeneration) return emptyResult();
  const status = { ...(ric.status ?? {}), conditions: setCondition(conds, next, ctx.now) };
  const obj: KObject = { ...ric, status };
  const changedWhat = !prev || prev.status !== next.status || prev.reason !== next.reason || prev.message !== next.message;
  const events: CoreEvent[] = changedWhat
    ? [{ involvedObject: refOf(ric), type: next.status === 'False' ? 'Warning' : 'Normal', reason: next.reason, message: next.message, source: InterpreterHealthControllerName }]
    : [];
  return { writes: [{ op: 'updateStatus', object: obj }], events };
}
