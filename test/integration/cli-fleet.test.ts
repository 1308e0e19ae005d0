// The fleet CLI through the real host kube-apiserver: its aggregation layer routes
// /apis/cluster.karmada.io/v1alpha1/clusters/<member>/proxy/ to karmada-lite's aggregated server (in this
// process), which forwards to the member as the caller. The CLI holds only the host kubeconfig.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/kube/rest.js';
import { runCli } from '../cli/run-cli.js';
import { serveAggregated, type Aggregated } from './aggregated-env.js';
import { connectHost } from '../../src/cli/fleet/command.js';
import { runGet } from '../../src/cli/fleet/get.js';
import { sourcesFor } from '../../src/cli/fleet/sources.js';
import { cluster, waitFor } from './env.js';
import { ignoreConflict, installCrds, registerMembers, rest } from './harness.js';
import { itWithFleet } from './fleet.js';

const ns = `cli-fleet-${Date.now().toString(36)}`;
const host = rest('host');
const members = { member1: rest('member1'), member2: rest('member2') };
const kc = ['--kubeconfig', cluster('host').kubeconfig];
let aggregated: Aggregated | undefined;

const deployment = (name: string, labels: Record<string, string> = {}) => ({
  metadata: { name, labels: { app: name, ...labels } },
  spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
});

beforeAll(async () => {
  await installCrds(host);
  await registerMembers(host);
  aggregated = await serveAggregated(['cluster.karmada.io/v1alpha1']);
  for (const c of [host, members.member1, members.member2]) await ignoreConflict(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }));
  await host.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('web') });
  await members.member1.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('web', { 'karmada.io/managed': 'true' }) });
  await members.member2.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('local') });
  // A node selector no Node matches: the pod never gets a node, with a scheduler (the kwok fleet) or without.
  await members.member1.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name: 'unscheduled' }, spec: { nodeSelector: { 'karmada-lite.test/no-such-node': 'true' }, containers: [{ name: 'web', image: 'nginx:1.27' }] } } });
});

afterAll(async () => {
  await aggregated?.stop();
  for (const c of [host, members.member1, members.member2]) await c.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
});

