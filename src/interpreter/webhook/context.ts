/**
 * The ResourceInterpreterContext protocol (interpreter-webhook spec 2): the request Karmada sends for
 * each operation, its verification of the answer in Karmada's order and words, and the operation's
 * result taken from a verified answer in the shapes the Lua layer returns, so that the core cannot tell
 * a webhook from a script. Pure: no I/O here (transport.ts carries the envelope).
 */
import { randomUUID } from 'node:crypto';
import { applyPatch, getPointer, type PatchOp } from '../../json/jsonpatch.js';
import { deepEqual } from '../../json/value.js';
import type { JsonValue } from '../../lua/convert.js';
import { decodeComponents, decodeRequirements } from '../decode.js';
import { verifyDependencies } from '../dependencies.js';
import { splitApiVersion } from './hooks.js';
import {
  InterpreterError,
  type AggregatedStatusItem,
  type Component,
  type DependentObjectReference,
  type KubeObject,
  type Operation,
  type ReplicaRequirements,
  type ReplicaResult,
} from '../types.js';
import { errorMessage } from '../../json/error.js';

export const INTERPRETER_CONTEXT_API_VERSION = 'config.karmada.io/v1alpha1';
export const INTERPRETER_CONTEXT_KIND = 'ResourceInterpreterContext';
export const PATCH_TYPE_JSON_PATCH = 'JSONPatch';

export type InterpreterOperation = Operation;

export interface InterpreterRequestInput {
  operation: InterpreterOperation;
  /** Retain: the desired object; AggregateStatus: the template; otherwise the object asked about. */
  object: KubeObject;
  /** Retain only: the live member object. */
  observedObject?: KubeObject;
  /** ReviseReplica's target count (sent as `replicas`, 0 for every other operation). */
  desiredReplicas?: number;
  aggregatedStatus?: AggregatedStatusItem[] | null;
  /** Fixed for tests and conformance cases; a fresh UUID per call otherwise, as Karmada does. */
  uid?: string;
}

export interface ResourceInterpreterRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  name: string;
  namespace?: string;
  operation: InterpreterOperation;
  object: KubeObject;
  observedObject?: KubeObject;
  replicas: number;
  aggregatedStatus?: AggregatedStatusItem[];
}

export interface ResourceInterpreterResponse {
  uid: string;
  successful: boolean;
  status?: { message?: string; code?: number };
  /** Base64 of an RFC 6902 patch, as Go encodes `[]byte`. */
  patch?: string;
  patchType?: string;
  replicas?: number;
  replicaRequirements?: ReplicaRequirements;
  components?: Component[];
  dependencies?: DependentObjectReference[];
  rawStatus?: unknown;
  healthy?: boolean;
}

export interface ResourceInterpreterContext {
  apiVersion?: string;
  kind?: string;
  request?: ResourceInterpreterRequest;
  response?: ResourceInterpreterResponse;
}

/**
 * A failed webhook call before it is named after its hook: `reason` is one of Karmada's texts
 * (`failed to call webhook: ...`, `received invalid webhook response: ...`, `webhook call failed, ...`).
 */
export class WebhookResponseError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'WebhookResponseError';
  }
}

/** Transport, HTTP and decoding failures (spec 2.4 step 1). */
export function callFailed(detail: string): WebhookResponseError {
  return new WebhookResponseError(`failed to call webhook: ${detail}`);
}

function invalid(detail: string): WebhookResponseError {
  return new WebhookResponseError(`received invalid webhook response: ${detail}`);
}

/** Karmada's final text for a failed call (spec 2.4 step 6), as the calling controller sees it. */
export function webhookCallError(hookUid: string, e: unknown, op?: Operation): InterpreterError {
  const reason = e instanceof WebhookResponseError ? e.reason : `failed to call webhook: ${errorMessage(e)}`;
  return new InterpreterError(`Internal error occurred: failed calling webhook "${hookUid}": ${reason}`, op);
}

