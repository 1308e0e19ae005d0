// The fault injector's TCP proxy (test/integration/faults.ts) in its four modes, against a local echo server.
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FaultProxy } from '../integration/faults.js';

let echo: Server;
let received: string[];
let proxy: FaultProxy;
const clients: Socket[] = [];

beforeEach(async () => {
  received = [];
  echo = createServer((s) => {
    s.on('error', () => undefined);
    s.on('data', (d) => {
      received.push(d.toString());
      s.write(`echo:${d.toString()}`);
    });
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
  proxy = new FaultProxy((echo.address() as AddressInfo).port);
  await proxy.start();
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  await proxy.stop();
  await new Promise<void>((r) => echo.close(() => r()));
});

/** A connection to the proxy whose received bytes and error are collected. */
async function dial(): Promise<{ socket: Socket; text: () => string; error: Promise<NodeJS.ErrnoException>; closed: Promise<void> }> {
  const socket = connect(proxy.port, '127.0.0.1');
  clients.push(socket);
  let text = '';
  socket.on('data', (d) => (text += d.toString()));
  const error = new Promise<NodeJS.ErrnoException>((r) => socket.once('error', r));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  await new Promise<void>((r, j) => socket.once('connect', r).once('error', j));
  return { socket, text: () => text, error, closed };
}

const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
};

describe('FaultProxy', () => {
  it('pass forwards both ways', async () => {
    const c = await dial();
    c.socket.write('ping');
    await until(() => c.text() === 'echo:ping');
    expect(received).toEqual(['ping']);
  });

  it('delay holds every chunk at least delayMs, in order', async () => {
    proxy.set({ mode: 'delay', delayMs: 150 });
    const c = await dial();
    const t0 = performance.now();
    c.socket.write('a');
    await until(() => c.text() === 'echo:a');
    // Both legs are delayed: the answer cannot come sooner than twice the delay.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(300 - 5);
  });

  it('blackhole accepts and never answers, on open and new connections; the held bytes flow once it passes again', async () => {
    const open = await dial();
    open.socket.write('one');
    await until(() => open.text() === 'echo:one');
    proxy.set({ mode: 'blackhole' });
    open.socket.write('two');
    const fresh = await dial();
    fresh.socket.write('three');
    // Accepted (connect resolved) but nothing reaches the server or comes back while blackholed.
    await until(() => proxy.accepted === 2);
    await new Promise((r) => setImmediate(r));
    expect(received).toEqual(['one']);
    expect(open.text()).toBe('echo:one');
    expect(fresh.text()).toBe('');
    proxy.pass();
    await until(() => open.text() === 'echo:oneecho:two' && fresh.text() === 'echo:three');
    expect(received.sort()).toEqual(['one', 'three', 'two']);
  });

  it('reset destroys open connections with RST and resets new ones', async () => {
    const open = await dial();
    open.socket.write('x');
    await until(() => open.text() === 'echo:x');
    proxy.set({ mode: 'reset' });
    expect((await open.error).code).toBe('ECONNRESET');
    const again = connect(proxy.port, '127.0.0.1');
    clients.push(again);
    const err = await new Promise<NodeJS.ErrnoException>((r) => again.once('error', r));
    expect(err.code).toBe('ECONNRESET');
    proxy.pass();
    const back = await dial();
    back.socket.write('y');
    await until(() => back.text() === 'echo:y');
  });
});
