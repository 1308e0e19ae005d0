// `karmada-lite get` against a fake host whose cluster proxy answers as two members would.
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { startFake, type Fake, type FakeCluster } from './fleet-fake.js';
import { parseTargets } from '../../src/cli/fleet/get.js';

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

describe('parseTargets', () => {
  it('takes TYPE[,TYPE] NAME... and TYPE/NAME... as kubectl does', () => {
    expect(parseTargets(['deploy,po', 'a'])).toEqual([{ type: 'deploy', names: ['a'] }, { type: 'po', names: ['a'] }]);
    expect(parseTargets(['deploy/a', 'deploy/b', 'po/c'])).toEqual([{ type: 'deploy', names: ['a', 'b'] }, { type: 'po', names: ['c'] }]);
    expect(parseTargets(['deploy', 'po/c'])).toMatch(/no need to specify a resource type/);
  });
});
