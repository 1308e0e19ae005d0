import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentLocation, emptyInputMessage, InputError, parseDocuments, readInput } from '../../src/io/documents.js';

const root = join(import.meta.dirname, '..', '..');
const kubectl = (f: string) => join(root, 'test', 'fixtures', 'kubectl', f);
const repo = join(root, 'test', 'fixtures', 'repo');
const quiet = { notice: () => {} };
const names = (docs: Array<{ object: Record<string, unknown> }>) => docs.map((d) => `${String(d.object.kind)}/${String((d.object.metadata as { name?: string }).name)}`);

describe('input as kubectl gives it', () => {
  it('unwraps `kubectl get -o yaml` (a kind: List) into its items, each remembering its place', () => {
    const { documents } = readInput([kubectl('get-deploy-svc.yaml')], quiet);
    expect(names(documents)).toEqual(['Deployment/web', 'Service/kubernetes', 'Service/web']);
    expect(documents.map(documentLocation)).toEqual([0, 1, 2].map((i) => `${kubectl('get-deploy-svc.yaml')}[0].items[${i}]`));
  });

  it('unwraps `kubectl get -o json` the same way: JSON is YAML too', () => {
    const { documents } = readInput([kubectl('get-deploy.json')], quiet);
    expect(names(documents)).toEqual(['Deployment/web']);
    expect(documents[0]!.item).toBe(0);
  });

  it('unwraps a typed list as the API returns a collection, giving its items the apiVersion and kind they leave out', () => {
    const raw = JSON.parse(readFileSync(kubectl('api-deployment-list.json'), 'utf8')) as { kind: string; items: Array<Record<string, unknown>> };
    expect(raw.kind).toBe('DeploymentList');
    expect(raw.items[0]!.kind).toBeUndefined();
    const [doc] = readInput([kubectl('api-deployment-list.json')], quiet).documents;
    expect(doc!.object.apiVersion).toBe('apps/v1');
    expect(doc!.object.kind).toBe('Deployment');
    expect((doc!.object.status as { readyReplicas: number }).readyReplicas).toBe(3);
  });

  it('unwraps a List read from standard input, and Lists nested in Lists', () => {
    const text = 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n';
    expect(names(readInput(['-'], { ...quiet, stdin: () => text }).documents)).toEqual(['ConfigMap/a', 'ConfigMap/b']);
  });

  it('keeps a kind that merely ends in "List" when it holds no items list', () => {
    const [doc] = parseDocuments('apiVersion: example.com/v1\nkind: AllowList\nmetadata: {name: x}\nitems: {a: 1}\n', 'x.yaml');
    expect(doc!.object.kind).toBe('AllowList');
  });

  it('finds no objects in an empty List, and says what it expected', () => {
    const text = 'apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: ""\n';
    const input = readInput(['-'], { ...quiet, stdin: () => text });
    expect(input.documents).toEqual([]);
    expect(emptyInputMessage(['-'], input)).toMatch(/^no objects in standard input: expected Kubernetes objects .*kind: List.*check that it succeeded$/);
  });

  it('finds no objects in empty standard input', () => {
    expect(readInput(['-'], { ...quiet, stdin: () => '' }).documents).toEqual([]);
  });
});

