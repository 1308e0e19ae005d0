// Deletion protection (Karmada's resourcedeletionprotection webhook): the decision, the review on its path and
// the configuration deploy/webhook/ registers for it.
import { describe, expect, it } from 'vitest';
import { DELETION_PROTECTED_MESSAGE, DELETION_PROTECTION_PATH, deletionProtectionDenial } from '../../src/webhook/deletion-protection.js';
import { isReviewPath, review } from '../../src/webhook/review.js';
import { renderWebhookConfigurations } from '../../src/webhook/deploy.js';

const LABEL = 'resourcetemplate.karmada.io/deletion-protected';
/** Karmada's text (pkg/webhook/resourcedeletionprotection/validating.go), spelled out rather than imported. */
const KARMADA_MESSAGE = 'This resource is protected, please make sure to remove the label: resourcetemplate.karmada.io/deletion-protected';

const body = (request: Record<string, unknown>) => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
const deleteOf = (obj: Record<string, unknown>, kind: { group: string; version: string; kind: string }, namespace?: string) =>
  body({ uid: 'u1', kind, operation: 'DELETE', ...(namespace ? { namespace } : {}), name: (obj.metadata as { name: string }).name, oldObject: obj });

const configMap = (labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop', ...(labels ? { labels } : {}) }, data: { a: 'b' } });
const clusterRole = (labels?: Record<string, string>) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader', ...(labels ? { labels } : {}) }, rules: [] });
const post = (text: string) => review({ path: DELETION_PROTECTION_PATH, contentType: 'application/json', body: text });

describe('deletion protection: the decision', () => {
  it('refuses a DELETE of an object labelled Always, with Karmada\'s message', () => {
    expect(DELETION_PROTECTED_MESSAGE).toBe(KARMADA_MESSAGE);
    expect(deletionProtectionDenial('DELETE', { [LABEL]: 'Always' })).toBe(KARMADA_MESSAGE);
  });

  it('lets every other case go: another value, no label, no labels, another operation', () => {
    expect(deletionProtectionDenial('DELETE', { [LABEL]: 'always' })).toBeUndefined();
    expect(deletionProtectionDenial('DELETE', { [LABEL]: '' })).toBeUndefined();
    expect(deletionProtectionDenial('DELETE', { app: 'Always' })).toBeUndefined();
    expect(deletionProtectionDenial('DELETE', undefined)).toBeUndefined();
    expect(deletionProtectionDenial('UPDATE', { [LABEL]: 'Always' })).toBeUndefined();
    expect(deletionProtectionDenial('CREATE', { [LABEL]: 'Always' })).toBeUndefined();
  });
});

describe('deletion protection: the review at /validate-resourcedeletionprotection', () => {
  it('is a served path', () => {
    expect(isReviewPath(DELETION_PROTECTION_PATH)).toBe(true);
    expect(DELETION_PROTECTION_PATH).toBe('/validate-resourcedeletionprotection');
  });

  it('denies a protected namespaced object and a protected cluster-scoped one, 403 Forbidden with Karmada\'s message', async () => {
    const cm = await post(deleteOf(configMap({ [LABEL]: 'Always' }), { group: '', version: 'v1', kind: 'ConfigMap' }, 'shop'));
    expect(cm.verdict).toBe('denied');
    expect(cm.body).toEqual({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u1', allowed: false, status: { metadata: {}, message: KARMADA_MESSAGE, reason: 'Forbidden', code: 403 } } });
    expect(cm).toMatchObject({ kind: 'ConfigMap', namespace: 'shop', name: 'settings', operation: 'DELETE' });
    const cr = await post(deleteOf(clusterRole({ [LABEL]: 'Always' }), { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' }));
    expect(cr.verdict).toBe('denied');
    expect(cr.message).toBe(KARMADA_MESSAGE);
  });

  it('allows the same deletions once the label is gone or says something else, and any CREATE or UPDATE', async () => {
    expect((await post(deleteOf(configMap(), { group: '', version: 'v1', kind: 'ConfigMap' }, 'shop'))).verdict).toBe('allowed');
    expect((await post(deleteOf(clusterRole({ [LABEL]: 'Never' }), { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' }))).verdict).toBe('allowed');
    const update = await post(body({ uid: 'u2', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, operation: 'UPDATE', object: configMap({ [LABEL]: 'Always' }), oldObject: configMap({ [LABEL]: 'Always' }) }));
    expect(update.verdict).toBe('allowed');
  });

  it('answers 400 when a DELETE carries no old object to read, as controller-runtime\'s decoder', async () => {
    const r = await post(body({ uid: 'u3', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, operation: 'DELETE', name: 'x' }));
    expect(r.verdict).toBe('malformed');
    expect(r.body.response).toMatchObject({ uid: 'u3', allowed: false, status: { code: 400, message: 'there is no content to decode' } });
    expect((await post(body({ operation: 'DELETE', oldObject: configMap() }))).code).toBe(400);
  });
});

describe('deletion protection: deploy/webhook/validating.yaml', () => {
  it('registers DELETE of every kind and scope, only for objects that carry the label, as Karmada\'s configuration', () => {
    const hooks = renderWebhookConfigurations({ url: 'https://127.0.0.1:8443', caPem: 'PEM' }).flatMap((c) => (c.webhooks as any[]).map((w) => ({ kind: c.kind as string, ...w })));
    const h = hooks.find((w) => w.clientConfig.url === `https://127.0.0.1:8443${DELETION_PROTECTION_PATH}`)!;
    expect(h).toBeDefined();
    expect(h.kind).toBe('ValidatingWebhookConfiguration');
    expect(h.name).toBe('resourcedeletionprotection.karmada.io');
    expect(h.rules).toEqual([{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['DELETE'], scope: '*' }]);
    expect(h.objectSelector).toEqual({ matchExpressions: [{ key: LABEL, operator: 'Exists' }] });
    expect(h.failurePolicy).toBe('Fail');
    expect(h.sideEffects).toBe('None');
    expect(h.timeoutSeconds).toBe(3);
  });
});
