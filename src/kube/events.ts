/**
 * Records the core's events as core/v1 Events the way client-go's recorder does for repeats: an event
 * equal to one recorded before (same object, type, reason, message and source) bumps that Event's count
 * and lastTimestamp instead of creating another object. Repeats that arrive while a write for the same
 * Event is in flight are folded into the next write, so a burst costs two writes, not one per repeat.
 *
 * Unlike client-go, the series is shared by every replica that records it: the Event's name is derived
 * from what makes two events equal, so replicas running without leader election (or an old leader and a
 * new one) write the same object. A create that finds it there already, or a count patch that lost a race
 * (its resourceVersion precondition failed), reads the stored count and adds what this replica saw.
 *
 * Also unlike client-go, whose event sink shares the client's token bucket in arrival order, the writes go
 * through the low lane of the host client's bucket (`eventRequestFor`): an Event waits while any other request
 * waits, so Events (most of the host's requests in a large propagation) never delay a write the propagation
 * needs. The recorder's `close` drops what still waits, so a stopping process does not wait for it.
 */
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { CoreEvent } from '../core/ports.js';
import type { RecordedEvent } from '../runtime/store-port.js';
import type { RestClient } from './rest.js';

/** What the apiserver answers about an Event. */
export interface StoredEvent {
  metadata?: { name?: string; resourceVersion?: string };
  count?: number;
  lastTimestamp?: string;
}

/**
 * The one call the recorder needs from a REST client. It throws an error with `code` 404 when the
 * Event is gone and 409 when it exists already (POST) or has changed since (PATCH with a resourceVersion).
 */
export type EventRequest = (method: 'POST' | 'PATCH', path: string, body: unknown, contentType?: string, signal?: AbortSignal) => Promise<StoredEvent | undefined>;

/** The recorder's requests over a REST client: the low lane of its token bucket, abortable by the recorder's `close`. */
export function eventRequestFor(rest: Pick<RestClient, 'request'>): EventRequest {
  return (method, path, body, contentType, signal) => rest.request<StoredEvent | undefined>(method, path, { body, contentType, signal, priority: 'low' });
}

interface Series {
  name: string;
  /** The event as last recorded (what the dashboard's timeline shows). */
  event: CoreEvent;
  count: number;
  /** Count of this replica's already written. */
  written: number;
  firstTimestamp: string;
  lastTimestamp: string;
  busy: boolean;
  /** The Event as last seen on the server; undefined when it has to be created (or read) first. */
  stored?: { resourceVersion: string; count: number; lastTimestamp?: string };
}

export interface EventRecorderOptions {
  component: string;
  request: EventRequest;
  now?: () => Date;
  /** Series remembered (oldest forgotten first), as client-go's LRU cache of 4096. */
  maxSeries?: number;
  /**
   * Forgotten series whose Event's name, resourceVersion and count are still kept (oldest dropped first,
   * default 65,536, about 150 bytes each): a repeat of one is a single count patch instead of a create that
   * finds the Event there (409), a read and the patch.
   */
  maxKnown?: number;
  /**
   * Series waiting to be written or being written, default 32,768: past it a new series' write is dropped
   * (reported to onError), as client-go's broadcaster drops events when its queue of 1,000 is full. A waiting
   * series costs what it holds (its event, about 650 bytes; only WRITERS requests wait for a token at once), and the
   * low lane waits out a whole propagation: about 22 series per template at 40/60, so 1,000 templates fit.
   */
  maxPending?: number;
  onError?: (reason: string, err: Error) => void;
  /** An occurrence not written because maxPending writes wait already (karmada_lite_events_dropped_total). */
  onDropped?: (reason: string) => void;
}

/** Lost races on one write before it is given up (Events are best effort). */
const MAX_CONFLICTS = 5;

/**
 * Series written at once. The host bucket's low lane hands out one token at a time anyway; a few writers keep
 * that pace over a slow answer, and each waiting request costs several KB that a queued series does not.
 */
const WRITERS = 8;

/** Longest object name kept in an Event name: with the dot and the hash, at most 253 characters. */
const NAME_PREFIX_MAX = 253 - 17;

