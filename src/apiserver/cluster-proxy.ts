// `clusters/{name}/proxy/{path}`: a request forwarded to the member's apiserver with the member credentials
// of the Cluster and the caller impersonated (karmada-aggregated-api.md section 2.1), so that the member's
// RBAC decides what the caller sees. Answers stream through unbuffered (watch, logs?follow=true); upgraded
// connections (exec, attach, port-forward over SPDY or WebSocket) are piped both ways.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';
import { secretRefOf, memberKubeConfig } from '../kube/credentials.js';
import type { RestClient } from '../kube/rest.js';
import { KarmadaClusterNamespace } from '../api/constants.js';
import { CLUSTER_GROUP, CLUSTER_VERSION, getCluster } from './cluster-storage.js';
import { StatusError, statusBody } from './status.js';
import { forwardableHeaders, kubeConfigUpstream, readAll, responseHeaders, send, type Upstream } from './upstream.js';
import { ownerOfNamed, proxyAllClusters } from './cluster-proxy-all.js';
import { parseProxyURL, proxyHeaders, tunnelAgent } from './proxy-tunnel.js';
import type { ApiHandler, UserInfo } from './types.js';

const PREFIX = `/apis/${CLUSTER_GROUP}/${CLUSTER_VERSION}/clusters/`;

/** Groups every authenticated or anonymous caller has: the member adds them itself, Karmada never sends them. */
const IMPLICIT_GROUPS = new Set(['system:authenticated', 'system:unauthenticated']);

/** Headers that carry an identity: never passed on from the caller, the proxy sets its own. */
const identityHeader = (h: string) => h === 'authorization' || h.startsWith('impersonate-') || h.startsWith('x-remote-');

/** The Impersonate-* headers for the caller, as Karmada sets them (user and groups; extras and uid are not forwarded). */
export function impersonationHeaders(user: UserInfo | undefined): Record<string, string | string[]> {
  if (!user?.name) throw new StatusError(500, 'no user found for request');
  const groups = user.groups.filter((g) => !IMPLICIT_GROUPS.has(g));
  return { 'Impersonate-User': user.name, ...(groups.length ? { 'Impersonate-Group': groups } : {}) };
}

/** `/apis/cluster.karmada.io/v1alpha1/clusters/<name>/proxy/<path>?q` split into name and the member's path with its query. */
export function proxyTarget(url: string): { name: string; path: string } | undefined {
  const q = url.indexOf('?');
  const pathname = q < 0 ? url : url.slice(0, q);
  if (!pathname.startsWith(PREFIX)) return undefined;
  const rest = pathname.slice(PREFIX.length).split('/');
  if (rest.length < 2 || rest[1] !== 'proxy') return undefined;
  const name = decodeURIComponent(rest[0]!);
  return { name, path: '/' + rest.slice(2).join('/') + (q < 0 ? '' : url.slice(q)) };
}

export interface MemberConnection {
  options(method: string, path: string, headers: Record<string, string | string[]>): Promise<import('node:https').RequestOptions>;
}

/** A member reached with the impersonator's token alone: its endpoint, and TLS checked against the system's roots unless insecureSkipTLSVerification. */
function endpointKubeConfig(cluster: any): KubeConfig {
  const name = cluster.metadata?.name as string;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name, server: cluster.spec.apiEndpoint, skipTLSVerify: cluster.spec?.insecureSkipTLSVerification === true }],
    users: [{ name }],
    contexts: [{ name, cluster: name, user: name }],
    currentContext: name,
  });
  return kc;
}

/**
 * The member's endpoint and credentials from the Cluster and its Secrets, read from the host on every
 * request. Push or Pull alike, as Karmada: a Pull cluster is reached when its agent registered an
 * endpoint and an impersonator Secret (`--cluster-api-endpoint`, the default `--report-secrets`).
 */
export async function memberConnection(host: RestClient, name: string): Promise<MemberConnection> {
  const cluster = await getCluster(host, name);
  if (!cluster.spec?.apiEndpoint && !cluster.spec?.secretRef) throw new StatusError(500, `API endpoint of cluster ${name} should not be empty`);
  const ref = secretRefOf(cluster);
  const impRef = cluster.spec?.impersonatorSecretRef as { namespace?: string; name?: string } | undefined;
  // without the credentials Secret only the impersonator's token can open the way (Karmada's only one)
  if (!ref && !impRef?.name) throw new StatusError(500, `the impersonatorSecretRef of cluster ${name} is nil`);
  const kc = ref ? memberKubeConfig(cluster, await host.request('GET', `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/secrets/${encodeURIComponent(ref.name)}`)) : endpointKubeConfig(cluster);
  // Karmada authenticates as the impersonator ServiceAccount when the Cluster names one
  let impersonatorToken: string | undefined;
  if (impRef?.name) {
    const s = await host.request('GET', `/api/v1/namespaces/${encodeURIComponent(impRef.namespace || KarmadaClusterNamespace)}/secrets/${encodeURIComponent(impRef.name)}`);
    const t = s?.data?.token as string | undefined;
    if (!t) throw new StatusError(500, `failed to get impresonateToken for cluster ${name}: the impresonate token of cluster ${name} is empty`);
    impersonatorToken = Buffer.from(t, 'base64').toString('utf8');
  }
  const proxy = cluster.spec?.proxyURL ? parseProxyURL(name, String(cluster.spec.proxyURL)) : undefined;
  const connectHeaders = proxyHeaders(cluster.spec?.proxyHeader);
  const upstream = kubeConfigUpstream(kc);
  return {
    async options(method, path, headers) {
      const o = await upstream.options(method, path, headers);
      if (impersonatorToken) {
        const h = o.headers as Record<string, unknown>;
        delete h.Authorization;
        delete h.authorization;
        h.Authorization = `bearer ${impersonatorToken}`;
        delete o.cert;
        delete o.key;
      }
      if (proxy) o.agent = tunnelAgent(proxy, connectHeaders, o.protocol ?? 'https:');
      return o;
    },
  };
}

