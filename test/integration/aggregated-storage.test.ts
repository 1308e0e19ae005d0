// Where the Clusters live once the cluster.karmada.io APIService is installed: the Cluster CRD's second
// served version. The controller reads and writes them there itself, so it keeps working while the
// aggregated server is down; and re-applying crds/ (which drops that version) is repaired by the running
// server without a restart (#17, items 2 and 3).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLUSTER_STORAGE_VERSION } from '../../src/apiserver/cluster-storage.js';
import { CLUSTER } from '../../src/core/kinds.js';
import type { KObject } from '../../src/core/object.js';
import { CLUSTER_STORAGE_API_VERSION, KubeStore } from '../../src/kube/store.js';
import { createLogger } from '../../src/runtime/log.js';
import { keepAggregatedStorage } from '../../src/search/search.js';
import { REGISTRY_STORAGE_PATH } from '../../src/search/registry-storage.js';
import { serveAggregated } from './aggregated-env.js';
import { CLUSTER_GROUP_VERSION, uninstallApiService } from './aggregated-harness.js';
import { kubeConfig, repoRoot, waitFor } from './env.js';
import { get, installCrds, registerMembers, rest } from './harness.js';

const SUFFIX = Date.now().toString(36);
const LABEL = 'test.karmada-lite.io/aggregated-storage';
const WATCHED = 'test.karmada-lite.io/aggregated-storage-watched';
const CONDITION = 'AggregatedStorageTest';
const STORED = `/apis/cluster.karmada.io/${CLUSTER_STORAGE_VERSION}/clusters`;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const host = rest('host');

const crdFromFile = (file: string) => parse(readFileSync(path.join(repoRoot, 'crds', file), 'utf8'));
const versionsOf = (crd: any): string[] => (crd.spec.versions as Array<{ name: string }>).map((v) => v.name);

/** member1 as it was: labels and conditions this suite added removed (through the storage version, which always answers). */
async function cleanMember1(): Promise<void> {
  const cur = await get(host, `${STORED}/member1`);
  if (!cur) return;
  const labels = { ...(cur.metadata.labels ?? {}) };
  delete labels[LABEL];
  delete labels[WATCHED];
  const conditions = ((cur.status?.conditions ?? []) as any[]).filter((c) => c.type !== CONDITION);
  await host.request('PUT', `${STORED}/member1/status`, { body: { ...cur, status: { ...cur.status, conditions } } }).catch(() => undefined);
  const again = await host.request('GET', `${STORED}/member1`);
  await host.request('PUT', `${STORED}/member1`, { body: { ...again, metadata: { ...again.metadata, labels } } }).catch(() => undefined);
}

beforeAll(async () => {
  await installCrds(host);
  await registerMembers(host);
});

afterAll(async () => {
  await cleanMember1();
});

