/**
 * What bench/karmada.bench.ts sets up on the test apiservers for each side: the side's own CRDs, the
 * members joined as `karmadactl join` joins them, the side's admission webhook with a serving certificate
 * and webhook configuration, and the side's processes with their /proc figures.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ApiError, RestClient } from '../src/kube/rest.js';
import { clusterInfo, cpuSeconds, getOrUndefined, ignoreConflict, kubeConfigOf, memoryKiB, repoRoot, waitFor, type K8sEnv } from './controller-env.js';

export type Side = 'karmada-lite' | 'karmada';
export const MEMBERS = ['member1', 'member2'] as const;
export type Member = (typeof MEMBERS)[number];

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function yamlDocs(file: string): any[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS())
    .filter((d) => d && typeof d === 'object');
}

/** karmada-lite's CRDs (crds/, as `karmada-lite crds` prints them). */
export function liteCrdFiles(): string[] {
  const dir = path.join(repoRoot, 'crds');
  return readdirSync(dir)
    .filter((n) => n.endsWith('.yaml'))
    .sort()
    .map((n) => path.join(dir, n));
}

/**
 * Each CRD created, or replaced by this definition when one of the name is there (the two sides define the
 * same groups and kinds with different schemas and versions), then waited for until Established.
 */
export async function applyCrds(host: RestClient, files: readonly string[]): Promise<string[]> {
  const names: string[] = [];
  for (const f of files) {
    for (const crd of yamlDocs(f)) {
      if (crd.kind !== 'CustomResourceDefinition') continue;
      const name = crd.metadata.name as string;
      names.push(name);
      const cur = await getOrUndefined(host, `${CRDS}/${name}`);
      if (!cur) await ignoreConflict(host.request('POST', CRDS, { body: crd }));
      else {
        // A version the objects are stored in must stay: keep the stored versions the replacement drops, unserved.
        const versions = [...crd.spec.versions];
        for (const v of cur.status?.storedVersions ?? []) {
          if (!versions.some((x: any) => x.name === v)) {
            const old = cur.spec.versions.find((x: any) => x.name === v);
            if (old) versions.push({ ...old, served: false, storage: false });
          }
        }
        await host.request('PUT', `${CRDS}/${name}`, { body: { ...crd, metadata: { ...crd.metadata, resourceVersion: cur.metadata.resourceVersion }, spec: { ...crd.spec, versions } } });
      }
    }
  }
  for (const name of names) {
    await waitFor(`CRD ${name} established`, async () => {
      const cur = await host.request('GET', `${CRDS}/${name}`);
      return cur.status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True') ? true : undefined;
    });
  }
  host.resetDiscovery();
  return names;
}

// ---------------------------------------------------------------------------------------------------
// Members joined as karmadactl join does it (pkg/karmadactl/join, pkg/util/credential.go)

const SYSTEM_LABELS = { 'karmada.io/system': 'true' };
const CLUSTER_NAMESPACE = 'karmada-cluster';

/** A ServiceAccount and its legacy token Secret (filled by the member's token controller), as WaitForServiceAccountSecretCreation makes them. */
async function serviceAccountSecret(member: RestClient, name: string): Promise<{ token: string; ca: string }> {
  await ignoreConflict(member.request('POST', `/api/v1/namespaces/${CLUSTER_NAMESPACE}/serviceaccounts`, { body: { metadata: { name, namespace: CLUSTER_NAMESPACE, labels: SYSTEM_LABELS } } }));
  await ignoreConflict(
    member.request('POST', `/api/v1/namespaces/${CLUSTER_NAMESPACE}/secrets`, {
      body: { metadata: { name, namespace: CLUSTER_NAMESPACE, annotations: { 'kubernetes.io/service-account.name': name } }, type: 'kubernetes.io/service-account-token' },
    }),
  );
  return waitFor(`the token of ServiceAccount ${CLUSTER_NAMESPACE}/${name} (the member's token controller fills it)`, async () => {
    const s = await getOrUndefined(member, `/api/v1/namespaces/${CLUSTER_NAMESPACE}/secrets/${name}`);
    return s?.data?.token ? { token: s.data.token as string, ca: s.data['ca.crt'] as string } : undefined;
  });
}

/** Creates the Secret, or replaces the data of the one there (a previous side's). */
async function putSecret(host: RestClient, body: any): Promise<any> {
  const p = `/api/v1/namespaces/${body.metadata.namespace}/secrets`;
  const cur = await getOrUndefined(host, `${p}/${body.metadata.name}`);
  if (!cur) return host.request('POST', p, { body });
  return host.request('PUT', `${p}/${body.metadata.name}`, { body: { ...cur, metadata: { ...cur.metadata, labels: body.metadata.labels, ownerReferences: undefined }, data: body.data } });
}

/**
 * `karmadactl join <member>`: in the member, the karmada-cluster namespace, the ServiceAccounts karmada-<member>
 * (with a ClusterRole of every verb on everything) and karmada-impersonator, each with its token Secret; on the
 * host, the Secrets <member> (caBundle + token) and <member>-impersonator (token), the Push Cluster with the
 * member's kube-system UID as its id, and both Secrets owned by it.
 */
