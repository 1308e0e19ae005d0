// -o as kubectl prints objects: json/yaml (one object, or a v1 List), name, wide, jsonpath templates and
// custom-columns, checked on the printer and through the commands that print objects (crds, interpret).
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { executeJsonPath, parseJsonPathTemplate } from '../../src/cli/jsonpath.js';
import { objectName, parseOutput, printObjects, type KubeObject } from '../../src/cli/output.js';
import { KINDS } from '../../src/api/generated/kinds.js';
import { runCli } from './run-cli.js';
import { join } from 'node:path';

const fx = (name: string) => join(import.meta.dirname, '..', 'fixtures', 'cli', name);

const deploy = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'prod', labels: { app: 'web', 'app.kubernetes.io/name': 'shop' } },
  spec: { replicas: 3, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }, { name: 'sidecar', image: 'envoy:1.30' }] } } },
  status: { conditions: [{ type: 'Available', status: 'True' }, { type: 'Progressing', status: 'False' }] },
};
const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1' } };
const list = { apiVersion: 'v1', kind: 'List', items: [deploy, cm] };

const jp = (template: string, root: unknown = list) => executeJsonPath(parseJsonPathTemplate(template), root);

describe('jsonpath templates as kubectl runs them', () => {
  it.each([
    ['{.items[*].metadata.name}', 'web settings'],
    ['{range .items[*]}{.kind}/{.metadata.name}{"\\n"}{end}', 'Deployment/web\nConfigMap/settings\n'],
    ['{.items[0].spec.replicas}', '3'],
    ['{.items[-1].metadata.name}', 'settings'],
    ['{.items[0:1].metadata.name}', 'web'],
    ['{.items[0,1].kind}', 'Deployment ConfigMap'],
    ["{.items[0].metadata.labels['app.kubernetes.io/name']}", 'shop'],
    // kubectl's escaped dot in a field name
    ['{.items[0].metadata.labels.app\\.kubernetes\\.io/name}', 'shop'],
    ['{range .items[*]}{.metadata.labels.app\\.kubernetes\\.io/name}{","}{end}', 'shop,,'],
    ['{.items[0].metadata.labels}', '{"app":"web","app.kubernetes.io/name":"shop"}'],
    ['{.items[0].spec.template.spec.containers[*].image}', 'nginx:1.27 envoy:1.30'],
    ['{.items[?(@.kind=="ConfigMap")].data.a}', '1'],
    ['{.items[0].status.conditions[?(@.status=="True")].type}', 'Available'],
    ['{.items[?(@.spec.replicas > 2)].metadata.name}', 'web'],
    ['{.items[?(@.data)].metadata.name}', 'settings'],
    ['{..image}', 'nginx:1.27 envoy:1.30'],
    ['kinds: {.items[*].kind}.', 'kinds: Deployment ConfigMap.'],
    ['{.items[0].metadata.missing}', ''],
    ['{$.kind}', 'List'],
    ['{.}', JSON.stringify(cm)],
  ])('%s', (template, expected) => {
    expect(jp(template, template === '{.}' ? cm : list)).toBe(expected);
  });

  it.each([
    ['{.items', 'unclosed action'],
    ['{range .items[*]}{.kind}', 'without an {end}'],
    ['{end}', 'without a {range'],
    ['{.items[x]}', 'invalid array index'],
  ])('%s is an error that says why', (template, message) => {
    expect(() => parseJsonPathTemplate(template)).toThrow(message);
  });
});

