/**
 * Interpreter webhooks as a layer of the core's Interpreter port, second in Karmada's order (spec 3.2):
 * a user RIC that scripts the operation answers first; else the first hook of the
 * ResourceInterpreterWebhookConfigurations that matches the kind and operation (hooks.ts); else the layers
 * after it (built-in third-party, native) through the port it wraps. An error from a hook is the answer:
 * there is no fallback to the next layer.
 *
 * The core is synchronous and a webhook is an HTTPS call, so a call is deferred like a pooled script
 * (pool-interpreter.ts): the first ask starts the call and throws InterpreterPendingError; the runner
 * discards that reconcile and enqueues its key again once the calls it started settle (begin()/end()),
 * and the retry reads the answer. Answers are kept only until the reconcile that read them ends (a
 * webhook is not known to be pure), unless `memo` says to remember successful ones. A failure is read
 * once: the core fails the reconcile with its Warning event and the runner retries with back-off, which
 * calls the webhook again. Each hook has its own bounded number of calls in flight, so a slow hook only
 * delays the kinds it answers.
 */
import type { KObject, TypeRef } from '../core/object.js';
import type { AggregatedStatusItem, DependentObjectReference, Interpreter as Port, InterpreterOperation } from '../core/ports.js';
import { InterpreterPendingError } from './pool-interpreter.js';
import { InterpreterError } from './types.js';
import { ConfigGroupVersion } from '../api/constants.js';
import { deepClone } from '../json/value.js';
import { callInterpreterWebhook, webhookCallError, WebhookResponseError } from './webhook/context.js';
import { createWebhookClient, DEFAULT_WEBHOOK_TIMEOUT_SECONDS, type WebhookClient } from './webhook/transport.js';
import { selectHooks, type HookSelection, type WebhookHook } from './webhook/hooks.js';
import { errorMessage } from '../json/error.js';

/** What one call sends (the codec builds the ResourceInterpreterContext from it). */
export interface WebhookRequestInput {
  operation: InterpreterOperation;
  object: KObject;
  observedObject?: KObject;
  desiredReplicas?: number;
  aggregatedStatus?: AggregatedStatusItem[];
}

/**
 * Calls a hook and returns the operation's verified result: the patched object (Retain, ReviseReplica,
 * AggregateStatus), `{replicas, replicaRequirements}`, the raw status, healthy, or the dependencies.
 * Rejects with Karmada's reason text (`failed to call webhook: ...`, `received invalid webhook response: ...`).
 */
export type WebhookCaller = ((hook: WebhookHook, input: WebhookRequestInput, signal: AbortSignal) => Promise<unknown>) & {
  /** The hooks now configured: connections of any other may close. */
  retain?(hooks: readonly WebhookHook[]): void;
};

/** The kind the layer follows. */
export const RIWC: TypeRef = { apiVersion: ConfigGroupVersion, kind: 'ResourceInterpreterWebhookConfiguration' };

/** The real caller: one keep-alive HTTPS client per hook (transport.ts), the codec around it (context.ts). */
export function httpsWebhookCaller(maxConcurrency?: number): WebhookCaller & { close(): void } {
  const clients = new Map<string, WebhookClient>();
  const keyOf = (h: WebhookHook) => `${h.uid}\0${h.url}\0${h.caBundle ?? ''}\0${h.timeoutSeconds ?? ''}`;
  const caller = async (hook: WebhookHook, input: WebhookRequestInput, signal: AbortSignal): Promise<unknown> => {
    const key = keyOf(hook);
    let client = clients.get(key);
    if (!client) {
      try {
        client = createWebhookClient({ url: hook.url, caBundle: hook.caBundle, timeoutSeconds: hook.timeoutSeconds, maxConcurrency });
      } catch (e) {
        throw new WebhookResponseError(`could not get REST client: ${errorMessage(e)}`);
      }
      clients.set(key, client);
    }
    return callInterpreterWebhook(client, hook.uid, input as never, signal);
  };
  return Object.assign(caller, {
    retain(hooks: readonly WebhookHook[]) {
      const keep = new Set(hooks.map(keyOf));
      for (const [k, c] of clients) {
        if (keep.has(k)) continue;
        c.close();
        clients.delete(k);
      }
    },
    close() {
      for (const c of clients.values()) c.close();
      clients.clear();
    },
  });
}

export interface WebhookCallRecord {
  hook: string;
  operation: InterpreterOperation;
  seconds: number;
  /** The failure's text; undefined on success. */
  error?: string;
}

