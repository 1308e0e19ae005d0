// A load generator for the webhook benchmark, run as its own process (pinned to another core than the
// server). Two modes:
//   closed: N keep-alive connections, each sending the next review as soon as the last is answered, for T s;
//           reports throughput.
//   rate:   an open loop at a fixed R reviews/s for T s over a pool of N connections opened beforehand;
//           reports latency percentiles measured from when each request was due (a stalled server or
//           generator cannot hide its queueing: no coordinated omission) and from when it was written.
// Usage: node --import tsx bench/webhook-load.ts <closed|rate> <url> <ca-file> <body-file> <connections|rate> <seconds> [connections]
// Prints one JSON line. LOAD_TRACE=<file> also writes one CSV line per request (due, sent, done, in ms).
//
// Why not node:https with an Agent (what this file used before): the Agent opens a new connection whenever
// every pooled one is busy, so a short stall turned into a burst of TLS handshakes on both sides, and the
// extra sockets then idled until the server's keep-alive timeout closed them and the next burst paid again.
// Its latencies were those of connection churn and of the generator's own per-request allocations, not of
// the server. Here the connections are opened and warmed before measuring, a request is one prebuilt buffer
// written once (one TLS record, one segment), the response parser allocates nothing per request unless the
// response is split across reads, and the generator reports its own lateness so that its stalls are
// visible instead of being charged to the server.
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type TLSSocket } from 'node:tls';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';

