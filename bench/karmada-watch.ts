/**
 * bench/karmada.bench.ts's eyes on the host: a list then watch of one collection, every event stamped with
 * the bench's clock (performance.now()) as it arrives, handed to a callback. The ResourceBindings (Scheduled,
 * FullyApplied) and the Events (the last one) are followed this way on both sides alike.
 */
import type { RestClient } from '../src/kube/rest.js';
import { ObjectWatch } from './controller-watch.js';

/** When each ResourceBinding of a namespace first had Scheduled=True and FullyApplied=True. */
export class BindingTimes {
  readonly scheduledAt = new Map<string, number>();
  readonly fullyAppliedAt = new Map<string, number>();
  readonly watch: ObjectWatch;

  constructor(rest: RestClient, namespace: string) {
    this.watch = new ObjectWatch(rest, `/apis/work.karmada.io/v1alpha2/namespaces/${namespace}/resourcebindings`, (type, rb, at) => {
      if (type === 'DELETED') return;
      const name = rb.metadata.name as string;
      for (const c of (rb.status?.conditions ?? []) as Array<{ type: string; status: string }>) {
        if (c.status !== 'True') continue;
        if (c.type === 'Scheduled' && !this.scheduledAt.has(name)) this.scheduledAt.set(name, at);
        if (c.type === 'FullyApplied' && !this.fullyAppliedAt.has(name)) this.fullyAppliedAt.set(name, at);
      }
    });
  }
}

/** The Events either side records about the run (in its namespaces, or about a Cluster), each write stamped as it arrives. */
export class EventTimes {
  /** `kind reason` -> Event writes seen (a repeat that bumps count is one more). */
  readonly byReason = new Map<string, number>();
  writes = 0;
  lastAt = 0;
  readonly watch: ObjectWatch;

  constructor(rest: RestClient, namespaces: readonly string[]) {
    const ns = new Set(namespaces);
    this.watch = new ObjectWatch(
      rest,
      '/api/v1/events',
      (type, e, at) => {
        if (type === 'DELETED') return;
        const inv = e.involvedObject ?? e.regarding ?? {};
        if (!ns.has(inv.namespace ?? e.metadata?.namespace) && inv.kind !== 'Cluster') return;
        const k = `${inv.kind} ${e.reason}`;
        this.byReason.set(k, (this.byReason.get(k) ?? 0) + 1);
        this.writes++;
        this.lastAt = at;
      },
      false,
    );
  }
}
