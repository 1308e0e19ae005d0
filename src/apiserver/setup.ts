// The aggregated server as `karmada-lite apiserver` and `controller --aggregated-apiserver` start it: the
// request-header settings (flags, else the host's extension-apiserver-authentication ConfigMap), the
// SubjectAccessReview authorizer, the Cluster storage and the cluster proxy, plus the APIs others mount.
import { readFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import { RestClient } from '../kube/rest.js';
import { limiterOptions } from '../kube/rate-limiter.js';
import type { Logger } from '../runtime/log.js';
import { AUTHENTICATION_CONFIGMAP, DEFAULT_REQUEST_HEADERS, requestHeaderFromConfigMap, type RequestHeaderConfig } from './authn.js';
import { SarAuthorizer } from './authz.js';
import { clusterProxyHandler } from './cluster-proxy.js';
import { CLUSTER_DISCOVERY, clusterStorageHandler, ensureClusterStorageVersion } from './cluster-storage.js';
import { AggregatedServer } from './server.js';
import type { ApiGroupResources, ApiHandler } from './types.js';
import { kubeConfigUpstream } from './upstream.js';
import { errorMessage } from '../json/error.js';

export interface AggregatedApiOptions {
  certFile: string;
  keyFile: string;
  port: number;
  bindAddress: string;
  /** --requestheader-client-ca-file; unset: the host's extension-apiserver-authentication ConfigMap. */
  requestHeaderClientCAFile?: string;
  requestHeaderAllowedNames?: string[];
  requestHeaderUsernameHeaders?: string[];
  requestHeaderGroupHeaders?: string[];
  requestHeaderExtraHeadersPrefix?: string[];
  requestHeaderUidHeaders?: string[];
  allowTtlMs: number;
  denyTtlMs: number;
  reloadIntervalMs?: number;
  /** APIs mounted beside the Cluster ones (karmada-search's search and proxying). */
  extra?: { handlers: ApiHandler[]; discovery: ApiGroupResources[] };
  /** The caller made sure of the Cluster CRD's storage version (keepStorageVersions), so it is not asked again here. */
  storageVersionsReady?: boolean;
  logger: Logger;
  /** --kube-api-qps/--kube-api-burst: the host client's token bucket (its SubjectAccessReviews, the proxy's Cluster and Secret reads); none: unlimited. */
  hostLimit?: { qps: number; burst: number };
}

/** The request-header settings from the flags, or a loader of the host's ConfigMap (asked again on reload). */
export function requestHeaderSource(opts: AggregatedApiOptions, host: RestClient): RequestHeaderConfig | (() => Promise<RequestHeaderConfig>) {
  const overrides = (cfg: RequestHeaderConfig): RequestHeaderConfig => ({
    clientCA: cfg.clientCA,
    allowedNames: opts.requestHeaderAllowedNames ?? cfg.allowedNames,
    usernameHeaders: opts.requestHeaderUsernameHeaders ?? cfg.usernameHeaders,
    groupHeaders: opts.requestHeaderGroupHeaders ?? cfg.groupHeaders,
    extraHeaderPrefixes: opts.requestHeaderExtraHeadersPrefix ?? cfg.extraHeaderPrefixes,
    uidHeaders: opts.requestHeaderUidHeaders ?? cfg.uidHeaders,
  });
  const file = opts.requestHeaderClientCAFile;
  if (file) {
    const read = (): string => {
      try {
        return readFileSync(file, 'utf8');
      } catch (e) {
        throw new Error(`cannot read --requestheader-client-ca-file ${file}: ${errorMessage(e)}`);
      }
    };
    return async () => overrides({ clientCA: read(), allowedNames: [], ...DEFAULT_REQUEST_HEADERS, usernameHeaders: [...DEFAULT_REQUEST_HEADERS.usernameHeaders], groupHeaders: [...DEFAULT_REQUEST_HEADERS.groupHeaders], extraHeaderPrefixes: [...DEFAULT_REQUEST_HEADERS.extraHeaderPrefixes], uidHeaders: [...DEFAULT_REQUEST_HEADERS.uidHeaders] });
  }
  let last: RequestHeaderConfig | undefined;
  return async () => {
    const { namespace, name } = AUTHENTICATION_CONFIGMAP;
    let cm: { data?: Record<string, string> };
    try {
      cm = await host.request('GET', `/api/v1/namespaces/${namespace}/configmaps/${name}`);
    } catch (e) {
      // on a reload a passing failure keeps the settings already in use
      if (last) return last;
      throw new Error(`cannot read ConfigMap ${namespace}/${name} from the host (${errorMessage(e)}); give --requestheader-client-ca-file, or grant the role extension-apiserver-authentication-reader (deploy/aggregated-api/rbac.yaml)`);
    }
    const cfg = requestHeaderFromConfigMap(cm.data);
    if (!cfg) throw new Error(`ConfigMap ${namespace}/${name} has no requestheader-client-ca-file: the host kube-apiserver runs without --requestheader-client-ca-file, so it has no aggregation layer to serve behind`);
    return (last = overrides(cfg));
  };
}

/** Everything the server needs from the host, checked before it listens; the Cluster storage version made sure of. */
export async function createAggregatedApi(kc: KubeConfig, opts: AggregatedApiOptions): Promise<AggregatedServer> {
  const host = new RestClient(kc, limiterOptions(opts.hostLimit));
  if (!opts.storageVersionsReady) await ensureClusterStorageVersion(host);
  const storage = clusterStorageHandler(kubeConfigUpstream(kc));
  const proxy = clusterProxyHandler(host, kubeConfigUpstream(kc));
  // one prefix for both: `clusters/<name>` and `clusters/<name>/status` are storage, `clusters/<name>/proxy/...` the proxy
  const clusters: ApiHandler = {
    prefix: storage.prefix,
    handle: (req, res, ctx) => (ctx.info.subresource === 'proxy' ? proxy : storage).handle(req, res, ctx),
    upgrade: (req, socket, head, ctx) => proxy.upgrade!(req, socket, head, ctx),
  };
  const handlers: ApiHandler[] = [clusters, ...(opts.extra?.handlers ?? [])];
  const discovery = [CLUSTER_DISCOVERY, ...(opts.extra?.discovery ?? [])];
  return new AggregatedServer({
    handlers,
    discovery,
    certFile: opts.certFile,
    keyFile: opts.keyFile,
    port: opts.port,
    bindAddress: opts.bindAddress,
    requestHeader: requestHeaderSource(opts, host),
    authorizer: new SarAuthorizer(host, { allowTtlMs: opts.allowTtlMs, denyTtlMs: opts.denyTtlMs }),
    ...(opts.reloadIntervalMs !== undefined ? { reloadIntervalMs: opts.reloadIntervalMs } : {}),
    logger: opts.logger,
  });
}