/** An AggregatedStatusItem as encoding/json writes it: zero values of omitempty fields dropped. */
function encodeStatusItem(item: AggregatedStatusItem): AggregatedStatusItem {
  const out: AggregatedStatusItem = { clusterName: typeof item.clusterName === 'string' ? item.clusterName : '' };
  if (item.status !== undefined && item.status !== null) out.status = item.status;
  if (item.applied === true) out.applied = true;
  if (typeof item.appliedMessage === 'string' && item.appliedMessage !== '') out.appliedMessage = item.appliedMessage;
  if (typeof item.health === 'string' && item.health !== '') out.health = item.health;
  return out;
}

/** The ResourceInterpreterContext sent to a webhook (spec 2.2). */
export function buildInterpreterContext(input: InterpreterRequestInput): ResourceInterpreterContext {
  const obj = input.object;
  const meta = (typeof obj.metadata === 'object' && obj.metadata !== null ? obj.metadata : {}) as { name?: unknown; namespace?: unknown };
  const { group, version } = splitApiVersion(typeof obj.apiVersion === 'string' ? obj.apiVersion : '');
  const request: ResourceInterpreterRequest = {
    uid: input.uid ?? randomUUID(),
    kind: { group, version, kind: typeof obj.kind === 'string' ? obj.kind : '' },
    name: typeof meta.name === 'string' ? meta.name : '',
    operation: input.operation,
    object: obj,
    // Karmada always points DesiredReplicas at its attributes' count, so `replicas` is never omitted.
    replicas: input.desiredReplicas ?? 0,
  };
  if (typeof meta.namespace === 'string' && meta.namespace !== '') request.namespace = meta.namespace;
  if (input.observedObject) request.observedObject = input.observedObject;
  if (input.aggregatedStatus && input.aggregatedStatus.length > 0) request.aggregatedStatus = input.aggregatedStatus.map(encodeStatusItem);
  // Key order as Go marshals the struct, so captured requests read like Karmada's.
  const ordered: ResourceInterpreterRequest = {
    uid: request.uid,
    kind: request.kind,
    name: request.name,
    ...(request.namespace !== undefined ? { namespace: request.namespace } : {}),
    operation: request.operation,
    object: request.object,
    ...(request.observedObject !== undefined ? { observedObject: request.observedObject } : {}),
    replicas: request.replicas,
    ...(request.aggregatedStatus !== undefined ? { aggregatedStatus: request.aggregatedStatus } : {}),
  };
  return { apiVersion: INTERPRETER_CONTEXT_API_VERSION, kind: INTERPRETER_CONTEXT_KIND, request: ordered };
}

// ---------------------------------------------------------------------------------------------------
// Decoding the answer as Go's encoding/json would into ResourceInterpreterContext: a field of the wrong
// JSON type is a decoding error, which Karmada reports as a failed call (step 1), not as invalid.

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

