/**
 * What the dashboard shows, from the controller's own caches: no request of its own to any apiserver. A
 * standby replica has no caches until it leads; its page says so and fills once they are.
 */
import { CLUSTER, CPP, PP } from '../core/kinds.js';
import type { ObjectReader } from '../core/ports.js';
import type { RecordedEvent, WatchHandler } from '../runtime/store-port.js';
import { byName, placedObjects } from '../store/plan.js';
import { absentClusters } from '../store/plan-table.js';
import { fleetEvents, fleetModel, fleetRowDetail, type FleetEvent, type FleetInput, type FleetModel, type FleetRowDetail } from '../report/model.js';

/** The part of the KubeStore the dashboard reads. */
export interface CacheSource extends ObjectReader {
  watch(handler: WatchHandler): () => void;
  events(): readonly RecordedEvent[];
}

/** The caches as the report's input, in the order `plan` gives them. */
export function fleetInputOfCaches(store: CacheSource | undefined, at: Date): FleetInput {
  const input: FleetInput = { at: at.toISOString(), clusters: [], bindings: [], works: [], templates: [], policies: [], events: [], source: 'controller' };
  if (!store) return input;
  Object.assign(input, placedObjects(store));
  input.clusters = [...store.list(CLUSTER)].sort(byName);
  input.policies = [...store.list(PP), ...store.list(CPP)].sort(byName);
  input.events = [...store.events()];
  // The reasons `plan` gives for clusters a binding is not on: the scheduler's filters run again over these caches.
  input.absent = absentClusters(input.bindings, input.clusters, at);
  return input;
}

/**
 * The live feed: the model of the caches once they exist, and a change signal from their watch handler.
 * Member-cluster events are left out: the page reads the host's objects (Works carry the members' status).
 */
export class CacheFeed {
  private store?: CacheSource;
  private readonly listeners = new Set<() => void>();
  private unwatch?: () => void;

  constructor(private readonly clock: () => Date = () => new Date()) {}

  /** The controller filled its caches (at start, or when this replica became the leader). */
  attach(store: CacheSource): void {
    this.unwatch?.();
    this.store = store;
    this.unwatch = store.watch((ev) => {
      if (ev.cluster === undefined) this.notify();
    });
    this.notify();
  }

  get attached(): boolean {
    return this.store !== undefined;
  }

  /** The matrix (what the stream carries). */
  model(): FleetModel {
    return fleetModel(fleetInputOfCaches(this.store, this.clock()));
  }

  /** One row's detail, when the page opens it; undefined when no such row is there now. */
  detail(key: string): FleetRowDetail | undefined {
    return fleetRowDetail(fleetInputOfCaches(this.store, this.clock()), key);
  }

  /** The events timeline, when the page opens it. */
  events(): FleetEvent[] {
    return fleetEvents(fleetInputOfCaches(this.store, this.clock()));
  }

  subscribe(changed: () => void): () => void {
    this.listeners.add(changed);
    return () => this.listeners.delete(changed);
  }

  stop(): void {
    this.unwatch?.();
    this.listeners.clear();
  }

  private notify(): void {
    for (const l of this.listeners) l();
  }
}