describe('the controller with the cluster.karmada.io APIService installed and its server down', () => {
  let store: KubeStore | undefined;

  afterAll(async () => {
    store?.stop();
    // waits until the CRD serves v1alpha1 again, for the suites after this one
    await uninstallApiService(CLUSTER_GROUP_VERSION);
  });

  it('reads, watches and updates Clusters at the CRD version v1alpha1storage, apiVersion v1alpha1 in its caches', async () => {
    const aggregated = await serveAggregated([CLUSTER_GROUP_VERSION]);
    await aggregated.server.stop();
    // the APIService still owns v1alpha1, and nothing answers behind it
    const down = await waitFor('v1alpha1 clusters to fail through the host', async () => {
      const code = await host.request('GET', '/apis/cluster.karmada.io/v1alpha1/clusters').then(() => 200, (e: { code?: number }) => e.code ?? 0);
      return code >= 500 ? code : undefined;
    });
    expect(down).toBe(503);

    const log = createLogger({ level: 'error' });
    store = new KubeStore({ host: kubeConfig('host'), log, probeIntervalMs: 500, warmUpTimeoutMs: 1_000 });
    const seen: KObject[] = [];
    store.watch((ev) => {
      if (ev.cluster === undefined && ev.object?.kind === CLUSTER.kind) seen.push(ev.object);
    });
    await store.start();
    const s = store;
    const names = s.list(CLUSTER).map((c) => c.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['member1', 'member2']));
    expect(new Set(s.list(CLUSTER).map((c) => c.apiVersion))).toEqual(new Set([CLUSTER.apiVersion]));

    // an update: sent at the storage version, answered and cached at v1alpha1
    const member1 = s.get(CLUSTER, undefined, 'member1')!;
    const updated = await s.update({ ...member1, metadata: { ...member1.metadata, labels: { ...(member1.metadata.labels ?? {}), [LABEL]: SUFFIX } } }, undefined, 'test');
    expect(updated.apiVersion).toBe(CLUSTER.apiVersion);
    const stored = await host.request('GET', `${STORED}/member1`);
    expect(stored.apiVersion).toBe(CLUSTER_STORAGE_API_VERSION);
    expect(stored.metadata.labels[LABEL]).toBe(SUFFIX);

    // a status update through clusters/status
    const fresh = s.get(CLUSTER, undefined, 'member1')!;
    const condition = { type: CONDITION, status: 'True', reason: 'Test', message: SUFFIX, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
    await s.updateStatus({ ...fresh, status: { ...(fresh.status ?? {}), conditions: [...((fresh.status?.conditions ?? []) as unknown[]), condition] } }, undefined, 'test');
    const withStatus = await host.request('GET', `${STORED}/member1`);
    expect((withStatus.status.conditions as any[]).find((c) => c.type === CONDITION)?.message).toBe(SUFFIX);

    // someone else's change arrives through the watch, relabelled too
    await host.request('PATCH', `${STORED}/member1`, { contentType: 'application/merge-patch+json', body: { metadata: { labels: { [WATCHED]: SUFFIX } } } });
    const watched = await waitFor('the watch to bring the label', async () => (s.get(CLUSTER, undefined, 'member1')?.metadata.labels?.[WATCHED] === SUFFIX ? s.get(CLUSTER, undefined, 'member1') : undefined));
    expect(watched!.apiVersion).toBe(CLUSTER.apiVersion);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((o) => o.apiVersion === CLUSTER.apiVersion)).toBe(true);
  });
});

describe('re-applying crds/ while the server runs', () => {
  it('drops v1alpha1storage from the Cluster and ResourceRegistry CRDs, and the server adds it back without a restart', async () => {
    const kept = await keepAggregatedStorage(kubeConfig('host'), { retryMs: 200 });
    try {
      for (const [file, storagePath] of [
        ['cluster.karmada.io_clusters.yaml', STORED],
        ['search.karmada.io_resourceregistries.yaml', REGISTRY_STORAGE_PATH],
      ] as const) {
        const want = crdFromFile(file);
        const cur = await host.request('GET', `${CRDS}/${want.metadata.name}`);
        expect(versionsOf(cur)).toContain(CLUSTER_STORAGE_VERSION);
        // what `kubectl replace -f crds/` (or a client-side apply) does: the versions list as the file has it
        const replaced = await host.request('PUT', `${CRDS}/${want.metadata.name}`, { body: { ...want, metadata: { ...want.metadata, resourceVersion: cur.metadata.resourceVersion } } });
        expect(versionsOf(replaced)).not.toContain(CLUSTER_STORAGE_VERSION);
        await waitFor(`${want.metadata.name} to serve ${CLUSTER_STORAGE_VERSION} again`, async () => {
          const crd = await host.request('GET', `${CRDS}/${want.metadata.name}`);
          if (!versionsOf(crd).includes(CLUSTER_STORAGE_VERSION)) return undefined;
          return (await host.request('GET', storagePath, { query: { limit: 1 } }).then(() => true, () => undefined)) ?? undefined;
        });
      }
    } finally {
      kept.close();
    }
  });
});