function typeError(v: unknown, field: string, goType: string): WebhookResponseError {
  return callFailed(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ResourceInterpreterContext.response.${field} of type ${goType}`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const BASE64_CHAR = /[A-Za-z0-9+/]/;

/** Go's base64.StdEncoding.DecodeString, strict: the first bad byte is named. */
function decodeBase64(s: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === '=' && s.length - end < 2) end--;
  for (let i = 0; i < end; i++) if (!BASE64_CHAR.test(s[i]!)) throw callFailed(`illegal base64 data at input byte ${i}`);
  if (s.length % 4 !== 0) throw callFailed(`illegal base64 data at input byte ${s.length - (s.length % 4 || 4)}`);
  return Buffer.from(s, 'base64').toString('utf8');
}

function optional<T>(r: Record<string, unknown>, field: string, check: (v: unknown) => boolean, goType: string): T | undefined {
  const v = r[field];
  if (v === undefined || v === null) return undefined;
  if (!check(v)) throw typeError(v, field, goType);
  return v as T;
}

const int32 = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647;

function decodeResponse(raw: unknown): ResourceInterpreterResponse | undefined {
  if (!isRecord(raw)) throw callFailed(`json: cannot unmarshal ${jsonKind(raw)} into Go value of type v1alpha1.ResourceInterpreterContext`);
  const r = raw.response;
  if (r === undefined || r === null) return undefined;
  if (!isRecord(r)) throw callFailed(`json: cannot unmarshal ${jsonKind(r)} into Go struct field ResourceInterpreterContext.response of type v1alpha1.ResourceInterpreterResponse`);
  const out: ResourceInterpreterResponse = {
    uid: optional<string>(r, 'uid', (v) => typeof v === 'string', 'types.UID') ?? '',
    successful: optional<boolean>(r, 'successful', (v) => typeof v === 'boolean', 'bool') ?? false,
  };
  const status = optional<Record<string, unknown>>(r, 'status', isRecord, 'v1alpha1.RequestStatus');
  if (status) {
    const message = optional<string>(status, 'message', (v) => typeof v === 'string', 'string');
    const code = optional<number>(status, 'code', int32, 'int32');
    out.status = { ...(message !== undefined ? { message } : {}), ...(code !== undefined ? { code } : {}) };
  }
  const patch = optional<string>(r, 'patch', (v) => typeof v === 'string', '[]uint8');
  // Go decodes the base64 with the rest of the body: bad data fails the call before any check.
  if (patch !== undefined) decodeBase64(patch);
  if (patch !== undefined && patch !== '') out.patch = patch;
  const patchType = optional<string>(r, 'patchType', (v) => typeof v === 'string', 'v1alpha1.PatchType');
  if (patchType !== undefined) out.patchType = patchType;
  const replicas = optional<number>(r, 'replicas', int32, 'int32');
  if (replicas !== undefined) out.replicas = replicas;
  if (r.replicaRequirements !== undefined && r.replicaRequirements !== null) out.replicaRequirements = r.replicaRequirements as ReplicaRequirements;
  if (r.components !== undefined && r.components !== null) {
    if (!Array.isArray(r.components)) throw typeError(r.components, 'components', '[]v1alpha2.Component');
    out.components = r.components as Component[];
  }
  if (r.dependencies !== undefined && r.dependencies !== null) {
    if (!Array.isArray(r.dependencies)) throw typeError(r.dependencies, 'dependencies', '[]v1alpha1.DependentObjectReference');
    out.dependencies = r.dependencies.map((d, i) => decodeDependency(d, i));
  }
  if (r.rawStatus !== undefined && r.rawStatus !== null) out.rawStatus = r.rawStatus;
  const healthy = optional<boolean>(r, 'healthy', (v) => typeof v === 'boolean', 'bool');
  if (healthy !== undefined) out.healthy = healthy;
  return out;
}

function decodeDependency(d: unknown, i: number): DependentObjectReference {
  if (!isRecord(d)) throw typeError(d, `dependencies[${i}]`, 'v1alpha1.DependentObjectReference');
  const str = (k: string) => optional<string>(d, k, (v) => typeof v === 'string', 'string') ?? '';
  const out: DependentObjectReference = { apiVersion: str('apiVersion'), kind: str('kind') };
  const namespace = str('namespace');
  if (namespace) out.namespace = namespace;
  const name = str('name');
  if (name) out.name = name;
  const sel = optional<DependentObjectReference['labelSelector']>(d, 'labelSelector', isRecord, 'v1.LabelSelector');
  if (sel) out.labelSelector = sel;
  return out;
}

/**
 * Karmada's verification of an answer (spec 2.4, in that order). Throws WebhookResponseError with the
 * reason; a successful answer is returned decoded.
 */
export function verifyInterpreterResponse(op: InterpreterOperation, requestUid: string, ctx: unknown): ResourceInterpreterResponse {
  const r = decodeResponse(ctx);
  if (!r) throw invalid('webhook response was absent');
  if (r.uid !== requestUid) throw invalid(`expected response.uid ${JSON.stringify(requestUid)}, got ${JSON.stringify(r.uid)}`);
  if (!r.successful) {
    if (!r.status) throw invalid('webhook require response.status when response.successful is false');
    throw new WebhookResponseError(`webhook call failed, get status code: ${r.status.code ?? 0}, msg: ${r.status.message ?? ''}`);
  }
  switch (op) {
    case 'InterpretReplica':
      if (r.replicas === undefined) throw invalid('webhook returned nil response.replicas');
      // int32 is all Karmada checks; a negative count would be written into the binding and divided.
      if (r.replicas < 0) throw invalid(`webhook returned response.replicas ${r.replicas}: a replica count is never negative`);
      break;
    case 'InterpretComponent':
      break;
    case 'InterpretDependency':
      try {
        verifyDependencies(r.dependencies ?? []);
      } catch (e) {
        throw invalid(errorMessage(e));
      }
      break;
    case 'ReviseReplica':
    case 'Retain':
    case 'AggregateStatus':
      if (r.patch === undefined && r.patchType === undefined) break;
      if (r.patchType === undefined) throw invalid('webhook returned nil response.patchType');
      if (r.patch === undefined) throw invalid('webhook returned empty response.patch');
      if (r.patchType !== PATCH_TYPE_JSON_PATCH) throw invalid(`webhook returned invalid response.patchType of ${JSON.stringify(r.patchType)}`);
      break;
    case 'InterpretStatus':
      if (r.rawStatus === undefined) throw invalid('webhook returned nill response.rawStatus');
      break;
    case 'InterpretHealth':
      if (r.healthy === undefined) throw invalid('webhook returned nil response.healthy');
      break;
  }
  return r;
}

// ---------------------------------------------------------------------------------------------------
// Patches (spec 2.5).

interface WireOp {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

/** evanphx/json-patch's DecodePatch: a JSON array of operations. */
function decodePatch(text: string): WireOp[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`invalid JSON patch: ${errorMessage(e)}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`json: cannot unmarshal ${jsonKind(parsed)} into Go value of type jsonpatch.Patch`);
  return parsed.map((o, i) => {
    if (!isRecord(o)) throw new Error(`json: cannot unmarshal ${jsonKind(o)} into Go value of type jsonpatch.Operation (patch[${i}])`);
    if (typeof o.op !== 'string') throw new Error(`patch[${i}]: operation missing op field`);
    if (typeof o.path !== 'string') throw new Error(`patch[${i}]: operation missing path field`);
    return o as unknown as WireOp;
  });
}

