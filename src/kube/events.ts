/**
 * Records the core's events as core/v1 Events the way client-go's recorder does for repeats: an event
 * equal to one recorded before (same object, type, reason, message and source) bumps that Event's count
 * and lastTimestamp instead of creating another object. Repeats that arrive while a write for the same
 * Event is in flight are folded into the next write, so a burst costs two writes, not one per repeat.
 */
import type { CoreEvent } from '../core/ports.js';

/** The one call the recorder needs from a REST client; throws an error with `code` 404 when the Event is gone. */
export type EventRequest = (method: 'POST' | 'PATCH', path: string, body: unknown, contentType?: string) => Promise<{ metadata?: { name?: string } } | undefined>;

interface Series {
  name?: string;
  count: number;
  /** Count already written. */
  written: number;
  firstTimestamp: string;
  lastTimestamp: string;
  busy: boolean;
}

export interface EventRecorderOptions {
  component: string;
  request: EventRequest;
  now?: () => Date;
  /** Series remembered (oldest forgotten first), as client-go's LRU cache of 4096. */
  maxSeries?: number;
  onError?: (reason: string, err: Error) => void;
}

export class EventRecorder {
  private readonly series = new Map<string, Series>();
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly opts: EventRecorderOptions) {}

  record(ev: CoreEvent): void {
    const io = ev.involvedObject;
    const key = [io.apiVersion, io.kind, io.namespace ?? '', io.name, io.uid ?? '', ev.type, ev.reason, ev.message].join('\u0000');
    const now = (this.opts.now ?? (() => new Date()))().toISOString();
    let s = this.series.get(key);
    if (s) {
      // Most recently used last, so that the first entry is the one to forget.
      this.series.delete(key);
      s.count++;
      s.lastTimestamp = now;
    } else {
      s = { count: 1, written: 0, firstTimestamp: now, lastTimestamp: now, busy: false };
      const max = this.opts.maxSeries ?? 4096;
      if (this.series.size >= max) this.series.delete(this.series.keys().next().value!);
    }
    this.series.set(key, s);
    if (!s.busy) this.track(this.flush(ev, s));
  }

  /** Resolves once every write started so far has finished (for a graceful stop and for tests). */
  async drain(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  private track(p: Promise<void>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private async flush(ev: CoreEvent, s: Series): Promise<void> {
    s.busy = true;
    const io = ev.involvedObject;
    const ns = io.namespace || 'default';
    const base = `/api/v1/namespaces/${encodeURIComponent(ns)}/events`;
    try {
      while (s.written < s.count) {
        const count = s.count;
        if (s.name) {
          try {
            await this.opts.request('PATCH', `${base}/${encodeURIComponent(s.name)}`, { count, lastTimestamp: s.lastTimestamp }, 'application/merge-patch+json');
            s.written = count;
            continue;
          } catch (e) {
            // Gone (expired by the apiserver's TTL, or deleted): start a new Event for the series.
            if ((e as { code?: number }).code !== 404) throw e;
            s.name = undefined;
          }
        }
        const created = await this.opts.request('POST', base, {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { generateName: `${io.name}.`, namespace: ns },
          involvedObject: { apiVersion: io.apiVersion, kind: io.kind, namespace: io.namespace, name: io.name, ...(io.uid ? { uid: io.uid } : {}) },
          type: ev.type,
          reason: ev.reason,
          message: ev.message,
          source: { component: this.opts.component },
          reportingComponent: this.opts.component,
          firstTimestamp: s.firstTimestamp,
          lastTimestamp: s.lastTimestamp,
          count,
        });
        s.name = created?.metadata?.name;
        s.written = count;
      }
    } catch (e) {
      // Events are best effort: a failed write is dropped, not retried.
      s.written = s.count;
      this.opts.onError?.(ev.reason, e as Error);
    } finally {
      s.busy = false;
    }
  }
}
