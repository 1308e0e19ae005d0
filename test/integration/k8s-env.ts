// The test environment of scripts/k8s/env.sh as plain code, with no vitest: shared by the integration tests
// (through env.ts and harness.ts) and by benchmarks that run against the same apiservers.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { ApiError, type RestClient } from '../../src/kube/rest.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export type ClusterName = 'host' | 'member1' | 'member2';

export interface ClusterInfo {
  name: ClusterName;
  server: string;
  port: number;
  kubeconfig: string;
  etcdPrefix: string;
  pidFile: string;
  log: string;
}

/** The shape of env.json written by scripts/k8s/env.sh. */
export interface K8sEnv {
  kubernetesVersion: string;
  etcdVersion: string;
  dir: string;
  etcd: { url: string; pidFile: string };
  clusters: ClusterInfo[];
}

/**
 * Polls until `fn` returns a value other than undefined; fails after `timeoutMs`. An error thrown by `fn` ends
 * the wait at once: `fn` decides which failures are transient by returning undefined for them.
 */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function ignoreConflict(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 409)) throw e;
  }
}

/** GET, with undefined for a 404. */
export async function get(c: RestClient, p: string): Promise<any> {
  try {
    return await c.request('GET', p);
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return undefined;
    throw e;
  }
}

/** Installs crds/*.yaml, idempotently (several suites install them), and waits until they are served. */
export async function installCrds(host: RestClient): Promise<void> {
  const dir = path.join(repoRoot, 'crds');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.yaml'))) {
    for (const doc of parseAllDocuments(readFileSync(path.join(dir, f), 'utf8'))) {
      const crd = doc.toJS();
      if (!crd) continue;
      await ignoreConflict(host.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd }));
      await waitFor(`CRD ${crd.metadata.name} established`, async () => {
        const cur = await host.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
        return cur.status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True') ? true : undefined;
      });
    }
  }
  host.resetDiscovery();
}
