// The cluster.karmada.io APIService pointed at an aggregated apiserver on loopback, and taken away again, for
// the aggregated-* suites (aggregated-apiservice.ts does the work, without vitest).
import { registerApiService, unregisterApiService } from './aggregated-apiservice.js';
import { k8sEnv } from './env.js';
import { rest } from './harness.js';

export const CLUSTER_GROUP_VERSION = 'cluster.karmada.io/v1alpha1';

/** Registers the APIService for a server on 127.0.0.1:`port` (its certificate from scripts/k8s/env.sh) and waits until it is Available. */
export const installApiService = (port: number, groupVersion = CLUSTER_GROUP_VERSION): Promise<void> => registerApiService(rest('host'), k8sEnv().dir, port, groupVersion);

/**
 * Back to the CRD: the APIService deleted, and waited for until the host's CRD registration serves the
 * group-version again, so that the next suite finds the CRD path as it was.
 */
export const uninstallApiService = (groupVersion = CLUSTER_GROUP_VERSION): Promise<void> => unregisterApiService(rest('host'), groupVersion);
