// Deletion protection through the real kube-apiserver: the binary's `karmada-lite webhook` with the certificate
// and the ValidatingWebhookConfiguration scripts/deploy-cert.sh prints, then a DELETE of a protected ConfigMap
// (namespaced) and of a protected ClusterRole (cluster-scoped) refused with Karmada's message; once the label is
// taken off, or says something other than Always, both go.
//
// Isolation: only the configuration's deletion-protection hook is registered, under this run's name, its
// objectSelector narrowed to this run's label as well, so no other suite's deletion reaches this webhook.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ApiError } from '../../src/kube/rest.js';
import { repoRoot, waitFor } from './env.js';
import { binary, ensureBinary, freePort, ignoreConflict, rest } from './harness.js';
import { scaled } from '../time-scale.js';

const RUN = Date.now().toString(36);
const NS = `deletion-protection-${RUN}`;
const RUN_LABEL = 'karmada-lite.io/deletion-protection-test';
const PROTECTED = 'resourcetemplate.karmada.io/deletion-protected';
const KARMADA_DENIAL = 'admission webhook "resourcedeletionprotection.karmada.io" denied the request: This resource is protected, please make sure to remove the label: resourcetemplate.karmada.io/deletion-protected';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const ROLE = `karmada-lite-protected-${RUN}`;
const CONFIGS = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

const host = rest('host');

