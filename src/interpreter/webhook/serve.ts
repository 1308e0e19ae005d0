/**
 * The serving side of the interpreter webhook protocol (`karmada-lite interpret serve`): a
 * ResourceInterpreterContext request answered from the given RICs plus the built-in interpreters, as
 * Karmada's SDK servers answer (interpreter-webhook spec 5): HTTP 200 always, failures as
 * `successful: false` with a status code, changed objects as a base64 JSON Patch of the request's
 * object. User scripts run in the interpreter worker pool (a script that spins costs a worker, not the
 * server); the built-in layers answer in-process, as in the controller. Also the
 * ResourceInterpreterWebhookConfiguration that registers such a server for the RICs' kinds.
 */
import { createPatch } from '../../json/jsonpatch.js';
import { isObject } from '../../json/value.js';
import type { Interpreter } from '../interpreter.js';
import type { InterpreterPool } from '../pool.js';
import { ricName, scriptOf, targetOf } from '../ric.js';
import { gvkOf, gvkString, InterpreterError, OPERATIONS, type AggregatedStatusItem, type KubeObject, type Operation, type RIC } from '../types.js';
import type { WorkerMethod } from '../worker-protocol.js';
import {
  INTERPRETER_CONTEXT_API_VERSION,
  INTERPRETER_CONTEXT_KIND,
  PATCH_TYPE_JSON_PATCH,
  type InterpreterResults,
  type ResourceInterpreterResponse,
} from './context.js';
import { splitApiVersion } from './hooks.js';
import { errorMessage } from '../../json/error.js';

/** The request as a server sees it: path, Content-Type header and body. */
export interface ServeInput {
  path: string;
  contentType?: string;
  body?: Buffer | string;
  /** The body was cut off at the server's limit. */
  tooLarge?: boolean;
}

/** The same outcome shape as the admission server's, so one HTTPS server serves both. */
export interface ServeOutcome {
  body: Record<string, unknown>;
  verdict: 'allowed' | 'patched' | 'denied' | 'errored' | 'malformed';
  code: number;
  message?: string;
  uid?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  operation?: string;
}

/** The operations a served request may name (Prune is declared by Karmada but never asked). */
const SERVED: ReadonlySet<string> = new Set(OPERATIONS);

/** One operation's answer, from whichever layer implements it for the object's kind. */
export type OperationRunner = <O extends Operation>(op: O, req: ServedRequest) => Promise<InterpreterResults[O]>;

export interface ServedRequest {
  object: KubeObject;
  observedObject?: KubeObject;
  replicas: number;
  aggregatedStatus?: AggregatedStatusItem[];
}

const WORKER_METHOD: Partial<Record<Operation, WorkerMethod>> = {
  InterpretReplica: 'getReplicas',
  ReviseReplica: 'reviseReplica',
  Retain: 'retain',
  InterpretStatus: 'reflectStatus',
  InterpretHealth: 'interpretHealth',
  AggregateStatus: 'aggregatedStatus',
  InterpretDependency: 'getDependencies',
};

function workerArgs(op: Operation, r: ServedRequest): unknown[] {
  if (op === 'Retain') return [r.object, r.observedObject];
  if (op === 'ReviseReplica') return [r.object, r.replicas];
  if (op === 'AggregateStatus') return [r.object, r.aggregatedStatus ?? null];
  return [r.object];
}

/** The template with the status a worker's AggregateStatus returned (the only part Karmada writes). */
function withStatus(obj: KubeObject, status: unknown): KubeObject {
  const out: KubeObject = { ...obj };
  if (status === undefined || status === null) delete out.status;
  else out.status = status;
  return out;
}

/** In-process for every layer; the user's RICs in the pool's workers when a pool is given. */
export function interpreterRunner(real: Interpreter, pool?: InterpreterPool): OperationRunner {
  const local = (op: Operation, r: ServedRequest): unknown => {
    switch (op) {
      case 'InterpretReplica':
        return real.getReplicas(r.object);
      case 'InterpretComponent':
        return real.getComponents(r.object);
      case 'ReviseReplica':
        return real.reviseReplica(r.object, r.replicas);
      case 'Retain':
        return real.retain(r.object, r.observedObject!);
      case 'AggregateStatus':
        return real.aggregateStatus(r.object, r.aggregatedStatus ?? null);
      case 'InterpretStatus':
        return real.reflectStatus(r.object);
      case 'InterpretHealth':
        return real.interpretHealth(r.object);
      case 'InterpretDependency':
        return real.getDependencies(r.object);
    }
  };
  return (async (op: Operation, r: ServedRequest) => {
    // The native layer stands behind every kind and would fail with its own "not found".
    if (!real.hookEnabled(gvkOf(r.object), op)) throw new InterpreterError('rule is not enabled', op);
    const method = WORKER_METHOD[op];
    if (!pool || !method || real.layerFor(gvkOf(r.object), op) !== 'customization') return local(op, r);
    const outcome = await pool.call(method, workerArgs(op, r), op);
    if (!outcome.ok) throw new InterpreterError(outcome.message, op);
    return op === 'AggregateStatus' ? withStatus(r.object, outcome.value) : outcome.value;
  }) as OperationRunner;
}

