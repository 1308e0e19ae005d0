import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { CacheSourceAnnotation } from '../../src/api/constants.js';
import { requestInfo } from '../../src/apiserver/request-info.js';
import { statusBody, StatusError } from '../../src/apiserver/status.js';
import type { ApiHandler } from '../../src/apiserver/types.js';
import type { Upstream } from '../../src/apiserver/upstream.js';
import { decodeContinue, decodeMultiClusterRV, encodeMultiClusterRV } from '../../src/search/encoding.js';
import { rewriteUpdateBody, searchHandlers } from '../../src/search/handlers.js';
import { cluster, fleet, registry, until } from './fixtures.js';

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** The handlers behind a plain HTTP server, as the aggregated server calls them (user resolved, errors as Status). */
async function serve(handlers: ApiHandler[]): Promise<string> {
  const server = createServer((req, res) => {
    const h = handlers.find((x) => (req.url ?? '').startsWith(x.prefix));
    const ac = new AbortController();
    res.once('close', () => ac.abort());
    Promise.resolve(h!.handle(req, res, { user: { name: 'alice', groups: ['dev', 'system:authenticated'], extra: {} }, info: requestInfo(req.method ?? 'GET', req.url ?? '/'), signal: ac.signal })).catch((e) => {
      const code = e instanceof StatusError ? e.code : 500;
      res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(statusBody(code, e.message)));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function get(url: string, init?: RequestInit): Promise<{ status: number; body: any; headers: Headers }> {
  const r = await fetch(url, init);
  const text = await r.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: r.status, body, headers: r.headers };
}

/** A watch's events as they arrive; `done` settles when the server ends the stream. */
function watchEvents(url: string): { events: any[]; done: Promise<void>; stop: () => void } {
  const events: any[] = [];
  let stop = () => {};
  const done = new Promise<void>((resolve) => {
    const req = request(url, (res: IncomingMessage) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          events.push(JSON.parse(buf.slice(0, nl)));
          buf = buf.slice(nl + 1);
        }
      });
      res.on('end', resolve);
    });
    req.on('error', () => resolve());
    req.end();
    stop = () => req.destroy();
  });
  return { events, done, stop };
}

const deploy = (ns: string, name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: ns, name, labels } });

async function setup(registries = [registry('r', {}, [{ apiVersion: 'apps/v1', kind: 'Deployment' }])]) {
  const f = fleet(['member1', 'member2']);
  f.members.get('member1')!.apply('deployments', deploy('default', 'web', { app: 'web' }));
  f.members.get('member1')!.apply('deployments', deploy('kube-system', 'dns', { app: 'dns' }));
  f.members.get('member2')!.apply('deployments', deploy('default', 'api', { app: 'api' }));
  f.cache.update(registries, [cluster('member1'), cluster('member2')]);
  await until(() => f.cache.entries().length > 0 && f.cache.entries().every((e) => e.phase === 'Cached'));
  return f;
}

const SEARCH = '/apis/search.karmada.io/v1alpha1/search/cache';
const PROXY = '/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy';

