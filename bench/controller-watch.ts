/**
 * The benchmark's eyes on a member cluster: list, then watch the Deployments of one namespace, stamping
 * every event with the bench's clock (performance.now()) as it arrives. Waiters resolve when a named
 * Deployment shows a given image. The list-then-watch itself (ObjectWatch) also serves bench/karmada-watch.ts.
 */
import { isApiGone, type RestClient } from '../src/kube/rest.js';

interface Waiter {
  image: string;
  resolve: (at: number) => void;
}

export class MemberWatch {
  /** name -> image of the first container, as last seen. */
  readonly images = new Map<string, string>();
  /** name -> replicas, as last seen. */
  readonly replicas = new Map<string, number>();
  /** name -> when the bench first saw it (ADDED), performance.now(). */
  readonly addedAt = new Map<string, number>();
  /** When the number of objects reached each watched count (see onCount). */
  private countWaiters: Array<{ n: number; resolve: (at: number) => void }> = [];
  private readonly waiters = new Map<string, Waiter[]>();

  private readonly watch: ObjectWatch;

  constructor(
    readonly name: string,
    rest: RestClient,
    private readonly namespace: string,
  ) {
    this.watch = new ObjectWatch(rest, this.path, (type, obj, at) => this.observe(type, obj, at), true, (items, at) => this.relisted(items, at));
  }

  private get path() {
    return `/apis/apps/v1/namespaces/${this.namespace}/deployments`;
  }

  get count(): number {
    return this.images.size;
  }

  async start(): Promise<void> {
    await this.watch.start();
  }

  stop(): void {
    this.watch.stop();
  }

  /** A whole list (the first, or one after a 410): every object as modified, those no longer there as deleted. */
  private relisted(items: any[], at: number): void {
    const seen = new Set<string>();
    for (const o of items) {
      seen.add(o.metadata.name);
      this.observe('MODIFIED', o, at);
    }
    for (const n of [...this.images.keys()]) if (!seen.has(n)) this.observe('DELETED', { metadata: { name: n } }, at);
  }

  private observe(type: string, obj: any, at: number): void {
    const name = obj.metadata.name as string;
    if (type === 'DELETED') {
      this.images.delete(name);
      this.replicas.delete(name);
      this.resolveCounts(at);
      return;
    }
    const image = obj.spec?.template?.spec?.containers?.[0]?.image as string | undefined;
    if (!this.images.has(name)) this.addedAt.set(name, at);
    this.images.set(name, image ?? '');
    this.replicas.set(name, obj.spec?.replicas ?? 0);
    this.resolveCounts(at);
    const ws = this.waiters.get(name);
    if (!ws) return;
    const left = ws.filter((w) => {
      if (w.image !== image) return true;
      w.resolve(at);
      return false;
    });
    if (left.length) this.waiters.set(name, left);
    else this.waiters.delete(name);
  }

  private resolveCounts(at: number): void {
    this.countWaiters = this.countWaiters.filter((w) => {
      if (w.n === this.count) {
        w.resolve(at);
        return false;
      }
      return true;
    });
  }

  /** Resolves with the bench time at which the namespace holds exactly n Deployments. */
  whenCount(n: number): Promise<number> {
    if (this.count === n) return Promise.resolve(performance.now());
    return new Promise((resolve) => this.countWaiters.push({ n, resolve }));
  }

  /** Resolves with the bench time of the event in which `name` first shows `image`. */
  whenImage(name: string, image: string): Promise<number> {
    if (this.images.get(name) === image) return Promise.resolve(performance.now());
    return new Promise((resolve) => {
      const ws = this.waiters.get(name) ?? [];
      ws.push({ image, resolve });
      this.waiters.set(name, ws);
    });
  }
}

/**
 * A list then watch of one collection, every event stamped with the bench's clock (performance.now()) as it
 * arrives and handed to a callback; after a 410 the collection is listed again.
 */
export class ObjectWatch {
  private rv = '';
  private abort?: AbortController;
  private running = false;
  /** performance.now() of the last event passed on. */
  lastEventAt = 0;

  constructor(
    private readonly rest: RestClient,
    private readonly path: string,
    private readonly onEvent: (type: string, obj: any, at: number) => void,
    /** Objects of the first list are passed on too (as ADDED); false: only what happens after start. */
    private readonly replayList = true,
    /** Instead of passing a list's objects on as ADDED: what to make of a whole list (the first one, or one after a 410). */
    private readonly onList?: (items: any[], at: number) => void,
  ) {}

  async start(): Promise<void> {
    await this.list(this.replayList);
    this.running = true;
    void this.loop();
  }

  stop(): void {
    this.running = false;
    this.abort?.abort();
  }

  private async list(replay: boolean): Promise<void> {
    const res = await this.rest.request<{ items: any[]; metadata: { resourceVersion: string } }>('GET', this.path);
    const at = performance.now();
    if (this.onList) this.onList(res.items, at);
    else if (replay) for (const o of res.items) this.onEvent('ADDED', o, at);
    this.rv = res.metadata.resourceVersion;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      this.abort = new AbortController();
      try {
        let gone = false;
        await this.rest.watch(
          this.path,
          { resourceVersion: this.rv, allowWatchBookmarks: true, timeoutSeconds: 600 },
          (type, obj) => {
            const at = performance.now();
            if (type === 'ERROR') {
              if (obj?.code === 410) {
                gone = true;
                this.abort?.abort();
              }
              return;
            }
            if (obj?.metadata?.resourceVersion) this.rv = obj.metadata.resourceVersion;
            if (type === 'BOOKMARK') return;
            this.lastEventAt = at;
            this.onEvent(type, obj, at);
          },
          this.abort.signal,
        );
        // Relisted after a 410: whatever changed meanwhile comes in as ADDED.
        if (gone && this.running) await this.list(true);
      } catch (e) {
        if (!this.running) return;
        if (isApiGone(e)) await this.list(true).catch(() => undefined);
        else await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
}