/** GET over HTTPS trusting only the given CA: the webhook's /readyz. */
function readyz(port: number, ca: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path: '/readyz', agent: new Agent({ ca }) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The DELETE's refusal, or undefined when the object went. */
async function deleteRefusal(p: string): Promise<ApiError | undefined> {
  try {
    await host.request('DELETE', p);
    return undefined;
  } catch (e) {
    if (e instanceof ApiError && e.code === 403) return e;
    throw e;
  }
}

const labels = (value: string | null) => ({ metadata: { labels: { [PROTECTED]: value } } });
const relabel = (p: string, value: string | null) => host.request('PATCH', p, { body: labels(value), contentType: 'application/merge-patch+json' });
const exists = (p: string) =>
  host.request('GET', p).then(
    () => true,
    (e) => {
      if (e instanceof ApiError && e.code === 404) return false;
      throw e;
    },
  );

describe('deletion protection through the host apiserver', () => {
  let webhook: ChildProcess | undefined;
  const logs: string[] = [];
  let out = '';
  let configName = '';

  beforeAll(async () => {
    ensureBinary();
    await ignoreConflict(host.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }));
    const port = await freePort();
    out = mkdtempSync(path.join(tmpdir(), 'karmada-lite-deletion-protection-'));
    const r = spawnSync('bash', [path.join(repoRoot, 'scripts', 'deploy-cert.sh'), '--print'], {
      env: { ...process.env, OUT: out, WEBHOOK_URL: `https://127.0.0.1:${port}/`, EXTRA_SANS: 'IP:127.0.0.1' },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJS()).filter(Boolean);
    const secret = docs.find((d) => d.kind === 'Secret');
    const ca = Buffer.from(secret.data['ca.crt'], 'base64');
    writeFileSync(path.join(out, 'serve.crt'), Buffer.from(secret.data['tls.crt'], 'base64'));
    writeFileSync(path.join(out, 'serve.key'), Buffer.from(secret.data['tls.key'], 'base64'));
    webhook = spawn(binary, ['webhook', '--cert-file', path.join(out, 'serve.crt'), '--key-file', path.join(out, 'serve.key'), '--port', String(port), '--bind-address', '127.0.0.1', '--log-format', 'json'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    webhook.stderr!.on('data', (d: Buffer) => logs.push(...d.toString('utf8').split('\n').filter(Boolean)));
    await waitFor('the webhook to serve', async () => {
      if (webhook!.exitCode !== null) throw new Error(`karmada-lite webhook exited with ${webhook!.exitCode}:\n${logs.join('\n')}`);
      return (await readyz(port, ca).catch(() => 0)) === 200 ? true : undefined;
    });

    const validating = docs.find((d) => d.kind === 'ValidatingWebhookConfiguration');
    const hook = validating.webhooks.find((w: { name: string }) => w.name === 'resourcedeletionprotection.karmada.io');
    expect(hook, 'deploy-cert.sh prints the deletion-protection hook').toBeDefined();
    expect(hook.clientConfig.url).toBe(`https://127.0.0.1:${port}/validate-resourcedeletionprotection`);
    hook.objectSelector.matchExpressions.push({ key: RUN_LABEL, operator: 'In', values: [RUN] });
    configName = `${validating.metadata.name}-deletion-protection-${RUN}`;
    await host.request('POST', CONFIGS, { body: { ...validating, metadata: { ...validating.metadata, name: configName }, webhooks: [hook] } });

    // The API server picks a new configuration up within a moment: until a probe's deletion is refused, it is not asked.
    const probe = { metadata: { name: 'probe', labels: { [PROTECTED]: 'Always', [RUN_LABEL]: RUN } } };
    await waitFor('the API server to ask the webhook', async () => {
      await ignoreConflict(host.request('POST', CM, { body: probe }));
      return (await deleteRefusal(`${CM}/probe`)) ? true : undefined;
    });
    await relabel(`${CM}/probe`, null);
    await host.request('DELETE', `${CM}/probe`);
  }, scaled(120_000));

  afterAll(async () => {
    // Labels off first: a protected object would hold its namespace in Terminating.
    for (const p of [`${CM}/probe`, `${CM}/settings`, `${ROLES}/${ROLE}`]) {
      await relabel(p, null).catch(() => undefined);
      await host.request('DELETE', p).catch(() => undefined);
    }
    if (configName) await host.request('DELETE', `${CONFIGS}/${configName}`).catch(() => undefined);
    webhook?.kill('SIGTERM');
    await host.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('refuses to delete a protected ConfigMap with Karmada\'s message; with the label removed it is deleted', async () => {
    await host.request('POST', CM, { body: { metadata: { name: 'settings', labels: { [PROTECTED]: 'Always', [RUN_LABEL]: RUN } }, data: { mode: 'on' } } });
    const refusal = await deleteRefusal(`${CM}/settings`);
    expect(refusal?.message).toContain(KARMADA_DENIAL);
    expect(await exists(`${CM}/settings`)).toBe(true);

    await relabel(`${CM}/settings`, null);
    expect(await deleteRefusal(`${CM}/settings`)).toBeUndefined();
    expect(await exists(`${CM}/settings`)).toBe(false);
  });

  it('refuses to delete a protected ClusterRole (cluster-scoped); once the label says Never, or is removed, it goes', async () => {
    await host.request('POST', ROLES, { body: { metadata: { name: ROLE, labels: { [PROTECTED]: 'Always', [RUN_LABEL]: RUN } }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] } });
    const refusal = await deleteRefusal(`${ROLES}/${ROLE}`);
    expect(refusal?.message).toContain(KARMADA_DENIAL);
    expect(await exists(`${ROLES}/${ROLE}`)).toBe(true);

    // The label is still there (the webhook is asked) but only Always protects.
    await relabel(`${ROLES}/${ROLE}`, 'Never');
    expect(await deleteRefusal(`${ROLES}/${ROLE}`)).toBeUndefined();
    expect(await exists(`${ROLES}/${ROLE}`)).toBe(false);

    await host.request('POST', ROLES, { body: { metadata: { name: ROLE, labels: { [PROTECTED]: 'Always', [RUN_LABEL]: RUN } }, rules: [] } });
    expect((await deleteRefusal(`${ROLES}/${ROLE}`))?.message).toContain(KARMADA_DENIAL);
    await relabel(`${ROLES}/${ROLE}`, null);
    expect(await deleteRefusal(`${ROLES}/${ROLE}`)).toBeUndefined();
    expect(await exists(`${ROLES}/${ROLE}`)).toBe(false);
  });
});