function errored(code: number, message: string, uid = '', verdict: ServeOutcome['verdict'] = 'errored'): ServeOutcome {
  return { body: { response: { uid, successful: false, status: { message, code } } }, verdict, code, message, uid };
}

/** `application/json` exactly (parameters allowed): what Karmada sends. */
function contentTypeError(header: string | undefined): string | undefined {
  const type = (header ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' ? undefined : `contentType=${header ?? ''}, expected application/json`;
}

function toBase64(v: unknown): string {
  return Buffer.from(JSON.stringify(v)).toString('base64');
}

/** Quantities as strings: Karmada decodes resource.Quantity from its string form. */
function quantitiesAsStrings(req: unknown): unknown {
  if (!isObject(req)) return req;
  const out: Record<string, unknown> = { ...req };
  if (isObject(req.resourceRequest)) {
    out.resourceRequest = Object.fromEntries(Object.entries(req.resourceRequest).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v]));
  }
  return out;
}

/** The response fields of one operation's result. */
function resultFields(op: Operation, r: ServedRequest, value: unknown): Partial<ResourceInterpreterResponse> {
  switch (op) {
    case 'InterpretReplica': {
      const v = value as InterpreterResults['InterpretReplica'];
      return { replicas: v.replicas, ...(v.requirements ? { replicaRequirements: quantitiesAsStrings(v.requirements) as never } : {}) };
    }
    case 'InterpretComponent': {
      const v = value as InterpreterResults['InterpretComponent'];
      return v ? { components: v.map((c) => (c.replicaRequirements ? { ...c, replicaRequirements: quantitiesAsStrings(c.replicaRequirements) as never } : c)) } : {};
    }
    case 'ReviseReplica':
    case 'Retain':
    case 'AggregateStatus': {
      const ops = createPatch(r.object, value);
      // As the SDK's PatchResponseFromRaw: no difference, no patch.
      return ops.length === 0 ? {} : { patch: toBase64(ops), patchType: PATCH_TYPE_JSON_PATCH };
    }
    case 'InterpretStatus':
      // A nil status cannot travel (rawStatus null reads as absent): Karmada's callers then fail the call.
      return value === null || value === undefined ? {} : { rawStatus: value };
    case 'InterpretHealth':
      return { healthy: value === true };
    case 'InterpretDependency': {
      const v = value as InterpreterResults['InterpretDependency'];
      return v.length ? { dependencies: v } : {};
    }
  }
}