describe('folders as real repositories hold them', () => {
  const read = (opts = {}) => {
    const notices: string[] = [];
    const input = readInput([repo], { notice: (m) => notices.push(m.replaceAll(repo, 'repo')), ...opts });
    return { ...input, notices };
  };

  it('reads the manifests, Go templates inside their strings and block scalars included', () => {
    expect(names(read().documents).sort()).toEqual(['ConfigMap/alerts', 'Deployment/web', 'PropagationPolicy/web']);
  });

  it('skips kustomizations, the patches they name, Helm charts, values, templates and non-Kubernetes YAML, each with a notice', () => {
    const { notices } = read();
    expect(notices.sort()).toEqual([
      'skipped repo/.github/workflows/ci.yaml[0]: not a Kubernetes object (no apiVersion, no kind)',
      'skipped repo/chart: a Helm chart, not manifests; render it first (helm template repo/chart) and pass the output with -f -',
      'skipped repo/config/settings.yaml[0]: not a Kubernetes object (no apiVersion, no kind)',
      'skipped repo/kustomization.yaml: a kustomize configuration, not a manifest; render it first (kubectl kustomize repo) and pass the output with -f -',
      'skipped repo/overlays/prod/kustomization.yml: a kustomize configuration, not a manifest; render it first (kubectl kustomize repo/overlays/prod) and pass the output with -f -',
      'skipped repo/overlays/prod/replicas.yaml: a kustomize patch (named in repo/overlays/prod/kustomization.yml), not a manifest',
      'skipped repo/templates/configmap.yaml: a template ({{ }}), not a manifest; render it first and pass the result',
      'skipped repo/templates/service.yaml: a template ({{ }}), not a manifest; render it first and pass the result',
      'skipped repo/values-prod.yaml: a Helm chart file (Chart.yaml, values), not a manifest',
    ]);
  });

  it('skips a kustomization given as a file too, and a kustomize kind read from standard input', () => {
    expect(readInput([join(repo, 'kustomization.yaml')], quiet).documents).toEqual([]);
    const text = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml]\n';
    expect(readInput(['-'], { ...quiet, stdin: () => text }).skipped.map((s) => s.reason)).toEqual(['a kustomize Kustomization, not a manifest']);
  });

  it('--skip-kinds leaves out kinds or apiVersion/kinds, comma-separated and repeated, without a notice', () => {
    const { documents, skipped, notices } = read({ skipKinds: ['ConfigMap,policy.karmada.io/v1alpha1/PropagationPolicy'] });
    expect(names(documents)).toEqual(['Deployment/web']);
    expect(skipped.filter((s) => s.requested).map((s) => s.reason).sort()).toEqual(['kind ConfigMap is in --skip-kinds', 'kind PropagationPolicy is in --skip-kinds']);
    expect(notices.some((n) => n.includes('--skip-kinds'))).toBe(false);
    expect(names(read({ skipKinds: ['apps/v1/Deployment', 'ConfigMap'] }).documents)).toEqual(['PropagationPolicy/web']);
    // apps/v1/Service is no kind: nothing is left out.
    expect(read({ skipKinds: ['apps/v1/Service'] }).documents).toHaveLength(3);
  });

  it('--ignore-filename-pattern does not read matching paths, folders included, without a notice', () => {
    const { documents, notices } = read({ ignoreFilenamePatterns: ['/base/alerts', '/\\.github/', 'config/'] });
    expect(names(documents).sort()).toEqual(['Deployment/web', 'PropagationPolicy/web']);
    expect(notices.some((n) => n.includes('.github') || n.includes('config/'))).toBe(false);
  });

  it('refuses an --ignore-filename-pattern that is no regular expression, naming the flag', () => {
    expect(() => readInput([repo], { ...quiet, ignoreFilenamePatterns: ['(['] })).toThrow(InputError);
    expect(() => readInput([repo], { ...quiet, ignoreFilenamePatterns: ['(['] })).toThrow(/^--ignore-filename-pattern: "\(\[" is not a regular expression/);
  });

  it('keeps documents without apiVersion and kind when the input is not objects (plan --status entries)', () => {
    const text = 'cluster: member1\napiVersion: apps/v1\nkind: Deployment\nname: web\nhealth: Healthy\n---\nitems:\n- {cluster: member2}\n';
    expect(readInput(['-'], { ...quiet, objects: false, stdin: () => text }).documents).toHaveLength(2);
    expect(readInput(['-'], { ...quiet, stdin: () => text }).documents).toHaveLength(1);
  });

  it('still stops on YAML that does not parse, naming the file and document', () => {
    expect(() => readInput(['-'], { ...quiet, stdin: () => 'apiVersion: v1\n---\nkind: [\n' })).toThrow(/^<stdin>\[1\]: invalid YAML/);
  });
});
