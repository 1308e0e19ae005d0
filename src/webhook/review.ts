/**
 * The AdmissionReview protocol (spec §6) around the admission rules, without any networking: the HTTPS
 * server feeds it a path, a content type and a body, and sends back what it returns. The conformance
 * suite calls it directly.
 */
import type { KindInfo } from '../api/generated/kinds.js';
import { KINDS } from '../api/generated/kinds.js';
import { aggregate, type FieldError } from '../validation/field-errors.js';
import { isObj, strOf, type Obj } from '../validation/json.js';
import { MutationError } from '../validation/defaulting.js';
import { formatAjvErrors, validateSchema } from '../validation/schema.js';
import { mutate, validate, type AdmissionKind, type LuaCompile, type RuleContext } from '../validation/rules.js';
import { ricScriptWarnings } from '../validation/script-traps.js';
import { createPatch } from './patch.js';
import { DELETION_PROTECTION_PATH, deletionProtectionDenial } from './deletion-protection.js';
import { errorMessage } from '../json/error.js';

/** The apiserver never sends more than 3 MiB of object; anything larger is not a review we want to parse. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export const REVIEW_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'];

export interface Route {
  path: string;
  mode: 'validate' | 'mutate';
  kind: AdmissionKind;
  info: KindInfo;
  operations: string[];
}

const infoOf = (kind: string) => KINDS.find((k) => k.kind === kind)!;

function route(mode: Route['mode'], kind: AdmissionKind, operations = ['CREATE', 'UPDATE']): Route {
  return { path: `/${mode}-${kind.toLowerCase()}`, mode, kind, info: infoOf(kind), operations };
}

/** Karmada's paths (spec §5): the same names, so existing webhook configurations work unchanged. */
export const ROUTES: readonly Route[] = [
  route('mutate', 'PropagationPolicy'),
  route('mutate', 'ClusterPropagationPolicy'),
  route('mutate', 'OverridePolicy'),
  route('mutate', 'ResourceBinding', ['CREATE']),
  route('mutate', 'ClusterResourceBinding', ['CREATE']),
  route('mutate', 'Work'),
  route('mutate', 'FederatedHPA'),
  route('mutate', 'MultiClusterService'),
  route('validate', 'PropagationPolicy'),
  route('validate', 'ClusterPropagationPolicy'),
  route('validate', 'OverridePolicy'),
  route('validate', 'ClusterOverridePolicy'),
  route('validate', 'ResourceBinding'),
  route('validate', 'ResourceInterpreterCustomization'),
  route('validate', 'ClusterTaintPolicy'),
  route('validate', 'ResourceInterpreterWebhookConfiguration'),
  route('validate', 'FederatedResourceQuota'),
  route('validate', 'CronFederatedHPA'),
  route('validate', 'FederatedHPA'),
  route('validate', 'MultiClusterService'),
];

const ROUTE_BY_PATH = new Map(ROUTES.map((r) => [r.path, r]));

export function findRoute(path: string): Route | undefined {
  return ROUTE_BY_PATH.get(path);
}

/** Paths served for every kind (their decision reads only the object's metadata), beside the per-kind ROUTES. */
export const ANY_KIND_PATHS: readonly string[] = [DELETION_PROTECTION_PATH];

/** Whether a review is served at this path: a per-kind route or an any-kind one. */
export function isReviewPath(path: string): boolean {
  return ROUTE_BY_PATH.has(path) || ANY_KIND_PATHS.includes(path);
}

// The Lua VM (fengari, about 10 MB resident) is loaded by the first ResourceInterpreterCustomization
// reviewed, not at start: most webhooks never see one.
let lazyLuaCompile: Promise<LuaCompile> | undefined;
const loadLuaCompile = (): Promise<LuaCompile> => (lazyLuaCompile ??= import('../validation/lua-compile.js').then((m) => m.luaCompile));

