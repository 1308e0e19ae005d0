import { describe, expect, it } from 'vitest';
import { renderTemplate, renderWebhookConfigurations } from '../../src/webhook/deploy.js';
import { ANY_KIND_PATHS, ROUTES } from '../../src/webhook/review.js';

describe('deploy/webhook configurations', () => {
  const configs = renderWebhookConfigurations({ url: 'https://127.0.0.1:8443/', caPem: 'PEM' });

  it('register every served path, with Karmada\'s rules, failurePolicy Fail and the CA bundle', () => {
    const hooks = configs.flatMap((c) => (c.webhooks as any[]).map((w) => ({ kind: c.kind as string, ...w })));
    expect(hooks.map((h) => new URL(h.clientConfig.url).pathname).sort()).toEqual([...ROUTES.map((r) => r.path), ...ANY_KIND_PATHS].sort());
    for (const r of ROUTES) {
      const h = hooks.find((x) => x.clientConfig.url === `https://127.0.0.1:8443${r.path}`)!;
      expect(h.kind).toBe(r.mode === 'mutate' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration');
      expect(h.failurePolicy).toBe('Fail');
      expect(h.clientConfig.caBundle).toBe(Buffer.from('PEM').toString('base64'));
      expect(h.rules).toEqual([{ apiGroups: [r.info.group], apiVersions: ['*'], resources: [r.info.plural], operations: r.operations, scope: r.info.namespaced ? 'Namespaced' : 'Cluster' }]);
      expect(h.admissionReviewVersions).toEqual(['v1']);
      expect(h.timeoutSeconds).toBe(r.kind === 'ResourceInterpreterCustomization' ? 10 : 3);
      expect(h.sideEffects).toBe(r.mode === 'validate' && r.kind === 'ResourceBinding' ? 'NoneOnDryRun' : 'None');
    }
  });

  it('refuses an unknown placeholder', () => {
    expect(() => renderTemplate('x: ${NOPE}', { url: 'u', caPem: 'c' })).toThrow(/unknown placeholder \$\{NOPE\}/);
  });
});
