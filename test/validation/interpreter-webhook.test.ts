// ResourceInterpreterWebhookConfiguration admission (src/validation/interpreter-webhook.ts): Karmada's
// /validate-resourceinterpreterwebhookconfiguration rules and texts (spec 1.2), the CRD schema, `validate` offline.
import { describe, expect, it } from 'vitest';
import { errorText } from '../../src/validation/field-errors.js';
import { parseGoUrl, validateInterpreterWebhookConfiguration } from '../../src/validation/interpreter-webhook.js';
import { lintDocuments } from '../../src/validation/lint.js';
import { validate, VALIDATED_KINDS } from '../../src/validation/rules.js';
import { findKind, validateSchema } from '../../src/validation/schema.js';
import { review, ROUTES } from '../../src/webhook/review.js';

const KIND = 'ResourceInterpreterWebhookConfiguration';
const rule = (extra: Record<string, unknown> = {}) => ({ operations: ['InterpretReplica'], apiGroups: ['workload.example.io'], apiVersions: ['v1alpha1'], kinds: ['Workload'], ...extra });
const hook = (extra: Record<string, unknown> = {}) => ({
  name: 'workloads.example.com',
  clientConfig: { url: 'https://127.0.0.1:8445/interpreter-workload' },
  rules: [rule()],
  interpreterContextVersions: ['v1alpha1'],
  timeoutSeconds: 3,
  ...extra,
});
const config = (webhooks: unknown[]) => ({ apiVersion: 'config.karmada.io/v1alpha1', kind: KIND, metadata: { name: 'examples' }, webhooks });
const texts = (webhooks: unknown[]) => validateInterpreterWebhookConfiguration(config(webhooks)).map(errorText);

