// Members held in process: what tests and benchmarks feed the cache from instead of apiservers. A
// simulated member serves the types it was given, keeps a resourceVersion counter like etcd's, and can
// be made to fail as an unreachable apiserver would.
import type { FeedReport, MemberConnector, MemberFeed, ResourceInfo } from './cache.js';
import type { ResourceStore } from './store.js';

interface Feeding {
  info: ResourceInfo;
  store: ResourceStore;
  report: (r: FeedReport) => void;
}

export class SimulatedMember {
  private rv = 0;
  private readonly objects = new Map<string, Map<string, any>>();
  private readonly feeds = new Set<Feeding>();
  private down: Error | undefined;

  constructor(
    readonly name: string,
    /** Types served, by `apiVersion/kind`; more can be added later (a CRD installed). */
    readonly resources: Map<string, ResourceInfo> = new Map(),
  ) {}

  serve(info: ResourceInfo): void {
    this.resources.set(`${info.group ? `${info.group}/` : ''}${info.version}/${info.kind}`, info);
  }

  private bucket(resource: string): Map<string, any> {
    let m = this.objects.get(resource);
    if (!m) this.objects.set(resource, (m = new Map()));
    return m;
  }

  /** Creates or replaces an object of the type, with the next resourceVersion, and tells the feeds. */
  apply(resource: string, obj: any): any {
    const o = structuredClone(obj);
    o.metadata = { ...(o.metadata ?? {}), resourceVersion: String(++this.rv) };
    this.bucket(resource).set(`${o.metadata.namespace ?? ''}/${o.metadata.name}`, o);
    if (!this.down) for (const f of this.feeds) if (f.info.resource === resource) f.store.upsert(structuredClone(o));
    return o;
  }

  delete(resource: string, namespace: string, name: string): void {
    const m = this.bucket(resource);
    const o = m.get(`${namespace}/${name}`);
    if (!o) return;
    m.delete(`${namespace}/${name}`);
    const final = { ...o, metadata: { ...o.metadata, resourceVersion: String(++this.rv) } };
    if (!this.down) for (const f of this.feeds) if (f.info.resource === resource) f.store.remove(final);
  }

  /** The member stops answering: feeds report the error and see no more changes. */
  fail(error = new Error(`dial tcp: connect: connection refused (${this.name})`)): void {
    this.down = error;
    for (const f of this.feeds) f.report({ ok: false, error });
  }

  /** Answers again: each feed lists afresh, as an informer does after an outage. */
  recover(): void {
    this.down = undefined;
    for (const f of this.feeds) this.fill(f);
  }

  private fill(f: Feeding): void {
    const m = this.bucket(f.info.resource);
    for (const o of [...f.store.values()]) if (!m.has(`${o.namespace}/${o.name}`)) f.store.remove(o.object);
    for (const o of m.values()) f.store.upsert(structuredClone(o));
    f.store.resourceVersion = String(this.rv);
    f.report({ ok: true });
  }

  feed(): MemberFeed {
    const mine = new Set<Feeding>();
    return {
      resolve: async (apiVersion, kind) => {
        const info = this.resources.get(`${apiVersion}/${kind}`);
        if (!info) throw new Error(`the server does not serve ${kind} in ${apiVersion}; is the CRD installed?`);
        return info;
      },
      start: (info, store, report) => {
        const f: Feeding = { info, store, report };
        this.feeds.add(f);
        mine.add(f);
        if (this.down) report({ ok: false, error: this.down });
        else this.fill(f);
        return () => {
          this.feeds.delete(f);
          mine.delete(f);
        };
      },
      close: () => {
        for (const f of mine) this.feeds.delete(f);
      },
    };
  }
}

/** Connects Cluster objects to the simulated members of the same name. */
export function simulatedConnector(members: ReadonlyMap<string, SimulatedMember>): MemberConnector {
  return {
    signature: (c) => JSON.stringify(c?.spec?.apiEndpoint ?? ''),
    connect: async (c) => {
      const m = members.get(c?.metadata?.name);
      if (!m) throw new Error(`no simulated member ${c?.metadata?.name}`);
      return m.feed();
    },
  };
}

export const POD: ResourceInfo = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
export const DEPLOYMENT: ResourceInfo = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };
