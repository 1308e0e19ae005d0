// Fleet reads that never hang, through the real host kube-apiserver and karmada-lite's aggregated server:
// a member that accepts connections and never answers (a Cluster whose apiEndpoint is a loopback listener
// of this test that reads nothing and writes nothing: a frozen apiserver as the network sees it), a Pull
// cluster the cluster proxy cannot reach, Karmada's own kinds, and the host without the aggregated API.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { serveAggregated, type Aggregated } from './aggregated-env.js';
import { cluster } from './env.js';
import { formatDuration } from '../../src/cli/fleet/client.js';
import { scaled } from '../time-scale.js';
import { ignoreConflict, installCrds, registerMembers, rest } from './harness.js';

const ns = `cli-timeout-${Date.now().toString(36)}`;
const host = rest('host');
const members = { member1: rest('member1'), member2: rest('member2') };
const kc = ['--kubeconfig', cluster('host').kubeconfig];
const FROZEN = `frozen-${Date.now().toString(36)}`;
const PULL = `pull-${Date.now().toString(36)}`;
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
// per request: long enough for a healthy member through the aggregator on a loaded machine, short for a test
const TIMEOUT = formatDuration(scaled(3000));
const within = (t: string) => `did not answer within ${t} (--request-timeout`;
let aggregated: Aggregated | undefined;
let blackhole: Server | undefined;
const held: Socket[] = [];

const deployment = (name: string) => ({
  metadata: { name, labels: { app: name } },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
});

beforeAll(async () => {
  await installCrds(host);
  await registerMembers(host);
  blackhole = createServer((socket) => {
    // accepted, never read from or written to: the TLS handshake never completes
    held.push(socket);
    socket.pause();
  });
  await new Promise<void>((resolve) => blackhole!.listen(0, '127.0.0.1', resolve));
  const port = (blackhole.address() as { port: number }).port;
  await host.request('POST', CLUSTERS, {
    body: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: FROZEN }, spec: { apiEndpoint: `https://127.0.0.1:${port}`, syncMode: 'Push', secretRef: { namespace: 'karmada-cluster', name: 'member1' } } },
  });
  await host.request('POST', CLUSTERS, { body: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: PULL }, spec: { syncMode: 'Pull' } } });
  aggregated = await serveAggregated(['cluster.karmada.io/v1alpha1']);
  for (const c of [host, members.member1, members.member2]) await ignoreConflict(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }));
  await members.member1.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('one') });
  await members.member2.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('two') });
});

afterAll(async () => {
  await aggregated?.stop();
  for (const name of [FROZEN, PULL]) await host.request('DELETE', `${CLUSTERS}/${name}`).catch(() => undefined);
  for (const s of held) s.destroy();
  await new Promise<void>((resolve) => (blackhole ? blackhole.close(() => resolve()) : resolve()));
  for (const c of [host, members.member1, members.member2]) await c.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
});

describe('fleet reads with a member that never answers', () => {
  it('get: the answering members are printed, the frozen one named on stderr when --request-timeout is up, the Pull one skipped with a warning; exit 1', async () => {
    const r = await runCli(['get', 'deploy', '-n', ns, '--request-timeout', TIMEOUT, ...kc]);
    const rows = r.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(/\s+/).slice(0, 2).join(' '));
    expect(rows).toEqual(['one member1', 'two member2']);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toContain(`warning: cluster(${PULL}) is a Pull cluster with no spec.apiEndpoint, which the cluster proxy cannot reach, and no ResourceRegistry caches its deployments.apps: skipped`);
    expect(lines.filter((l) => l.startsWith(`error: basic connection test to cluster(${FROZEN}) failed`) && l.includes(within(TIMEOUT)))).toHaveLength(1);
    expect(lines).toHaveLength(2);
    expect(r.code).toBe(1);
  });

  it('-o json: the same partial answer, each member object annotated with its cluster', async () => {
    const r = await runCli(['get', 'deploy', '-n', ns, '-s', 'members', '-o', 'json', `--request-timeout=${TIMEOUT}`, ...kc]);
    expect(r.code).toBe(1);
    const items = JSON.parse(r.stdout).items;
    expect(items.map((o: any) => `${o.metadata.name}@${o.metadata.annotations['resource.karmada.io/cached-from-cluster']}`)).toEqual(['one@member1', 'two@member2']);
    expect(r.stderr).toContain(`cluster(${FROZEN})`);
  });

  it('describe -C, logs -C and exec -C the frozen member end with the timeout (exit 1)', async () => {
    for (const args of [
      ['describe', 'deploy', 'one', '-C', FROZEN],
      ['logs', 'one', '-C', FROZEN],
      ['exec', 'one', '-C', FROZEN],
      // with -c no pod is looked up: the WebSocket upgrade itself waits for the member
      ['exec', 'one', '-C', FROZEN, '-c', 'web'],
    ]) {
      const r = await runCli([...args, '-n', ns, '--request-timeout', TIMEOUT, ...kc, ...(args[0] === 'exec' ? ['--', 'true'] : [])]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^error: /);
      expect(r.stderr).toContain(within(TIMEOUT));
    }
  });

  it('get clusters and other Karmada kinds come from the host only: no member is asked, none fails', async () => {
    const r = await runCli(['get', 'clusters', '--request-timeout', TIMEOUT, ...kc]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const names = r.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(/\s+/).slice(0, 2).join(' '));
    expect(names).toEqual(expect.arrayContaining(['member1 Karmada', 'member2 Karmada', `${FROZEN} Karmada`, `${PULL} Karmada`]));
    // every member (the frozen one too) is left alone: nothing fails, nothing waits for a timeout
    const policies = await runCli(['get', 'propagationpolicies,resourcebindings,works', '-A', '--request-timeout', TIMEOUT, ...kc]);
    expect(policies.code).toBe(0);
    expect(policies.stderr).not.toMatch(/error|cluster\(/);
  });

  it('without the aggregated API, a member read says so instead of NotFound', async () => {
    await aggregated!.stop();
    aggregated = undefined;
    const r = await runCli(['get', 'deploy', '-n', ns, '-C', 'member1', ...kc]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: basic connection test to cluster\(member1\) failed, please check authorization or network: the aggregated API server is not registered: APIService v1alpha1\.cluster\.karmada\.io is served by the host itself/);
    const logs = await runCli(['logs', 'one', '-n', ns, '-C', 'member1', ...kc]);
    expect(logs.stderr).toMatch(/^error: the aggregated API server is not registered: .*deploy\/aggregated-api\/README\.md/);
  });
});