export interface WebhookInterpreterOptions {
  /** The layers after the webhooks (and the user RICs before them): the in-process or pooled port. */
  inner: Port & { begin?(): void; end?(): Promise<void> | undefined };
  /** Whether a user RIC scripts this kind and operation (it wins over every webhook). */
  declarative: (type: TypeRef, op: InterpreterOperation) => boolean;
  caller: WebhookCaller;
  /** Calls in flight per hook; more wait their turn. Default 8. */
  maxConcurrency?: number;
  /** Applied when a hook sets no timeoutSeconds (Karmada sets none; its API documents 10, transport.ts applies it). */
  defaultTimeoutSeconds?: number;
  /** `--interpreter-webhook-memo`: successful answers are remembered (by hook, operation and arguments). */
  memo?: boolean;
  /** Failures are remembered too (a plan, which asks each question once); else the retry calls again. */
  keepFailures?: boolean;
  /** Answers kept at most (least recently used beyond are dropped). Default 4096. */
  maxAnswers?: number;
  /** Every finished call: metrics and logs. */
  onCall?: (record: WebhookCallRecord) => void;
  nowMs?: () => number;
}

export interface WebhookInterpreter extends Port {
  /** Follows the ResourceInterpreterWebhookConfigurations. */
  setConfigurations(configurations: readonly unknown[]): void;
  /** The hook that would answer, or undefined (a user RIC or no hook). */
  hookFor(type: TypeRef, op: InterpreterOperation): WebhookHook | undefined;
  begin(): void;
  end(): Promise<void> | undefined;
  /** Settles when no call is in flight (plan waits on it between passes). */
  idle(): Promise<void>;
  inflight(): number;
}

const BACKSTOP_MS = 1000;
const UNREAD_TTL_MS = 60_000;

interface Answer {
  ok: boolean;
  value?: unknown;
  message?: string;
  at: number;
}