/**
 * The Event's name: the object's name (as client-go's `<name>.<suffix>`) and a hash of what makes two
 * events equal, so every replica names the same event the same way.
 */
export function eventName(component: string, ev: CoreEvent): string {
  const io = ev.involvedObject;
  const key = [component, io.apiVersion, io.kind, io.namespace ?? '', io.name, io.uid ?? '', ev.type, ev.reason, ev.message].join('\u0000');
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return `${io.name.slice(0, NAME_PREFIX_MAX)}.${hash}`;
}

const codeOf = (e: unknown) => (e as { code?: number }).code;

export class EventRecorder {
  private readonly series = new Map<string, Series>();
  /** What the server holds of series forgotten from `series` (maxKnown). */
  private readonly known = new Map<string, NonNullable<Series['stored']>>();
  /** Series to write, oldest first; a series recorded again while it waits is written once, with its count. */
  private readonly queued = new Map<string, Series>();
  /** The writers' flushes in progress (at most WRITERS). */
  private readonly pending = new Set<Promise<void>>();
  private readonly closing = new AbortController();

  constructor(private readonly opts: EventRecorderOptions) {
    // Every write waiting for a token or an answer listens on this one signal.
    setMaxListeners(0, this.closing.signal);
  }

  record(ev: CoreEvent): void {
    const name = eventName(this.opts.component, ev);
    const key = `${ev.involvedObject.namespace || 'default'}/${name}`;
    const now = (this.opts.now ?? (() => new Date()))().toISOString();
    const remembered = this.series.get(key);
    // A series forgotten while it waits to be written is still the one to count on.
    let s = remembered ?? this.queued.get(key);
    if (s) {
      // Most recently used last, so that the first entry is the one to forget.
      this.series.delete(key);
      s.count++;
      s.lastTimestamp = now;
      s.event = ev;
    } else {
      s = { name, event: ev, count: 1, written: 0, firstTimestamp: now, lastTimestamp: now, busy: false };
      const stored = this.known.get(key);
      if (stored) {
        this.known.delete(key);
        s.stored = stored;
      }
    }
    if (!remembered && this.series.size >= (this.opts.maxSeries ?? 4096)) this.forget(this.series.keys().next().value!);
    this.series.set(key, s);
    // Being written (the writer folds this repeat into its next write) or waiting: nothing more to do.
    if (s.busy || this.queued.has(key)) return;
    const waiting = this.waiting;
    if (waiting >= (this.opts.maxPending ?? 32_768)) {
      // Best effort, as every Event: this occurrence is not written; a later repeat writes its own.
      s.written = s.count;
      this.opts.onError?.(ev.reason, new Error(`${waiting} Event writes are waiting already; this one was dropped`));
      this.opts.onDropped?.(ev.reason);
      return;
    }
    this.queued.set(key, s);
    this.pump();
  }

  /** Starts writers for the oldest waiting series, up to WRITERS at once. */
  private pump(): void {
    while (this.pending.size < WRITERS && this.queued.size) {
      const [key, s] = this.queued.entries().next().value!;
      this.queued.delete(key);
      // Registered before the flush can end, and the next one started before it leaves `pending`, so that
      // drain() never finds the set empty while series still wait.
      const p: Promise<void> = this.flush(key, s).finally(() => {
        this.pending.delete(p);
        this.pump();
      });
      this.pending.add(p);
    }
  }

  /** Forgets the series, keeping what the server holds of it (a write in flight or waiting keeps it when it ends). */
  private forget(key: string): void {
    const old = this.series.get(key)!;
    this.series.delete(key);
    if (!old.busy && !this.queued.has(key)) this.keep(key, old);
  }

  private keep(key: string, s: Series): void {
    // A series recorded again meanwhile holds it itself.
    if (!s.stored || this.series.has(key)) return;
    if (this.known.size >= (this.opts.maxKnown ?? 65_536)) this.known.delete(this.known.keys().next().value!);
    this.known.set(key, s.stored);
  }