describe('karmada-lite get/logs/exec through the host', () => {
  it('get deploy -A lists the host and both members\' Deployments with CLUSTER and ADOPTION', async () => {
    const r = await runCli(['get', 'deploy', '-A', '-l', 'app in (web,local)', ...kc]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAMESPACE\s+NAME\s+CLUSTER\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+ADOPTION$/);
    const rows = lines.slice(1).filter((l) => l.startsWith(ns)).map((l) => l.split(/\s+/));
    expect(rows.map((c) => [c[1], c[2], c[c.length - 1]])).toEqual([
      ['web', 'Karmada', '-'],
      ['web', 'member1', 'Y'],
      ['local', 'member2', 'N'],
    ]);
  });

  it('-C and -o json read only the named member, as its objects', async () => {
    const r = await runCli(['get', 'deployments.apps', '-n', ns, '-C', 'member2', '-o', 'json', ...kc]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.items.map((o: any) => `${o.kind}/${o.metadata.name}`)).toEqual(['Deployment/local']);
    const one = await runCli(['get', 'deploy', 'web', '-n', ns, '-s', 'members', '-o', 'name', ...kc]);
    // a member's object named with its cluster: `-s members` may list several members
    expect(one).toMatchObject({ code: 0, stdout: 'member1/deployment.apps/web\n', stderr: '' });
  });

  it('get -w through the host sees a change made on the member', async () => {
    const host = await connectHost({ kubeconfig: cluster('host').kubeconfig, namespace: ns });
    const sources = await sourcesFor(host.client, 'members', ['member1']);
    const stop = new AbortController();
    let out = '';
    let err = '';
    const req = { targets: [{ type: 'deploy', names: ['web'] }], namespace: ns, allNamespaces: false, wide: false, watch: true, watchOnly: false, outputWatchEvents: true, noHeaders: false, showLabels: false, ignoreNotFound: false };
    const run = runGet(sources, req, { write: (s) => (out += s), error: (s) => (err += s), signal: stop.signal }, true);
    await waitFor('the current row', async () => (/^ADDED\s+web\s+member1\s/m.test(out) ? true : undefined));
    const cur = await members.member1.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`);
    await members.member1.request('PUT', `/apis/apps/v1/namespaces/${ns}/deployments/web`, { body: { ...cur, spec: { ...cur.spec, replicas: 5 } } });
    // READY n/5: on the kwok fleet the member's own controllers start the new replicas meanwhile
    await waitFor('the change', async () => (/^MODIFIED\s+web\s+member1\s+\d\/5\s/m.test(out) ? true : undefined));
    stop.abort();
    expect(await run).toBe(0);
    expect(err).toBe('');
    expect(out.split('\n')[0]).toMatch(/^EVENT\s+NAME\s+CLUSTER\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+ADOPTION$/);
  });

  it('logs of a pod with no node come back as the member answers them: nothing (this kube-apiserver), or its error', async () => {
    // The member itself answers 200 with no body for a pod that has no node, and 400 for a container it lacks.
    expect(await members.member1.request('GET', `/api/v1/namespaces/${ns}/pods/unscheduled/log`)).toBeUndefined();
    let own: ApiError | undefined;
    await members.member1.request('GET', `/api/v1/namespaces/${ns}/pods/unscheduled/log`, { query: { container: 'nope' } }).catch((e: ApiError) => (own = e));
    expect(own?.code).toBe(400);
    expect(await runCli(['logs', 'unscheduled', '-n', ns, '-C', 'member1', ...kc])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const r = await runCli(['logs', 'unscheduled', '-n', ns, '-C', 'member1', '-c', 'nope', ...kc]);
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: 'Error from server (BadRequest): container nope is not valid for pod unscheduled\n' });
  });

  it('exec in that pod is refused by the member, and the refusal comes back through the upgrade', async () => {
    const r = await runCli(['exec', 'unscheduled', '-n', ns, '-C', 'member1', ...kc, '--', 'true']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('Error from server (BadRequest): pod unscheduled does not have a host assigned\n');
  });

  // The kwok fleet runs member1's copy of web: real Pods, whose "kubelet" is kwok on loopback.
  itWithFleet('get pods -C member1 lists the Running Pods its controllers made; logs of one is kwok\'s answer, exec kwok\'s refusal', async () => {
    const pod = await waitFor('a Running Pod of web on member1', async () => {
      const items = (await members.member1.request('GET', `/api/v1/namespaces/${ns}/pods`, { query: { labelSelector: 'app=web' } })).items as any[];
      return items.find((p) => p.status?.phase === 'Running')?.metadata?.name as string | undefined;
    });
    const got = await runCli(['get', 'pods', '-n', ns, '-C', 'member1', ...kc]);
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(new RegExp(`^${pod}\\s+member1\\s+1/1\\s+Running\\s`, 'm'));
    const logs = await runCli(['logs', pod, '-n', ns, '-C', 'member1', ...kc]);
    expect(logs).toMatchObject({ code: 0, stderr: '' });
    expect(logs.stdout).toContain('no container runs on the kwok fleet: kwok plays the kubelet of the Nodes of member1');
    const exec = await runCli(['exec', pod, '-n', ns, '-C', 'member1', ...kc, '--', 'true']);
    expect(exec.code).toBe(1);
    // kwok serves no exec rule here: its refusal, through the member's apiserver and the host
    expect(exec.stderr).toContain(`no exec found for container "web" in pod "${ns}/${pod}"`);
  });

  it('an unknown member is the host\'s NotFound', async () => {
    const r = await runCli(['logs', 'x', '-n', ns, '-C', 'member9', ...kc]);
    expect(r).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): clusters.cluster.karmada.io "member9" not found\n' });
  });
});
