// `karmada-lite get` against a fake host whose cluster proxy answers as two members would.
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { startFake, type Fake, type FakeCluster } from './fleet-fake.js';
import { parseTargets } from '../../src/cli/fleet/get.js';
import { parseRequestTimeout } from '../../src/cli/client-flags.js';
import { formatDuration } from '../../src/cli/fleet/client.js';
import { scaled } from '../time-scale.js';

const managed = { 'karmada.io/managed': 'true', app: 'web' };
let fake: Fake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function fleet(members: Record<string, FakeCluster> = {}, host: FakeCluster = { deployments: [{ name: 'web', namespace: 'default', labels: { app: 'web' }, ready: '0/3' }] }) {
  fake = await startFake(host, {
    member1: { deployments: [{ name: 'web', namespace: 'default', labels: managed }, { name: 'local', namespace: 'kube-system' }] },
    member2: { deployments: [{ name: 'web', namespace: 'default', labels: managed, ready: '1/1' }] },
    ...members,
  });
  return fake;
}
const get = (...args: string[]) => runCli(['get', ...args, '--kubeconfig', fake!.kubeconfig]);

describe('karmada-lite get', () => {
  it('get deploy -A: the host and every member in one table, CLUSTER after NAME and ADOPTION last', async () => {
    await fleet();
    const r = await get('deploy', '-A');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'NAMESPACE     NAME    CLUSTER   READY   UP-TO-DATE   AVAILABLE   AGE   ADOPTION',
        'default       web     Karmada   0/3     2            2           5m    -',
        'default       web     member1   2/2     2            2           5m    Y',
        'kube-system   local   member1   2/2     2            2           5m    N',
        'default       web     member2   1/1     2            2           5m    Y',
        '',
      ].join('\n'),
    );
    // Human output asks each server for its Table, with the host's credentials, members through the cluster proxy.
    const lists = fake!.requests.filter((q) => q.url.includes('/deployments'));
    expect(lists.map((q) => q.url.split('?')[0]).sort()).toEqual([
      '/apis/apps/v1/deployments',
      '/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy/apis/apps/v1/deployments',
      '/apis/cluster.karmada.io/v1alpha1/clusters/member2/proxy/apis/apps/v1/deployments',
    ]);
    expect(lists.every((q) => q.accept.startsWith('application/json;as=Table;v=v1;g=meta.k8s.io') && q.authorization === 'Bearer fake-token')).toBe(true);
    expect(lists.every((q) => q.url.includes('limit=500'))).toBe(true);
  });

  it('-C limits to the named members (scope members), -o wide adds the servers\' priority columns, -l is passed on', async () => {
    await fleet();
    const r = await get('deployments.apps', '-C', 'member2', '-o', 'wide', '-l', 'app=web');
    expect(r.stdout).toBe('NAME   CLUSTER   READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   ADOPTION\nweb    member2   1/1     2            2           5m    web          Y\n');
    expect(fake!.requests.some((q) => q.url.includes('/clusters/member1/proxy'))).toBe(false);
    expect(fake!.requests.find((q) => q.url.includes('member2/proxy/apis/apps/v1/namespaces/default/deployments'))?.url).toContain('labelSelector=app%3Dweb');
  });

  it('a member that does not answer is reported with karmadactl\'s message; the others are printed; exit 1', async () => {
    await fleet({ member2: { deployments: [], down: 503 } });
    const r = await get('deploy', '-s', 'members');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('NAME   CLUSTER   READY   UP-TO-DATE   AVAILABLE   AGE   ADOPTION\nweb    member1   2/2     2            2           5m    Y\n');
    expect(r.stderr).toBe('error: basic connection test to cluster(member2) failed, please check authorization or network: Error from server (ServiceUnavailable): the member does not answer\n');
  });

  it('--request-timeout: a member that never answers is named on stderr when its time is up, the others are printed; exit 1', async () => {
    await fleet({ member2: { deployments: [], hang: true } });
    // long enough for the answering members on a loaded machine (scaled), short enough for a test
    const timeout = formatDuration(scaled(2000));
    const r = await get('deploy', '-A', '--request-timeout', timeout);
    expect(r.stdout).toBe(
      [
        'NAMESPACE     NAME    CLUSTER   READY   UP-TO-DATE   AVAILABLE   AGE   ADOPTION',
        'default       web     Karmada   0/3     2            2           5m    -',
        'default       web     member1   2/2     2            2           5m    Y',
        'kube-system   local   member1   2/2     2            2           5m    N',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe(
      `error: basic connection test to cluster(member2) failed, please check authorization or network: GET /apis/cluster.karmada.io/v1alpha1/clusters/member2/proxy/api: the server did not answer within ${timeout} (--request-timeout; 0 waits forever)\n`,
    );
    expect(r.code).toBe(1);
    // -o json: the same partial answer, a List of what did come
    const j = await get('deploy', '-s', 'members', '-o', 'json', `--request-timeout=${timeout}`);
    expect(JSON.parse(j.stdout).items.map((o: any) => o.metadata.name)).toEqual(['web']);
    expect(j.stderr).toMatch(/^error: basic connection test to cluster\(member2\) failed.*did not answer within/);
    expect(j.code).toBe(1);
    expect(await get('deploy', '--request-timeout', 'soon')).toMatchObject({ code: 2, stderr: expect.stringContaining('--request-timeout: invalid timeout value "soon"') });
  });

  it('get clusters: Karmada\'s own kinds are read from the host only, whatever the scope; no member is asked', async () => {
    await fleet({}, { deployments: [], karmada: true });
    const r = await get('clusters');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe('NAME      CLUSTER   MODE   ADOPTION\nmember1   Karmada   Push   -\nmember2   Karmada   Push   -\n');
    expect(fake!.requests.some((q) => q.url.includes('/proxy/'))).toBe(false);
    // -s members still finds them on the host; with a member kind beside, only that one goes to the members
    expect((await get('cluster', '-s', 'members', '-o', 'name')).stdout).toBe('cluster.cluster.karmada.io/member1\ncluster.cluster.karmada.io/member2\n');
    const both = await get('clusters,deploy', '-C', 'member1', '-n', 'kube-system');
    expect(both).toMatchObject({ code: 0, stderr: '' });
    expect(both.stdout).toContain('cluster.cluster.karmada.io/member1   Karmada');
    expect(both.stdout).toMatch(/^deployment\.apps\/local\s+member1\s/m);
    expect(fake!.requests.filter((q) => q.url.includes('/proxy/') && q.url.includes('cluster.karmada.io/v1alpha1/clusters?'))).toEqual([]);
  });

  it('a Pull cluster the proxy cannot reach is read through karmada-search\'s cache, or skipped with a named warning (exit 0)', async () => {
    await fleet({ member3: { deployments: [{ name: 'web', namespace: 'default', labels: managed }, { name: 'edge', namespace: 'default' }], pull: true, cached: true }, member4: { deployments: [{ name: 'x', namespace: 'default' }], pull: true } });
    const r = await get('deploy', '-s', 'members');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('warning: cluster(member4) is a Pull cluster with no spec.apiEndpoint, which the cluster proxy cannot reach, and no ResourceRegistry caches its deployments.apps: skipped\n');
    expect(r.stdout).toBe(
      [
        'NAME   CLUSTER   READY   UP-TO-DATE   AVAILABLE   AGE   ADOPTION',
        'web    member1   2/2     2            2           5m    Y',
        'web    member2   1/1     2            2           5m    Y',
        '',
        'NAME   CLUSTER   CREATED AT             ADOPTION',
        'web    member3   2026-12-07T04:00:00Z   Y',
        'edge   member3   2026-12-07T04:00:00Z   N',
        '',
      ].join('\n'),
    );
    expect(fake!.requests.some((q) => q.url.includes('/clusters/member3/proxy') || q.url.includes('/clusters/member4/proxy'))).toBe(false);
    expect((await get('deploy', '-C', 'member3', '-o', 'name')).stdout).toBe('member3/deployment.apps/web\nmember3/deployment.apps/edge\n');
    expect(await get('deploy', 'edge', '-C', 'member3,member4', '-o', 'name')).toMatchObject({ code: 0, stdout: 'member3/deployment.apps/edge\n' });
    expect(await get('deploy', 'gone', '-C', 'member3')).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): deployments.apps "gone" not found\n' });
  });

  it('unknown clusters, an unknown scope and flags that do not go together are usage errors', async () => {
    await fleet();
    expect(await get('deploy', '-C', 'member9,member1')).toMatchObject({ code: 1, stderr: "error: clusters don't exist: member9\n" });
    expect((await get('deploy', '-s', 'everything')).code).toBe(2);
    expect((await get('deploy', '-o', 'json', '--show-labels')).stderr).toContain('--show-labels option cannot be used with json printer');
    expect((await get('deploy', '--output-watch-events')).stderr).toContain('--output-watch-events option can only be used with --watch or --watch-only');
    expect((await get()).code).toBe(2);
    expect(await get('flurble', '-s', 'karmada')).toMatchObject({ code: 1, stderr: 'error: the server doesn\'t have a resource type "flurble"\n' });
  });

  it('a named object: found in one place it prints; found nowhere it is NotFound once (or nothing with --ignore-not-found)', async () => {
    await fleet();
    const one = await get('deploy', 'local', '-n', 'kube-system');
    expect(one).toMatchObject({ code: 0, stderr: '' });
    expect(one.stdout).toMatch(/^local\s+member1\s+2\/2/m);
    expect(await get('deploy', 'nope')).toMatchObject({ code: 1, stdout: '', stderr: 'Error from server (NotFound): deployments.apps "nope" not found\n' });
    expect(await get('deploy', 'nope', '--ignore-not-found')).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('-o json is the objects themselves (kind filled in) as one v1 List; -o name as kubectl', async () => {
    await fleet();
    const r = await get('deploy', '-s', 'members', '-o', 'json');
    const list = JSON.parse(r.stdout);
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    expect(list.items.map((o: any) => `${o.kind} ${o.apiVersion} ${o.metadata.name}`)).toEqual(['Deployment apps/v1 web', 'Deployment apps/v1 web']);
    expect(fake!.requests.filter((q) => q.url.includes('/deployments')).every((q) => q.accept === 'application/json')).toBe(true);
    expect((await get('deploy', '-s', 'karmada', '-o', 'name')).stdout).toBe('deployment.apps/web\n');
    const single = JSON.parse((await get('deploy', 'web', '-C', 'member1', '-o', 'json')).stdout);
    expect(single).toMatchObject({ kind: 'Deployment', metadata: { name: 'web' } });
  });

  it('machine-readable output names each member object\'s cluster: the search cache\'s annotation, -o name\'s prefix, columns and jsonpath read it', async () => {
    await fleet();
    const list = JSON.parse((await get('deploy', '-A', '-o', 'json')).stdout);
    expect(list.items.map((o: any) => `${o.metadata.name}@${o.metadata.annotations?.['resource.karmada.io/cached-from-cluster'] ?? '-'}`)).toEqual(['web@-', 'web@member1', 'local@member1', 'web@member2']);
    expect((await get('deploy', '-A', '-o', 'name')).stdout).toBe('deployment.apps/web\nmember1/deployment.apps/web\nmember1/deployment.apps/local\nmember2/deployment.apps/web\n');
    const yaml = (await get('deploy', 'web', '-C', 'member2', '-o', 'yaml')).stdout;
    expect(yaml).toContain('resource.karmada.io/cached-from-cluster: member2');
    const cols = await get('deploy', '-s', 'members', '-o', 'custom-columns=NAME:.metadata.name,CLUSTER:.metadata.annotations.resource\\.karmada\\.io/cached-from-cluster');
    expect(cols.stdout).toBe('NAME   CLUSTER\nweb    member1\nweb    member2\n');
    const jp = await get('deploy', '-s', 'members', '-o', 'jsonpath={range .items[*]}{.metadata.annotations.resource\\.karmada\\.io/cached-from-cluster}{" "}{end}');
    expect(jp.stdout).toBe('member1 member2 ');
  });

  it('nothing found says so on stderr, in kubectl\'s words', async () => {
    await fleet({}, { deployments: [] });
    expect(await get('deploy', '-n', 'shop', '-s', 'karmada')).toMatchObject({ code: 0, stdout: '', stderr: 'No resources found in shop namespace.\n' });
    expect(await get('deploy', '-A', '-s', 'karmada')).toMatchObject({ code: 0, stdout: '', stderr: 'No resources found\n' });
  });

  it('-w prints the current rows, then each change of every source from its list\'s resourceVersion', async () => {
    await fleet({ member1: { deployments: [{ name: 'web', namespace: 'default', labels: managed }], watchEvents: [{ type: 'MODIFIED', deployment: { name: 'web', namespace: 'default', labels: managed, ready: '3/3' } }] } });
    const r = await get('deploy', '-C', 'member1', '-w', '--output-watch-events');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        'EVENT      NAME   CLUSTER   READY   UP-TO-DATE   AVAILABLE   AGE   ADOPTION',
        'ADDED      web    member1   2/2     2            2           5m    Y',
        'MODIFIED   web    member1   3/3     2            2           5m    Y',
        '',
      ].join('\n'),
    );
    const watch = fake!.requests.find((q) => q.url.includes('watch=1'))!;
    expect(watch.url).toContain('/clusters/member1/proxy/apis/apps/v1/namespaces/default/deployments?');
    expect(watch.url).toContain('resourceVersion=42');
    expect((await get('deploy,pods', '-w')).stderr).toContain('watch is only supported on individual resources');
  });

  it('--raw prints the host\'s answer as it is', async () => {
    await fleet();
    const r = await get('--raw', '/apis/cluster.karmada.io/v1alpha1/clusters');
    expect(JSON.parse(r.stdout).items.map((c: any) => c.metadata.name)).toEqual(['member1', 'member2']);
    expect(await get('--raw', '/nope')).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): the server could not find the requested resource\n' });
  });
});