  /** The series remembered, oldest first, as the embedded store aggregates them. */
  recorded(): RecordedEvent[] {
    return [...this.series.values()].sort((a, b) => (a.firstTimestamp < b.firstTimestamp ? -1 : a.firstTimestamp > b.firstTimestamp ? 1 : 0)).map((s) => ({ ...s.event, count: s.count, firstTimestamp: s.firstTimestamp, lastTimestamp: s.lastTimestamp }));
  }

  /** Series waiting to be written or being written (karmada_lite_events_waiting). */
  get waiting(): number {
    return this.queued.size + this.pending.size;
  }

  /** Resolves once every series recorded so far is written (for a graceful stop and for tests). */
  async drain(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  /**
   * Drops the writes still waiting for a token or an answer (after `drain` had its chance): a stopping process
   * neither waits for them nor sends them later. Events recorded afterwards are not written.
   */
  close(): void {
    this.closing.abort(new Error('the event recorder was closed'));
    this.queued.clear();
  }

  private async flush(key: string, s: Series): Promise<void> {
    s.busy = true;
    const ev = s.event;
    const io = ev.involvedObject;
    const ns = io.namespace || 'default';
    const base = `/api/v1/namespaces/${encodeURIComponent(ns)}/events`;
    const path = `${base}/${encodeURIComponent(s.name)}`;
    const signal = this.closing.signal;
    const patch = (body: unknown) => this.opts.request('PATCH', path, body, 'application/merge-patch+json', signal);
    let conflicts = 0;
    try {
      while (s.written < s.count) {
        signal.throwIfAborted();
        const count = s.count;
        const delta = count - s.written;
        if (!s.stored) {
          try {
            const created = await this.opts.request('POST', base, {
              apiVersion: 'v1',
              kind: 'Event',
              metadata: { name: s.name, namespace: ns },
              involvedObject: { apiVersion: io.apiVersion, kind: io.kind, namespace: io.namespace, name: io.name, ...(io.uid ? { uid: io.uid } : {}) },
              type: ev.type,
              reason: ev.reason,
              message: ev.message,
              source: { component: this.opts.component },
              reportingComponent: this.opts.component,
              firstTimestamp: s.firstTimestamp,
              lastTimestamp: s.lastTimestamp,
              count: delta,
            }, undefined, signal);
            s.stored = storedOf(created, delta);
            s.written = count;
            continue;
          } catch (e) {
            // Another replica (or this one, before it forgot the series) created it: count on top of it.
            if (codeOf(e) !== 409) throw e;
            s.stored = storedOf(await patch({}), 0);
          }
        }
        const stored = s.stored!;
        try {
          const last = later(stored.lastTimestamp, s.lastTimestamp);
          const out = await patch({ metadata: { resourceVersion: stored.resourceVersion }, count: stored.count + delta, lastTimestamp: last });
          s.stored = storedOf(out, stored.count + delta);
          s.written = count;
        } catch (e) {
          const code = codeOf(e);
          if (code === 404) {
            // Gone (expired by the apiserver's TTL, or deleted): start a new Event for the series.
            s.stored = undefined;
            continue;
          }
          if (code !== 409 || ++conflicts > MAX_CONFLICTS) throw e;
          // Another replica counted meanwhile: read its count and add ours to it.
          s.stored = storedOf(await patch({}), stored.count);
        }
      }
    } catch (e) {
      // Events are best effort: a failed write is dropped, not retried.
      s.written = s.count;
      s.stored = undefined;
      this.opts.onError?.(ev.reason, e as Error);
    } finally {
      s.busy = false;
      // Forgotten while this write was in flight: what it stored is kept now.
      if (this.series.get(key) !== s) this.keep(key, s);
    }
  }
}

/** What the server answered, with what was sent as the fallback for a server that answers no body. */
function storedOf(out: StoredEvent | undefined, count: number): Series['stored'] {
  return { resourceVersion: out?.metadata?.resourceVersion ?? '', count: typeof out?.count === 'number' ? out.count : count, lastTimestamp: out?.lastTimestamp };
}

/** The later of two timestamps: a replica whose repeat is older does not move lastTimestamp back. */
function later(a: string | undefined, b: string): string {
  return a && Date.parse(a) > Date.parse(b) ? a : b;
}
