import { afterEach, describe, expect, it } from 'vitest';
import { DashboardServer, sseMessage } from '../../src/dashboard/server.js';
import { waitFor } from '../integration/k8s-env.js';
import { openStream as open } from './sse-client.js';

/** Waits on a condition of what the stream has read so far (never on time). */
const until = (cond: () => boolean, what: string) => waitFor(what, async () => cond() || undefined, 10_000, 5);

/** A server over a counter "model" whose changes the test fires by hand; no push happens by timer. */
function fixture() {
  let version = 0;
  let modelCalls = 0;
  const listeners = new Set<() => void>();
  const server = new DashboardServer({
    port: 0,
    model: () => {
      modelCalls++;
      return { version };
    },
    detail: (key) => (key === 'Deployment/shop/web' ? { key, version } : undefined),
    events: () => [{ reason: 'Scheduled', version }],
    page: (model, urls) => `<html><body data-stream="${urls.streamUrl}" data-detail="${urls.detailUrl}" data-events="${urls.eventsUrl}">${JSON.stringify(model)}</body></html>`,
    subscribe: (changed) => {
      listeners.add(changed);
      return () => listeners.delete(changed);
    },
    // a burst is sent only by flush(): the test counts messages, not milliseconds
    coalesceMs: 3_600_000,
  });
  const change = () => {
    version++;
    for (const l of listeners) l();
  };
  return { server, change, modelCalls: () => modelCalls, listeners };
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function started(f: ReturnType<typeof fixture>) {
  const addr = await f.server.start();
  stop = () => f.server.stop();
  return `http://127.0.0.1:${addr.port}`;
}

describe('dashboard server', () => {
  it('is read-only: every method but GET and HEAD is refused with 405', async () => {
    const url = await started(fixture());
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const path of ['/', '/events', '/model.json', '/detail?row=Deployment/shop/web', '/timeline.json']) {
        const res = await fetch(`${url}${path}`, { method, body: method === 'DELETE' ? undefined : '{}' });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow')).toBe('GET, HEAD');
      }
    }
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const head = await fetch(`${url}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await fetch(`${url}/nothing`)).status).toBe(404);
  });

  it('serves the page with a relative stream URL, so it works under a proxy path prefix, and the model as JSON', async () => {
    const f = fixture();
    const url = await started(f);
    const page = await fetch(`${url}/`);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(await page.text()).toBe('<html><body data-stream="events" data-detail="detail" data-events="timeline.json">{"version":0}</body></html>');
    f.change();
    expect(await (await fetch(`${url}/model.json`)).json()).toEqual({ version: 1 });
  });

  it("answers a row's detail and the events timeline on demand, with 404 for a row it does not have and 400 without one", async () => {
    const f = fixture();
    const url = await started(f);
    f.change();
    const d = await fetch(`${url}/detail?row=${encodeURIComponent('Deployment/shop/web')}`);
    expect(d.status).toBe(200);
    expect(d.headers.get('content-type')).toBe('application/json');
    expect(await d.json()).toEqual({ key: 'Deployment/shop/web', version: 1 });
    const missing = await fetch(`${url}/detail?row=${encodeURIComponent('Deployment/shop/gone')}`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('no template Deployment/shop/gone');
    const bare = await fetch(`${url}/detail`);
    expect(bare.status).toBe(400);
    expect(await bare.text()).toContain('?row=');
    expect(await (await fetch(`${url}/timeline.json`)).json()).toEqual([{ reason: 'Scheduled', version: 1 }]);
  });

  it('binds to 127.0.0.1 by default', async () => {
    const f = fixture();
    const addr = await f.server.start();
    stop = () => f.server.stop();
    expect(addr.address).toBe('127.0.0.1');
  });

  it('sends the model on connect, then one model per burst of changes, and nothing when idle', async () => {
    const f = fixture();
    const url = await started(f);
    const s = open(`${url}/events`);
    await until(() => s.messages.length === 1, 'the first model');
    expect(s.response()?.headers['content-type']).toContain('text/event-stream');
    expect(s.messages[0]).toEqual({ event: 'model', data: '{"version":0}' });
    const callsBefore = f.modelCalls();
    for (let i = 0; i < 100; i++) f.change();
    // the burst is pending, not sent: no model computed per change
    expect(f.modelCalls()).toBe(callsBefore);
    f.server.flush();
    await until(() => s.messages.length === 2, 'the coalesced model');
    expect(s.messages[1]).toEqual({ event: 'model', data: '{"version":100}' });
    expect(f.modelCalls()).toBe(callsBefore + 1);
    // idle: a flush with no change pending sends nothing
    f.server.flush();
    f.change();
    f.server.flush();
    await until(() => s.messages.length === 3, 'the next model');
    expect(f.server.pushes).toBe(2);
    expect(s.messages.map((m) => JSON.parse(m.data).version)).toEqual([0, 100, 101]);
    s.close();
  });

  it('computes nothing while no page listens', async () => {
    const f = fixture();
    await started(f);
    for (let i = 0; i < 10; i++) f.change();
    f.server.flush();
    expect(f.modelCalls()).toBe(0);
    expect(f.server.pushes).toBe(0);
  });

  it('pushes one model to every open stream, and stops cleanly with streams open', async () => {
    const f = fixture();
    const url = await started(f);
    const a = open(`${url}/events`);
    const b = open(`${url}/events`);
    await until(() => a.messages.length === 1 && b.messages.length === 1, 'both first models');
    f.change();
    f.server.flush();
    await until(() => a.messages.length === 2 && b.messages.length === 2, 'both second models');
    expect(f.server.pushes).toBe(1);
    await f.server.stop();
    stop = undefined;
    expect(f.listeners.size).toBe(0);
  });

  it('keeps an idle stream open with heartbeat comments', async () => {
    const listeners = new Set<() => void>();
    const server = new DashboardServer({ port: 0, model: () => ({}), detail: () => undefined, events: () => [], page: () => '', subscribe: (c) => (listeners.add(c), () => listeners.delete(c)), heartbeatMs: 10 });
    const addr = await server.start();
    stop = () => server.stop();
    const s = open(`http://127.0.0.1:${addr.port}/events`);
    await until(() => s.comments.includes(': heartbeat'), 'a heartbeat comment');
    expect(s.messages).toHaveLength(1);
    s.close();
  });
});

describe('sseMessage', () => {
  it('frames every line of the data as its own data: line and ends with a blank line', () => {
    expect(sseMessage('model', 'a\nb')).toBe('event: model\ndata: a\ndata: b\n\n');
    expect(sseMessage('model', '{"x":1}')).toBe('event: model\ndata: {"x":1}\n\n');
  });
});
