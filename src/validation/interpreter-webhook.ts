/**
 * ResourceInterpreterWebhookConfiguration admission (Karmada's `/validate-resourceinterpreterwebhookconfiguration`,
 * interpreter-webhook spec 1.2), with the texts of Karmada and of the apimachinery and apiserver helpers it
 * calls (IsFullyQualifiedDomainName, ValidateWebhookURL, ValidateWebhookService, IsDNS1035Label), so that a
 * configuration refused by Karmada is refused here with the same message.
 */
import { goQuote, invalid, json, notSupported, required, scalar, str, type FieldError } from './field-errors.js';
import { arr, isObj, obj, objs, present, strOf, type Obj } from './json.js';
import { dns1035LabelErrors, dns1123LabelErrors, subdomainErrors } from './labels.js';

/** The operations a rule may name (Karmada's supportedInterpreterOperation, sorted as sets.String lists them). */
export const WEBHOOK_RULE_OPERATIONS: readonly string[] = [
  '*',
  'AggregateStatus',
  'InterpretComponent',
  'InterpretDependency',
  'InterpretHealth',
  'InterpretReplica',
  'InterpretStatus',
  'Retain',
  'ReviseReplica',
];

/** The ResourceInterpreterContext versions karmada-lite speaks. */
export const INTERPRETER_CONTEXT_VERSIONS: readonly string[] = ['v1alpha1'];

/** apimachinery's IsFullyQualifiedDomainName: the first problem only, as it returns early. */
function fqdnErrors(path: string, raw: string): FieldError[] {
  if (raw === '') return [required(path, '')];
  const name = raw.endsWith('.') ? raw.slice(0, -1) : raw;
  const sub = subdomainErrors(name);
  if (sub.length) return [invalid(path, str(name), sub.join(','))];
  const labels = name.split('.');
  if (labels.length < 2) return [invalid(path, str(name), 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const errs = dns1123LabelErrors(label);
    if (errs.length) return [invalid(path, str(label), errs.join(','))];
  }
  return [];
}

interface GoUrl {
  scheme: string;
  user?: string;
  host: string;
  query: string;
  fragment: string;
}

/** The parts of Go's url.Parse that ValidateWebhookURL looks at, with its error texts for what it refuses. */
export function parseGoUrl(raw: string): GoUrl | { error: string } {
  const fail = (msg: string) => ({ error: `parse ${JSON.stringify(raw)}: ${msg}` });
  const hash = raw.indexOf('#');
  const fragment = hash < 0 ? '' : raw.slice(hash + 1);
  let rest = hash < 0 ? raw : raw.slice(0, hash);
  // Go refuses ASCII control bytes anywhere in the URL.
  if (/[\x00-\x1f\x7f]/.test(rest)) return fail('net/url: invalid control character in URL');
  let scheme = '';
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  if (rest.startsWith(':')) return fail('missing protocol scheme');
  if (m) {
    scheme = m[1]!.toLowerCase();
    rest = rest.slice(m[0].length);
  }
  const q = rest.indexOf('?');
  const query = q < 0 ? '' : rest.slice(q + 1);
  if (q >= 0) rest = rest.slice(0, q);
  if (!rest.startsWith('/')) {
    if (scheme !== '') return { scheme, host: '', query, fragment };
    const colon = rest.indexOf(':');
    const slash = rest.indexOf('/');
    if (colon >= 0 && (slash < 0 || colon < slash)) return fail('first path segment in URL cannot contain colon');
  }
  if (!rest.startsWith('//')) return { scheme, host: '', query, fragment };
  const authEnd = rest.indexOf('/', 2);
  const authority = authEnd < 0 ? rest.slice(2) : rest.slice(2, authEnd);
  const at = authority.lastIndexOf('@');
  const user = at < 0 ? undefined : authority.slice(0, at);
  const host = at < 0 ? authority : authority.slice(at + 1);
  const port = /^(?:\[[^\]]*\]|[^:]*)(:.*)?$/.exec(host)?.[1];
  if (port !== undefined && !/^:\d*$/.test(port)) return fail(`invalid port ${JSON.stringify(port)} after host`);
  return { scheme, user, host, query, fragment };
}

const URL_FORM = '; desired format: https://host[/path]';

/** k8s.io/apiserver's ValidateWebhookURL with forceHttps. */
function webhookUrlErrors(path: string, raw: string): FieldError[] {
  const u = parseGoUrl(raw);
  if ('error' in u) return [required(path, `url must be a valid URL: ${u.error}${URL_FORM}`)];
  const errors: FieldError[] = [];
  if (u.scheme !== 'https') errors.push(invalid(path, str(u.scheme), `'https' is the only allowed URL scheme${URL_FORM}`));
  if (u.host === '') errors.push(invalid(path, str(u.host), `host must be specified${URL_FORM}`));
  if (u.user !== undefined) errors.push(invalid(path, str(u.user), 'user information is not permitted in the URL'));
  if (u.fragment !== '') errors.push(invalid(path, str(u.fragment), 'fragments are not permitted in the URL'));
  if (u.query !== '') errors.push(invalid(path, str(u.query), 'query parameters are not permitted in the URL'));
  return errors;
}