describe('ResourceInterpreterWebhookConfiguration admission', () => {
  it('is validated at /validate-resourceinterpreterwebhookconfiguration and admits Karmada\'s example', () => {
    expect(VALIDATED_KINDS.has(KIND)).toBe(true);
    expect(ROUTES.find((r) => r.path === '/validate-resourceinterpreterwebhookconfiguration')).toMatchObject({ mode: 'validate', kind: KIND });
    expect(validate(KIND, { operation: 'CREATE', namespace: '', object: config([hook()]) })).toEqual([]);
    expect(texts([hook({ clientConfig: { service: { namespace: 'karmada-system', name: 'example', path: '/interpreter-workload' } } })])).toEqual([]);
    expect(texts([hook({ rules: [rule({ operations: ['*'], apiGroups: [''], apiVersions: ['*'], kinds: ['*'] })] })])).toEqual([]);
  });

  it('names: fully qualified and unique', () => {
    expect(texts([hook({ name: 'workloads' })])).toEqual(['webhooks[0].name: Invalid value: "workloads": should be a domain with at least two segments separated by dots']);
    expect(texts([hook({ name: '' })])).toEqual(['webhooks[0].name: Required value']);
    expect(texts([hook({ name: 'Bad_Name.io' })])[0]).toMatch(/^webhooks\[0\]\.name: Invalid value: "Bad_Name.io": a lowercase RFC 1123 subdomain must consist of/);
    expect(texts([hook(), hook()])).toEqual(['webhooks[1].name: Duplicate value: "workloads.example.com"']);
  });

  it('rules: operations, groups, versions and kinds as Karmada checks them', () => {
    expect(texts([hook({ rules: [rule({ operations: [] })] })])).toEqual(['webhooks[0].rules[0].operations: Required value']);
    expect(texts([hook({ rules: [rule({ operations: ['*', 'Retain'] })] })])).toEqual([`webhooks[0].rules[0].operations: Invalid value: ["*","Retain"]: if '*' is present, must not specify other operations`]);
    expect(texts([hook({ rules: [rule({ operations: ['Prune'] })] })])).toEqual([
      'webhooks[0].rules[0].operations[0]: Unsupported value: "Prune": supported values: "*", "AggregateStatus", "InterpretComponent", "InterpretDependency", "InterpretHealth", "InterpretReplica", "InterpretStatus", "Retain", "ReviseReplica"',
    ]);
    expect(texts([hook({ rules: [rule({ apiGroups: [], apiVersions: ['*', 'v1'], kinds: ['Workload', ''] })] })])).toEqual([
      'webhooks[0].rules[0].apiGroups: Required value',
      `webhooks[0].rules[0].apiVersions: Invalid value: ["*","v1"]: if '*' is present, must not specify other API versions`,
      'webhooks[0].rules[0].kinds[1]: Required value',
    ]);
  });

  it('timeoutSeconds between 1 and 30', () => {
    expect(texts([hook({ timeoutSeconds: 31 })])).toEqual(['webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds']);
    expect(texts([hook({ timeoutSeconds: 0 })])).toEqual(['webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds']);
    expect(texts([hook({ timeoutSeconds: undefined })])).toEqual([]);
  });

  it('clientConfig: exactly one of url or service; the url https, with a host, no user, query or fragment', () => {
    expect(texts([hook({ clientConfig: {} })])).toEqual(['webhooks[0].clientConfig: Required value: exactly one of url or service is required']);
    expect(texts([hook({ clientConfig: { url: 'https://a.io', service: { namespace: 'n', name: 's' } } })])).toEqual(['webhooks[0].clientConfig: Required value: exactly one of url or service is required']);
    expect(texts([hook({ clientConfig: { url: 'http://u:p@a.io/x?y=1#z' } })])).toEqual([
      `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'webhooks[0].clientConfig.url: Invalid value: "u:p": user information is not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "z": fragments are not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "y=1": query parameters are not permitted in the URL',
    ]);
    expect(texts([hook({ clientConfig: { url: 'https:///x' } })])).toEqual(['webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]']);
    expect(texts([hook({ clientConfig: { url: '://x' } })])).toEqual(['webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "://x": missing protocol scheme; desired format: https://host[/path]']);
    expect(parseGoUrl('https://a.io:x/p')).toEqual({ error: 'parse "https://a.io:x/p": invalid port ":x" after host' });
  });

  it('service: name, namespace, port and path segments', () => {
    expect(texts([hook({ clientConfig: { service: { namespace: '', name: '', port: 70000, path: 'a//B' } } })])).toEqual([
      'webhooks[0].clientConfig.service.name: Required value: service name is required',
      'webhooks[0].clientConfig.service.namespace: Required value: service namespace is required',
      'webhooks[0].clientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive',
      `webhooks[0].clientConfig.service.path: Invalid value: "a//B": must start with a '/'`,
      'webhooks[0].clientConfig.service.path: Invalid value: "a//B": segment[0] may not be empty',
      'webhooks[0].clientConfig.service.path: Invalid value: "a//B": segment[1] may not be empty',
      expect.stringMatching(/^webhooks\[0\]\.clientConfig\.service\.path: Invalid value: "a\/\/B": segment\[2\]: a lowercase RFC 1123 subdomain/),
    ]);
    expect(texts([hook({ clientConfig: { service: { namespace: 'n', name: 's', path: '/a/b/' } } })])).toEqual([]);
  });

  it('interpreterContextVersions: required, no duplicates, DNS-1035 labels, v1alpha1 among them', () => {
    expect(texts([hook({ interpreterContextVersions: [] })])).toEqual(['webhooks[0].interpreterContextVersions: Required value: must specify one of v1alpha1']);
    expect(texts([hook({ interpreterContextVersions: ['v1alpha1', 'v1alpha1'] })])).toEqual(['webhooks[0].interpreterContextVersions[1]: Invalid value: "v1alpha1": duplicate version']);
    expect(texts([hook({ interpreterContextVersions: ['V1'] })])).toEqual([
      `webhooks[0].interpreterContextVersions[0]: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      'webhooks[0].interpreterContextVersions: Invalid value: ["V1"]: must include at least one of v1alpha1',
    ]);
  });

  it('the webhook denies with the aggregated message', async () => {
    const body = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'u1', kind: { group: 'config.karmada.io', version: 'v1alpha1', kind: KIND }, operation: 'CREATE', object: config([hook({ timeoutSeconds: 40, interpreterContextVersions: [] })]) },
    };
    const out = await review({ path: '/validate-resourceinterpreterwebhookconfiguration', contentType: 'application/json', body: JSON.stringify(body) });
    expect(out.verdict).toBe('denied');
    expect(out.message).toBe(
      '[webhooks[0].timeoutSeconds: Invalid value: 40: the timeout value must be between 1 and 30 seconds, webhooks[0].interpreterContextVersions: Required value: must specify one of v1alpha1]',
    );
  });

  it('the CRD schema wants webhooks with a name, a clientConfig and versions; validate offline reports the rules', () => {
    const info = findKind('config.karmada.io/v1alpha1', KIND)!;
    expect(info.namespaced).toBe(false);
    expect(validateSchema(info, config([hook()]))).toEqual([]);
    expect(validateSchema(info, { apiVersion: 'config.karmada.io/v1alpha1', kind: KIND, metadata: { name: 'x' } }).length).toBeGreaterThan(0);
    expect(validateSchema(info, config([{ name: 'a.b' }])).length).toBeGreaterThan(0);
    const [r] = lintDocuments([{ file: 'riwc.yaml', index: 0, object: config([hook({ timeoutSeconds: 31 })]) }]);
    expect(r).toMatchObject({ status: 'invalid', kind: KIND });
    expect(r!.errors.map(errorText)).toEqual(['webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds']);
  });
});
