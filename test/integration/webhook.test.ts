// The admission webhook against a real kube-apiserver: `karmada-lite webhook`'s server runs on loopback with a
// throwaway CA, registered with the host apiserver through deploy/webhook/ (failurePolicy Fail).
//
// Isolation from other integration tests: the configurations carry this run's unique names and an
// objectSelector on a per-run label, so only objects this file creates go through the webhook, and they
// are deleted afterwards.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { AdmissionregistrationV1Api, loadAllYaml, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiError, clients, isApiError, kubeConfig, repoRoot, designExamples, waitFor } from './env.js';
import { WebhookServer } from '../../src/webhook/server.js';
import { renderWebhookConfigurations } from '../../src/webhook/deploy.js';
import { clusterRicLister } from '../../src/webhook/ric-source.js';
import { luaCompile } from '../../src/validation/lua-compile.js';
import { createLogger } from '../../src/runtime/log.js';
import { makePki } from '../webhook/certs.js';
import { scaled } from '../time-scale.js';

const run = randomBytes(3).toString('hex');
const TEST_LABEL = 'karmada-lite.io/webhook-test';
const ns = `webhook-${run}`;
const workNs = `karmada-es-webhook-${run}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const { custom, core, apiext, kc } = clients('host');
const admission = kc.makeApiClient(AdmissionregistrationV1Api);
let server: WebhookServer;
const logs: Record<string, unknown>[] = [];
let configNames: { kind: string; name: string }[] = [];

const GVR: Record<string, { group: string; version: string; plural: string; namespaced: boolean }> = {
  PropagationPolicy: { group: 'policy.karmada.io', version: 'v1alpha1', plural: 'propagationpolicies', namespaced: true },
  ClusterPropagationPolicy: { group: 'policy.karmada.io', version: 'v1alpha1', plural: 'clusterpropagationpolicies', namespaced: false },
  OverridePolicy: { group: 'policy.karmada.io', version: 'v1alpha1', plural: 'overridepolicies', namespaced: true },
  ResourceBinding: { group: 'work.karmada.io', version: 'v1alpha2', plural: 'resourcebindings', namespaced: true },
  Work: { group: 'work.karmada.io', version: 'v1alpha1', plural: 'works', namespaced: true },
  ResourceInterpreterCustomization: { group: 'config.karmada.io', version: 'v1alpha1', plural: 'resourceinterpretercustomizations', namespaced: false },
  ClusterTaintPolicy: { group: 'policy.karmada.io', version: 'v1alpha1', plural: 'clustertaintpolicies', namespaced: false },
};

/** Tags an object with this run's label and, for cluster-scoped kinds, a run-unique name. */
function mine(obj: Record<string, any>, namespace = ns): Record<string, any> {
  const o = structuredClone(obj);
  o.metadata ??= {};
  o.metadata.labels = { ...o.metadata.labels, [TEST_LABEL]: run };
  if (GVR[o.kind]!.namespaced) o.metadata.namespace = namespace;
  else o.metadata.name = `${o.metadata.name}-${run}`;
  delete o.status;
  return o;
}

async function create(obj: Record<string, any>): Promise<Record<string, any>> {
  const g = GVR[obj.kind]!;
  const body = obj;
  return (g.namespaced
    ? custom.createNamespacedCustomObject({ group: g.group, version: g.version, namespace: obj.metadata.namespace, plural: g.plural, body })
    : custom.createClusterCustomObject({ group: g.group, version: g.version, plural: g.plural, body })) as Promise<Record<string, any>>;
}

async function replace(obj: Record<string, any>): Promise<Record<string, any>> {
  const g = GVR[obj.kind]!;
  const name = obj.metadata.name;
  return (g.namespaced
    ? custom.replaceNamespacedCustomObject({ group: g.group, version: g.version, namespace: obj.metadata.namespace, plural: g.plural, name, body: obj })
    : custom.replaceClusterCustomObject({ group: g.group, version: g.version, plural: g.plural, name, body: obj })) as Promise<Record<string, any>>;
}

const example = (file: string) => parse(readFileSync(path.join(designExamples, file), 'utf8')) as Record<string, any>;

async function ignore(p: Promise<unknown>, ...codes: number[]): Promise<void> {
  try {
    await p;
  } catch (e) {
    if (!codes.some((c) => isApiError(e, c))) throw e;
  }
}

async function installCrds(): Promise<void> {
  const dir = path.join(repoRoot, 'crds');
  const crds = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => loadAllYaml(readFileSync(path.join(dir, f), 'utf8')) as V1CustomResourceDefinition[]);
  for (const crd of crds) await ignore(apiext.createCustomResourceDefinition({ body: crd }), 409);
  await Promise.all(
    crds.map((crd) =>
      waitFor(`CRD ${crd.metadata!.name} Established`, async () => {
        const live = await apiext.readCustomResourceDefinition({ name: crd.metadata!.name! });
        return live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
      }),
    ),
  );
  // A freshly established CRD can answer 404 or 429 for a moment: wait until a list works.
  for (const g of Object.values(GVR)) {
    await waitFor(`${g.plural} served`, async () => {
      try {
        await custom.listClusterCustomObject({ group: g.group, version: g.version, plural: g.plural });
        return true;
      } catch (e) {
        if (isApiError(e, 404) || isApiError(e, 429)) return undefined;
        throw e;
      }
    });
  }
}

/** RICs left by an earlier, interrupted run would conflict with this run's; they carry the test label. */
async function deleteLeftoverRics(): Promise<void> {
  const g = GVR.ResourceInterpreterCustomization!;
  const list = (await custom.listClusterCustomObject({ group: g.group, version: g.version, plural: g.plural, labelSelector: TEST_LABEL })) as { items: Record<string, any>[] };
  for (const r of list.items) await ignore(custom.deleteClusterCustomObject({ group: g.group, version: g.version, plural: g.plural, name: r.metadata.name }), 404);
}

beforeAll(async () => {
  await installCrds();
  await deleteLeftoverRics();
  await ignore(core.createNamespace({ body: { metadata: { name: ns } } }), 409);
  await ignore(core.createNamespace({ body: { metadata: { name: workNs } } }), 409);

  const pki = makePki();
  const certFile = path.join(pki.dir, 'tls.crt');
  const keyFile = path.join(pki.dir, 'tls.key');
  pki.issue(certFile, keyFile, 'karmada-lite-webhook');
  server = new WebhookServer({
    certFile,
    keyFile,
    port: 0,
    bindAddress: '127.0.0.1',
    // debug: a patched or allowed review is logged at debug (a refusal at info), and these tests read both
    logger: createLogger({ level: 'debug', write: (l) => void logs.push(JSON.parse(l) as Record<string, unknown>) }),
    review: { compileLua: luaCompile, listRics: clusterRicLister(kubeConfig('host')) },
  });
  const { port } = await server.start();

  for (const cfg of renderWebhookConfigurations({ url: `https://127.0.0.1:${port}`, caPem: pki.ca })) {
    cfg.metadata.name = `${cfg.metadata.name}-${run}`;
    for (const w of cfg.webhooks) w.objectSelector = { matchLabels: { [TEST_LABEL]: run } };
    if (cfg.kind === 'MutatingWebhookConfiguration') await admission.createMutatingWebhookConfiguration({ body: cfg as any });
    else await admission.createValidatingWebhookConfiguration({ body: cfg as any });
    configNames.push({ kind: cfg.kind, name: cfg.metadata.name });
  }
  // The apiserver picks new webhook configurations up asynchronously: wait until a denial comes from us.
  const probe = mine({ ...example('suspension-conflict-invalid.yaml'), metadata: { name: `probe-${run}` } });
  await waitFor('the webhook to be called by the apiserver', async () => {
    try {
      await create(probe);
      await custom.deleteNamespacedCustomObject({ group: 'policy.karmada.io', version: 'v1alpha1', namespace: ns, plural: 'propagationpolicies', name: probe.metadata.name });
      return undefined;
    } catch (e) {
      return isApiError(e, 403) ? true : undefined;
    }
  });
}, scaled(120_000));

