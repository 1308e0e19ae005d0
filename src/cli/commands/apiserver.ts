import type { Command } from 'commander';
import { createLogger, isLevel, parseLogFormat } from '../../runtime/log.js';
import { parseDuration } from '../core-flags.js';
import { serveUntilSignal } from '../serve.js';
import { loadKubeConfig } from '../kubeconfig.js';
import { logLevelFor } from '../verbosity.js';
import { errorMessage } from '../../json/error.js';
import { addClientLimitFlags, clientLimitsFromFlags, DefaultClientBurst, DefaultClientQps, hostLimitFromFlags } from '../client-flags.js';

export interface ApiserverFlags {
  kubeconfig?: string;
  context?: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  securePort: string;
  bindAddress: string;
  requestheaderClientCaFile?: string;
  requestheaderAllowedNames?: string;
  requestheaderUsernameHeaders?: string;
  requestheaderGroupHeaders?: string;
  requestheaderExtraHeadersPrefix?: string;
  requestheaderUidHeaders?: string;
  authorizationWebhookCacheAuthorizedTtl: string;
  authorizationWebhookCacheUnauthorizedTtl: string;
  certReloadInterval: string;
  logLevel: string;
  logFormat?: string;
  kubeApiQps: string;
  kubeApiBurst: string;
  clusterApiQps: string;
  clusterApiBurst: string;
}

const list = (v: string | undefined) => (v === undefined ? undefined : v.split(',').map((x) => x.trim()).filter((x) => x !== ''));

