import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readDocuments, parseDocuments, InputError } from '../../src/io/documents.js';
import { formatLintResult, lintDocuments, lintExitCode } from '../../src/validation/lint.js';

const root = join(import.meta.dirname, '..', '..');
const examples = join(root, 'test', 'fixtures', 'design-examples');
const cli = (args: string[], input?: string) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), ...args], { cwd: root, encoding: 'utf8', input });

function lintFile(path: string): string[] {
  const docs = readDocuments([path]);
  return lintDocuments(docs).flatMap((r, i) => formatLintResult(r, docs[i]!.object));
}

describe('validate: malformed documents', () => {
  const file = 'test/fixtures/validate/malformed.yaml';
  const lines = lintFile(join(root, file)).map((l) => l.replace(join(root, file), file));

  it.each([
    'malformed.yaml[0] PropagationPolicy default/bad-type: spec.placement.replicaScheduling.replicaSchedulingType: must be one of Duplicated, Divided',
    'malformed.yaml[1] PropagationPolicy default/no-selectors: spec.resourceSelectors: Required value',
    'malformed.yaml[2] PropagationPolicy default/typo: spec.placment: unknown field',
    'malformed.yaml[3] PropagationPolicy default/priority-string: spec.priority: must be an integer',
    'malformed.yaml[4] ClusterPropagationPolicy selector-no-kind: spec.resourceSelectors[0].kind: Required value',
    'malformed.yaml[5] PropagationPolicy default/bad-purge: spec.failover.application.purgeMode: must be one of Directly, Gracefully, Never',
    'malformed.yaml[6] OverridePolicy default/bad-operator: spec.overrideRules[0].overriders.plaintext[0].operator: must be one of add, remove, replace',
    'malformed.yaml[7] PropagationPolicy default/<no name>: metadata: name or generateName is required',
    'malformed.yaml[8] Cluster member1: spec.taints[0].effect: must be one of NoSchedule, PreferNoSchedule, NoExecute',
    'malformed.yaml[9] Cluster member2: spec.zones: must be a list',
    'malformed.yaml[10] ResourceBinding default/nginx-deployment: spec.clusters[0].replicas: must be an integer',
    'malformed.yaml[11] ResourceInterpreterCustomization no-target: spec.target: Required value',
    'malformed.yaml[12] Cluster member3: status.resourceSummary.allocatable.cpu: must be an integer or a quantity string such as 500m or 1Gi',
    'malformed.yaml[13] ResourceBinding default/evicted: spec.activeEvictionHistory[0].creationTimestamp: must be an RFC 3339 date-time such as 2024-01-02T15:04:05Z',
    'malformed.yaml[14] ConfigMap default/<no name>: metadata.name: Required value',
  ])('%s', (expected) => {
    expect(lines.map((l) => l.replace('test/fixtures/validate/', ''))).toContain(expected);
  });

  it('reports exactly one error per malformed document', () => {
    expect(lines).toHaveLength(15);
  });
});

describe('validate: documents that are fine', () => {
  it('accepts every example from the design documents except the one marked INVALID', () => {
    const files = readdirSync(examples).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(10);
    const results = lintDocuments(readDocuments([examples]));
    const rejected = results.filter((r) => r.status !== 'valid').map((r) => r.file.split('/').pop());
    expect(rejected).toEqual(['suspension-conflict-invalid.yaml']);
  });

  it('accepts custom resources of groups it does not own as resource templates', () => {
    const [doc] = parseDocuments('apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n', 'w.yaml');
    expect(lintDocuments([doc!])[0]!.status).toBe('valid');
  });
});