afterAll(async () => {
  for (const c of configNames) {
    if (c.kind === 'MutatingWebhookConfiguration') await ignore(admission.deleteMutatingWebhookConfiguration({ name: c.name }), 404);
    else await ignore(admission.deleteValidatingWebhookConfiguration({ name: c.name }), 404);
  }
  configNames = [];
  await server?.stop();
  await deleteLeftoverRics().catch(() => undefined);
  for (const name of [ns, workNs]) await ignore(core.deleteNamespace({ name }), 404);
});

describe('admission webhook on the host apiserver', () => {
  it('denies suspension-conflict-invalid.yaml with Karmada\'s message', async () => {
    const { code, status } = await apiError(create(mine(example('suspension-conflict-invalid.yaml'))));
    expect(code).toBe(403);
    expect(status.message).toContain('admission webhook "propagationpolicy.policy.karmada.io" denied the request: spec.suspension.suspension: Invalid value: {"dispatching":true,"dispatchingOnClusters":{"clusterNames":["member2"]}}: suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames');
    expect(logs.some((l) => l.verdict === 'denied' && l.name === 'nginx-propagation' && l.kind === 'PropagationPolicy' && typeof l.uid === 'string')).toBe(true);
  });

  it.each(['application-failover.yaml', 'preserve-on-deletion.yaml', 'spread-by-region.yaml', 'suspension-all.yaml', 'suspension-narrowed.yaml', 'suspension-some-clusters.yaml'])(
    'admits %s and returns it with a permanent id, the finalizer and defaults',
    async (file) => {
      const obj = mine(example(file));
      obj.metadata.name = `${obj.metadata.name}-${file.replace('.yaml', '')}`;
      const created = await create(obj);
      expect(created.metadata.labels['propagationpolicy.karmada.io/permanent-id']).toMatch(UUID);
      expect(created.metadata.finalizers).toContain('karmada.io/propagation-policy-controller');
      expect(created.spec.conflictResolution).toBe('Abort');
      expect(created.spec.schedulerName).toBe('default-scheduler');
      for (const s of created.spec.resourceSelectors) expect(s.namespace).toBe(ns);
      if (file === 'application-failover.yaml') {
        expect(created.spec.failover.application).toMatchObject({ purgeMode: 'Gracefully', gracePeriodSeconds: 600, blockPredecessorSeconds: 600, decisionConditions: { tolerationSeconds: 200 } });
      }
      if (file === 'spread-by-region.yaml') expect(created.spec.placement.replicaScheduling.replicaDivisionPreference).toBe('Weighted');
    },
  );

  it('admits the example Work and binding with their permanent ids, and the Work\'s manifests cleaned', async () => {
    const work = mine(example('work-suspended.yaml'), workNs);
    work.spec.workload.manifests[0].metadata.resourceVersion = '42';
    const w = await create(work);
    const id = w.metadata.labels['work.karmada.io/permanent-id'];
    expect(id).toMatch(UUID);
    const m = w.spec.workload.manifests[0];
    expect(m.metadata.resourceVersion).toBeUndefined();
    expect(m.metadata.labels['work.karmada.io/permanent-id']).toBe(id);
    expect(m.metadata.annotations['resourcetemplate.karmada.io/managed-labels']).toBe('work.karmada.io/permanent-id');

    const rb = await create(mine(example('binding-after-failover.yaml')));
    expect(rb.metadata.labels['resourcebinding.karmada.io/permanent-id']).toMatch(UUID);
  });

  it('admits the example RIC', async () => {
    const ric = await create(mine(example('health-customization.yaml')));
    expect(ric.spec.target).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment' });
  });

  it('rewrites a purge-mode alias', async () => {
    const pp = mine(example('application-failover.yaml'));
    pp.metadata.name = 'alias';
    pp.spec.failover.application.purgeMode = 'Immediately';
    delete pp.spec.failover.application.gracePeriodSeconds;
    const created = await create(pp);
    expect(created.spec.failover.application.purgeMode).toBe('Directly');
    expect(logs.some((l) => l.name === 'alias' && l.verdict === 'patched')).toBe(true);
  });

  it('denies changing schedulerName, and the permanent id, on update', async () => {
    const pp = mine(example('suspension-all.yaml'));
    pp.metadata.name = 'immutable';
    const created = await create(pp);
    const changed = { ...created, spec: { ...created.spec, schedulerName: 'my-scheduler' } };
    const { code, status } = await apiError(replace(changed));
    expect(code).toBe(403);
    expect(status.message).toContain('denied the request: the schedulerName should not be updated');
    const relabelled = structuredClone(created);
    relabelled.metadata.labels['propagationpolicy.karmada.io/permanent-id'] = 'mine';
    const second = await apiError(replace(relabelled));
    expect(second.status.message).toContain('label propagationpolicy.karmada.io/permanent-id is immutable, it can only be set by the system during creation');
    // an update that changes neither is fine
    const ok = await replace({ ...created, spec: { ...created.spec, priority: 3 } });
    expect(ok.spec.priority).toBe(3);
  });

  it('denies a RIC whose Lua does not compile', async () => {
    const ric = mine({
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterCustomization',
      metadata: { name: 'broken' },
      spec: { target: { apiVersion: 'example.com/v1', kind: 'Broken' }, customizations: { retention: { luaScript: 'function Retain(desiredObj, observedObj)' } } },
    });
    const { code, status } = await apiError(create(ric));
    expect(code).toBe(403);
    expect(status.message).toContain('denied the request: InterpreterOperation(Retain) Lua script error: <string> at EOF');
  });

  it('denies a RIC that conflicts with one already in the cluster (listed through client-node)', async () => {
    const base = {
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterCustomization',
      spec: { target: { apiVersion: 'example.com/v1', kind: `Widget${run}` }, customizations: { replicaResource: { luaScript: 'function GetReplicas(o) return 1, nil end' } } },
    };
    const first = await create(mine({ ...base, metadata: { name: 'widget-a' } }));
    const { status } = await apiError(create(mine({ ...base, metadata: { name: 'widget-b' } })));
    expect(status.message).toContain(`conflicting with InterpreterOperation(InterpretReplica) of existing ResourceInterpreterCustomization(${first.metadata.name})`);
  });

  it('validates ClusterTaintPolicies on /validate-clustertaintpolicy: NoExecute refused with Karmada\'s text, NoSchedule admitted', async () => {
    const policy = (name: string, effect: string) =>
      mine({
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'ClusterTaintPolicy',
        metadata: { name },
        spec: { addOnConditions: [{ conditionType: 'Ready', operator: 'In', statusValues: ['False'] }], taints: [{ key: 'cluster.karmada.io/not-ready', effect }] },
      });
    const { code, status } = await apiError(create(policy('evict', 'NoExecute')));
    expect(code).toBe(403);
    expect(status.message).toContain(
      'denied the request: spec.taints[0]: Forbidden: Configuring taint with NoExecute effect is not allowed, this capability must be explicitly enabled by administrators through command-line flags',
    );
    const admitted = policy('no-schedule', 'NoSchedule');
    try {
      expect((await create(admitted)).spec.taints).toEqual([{ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' }]);
    } finally {
      await ignore(custom.deleteClusterCustomObject({ group: 'policy.karmada.io', version: 'v1alpha1', plural: 'clustertaintpolicies', name: admitted.metadata.name }), 404);
    }
    expect(logs.some((l) => l.verdict === 'denied' && l.kind === 'ClusterTaintPolicy')).toBe(true);
  });

  it('with failurePolicy Fail, refuses writes while the webhook is down', async () => {
    await server.stop();
    const pp = mine(example('suspension-all.yaml'));
    pp.metadata.name = 'while-down';
    const { code, status } = await apiError(create(pp));
    expect(code).toBe(500);
    expect(status.message).toMatch(/failed calling webhook "propagationpolicy\.policy\.karmada\.io"/);
  });
});
