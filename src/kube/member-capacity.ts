/**
 * A member's lean informers on Nodes and Pods (and, with the ResourceQuotaEstimate gate, ResourceQuotas):
 * what the cluster status sync posts as `nodeSummary` / `resourceSummary` and what the in-process
 * estimator reads (src/core/cluster-resource-summary.ts, node-estimator.ts). Each object is cut down to
 * the fields those read before it is stored (`leanNode`, `leanPod`), as Karmada's Node and Pod transform
 * functions do.
 *
 * Started by the first read (a status sync or an estimate), stopped with the member's connection.
 */
import { leanNode, leanPod } from '../core/cluster-resource-summary.js';
import { NodeCapacity } from '../core/node-estimator.js';
import type { KObject } from '../core/object.js';
import { Informer, type InformerCache } from './informer.js';
import type { RestClient } from './rest.js';

/** An informer cache that stores what `strip` keeps of each object (the informer compares resourceVersions: kept). */
export class LeanCache implements InformerCache {
  private readonly map = new Map<string, any>();
  constructor(private readonly strip: (o: KObject) => KObject) {}
  get(key: string): any {
    return this.map.get(key);
  }
  set(key: string, obj: any): unknown {
    const lean = this.strip(obj);
    lean.metadata.resourceVersion = obj?.metadata?.resourceVersion;
    return this.map.set(key, lean);
  }
  delete(key: string): unknown {
    return this.map.delete(key);
  }
  values(): Iterable<any> {
    return this.map.values();
  }
  [Symbol.iterator](): Iterator<[string, any]> {
    return this.map[Symbol.iterator]();
  }
  get size(): number {
    return this.map.size;
  }
}

/** What a ResourceQuota estimate reads: its spec's scopes and its status. */
function leanQuota(rq: KObject): KObject {
  const spec = rq.spec ?? {};
  return {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: rq.metadata.name, namespace: rq.metadata.namespace },
    spec: { ...(spec.scopes ? { scopes: spec.scopes } : {}), ...(spec.scopeSelector ? { scopeSelector: spec.scopeSelector } : {}) },
    status: { ...(rq.status?.hard ? { hard: rq.status.hard } : {}), ...(rq.status?.used ? { used: rq.status.used } : {}) },
  };
}

export interface MemberInformersOptions {
  onError?: (kind: string, err: unknown) => void;
  /** Told after a Node or Pod changed (the summary may differ). */
  onChange?: () => void;
}

export class MemberInformers {
  readonly nodes: Informer;
  readonly pods: Informer;
  private quotas?: Informer;
  private started = false;
  /** Bumped by every change; the NodeCapacity index is rebuilt when it moved. */
  private version = 0;
  private capacity?: { version: number; value: NodeCapacity };
  private byNamespace?: { version: number; value: Map<string, KObject[]> };

  constructor(
    private readonly rest: RestClient,
    private readonly opts: MemberInformersOptions = {},
  ) {
    this.nodes = this.informer('/api/v1/nodes', 'Node', leanNode);
    this.pods = this.informer('/api/v1/pods', 'Pod', leanPod);
  }

  private informer(path: string, kind: string, strip: (o: KObject) => KObject): Informer {
    const inf = new Informer(this.rest, { path, cache: new LeanCache(strip), onError: (e) => this.opts.onError?.(kind, e) });
    inf.on(() => {
      this.version++;
      this.opts.onChange?.();
    });
    return inf;
  }

  get isStarted(): boolean {
    return this.started;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.nodes.start();
    this.pods.start();
  }

  stop(): void {
    this.nodes.stop();
    this.pods.stop();
    this.quotas?.stop();
  }

  get synced(): boolean {
    return this.nodes.hasSynced && this.pods.hasSynced;
  }

  nodeList(): KObject[] | undefined {
    this.start();
    return this.synced ? this.nodes.list() : undefined;
  }

  podList(): KObject[] | undefined {
    this.start();
    return this.synced ? this.pods.list() : undefined;
  }

  nodeCapacity(): NodeCapacity | undefined {
    this.start();
    if (!this.synced) return undefined;
    if (this.capacity?.version !== this.version) this.capacity = { version: this.version, value: new NodeCapacity(this.nodes.list(), this.pods.list()) };
    return this.capacity.value;
  }

  podsIn(namespace: string): readonly KObject[] | undefined {
    this.start();
    if (!this.pods.hasSynced) return undefined;
    if (this.byNamespace?.version !== this.version) {
      const m = new Map<string, KObject[]>();
      for (const p of this.pods.list() as KObject[]) {
        const ns = p.metadata.namespace ?? '';
        const l = m.get(ns);
        if (l) l.push(p);
        else m.set(ns, [p]);
      }
      this.byNamespace = { version: this.version, value: m };
    }
    return this.byNamespace.value.get(namespace) ?? [];
  }

  /** The member's ResourceQuotas of a namespace; the informer starts on the first question. */
  resourceQuotas(namespace: string): readonly KObject[] | undefined {
    if (!this.quotas) {
      this.quotas = new Informer(this.rest, { path: '/api/v1/resourcequotas', cache: new LeanCache(leanQuota), onError: (e) => this.opts.onError?.('ResourceQuota', e) });
      this.quotas.start();
    }
    if (!this.quotas.hasSynced) return undefined;
    return (this.quotas.list() as KObject[]).filter((q) => q.metadata.namespace === namespace);
  }
}