describe('validate: unreadable input', () => {
  it('rejects an unknown kind in a karmada group as unknown, naming what the group serves', () => {
    const docs = parseDocuments('apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicyy\nmetadata: {name: x}\n', 'x.yaml');
    const [r] = lintDocuments(docs);
    expect(r!.status).toBe('unknown');
    expect(r!.errors[0]!.message).toMatch(/^unknown apiVersion\/kind policy.karmada.io\/v1alpha1 PropagationPolicyy; policy.karmada.io serves .*PropagationPolicy/);
    expect(lintExitCode([r!])).toBe(2);
  });

  it('rejects a misspelt built-in kind', () => {
    const [r] = lintDocuments(parseDocuments('apiVersion: apps/v1\nkind: Deploymnt\nmetadata: {name: x}\n', 'x.yaml'));
    expect(r!.status).toBe('unknown');
  });

  it('names the file and document of bad YAML', () => {
    expect(() => parseDocuments('a: 1\n---\nb: [1, 2\n', 'bad.yaml')).toThrow(InputError);
    expect(() => parseDocuments('a: 1\n---\nb: [1, 2\n', 'bad.yaml')).toThrow(/^bad\.yaml\[1\]: invalid YAML/);
  });

  it('rejects a document that is not a mapping', () => {
    expect(() => parseDocuments('- a\n- b\n', 'list.yaml')).toThrow(/list\.yaml\[0\]: expected a Kubernetes object/);
  });
});

