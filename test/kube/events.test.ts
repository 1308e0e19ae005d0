import { describe, expect, it } from 'vitest';
import { EventRecorder, eventName, eventRequestFor, type EventRequest } from '../../src/kube/events.js';
import type { CoreEvent } from '../../src/core/ports.js';
import { TokenBucket } from '../../src/kube/rate-limiter.js';
import { RestClient } from '../../src/kube/rest.js';
import { okServer, virtualClock, whenWaiting } from './limiter-helpers.js';

interface Call {
  method: string;
  path: string;
  body: any;
}

const httpError = (code: number, message: string) => Object.assign(new Error(message), { code });

/**
 * An apiserver's events endpoint in memory, with its rules for names and versions: a POST of a name that
 * exists is 409, a merge patch with a stale metadata.resourceVersion is 409, one for a missing Event 404.
 * `hold` makes requests wait until `release()`.
 */
function fakeServer(hold = false) {
  const calls: Call[] = [];
  const events = new Map<string, any>();
  let rv = 0;
  let waiting: Array<() => void> = [];
  const request: EventRequest = async (method, path, body) => {
    calls.push({ method, path, body });
    if (hold) await new Promise<void>((r) => waiting.push(r));
    const b = structuredClone(body) as any;
    if (method === 'POST') {
      const name = b.metadata.name;
      if (events.has(name)) throw httpError(409, `events "${name}" already exists`);
      const obj = { ...b, metadata: { ...b.metadata, resourceVersion: String(++rv) } };
      events.set(name, obj);
      return structuredClone(obj);
    }
    const name = decodeURIComponent(path.split('/').pop()!);
    const cur = events.get(name);
    if (!cur) throw httpError(404, 'not found');
    const want = b.metadata?.resourceVersion;
    if (want && want !== cur.metadata.resourceVersion) throw httpError(409, 'the object has been modified');
    if (Object.keys(b).length === 0) return structuredClone(cur);
    const { metadata: _m, ...rest } = b;
    Object.assign(cur, rest);
    cur.metadata.resourceVersion = String(++rv);
    return structuredClone(cur);
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
  involvedObject: { apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work', namespace: 'karmada-es-m1', name: 'web', uid: 'u-1' },
  type: 'Normal',
  reason: 'SyncSucceed',
  message,
  source: 'execution-controller',
});

describe('EventRecorder', () => {
  it('creates an Event once, then counts repeats on it with a merge patch conditional on its resourceVersion', async () => {
    const srv = fakeServer();
    const r = new EventRecorder({ component: 'c', request: srv.request, now: () => new Date('2024-01-01T00:00:00Z') });
    r.record(ev());
    await r.drain();
    r.record(ev());
    await r.drain();
    r.record(ev('another message'));
    await r.drain();
    expect(srv.calls.map((c) => c.method)).toEqual(['POST', 'PATCH', 'POST']);
    const name = eventName('c', ev());
    expect(srv.calls[1]!.path).toBe(`/api/v1/namespaces/karmada-es-m1/events/${name}`);
    expect(srv.calls[1]!.body).toMatchObject({ metadata: { resourceVersion: '1' }, count: 2 });
    const [first, second] = [...srv.events.values()];
    expect(first).toMatchObject({ metadata: { name }, reason: 'SyncSucceed', count: 2, source: { component: 'c' }, involvedObject: { kind: 'Work', name: 'web', uid: 'u-1' } });
    expect(second).toMatchObject({ message: 'another message', count: 1 });
  });

  it('names an Event by what makes two events equal: object, uid, type, reason, message and component', () => {
    const base = eventName('c', ev());
    expect(base).toMatch(/^web\.[0-9a-f]{16}$/);
    expect(eventName('c', ev())).toBe(base);
    expect(eventName('c', ev('other'))).not.toBe(base);
    expect(eventName('other-component', ev())).not.toBe(base);
    expect(eventName('c', { ...ev(), involvedObject: { ...ev().involvedObject, uid: 'u-2' } })).not.toBe(base);
    expect(eventName('c', { ...ev(), type: 'Warning' })).not.toBe(base);
    // A name of 253 characters still gives a valid Event name.
    expect(eventName('c', { ...ev(), involvedObject: { ...ev().involvedObject, name: 'x'.repeat(253) } })).toHaveLength(253);
  });

  it('two replicas recording the same events write one Event per series, whose count is every repeat of both', async () => {
    const srv = fakeServer();
    const a = new EventRecorder({ component: 'karmada-lite-controller', request: srv.request });
    const b = new EventRecorder({ component: 'karmada-lite-controller', request: srv.request });
    // Interleaved, with writes of both in flight at once: creates race, patches race.
    for (let i = 0; i < 3; i++) {
      a.record(ev());
      b.record(ev());
      a.record(ev('second series'));
      b.record(ev('second series'));
      await new Promise((res) => setImmediate(res));
    }
    await Promise.all([a.drain(), b.drain()]);
    expect([...srv.events.values()].map((e) => [e.message, e.count]).sort()).toEqual([
      ['Sync work(karmada-es-m1/web) to cluster(m1) successful.', 6],
      ['second series', 6],
    ]);
    // Each replica created or found the Event once per series, and lost races were read again and retried.
    expect(srv.calls.filter((c) => c.method === 'POST')).toHaveLength(4);
  });

  it('a replica that finds the Event created by another adds its count to the stored one', async () => {
    const srv = fakeServer();
    const a = new EventRecorder({ component: 'c', request: srv.request });
    for (let i = 0; i < 4; i++) a.record(ev());
    await a.drain();
    const b = new EventRecorder({ component: 'c', request: srv.request });
    b.record(ev());
    await b.drain();
    expect([...srv.events.values()]).toHaveLength(1);
    expect([...srv.events.values()][0]).toMatchObject({ count: 5 });
    // b: the create that found it, the read (an empty patch), the conditional count patch.
    expect(srv.calls.slice(-3).map((c) => [c.method, c.body])).toEqual([
      ['POST', expect.objectContaining({ count: 1 })],
      ['PATCH', {}],
      ['PATCH', expect.objectContaining({ count: 5 })],
    ]);
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

  it('writes 8 series at once and queues the rest, oldest first; a waiting series is written once with every repeat counted', async () => {
    const srv = fakeServer(true);
    const r = new EventRecorder({ component: 'c', request: srv.request });
    for (let i = 0; i < 12; i++) r.record(ev(`s${i}`));
    // Repeats of queued series fold into their one write.
    r.record(ev('s10'));
    r.record(ev('s10'));
    expect(srv.calls.map((c) => c.body.message)).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7']);
    while (srv.calls.length < 12) {
      srv.release();
      await new Promise((res) => setImmediate(res));
    }
    srv.release();
    await r.drain();
    expect(srv.calls.slice(8).map((c) => c.body.message)).toEqual(['s8', 's9', 's10', 's11']);
    expect(srv.calls.every((c) => c.method === 'POST')).toBe(true);
    expect(srv.calls.find((c) => c.body.message === 's10')!.body.count).toBe(3);
  });

  it('counts a repeat on the queued series even after the series cache forgot it', async () => {
    const srv = fakeServer(true);
    const r = new EventRecorder({ component: 'c', request: srv.request, maxSeries: 2 });
    // s0..s7 in flight, s8..s11 queued; the cache of 2 holds s10 and s11 only.
    for (let i = 0; i < 12; i++) r.record(ev(`s${i}`));
    r.record(ev('s8'));
    while (srv.calls.length < 12) {
      srv.release();
      await new Promise((res) => setImmediate(res));
    }
    srv.release();
    await r.drain();
    expect(srv.calls.filter((c) => c.body.message === 's8').map((c) => [c.method, c.body.count])).toEqual([['POST', 2]]);
  });

  it('keeps at most maxPending writes waiting: a new series past it is dropped and reported, repeats of a waiting one still fold in', async () => {
    const srv = fakeServer(true);
    const errors: string[] = [];
    const dropped: string[] = [];
    const r = new EventRecorder({ component: 'c', request: srv.request, maxPending: 2, onError: (_reason, e) => errors.push(e.message), onDropped: (reason) => dropped.push(reason) });
    r.record(ev('a'));
    r.record(ev('b'));
    r.record(ev('c'));
    r.record(ev('a'));
    expect(srv.calls.map((c) => c.body && (c.body as { message: string }).message)).toEqual(['a', 'b']);
    expect(errors).toEqual(['2 Event writes are waiting already; this one was dropped']);
    // counted for the controller's karmada_lite_events_dropped_total, by reason
    expect(dropped).toEqual([ev('c').reason]);
    while (srv.calls.length < 3) {
      srv.release();
      await new Promise((res) => setImmediate(res));
    }
    srv.release();
    await r.drain();
    // a: created, then its repeat counted; b created; c never written
    expect([...srv.events.values()].map((e) => [e.message, e.count]).sort()).toEqual([['a', 2], ['b', 1]]);
    // with room again, a new series is written
    r.record(ev('d'));
    srv.release();
    await new Promise((res) => setImmediate(res));
    srv.release();
    await r.drain();
    expect([...srv.events.values()].map((e) => e.message).sort()).toEqual(['a', 'b', 'd']);
  });

  it('starts a new Event when the counted one is gone, and a forgotten series continues the stored Event', async () => {
    const srv = fakeServer();
    const r = new EventRecorder({ component: 'c', request: srv.request, maxSeries: 1 });
    r.record(ev('a'));
    await r.drain();
    srv.events.clear();
    r.record(ev('a'));
    await r.drain();
    expect(srv.calls.map((c) => c.method)).toEqual(['POST', 'PATCH', 'POST']);
    expect(srv.calls[2]!.body).toMatchObject({ message: 'a', count: 1 });
    r.record(ev('b'));
    r.record(ev('a'));
    await r.drain();
    // 'a' was forgotten when 'b' came; its Event is still there, so the repeat is counted on it.
    expect([...srv.events.values()].map((e) => [e.message, e.count])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
  });

  it('counts a repeat of a forgotten series with one patch: what the server holds of it is kept beyond maxSeries', async () => {
    const srv = fakeServer();
    const r = new EventRecorder({ component: 'c', request: srv.request, maxSeries: 2 });
    for (const m of ['a', 'b', 'c']) r.record(ev(m));
    await r.drain();
    const before = srv.calls.length;
    r.record(ev('a'));
    await r.drain();
    // Not a create that finds the Event there (409), a read and a patch: one conditional patch.
    expect(srv.calls.slice(before).map((c) => c.method)).toEqual(['PATCH']);
    expect(srv.calls[before]!.body).toMatchObject({ metadata: { resourceVersion: expect.any(String) }, count: 2 });
    expect([...srv.events.values()].find((e) => e.message === 'a')).toMatchObject({ count: 2 });
  });

  it('keeps at most maxKnown forgotten series: beyond it a repeat finds its Event by creating it again', async () => {
    const srv = fakeServer();
    const r = new EventRecorder({ component: 'c', request: srv.request, maxSeries: 1, maxKnown: 1 });
    for (const m of ['a', 'b', 'c']) r.record(ev(m));
    await r.drain();
    const before = srv.calls.length;
    r.record(ev('a'));
    await r.drain();
    expect(srv.calls.slice(before).map((c) => c.method)).toEqual(['POST', 'PATCH', 'PATCH']);
    expect([...srv.events.values()].find((e) => e.message === 'a')).toMatchObject({ count: 2 });
  });

  it('gives up a write after repeated lost races (events are best effort) and reports it', async () => {
    const srv = fakeServer();
    const errors: string[] = [];
    let n = 0;
    // Every conditional patch loses: another writer always got there first.
    const racy: EventRequest = async (method, path, body) => {
      const out = await srv.request(method, path, body);
      if (method === 'PATCH' && (body as any).metadata?.resourceVersion) {
        n++;
        throw httpError(409, 'the object has been modified');
      }
      return out;
    };
    const r = new EventRecorder({ component: 'c', request: racy, onError: (_reason, e) => errors.push(e.message) });
    r.record(ev());
    await r.drain();
    r.record(ev());
    await r.drain();
    expect(n).toBe(6);
    expect(errors).toEqual(['the object has been modified']);
  });

  it("writes through the low lane of the client's token bucket: a write queued after an Event goes first", async () => {
    const { seen, server, kc } = await okServer();
    const clock = virtualClock();
    try {
      const limiter = new TokenBucket({ qps: 10, burst: 1, clock });
      const rest = new RestClient(kc, { limiter });
      const r = new EventRecorder({ component: 'c', request: eventRequestFor(rest) });
      await rest.request('GET', '/warm');
      r.record(ev());
      await whenWaiting(limiter, 1);
      const write = rest.request('PUT', '/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-m1/works/web');
      await whenWaiting(limiter, 2);
      await clock.advance(100);
      await write;
      await clock.advance(100);
      await r.drain();
      expect(seen).toEqual(['/warm', '/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-m1/works/web', '/api/v1/namespaces/karmada-es-m1/events']);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('close drops the writes still waiting for a token: drain ends, nothing is sent later, later events are not written', async () => {
    const { seen, server, kc } = await okServer();
    const clock = virtualClock();
    const errors: string[] = [];
    try {
      const limiter = new TokenBucket({ qps: 10, burst: 1, clock });
      const rest = new RestClient(kc, { limiter });
      const r = new EventRecorder({ component: 'c', request: eventRequestFor(rest), onError: (_reason, e) => errors.push(e.message) });
      await rest.request('GET', '/warm');
      r.record(ev('a'));
      r.record(ev('b'));
      await whenWaiting(limiter, 2);
      expect(limiter.waitingLow).toBe(2);
      r.close();
      await r.drain();
      expect(limiter.waiting).toBe(0);
      r.record(ev('c'));
      await r.drain();
      await clock.advance(1000);
      expect(seen).toEqual(['/warm']);
      expect(errors).toEqual(Array(3).fill('the event recorder was closed'));
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