export async function joinMember(env: K8sEnv, host: RestClient, name: Member): Promise<void> {
  const member = new RestClient(kubeConfigOf(env, name));
  await ignoreConflict(member.request('POST', '/api/v1/namespaces', { body: { metadata: { name: CLUSTER_NAMESPACE, labels: SYSTEM_LABELS } } }));
  const impersonator = await serviceAccountSecret(member, 'karmada-impersonator');
  const sa = `karmada-${name}`;
  const role = `karmada-controller-manager:${sa}`;
  await ignoreConflict(
    member.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      body: { metadata: { name: role, labels: SYSTEM_LABELS }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['get'] }] },
    }),
  );
  await ignoreConflict(
    member.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      body: { metadata: { name: role, labels: SYSTEM_LABELS }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects: [{ kind: 'ServiceAccount', name: sa, namespace: CLUSTER_NAMESPACE }] },
    }),
  );
  const cred = await serviceAccountSecret(member, sa);
  const id = (await member.request('GET', '/api/v1/namespaces/kube-system')).metadata.uid as string;

  await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: CLUSTER_NAMESPACE, labels: SYSTEM_LABELS } } }));
  const impSecret = await putSecret(host, { metadata: { name: `${name}-impersonator`, namespace: CLUSTER_NAMESPACE, labels: SYSTEM_LABELS }, data: { token: impersonator.token } });
  const secret = await putSecret(host, { metadata: { name, namespace: CLUSTER_NAMESPACE, labels: SYSTEM_LABELS }, data: { caBundle: cred.ca, token: cred.token } });
  const cluster = await host.request('POST', '/apis/cluster.karmada.io/v1alpha1/clusters', {
    body: {
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name },
      spec: {
        syncMode: 'Push',
        apiEndpoint: clusterInfo(env, name).server,
        id,
        secretRef: { namespace: secret.metadata.namespace, name: secret.metadata.name },
        impersonatorSecretRef: { namespace: impSecret.metadata.namespace, name: impSecret.metadata.name },
      },
    },
  });
  const owner = { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', name, uid: cluster.metadata.uid, controller: true, blockOwnerDeletion: true };
  for (const s of [secret, impSecret]) {
    await host.request('PATCH', `/api/v1/namespaces/${CLUSTER_NAMESPACE}/secrets/${s.metadata.name}`, { body: { metadata: { ownerReferences: [owner] } }, contentType: 'application/merge-patch+json' });
  }
}

/** A PATCH that takes every finalizer off, then the DELETE; a 404 on either is fine. */
export async function stripAndDelete(c: RestClient, p: string): Promise<void> {
  try {
    await c.request('PATCH', p, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 404)) throw e;
  }
  await c.request('DELETE', p).catch(() => undefined);
}

/** The Clusters and their Secrets gone from the host, so the next side joins the members afresh. */
export async function unjoinMembers(host: RestClient): Promise<void> {
  for (const m of MEMBERS) {
    await stripAndDelete(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${m}`);
    for (const s of [m, `${m}-impersonator`]) await host.request('DELETE', `/api/v1/namespaces/${CLUSTER_NAMESPACE}/secrets/${s}`).catch(() => undefined);
  }
  await waitFor('the Clusters gone', async () => {
    for (const m of MEMBERS) if (await getOrUndefined(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${m}`)) return undefined;
    return true;
  });
}

// ---------------------------------------------------------------------------------------------------
// Admission webhooks

export interface WebhookCert {
  dir: string;
  caPem: Buffer;
  certFile: string;
  keyFile: string;
}