describe('search API', () => {
  it('lists every cluster\'s objects as a Kubernetes List, each annotated with its cluster', async () => {
    const { cache } = await setup();
    const base = await serve(searchHandlers({ cache }).handlers);
    const r = await get(base + SEARCH + '/apis/apps/v1/deployments');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.body).toMatchObject({ kind: 'DeploymentList', apiVersion: 'apps/v1' });
    expect(r.body.items.map((i: any) => `${i.metadata.annotations[CacheSourceAnnotation]}:${i.metadata.namespace}/${i.metadata.name}`).sort()).toEqual(['member1:default/web', 'member1:kube-system/dns', 'member2:default/api']);
    cache.close();
  });

  it('selects by labels, metadata.name and metadata.namespace, by path namespace, and pages with limit/continue', async () => {
    const { cache } = await setup();
    const base = await serve(searchHandlers({ cache }).handlers);
    const names = (r: any) => r.body.items.map((i: any) => i.metadata.name).sort();
    expect(names(await get(base + SEARCH + '/apis/apps/v1/deployments?labelSelector=app%20in%20(web,api)'))).toEqual(['api', 'web']);
    expect(names(await get(base + SEARCH + '/apis/apps/v1/deployments?fieldSelector=metadata.name=dns'))).toEqual(['dns']);
    expect(names(await get(base + SEARCH + '/apis/apps/v1/deployments?fieldSelector=metadata.namespace!=default'))).toEqual(['dns']);
    expect(names(await get(base + SEARCH + '/apis/apps/v1/namespaces/default/deployments'))).toEqual(['api', 'web']);
    const p1 = await get(base + SEARCH + '/apis/apps/v1/deployments?limit=2');
    expect(p1.body.items).toHaveLength(2);
    expect(decodeContinue(p1.body.metadata.continue)?.cluster).toBe('member2');
    const p2 = await get(base + SEARCH + `/apis/apps/v1/deployments?limit=2&continue=${p1.body.metadata.continue}`);
    expect(p2.body.items.map((i: any) => i.metadata.name)).toEqual(['api']);
    expect(p2.body.metadata.continue).toBeUndefined();
    cache.close();
  });

  it('returns non-ASCII text byte for byte (objects are held as their UTF-8 bytes)', async () => {
    const { cache, members } = await setup();
    members.get('member1')!.apply('deployments', { ...deploy('default', 'intl'), metadata: { namespace: 'default', name: 'intl', annotations: { note: 'café ✓ 日本' } } });
    const base = await serve(searchHandlers({ cache }).handlers);
    const r = await get(base + SEARCH + '/apis/apps/v1/deployments?fieldSelector=metadata.name=intl');
    expect(r.body.items[0].metadata.annotations.note).toBe('café ✓ 日本');
    const g = await get(base + PROXY + '/apis/apps/v1/namespaces/default/deployments/intl');
    expect(g.body.metadata.annotations.note).toBe('café ✓ 日本');
    cache.close();
  });

  it('answers Karmada\'s errors: bad selector 400 {"error"}, not a resource request 500, unknown category 500, POST 405', async () => {
    const { cache } = await setup();
    const base = await serve(searchHandlers({ cache }).handlers);
    const bad = await get(base + SEARCH + '/apis/apps/v1/deployments?fieldSelector=spec.replicas=1');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('spec.replicas');
    expect((await get(base + SEARCH + '/version')).body.message).toBe('k8s native Request URL(/version) is not a resource request');
    expect((await get(base + '/apis/search.karmada.io/v1alpha1/search/other/api/v1/pods')).body.message).toBe('connect with unrecognized search category other');
    expect((await get(base + SEARCH + '/api/v1/pods', { method: 'POST' })).status).toBe(405);
    cache.close();
  });

  it('still lists the other clusters when one member does not answer, with a Warning naming it', async () => {
    const { cache, members } = await setup();
    const base = await serve(searchHandlers({ cache }).handlers);
    members.get('member2')!.fail();
    const r = await get(base + SEARCH + '/apis/apps/v1/deployments');
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(3);
    expect(r.headers.get('warning')).toMatch(/^299 karmada-search "cluster member2 is stale since .*connection refused/);
    cache.close();
  });
});

