// A resource of an aggregated group-version kept in its CRD: the APIService takes `<group>/<version>` over
// from the CRD, so the objects are reached through one more served version of the same CRD (ARCHITECTURE.md,
// "Cluster objects under the aggregated API"). Nothing is copied; uids and resourceVersions stay.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Informer } from '../kube/informer.js';
import type { RestClient } from '../kube/rest.js';
import { forwardableHeaders, readAll, responseHeaders, roundTrip, type Upstream } from './upstream.js';
import type { ApiHandler } from './types.js';
import { errorMessage } from '../json/error.js';

export interface StorageVersion {
  group: string;
  /** The public version the APIService owns, e.g. v1alpha1. */
  version: string;
  /** The CRD's extra served version the objects are read and written through, e.g. v1alpha1storage. */
  storageVersion: string;
  /** The plural, e.g. resourceregistries. */
  resource: string;
  /** The kind's name in errors, e.g. ResourceRegistry. */
  kind: string;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `<group>/<version>` to `<group>/<storageVersion>` in a body and back, not touching longer version names. */
export function apiVersionRewriters(sv: StorageVersion): { toStorage: (t: string) => string; toPublic: (t: string) => string } {
  const pub = new RegExp(`${escape(`${sv.group}/${sv.version}`)}(?![0-9a-z])`, 'g');
  const sto = new RegExp(`${escape(`${sv.group}/${sv.storageVersion}`)}(?![0-9a-z])`, 'g');
  return { toStorage: (t) => t.replace(pub, `${sv.group}/${sv.storageVersion}`), toPublic: (t) => t.replace(sto, `${sv.group}/${sv.version}`) };
}

export const storagePath = (sv: StorageVersion): string => `/apis/${sv.group}/${sv.storageVersion}/${sv.resource}`;

/**
 * Adds the storage version to the CRD when missing (served, never the storage version: the stored versions
 * stay as they are, so it can always be removed) and waits until the host serves it. Returns whether it added it.
 */
export async function ensureStorageVersion(host: RestClient, sv: StorageVersion, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<boolean> {
  const crdName = `${sv.resource}.${sv.group}`;
  const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`;
  let crd: any;
  try {
    crd = await host.request('GET', path);
  } catch (e) {
    throw new Error(`cannot read the ${sv.kind} CRD ${crdName} from the host: ${errorMessage(e)}; install it first (karmada-lite crds | kubectl apply -f -)`);
  }
  const versions = (crd.spec?.versions ?? []) as Array<Record<string, any>>;
  let added = false;
  if (!versions.some((v) => v.name === sv.storageVersion)) {
    const base = versions.find((v) => v.name === sv.version) ?? versions[0];
    if (!base) throw new Error(`the ${sv.kind} CRD ${crdName} has no versions`);
    const extra = { ...structuredClone(base), name: sv.storageVersion, served: true, storage: false };
    delete (extra as Record<string, unknown>).deprecated;
    await host.request('PATCH', path, {
      contentType: 'application/json-patch+json',
      body: [
        { op: 'test', path: '/metadata/resourceVersion', value: crd.metadata.resourceVersion },
        { op: 'add', path: '/spec/versions/-', value: extra },
      ],
    });
    added = true;
  }
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    try {
      await host.request('GET', storagePath(sv), { query: { limit: 1 } });
      return added;
    } catch (e) {
      if (Date.now() > deadline || opts.signal?.aborted) throw new Error(`the host does not serve ${sv.group}/${sv.storageVersion} ${sv.resource} yet: ${errorMessage(e)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The resource's CRUD, watch and subresources: each request goes to the storage version with this server's
 * credentials (the caller was authorized for the same verb and resource by the SubjectAccessReview; RBAC does
 * not tell versions apart), apiVersions rewritten both ways.
 */
export function storageVersionHandler(host: Upstream, sv: StorageVersion): ApiHandler {
  const publicPrefix = `/apis/${sv.group}/${sv.version}/`;
  const storagePrefix = `/apis/${sv.group}/${sv.storageVersion}/`;
  const { toStorage, toPublic } = apiVersionRewriters(sv);
  return {
    prefix: `${publicPrefix}${sv.resource}`,
    async handle(req: IncomingMessage, res: ServerResponse, ctx) {
      const url = req.url ?? '/';
      const method = req.method ?? 'GET';
      const headers = forwardableHeaders(req.headers, (h) => h === 'authorization' || h.startsWith('impersonate-') || h.startsWith('x-remote-') || h === 'content-length' || h === 'accept-encoding');
      const hasBody = method !== 'GET' && method !== 'HEAD' && method !== 'DELETE' ? true : (req.headers['content-length'] ?? '0') !== '0';
      const body = hasBody ? toStorage(await readAll(req)) : undefined;
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const upstream = await roundTrip(await host.options(method, storagePrefix + url.slice(publicPrefix.length), headers), body, ctx.signal);
      const out = responseHeaders(upstream);
      delete out['content-length'];
      res.writeHead(upstream.statusCode ?? 502, out);
      // `?watch=true` on a named object is a get to RequestInfo but a stream all the same
      const streaming = ctx.info.verb === 'watch' || String(upstream.headers['content-type']).includes('stream=watch');
      if (!streaming) return void res.end(toPublic(await readAll(upstream)));
      // one event per line: rewritten line by line and passed on at once
      res.flushHeaders();
      let pending = '';
      upstream.setEncoding('utf8');
      upstream.on('data', (chunk: string) => {
        pending += chunk;
        const nl = pending.lastIndexOf('\n');
        if (nl < 0) return;
        res.write(toPublic(pending.slice(0, nl + 1)));
        pending = pending.slice(nl + 1);
      });
      upstream.on('end', () => res.end(toPublic(pending)));
      upstream.on('error', () => res.destroy());
    },
  };
}

const servesVersion = (crd: any, sv: StorageVersion): boolean => ((crd?.spec?.versions ?? []) as Array<{ name?: string; served?: boolean }>).some((v) => v.name === sv.storageVersion && v.served);

export interface KeptStorageVersions {
  close(): void;
}

/**
 * Makes sure of each storage version once (before the server and karmada-search start: one check for
 * both), then keeps it: re-applying crds/ replaces the CRD's versions and drops it, which leaves the
 * APIService's group-version with nothing behind it. A watch on each CRD, by name, adds it again at once.
 */
export async function keepStorageVersions(host: RestClient, svs: readonly StorageVersion[], opts: { log?: (msg: string, fields?: Record<string, unknown>) => void; retryMs?: number } = {}): Promise<KeptStorageVersions> {
  await Promise.all(svs.map((sv) => ensureStorageVersion(host, sv)));
  const stop = new AbortController();
  const informers = svs.map((sv) => {
    const crdName = `${sv.resource}.${sv.group}`;
    const informer = new Informer(host, {
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldSelector=${encodeURIComponent(`metadata.name=${crdName}`)}`,
      onError: (e) => opts.log?.('watching a CRD for its storage version failed', { crd: crdName, error: errorMessage(e) }),
    });
    let running = false;
    let again = false;
    const repair = async (): Promise<void> => {
      if (running) return void (again = true);
      running = true;
      try {
        do {
          again = false;
          const crd = informer.get(undefined, crdName);
          if (!crd || servesVersion(crd, sv) || stop.signal.aborted) break;
          try {
            await ensureStorageVersion(host, sv, { signal: stop.signal });
            opts.log?.('added the storage version to the CRD again', { crd: crdName, version: sv.storageVersion });
          } catch (e) {
            // a conflicting write of the CRD, or a host that does not answer: tried again shortly
            opts.log?.('cannot add the storage version to the CRD', { crd: crdName, version: sv.storageVersion, error: errorMessage(e) });
            await new Promise((r) => setTimeout(r, opts.retryMs ?? 1_000));
            again = true;
          }
        } while (again && !stop.signal.aborted);
      } finally {
        running = false;
      }
    };
    informer.on((type) => {
      if (type !== 'DELETED') void repair();
    });
    informer.start();
    return informer;
  });
  return {
    close() {
      stop.abort();
      for (const i of informers) i.stop();
    },
  };
}