export interface ReviewContext extends Omit<RuleContext, 'existingRics'> {
  /** Existing RICs for the conflict check: from the cluster, or from files offline. */
  listRics?: () => Promise<Obj[]> | Obj[];
  /**
   * `decode` (default, as Karmada): the API server has applied the CRD schema already, so only values of
   * the wrong JSON type are refused, as undecodable. `full`: the validating paths also check the whole
   * schema, for clusters whose CRDs are not karmada-lite's.
   */
  schema?: 'decode' | 'full';
  /**
   * RIC scripts with a known trap (an xpcall handler that loops, `while true` with no way out, a huge
   * string.rep): `warn` (default) admits them with AdmissionReview warnings, `reject` refuses them.
   */
  riskyScripts?: 'warn' | 'reject';
}

export type Verdict = 'allowed' | 'patched' | 'denied' | 'errored' | 'malformed';

export interface ReviewOutcome {
  /** JSON body of the HTTP answer; the HTTP status is always 200. */
  body: Obj;
  verdict: Verdict;
  code: number;
  message?: string;
  uid?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  operation?: string;
}

/** A transport-level failure, before a review version is known: no apiVersion, kind or uid (controller-runtime's shape). */
function malformed(code: number, message: string): ReviewOutcome {
  return { body: { response: { uid: '', allowed: false, status: { metadata: {}, message, code } } }, verdict: 'malformed', code, message };
}

export interface HttpInput {
  path: string;
  contentType?: string;
  body?: Buffer | string;
  /** The body was cut off at MAX_BODY_BYTES. */
  tooLarge?: boolean;
}

/**
 * `application/json`, with parameters as RFC 9110 allows (`; charset=utf-8`, any case, quoted or not);
 * JSON is UTF-8 (RFC 8259), so another charset is refused. Returns the 400 text, or undefined.
 */
export function checkContentType(header: string | undefined): string | undefined {
  const [type = '', ...params] = (header ?? '').split(';');
  if (type.trim().toLowerCase() !== 'application/json') return `contentType=${header ?? ''}, expected application/json`;
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq < 0 || p.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return `contentType=${header}: charset ${charset} is not supported; send UTF-8 JSON`;
  }
  return undefined;
}

export async function review(input: HttpInput, ctx: ReviewContext = {}): Promise<ReviewOutcome> {
  const r = findRoute(input.path);
  if (!r && !ANY_KIND_PATHS.includes(input.path)) return malformed(404, `no admission webhook is served at ${input.path}; paths: ${[...ROUTES.map((x) => x.path), ...ANY_KIND_PATHS].join(', ')}`);
  if (input.tooLarge) return malformed(400, `request entity is too large; limit is ${MAX_BODY_BYTES} bytes`);
  const text = typeof input.body === 'string' ? input.body : (input.body?.toString('utf8') ?? '');
  if (text.length === 0) return malformed(400, 'request body is empty');
  const mediaTypeError = checkContentType(input.contentType);
  if (mediaTypeError) return malformed(400, mediaTypeError);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return malformed(400, `request body is not JSON (${errorMessage(e)}); send an AdmissionReview of ${REVIEW_VERSIONS.join(' or ')}`);
  }
  if (!isObj(parsed)) return malformed(400, `request body is not an AdmissionReview object; send an AdmissionReview of ${REVIEW_VERSIONS.join(' or ')}`);
  if (parsed.kind !== 'AdmissionReview' || !REVIEW_VERSIONS.includes(strOf(parsed.apiVersion))) {
    return malformed(400, `unsupported review ${strOf(parsed.apiVersion) || '<no apiVersion>'} ${strOf(parsed.kind) || '<no kind>'}; send an AdmissionReview of ${REVIEW_VERSIONS.join(' or ')}`);
  }
  return r ? handleReview(r, parsed, ctx) : handleDeletionProtection(parsed);
}

class Reply {
  constructor(
    private readonly apiVersion: string,
    readonly uid: string,
    readonly fields: Omit<ReviewOutcome, 'body' | 'verdict' | 'code'>,
  ) {}

  private wrap(response: Obj, verdict: Verdict, code: number, message?: string): ReviewOutcome {
    return { body: { apiVersion: this.apiVersion, kind: 'AdmissionReview', response: { uid: this.uid, ...response } }, verdict, code, message, ...this.fields };
  }

  allowed(warnings: string[] = []): ReviewOutcome {
    return this.wrap({ allowed: true, status: { metadata: {}, code: 200 }, ...(warnings.length ? { warnings } : {}) }, 'allowed', 200);
  }

