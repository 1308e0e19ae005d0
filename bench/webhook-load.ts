// A load generator for the webhook benchmark, run as its own process (pinned to another core than the
// server). Two modes:
//   closed: N keep-alive connections, each sending the next review as soon as the last is answered, for T s;
//           reports throughput.
//   rate:   an open loop at a fixed R reviews/s for T s over a pool of connections; reports latency
//           percentiles, measured from when each request was due (so a stalled server cannot hide its
//           queueing: no coordinated omission) and from when it was actually written.
// Usage: node --import tsx bench/webhook-load.ts <closed|rate> <url> <ca-file> <body-file> <n-or-rate> <seconds>
// Prints one JSON line.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';

const [mode, url, caFile, bodyFile, nArg, secondsArg] = process.argv.slice(2);
if (!mode || !url || !caFile || !bodyFile || !nArg || !secondsArg) {
  process.stderr.write('usage: webhook-load.ts <closed|rate> <url> <ca-file> <body-file> <connections|rate> <seconds>\n');
  process.exit(2);
}
const target = new URL(url);
const ca = readFileSync(caFile);
const body = readFileSync(bodyFile);
const n = Number(nArg);
const seconds = Number(secondsArg);
const agent = new Agent({ keepAlive: true, maxSockets: mode === 'closed' ? n : 64, ca });

function send(): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': body.length } },
      (res) => {
        let size = 0;
        res.on('data', (c: Buffer) => (size += c.length));
        res.on('end', () => (res.statusCode === 200 && size > 0 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
      },
    );
    req.on('socket', (s) => s.setNoDelay(true));
    req.on('error', reject);
    req.end(body);
  });
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function closed(): Promise<void> {
  // warm up connections and the server's JIT
  await Promise.all(Array.from({ length: n }, send));
  const end = now() + seconds * 1000;
  let done = 0;
  let errors = 0;
  const start = now();
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (now() < end) {
        try {
          await send();
          done++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (now() - start) / 1000;
  process.stdout.write(JSON.stringify({ mode, connections: n, seconds: elapsed, requests: done, errors, perSecond: Math.round(done / elapsed) }) + '\n');
}

async function rate(): Promise<void> {
  for (let i = 0; i < 200; i++) await send();
  const total = Math.round(n * seconds);
  const fromDue: number[] = [];
  const fromSend: number[] = [];
  let errors = 0;
  const pending: Promise<void>[] = [];
  const start = now() + 5;
  let next = 0;
  // Timers, not a busy loop: the generator must not eat the CPU it shares with whatever else runs.
  await new Promise<void>((resolve) => {
    const tick = () => {
      const t = now();
      while (next < total && start + (next * 1000) / n <= t) {
        const due = start + (next * 1000) / n;
        const sent = now();
        next++;
        pending.push(
          send().then(
            () => {
              const end = now();
              fromDue.push(end - due);
              fromSend.push(end - sent);
            },
            () => void errors++,
          ),
        );
      }
      if (next >= total) resolve();
      else setTimeout(tick, Math.max(0, start + (next * 1000) / n - now()));
    };
    tick();
  });
  await Promise.all(pending);
  const elapsed = (now() - start) / 1000;
  fromDue.sort((a, b) => a - b);
  fromSend.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  process.stdout.write(
    JSON.stringify({
      mode,
      rate: n,
      seconds: round(elapsed),
      requests: fromDue.length,
      errors,
      achievedPerSecond: Math.round(fromDue.length / elapsed),
      latencyMsFromDue: { p50: round(percentile(fromDue, 50)), p90: round(percentile(fromDue, 90)), p99: round(percentile(fromDue, 99)), max: round(fromDue[fromDue.length - 1] ?? NaN) },
      latencyMsFromSend: { p50: round(percentile(fromSend, 50)), p90: round(percentile(fromSend, 90)), p99: round(percentile(fromSend, 99)), max: round(fromSend[fromSend.length - 1] ?? NaN) },
    }) + '\n',
  );
}

await (mode === 'closed' ? closed() : rate());
agent.destroy();
