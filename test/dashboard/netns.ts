/**
 * An address outside loopback for a test, inside a network namespace the test creates itself: the host
 * apiserver's service proxy needs an Endpoints address, and Endpoints refuse loopback. A veth pair joins the
 * namespace (10.213.N.2) to the host (10.213.N.1, on the test's own veth end: without an address there the
 * host has no route back). Connections to 10.213.N.2:port are relayed, through a Unix socket (which every
 * namespace shares), to a loopback port of the host, so the server under test runs unchanged.
 * Needs root (CAP_NET_ADMIN) and `ip`; `netnsMissing()` says why not when it cannot run.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { errorMessage } from '../../src/json/error.js';

export interface NetnsRelay {
  /** The address in the namespace, and the port the relay listens on there. */
  address: string;
  port: number;
  close(): Promise<void>;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** Why no network namespace can be made here, or undefined when it can. */
export function netnsMissing(): string | undefined {
  if (process.getuid?.() !== 0) return 'network namespaces need root (CAP_NET_ADMIN); this test runs as a user';
  const probe = `klp${process.pid}`;
  try {
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
    return undefined;
  } catch (e) {
    return `\`ip netns add\` failed: ${errorMessage(e).trim()}`;
  }
}

// The relay inside the namespace: TCP on the namespace's address to the Unix socket the test listens on.
const RELAY = `
const net = require('node:net');
const [addr, port, sock] = process.argv.slice(1);
net.createServer((c) => { const u = net.connect(sock); c.pipe(u); u.pipe(c); c.on('error', () => u.destroy()); u.on('error', () => c.destroy()); })
  .listen(Number(port), addr, () => process.stdout.write('listening\\n'));
`;

/** A namespace whose address:port reaches 127.0.0.1:`target` on the host. */
export async function netnsRelay(target: number, port = 8090): Promise<NetnsRelay> {
  const n = (process.pid % 250) + 1;
  const ns = `kl-dash-${process.pid}`;
  const [hostEnd, nsEnd] = [`kld${process.pid}h`, `kld${process.pid}n`];
  const [hostAddr, address] = [`10.213.${n}.1`, `10.213.${n}.2`];
  const dir = mkdtempSync(path.join(tmpdir(), 'netns-relay-'));
  const sock = path.join(dir, 'relay.sock');
  let relay: ChildProcess | undefined;
  let server: Server | undefined;
  const close = async () => {
    relay?.kill();
    await new Promise<void>((res) => (server ? server.close(() => res()) : res()));
    for (const args of [['link', 'del', hostEnd], ['netns', 'del', ns]]) {
      try {
        ip(...args);
      } catch {
        // already gone (a half-made namespace)
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    ip('netns', 'add', ns);
    ip('link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', nsEnd);
    ip('link', 'set', nsEnd, 'netns', ns);
    ip('addr', 'add', `${hostAddr}/30`, 'dev', hostEnd);
    ip('link', 'set', hostEnd, 'up');
    ip('-n', ns, 'link', 'set', 'lo', 'up');
    ip('-n', ns, 'addr', 'add', `${address}/30`, 'dev', nsEnd);
    ip('-n', ns, 'link', 'set', nsEnd, 'up');
    server = createServer((u) => {
      const t = createConnection(target, '127.0.0.1');
      u.pipe(t);
      t.pipe(u);
      u.on('error', () => t.destroy());
      t.on('error', () => u.destroy());
    });
    await new Promise<void>((res, rej) => server!.once('error', rej).listen(sock, () => res()));
    relay = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', RELAY, address, String(port), sock], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((res, rej) => {
      let err = '';
      relay!.stderr!.on('data', (d) => (err += d));
      relay!.stdout!.on('data', (d) => String(d).includes('listening') && res());
      relay!.once('exit', (code) => rej(new Error(`the relay in ${ns} exited (${code}): ${err}`)));
    });
    return { address, port, close };
  } catch (e) {
    await close();
    throw e;
  }
}
