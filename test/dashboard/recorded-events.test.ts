// The controller's own events, for the dashboard's timeline: EventRecorder.recorded() (KubeStore.events()).
import { describe, expect, it } from 'vitest';
import { EventRecorder } from '../../src/kube/events.js';
import type { CoreEvent } from '../../src/core/ports.js';

const ev = (name: string, reason: string): CoreEvent => ({
  involvedObject: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name },
  type: 'Normal',
  reason,
  message: `${reason} ${name}`,
  source: 'test',
});

describe('EventRecorder.recorded', () => {
  it('keeps each series once, with its count and first and last time, oldest first', async () => {
    let t = Date.parse('2026-01-01T00:00:00Z');
    const r = new EventRecorder({ component: 'test', request: async () => undefined, now: () => new Date((t += 1000)) });
    r.record(ev('a', 'SyncSucceed'));
    r.record(ev('b', 'ScheduleBindingSucceed'));
    r.record(ev('a', 'SyncSucceed'));
    await r.drain();
    expect(r.recorded()).toEqual([
      { ...ev('a', 'SyncSucceed'), count: 2, firstTimestamp: '2026-01-01T00:00:01.000Z', lastTimestamp: '2026-01-01T00:00:03.000Z' },
      { ...ev('b', 'ScheduleBindingSucceed'), count: 1, firstTimestamp: '2026-01-01T00:00:02.000Z', lastTimestamp: '2026-01-01T00:00:02.000Z' },
    ]);
  });

  it('forgets the least recently seen series beyond maxSeries', () => {
    const r = new EventRecorder({ component: 'test', request: async () => undefined, maxSeries: 2 });
    r.record(ev('a', 'X'));
    r.record(ev('b', 'X'));
    r.record(ev('a', 'X'));
    r.record(ev('c', 'X'));
    expect(r.recorded().map((e) => e.involvedObject.name).sort()).toEqual(['a', 'c']);
  });
});
