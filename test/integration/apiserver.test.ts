// Runs against real kube-apiservers (see scripts/k8s): the generated CRDs must be structural schemas whose
// defaults and enums the apiserver actually applies, not merely manifests it accepts.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { dumpYaml, loadAllYaml, type V1CustomResourceDefinition, type V1Deployment } from '@kubernetes/client-node';
import { parseAllDocuments, parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiError, clients, isApiError, k8sEnv, repoRoot, designExamples, waitFor, type ClusterName } from './env.js';

const crdDir = path.join(repoRoot, 'crds');

// The kinds issue 2 requires a CRD for; a missing one is a generator regression, not something to skip.
const REQUIRED_KINDS = [
  'policy.karmada.io/PropagationPolicy',
  'policy.karmada.io/ClusterPropagationPolicy',
  'policy.karmada.io/OverridePolicy',
  'policy.karmada.io/ClusterOverridePolicy',
  'work.karmada.io/Work',
  'work.karmada.io/ResourceBinding',
  'work.karmada.io/ClusterResourceBinding',
  'cluster.karmada.io/Cluster',
  'config.karmada.io/ResourceInterpreterCustomization',
];

interface CrdFile {
  file: string;
  /** exactly as in the file, for comparing with what the apiserver stored */
  raw: Record<string, any>;
  /**
   * client-node's model form. Its serializer only sends fields it knows under their model names (`_default`,
   * `_enum`, ...), so a plain parsed object would silently lose every default and enum on the way out.
   */
  crd: V1CustomResourceDefinition;
}

