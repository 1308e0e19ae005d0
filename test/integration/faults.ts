// The fault injector the end-to-end tests control (issue 33): per member, a loopback TCP proxy in front of its
// apiserver that passes, delays, blackholes or resets; SIGSTOP/SIGCONT and kill/restart of a member's
// kube-apiserver; and a proxied Cluster object, so that the controller reaches the member only through the
// proxy. The proxy works at the TCP level, so TLS stays end to end (the serving certificates name 127.0.0.1).
import { spawn } from 'node:child_process';
import { openSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { RestClient } from '../../src/kube/rest.js';
import { get, ignoreConflict, waitFor, type ClusterInfo } from './k8s-env.js';

/**
 * What the proxy does with traffic:
 * - pass: bytes flow both ways;
 * - delay: every chunk, either way, is held `delayMs` before it is forwarded (order kept);
 * - blackhole: connections are accepted and never answered; open ones stop getting bytes either way, as on a
 *   partitioned link (nothing is closed, so a client without a timeout waits forever). Bytes sent meanwhile are
 *   held, not lost: they flow once the proxy passes again, as TCP delivers them when a partition heals;
 * - reset: open connections are destroyed with a TCP RST, and new ones are reset as soon as they arrive.
 */
export type FaultMode = { mode: 'pass' } | { mode: 'delay'; delayMs: number } | { mode: 'blackhole' } | { mode: 'reset' };

interface Link {
  client: Socket;
  upstream?: Socket;
}

/** A loopback TCP proxy in front of `127.0.0.1:target`, in one FaultMode at a time (`set`). */
export class FaultProxy {
  private server?: Server;
  private readonly links = new Set<Link>();
  private current: FaultMode = { mode: 'pass' };
  /** While blackholing: what held chunks wait for, and its release. */
  private gate?: Promise<void>;
  private release?: () => void;
  /** Connections accepted since the proxy started, whatever happened to them (a test's evidence that a client came). */
  accepted = 0;

  constructor(private readonly target: number) {}

  /** Starts listening on a free loopback port (or `port`); resolves with it. */
  async start(port = 0): Promise<number> {
    if (this.server) return this.port;
    const server = createServer((c) => this.accept(c));
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
    this.server = server;
    return this.port;
  }

  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? 0;
  }

  get endpoint(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  get mode(): FaultMode {
    return this.current;
  }

  /** Switches mode; open connections follow at once (reset destroys them, blackhole freezes them). */
  set(mode: FaultMode): void {
    this.current = mode;
    for (const l of this.links) this.apply(l);
    if (mode.mode !== 'blackhole' && this.release) {
      this.release();
      this.gate = this.release = undefined;
    }
  }

  pass(): void {
    this.set({ mode: 'pass' });
  }

  async stop(): Promise<void> {
    for (const l of this.links) destroyBoth(l);
    this.links.clear();
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.accepted++;
    client.on('error', () => undefined);
    if (this.current.mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const link: Link = { client };
    this.links.add(link);
    const upstream = connect(this.target, '127.0.0.1');
    link.upstream = upstream;
    upstream.on('error', () => undefined);
    const drop = () => {
      this.links.delete(link);
      destroyBoth(link);
    };
    client.on('close', drop);
    upstream.on('close', drop);
    this.forward(client, upstream);
    this.forward(upstream, client);
    this.apply(link);
  }

  /** Bytes from `from` to `to`, by the mode at the time each chunk arrives. */
  private forward(from: Socket, to: Socket): void {
    // One chain per direction keeps the order; a delayed chunk is due `delayMs` after it arrived.
    let chain = Promise.resolve();
    from.on('data', (chunk: Buffer) => {
      const m = this.current;
      if (m.mode === 'reset') return;
      const due = Date.now() + (m.mode === 'delay' ? m.delayMs : 0);
      chain = chain
        .then(() => this.opened())
        .then(() => new Promise<void>((r) => setTimeout(r, Math.max(0, due - Date.now()))))
        .then(() => void (to.destroyed || to.write(chunk)));
    });
  }

  /** Resolves once the proxy is not blackholing: bytes held meanwhile go on then, as TCP delivers them after a partition heals. */
  private opened(): Promise<void> {
    if (this.current.mode !== 'blackhole') return Promise.resolve();
    this.gate ??= new Promise<void>((r) => (this.release = r));
    return this.gate;
  }

  private apply(link: Link): void {
    const m = this.current.mode;
    if (m === 'reset') {
      this.links.delete(link);
      link.client.resetAndDestroy();
      link.upstream?.resetAndDestroy();
      return;
    }
    // Blackholed sockets stop reading, so the peers' writes back up as on a link that drops everything.
    for (const s of [link.client, link.upstream]) {
      if (!s) continue;
      if (m === 'blackhole') s.pause();
      else s.resume();
    }
  }
}

function destroyBoth(l: Link): void {
  l.client.destroy();
  l.upstream?.destroy();
}

/** The pid in a member's pid file (scripts/k8s/env.sh writes it). */
export function apiserverPid(info: ClusterInfo): number {
  const pid = Number(readFileSync(info.pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${info.pidFile} does not hold a pid`);
  return pid;
}

/**
 * SIGSTOP of a member's kube-apiserver: its sockets stay open and nothing answers. Returns the thaw
 * (SIGCONT), also registered for the process' exit so that a failed test never leaves a member frozen.
 */
export function freeze(info: ClusterInfo): () => void {
  const pid = apiserverPid(info);
  let frozen = true;
  const thaw = () => {
    if (!frozen) return;
    frozen = false;
    process.off('exit', thaw);
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // gone already
    }
  };
  process.on('exit', thaw);
  process.kill(pid, 'SIGSTOP');
  return thaw;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
};

/**
 * A member's kube-apiserver killed (SIGKILL: no graceful shutdown, connections die) with what it needs to
 * start again the same way: its command line, folder and log, read from /proc before the kill. `restart()`
 * starts it again and writes the new pid into its pid file (so that `env.sh stop` still stops it), then waits
 * until it answers /readyz. Its data is in the shared etcd, so nothing is lost.
 */
export async function killApiserver(info: ClusterInfo): Promise<{ restart: (client: RestClient) => Promise<void> }> {
  const pid = apiserverPid(info);
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  const cwd = readlinkSync(`/proc/${pid}/cwd`);
  process.kill(pid, 'SIGKILL');
  await waitFor(`kube-apiserver ${info.name} (pid ${pid}) gone`, async () => (alive(pid) ? undefined : true), 10_000, 50);
  return {
    async restart(client: RestClient) {
      const out = openSync(info.log, 'a');
      const child = spawn(argv[0]!, argv.slice(1), { cwd, detached: true, stdio: ['ignore', out, out] });
      child.unref();
      writeFileSync(info.pidFile, `${child.pid}\n`);
      await waitFor(`kube-apiserver ${info.name} ready again`, async () => ((await client.request('GET', '/readyz').catch(() => undefined)) !== undefined ? true : undefined), 60_000);
    },
  };
}

const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';

/**
 * A push-mode Cluster `name` whose apiEndpoint is the proxy, with the credentials of an already registered
 * member (its Secret in karmada-cluster, e.g. `member1`): the controller reaches that member through the
 * proxy only. Idempotent; returns a function that deletes the Cluster.
 */
export async function joinThroughProxy(host: RestClient, name: string, proxy: FaultProxy, credentialsOf: string): Promise<() => Promise<void>> {
  await ignoreConflict(
    host.request('POST', CLUSTERS, {
      body: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: { apiEndpoint: proxy.endpoint, syncMode: 'Push', secretRef: { namespace: 'karmada-cluster', name: credentialsOf } } },
    }),
  );
  return async () => {
    await host.request('DELETE', `${CLUSTERS}/${name}`).catch(() => undefined);
  };
}

/** The Cluster's Ready condition status ('True', 'False', 'Unknown'), undefined before the first probe. */
export async function clusterReady(host: RestClient, name: string): Promise<string | undefined> {
  const c = await get(host, `${CLUSTERS}/${name}`);
  return ((c?.status?.conditions ?? []) as Array<{ type: string; status: string }>).find((x) => x.type === 'Ready')?.status;
}

/** A proxy on a free loopback port in front of a member's apiserver, started. */
export async function proxyFor(info: ClusterInfo): Promise<FaultProxy> {
  const p = new FaultProxy(info.port);
  await p.start();
  return p;
}