describe('the printer', () => {
  it('prints one object as itself and several as a v1 List, in json and yaml', () => {
    const one = parseOutput('json', ['json']);
    expect(JSON.parse(printObjects([cm], one))).toEqual(cm);
    expect(JSON.parse(printObjects([deploy, cm], one))).toMatchObject({ apiVersion: 'v1', kind: 'List', items: [deploy, cm] });
    expect(parse(printObjects([deploy, cm], parseOutput('yaml', ['yaml'])))).toMatchObject({ kind: 'List', items: [deploy, cm] });
  });

  it('-o name is kind.group/name, the group left out for the core group', () => {
    expect(printObjects([deploy, cm], parseOutput('name', ['name']))).toBe('deployment.apps/web\nconfigmap/settings\n');
    expect(objectName({ apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: 'p' } })).toBe('propagationpolicy.policy.karmada.io/p');
  });

  it('-o custom-columns: a header per column, <none> for nothing, several values joined by commas', () => {
    const out = parseOutput('custom-columns=NAME:.metadata.name,IMAGES:.spec.template.spec.containers[*].image,NS:{.metadata.namespace}', ['custom-columns']);
    expect(printObjects([deploy, cm] as KubeObject[], out)).toBe(['NAME       IMAGES                  NS', 'web        nginx:1.27,envoy:1.30   prod', 'settings   <none>                  <none>', ''].join('\n'));
  });

  it('-o wide shows the columns a narrow table leaves out', () => {
    const columns = [
      { header: 'NAME', value: (o: KubeObject) => String(o.metadata?.name) },
      { header: 'KIND', value: (o: KubeObject) => String(o.kind), wide: true },
    ];
    expect(printObjects([cm], parseOutput('wide', ['wide', 'table']), { columns })).toBe('NAME       KIND\nsettings   ConfigMap\n');
    expect(printObjects([cm], parseOutput('table', ['wide', 'table']), { columns })).toBe('NAME\nsettings\n');
  });

  it('refuses formats the command does not print, listing the ones it does', () => {
    expect(() => parseOutput('name', ['yaml', 'json'])).toThrow('--output must be one of yaml, json, got "name"');
    expect(() => parseOutput('jsonpath', ['jsonpath'])).toThrow('-o jsonpath needs a template');
    expect(() => parseOutput('custom-columns=NAME', ['custom-columns'])).toThrow('is not HEADER:.path');
    expect(() => parseOutput('json=x', ['json'])).toThrow('--output must be one of json');
  });
});

describe('commands that print objects', () => {
  it('crds: yaml is the multi-document stream kubectl apply takes; json a List; name, wide and jsonpath', async () => {
    const yaml = await runCli(['crds']);
    expect(parseAllDocuments(yaml.stdout)).toHaveLength(KINDS.length);
    const json = JSON.parse((await runCli(['crds', '-o', 'json'])).stdout) as { kind: string; items: unknown[] };
    expect(json.kind).toBe('List');
    expect(json.items).toHaveLength(KINDS.length);
    const names = (await runCli(['crds', '-o', 'name'])).stdout.trim().split('\n');
    expect(names).toContain('customresourcedefinition.apiextensions.k8s.io/propagationpolicies.policy.karmada.io');
    const wide = (await runCli(['crds', '-o', 'wide'])).stdout.split('\n');
    expect(wide[0]).toMatch(/^NAME +KIND +SCOPE +VERSIONS +SHORTNAMES$/);
    expect(wide.find((l) => l.startsWith('propagationpolicies.'))).toMatch(/PropagationPolicy +Namespaced +v1alpha1 +pp$/);
    const kinds = (await runCli(['crds', '-o', 'jsonpath={range .items[*]}{.spec.names.kind}{"\\n"}{end}'])).stdout;
    expect(kinds.split('\n')).toContain('ResourceInterpreterCustomization');
  });

  it('plan -o name lists the bindings and Works the plan makes, as kubectl -o name', async () => {
    const r = await runCli(['plan', fx('app-no-namespace.yaml'), '-n', 'staging', '--at', '2024-01-01T00:00:00Z', '-o', 'name']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^resourcebinding\.work\.karmada\.io\/web-deployment\nwork\.work\.karmada\.io\/web-[0-9a-f]+\n$/);
  });

  it('interpret --operation: yaml as karmadactl lists results, json one object by result name, jsonpath on it', async () => {
    const args = ['interpret', fx('health-ric.yaml'), '--operation', 'InterpretReplica', '--desired-file', fx('deployment.yaml')];
    expect((await runCli(args)).stdout).toBe('---\n# [1/2] replica:\n3\n---\n# [2/2] requires:\n{}\n');
    expect(JSON.parse((await runCli([...args, '-o', 'json'])).stdout)).toEqual({ replica: 3, requires: {} });
    expect((await runCli([...args, '-o', 'jsonpath={.replica}'])).stdout).toBe('3');
  });
});