function valueAt(doc: unknown, op: WireOp, pointer: string): unknown {
  const got = getPointer(doc, pointer);
  if (!got.found) throw new Error(`${op.op} operation does not apply: doc is missing path: "${pointer}"`);
  return got.value;
}

/**
 * Applies an RFC 6902 patch: add/remove/replace through the project's strict applier, move/copy/test
 * (which Karmada's library also accepts) expressed in those.
 */
export function applyWirePatch(doc: KubeObject, ops: readonly WireOp[]): KubeObject {
  let cur: unknown = doc;
  for (const op of ops) {
    switch (op.op) {
      case 'add':
      case 'remove':
      case 'replace':
        cur = applyPatch(cur, [{ op: op.op, path: op.path, value: op.value } as PatchOp]);
        break;
      case 'copy':
        cur = applyPatch(cur, [{ op: 'add', path: op.path, value: valueAt(cur, op, op.from ?? '') }]);
        break;
      case 'move': {
        const value = valueAt(cur, op, op.from ?? '');
        cur = applyPatch(cur, [
          { op: 'remove', path: op.from ?? '' },
          { op: 'add', path: op.path, value },
        ]);
        break;
      }
      case 'test':
        if (!deepEqual(valueAt(cur, op, op.path), op.value)) throw new Error(`testing value ${op.path} failed: test failed`);
        break;
      default:
        throw new Error(`Unexpected kind: ${op.op}`);
    }
  }
  return cur as KubeObject;
}

