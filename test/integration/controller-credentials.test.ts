// End to end: a member's credentials follow its Secret without a restart. The Cluster `rotated` is member2's
// apiserver under a Secret of its own, which the tests break and repair: a bogus token, a wrong CA, a token
// whose ServiceAccount has no RBAC rights (403).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberKubeConfig } from '../../src/kube/credentials.js';
import { RestClient } from '../../src/kube/rest.js';
import { kubeConfig, waitFor } from './env.js';
import { get, ignoreConflict, prepareHost, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `creds-e2e-${Date.now().toString(36)}`;
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const SECRET = '/api/v1/namespaces/karmada-cluster/secrets/rotated';
const deployPath = `/apis/apps/v1/namespaces/${NS}/deployments/cred`;

const readyOf = (c: any) => ((c?.status?.conditions ?? []) as any[]).find((x) => x.type === 'Ready');
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('karmada-lite controller: member credentials follow their Secret', () => {
  const host = rest('host');
  const member2 = rest('member2');
  let ctrl: Proc | undefined;
  let good: Record<string, string> = {};

  async function setSecretData(data: Record<string, string>): Promise<void> {
    const cur = await host.request('GET', SECRET);
    await host.request('PUT', SECRET, { body: { ...cur, data } });
  }

  /** Waits for the Ready condition of `rotated` to have this status; returns it. */
  async function ready(status: 'True' | 'False'): Promise<any> {
    return waitFor(`rotated Ready=${status}`, async () => {
      const r = readyOf(await get(host, `${CLUSTERS}/rotated`));
      return r?.status === status ? r : undefined;
    });
  }

  async function image(): Promise<string | undefined> {
    return (await get(member2, deployPath))?.spec?.template?.spec?.containers?.[0]?.image;
  }

  async function setImage(img: string): Promise<void> {
    const d = await host.request('GET', deployPath);
    d.spec.template.spec.containers[0].image = img;
    await host.request('PUT', deployPath, { body: d });
  }

  beforeAll(async () => {
    await prepareHost(host, NS);
    good = (await host.request('GET', '/api/v1/namespaces/karmada-cluster/secrets/member2')).data;
    await ignoreConflict(host.request('POST', '/api/v1/namespaces/karmada-cluster/secrets', { body: { metadata: { name: 'rotated', namespace: 'karmada-cluster' }, data: good } }));
    await setSecretData(good);
    await ignoreConflict(
      host.request('POST', CLUSTERS, {
        body: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'rotated' }, spec: { apiEndpoint: kubeConfig('member2').getCurrentCluster()!.server, syncMode: 'Push', secretRef: { namespace: 'karmada-cluster', name: 'rotated' } } },
      }),
    );
    ctrl = await startController();
    await ready('True');
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
      body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: 'cred', namespace: NS }, spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'cred' }], placement: { clusterAffinity: { clusterNames: ['rotated'] } } } },
    });
    await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'cred', namespace: NS }, spec: { replicas: 1, selector: { matchLabels: { app: 'cred' } }, template: { metadata: { labels: { app: 'cred' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } } },
    });
    await waitFor('cred on member2 (as rotated)', async () => ((await image()) === 'nginx:1.25' ? true : undefined));
  }, scaled(180_000));

  afterAll(async () => {
    await setSecretData(good).catch(() => undefined);
    for (const p of [deployPath, `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/cred`]) await host.request('DELETE', p).catch(() => undefined);
    await waitFor('cred removed from member2', async () => ((await get(member2, deployPath)) ? undefined : true)).catch((e) => console.warn(`cleanup: ${(e as Error).message}`));
    // The cluster controller empties rotated's execution namespace before letting the Cluster go: it must still run.
    await host.request('DELETE', `${CLUSTERS}/rotated`).catch(() => undefined);
    await waitFor('rotated gone', async () => ((await get(host, `${CLUSTERS}/rotated`)) === undefined ? true : undefined)).catch(() => undefined);
    await host.request('DELETE', SECRET).catch(() => undefined);
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
  });

  it('a bogus token makes the cluster not ready; the good one put back works again, without a restart', async () => {
    await setSecretData({ ...good, token: b64('not-a-token') });
    const r = await ready('False');
    expect(r.reason).toBe('ClusterNotReachable');
    expect(r.message).toContain('401');
    expect(r.message).toContain('Secret karmada-cluster/rotated');
    await setSecretData(good);
    await ready('True');
    // The rebuilt client writes: a change of the template reaches the member.
    await setImage('nginx:1.26');
    await waitFor('the update on member2', async () => ((await image()) === 'nginx:1.26' ? true : undefined));
  });

  it('a wrong CA makes the cluster not reachable; the fixed CA is used at once', async () => {
    // member1's CA: a valid certificate that did not sign member2's serving certificate.
    const otherCa = kubeConfig('member1').getCurrentCluster()!.caData!;
    await setSecretData({ ...good, caBundle: otherCa });
    const r = await ready('False');
    expect(r.reason).toBe('ClusterNotReachable');
    expect(r.message).toMatch(/certificate/i);
    await setSecretData(good);
    await ready('True');
    await setImage('nginx:1.27');
    await waitFor('the update on member2', async () => ((await image()) === 'nginx:1.27' ? true : undefined));
  });

  it('a token whose RBAC rights are gone (403) turns Ready False with the reason, instead of staying Ready', async () => {
    const sa = 'karmada-lite-no-rights';
    await ignoreConflict(member2.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: sa } } }));
    const tr = await member2.request('POST', `/api/v1/namespaces/default/serviceaccounts/${sa}/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } } });
    // The health endpoints are open to any authenticated user: only a request that needs rights tells.
    const asSa = new RestClient(memberKubeConfig({ metadata: { name: 'rotated' }, spec: { apiEndpoint: kubeConfig('member2').getCurrentCluster()!.server } }, { data: { ...good, token: b64(tr.status.token) } }));
    expect(await asSa.request('GET', '/readyz')).toBe('ok');
    await expect(asSa.request('GET', '/api/v1/namespaces')).rejects.toMatchObject({ code: 403 });
    await setSecretData({ ...good, token: b64(tr.status.token) });
    const r = await ready('False');
    expect(r.reason).toBe('ClusterNotReady');
    expect(r.message).toContain('403');
    expect(r.message).toContain('RBAC');
    await setSecretData(good);
    await ready('True');
  });
});
