import { describe, expect, it, afterAll } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { RestClient, ApiError } from '../../src/kube/rest.js';
import { Informer } from '../../src/kube/informer.js';
import { cluster } from './env.js';

function client(): RestClient {
  const kc = new KubeConfig();
  kc.loadFromFile(cluster('host').kubeconfig);
  return new RestClient(kc);
}

async function until(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('RestClient and Informer against a real kube-apiserver', () => {
  const rest = client();
  const ns = `informer-${Date.now()}`;
  const informers: Informer[] = [];
  afterAll(async () => {
    informers.forEach((i) => i.stop());
    await rest.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
  });

  it('discovers resource paths and reports API errors with their code', async () => {
    expect(await rest.pathFor('apps/v1', 'Deployment', 'default', 'x')).toBe('/apis/apps/v1/namespaces/default/deployments/x');
    expect(await rest.pathFor('v1', 'Namespace', undefined, 'default')).toBe('/api/v1/namespaces/default');
    await expect(rest.request('GET', '/api/v1/namespaces/does-not-exist')).rejects.toMatchObject({ code: 404, reason: 'NotFound' });
    await expect(rest.resourceFor('apps/v1', 'Deploymnt')).rejects.toBeInstanceOf(ApiError);
  });

  it('sees every change once, across watch restarts forced by a 1 s server timeout', async () => {
    await rest.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
    const inf = new Informer(rest, { path: `/api/v1/namespaces/${ns}/configmaps`, watchTimeoutSeconds: 1 });
    informers.push(inf);
    const seen: string[] = [];
    inf.on((t, o) => {
      if (o.metadata.name.startsWith('cm-')) seen.push(`${t} ${o.metadata.name} ${JSON.stringify(o.data ?? {})}`);
    });
    inf.start();
    await inf.waitForSync();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    await rest.request('POST', base, { body: { metadata: { name: 'cm-a' }, data: { v: '1' } } });
    await until(() => seen.length === 1);
    await new Promise((r) => setTimeout(r, 2500)); // the watch times out at least twice meanwhile
    const cur = await rest.request('GET', `${base}/cm-a`);
    await rest.request('PUT', `${base}/cm-a`, { body: { ...cur, data: { v: '2' } } });
    await rest.request('DELETE', `${base}/cm-a`);
    await until(() => seen.length === 3);
    await new Promise((r) => setTimeout(r, 1500));
    expect(seen).toEqual(['ADDED cm-a {"v":"1"}', 'MODIFIED cm-a {"v":"2"}', 'DELETED cm-a {"v":"2"}']);
    expect(inf.lists).toBe(1);
  });

  it('a stale update is refused with 409 Conflict', async () => {
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const created = await rest.request('POST', base, { body: { metadata: { name: 'cm-conflict' }, data: { v: '1' } } });
    await rest.request('PUT', `${base}/cm-conflict`, { body: { ...created, data: { v: '2' } } });
    await expect(rest.request('PUT', `${base}/cm-conflict`, { body: { ...created, data: { v: '3' } } })).rejects.toMatchObject({ code: 409 });
  });
});