/** A CA and a serving certificate for 127.0.0.1 from scripts/deploy-cert.sh (openssl), written into `dir` as tls.crt / tls.key. */
export function makeWebhookCert(dir: string): WebhookCert {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('bash', [path.join(repoRoot, 'scripts', 'deploy-cert.sh'), '--print'], {
    env: { ...process.env, OUT: path.join(dir, 'pki'), WEBHOOK_URL: 'https://127.0.0.1:1/', EXTRA_SANS: 'IP:127.0.0.1' },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`scripts/deploy-cert.sh --print failed: ${r.stderr}`);
  const secret = parseAllDocuments(r.stdout)
    .map((d) => d.toJS())
    .find((d) => d?.kind === 'Secret');
  const certFile = path.join(dir, 'tls.crt');
  const keyFile = path.join(dir, 'tls.key');
  writeFileSync(certFile, Buffer.from(secret.data['tls.crt'], 'base64'));
  writeFileSync(keyFile, Buffer.from(secret.data['tls.key'], 'base64'), { mode: 0o600 });
  return { dir, caPem: Buffer.from(secret.data['ca.crt'], 'base64'), certFile, keyFile };
}

/**
 * The side's webhook configurations, pointed at https://127.0.0.1:port: karmada-lite's deploy/webhook templates,
 * Karmada's artifacts/deploy/webhook-configuration.yaml (its Service URL and {{caBundle}} replaced).
 */
export function webhookConfigurations(side: Side, port: number, caPem: Buffer, karmadaSrc: string): any[] {
  const ca = caPem.toString('base64');
  const url = `https://127.0.0.1:${port}`;
  if (side === 'karmada') {
    const text = readFileSync(path.join(karmadaSrc, 'artifacts', 'deploy', 'webhook-configuration.yaml'), 'utf8')
      .replaceAll('https://karmada-webhook.karmada-system.svc:443', url)
      .replaceAll('{{caBundle}}', ca);
    return parseAllDocuments(text)
      .map((d) => d.toJS())
      .filter((d) => d?.kind);
  }
  const out: any[] = [];
  for (const f of ['mutating.yaml', 'validating.yaml']) {
    const text = readFileSync(path.join(repoRoot, 'deploy', 'webhook', f), 'utf8').replaceAll('${WEBHOOK_URL}', url).replaceAll('${CA_BUNDLE}', ca);
    out.push(...parseAllDocuments(text).map((d) => d.toJS()).filter((d) => d?.kind));
  }
  return out;
}

const configPath = (c: any) => `/apis/admissionregistration.k8s.io/v1/${c.kind === 'MutatingWebhookConfiguration' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations'}`;

export async function installWebhookConfigurations(host: RestClient, configs: readonly any[]): Promise<void> {
  for (const c of configs) {
    const cur = await getOrUndefined(host, `${configPath(c)}/${c.metadata.name}`);
    if (cur) await host.request('PUT', `${configPath(c)}/${c.metadata.name}`, { body: { ...c, metadata: { ...c.metadata, resourceVersion: cur.metadata.resourceVersion } } });
    else await host.request('POST', configPath(c), { body: c });
  }
}

export async function removeWebhookConfigurations(host: RestClient, configs: readonly any[]): Promise<void> {
  for (const c of configs) await host.request('DELETE', `${configPath(c)}/${c.metadata.name}`).catch(() => undefined);
}

/** Until the host's apiserver asks the side's webhook: a dry-run PropagationPolicy comes back with the permanent-id label the mutating hook adds. */
export async function waitForAdmission(host: RestClient, namespace: string): Promise<void> {
  await waitFor(
    'the host apiserver to call the webhook (a dry-run PropagationPolicy labelled with its permanent id)',
    async () => {
      const pp = await host
        .request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${namespace}/propagationpolicies`, {
          query: { dryRun: 'All' },
          body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: 'admission-probe', namespace }, spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x' }], placement: {} } },
        })
        .catch(() => undefined);
      return pp?.metadata?.labels?.['propagationpolicy.karmada.io/permanent-id'] ? true : undefined;
    },
    60_000,
    500,
  );
}

/** GET over HTTPS trusting only the given CA (a webhook's probe) or over HTTP; the status code, 0 when nothing answers. */
export function probe(url: string, ca?: Buffer): Promise<number> {
  if (!url.startsWith('https:')) return fetch(url).then((r) => r.status, () => 0);
  return new Promise((resolve) => {
    const req = httpsRequest(url, { agent: new Agent({ ca }) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------------
// Processes

export interface Proc {
  name: string;
  child: ChildProcess;
  pid: number;
  logFile: string;
  exited: Promise<number | null>;
  /** The largest VmRSS sampled, KiB. */
  rssMaxKiB: number;
}

export function startProc(name: string, cmd: string, args: readonly string[], logDir: string, log: (s: string) => void): Proc {
  const logFile = path.join(logDir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(cmd, args, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  log(`${name}: ${cmd} ${args.join(' ')} (pid ${child.pid}, log ${logFile})`);
  return { name, child, pid: child.pid!, logFile, exited, rssMaxKiB: 0 };
}

export async function waitReady(p: Proc, url: string, ca?: Buffer, timeoutMs = 120_000): Promise<void> {
  await waitFor(
    `${p.name} ready (${url})`,
    async () => {
      if (p.child.exitCode !== null) throw new Error(`${p.name} exited with ${p.child.exitCode}; see ${p.logFile}`);
      return (await probe(url, ca)) === 200 ? true : undefined;
    },
    timeoutMs,
    500,
  );
}

export async function stopProc(p: Proc): Promise<number | null> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return p.child.exitCode;
  const t = setTimeout(() => p.child.kill('SIGKILL'), 20_000);
  p.child.kill('SIGTERM');
  const code = await p.exited;
  clearTimeout(t);
  return code;
}

/** Samples every process's VmRSS into rssMaxKiB until stopped. */
export function sampleRss(procs: readonly Proc[], everyMs = 500): () => void {
  const t = setInterval(() => {
    for (const p of procs) {
      const m = memoryKiB(p.pid);
      if (m && m.rss > p.rssMaxKiB) p.rssMaxKiB = m.rss;
    }
  }, everyMs);
  return () => clearInterval(t);
}

/** CPU seconds and peak memory (the larger of VmHWM and the sampled maximum) of a process still running. */
export function procFigures(p: Proc): { cpuS: number; peakMiB: number } {
  const m = memoryKiB(p.pid);
  return { cpuS: cpuSeconds(p.pid) ?? NaN, peakMiB: Math.max(m?.hwm ?? 0, m?.rss ?? 0, p.rssMaxKiB) / 1024 };
}
