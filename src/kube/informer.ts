import { ApiError, isApiGone, type RestClient } from './rest.js';

/**
 * List-then-watch for one resource, client-go style: the watch resumes from the last resourceVersion
 * seen (bookmarks included); on 410 Gone it lists again and reconciles the cache against the fresh
 * list, so handlers see each change once, as ADDED/MODIFIED/DELETED relative to what they already saw.
 */
export type InformerEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export type InformerHandler = (type: InformerEventType, obj: any, old?: any) => void;

export interface InformerOptions {
  /** Collection path, e.g. `/apis/apps/v1/deployments` (all namespaces). */
  path: string;
  labelSelector?: string;
  /** Server-side watch timeout; the watch is re-opened after it. */
  watchTimeoutSeconds?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  onError?: (err: unknown) => void;
  /** Where the informer keeps what it saw; a Map unless the caller stores objects its own way (src/search keeps them compact). */
  cache?: InformerCache;
}

export interface InformerCache {
  get(key: string): any;
  set(key: string, obj: any): unknown;
  delete(key: string): unknown;
  values(): Iterable<any>;
  [Symbol.iterator](): Iterator<[string, any]>;
}

const keyOf = (o: any) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;

/**
 * Orders two resourceVersions: negative, zero or positive; undefined when either is not an integer.
 * Kubernetes calls them opaque, but etcd's are integers in practice, and only then is order known.
 */
export function compareResourceVersions(a: string | undefined, b: string | undefined): number | undefined {
  if (!a || !b || !CANONICAL_INTEGER.test(a) || !CANONICAL_INTEGER.test(b)) return undefined;
  // Without leading zeros, the longer numeral is the larger; equal lengths compare as text.
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

const CANONICAL_INTEGER = /^(?:0|[1-9]\d*)$/;

export class Informer {
  private readonly cache: InformerCache;
  private readonly handlers: InformerHandler[] = [];
  private resourceVersion = '';
  private abort: AbortController | undefined;
  private running = false;
  private synced = false;
  private syncWaiters: Array<() => void> = [];
  /** Lists done so far; tests read it to see a 410 recovery. */
  lists = 0;

  constructor(private readonly client: RestClient, private readonly opts: InformerOptions) {
    this.cache = opts.cache ?? new Map<string, any>();
  }

  on(handler: InformerHandler): void {
    this.handlers.push(handler);
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((r) => this.syncWaiters.push(r));
  }

  list(): any[] {
    return [...this.cache.values()];
  }

  get(namespace: string | undefined, name: string): any {
    return this.cache.get(`${namespace ?? ''}/${name}`);
  }

  get lastResourceVersion(): string {
    return this.resourceVersion;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.loop();
  }

  stop(): void {
    this.running = false;
    this.abort?.abort();
  }

  private emit(type: InformerEventType, obj: any, old?: any): void {
    for (const h of this.handlers) {
      try {
        h(type, obj, old);
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
  }

  /** Replaces the cache by a full list, emitting only the differences. */
  async relist(): Promise<void> {
    const res = await this.client.request<{ apiVersion?: string; kind?: string; items: any[]; metadata: { resourceVersion: string } }>('GET', this.opts.path, { query: { labelSelector: this.opts.labelSelector } });
    this.lists++;
    const seen = new Set<string>();
    // The apiserver leaves apiVersion and kind out of a list's items; watch events carry them.
    const itemKind = res.kind?.endsWith('List') ? res.kind.slice(0, -4) : undefined;
    for (const item of res.items) {
      if (itemKind && !item.kind) item.kind = itemKind;
      if (res.apiVersion && !item.apiVersion) item.apiVersion = res.apiVersion;
      const k = keyOf(item);
      seen.add(k);
      const old = this.cache.get(k);
      this.cache.set(k, item);
      if (!old) this.emit('ADDED', item);
      else if (old.metadata?.resourceVersion !== item.metadata?.resourceVersion) this.emit('MODIFIED', item, old);
    }
    for (const [k, old] of [...this.cache]) {
      if (!seen.has(k)) {
        this.cache.delete(k);
        this.emit('DELETED', old, old);
      }
    }
    this.resourceVersion = res.metadata.resourceVersion;
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  /** Applies one watch event; returns false when the watch must be restarted from a fresh list. */
  applyWatchEvent(type: string, obj: any): boolean {
    if (type === 'ERROR') {
      if (obj?.code === 410) return false;
      throw new ApiError(obj?.code ?? 500, obj?.reason ?? '', obj?.message ?? 'watch error');
    }
    const rv = obj?.metadata?.resourceVersion;
    if (type === 'BOOKMARK') {
      if (rv) this.resourceVersion = rv;
      return true;
    }
    const k = keyOf(obj);
    const old = this.cache.get(k);
    // The cache may be ahead of the watch for this object (applyWrite): an event it already has, or an
    // older one, would be handled twice or roll the object back; a DELETED older than the cached
    // version is the end of an earlier object of the same name.
    const order = old ? compareResourceVersions(old.metadata?.resourceVersion, rv) : undefined;
    const ahead = old && (old.metadata?.resourceVersion === rv || (order ?? 0) > 0);
    if (type === 'DELETED') {
      if (!((order ?? 0) > 0)) {
        this.cache.delete(k);
        if (old) this.emit('DELETED', obj, old);
      }
    } else if ((type === 'ADDED' || type === 'MODIFIED') && !ahead) {
      this.cache.set(k, obj);
      this.emit(old ? 'MODIFIED' : 'ADDED', obj, old);
    }
    if (rv) this.resourceVersion = rv;
    return true;
  }

  /**
   * Puts the server's answer to a write into the cache before its watch event arrives, and reports it
   * like one. It leaves the watch position alone (events up to that version may still be on their
   * way), and it is refused when the cache knows better: a newer version of the object, or its
   * deletion, which shows as the object missing although the watch is already past the answer's
   * version. Returns whether the cache changed.
   */
  applyWrite(obj: any): boolean {
    const k = keyOf(obj);
    const old = this.cache.get(k);
    const rv = obj?.metadata?.resourceVersion;
    if (old) {
      if (old.metadata?.resourceVersion === rv || (compareResourceVersions(old.metadata?.resourceVersion, rv) ?? 0) > 0) return false;
    } else {
      if ((compareResourceVersions(rv, this.resourceVersion) ?? 1) <= 0) return false;
      // The answer to removing the last finalizer is an object the server deletes at once.
      if (obj?.metadata?.deletionTimestamp && !(obj.metadata.finalizers?.length > 0)) return false;
    }
    this.cache.set(k, obj);
    this.emit(old ? 'MODIFIED' : 'ADDED', obj, old);
    return true;
  }

  private async loop(): Promise<void> {
    const min = this.opts.minBackoffMs ?? 200;
    const max = this.opts.maxBackoffMs ?? 10_000;
    let backoff = min;
    let needList = true;
    while (this.running) {
      try {
        if (needList) {
          await this.relist();
          needList = false;
        }
        this.abort = new AbortController();
        let gone = false;
        await this.client.watch(
          this.opts.path,
          { resourceVersion: this.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: this.opts.watchTimeoutSeconds ?? 300, labelSelector: this.opts.labelSelector },
          (type, obj) => {
            if (!gone && !this.applyWatchEvent(type, obj)) {
              gone = true;
              this.abort?.abort();
            }
          },
          this.abort.signal,
        );
        if (gone) needList = true;
        backoff = min;
      } catch (err) {
        if (!this.running) return;
        if (isApiGone(err)) {
          needList = true;
          continue;
        }
        this.opts.onError?.(err);
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(max, backoff * 2);
      }
    }
  }
}
