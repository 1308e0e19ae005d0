import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { parseDocuments, readDocuments } from '../../src/io/documents.js';
import { formatLintResult, lintDocuments } from '../../src/validation/lint.js';
import { DEFAULT_KUBERNETES_VERSION, KUBERNETES_VERSIONS, resolveKubernetesVersion, validateKubernetesObject } from '../../src/validation/kubernetes-schema.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const errorsOf = (file: string) => {
  const docs = readDocuments([join(fixtures, file)], { notice: () => {} });
  return Object.fromEntries(docs.map((d) => [(d.object.metadata as { name: string }).name, validateKubernetesObject(d.object)]));
};

// Every document of deployment-typos.yaml is refused by kube-apiserver v1.34.4 (checked with a server-side
// dry run when the fixture was written); the expected lines are ours, with the field path and the type.
describe('built-in kinds against the Kubernetes API schemas', () => {
  const errors = errorsOf('kubernetes-schema/deployment-typos.yaml');

  it.each([
    ['replicaz', 'spec.replicaz', 'unknown field'],
    ['port-eighty', 'spec.template.spec.containers[0].ports[0].containerPort', 'must be an integer'],
    ['no-selector', 'spec.selector', 'Required value'],
    ['target-port', 'spec.ports[0].targetPort', 'must be an integer or a string'],
    ['cpu-words', 'spec.template.spec.containers[0].resources.limits.cpu', 'must be an integer or a quantity string such as 500m or 1Gi'],
    ['numbers', 'data.port', 'must be a string'],
  ])('%s: %s: %s', (name, path, message) => {
    expect(errors[name]).toEqual([{ path, message }]);
  });

  it('accepts what kubectl prints: creationTimestamp null, empty structs, named ports, fractional quantities', () => {
    expect(Object.values(errorsOf('kubernetes-schema/valid.yaml'))).toEqual([[], [], []]);
  });

  it('accepts objects as the apiserver returns them: status, uid, resourceVersion, managedFields', () => {
    const all = { ...errorsOf('kubectl/get-deploy-svc.yaml'), ...errorsOf('kubectl/api-deployment-list.json') };
    expect(Object.keys(all).sort()).toEqual(['kubernetes', 'web']);
    expect(Object.values(all).every((e) => Array.isArray(e) && e.length === 0)).toBe(true);
  });

  it('has nothing to say about custom resources or Karmada kinds', () => {
    expect(validateKubernetesObject({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { anything: 1 } })).toBeUndefined();
    expect(validateKubernetesObject({ apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy' })).toBeUndefined();
  });

  it('is part of validate and of plan\'s input check (lint), with the document and object named', () => {
    const docs = readDocuments([join(fixtures, 'kubernetes-schema/deployment-typos.yaml')], { notice: () => {} });
    const results = lintDocuments(docs);
    expect(results.map((r) => r.status)).toEqual(Array(6).fill('invalid'));
    expect(formatLintResult(results[0]!, docs[0]!.object)[0]).toBe(`${join(fixtures, 'kubernetes-schema/deployment-typos.yaml')}[0] Deployment replicaz: spec.replicaz: unknown field`);
    const [fine] = lintDocuments(parseDocuments('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: "1"}\n', 'c.yaml'));
    expect(fine!.status).toBe('valid');
    // An object of a List is named by its place in the items.
    const list = parseDocuments('apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}, data: {port: 80}}\n', '<stdin>');
    const listResults = lintDocuments(list);
    expect(listResults.map((r) => r.status)).toEqual(['valid', 'invalid']);
    expect(formatLintResult(listResults[1]!, list[1]!.object)).toEqual(['<stdin>[0].items[1] ConfigMap b: data.port: must be a string']);
  });
});

describe('--kubernetes-version', () => {
  it('ships the version the integration tests run, as the default', () => {
    expect(KUBERNETES_VERSIONS).toContain('v1.34.4');
    expect(DEFAULT_KUBERNETES_VERSION).toBe('v1.34.4');
  });

  it('takes kubeconform\'s spelling, a leading v, or a minor version', () => {
    expect(['1.34.4', 'v1.34.4', '1.34', 'v1.34'].map(resolveKubernetesVersion)).toEqual(Array(4).fill('v1.34.4'));
    expect(resolveKubernetesVersion(undefined)).toBe(DEFAULT_KUBERNETES_VERSION);
  });

  it('refuses a version it has no schemas for, naming those it has', () => {
    expect(() => resolveKubernetesVersion('1.18.0')).toThrow('--kubernetes-version: no schemas for 1.18.0; this build ships v1.34.4');
    expect(() => resolveKubernetesVersion('1.3')).toThrow(/no schemas for 1\.3;/);
  });
});
