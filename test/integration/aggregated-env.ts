// The aggregated apiserver behind the host's aggregation layer, for the suites that go through it: the
// server started in this process with the serving certificate env.sh made, and APIServices that send
// their group-version to it through an ExternalName Service to localhost (scripts/k8s/env.sh says why).
import path from 'node:path';
import { createAggregatedApi, type AggregatedApiOptions } from '../../src/apiserver/setup.js';
import type { AggregatedServer } from '../../src/apiserver/server.js';
import { createLogger } from '../../src/runtime/log.js';
import { installApiService, uninstallApiService } from './aggregated-harness.js';
import { k8sEnv, kubeConfig } from './env.js';
import { freePort } from './harness.js';

export interface Aggregated {
  server: AggregatedServer;
  port: number;
  /** Removes the APIServices and the Service, then stops the server. */
  stop: () => Promise<void>;
}

/** Starts the server and routes `groupVersions` (e.g. `cluster.karmada.io/v1alpha1`) of the host to it. */
export async function serveAggregated(groupVersions: string[], extra?: AggregatedApiOptions['extra']): Promise<Aggregated> {
  const pki = path.join(k8sEnv().dir, 'host', 'pki');
  const port = await freePort();
  const server = await createAggregatedApi(kubeConfig('host'), {
    certFile: path.join(pki, 'aggregated-serving.crt'),
    keyFile: path.join(pki, 'aggregated-serving.key'),
    port,
    bindAddress: '127.0.0.1',
    allowTtlMs: 10_000,
    denyTtlMs: 10_000,
    logger: createLogger({ level: 'error' }),
    ...(extra ? { extra } : {}),
  });
  await server.start();
  for (const gv of groupVersions) await installApiService(port, gv);
  return {
    server,
    port,
    stop: async () => {
      // Waits until the CRDs serve these group-versions again, so that the next suite finds them as they were.
      for (const gv of groupVersions) await uninstallApiService(gv);
      await server.stop();
    },
  };
}