describe('--request-timeout as kubectl reads it', () => {
  it('whole seconds or a Go duration, 0 for none; printed back as Go prints it', () => {
    expect(['0', '5', '5s', '1m', '1m30s', '500ms', '2h', '1.5s'].map(parseRequestTimeout)).toEqual([0, 5000, 5000, 60_000, 90_000, 500, 7_200_000, 1500]);
    for (const bad of ['', '-1', 'soon', '5 s', '1d']) expect(() => parseRequestTimeout(bad)).toThrow(/--request-timeout: invalid timeout value/);
    expect([500, 1500, 10_000, 60_000, 90_000, 3_600_000].map(formatDuration)).toEqual(['500ms', '1.5s', '10s', '1m0s', '1m30s', '1h0m0s']);
  });
});

describe('parseTargets', () => {
  it('takes TYPE[,TYPE] NAME... and TYPE/NAME... as kubectl does', () => {
    expect(parseTargets(['deploy,po', 'a'])).toEqual([{ type: 'deploy', names: ['a'] }, { type: 'po', names: ['a'] }]);
    expect(parseTargets(['deploy/a', 'deploy/b', 'po/c'])).toEqual([{ type: 'deploy', names: ['a', 'b'] }, { type: 'po', names: ['c'] }]);
    expect(parseTargets(['deploy', 'po/c'])).toMatch(/no need to specify a resource type/);
  });
});