describe('karmada-lite validate (the command)', () => {
  it('exits 0 on valid input and prints a summary', () => {
    const r = cli(['validate', '-f', join(examples, 'suspension-all.yaml')]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('1 document(s) in 1 file(s): 1 valid, 0 invalid');
  });

  it('exits 1 on invalid input, errors on stderr', () => {
    const r = cli(['validate', '-f', 'test/fixtures/validate/malformed.yaml']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('test/fixtures/validate/malformed.yaml[0] PropagationPolicy default/bad-type: spec.placement.replicaScheduling.replicaSchedulingType: must be one of Duplicated, Divided');
  });

  it('exits 2 on a missing file, bad YAML from stdin, or an unknown kind', () => {
    expect(cli(['validate', '-f', 'does-not-exist.yaml']).status).toBe(2);
    const bad = cli(['validate', '-f', '-'], 'kind: [\n');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('<stdin>[0]: invalid YAML');
    expect(cli(['validate', '-f', '-'], 'apiVersion: work.karmada.io/v1alpha2\nkind: Wrk\nmetadata: {name: a}\n').status).toBe(2);
  });

  it('exits 2 on a usage error and 0 on --help and --version', () => {
    expect(cli(['validate']).status).toBe(2);
    expect(cli(['frobnicate']).status).toBe(2);
    const help = cli(['validate', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Exit status: 0 all valid, 1 something is invalid, 2 unreadable input');
    const version = cli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('gives machine-readable results with -o json', () => {
    const r = cli(['validate', '-o', 'json', '-f', 'test/fixtures/validate/malformed.yaml']);
    const results = JSON.parse(r.stdout) as Array<{ index: number; status: string; errors: unknown[] }>;
    expect(results).toHaveLength(15);
    expect(results.every((x) => x.status === 'invalid' && x.errors.length === 1)).toBe(true);
  });
});

describe('karmada-lite crds', () => {
  it('prints one CRD per kind, structural, with defaults', () => {
    const r = cli(['crds']);
    expect(r.status).toBe(0);
    const docs = parseDocuments(r.stdout, 'crds');
    expect(docs.map((d) => (d.object.metadata as { name: string }).name).sort()).toEqual([
      'clusteroverridepolicies.policy.karmada.io',
      'clusterpropagationpolicies.policy.karmada.io',
      'clusterresourcebindings.work.karmada.io',
      'clusters.cluster.karmada.io',
      'clustertaintpolicies.policy.karmada.io',
      'cronfederatedhpas.autoscaling.karmada.io',
      'federatedhpas.autoscaling.karmada.io',
      'federatedresourcequotas.policy.karmada.io',
      'multiclusterservices.networking.karmada.io',
      'overridepolicies.policy.karmada.io',
      'propagationpolicies.policy.karmada.io',
      'remedies.remedy.karmada.io',
      'resourcebindings.work.karmada.io',
      'resourceinterpretercustomizations.config.karmada.io',
      'resourceinterpreterwebhookconfigurations.config.karmada.io',
      'resourceregistries.search.karmada.io',
      'serviceexports.multicluster.x-k8s.io',
      'serviceimports.multicluster.x-k8s.io',
      'workloadrebalancers.apps.karmada.io',
      'works.work.karmada.io',
    ]);
    const pp = docs.find((d) => (d.object.metadata as { name: string }).name === 'propagationpolicies.policy.karmada.io')!.object as any;
    const spec = pp.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    expect(spec.conflictResolution.default).toBe('Abort');
    expect(spec.schedulerName.default).toBe('default-scheduler');
    expect(JSON.stringify(pp)).not.toContain('$ref');
  });
});

describe('validate and plan: input as kubectl gives it', () => {
  const kubectlOut = (f: string) => readFileSync(join(root, 'test', 'fixtures', 'kubectl', f), 'utf8');

  it('`kubectl get pp -A -o yaml | karmada-lite validate -f -` (the README example) checks the List\'s items', () => {
    const r = cli(['validate', '-f', '-'], kubectlOut('get-pp-all-namespaces.yaml'));
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('1 document(s) in 1 file(s): 1 valid, 0 invalid\n');
    expect(r.status).toBe(0);
  });

  it('plans live objects from `kubectl get -o yaml`: status, uid, resourceVersion and managedFields accepted', () => {
    const pp = join(root, 'test', 'fixtures', 'kubectl', 'get-pp-all-namespaces.yaml');
    const r = cli(['plan', '-f', pp, '-', '--clusters', 'examples/fleet', '--at', '2024-01-01T00:00:00Z', '-o', 'table'], kubectlOut('get-deploy-svc.yaml'));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Deployment\/default\/web +default\/web +member1 +2 /);
    expect(r.stdout).toMatch(/Deployment\/default\/web +default\/web +member2 +1 /);
  });

  it('exits 1 on no objects at all (a failed `kubectl get` upstream), saying what was expected', () => {
    const empty = cli(['validate', '-f', '-'], '');
    expect(empty.status).toBe(1);
    expect(empty.stderr).toBe('error: no objects in standard input: expected Kubernetes objects (YAML or JSON documents with apiVersion and kind, or a kind: List of them); if a command feeds this pipe, check that it succeeded\n');
    const plan = cli(['plan', '-f', '-'], 'apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: ""\n');
    expect(plan.status).toBe(1);
    expect(plan.stderr).toMatch(/^error: no objects in standard input: expected Kubernetes objects/);
  });

  it('reads a repository folder: non-manifests skipped with a notice on stderr, counted in the summary', () => {
    const r = cli(['validate', '-f', 'test/fixtures/repo', '--skip-kinds', 'ConfigMap', '--ignore-filename-pattern', '/\\.github/']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('2 document(s) in 2 file(s): 2 valid, 0 invalid, 10 skipped\n');
    expect(r.stderr).toContain('skipped test/fixtures/repo/chart: a Helm chart, not manifests');
    expect(r.stderr).toContain('skipped test/fixtures/repo/kustomization.yaml: a kustomize configuration, not a manifest');
    expect(r.stderr).not.toContain('.github');
  });

  it('fails a Deployment with an unknown field or a wrong type, naming the field and the expected type', () => {
    const r = cli(['validate', '-f', 'test/fixtures/kubernetes-schema/deployment-typos.yaml', '--kubernetes-version', '1.34.4']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('deployment-typos.yaml[0] Deployment replicaz: spec.replicaz: unknown field\n');
    expect(r.stderr).toContain('deployment-typos.yaml[1] Deployment port-eighty: spec.template.spec.containers[0].ports[0].containerPort: must be an integer\n');
    const old = cli(['validate', '-f', 'test/fixtures/kubernetes-schema/valid.yaml', '--kubernetes-version', '1.18.0']);
    expect(old.status).toBe(2);
    expect(old.stderr).toBe('error: --kubernetes-version: no schemas for 1.18.0; this build ships v1.34.4\n');
  });

  it('`interpret test` on a folder with no test cases, and `interpret --check` on no RICs, exit 1 saying what was expected', () => {
    const r = cli(['interpret', 'test', 'test/fixtures/repo']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error: no test cases in test\/fixtures\/repo: expected <group>\/<version>\/<Kind>\/testdata\/\*\.yaml/);
    const check = cli(['interpret', '--check', '-f', '-'], '');
    expect(check.status).toBe(1);
    expect(check.stderr).toMatch(/^error: no objects in standard input/);
  });
});