function loadCrds(): CrdFile[] {
  if (!existsSync(crdDir)) throw new Error(`${crdDir} does not exist; run \`npm run generate\``);
  const files = readdirSync(crdDir)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort();
  const crds: CrdFile[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(crdDir, file), 'utf8');
    const raws: Record<string, any>[] = [];
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0]!.message}`);
      const obj = doc.toJS() as Record<string, any> | null;
      if (obj) raws.push(obj);
    }
    const models = loadAllYaml(text).filter((o) => o) as V1CustomResourceDefinition[];
    expect(models.length, `documents in ${file}`).toBe(raws.length);
    raws.forEach((raw, i) => crds.push({ file, raw, crd: models[i]! }));
  }
  return crds;
}

const established = (crd: V1CustomResourceDefinition, type: string) =>
  crd.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

// Memoised so that any test can be run alone (-t) and still find the CRDs installed, while a full run
// installs them once.
let installed: Promise<V1CustomResourceDefinition[]> | undefined;
function installCrds(): Promise<V1CustomResourceDefinition[]> {
  installed ??= (async () => {
    const { apiext } = clients('host');
    const crds = loadCrds();
    for (const { crd } of crds) {
      try {
        // exactly as generated: the CRDs must install as they are
        await apiext.createCustomResourceDefinition({ body: crd });
      } catch (e) {
        if (!isApiError(e, 409)) throw e;
        // left by an earlier run against a reused environment; the file may have been regenerated since
        const name = crd.metadata!.name!;
        const live = await apiext.readCustomResourceDefinition({ name });
        await apiext.replaceCustomResourceDefinition({
          name,
          body: { ...crd, metadata: { ...crd.metadata, resourceVersion: live.metadata!.resourceVersion } },
        });
      }
    }
    return Promise.all(
      crds.map(({ crd }) =>
        waitFor(`CRD ${crd.metadata!.name} to be Established`, async () => {
          const live = await apiext.readCustomResourceDefinition({ name: crd.metadata!.name! });
          return established(live, 'Established') ? live : undefined;
        }),
      ),
    );
  })();
  return installed;
}

const storageVersion = (crd: V1CustomResourceDefinition) => crd.spec.versions.find((v) => v.storage)!.name;

// Right after a CRD becomes Established its endpoint can still answer 404 (handler not swapped in yet) or
// 429 "storage is (re)initializing" (watch cache still filling); both clear within a second or two.
async function settled<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const box = await waitFor(what, async () => {
    try {
      return { v: await fn() };
    } catch (e) {
      if (isApiError(e, 404) || isApiError(e, 429)) return undefined;
      throw e;
    }
  });
  return box.v;
}

async function ignoreNotFound(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (e) {
    if (!isApiError(e, 404)) throw e;
  }
}

describe('test environment', () => {
  it('runs the pinned kube-apiserver for host, member1 and member2, each with its own credentials', async () => {
    const env = k8sEnv();
    expect(env.clusters.map((c) => c.name)).toEqual(['host', 'member1', 'member2']);
    expect(new Set(env.clusters.map((c) => c.port)).size).toBe(3);
    for (const c of env.clusters) {
      const info = await clients(c.name).version.getCode();
      expect(info.gitVersion).toBe(env.kubernetesVersion);
      // the bootstrap controller must have created `default`, which the tests below rely on
      const ns = await clients(c.name).core.readNamespace({ name: 'default' });
      expect(ns.status?.phase).toBe('Active');
    }
  });
});

describe('host: generated CRDs', () => {
  it('every generated CRD installs as is, becomes Established and is served', async () => {
    const files = loadCrds();
    const kinds = files.map(({ raw }) => `${raw.spec?.group}/${raw.spec?.names?.kind}`);
    expect(kinds).toEqual(expect.arrayContaining(REQUIRED_KINDS));
    for (const { file, raw } of files) {
      expect(raw.apiVersion, file).toBe('apiextensions.k8s.io/v1');
      expect(raw.kind, file).toBe('CustomResourceDefinition');
    }

    const live = await installCrds();
    expect(live).toHaveLength(files.length);
    for (const [i, crd] of live.entries()) {
      const name = crd.metadata!.name!;
      expect(established(crd, 'NamesAccepted'), `${name} NamesAccepted`).toBe(true);
      // a non-structural schema still installs, but is flagged and then gets no defaulting or pruning
      expect(established(crd, 'NonStructuralSchema'), `${name} NonStructuralSchema`).toBe(false);
      // the apiserver stored every schema keyword the generator wrote: nothing was lost on the way
      const stored = parse(dumpYaml(crd)) as Record<string, any>;
      const schemas = (o: Record<string, any>) => o.spec.versions.map((v: Record<string, any>) => [v.name, v.schema]);
      expect(schemas(stored), name).toEqual(schemas(files[i]!.raw));
    }

    const { custom } = clients('host');
    for (const crd of live) {
      const { group, names, scope } = crd.spec;
      const version = storageVersion(crd);
      const list = (await settled(`list ${names.plural}.${group}`, () =>
        scope === 'Namespaced'
          ? custom.listNamespacedCustomObject({ group, version, plural: names.plural, namespace: 'default' })
          : custom.listClusterCustomObject({ group, version, plural: names.plural }),
      )) as { kind: string; items: unknown[] };
      expect(list.kind).toBe(`${names.kind}List`);
      expect(Array.isArray(list.items)).toBe(true);
    }
  });
});

describe('host: PropagationPolicy served by the generated CRD', () => {
  const group = 'policy.karmada.io';
  const version = 'v1alpha1';
  const plural = 'propagationpolicies';
  const example = parse(readFileSync(path.join(designExamples, 'suspension-all.yaml'), 'utf8')) as Record<string, any>;
  const custom = () => clients('host').custom;
  const create = (namespace: string, body: object) =>
    settled(`create in ${plural}.${group}`, () => custom().createNamespacedCustomObject({ group, version, namespace, plural, body })) as Promise<
      Record<string, any>
    >;
  const remove = (namespace: string, name: string) =>
    ignoreNotFound(custom().deleteNamespacedCustomObject({ group, version, namespace, plural, name }));

  beforeAll(async () => {
    await installCrds();
  });

  it('suspension-all.yaml is stored and read back with the schema defaults applied by the apiserver', async () => {
    // the defaults must come from the apiserver, not from the example
    expect(example.kind).toBe('PropagationPolicy');
    expect(example.spec.conflictResolution).toBeUndefined();
    expect(example.spec.priority).toBeUndefined();
    expect(example.spec.schedulerName).toBeUndefined();

    const { namespace, name } = example.metadata as { namespace: string; name: string };
    await remove(namespace, name);
    const created = await create(namespace, example);
    expect(created.metadata.uid).toBeTruthy();

    const got = (await custom().getNamespacedCustomObject({ group, version, namespace, plural, name })) as Record<string, any>;
    expect(got.metadata.uid).toBe(created.metadata.uid);
    expect(got.spec.conflictResolution).toBe('Abort');
    expect(got.spec.priority).toBe(0);
    expect(got.spec.schedulerName).toBe('default-scheduler');
    // and nothing the example said was pruned or rewritten
    expect(got.spec.suspension).toEqual({ dispatching: true });
    expect(got.spec.placement.clusterAffinity.clusterNames).toEqual(['member1', 'member2', 'member3']);
    expect(got.spec.resourceSelectors).toEqual(example.spec.resourceSelectors);
  });

  it('rejects a PropagationPolicy whose replicaSchedulingType is not in the enum (422)', async () => {
    const namespace = 'default';
    const withScheduling = (name: string, replicaSchedulingType: string) => ({
      apiVersion: `${group}/${version}`,
      kind: 'PropagationPolicy',
      metadata: { name, namespace },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }],
        placement: {
          clusterAffinity: { clusterNames: ['member1'] },
          replicaScheduling: { replicaSchedulingType },
        },
      },
    });
    await remove(namespace, 'valid-scheduling');
    await remove(namespace, 'bogus-scheduling');

    // control: the same object with a valid value is accepted, so the rejection below is about the enum
    const ok = await create(namespace, withScheduling('valid-scheduling', 'Duplicated'));
    expect(ok.spec.placement.replicaScheduling.replicaSchedulingType).toBe('Duplicated');

    const { code, status } = await apiError(
      custom().createNamespacedCustomObject({ group, version, namespace, plural, body: withScheduling('bogus-scheduling', 'Bogus') }),
    );
    expect(code).toBe(422);
    expect(status.reason).toBe('Invalid');
    const cause = status.details?.causes?.find((c) => c.field === 'spec.placement.replicaScheduling.replicaSchedulingType');
    expect(cause, JSON.stringify(status)).toBeDefined();
    expect(cause!.message).toContain('Unsupported value: "Bogus"');

    const missing = await apiError(custom().getNamespacedCustomObject({ group, version, namespace, plural, name: 'bogus-scheduling' }));
    expect(missing.code).toBe(404);
  });
});

describe('member apiservers', () => {
  const deployment = (name: string): V1Deployment => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default', labels: { app: name } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
      },
    },
  });
  const fresh = async (member: ClusterName, body: V1Deployment) => {
    const { apps } = clients(member);
    await ignoreNotFound(apps.deleteNamespacedDeployment({ namespace: 'default', name: body.metadata!.name! }));
    return apps.createNamespacedDeployment({ namespace: 'default', body });
  };

  it.each<ClusterName>(['member1', 'member2'])('%s accepts a Deployment and applies the built-in defaults', async (member) => {
    const { apps } = clients(member);
    const name = `nginx-${member}`;
    await fresh(member, deployment(name));

    const got = await apps.readNamespacedDeployment({ namespace: 'default', name });
    expect(got.spec?.replicas).toBe(2);
    expect(got.spec?.template.spec?.containers[0]?.image).toBe('nginx:1.27');
    expect(got.spec?.strategy?.type).toBe('RollingUpdate');
    expect(got.spec?.revisionHistoryLimit).toBe(10);
    expect(got.spec?.progressDeadlineSeconds).toBe(600);

    // it validates too: the server is a real apiserver, not a store that accepts anything
    const bad = deployment(`bad-${member}`);
    bad.spec!.replicas = -1;
    const { code } = await apiError(apps.createNamespacedDeployment({ namespace: 'default', body: bad }));
    expect(code).toBe(422);
  });

  it('members and host are separate clusters sharing one etcd', async () => {
    const name = 'only-on-member1';
    await fresh('member1', deployment(name));
    for (const other of ['member2', 'host'] as const) {
      const { code } = await apiError(clients(other).apps.readNamespacedDeployment({ namespace: 'default', name }));
      expect(code, `${name} visible on ${other}`).toBe(404);
    }

    // the karmada CRDs are installed in host only
    await installCrds();
    const { code } = await apiError(
      clients('member1').custom.listNamespacedCustomObject({
        group: 'policy.karmada.io',
        version: 'v1alpha1',
        plural: 'propagationpolicies',
        namespace: 'default',
      }),
    );
    expect(code).toBe(404);
  });
});
