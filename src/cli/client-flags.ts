/**
 * Karmada's client rate limits: `--kube-api-qps`/`--kube-api-burst` for the control plane's client and
 * `--cluster-api-qps`/`--cluster-api-burst` for each member's, defaults 40/60 as in Karmada's components.
 * One token bucket per client (src/kube/rate-limiter.ts): a controller can no longer flood an apiserver.
 */
import type { Command } from 'commander';
import { InputError } from '../io/documents.js';
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

/**
 * The fleet reads' default `--request-timeout`. kubectl waits forever by default; a fleet command asks
 * every member at once, and one member that accepts connections and never answers (a frozen apiserver)
 * would then hold every other member's output back. 10 s is the default `timeoutSeconds` Kubernetes gives
 * a webhook call, and far above what a list through the cluster proxy takes on a healthy member.
 */
export const DefaultFleetRequestTimeout = '10s';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * `--request-timeout` as kubectl reads it: a whole number of seconds, or a Go duration (`5s`, `1m`,
 * `1m30s`, `500ms`); `0` is no timeout. Milliseconds.
 */
export function parseRequestTimeout(value: string): number {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const parts = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/.test(v) ? [...v.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)] : [];
  if (!parts.length) throw new InputError(`--request-timeout: invalid timeout value ${JSON.stringify(value)}: timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h); 0 waits forever`);
  return Math.ceil(parts.reduce((ms, [, n, unit]) => ms + Number(n) * UNIT_MS[unit!]!, 0));
}

export function addRequestTimeoutFlag(cmd: Command, defaultValue = DefaultFleetRequestTimeout): Command {
  return cmd.option(
    '--request-timeout <duration>',
    'how long to wait for each request to the host and to each member (a member that does not answer is named on stderr and the rest printed): a whole number of seconds or a duration such as 5s, 1m, 1m30s; 0 waits forever',
    defaultValue,
  );
}