const [mode, url, caFile, bodyFile, nArg, secondsArg, connArg] = process.argv.slice(2);
if (!mode || !url || !caFile || !bodyFile || !nArg || !secondsArg || (mode !== 'closed' && mode !== 'rate')) {
  process.stderr.write('usage: webhook-load.ts <closed|rate> <url> <ca-file> <body-file> <connections|rate> <seconds> [connections]\n');
  process.exit(2);
}
const target = new URL(url);
const ca = readFileSync(caFile);
const body = readFileSync(bodyFile);
const n = Number(nArg);
const seconds = Number(secondsArg);
const connections = mode === 'closed' ? n : Number(connArg ?? 16);
const request = Buffer.concat([
  Buffer.from(`POST ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, 'latin1'),
  body,
]);

const CRLFCRLF = Buffer.from('\r\n\r\n');

/** One keep-alive connection with at most one request in flight (HTTP/1.1 without pipelining). */
class Conn {
  socket!: TLSSocket;
  busy = false;
  /** Bytes of the current response seen so far, and the total once the head has been parsed. */
  private got = 0;
  private want = -1;
  private status200 = false;
  private head: Buffer[] = [];
  onDone: (ok: boolean) => void = () => {};
  onClose: () => void = () => {};

  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      const s = connect({ host: target.hostname, port: Number(target.port || 443), ca, ALPNProtocols: ['http/1.1'] }, () => resolve());
      // Each request is one write, but Nagle would still hold a write that finds an unacknowledged one in flight.
      s.setNoDelay(true);
      s.on('error', (e) => {
        reject(e);
        if (this.busy) this.finish(false);
      });
      s.on('close', () => {
        if (this.busy) this.finish(false);
        this.onClose();
      });
      s.on('data', (chunk: Buffer) => this.read(chunk));
      this.socket = s;
    });
  }

  send(): void {
    this.busy = true;
    this.got = 0;
    this.want = -1;
    this.socket.write(request);
  }

  private read(chunk: Buffer): void {
    if (!this.busy) return;
    this.got += chunk.length;
    if (this.want < 0) {
      // The head nearly always arrives whole in the first read; only a split one is buffered.
      const buf = this.head.length === 0 ? chunk : Buffer.concat([...this.head, chunk]);
      const end = buf.indexOf(CRLFCRLF);
      if (end < 0) {
        if (this.head.length === 0) this.head.push(chunk);
        else this.head = [buf];
        return;
      }
      this.head.length = 0;
      const headText = buf.toString('latin1', 0, end);
      const m = /\r\ncontent-length:\s*(\d+)/i.exec(headText);
      const ok = headText.startsWith('HTTP/1.1 200');
      if (!m) {
        // Every answer of the webhook has a Content-Length; anything else is a bench failure.
        this.finish(false);
        this.socket.destroy();
        return;
      }
      this.want = end + 4 + Number(m[1]);
      this.got = buf.length;
      this.status200 = ok;
    }
    if (this.got >= this.want) this.finish(this.status200);
  }

  private finish(ok: boolean): void {
    this.busy = false;
    this.onDone(ok);
  }
}

async function openPool(count: number): Promise<Conn[]> {
  const pool: Conn[] = [];
  for (let i = 0; i < count; i++) {
    const c = new Conn();
    await c.open();
    pool.push(c);
  }
  return pool;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

function summary(values: Float64Array): Record<string, number> {
  const s = values.slice().sort();
  return { p50: round(percentile(s, 50)), p90: round(percentile(s, 90)), p99: round(percentile(s, 99)), p999: round(percentile(s, 99.9)), max: round(s[s.length - 1] ?? NaN) };
}

/** The generator's own health: garbage collection pauses and event-loop delay, to tell its stalls from the server's. */
function watchSelf() {
  const waited = () => Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]) / 1e6;
  const waitedBefore = waited();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let gcCount = 0;
  let gcMs = 0;
  let gcMax = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcCount++;
      gcMs += e.duration;
      gcMax = Math.max(gcMax, e.duration);
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  return () => {
    loop.disable();
    obs.disconnect();
    return {
      eventLoopDelayMs: { p50: round(loop.percentile(50) / 1e6), p99: round(loop.percentile(99) / 1e6), max: round(loop.max / 1e6) },
      gc: { count: gcCount, totalMs: round(gcMs), maxMs: round(gcMax) },
      // Time this (main) thread was runnable but waiting for a core: what other processes cost the generator.
      waitedForCoreMs: Math.round(waited() - waitedBefore),
    };
  };
}

/** Warms the server's JIT and the connections' TLS state with a few hundred sequential reviews. */
async function warm(pool: Conn[], count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const c = pool[i % pool.length]!;
    await new Promise<void>((resolve, reject) => {
      c.onDone = (ok) => (ok ? resolve() : reject(new Error('warm-up review failed: is the server answering 200?')));
      c.send();
    });
  }
}

/** Runs with --expose-gc: start measuring with an empty young generation and nothing left over from start-up. */
const collect = () => (globalThis as { gc?: () => void }).gc?.();

async function closed(): Promise<void> {
  const pool = await openPool(n);
  await warm(pool, 200);
  collect();
  const self = watchSelf();
  let done = 0;
  let errors = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    pool.map(
      (c) =>
        new Promise<void>((resolve) => {
          c.onDone = (ok) => {
            if (ok) done++;
            else errors++;
            if (performance.now() < end && !c.socket.destroyed) c.send();
            else resolve();
          };
          c.onClose = () => resolve();
          c.send();
        }),
    ),
  );
  const elapsed = (performance.now() - start) / 1000;
  for (const c of pool) c.socket.destroy();
  process.stdout.write(JSON.stringify({ mode, connections: n, seconds: round(elapsed), requests: done, errors, perSecond: Math.round(done / elapsed), generator: self() }) + '\n');
}

async function rate(): Promise<void> {
  const pool = await openPool(connections);
  await warm(pool, 200);
  const total = Math.round(n * seconds);
  const interval = 1000 / n;
  const due = new Float64Array(total);
  const sent = new Float64Array(total);
  const done = new Float64Array(total);
  const ok = new Uint8Array(total);
  const idle: Conn[] = [...pool];
  /** Requests that were due while every connection was busy, oldest first (they keep their due time). */
  const backlog: number[] = [];
  let maxBacklog = 0;
  let reconnects = 0;
  let finished = 0;
  let next = 0;
  let lateWakes = 0;
  let maxWakeLateMs = 0;
  collect();
  const self = watchSelf();
  const start = performance.now() + 5;
  for (let i = 0; i < total; i++) due[i] = start + i * interval;

  let resolveAll!: () => void;
  const allDone = new Promise<void>((r) => (resolveAll = r));

  const dispatch = (c: Conn, i: number) => {
    c.onDone = (good) => {
      done[i] = performance.now();
      ok[i] = good ? 1 : 0;
      finished++;
      if (c.socket.destroyed) return;
      const waiting = backlog.shift();
      if (waiting !== undefined) dispatch(c, waiting);
      else idle.push(c);
      if (finished === total) resolveAll();
    };
    sent[i] = performance.now();
    c.send();
  };
  for (const c of pool) {
    // A server that closes a kept-alive connection mid-run costs a new handshake; count it, and keep the pool full.
    c.onClose = () => {
      const at = idle.indexOf(c);
      if (at >= 0) idle.splice(at, 1);
      if (finished === total) return;
      reconnects++;
      const fresh = new Conn();
      fresh.onClose = c.onClose;
      fresh.open().then(
        () => {
          const waiting = backlog.shift();
          if (waiting !== undefined) dispatch(fresh, waiting);
          else idle.push(fresh);
        },
        () => {},
      );
    };
  }

  const tick = () => {
    const now = performance.now();
    if (next < total && now - due[next]! > 1.5) {
      lateWakes++;
      maxWakeLateMs = Math.max(maxWakeLateMs, now - due[next]!);
    }
    while (next < total && due[next]! <= now) {
      const c = idle.pop();
      if (c) dispatch(c, next);
      else {
        backlog.push(next);
        if (backlog.length > maxBacklog) maxBacklog = backlog.length;
      }
      next++;
    }
    // Timers, not a busy loop: the generator must not eat the CPU it shares with whatever else runs.
    if (next < total) setTimeout(tick, Math.max(0, due[next]! - performance.now()));
  };
  tick();
  await allDone;
  const selfStats = self();
  const elapsed = (performance.now() - start) / 1000;
  for (const c of idle) c.socket.destroy();
  for (const c of pool) c.socket.destroy();

  const fromDue = new Float64Array(total);
  const fromSend = new Float64Array(total);
  let good = 0;
  for (let i = 0; i < total; i++) {
    if (!ok[i]) continue;
    fromDue[good] = done[i]! - due[i]!;
    fromSend[good] = done[i]! - sent[i]!;
    good++;
  }
  if (process.env.LOAD_TRACE) {
    const lines = ['due_ms,sent_ms,done_ms,ok'];
    for (let i = 0; i < total; i++) lines.push(`${round(due[i]! - start)},${round(sent[i]! - start)},${round(done[i]! - start)},${ok[i]}`);
    writeFileSync(process.env.LOAD_TRACE, lines.join('\n') + '\n');
  }
  process.stdout.write(
    JSON.stringify({
      mode,
      rate: n,
      connections,
      seconds: round(elapsed),
      requests: good,
      errors: total - good,
      achievedPerSecond: Math.round(good / elapsed),
      latencyMsFromDue: summary(fromDue.subarray(0, good)),
      latencyMsFromSend: summary(fromSend.subarray(0, good)),
      maxBacklog,
      reconnects,
      pacer: { wakesLaterThan1_5ms: lateWakes, maxWakeLateMs: round(maxWakeLateMs) },
      generator: selfStats,
    }) + '\n',
  );
}

await (mode === 'closed' ? closed() : rate());