/** k8s.io/apiserver's ValidateWebhookService (the port already defaulted to 443, as Karmada does first). */
function webhookServiceErrors(path: string, svc: Obj): FieldError[] {
  const errors: FieldError[] = [];
  if (strOf(svc.name) === '') errors.push(required(`${path}.name`, 'service name is required'));
  if (strOf(svc.namespace) === '') errors.push(required(`${path}.namespace`, 'service namespace is required'));
  const port = typeof svc.port === 'number' ? svc.port : 443;
  if (!(Number.isInteger(port) && port >= 1 && port <= 65535)) errors.push(invalid(`${path}.port`, scalar(port), 'port is not valid: must be between 1 and 65535, inclusive'));
  if (!present(svc.path)) return errors;
  const p = strOf(svc.path);
  const at = `${path}.path`;
  if (p === '/' || p === '') return errors;
  if (p === '//') return [...errors, invalid(at, str(p), 'segment[0] may not be empty')];
  if (!p.startsWith('/')) errors.push(invalid(at, str(p), "must start with a '/'"));
  let check = p.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') {
      errors.push(invalid(at, str(p), `segment[${i}] may not be empty`));
      return;
    }
    for (const f of subdomainErrors(step)) errors.push(invalid(at, str(p), `segment[${i}]: ${f}`));
  });
  return errors;
}

const strings = (v: unknown): string[] => arr(v).map((x) => strOf(x));

/** Karmada's validateRule: `*` alone, an empty group allowed (core), empty versions and kinds refused. */
function ruleErrors(path: string, rule: Obj): FieldError[] {
  const errors: FieldError[] = [];
  const list = (field: string, what: string, emptyEntries: boolean) => {
    const values = strings(rule[field]);
    if (values.length === 0) errors.push(required(`${path}.${field}`, ''));
    if (values.length > 1 && values.includes('*')) errors.push(invalid(`${path}.${field}`, json(values), `if '*' is present, must not specify other ${what}`));
    if (emptyEntries) values.forEach((v, i) => v === '' && errors.push(required(`${path}.${field}[${i}]`, '')));
  };
  const ops = strings(rule.operations);
  if (ops.length === 0) errors.push(required(`${path}.operations`, ''));
  if (ops.length > 1 && ops.includes('*')) errors.push(invalid(`${path}.operations`, json(ops), "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!WEBHOOK_RULE_OPERATIONS.includes(op)) errors.push(notSupported(`${path}.operations[${i}]`, str(op), [...WEBHOOK_RULE_OPERATIONS]));
  });
  list('apiGroups', 'API groups', false);
  list('apiVersions', 'API versions', true);
  list('kinds', 'kinds', true);
  return errors;
}

function contextVersionErrors(path: string, versions: string[]): FieldError[] {
  const accepted = INTERPRETER_CONTEXT_VERSIONS.join(', ');
  if (versions.length === 0) return [required(path, `must specify one of ${accepted}`)];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  let known = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errors.push(invalid(`${path}[${i}]`, str(v), 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const e of dns1035LabelErrors(v)) errors.push(invalid(`${path}[${i}]`, str(v), e));
    if (INTERPRETER_CONTEXT_VERSIONS.includes(v)) known = true;
  });
  if (!known) errors.push(invalid(path, json(versions), `must include at least one of ${accepted}`));
  return errors;
}

function hookErrors(path: string, hook: Obj): FieldError[] {
  const errors = fqdnErrors(`${path}.name`, strOf(hook.name));
  objs(hook.rules).forEach((r, j) => errors.push(...ruleErrors(`${path}.rules[${j}]`, r)));
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) errors.push(invalid(`${path}.timeoutSeconds`, scalar(timeout), 'the timeout value must be between 1 and 30 seconds'));
  const cc = obj(hook.clientConfig) ?? {};
  const hasUrl = typeof cc.url === 'string';
  const svc = obj(cc.service);
  if (hasUrl === (svc !== undefined)) errors.push(required(`${path}.clientConfig`, 'exactly one of url or service is required'));
  else if (hasUrl) errors.push(...webhookUrlErrors(`${path}.clientConfig.url`, strOf(cc.url)));
  else errors.push(...webhookServiceErrors(`${path}.clientConfig.service`, svc!));
  errors.push(...contextVersionErrors(`${path}.interpreterContextVersions`, strings(hook.interpreterContextVersions)));
  return errors;
}

export function validateInterpreterWebhookConfiguration(object: Obj): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  arr(object.webhooks).forEach((h, i) => {
    const hook = isObj(h) ? h : {};
    const path = `webhooks[${i}]`;
    errors.push(...hookErrors(path, hook));
    const name = strOf(hook.name);
    if (names.has(name)) errors.push({ path: `${path}.name`, message: `Duplicate value: ${goQuote(name)}` });
    names.add(name);
  });
  return errors;
}