/** Answers one request. Never throws: every failure is an answer. */
export async function serveInterpreterContext(input: ServeInput, run: OperationRunner): Promise<ServeOutcome> {
  if (input.tooLarge) return errored(400, 'request entity is too large', '', 'malformed');
  const text = typeof input.body === 'string' ? input.body : (input.body?.toString('utf8') ?? '');
  if (text.length === 0) return errored(400, 'request body is empty', '', 'malformed');
  const ct = contentTypeError(input.contentType);
  if (ct) return errored(400, ct, '', 'malformed');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return errored(400, `request body is not JSON (${errorMessage(e)}); send a ${INTERPRETER_CONTEXT_KIND} of ${INTERPRETER_CONTEXT_API_VERSION}`, '', 'malformed');
  }
  const request = isObject(parsed) ? parsed.request : undefined;
  if (!isObject(request)) return errored(400, `request body is not a ${INTERPRETER_CONTEXT_KIND} with a request; send a ${INTERPRETER_CONTEXT_KIND} of ${INTERPRETER_CONTEXT_API_VERSION}`, '', 'malformed');
  const uid = typeof request.uid === 'string' ? request.uid : '';
  const op = typeof request.operation === 'string' ? request.operation : '';
  const base = { uid, operation: op };
  if (!SERVED.has(op)) return { ...errored(400, `wrong request operation type: ${op}`, uid, 'malformed'), ...base };
  const operation = op as Operation;
  const object = request.object;
  if (!isObject(object) || Object.keys(object).length === 0) return { ...errored(400, 'there is no content to decode', uid, 'malformed'), ...base };
  const observed = isObject(request.observedObject) ? (request.observedObject as KubeObject) : undefined;
  if (operation === 'Retain' && !observed) return { ...errored(400, 'nil observedObject in exploreReview with operation type: Retain', uid, 'malformed'), ...base };
  const served: ServedRequest = {
    object: object as KubeObject,
    ...(observed ? { observedObject: observed } : {}),
    replicas: typeof request.replicas === 'number' ? request.replicas : 0,
    ...(Array.isArray(request.aggregatedStatus) ? { aggregatedStatus: request.aggregatedStatus as AggregatedStatusItem[] } : {}),
  };
  const meta = isObject(object.metadata) ? object.metadata : {};
  const described = { ...base, kind: gvkString(gvkOf(served.object)), namespace: typeof meta.namespace === 'string' ? meta.namespace : undefined, name: typeof meta.name === 'string' ? meta.name : undefined };
  let fields: Partial<ResourceInterpreterResponse>;
  try {
    fields = resultFields(operation, served, await run(operation, served));
  } catch (e) {
    // Not implemented for this kind is the client's mistake (its rules name a kind we do not know).
    const notEnabled = e instanceof InterpreterError && e.message === 'rule is not enabled';
    const message = notEnabled ? `no ResourceInterpreterCustomization or built-in interpreter implements ${operation} for ${gvkString(gvkOf(served.object))}` : errorMessage(e);
    return { ...errored(notEnabled ? 404 : 500, message, uid), ...described };
  }
  const body = {
    apiVersion: INTERPRETER_CONTEXT_API_VERSION,
    kind: INTERPRETER_CONTEXT_KIND,
    response: { uid, successful: true, status: { code: 200 }, ...fields },
  };
  return { body, verdict: fields.patch ? 'patched' : 'allowed', code: 200, ...described };
}

// ---------------------------------------------------------------------------------------------------
// --print-config.

export interface PrintConfigOptions {
  /** metadata.name of the configuration and the hook's name (a fully-qualified domain name). */
  configurationName: string;
  hookName: string;
  /** `clientConfig.url`, or a Service (the default: how deploy/interpreter-webhook/ runs it). */
  url?: string;
  service?: { namespace: string; name: string; port: number; path: string };
  /** The CA certificate PEM; base64-encoded into caBundle. */
  caPem?: string;
  timeoutSeconds: number;
}

/**
 * A ResourceInterpreterWebhookConfiguration with one hook and one rule per RIC target: the operations
 * the RICs implement for it (rule order), its group, version and kind.
 */
export function webhookConfigurationFor(rics: readonly RIC[], opts: PrintConfigOptions): Record<string, unknown> {
  const byTarget = new Map<string, { apiVersion: string; kind: string; ops: Set<Operation> }>();
  for (const ric of [...rics].sort((a, b) => (ricName(a) < ricName(b) ? -1 : ricName(a) > ricName(b) ? 1 : 0))) {
    const t = targetOf(ric);
    const key = `${t.apiVersion}/${t.kind}`;
    let e = byTarget.get(key);
    if (!e) byTarget.set(key, (e = { ...t, ops: new Set() }));
    for (const op of OPERATIONS) if (scriptOf(ric, op) !== '') e.ops.add(op);
  }
  const rules = [...byTarget.values()]
    .filter((e) => e.ops.size > 0)
    .map((e) => {
      const { group, version } = splitApiVersion(e.apiVersion);
      return { operations: OPERATIONS.filter((o) => e.ops.has(o)), apiGroups: [group], apiVersions: [version], kinds: [e.kind] };
    });
  const clientConfig: Record<string, unknown> = opts.url ? { url: opts.url } : { service: opts.service };
  if (opts.caPem) clientConfig.caBundle = Buffer.from(opts.caPem).toString('base64');
  return {
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterWebhookConfiguration',
    metadata: { name: opts.configurationName },
    webhooks: [
      {
        name: opts.hookName,
        rules,
        clientConfig,
        interpreterContextVersions: ['v1alpha1'],
        timeoutSeconds: opts.timeoutSeconds,
      },
    ],
  };
}