/**
 * `hostUpstream`: the host with the server's own credentials, where the cluster name `*` (all clusters,
 * section 2.2) sends what is not a resource request.
 */
export function clusterProxyHandler(host: RestClient, hostUpstream?: Upstream): ApiHandler {
  const prepare = async (req: IncomingMessage, user: UserInfo, upgrade: boolean, name = proxyTarget(req.url ?? '/')?.name) => {
    const target = proxyTarget(req.url ?? '/');
    if (!target || name === undefined) throw new StatusError(404, 'the server could not find the requested resource');
    const conn = await memberConnection(host, name);
    const headers = { ...forwardableHeaders(req.headers, identityHeader), ...impersonationHeaders(user) };
    if (upgrade) {
      headers.connection = 'Upgrade';
      if (req.headers.upgrade) headers.upgrade = req.headers.upgrade;
    }
    return conn.options(req.method ?? 'GET', target.path, headers);
  };
  return {
    prefix: PREFIX,
    async handle(req: IncomingMessage, res: ServerResponse, ctx) {
      if (ctx.info.subresource !== 'proxy') throw new StatusError(404, 'the server could not find the requested resource');
      let name: string | undefined;
      if (proxyTarget(req.url ?? '/')?.name === '*') {
        const owner = await proxyAllClusters(host, hostUpstream, req, res, ctx.user);
        if (owner === undefined) return;
        name = owner;
      }
      const o = await prepare(req, ctx.user, false, name);
      await new Promise<void>((resolve) => {
        const up = send({ ...o, signal: ctx.signal });
        up.once('response', (member: IncomingMessage) => {
          res.writeHead(member.statusCode ?? 502, responseHeaders(member));
          // headers at once: a watch or a followed log may send its first bytes much later
          res.flushHeaders();
          member.pipe(res);
          member.once('end', resolve);
          member.once('close', resolve);
          member.once('error', () => (res.destroy(), resolve()));
        });
        up.once('error', (err) => {
          if (!ctx.signal.aborted && !res.headersSent) {
            const text = JSON.stringify(statusBody(503, `error trying to reach cluster ${proxyTarget(req.url ?? '/')?.name}: ${err.message}`));
            res.writeHead(503, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
            res.end(text);
          } else res.destroy();
          resolve();
        });
        req.pipe(up);
      });
    },
    async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, ctx) {
      if (ctx.info.subresource !== 'proxy') throw new StatusError(404, 'the server could not find the requested resource');
      let name: string | undefined;
      if (proxyTarget(req.url ?? '/')?.name === '*') {
        // as Karmada: a named object's subresource (pods/NAME/exec) goes to the one cluster that has the object
        const found = await ownerOfNamed(host, proxyTarget(req.url ?? '/')!.path, ctx.user);
        if ('refused' in found) throw new StatusError(400, `clusters/*/proxy upgrades a connection only for a named object (pods/NAME/exec): ${found.refused}; name the cluster instead (clusters/NAME/proxy)`);
        if ('code' in found) return void socket.end(rawText(found.code, found.text));
        name = found.owner;
      }
      const o = await prepare(req, ctx.user, true, name);
      const up = send(o);
      up.once('upgrade', (member: IncomingMessage, memberSocket: Duplex, memberHead: Buffer) => {
        socket.write(rawHead(member));
        if (memberHead.length) socket.write(memberHead);
        if (head.length) memberSocket.write(head);
        memberSocket.pipe(socket);
        socket.pipe(memberSocket);
        const close = () => (socket.destroy(), memberSocket.destroy());
        memberSocket.once('close', close);
        socket.once('close', close);
        memberSocket.on('error', close);
      });
      // the member refused the upgrade (401, 403, 404, 400): its answer goes back as it is
      up.once('response', (member: IncomingMessage) => {
        void readAll(member).then(
          (text) => {
            const headers = responseHeaders(member);
            delete headers['content-length'];
            const lines = [`HTTP/1.1 ${member.statusCode ?? 502} ${member.statusMessage ?? ''}`, ...Object.entries(headers).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}: ${x}`))];
            socket.end(`${lines.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
          },
          () => socket.destroy(),
        );
      });
      up.once('error', (err) => {
        const text = JSON.stringify(statusBody(503, `error trying to reach cluster: ${err.message}`));
        socket.end(`HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
      });
      up.end();
    },
  };
}

/** A plain-text answer (Karmada's words for `*`) as raw HTTP/1.1 for the caller's socket. */
function rawText(code: number, text: string): string {
  return `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ''}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
}

/** The status line and headers of a member's answer, as raw HTTP/1.1 for the caller's socket. */
function rawHead(res: IncomingMessage): string {
  const lines = [`HTTP/1.1 ${res.statusCode ?? 502} ${res.statusMessage ?? ''}`];
  for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
  return lines.join('\r\n') + '\r\n\r\n';
}
