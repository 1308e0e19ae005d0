// A PropagationPolicy and a ClusterPropagationPolicy created BEFORE the admission webhook was installed have
// no permanent-id label. Once the webhook is registered with the real apiserver (deploy/webhook/,
// failurePolicy Fail), an update of either must go through: the mutating webhook gives it the id, and the
// validating webhook accepts the id appearing. With Karmada's rules every such update is denied
// ("label ... is required"), and the label cannot be added by hand either.
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './env.js';
import { ignoreConflict, installCrds, rest } from './harness.js';
import { ApiError } from '../../src/kube/rest.js';
import { WebhookServer } from '../../src/webhook/server.js';
import { renderWebhookConfigurations } from '../../src/webhook/deploy.js';
import { silentLogger } from '../../src/runtime/log.js';
import { makePki } from '../webhook/certs.js';
import { scaled } from '../time-scale.js';

const run = randomBytes(3).toString('hex');
const TEST_LABEL = 'karmada-lite.io/webhook-test';
const ns = `permanent-id-${run}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PP_ID = 'propagationpolicy.karmada.io/permanent-id';
const CPP_ID = 'clusterpropagationpolicy.karmada.io/permanent-id';

const host = rest('host');
const ppPath = (name = '') => `/apis/policy.karmada.io/v1alpha1/namespaces/${ns}/propagationpolicies${name ? `/${name}` : ''}`;
const cppPath = (name = '') => `/apis/policy.karmada.io/v1alpha1/clusterpropagationpolicies${name ? `/${name}` : ''}`;
const labels = { [TEST_LABEL]: run };

const pp = (name: string) => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name, namespace: ns, labels },
  spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx', namespace: ns }], placement: { clusterAffinity: { clusterNames: ['member1'] } } },
});

const cpp = {
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'ClusterPropagationPolicy',
  metadata: { name: `before-webhook-${run}`, labels },
  spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'Namespace', name: ns }], placement: { clusterAffinity: { clusterNames: ['member1'] } } },
};

let server: WebhookServer | undefined;
const configs: string[] = [];

beforeAll(async () => {
  await installCrds(host);
  await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }));
}, scaled(120_000));

afterAll(async () => {
  for (const c of configs) await host.request('DELETE', c).catch(() => undefined);
  await server?.stop();
  for (const p of [ppPath('before-webhook'), cppPath(cpp.metadata.name)]) {
    // The policies carry no controller finalizer from this test's point of view: drop any, then delete.
    const cur = await host.request('GET', p).catch(() => undefined);
    if (cur?.metadata?.finalizers) await host.request('PUT', p, { body: { ...cur, metadata: { ...cur.metadata, finalizers: [] } } }).catch(() => undefined);
    await host.request('DELETE', p).catch(() => undefined);
  }
  await host.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
});

/** Starts the webhook on loopback and registers it for this run's objects only; resolves once the apiserver calls it. */
async function installWebhook(): Promise<void> {
  const pki = makePki();
  const certFile = path.join(pki.dir, 'tls.crt');
  const keyFile = path.join(pki.dir, 'tls.key');
  pki.issue(certFile, keyFile, 'karmada-lite-webhook');
  server = new WebhookServer({ certFile, keyFile, port: 0, bindAddress: '127.0.0.1', logger: silentLogger, review: {} });
  const { port } = await server.start();
  for (const cfg of renderWebhookConfigurations({ url: `https://127.0.0.1:${port}`, caPem: pki.ca })) {
    cfg.metadata.name = `${cfg.metadata.name}-permanent-id-${run}`;
    for (const w of cfg.webhooks) w.objectSelector = { matchLabels: labels };
    const plural = cfg.kind === 'MutatingWebhookConfiguration' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
    await host.request('POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, { body: cfg });
    configs.push(`/apis/admissionregistration.k8s.io/v1/${plural}/${cfg.metadata.name}`);
  }
  // The apiserver picks new configurations up asynchronously: wait until a create comes back with an id.
  await waitFor('the webhook to be called by the apiserver', async () => {
    const probe = await host.request('POST', ppPath(), { body: pp(`probe-${Date.now().toString(36)}`) });
    await host.request('DELETE', ppPath(probe.metadata.name)).catch(() => undefined);
    return probe.metadata.labels?.[PP_ID] ? true : undefined;
  });
}

describe('policies created before the webhook was installed', () => {
  it('can be updated once it is: the webhook gives them their permanent id', async () => {
    const before = await host.request('POST', ppPath(), { body: pp('before-webhook') });
    const beforeCpp = await host.request('POST', cppPath(), { body: cpp });
    expect(before.metadata.labels[PP_ID]).toBeUndefined();
    expect(beforeCpp.metadata.labels[CPP_ID]).toBeUndefined();

    await installWebhook();

    const updated = await host.request('PUT', ppPath('before-webhook'), { body: { ...before, spec: { ...before.spec, priority: 3 } } });
    expect(updated.spec.priority).toBe(3);
    const id = updated.metadata.labels[PP_ID];
    expect(id).toMatch(UUID);
    const updatedCpp = await host.request('PUT', cppPath(cpp.metadata.name), { body: { ...beforeCpp, spec: { ...beforeCpp.spec, priority: 2 } } });
    expect(updatedCpp.metadata.labels[CPP_ID]).toMatch(UUID);

    // From then on the id is the policy's: a later update keeps it, and changing it is still denied.
    const again = await host.request('PUT', ppPath('before-webhook'), { body: { ...updated, spec: { ...updated.spec, priority: 4 } } });
    expect(again.metadata.labels[PP_ID]).toBe(id);
    const relabelled = structuredClone(again);
    relabelled.metadata.labels[PP_ID] = 'mine';
    const denied = await host.request('PUT', ppPath('before-webhook'), { body: relabelled }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(denied).toBeInstanceOf(ApiError);
    expect((denied as ApiError).code).toBe(403);
    expect((denied as ApiError).message).toContain(`label ${PP_ID} is immutable`);
  });
});