describe('proxy API', () => {
  it('lists with a multi-cluster resourceVersion, pages across clusters, and reads Karmada\'s continue token back', async () => {
    const { cache } = await setup();
    const base = await serve(searchHandlers({ cache }).handlers);
    const all = await get(base + PROXY + '/apis/apps/v1/deployments');
    expect(all.body.kind).toBe('DeploymentList');
    const rv = decodeMultiClusterRV(all.body.metadata.resourceVersion);
    expect([...rv.byCluster.keys()]).toEqual(['member1', 'member2']);
    // item resourceVersions stay the member's (spec 5.5 step 7)
    expect(all.body.items[0].metadata.resourceVersion).toMatch(/^\d+$/);
    const p1 = await get(base + PROXY + '/apis/apps/v1/deployments?limit=1');
    expect(p1.body.items.map((i: any) => i.metadata.name)).toEqual(['web']);
    const token = decodeContinue(p1.body.metadata.continue)!;
    expect(token).toMatchObject({ cluster: 'member1', rv: p1.body.metadata.resourceVersion });
    const p2 = await get(base + PROXY + `/apis/apps/v1/deployments?limit=1&continue=${p1.body.metadata.continue}`);
    expect(p2.body.items.map((i: any) => i.metadata.name)).toEqual(['dns']);
    const p3 = await get(base + PROXY + `/apis/apps/v1/deployments?limit=1&continue=${p2.body.metadata.continue}`);
    expect(p3.body.items.map((i: any) => i.metadata.name)).toEqual(['api']);
    expect(p3.body.metadata.continue).toBeUndefined();
    cache.close();
  });

  it('gets by name with a one-cluster resourceVersion; NotFound; Conflict when two clusters hold the name', async () => {
    const { cache, members } = await setup();
    const base = await serve(searchHandlers({ cache }).handlers);
    const r = await get(base + PROXY + '/apis/apps/v1/namespaces/default/deployments/web');
    expect(r.body.metadata.annotations[CacheSourceAnnotation]).toBe('member1');
    expect([...decodeMultiClusterRV(r.body.metadata.resourceVersion).byCluster.keys()]).toEqual(['member1']);
    expect((await get(base + PROXY + '/apis/apps/v1/namespaces/default/deployments/nope')).body).toMatchObject({ code: 404, message: 'deployments.apps "nope" not found' });
    members.get('member2')!.apply('deployments', deploy('default', 'web'));
    const c = await get(base + PROXY + '/apis/apps/v1/namespaces/default/deployments/web');
    expect(c.body).toMatchObject({ code: 409, message: 'Operation cannot be fulfilled on deployments "web": ambiguous objects in clusters [member1, member2]' });
    cache.close();
  });

  it('answers kubectl\'s Table request with the default NAME / CREATED AT table', async () => {
    const { cache } = await setup();
    const base = await serve(searchHandlers({ cache }).handlers);
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const r = await get(base + PROXY + '/apis/apps/v1/deployments?limit=500', { headers: { accept } });
    expect(r.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(r.body.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Created At']);
    expect(r.body.rows.map((row: any) => row.cells[0])).toEqual(['web', 'dns', 'api']);
    expect(r.body.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'web', annotations: { [CacheSourceAnnotation]: 'member1' } } });
    expect(r.body.metadata.resourceVersion).toBeTruthy();
    cache.close();
  });

  it('serves only the namespaces a registry names', async () => {
    const { cache } = await setup([registry('r', {}, [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default' }])]);
    const base = await serve(searchHandlers({ cache }).handlers);
    expect((await get(base + PROXY + '/apis/apps/v1/deployments')).body.items.map((i: any) => i.metadata.name).sort()).toEqual(['api', 'web']);
    expect((await get(base + PROXY + '/apis/apps/v1/namespaces/kube-system/deployments/dns')).status).toBe(404);
    // the search API caches every namespace whatever the registry says (spec 4.3)
    expect((await get(base + SEARCH + '/apis/apps/v1/deployments')).body.items).toHaveLength(3);
    cache.close();
  });

  it('watches every cluster, each event carrying the running multi-cluster resourceVersion, and resumes from it', async () => {
    const { cache, members } = await setup();
    const base = await serve(searchHandlers({ cache }).handlers);
    const list = await get(base + PROXY + '/apis/apps/v1/deployments');
    const { events, done } = watchEvents(base + PROXY + `/apis/apps/v1/deployments?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`);
    await until(() => cache.entriesFor('apps', 'v1', 'deployments').every((e) => e.store!.watchers === 1));
    members.get('member2')!.apply('deployments', deploy('default', 'api', { app: 'api', v: '2' }));
    await until(() => events.length === 1);
    expect(events[0]).toMatchObject({ type: 'MODIFIED', object: { metadata: { name: 'api', annotations: { [CacheSourceAnnotation]: 'member2' } } } });
    const running = decodeMultiClusterRV(events[0].object.metadata.resourceVersion);
    const listed = decodeMultiClusterRV(list.body.metadata.resourceVersion);
    expect(running.byCluster.get('member1')).toBe(listed.byCluster.get('member1'));
    expect(Number(running.byCluster.get('member2'))).toBeGreaterThan(Number(listed.byCluster.get('member2')));
    members.get('member2')!.apply('deployments', deploy('default', 'x'));
    cache.closeWatches();
    await done;
    // a reconnect from the last event's resourceVersion replays what came after it, and nothing before
    const again = await new Promise<any[]>((resolve) => {
      const req = request(base + PROXY + `/apis/apps/v1/deployments?watch=true&resourceVersion=${events[0].object.metadata.resourceVersion}&timeoutSeconds=1`, (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (buf += c));
        res.on('end', () => resolve(buf.split('\n').filter(Boolean).map((l) => JSON.parse(l))));
      });
      req.end();
    });
    expect(again.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED x']);
    cache.close();
  });

  it('turns a label change into DELETED when the object leaves a label-filtered watch and ADDED when it comes in, as the watch cache does', async () => {
    const { cache, members } = await setup();
    const base = await serve(searchHandlers({ cache }).handlers);
    const list = await get(base + PROXY + '/apis/apps/v1/deployments?labelSelector=tier%3Dfront');
    expect(list.body.items).toEqual([]);
    const { events, stop } = watchEvents(base + PROXY + `/apis/apps/v1/deployments?watch=true&labelSelector=tier%3Dfront&resourceVersion=${list.body.metadata.resourceVersion}`);
    await until(() => cache.entriesFor('apps', 'v1', 'deployments').every((e) => e.store!.watchers === 1));
    const m1 = members.get('member1')!;
    m1.apply('deployments', deploy('default', 'web', { app: 'web', tier: 'front' }));
    await until(() => events.length === 1);
    m1.apply('deployments', deploy('default', 'web', { app: 'web', tier: 'front', v: '2' }));
    await until(() => events.length === 2);
    m1.apply('deployments', deploy('default', 'web', { app: 'web', tier: 'back' }));
    await until(() => events.length === 3);
    // a change that neither matched before nor matches now is not sent; the next one that matches is
    m1.apply('deployments', deploy('default', 'web', { app: 'web', tier: 'middle' }));
    members.get('member2')!.apply('deployments', deploy('default', 'api', { app: 'api', tier: 'front' }));
    await until(() => events.length === 4);
    stop();
    expect(events.map((e) => `${e.type} ${e.object.metadata.name} ${e.object.metadata.labels.tier}`)).toEqual(['ADDED web front', 'MODIFIED web front', 'DELETED web front', 'ADDED api front']);
    // the DELETED carries the object as last seen matching, at the resourceVersion of the change that took it out
    const rvs = events.map((e) => decodeMultiClusterRV(e.object.metadata.resourceVersion).byCluster.get('member1'));
    expect(Number(rvs[2])).toBeGreaterThan(Number(rvs[1]));
    expect(events[2].object.metadata.labels.v).toBe('2');
    cache.close();
  });

  it('refuses a create on a collection, and sends writes to the owning member as the caller through the cluster proxy', async () => {
    const { cache } = await setup();
    const seen: Array<{ url: string; body: string; user: string }> = [];
    const clusterProxy: ApiHandler = {
      prefix: '/apis/cluster.karmada.io/v1alpha1/clusters/',
      async handle(req, res, ctx) {
        let body = '';
        for await (const c of req) body += c;
        seen.push({ url: req.url!, body, user: ctx.user.name });
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      },
    };
    const base = await serve(searchHandlers({ cache, clusterProxy }).handlers);
    const post = await get(base + PROXY + '/apis/apps/v1/namespaces/default/deployments', { method: 'POST', body: '{}' });
    expect(post.body).toMatchObject({ code: 405, message: 'create is not supported on resources of kind "deployments.apps"' });
    const cur = await get(base + PROXY + '/apis/apps/v1/namespaces/default/deployments/api');
    const put = await get(base + PROXY + '/apis/apps/v1/namespaces/default/deployments/api?fieldManager=x', { method: 'PUT', body: JSON.stringify(cur.body) });
    expect(put.status).toBe(200);
    expect(seen[0]!.url).toBe('/apis/cluster.karmada.io/v1alpha1/clusters/member2/proxy/apis/apps/v1/namespaces/default/deployments/api?fieldManager=x');
    expect(seen[0]!.user).toBe('alice');
    const sent = JSON.parse(seen[0]!.body);
    expect(sent.metadata.annotations?.[CacheSourceAnnotation]).toBeUndefined();
    expect(sent.metadata.resourceVersion).toMatch(/^\d+$/);
    cache.close();
  });

  it('sends an upgrade (exec) of a registered kind\'s named object to its member through the cluster proxy', async () => {
    const { cache } = await setup([registry('r', {}, [{ apiVersion: 'v1', kind: 'Pod' }])]);
    cache.entriesFor('', 'v1', 'pods')[1]!.store!.upsert({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'default', name: 'p', resourceVersion: '1' } });
    const seen: string[] = [];
    const clusterProxy: ApiHandler = { prefix: '/apis/cluster.karmada.io/v1alpha1/clusters/', handle: () => {}, upgrade: (req, _s, _h, ctx) => void seen.push(`${req.url} ${ctx.info.name}/${ctx.info.subresource}`) };
    const proxy = searchHandlers({ cache, clusterProxy }).handlers[1]!;
    const req = { method: 'GET', url: PROXY + '/api/v1/namespaces/default/pods/p/exec?command=sh', headers: {} } as IncomingMessage;
    const ctx = { user: { name: 'alice', groups: [], extra: {} }, info: requestInfo('GET', req.url!), signal: new AbortController().signal };
    await proxy.upgrade!(req, undefined as never, Buffer.alloc(0), ctx);
    expect(seen).toEqual(['/apis/cluster.karmada.io/v1alpha1/clusters/member2/proxy/api/v1/namespaces/default/pods/p/exec?command=sh member2/proxy']);
    await expect(proxy.upgrade!({ ...req, url: PROXY + '/api/v1/namespaces/default/services/s/proxy' } as IncomingMessage, undefined as never, Buffer.alloc(0), ctx)).rejects.toThrow('does not support connection upgrades');
    cache.close();
  });

  it('forwards what is not registered to the host, impersonating the caller', async () => {
    const { cache } = await setup();
    const hostSeen: Array<{ url: string; headers: Record<string, unknown> }> = [];
    const host = createServer((req, res) => {
      hostSeen.push({ url: req.url!, headers: req.headers });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"kind":"APIVersions"}');
    });
    servers.push(host);
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
    const port = (host.address() as AddressInfo).port;
    const upstream: Upstream = { options: async (method, path, headers) => ({ method, protocol: 'http:', hostname: '127.0.0.1', port, path, headers }) };
    const base = await serve(searchHandlers({ cache, host: upstream }).handlers);
    const r = await get(base + PROXY + '/api?timeout=32s', { headers: { authorization: 'Bearer stolen' } });
    expect(r.body.kind).toBe('APIVersions');
    expect(hostSeen[0]!.url).toBe('/api?timeout=32s');
    expect(hostSeen[0]!.headers['impersonate-user']).toBe('alice');
    expect(hostSeen[0]!.headers['impersonate-group']).toBe('dev');
    expect(hostSeen[0]!.headers.authorization).toBeUndefined();
    cache.close();
  });
});

describe('rewriteUpdateBody', () => {
  const rv = encodeMultiClusterRV({ zero: false, byCluster: new Map([['m1', '7'], ['m2', '9']]) });
  it('puts back the member resourceVersion and drops the cache annotation; leaves other bodies alone', () => {
    const out = JSON.parse(rewriteUpdateBody(Buffer.from(JSON.stringify({ metadata: { resourceVersion: rv, annotations: { [CacheSourceAnnotation]: 'm2', keep: 'x' } } })), 'm2', 'application/json').toString());
    expect(out.metadata).toEqual({ resourceVersion: '9', annotations: { keep: 'x' } });
    const notJson = Buffer.from('not json');
    expect(rewriteUpdateBody(notJson, 'm2', 'application/json')).toBe(notJson);
    const plain = Buffer.from(JSON.stringify({ metadata: { resourceVersion: '5' } }));
    expect(rewriteUpdateBody(plain, 'm2', 'application/json')).toBe(plain);
  });

  it('rewrites a YAML body as YAML', () => {
    const body = Buffer.from(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  resourceVersion: "${rv}"\n  annotations:\n    ${CacheSourceAnnotation}: m2\ndata:\n  k: café\n`);
    const out = parseYaml(rewriteUpdateBody(body, 'm2', 'application/yaml').toString('utf8'));
    expect(out).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', resourceVersion: '9', annotations: {} }, data: { k: 'café' } });
  });

  it('rewrites a protobuf body field by field, every other byte as sent', () => {
    const entry = (k: string, v: string) => field(12, Buffer.concat([field(1, k), field(2, v)]));
    const data = field(2, Buffer.concat([field(1, 'bin'), field(2, Buffer.from([0xff, 0x80, 0x00, 0xc3]))]));
    const object = (meta: Buffer) => Buffer.concat([Buffer.from('k8s\0'), field(1, Buffer.concat([field(1, 'v1'), field(2, 'ConfigMap')])), field(2, Buffer.concat([field(1, meta), data])), field(4, '')]);
    const sent = object(Buffer.concat([field(1, 'cm'), field(6, rv), entry(CacheSourceAnnotation, 'm2'), entry('keep', 'x')]));
    expect(rewriteUpdateBody(sent, 'm2', 'application/vnd.kubernetes.protobuf')).toEqual(object(Buffer.concat([field(1, 'cm'), field(6, '9'), entry('keep', 'x')])));
    // Nothing of the cache's: the very same bytes. Not protobuf at all: the same too.
    const own = object(Buffer.concat([field(1, 'cm'), field(6, '9')]));
    expect(rewriteUpdateBody(own, 'm2', 'application/vnd.kubernetes.protobuf')).toBe(own);
    const junk = Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x12, 0x7f]);
    expect(rewriteUpdateBody(junk, 'm2', 'application/vnd.kubernetes.protobuf')).toBe(junk);
  });

  it('passes CBOR and other bodies it does not decode as they came', () => {
    const cbor = Buffer.from([0xd9, 0xd9, 0xf7, 0xa1, 0x64, 0x6b, 0x69, 0x6e, 0x64, 0x62, 0xff, 0xfe]);
    expect(rewriteUpdateBody(cbor, 'm2', 'application/cbor')).toBe(cbor);
  });
});

/** A length-delimited protobuf field (numbers and lengths below 128 here). */
function field(num: number, payload: string | Buffer): Buffer {
  const b = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return Buffer.concat([Buffer.from([num * 8 + 2, b.length]), b]);
}

describe('proxy API: bodies are bytes', () => {
  it('sends an update in any encoding to the member byte for byte when the cache has nothing to take off', async () => {
    const { cache } = await setup();
    const seen: Buffer[] = [];
    const clusterProxy: ApiHandler = {
      prefix: '/apis/cluster.karmada.io/v1alpha1/clusters/',
      async handle(req, res) {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        seen.push(Buffer.concat(chunks));
        res.writeHead(200, { 'Content-Type': 'application/vnd.kubernetes.protobuf' }).end(Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xfe]));
      },
    };
    const base = await serve(searchHandlers({ cache, clusterProxy }).handlers);
    const bodies: Array<[string, Buffer]> = [
      ['application/vnd.kubernetes.protobuf', Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x02, 0xff, 0x80, 0x12, 0x01, 0xc3])],
      ['application/cbor', Buffer.from([0xd9, 0xd9, 0xf7, 0xa1, 0x61, 0x61, 0x42, 0xff, 0xfe])],
      ['application/yaml', Buffer.from('metadata:\n  name: api\n  annotations: {n: "caf\xe9"}\n', 'latin1')],
    ];
    for (const [type, body] of bodies) {
      const r = await fetch(base + PROXY + '/apis/apps/v1/namespaces/default/deployments/api', { method: 'PUT', headers: { 'content-type': type }, body: new Uint8Array(body) });
      expect(r.status).toBe(200);
      expect(Buffer.from(await r.arrayBuffer())).toEqual(Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xfe]));
      expect(seen.at(-1), type).toEqual(body);
    }
    cache.close();
  });
});
