// The real members behind the cache: a connection made from the Cluster and its Secret (the same member
// credentials as the rest of the controller), and per type an informer whose cache is the compact store.
import { clusterSignature, memberKubeConfig, secretRefOf } from '../kube/credentials.js';
import { Informer } from '../kube/informer.js';
import { limiterOptions } from '../kube/rate-limiter.js';
import { RestClient } from '../kube/rest.js';
import type { FeedReport, MemberConnector, MemberFeed, ResourceInfo } from './cache.js';
import type { ResourceStore } from './store.js';

export interface KubeConnectorOptions {
  /** How often each cached type asks its member for one object, to learn that it stopped or started answering. */
  probeMs?: number;
  probeTimeoutMs?: number;
  watchTimeoutSeconds?: number;
  /** `--cluster-api-qps`/`--cluster-api-burst`: a token bucket per member connection (none: unlimited). */
  memberLimit?: { qps: number; burst: number };
}

export function collectionPath(info: ResourceInfo): string {
  return `${info.group ? `/apis/${info.group}` : '/api'}/${info.version}/${info.resource}`;
}

/** The member connections of a host: Cluster `spec.apiEndpoint` plus its `spec.secretRef` Secret. */
export function kubeMemberConnector(host: RestClient, opts: KubeConnectorOptions = {}): MemberConnector {
  return {
    signature: clusterSignature,
    async connect(cluster: any): Promise<MemberFeed> {
      const ref = secretRefOf(cluster);
      if (!ref) throw new Error(`cluster ${cluster.metadata?.name} does not have a secret (spec.secretRef); a Pull cluster cannot be cached`);
      const secret = await host.request('GET', `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/secrets/${encodeURIComponent(ref.name)}`);
      return memberFeed(new RestClient(memberKubeConfig(cluster, secret), limiterOptions(opts.memberLimit)), opts);
    },
  };
}

export function memberFeed(client: RestClient, opts: KubeConnectorOptions = {}): MemberFeed {
  const stops = new Set<() => void>();
  return {
    async resolve(apiVersion, kind) {
      try {
        const r = await client.resourceFor(apiVersion, kind);
        const slash = apiVersion.indexOf('/');
        return { group: slash < 0 ? '' : apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), resource: r.name, kind: r.kind, namespaced: r.namespaced };
      } catch (err) {
        // The next attempt must see a CRD installed meanwhile.
        client.resetDiscovery();
        throw err;
      }
    },
    start(info: ResourceInfo, store: ResourceStore, report: (r: FeedReport) => void) {
      const path = collectionPath(info);
      let stopped = false;
      let synced = false;
      let failing = false;
      const fail = (error: unknown) => {
        if (stopped) return;
        failing = true;
        report({ ok: false, error });
      };
      const informer = new Informer(client, { path, cache: store, watchTimeoutSeconds: opts.watchTimeoutSeconds, maxBackoffMs: 5_000, onError: fail });
      informer.on((type, obj, old) => store.informerEvent(type, obj, old));
      informer.start();
      void informer.waitForSync().then(() => {
        store.resourceVersion = informer.lastResourceVersion;
        synced = true;
        failing = false;
        if (!stopped) report({ ok: true });
      });
      // A member whose apiserver hangs (connections open, nothing answered) gives the informer no error: a
      // small list on a timer tells, and tells again when the member answers.
      const probe = setInterval(() => {
        client.request('GET', path, { query: { limit: 1 }, timeoutMs: opts.probeTimeoutMs ?? 5_000 }).then(
          () => {
            if (stopped || !synced || !failing) return;
            failing = false;
            report({ ok: true });
          },
          fail,
        );
      }, opts.probeMs ?? 5_000);
      probe.unref?.();
      const stop = () => {
        stopped = true;
        clearInterval(probe);
        informer.stop();
        stops.delete(stop);
      };
      stops.add(stop);
      return stop;
    },
    close() {
      for (const s of [...stops]) s();
      client.close();
    },
  };
}