/** The server's options from the flags, every value checked; errors name the flag. */
export function apiserverOptionsFromFlags(f: Pick<ApiserverFlags, 'tlsCertFile' | 'tlsPrivateKeyFile' | 'securePort' | 'bindAddress'> & Partial<ApiserverFlags>, logger: import('../../runtime/log.js').Logger, names = { port: '--secure-port' }) {
  const port = Number(f.securePort);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${names.port} must be a port number, got ${f.securePort}`);
  const ttl = (flag: string, v: string | undefined) => {
    if (v === undefined) return 10_000;
    return parseDuration(`--${flag}`, v);
  };
  const interval = Number(f.certReloadInterval ?? '1000');
  if (!Number.isFinite(interval) || interval < 10) throw new Error(`--cert-reload-interval must be at least 10 (milliseconds), got ${f.certReloadInterval}`);
  return {
    certFile: f.tlsCertFile,
    keyFile: f.tlsPrivateKeyFile,
    port,
    bindAddress: f.bindAddress,
    ...(f.requestheaderClientCaFile ? { requestHeaderClientCAFile: f.requestheaderClientCaFile } : {}),
    ...(f.requestheaderAllowedNames !== undefined ? { requestHeaderAllowedNames: list(f.requestheaderAllowedNames)! } : {}),
    ...(f.requestheaderUsernameHeaders !== undefined ? { requestHeaderUsernameHeaders: list(f.requestheaderUsernameHeaders)! } : {}),
    ...(f.requestheaderGroupHeaders !== undefined ? { requestHeaderGroupHeaders: list(f.requestheaderGroupHeaders)! } : {}),
    ...(f.requestheaderExtraHeadersPrefix !== undefined ? { requestHeaderExtraHeadersPrefix: list(f.requestheaderExtraHeadersPrefix)! } : {}),
    ...(f.requestheaderUidHeaders !== undefined ? { requestHeaderUidHeaders: list(f.requestheaderUidHeaders)! } : {}),
    allowTtlMs: ttl('authorization-webhook-cache-authorized-ttl', f.authorizationWebhookCacheAuthorizedTtl),
    denyTtlMs: ttl('authorization-webhook-cache-unauthorized-ttl', f.authorizationWebhookCacheUnauthorizedTtl),
    reloadIntervalMs: interval,
    // `controller --aggregated-apiserver` gives none: its server's host client stays unlimited there
    ...(f.kubeApiQps !== undefined || f.kubeApiBurst !== undefined ? { hostLimit: hostLimitFromFlags({ kubeApiQps: f.kubeApiQps ?? DefaultClientQps, kubeApiBurst: f.kubeApiBurst ?? DefaultClientBurst }) } : {}),
    // karmada-search's clients: its own host client and one per member it caches (karmada-search's flags)
    ...(f.clusterApiQps !== undefined || f.clusterApiBurst !== undefined
      ? {
          searchLimits: clientLimitsFromFlags({
            kubeApiQps: f.kubeApiQps ?? DefaultClientQps,
            kubeApiBurst: f.kubeApiBurst ?? DefaultClientBurst,
            clusterApiQps: f.clusterApiQps ?? DefaultClientQps,
            clusterApiBurst: f.clusterApiBurst ?? DefaultClientBurst,
          }),
        }
      : {}),
    logger,
  };
}

/**
 * karmada-search (search and proxying over the ResourceRegistries' cache), then the server with it mounted
 * beside the Cluster APIs; shared by this command and `controller --aggregated-apiserver`.
 */
export async function startAggregatedApis(kc: import('@kubernetes/client-node').KubeConfig, opts: ReturnType<typeof apiserverOptionsFromFlags>, log: import('../../runtime/log.js').Logger) {
  const { createAggregatedApi } = await import('../../apiserver/setup.js');
  const { keepAggregatedStorage, startSearch } = await import('../../search/search.js');
  // one check of the CRDs' storage versions for both users below, then kept (re-applying crds/ drops them)
  const kept = await keepAggregatedStorage(kc, { log: (msg, fields) => log.warn(msg, fields) });
  let search: Awaited<ReturnType<typeof startSearch>> | undefined;
  try {
    search = await startSearch(kc, { log: (msg, fields) => log.warn(msg, fields), storageVersionsReady: true, ...(opts.searchLimits ? { clientLimits: opts.searchLimits } : {}) });
    const server = await createAggregatedApi(kc, { ...opts, extra: search, storageVersionsReady: true });
    const addr = await server.start();
    const started = search;
    return {
      port: addr.port,
      async stop() {
        await server.stop();
        started.close();
        kept.close();
      },
    };
  } catch (e) {
    search?.close();
    kept.close();
    throw e;
  }
}

export function registerApiserver(program: Command): void {
  const cmd = program
    .command('apiserver')
    .description('Serve the aggregated APIs (cluster.karmada.io/v1alpha1 clusters and clusters/{name}/proxy, search.karmada.io) behind the host kube-apiserver.')
    .option('--kubeconfig <path>', 'the host (Karmada control plane) cluster: Cluster storage, Secrets and SubjectAccessReviews')
    .option('--context <name>', 'the kubeconfig context of the host (default: its current-context)')
    .requiredOption('--tls-cert-file <path>', 'PEM serving certificate the aggregator connects to (reloaded when the file changes)')
    .requiredOption('--tls-private-key-file <path>', 'PEM private key of the serving certificate (reloaded when the file changes)')
    .option('--secure-port <port>', 'port to serve HTTPS on', '6443')
    .option('--bind-address <address>', 'address to listen on', '0.0.0.0')
    .option('--requestheader-client-ca-file <path>', "CA that signs the front proxy's client certificate (default: read from the host's kube-system/extension-apiserver-authentication ConfigMap)")
    .option('--requestheader-allowed-names <names>', 'comma-separated client certificate CNs allowed to pass user names in headers (empty: any the CA signed)')
    .option('--requestheader-username-headers <headers>', 'headers that carry the user name (default X-Remote-User)')
    .option('--requestheader-group-headers <headers>', 'headers that carry the groups (default X-Remote-Group)')
    .option('--requestheader-extra-headers-prefix <prefixes>', 'header prefixes of user extras (default X-Remote-Extra-)')
    .option('--requestheader-uid-headers <headers>', 'headers that carry the user uid (default X-Remote-Uid)')
    .option('--authorization-webhook-cache-authorized-ttl <duration>', 'how long an allowed SubjectAccessReview answer is reused', '10s')
    .option('--authorization-webhook-cache-unauthorized-ttl <duration>', 'how long a denied SubjectAccessReview answer is reused', '10s')
    .option('--cert-reload-interval <ms>', 'how often to check the certificate files for changes, in milliseconds', '1000')
    .option('--log-level <level>', 'debug, info, warn or error', 'info')
    .option('--log-format <format>', 'json or text (default: text when standard error is a terminal, else json)');
  addClientLimitFlags(cmd)
    .addHelpText(
      'after',
      `
The host's aggregator forwards these to this server (APIServices in deploy/aggregated-api/):
  /apis/cluster.karmada.io/v1alpha1/clusters[/NAME[/status]]    Cluster objects (stored in the host: see ARCHITECTURE.md)
  /apis/cluster.karmada.io/v1alpha1/clusters/NAME/proxy/PATH    the member's apiserver, as the caller (impersonated)
  /apis/search.karmada.io/v1alpha1/...                          karmada-search, when built in
  /healthz, /livez, /readyz                                     plain-text health checks

Every request must come through the aggregator (its front-proxy client certificate, else 401) and is
authorized by a SubjectAccessReview against the host (403 otherwise). At start the Cluster CRD gets the
served version v1alpha1storage the server keeps Clusters in; nothing is copied.

--kube-api-qps/--kube-api-burst limit the server's own client of the host (SubjectAccessReviews, and the
Cluster and Secret a proxied request reads first): at the default 40/60 the proxy sustains about 20
requests/s after a burst. A negative --kube-api-qps is no limit.

Examples:
  karmada-lite apiserver --kubeconfig ~/.kube/karmada.config --tls-cert-file tls.crt --tls-private-key-file tls.key
  karmada-lite apiserver --kubeconfig host.config --tls-cert-file tls.crt --tls-private-key-file tls.key \\
      --requestheader-client-ca-file front-proxy-ca.crt --requestheader-allowed-names front-proxy-client --secure-port 7443
  kubectl get --raw /apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy/api/v1/namespaces`,
    )
    .action(async (flags: ApiserverFlags) => {
      let stop: () => Promise<void>;
      let log: import('../../runtime/log.js').Logger;
      try {
        const level = logLevelFor(flags.logLevel);
        if (!isLevel(level)) throw new Error(`--log-level must be debug, info, warn or error, got ${flags.logLevel}`);
        log = createLogger({ level, format: parseLogFormat(flags.logFormat) });
        const opts = apiserverOptionsFromFlags(flags, log);
        const kc = await loadKubeConfig(flags.kubeconfig, flags.context);
        stop = (await startAggregatedApis(kc, opts, log)).stop;
      } catch (e) {
        process.stderr.write(`error: ${errorMessage(e)}\n`);
        process.exitCode = 2;
        return;
      }
      await serveUntilSignal(stop, (signal) => log.info('shutting down', { signal }));
    });
}
