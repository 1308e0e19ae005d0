// MultiClusterService admission against a real kube-apiserver: `karmada-lite webhook`'s server on loopback with a
// throwaway CA, registered through deploy/webhook/'s multiclusterservice hooks only (failurePolicy Fail), each with an
// objectSelector on this run's label so that no other test's object goes through it.
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './env.js';
import { ignoreConflict, installCrds, rest } from './harness.js';
import { ApiError } from '../../src/kube/rest.js';
import { WebhookServer } from '../../src/webhook/server.js';
import { renderWebhookConfigurations } from '../../src/webhook/deploy.js';
import { createLogger } from '../../src/runtime/log.js';
import { makePki } from '../webhook/certs.js';
import { scaled } from '../time-scale.js';

const run = randomBytes(3).toString('hex');
const LABEL = 'karmada-lite.io/mcs-webhook-test';
const NS = `mcs-webhook-${run}`;
const MCS = `/apis/networking.karmada.io/v1alpha1/namespaces/${NS}/multiclusterservices`;
const host = rest('host');
let server: WebhookServer | undefined;
const configs: string[] = [];

const mcs = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'networking.karmada.io/v1alpha1',
  kind: 'MultiClusterService',
  metadata: { name, namespace: NS, labels: { [LABEL]: run } },
  spec,
});

/** The apiserver's refusal of a request (fails the test when it is accepted). */
async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected the apiserver to refuse the request');
}

beforeAll(async () => {
  await installCrds(host);
  await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }));
  const pki = makePki();
  const certFile = path.join(pki.dir, 'tls.crt');
  const keyFile = path.join(pki.dir, 'tls.key');
  pki.issue(certFile, keyFile, 'karmada-lite-webhook');
  server = new WebhookServer({ certFile, keyFile, port: 0, bindAddress: '127.0.0.1', logger: createLogger({ level: 'error', write: () => undefined }) });
  const { port } = await server.start();
  for (const cfg of renderWebhookConfigurations({ url: `https://127.0.0.1:${port}`, caPem: pki.ca })) {
    cfg.webhooks = cfg.webhooks.filter((w: { name: string }) => w.name === 'multiclusterservice.karmada.io');
    if (!cfg.webhooks.length) continue;
    cfg.metadata.name = `${cfg.metadata.name}-mcs-${run}`;
    for (const w of cfg.webhooks) w.objectSelector = { matchLabels: { [LABEL]: run } };
    const plural = cfg.kind === 'MutatingWebhookConfiguration' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
    await host.request('POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, { body: cfg });
    configs.push(`/apis/admissionregistration.k8s.io/v1/${plural}/${cfg.metadata.name}`);
  }
  expect(configs).toHaveLength(2);
  // The apiserver picks new webhook configurations up asynchronously: wait until a refusal comes from us.
  await waitFor('the webhook to be called by the apiserver', async () => {
    try {
      await host.request('POST', MCS, { body: mcs(`probe-${run}`, { types: ['CrossCluster', 'LoadBalancer'] }) });
      await host.request('DELETE', `${MCS}/probe-${run}`);
      return undefined;
    } catch (e) {
      return e instanceof ApiError && e.code === 403 ? true : undefined;
    }
  });
}, scaled(120_000));

afterAll(async () => {
  for (const c of configs) await host.request('DELETE', c).catch(() => undefined);
  await server?.stop();
  await host.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
});

describe('MultiClusterService admission on the host apiserver', () => {
  it('stamps the permanent id on create; refuses bad ports, cluster names and a change of types in Karmada’s words', async () => {
    const made = await host.request<any>('POST', MCS, { body: mcs('web', { types: ['CrossCluster'], consumerClusters: [{ name: 'member2' }] }) });
    expect(made.metadata.labels['multiclusterservice.karmada.io/permanent-id']).toMatch(/^[0-9a-f-]{36}$/);

    const bad = await refusal(host.request('POST', MCS, { body: mcs('bad', { types: ['CrossCluster'], ports: [{ port: 70000 }], providerClusters: [{ name: 'Member_1' }] }) }));
    expect(bad.code).toBe(403);
    expect(bad.message).toContain('spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive');
    expect(bad.message).toContain('spec.range.providerClusters[0]: Invalid value: "Member_1"');

    const changed = { ...made, spec: { ...made.spec, types: ['LoadBalancer'] } };
    const immutable = await refusal(host.request('PUT', `${MCS}/web`, { body: changed }));
    expect(immutable.message).toContain('spec.types: Invalid value: ["CrossCluster"]: MultiClusterService types are immutable');
  });
});