function patched(op: Operation, object: KubeObject, r: ResourceInterpreterResponse): KubeObject {
  if (r.patch === undefined) return object;
  try {
    return applyWirePatch(object, decodePatch(decodeBase64(r.patch)));
  } catch (e) {
    if (e instanceof WebhookResponseError) throw e;
    throw new InterpreterError(errorMessage(e), op);
  }
}

/** What each operation yields, in the Lua layer's shapes. */
export interface InterpreterResults {
  InterpretReplica: ReplicaResult;
  InterpretComponent: Component[] | null;
  ReviseReplica: KubeObject;
  Retain: KubeObject;
  AggregateStatus: KubeObject;
  InterpretStatus: unknown;
  InterpretHealth: boolean;
  InterpretDependency: DependentObjectReference[];
}

/**
 * The operation's result from a verified answer (spec 2.5 / 3.3): the patched request object for
 * Retain, ReviseReplica and AggregateStatus; replicas and requirements; components; rawStatus; healthy;
 * dependencies. Throws InterpreterError on a patch that does not decode or apply, or a typed field that
 * does not decode (a quantity that does not parse).
 */
export function interpreterResult<O extends InterpreterOperation>(op: O, input: InterpreterRequestInput, resp: ResourceInterpreterResponse): InterpreterResults[O] {
  const typed = <T>(f: () => T): T => {
    try {
      return f();
    } catch (e) {
      throw callFailed(errorMessage(e));
    }
  };
  let out: unknown;
  switch (op) {
    case 'InterpretReplica':
      out = {
        replicas: resp.replicas ?? 0,
        requirements: resp.replicaRequirements === undefined ? null : typed(() => decodeRequirements(resp.replicaRequirements as unknown as JsonValue)),
      } satisfies ReplicaResult;
      break;
    case 'InterpretComponent':
      out = resp.components === undefined ? null : typed(() => decodeComponents(resp.components as unknown as JsonValue));
      break;
    case 'ReviseReplica':
    case 'Retain':
    case 'AggregateStatus':
      out = patched(op, input.object, resp);
      break;
    case 'InterpretStatus':
      out = resp.rawStatus;
      break;
    case 'InterpretHealth':
      out = resp.healthy === true;
      break;
    case 'InterpretDependency':
      out = resp.dependencies ?? [];
      break;
  }
  return out as InterpreterResults[O];
}

/** Anything that carries one envelope to a webhook and returns the decoded JSON answer. */
export interface WebhookCaller {
  call(ctx: ResourceInterpreterContext, signal?: AbortSignal): Promise<unknown>;
}

/**
 * One operation through a webhook, end to end: build, call, verify, result. Every failure is thrown as
 * Karmada words it for the hook (`Internal error occurred: failed calling webhook "<hookUid>": ...`);
 * a patch that does not apply is the operation's own error, as Karmada returns it unwrapped.
 */
export async function callInterpreterWebhook<O extends InterpreterOperation>(
  client: WebhookCaller,
  hookUid: string,
  input: InterpreterRequestInput & { operation: O },
  signal?: AbortSignal,
): Promise<InterpreterResults[O]> {
  const ctx = buildInterpreterContext(input);
  let resp: ResourceInterpreterResponse;
  try {
    resp = verifyInterpreterResponse(input.operation, ctx.request!.uid, await client.call(ctx, signal));
  } catch (e) {
    throw webhookCallError(hookUid, e, input.operation);
  }
  try {
    return interpreterResult(input.operation, input, resp);
  } catch (e) {
    if (e instanceof WebhookResponseError) throw webhookCallError(hookUid, e, input.operation);
    throw e;
  }
}
