/**
 * `interpret test --webhook`: a test case's rule run through an interpreter webhook instead of
 * in-process, with the same named results, so that one fixture tree checks a script and a webhook alike.
 */
import { namedResults, ruleObject, type RuleExecutor } from '../harness.js';
import { InterpreterError } from '../types.js';
import { callInterpreterWebhook, type WebhookCaller } from './context.js';
import { errorMessage } from '../../json/error.js';

/** How `interpret test` names the webhook it calls in errors. */
export const TEST_HOOK_UID = 'interpret-test/webhook';

const SERVER_FAILURE = /^Internal error occurred: failed calling webhook "[^"]*": webhook call failed, get status code: (\d+), msg: ([\s\S]*)$/;

/**
 * The rule through `client`. A webhook's own failure (`successful: false`) is reported as its message,
 * which for `interpret serve` is the script's error, so that a case's `error:` holds for both; its 404
 * (no interpreter for the kind and operation) reads as the in-process `rule is not enabled`.
 */
export function webhookRuleExecutor(client: WebhookCaller): RuleExecutor {
  return async (op, args) => {
    const object = ruleObject(op, args);
    let value: unknown;
    try {
      value = await callInterpreterWebhook(client, TEST_HOOK_UID, {
        operation: op,
        object,
        ...(op === 'Retain' ? { observedObject: args.observed! } : {}),
        ...(op === 'ReviseReplica' ? { desiredReplicas: args.replicas ?? 0 } : {}),
        ...(op === 'AggregateStatus' ? { aggregatedStatus: args.statusItems ?? null } : {}),
      });
    } catch (e) {
      const m = SERVER_FAILURE.exec(errorMessage(e));
      if (m) throw new InterpreterError(m[1] === '404' ? 'rule is not enabled' : m[2]!, op);
      throw e;
    }
    // An answer without dependencies decodes to a nil slice in Karmada, as the native handlers' none.
    if (op === 'InterpretDependency' && Array.isArray(value) && value.length === 0) return namedResults(op, null);
    return namedResults(op, value);
  };
}