  patched(patch: unknown[], warnings: string[]): ReviewOutcome {
    if (patch.length === 0) return this.allowed(warnings);
    const response: Obj = { allowed: true, status: { metadata: {}, code: 200 }, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') };
    if (warnings.length) response.warnings = warnings;
    return this.wrap(response, 'patched', 200);
  }

  denied(message: string, reason = 'Forbidden'): ReviewOutcome {
    return this.wrap({ allowed: false, status: { metadata: {}, message, reason, code: 403 } }, 'denied', 403, message);
  }

  errored(code: number, message: string): ReviewOutcome {
    return this.wrap({ allowed: false, status: { metadata: {}, message, code } }, code === 400 ? 'malformed' : 'errored', code, message);
  }
}

/** Type errors are what Go's decoder refuses; everything else in the schema is the API server's job. */
function decodeErrors(info: KindInfo, o: Obj): FieldError[] {
  if (info.validate(o)) return [];
  const typeErrors = (info.validate.errors ?? []).filter((e) => e.keyword === 'type' && !e.schemaPath.includes('/anyOf/'));
  return formatAjvErrors(typeErrors);
}

/** Checks that request.object / oldObject holds an object of the route's kind; returns the 400 text otherwise. */
function decode(r: Route, value: unknown, checkTypes = true): string | Obj {
  if (value === undefined || value === null) return 'there is no content to decode';
  if (!isObj(value)) return `cannot decode a JSON ${Array.isArray(value) ? 'array' : typeof value} as ${r.kind}: the object must be a JSON object`;
  const kind = strOf(value.kind);
  const apiVersion = strOf(value.apiVersion);
  if (kind === '') return `Object 'Kind' is missing in '${JSON.stringify(value).slice(0, 200)}'`;
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  if (kind !== r.kind || group !== r.info.group) {
    return `cannot decode ${kind} (${apiVersion || 'no apiVersion'}) as ${r.kind} (${r.info.group}): ${r.path} only serves ${r.kind}`;
  }
  const errs = checkTypes ? decodeErrors(r.info, value) : [];
  if (errs.length) return `cannot decode ${r.kind}: ${errs.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ')}`;
  return value;
}

/** Karmada's resourcedeletionprotection: any kind, any scope; only the old object's labels decide (deletion-protection.ts). */
function handleDeletionProtection(reviewObj: Obj): ReviewOutcome {
  const req = isObj(reviewObj.request) ? reviewObj.request : undefined;
  const uid = strOf(req?.uid);
  const oldMeta = isObj(req?.oldObject) && isObj((req!.oldObject as Obj).metadata) ? ((req!.oldObject as Obj).metadata as Obj) : undefined;
  const reply = new Reply(strOf(reviewObj.apiVersion), uid, {
    uid: uid || undefined,
    kind: (isObj(req?.kind) && strOf((req!.kind as Obj).kind)) || undefined,
    operation: req ? strOf(req.operation) || undefined : undefined,
    namespace: req ? strOf(req.namespace) || undefined : undefined,
    name: (req ? strOf(req.name) : '') || strOf(oldMeta?.name) || undefined,
  });
  if (!req) return reply.errored(400, 'AdmissionReview has no request; the API server sends one in every review');
  if (uid === '') return reply.errored(400, 'request.uid is missing; every AdmissionReview request needs a uid for its response');
  const operation = strOf(req.operation);
  if (operation !== 'DELETE') return reply.allowed();
  // As controller-runtime's decoder: a DELETE carries the object being deleted as oldObject.
  if (req.oldObject === undefined || req.oldObject === null) return reply.errored(400, 'there is no content to decode');
  if (!isObj(req.oldObject)) return reply.errored(400, 'cannot decode request.oldObject: the object must be a JSON object');
  const denial = deletionProtectionDenial(operation, isObj(oldMeta) ? oldMeta.labels : undefined);
  return denial ? reply.denied(denial) : reply.allowed();
}

const OLD_OBJECT_KINDS = new Set<AdmissionKind>(['PropagationPolicy', 'ClusterPropagationPolicy', 'ResourceBinding', 'MultiClusterService']);

async function handleReview(r: Route, reviewObj: Obj, ctx: ReviewContext): Promise<ReviewOutcome> {
  const apiVersion = strOf(reviewObj.apiVersion);
  const request = reviewObj.request;
  const req = isObj(request) ? request : undefined;
  const uid = strOf(req?.uid);
  const objectMeta = isObj(req?.object) && isObj((req!.object as Obj).metadata) ? ((req!.object as Obj).metadata as Obj) : undefined;
  const reply = new Reply(apiVersion, uid, {
    uid: uid || undefined,
    kind: r.kind,
    operation: req ? strOf(req.operation) || undefined : undefined,
    namespace: req ? strOf(req.namespace) || undefined : undefined,
    name: (req ? strOf(req.name) : '') || strOf(objectMeta?.name) || undefined,
  });
  if (!req) return reply.errored(400, 'AdmissionReview has no request; the API server sends one in every review');
  if (uid === '') return reply.errored(400, 'request.uid is missing; every AdmissionReview request needs a uid for its response');
  const reqKind = isObj(req.kind) ? req.kind : undefined;
  if (reqKind && strOf(reqKind.kind) !== '' && (reqKind.kind !== r.kind || strOf(reqKind.group) !== r.info.group)) {
    return reply.errored(400, `request.kind is ${strOf(reqKind.group)}/${strOf(reqKind.version)} ${strOf(reqKind.kind)}, but ${r.path} only serves ${r.kind} (${r.info.group})`);
  }
  const operation = strOf(req.operation);
  if (!['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].includes(operation)) {
    return reply.errored(400, `request.operation ${JSON.stringify(operation)} is not one of CREATE, UPDATE, DELETE, CONNECT`);
  }
  // Karmada registers neither DELETE nor CONNECT; if a configuration sends them anyway, let them pass.
  if (operation === 'DELETE' || operation === 'CONNECT') return reply.allowed();

  const object = decode(r, req.object);
  if (typeof object === 'string') return reply.errored(400, object);
  let oldObject: Obj | undefined;
  // Only the handlers that compare with the old object decode it (Karmada's PP, CPP and RB validators,
  // and the PP and CPP mutators, which give back a permanent id an update lacks: defaulting.ts).
  if (operation === 'UPDATE' && (r.mode === 'validate' ? OLD_OBJECT_KINDS.has(r.kind) : isObj(req.oldObject) && (r.kind === 'PropagationPolicy' || r.kind === 'ClusterPropagationPolicy'))) {
    // The old object is the stored one: it passed the schema when it was written, so only its kind is checked.
    const old = decode(r, req.oldObject, false);
    if (typeof old === 'string') return reply.errored(400, old);
    oldObject = old;
  }
  const admission = { operation, namespace: strOf(req.namespace), object, oldObject };

  try {
    if (r.mode === 'mutate') {
      const { object: mutated, warnings } = mutate(r.kind, admission, ctx);
      return reply.patched(createPatch(object, mutated), warnings);
    }
    if (ctx.schema === 'full') {
      const schemaErrors = validateSchema(r.info, object);
      if (schemaErrors.length) return reply.denied(aggregate(schemaErrors));
    }
    let existingRics: Obj[] | undefined;
    let compileLua = ctx.compileLua;
    if (r.kind === 'ResourceInterpreterCustomization') {
      try {
        existingRics = ctx.listRics ? await ctx.listRics() : [];
      } catch (e) {
        return reply.errored(500, `cannot list ResourceInterpreterCustomizations: ${errorMessage(e)}`);
      }
      compileLua ??= await loadLuaCompile();
    }
    const errors = validate(r.kind, admission, { ...ctx, existingRics, compileLua });
    if (errors.length) return reply.denied(aggregate(errors));
    if (r.kind !== 'ResourceInterpreterCustomization') return reply.allowed();
    const risky = ricScriptWarnings(object);
    if (risky.length && ctx.riskyScripts === 'reject') return reply.denied(`risky Lua scripts are refused (--reject-risky-scripts): ${risky.join('; ')}`);
    return reply.allowed(risky);
  } catch (e) {
    if (e instanceof MutationError) return reply.errored(e.code, e.message);
    return reply.errored(500, `panic: ${errorMessage(e)} [recovered]`);
  }
}
