/**
 * Karmada's client rate limits: `--kube-api-qps`/`--kube-api-burst` for the control plane's client and
 * `--cluster-api-qps`/`--cluster-api-burst` for each member's, defaults 40/60 as in Karmada's components.
 * One token bucket per client (src/kube/rate-limiter.ts): a controller can no longer flood an apiserver.
 */
import type { Command } from 'commander';
import type { ClientLimit, ClientLimits } from '../kube/store.js';

export const DefaultClientQps = '40';
export const DefaultClientBurst = '60';

/** The control plane's pair (`--kube-api-qps`/`--kube-api-burst`). */
export function addHostLimitFlags(cmd: Command): Command {
  return cmd
    .option('--kube-api-qps <n>', 'requests per second to the Karmada control plane (the host apiserver), a token bucket as client-go; a negative value is no limit', DefaultClientQps)
    .option('--kube-api-burst <n>', 'burst of requests to the control plane above --kube-api-qps', DefaultClientBurst);
}

export function addClientLimitFlags(cmd: Command): Command {
  return addHostLimitFlags(cmd)
    .option('--cluster-api-qps <n>', 'requests per second to each member cluster apiserver; a negative value is no limit', DefaultClientQps)
    .option('--cluster-api-burst <n>', 'burst of requests to each member cluster above --cluster-api-qps', DefaultClientBurst);
}

function limit(qpsFlag: string, qps: string, burstFlag: string, burst: string): ClientLimit {
  const q = Number(qps);
  if (qps.trim() === '' || !Number.isFinite(q) || q === 0) throw new Error(`${qpsFlag} takes a number of requests per second above 0 (or a negative number for no limit), got "${qps}"`);
  const b = Number(burst);
  if (!Number.isInteger(b) || b < 1) throw new Error(`${burstFlag} takes a whole number of at least 1, got "${burst}"`);
  return { qps: q, burst: b };
}

export interface ClientLimitFlags {
  kubeApiQps: string;
  kubeApiBurst: string;
  clusterApiQps: string;
  clusterApiBurst: string;
}

export function hostLimitFromFlags(flags: Pick<ClientLimitFlags, 'kubeApiQps' | 'kubeApiBurst'>): ClientLimit {
  return limit('--kube-api-qps', flags.kubeApiQps, '--kube-api-burst', flags.kubeApiBurst);
}

export function clientLimitsFromFlags(flags: ClientLimitFlags): ClientLimits {
  return {
    host: hostLimitFromFlags(flags),
    cluster: limit('--cluster-api-qps', flags.clusterApiQps, '--cluster-api-burst', flags.clusterApiBurst),
  };
}
