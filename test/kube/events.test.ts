import { describe, expect, it } from 'vitest';
import { EventRecorder, type EventRequest } from '../../src/kube/events.js';
import type { CoreEvent } from '../../src/core/ports.js';

interface Call {
  method: string;
  path: string;
  body: any;
}

/** An apiserver's events endpoint in memory; `release()` lets the held requests answer. */
function fakeServer(hold = false) {
  const calls: Call[] = [];
  const events = new Map<string, any>();
  let n = 0;
  let waiting: Array<() => void> = [];
  const request: EventRequest = async (method, path, body) => {
    calls.push({ method, path, body });
    if (hold) await new Promise<void>((r) => waiting.push(r));
    if (method === 'POST') {
      const name = `${(body as any).metadata.generateName}${++n}`;
      events.set(name, { ...(body as any), metadata: { ...(body as any).metadata, name } });
      return { metadata: { name } };
    }
    const name = decodeURIComponent(path.split('/').pop()!);
    const cur = events.get(name);
    if (!cur) throw Object.assign(new Error('not found'), { code: 404 });
    Object.assign(cur, body);
    return cur;
  };
  return {
    calls,
    events,
    request,
    release() {
      const w = waiting;
      waiting = [];
      for (const r of w) r();
    },
  };
}

const ev = (message = 'Sync work(karmada-es-m1/web) to cluster(m1) successful.'): CoreEvent => ({
  involvedObject: { apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work', namespace: 'karmada-es-m1', name: 'web' },
  type: 'Normal',
  reason: 'SyncSucceed',
  message,
  source: 'execution-controller',
});

describe('EventRecorder', () => {
  it('creates an Event once, then counts repeats on it with a merge patch', async () => {
    const srv = fakeServer();
    const r = new EventRecorder({ component: 'c', request: srv.request, now: () => new Date('2024-01-01T00:00:00Z') });
    r.record(ev());
    await r.drain();
    r.record(ev());
    await r.drain();
    r.record(ev('another message'));
    await r.drain();
    expect(srv.calls.map((c) => c.method)).toEqual(['POST', 'PATCH', 'POST']);
    expect(srv.calls[1]!.path).toBe('/api/v1/namespaces/karmada-es-m1/events/web.1');
    const [first, second] = [...srv.events.values()];
    expect(first).toMatchObject({ reason: 'SyncSucceed', count: 2, source: { component: 'c' }, involvedObject: { kind: 'Work', name: 'web' } });
    expect(second).toMatchObject({ message: 'another message', count: 1 });
  });

  it('folds repeats that arrive during a write into one more write', async () => {
    const srv = fakeServer(true);
    const r = new EventRecorder({ component: 'c', request: srv.request });
    for (let i = 0; i < 10; i++) r.record(ev());
    srv.release();
    await new Promise((res) => setImmediate(res));
    srv.release();
    await r.drain();
    expect(srv.calls.map((c) => c.method)).toEqual(['POST', 'PATCH']);
    expect([...srv.events.values()][0]).toMatchObject({ count: 10 });
  });

  it('starts a new Event when the counted one is gone, and forgets the oldest series beyond its cache', async () => {
    const srv = fakeServer();
    const r = new EventRecorder({ component: 'c', request: srv.request, maxSeries: 1 });
    r.record(ev('a'));
    await r.drain();
    srv.events.clear();
    r.record(ev('a'));
    await r.drain();
    expect(srv.calls.map((c) => c.method)).toEqual(['POST', 'PATCH', 'POST']);
    expect(srv.calls[2]!.body).toMatchObject({ message: 'a', count: 2 });
    r.record(ev('b'));
    r.record(ev('a'));
    await r.drain();
    // 'a' was forgotten when 'b' came: a new Event with count 1.
    expect(srv.calls.slice(3).map((c) => [c.method, c.body.message, c.body.count])).toEqual([
      ['POST', 'b', 1],
      ['POST', 'a', 1],
    ]);
  });
});