/** One hook's gate: at most `max` calls run, the rest queue in order. */
function limiter(max: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(run: () => Promise<T>): Promise<T> => {
    if (running >= max) await new Promise<void>((r) => waiting.push(r));
    running++;
    try {
      return await run();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** Karmada sends the aggregated items without karmada-lite's bookkeeping. */
const wireItems = (items: readonly AggregatedStatusItem[]): AggregatedStatusItem[] =>
  items.map(({ settled: _, ...rest }) => rest);

export function createWebhookInterpreter(opts: WebhookInterpreterOptions): WebhookInterpreter {
  const { inner, caller } = opts;
  const now = opts.nowMs ?? Date.now;
  const maxConcurrency = opts.maxConcurrency ?? 8;
  const defaultTimeout = opts.defaultTimeoutSeconds ?? DEFAULT_WEBHOOK_TIMEOUT_SECONDS;
  const maxAnswers = opts.maxAnswers ?? 4096;
  let selection: HookSelection = selectHooks([]);
  const limiters = new Map<string, ReturnType<typeof limiter>>();
  const answers = new Map<string, Answer>();
  const inflight = new Map<string, Promise<void>>();
  let collected: Promise<void>[] | undefined;
  let read: Set<string> | undefined;

  const hookFor = (type: TypeRef, op: InterpreterOperation): WebhookHook | undefined => {
    if (opts.declarative(type, op)) return undefined;
    return selection.find({ apiVersion: type.apiVersion, kind: type.kind }, op);
  };

  // An answer no retry came for (the object changed meanwhile) goes after a while; answers are in the
  // order they came, so the oldest are first.
  // A failure goes once read, so that the retry calls again; a success stays only under memo.
  const transient = (a: Answer) => (a.ok ? !opts.memo : !opts.keepFailures);
  const sweep = () => {
    const before = now() - UNREAD_TTL_MS;
    for (const [k, a] of answers) {
      if (a.at >= before) break;
      if (transient(a)) answers.delete(k);
    }
  };
  const forget = (key: string, a: Answer) => {
    if (transient(a)) answers.delete(key);
  };

  function start(hook: WebhookHook, input: WebhookRequestInput, key: string): Promise<void> {
    let gate = limiters.get(hook.uid);
    if (!gate) limiters.set(hook.uid, (gate = limiter(maxConcurrency)));
    // A backstop a second past the transport's own deadline, whose message names the URL.
    const timeoutMs = (hook.timeoutSeconds ?? defaultTimeout) * 1000 + BACKSTOP_MS;
    return gate(async () => {
      const started = performance.now();
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(new Error(`context deadline exceeded (no answer within timeoutSeconds ${hook.timeoutSeconds ?? defaultTimeout})`)), timeoutMs);
      let answer: Answer;
      try {
        if (!hook.acceptsKnownVersion) throw new WebhookResponseError('could not create ResourceInterpreterContext objects: webhook does not accept known ResourceInterpreterContext versions (v1alpha1)');
        // The deadline holds even for a caller that does not honour the signal.
        const deadline = new Promise<never>((_, reject) => abort.signal.addEventListener('abort', () => reject(abort.signal.reason), { once: true }));
        const value = await Promise.race([caller(hook, input, abort.signal), deadline]);
        answer = { ok: true, value, at: now() };
      } catch (e) {
        // Already in Karmada's words (the codec names the hook; a patch that does not apply is the
        // operation's own error), or a transport failure still to be named after its hook.
        const message = abort.signal.aborted ? webhookCallError(hook.uid, abort.signal.reason).message : e instanceof InterpreterError ? e.message : webhookCallError(hook.uid, e).message;
        answer = { ok: false, message, at: now() };
      } finally {
        clearTimeout(timer);
      }
      opts.onCall?.({ hook: hook.uid, operation: input.operation, seconds: (performance.now() - started) / 1000, error: answer.message });
      answers.delete(key);
      answers.set(key, answer);
      if (answers.size > maxAnswers) answers.delete(answers.keys().next().value!);
      sweep();
    }).finally(() => inflight.delete(key));
  }

  function call(hook: WebhookHook, input: WebhookRequestInput): unknown {
    const op = input.operation;
    const key = `${hook.uid}\0${op}\0${JSON.stringify([input.object, input.observedObject, input.desiredReplicas, input.aggregatedStatus])}`;
    const a = answers.get(key);
    if (a) {
      if (read) read.add(key);
      else forget(key, a);
      // The core may change what it is given (it prunes a revised manifest in place).
      if (a.ok) return deepClone(a.value);
      throw new InterpreterError(a.message!, op);
    }
    let p = inflight.get(key);
    if (!p) inflight.set(key, (p = start(hook, input, key)));
    collected?.push(p);
    throw new InterpreterPendingError(op);
  }

  const self: WebhookInterpreter = {
    setConfigurations(configurations) {
      selection = selectHooks(configurations);
      caller.retain?.(selection.hooks);
      const uids = new Set(selection.hooks.map((h) => h.uid));
      for (const uid of limiters.keys()) if (!uids.has(uid)) limiters.delete(uid);
      // Remembered answers came from the hooks as they were configured.
      if (opts.memo || opts.keepFailures) answers.clear();
    },
    hookFor,
    begin() {
      inner.begin?.();
      collected = [];
      read = new Set();
    },
    end() {
      const mine = collected;
      const reads = read;
      collected = undefined;
      read = undefined;
      for (const key of reads ?? []) {
        const a = answers.get(key);
        if (a) forget(key, a);
      }
      const theirs = inner.end?.();
      const all = [...(mine ?? []), ...(theirs ? [theirs] : [])];
      return all.length ? Promise.all(all).then(() => undefined) : undefined;
    },
    async idle() {
      while (inflight.size) await Promise.all(inflight.values());
    },
    inflight: () => inflight.size,
    scriptHealth: inner.scriptHealth?.bind(inner),
    hookEnabled: (t, op) => hookFor(t, op) !== undefined || inner.hookEnabled(t, op),
    getReplicas(obj) {
      const hook = hookFor(obj, 'InterpretReplica');
      if (!hook) return inner.getReplicas(obj);
      const r = call(hook, { operation: 'InterpretReplica', object: obj }) as { replicas: number; replicaRequirements?: Record<string, unknown> | null; requirements?: Record<string, unknown> | null };
      return { replicas: r.replicas, replicaRequirements: r.replicaRequirements ?? r.requirements ?? null };
    },
    reviseReplica(obj, replicas) {
      const hook = hookFor(obj, 'ReviseReplica');
      return hook ? (call(hook, { operation: 'ReviseReplica', object: obj, desiredReplicas: replicas }) as KObject) : inner.reviseReplica(obj, replicas);
    },
    retain(desired, observed) {
      const hook = hookFor(desired, 'Retain');
      return hook ? (call(hook, { operation: 'Retain', object: desired, observedObject: observed }) as KObject) : inner.retain(desired, observed);
    },
    reflectStatus(obj) {
      const hook = hookFor(obj, 'InterpretStatus');
      return hook ? (call(hook, { operation: 'InterpretStatus', object: obj }) as Record<string, unknown> | undefined) : inner.reflectStatus(obj);
    },
    interpretHealth(obj) {
      const hook = hookFor(obj, 'InterpretHealth');
      return hook ? (call(hook, { operation: 'InterpretHealth', object: obj }) as boolean) : inner.interpretHealth(obj);
    },
    // A webhook answers a boolean: only the layers below it have a health check's message.
    healthDetail: (obj) => (hookFor(obj, 'InterpretHealth') ? undefined : inner.healthDetail?.(obj)),
    aggregateStatus(obj, items) {
      const hook = hookFor(obj, 'AggregateStatus');
      return hook ? (call(hook, { operation: 'AggregateStatus', object: obj, aggregatedStatus: wireItems(items) }) as KObject) : inner.aggregateStatus(obj, items);
    },
    getDependencies(obj) {
      const hook = hookFor(obj, 'InterpretDependency');
      return hook ? (call(hook, { operation: 'InterpretDependency', object: obj }) as DependentObjectReference[]) : inner.getDependencies(obj);
    },
  };
  return self;
}

/**
 * Feeds the layer the configurations a store lists, only when one changed (by name and
 * resourceVersion): asked before every reconcile, as the user RICs are.
 */
export function configurationFollower(layer: Pick<WebhookInterpreter, 'setConfigurations'>): (configurations: readonly KObject[]) => void {
  let signature: string | undefined;
  return (configurations) => {
    const sig = configurations.map((c) => `${c.metadata.name}@${c.metadata.resourceVersion ?? ''}`).sort().join(',');
    if (sig === signature) return;
    signature = sig;
    layer.setConfigurations(configurations);
  };
}
