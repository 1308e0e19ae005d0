// `karmada-lite validate` with defaulting and the admission rules: real processes, precise messages.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { lintDocuments } from '../../src/validation/lint.js';
import { parseDocuments, readDocuments } from '../../src/io/documents.js';

const root = join(import.meta.dirname, '..', '..');
const examples = join(root, 'test', 'fixtures', 'design-examples');
const fixtures = 'test/validation/fixtures';
const cli = (args: string[], input?: string) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), ...args], { cwd: root, encoding: 'utf8', input });

const NAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('karmada-lite validate: admission rules offline', () => {
  const r = cli(['validate', '-f', `${fixtures}/semantic-invalid.yaml`]);
  const lines = r.stderr.trim().split('\n');
  const f = `${fixtures}/semantic-invalid.yaml`;

  it('exits 1 and counts every document invalid', () => {
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('14 document(s) in 1 file(s): 0 valid, 14 invalid');
  });

  it.each([
    `${f}[0] PropagationPolicy default/suspended-and-narrowed: spec.suspension.suspension: Invalid value: {"dispatching":true,"dispatchingOnClusters":{"clusterNames":["member2"]}}: suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames`,
    `${f}[1] PropagationPolicy default/other-namespace: spec.resourceSelectors[0].namespace: Invalid value: "prod": namespace of resource selector must be the same as the namespace of the policy`,
    `${f}[2] PropagationPolicy default/failover-without-deps: spec.propagateDeps: Invalid value: false: application failover is set, propagateDeps must be true`,
    `${f}[3] PropagationPolicy default/spread-groups: spec.placement.spreadConstraints[0]: Invalid value: {"spreadByField":"cluster","minGroups":3,"maxGroups":2}: maxGroups lower than minGroups is not allowed`,
    `${f}[4] ClusterPropagationPolicy region-without-cluster: spec.placement.spreadConstraints: Invalid value: [{"spreadByField":"region","minGroups":2}]: the cluster spread constraint must be enabled in one of the constraints in case of SpreadByField is enabled`,
    `${f}[5] PropagationPolicy default/preempt-everything: spec.resourceSelectors[0].name: Invalid value: "": name cannot be empty if preemption is Always, the empty name may cause unexpected resources preemption`,
    `${f}[6] PropagationPolicy default/directly-with-grace: spec.failover.application.gracePeriodSeconds: Invalid value: 30: only takes effect when purgeMode is gracefully`,
    `${f}[7] PropagationPolicy default/field-selector: spec.placement.clusterAffinity.fieldSelector: Invalid value: {"matchExpressions":[{"key":"country","operator":"In","values":["fr"]}]}: unsupported key "country", must be provider, region, or zone`,
    `${f}[8] OverridePolicy default/bad-label: spec.overrideRules[0].overriders.labelsOverrider[0].value: Invalid value: "team name": ${NAME_MSG}`,
    `${f}[9] ClusterOverridePolicy field-overrider-empty: spec.overrideRules[0].overriders.fieldOverrider[0]: Required value: FieldOverrider must have either JSON or YAML set`,
    `${f}[10] ResourceBinding default/bad-deps: metadata.annotations.resourcebinding.karmada.io/dependencies: Invalid value: "not json": annotation value must be a valid JSON`,
    `${f}[12] PropagationPolicy default/two-errors: spec.placement.clusterTolerations[0].operator: Unsupported value: "Lt": supported values: "", "Exists", "Equal"`,
    `${f}[12] PropagationPolicy default/two-errors: spec.placement.workloadAffinity: Invalid value: {"affinity":{"groupByLabelKey":"app"},"antiAffinity":{"groupByLabelKey":"app"}}: affinity and antiAffinity must not use the same groupByLabelKey`,
    `${f}[13] Work karmada-es-member1/no-kind: Object 'Kind' is missing in '{"apiVersion":"v1","metadata":{"name":"cm"}}'`,
  ])('%s', (expected) => {
    expect(lines).toContain(expected);
  });

  it('reports a Lua compile error with the line gopher-lua would name', () => {
    expect(lines.find((l) => l.includes('broken-lua'))).toMatch(
      /^test\/validation\/fixtures\/semantic-invalid\.yaml\[11\] ResourceInterpreterCustomization broken-lua: InterpreterOperation\(InterpretHealth\) Lua script error: <string> line:3\(column:\d+\) near 'end':\s+syntax error$/,
    );
  });
});

describe('karmada-lite validate: the design documents\' examples', () => {
  it('rejects suspension-conflict-invalid.yaml and accepts every other example', () => {
    const files = readdirSync(examples).filter((x) => x.endsWith('.yaml'));
    const results = lintDocuments(readDocuments([examples]));
    expect(results).toHaveLength(files.length);
    const invalid = results.filter((x) => x.status !== 'valid');
    expect(invalid.map((x) => x.file.replace(/^.*\//, ''))).toEqual(['suspension-conflict-invalid.yaml']);
  });

  it('exits 1 on the invalid example with the webhook message', () => {
    const r = cli(['validate', '-f', join(examples, 'suspension-conflict-invalid.yaml')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames');
  });
});

describe('karmada-lite validate: RIC conflicts among the files given', () => {
  it('reports the later RIC that scripts an operation an earlier one has, but not split dependency scripts', () => {
    const r = cli(['validate', '-f', `${fixtures}/ric-conflict`]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(
      `${fixtures}/ric-conflict/b-more.yaml[1] ResourceInterpreterCustomization deployment-health-2: conflicting with InterpreterOperation(InterpretHealth) of existing ResourceInterpreterCustomization(deployment-health)`,
    );
    expect(r.stdout).toContain('3 document(s) in 2 file(s): 2 valid, 1 invalid');
  });
});

describe('karmada-lite validate: defaulting', () => {
  it('accepts purge-mode aliases with a warning, and exits 0', () => {
    const r = cli(['validate', '-f', `${fixtures}/purge-alias.yaml`]);
    expect(r.status).toBe(0);
    expect(r.stderr.trim()).toBe(
      `${fixtures}/purge-alias.yaml[0] PropagationPolicy default/old-names: warning: spec.failover.application.purgeMode: purgeMode Graciously is the failover proposal's name for Gracefully; it was rewritten to Gracefully, write Gracefully in your manifests`,
    );
  });

  it('puts warnings and errors in the JSON output', () => {
    const r = cli(['validate', '-o', 'json', '-f', `${fixtures}/purge-alias.yaml`, '-f', join(examples, 'suspension-conflict-invalid.yaml')]);
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout) as Array<{ status: string; warnings: string[]; errors: { path: string; message: string }[] }>;
    expect(out[0]).toMatchObject({ status: 'valid', errors: [] });
    expect(out[0]!.warnings).toHaveLength(1);
    expect(out[1]).toMatchObject({ status: 'invalid', warnings: [], errors: [{ path: 'spec.suspension.suspension' }] });
    expect(out[1]!.errors[0]!.message).toMatch(/^Invalid value: \{.*\}: suspension dispatching cannot co-exist with dispatchingOnClusters\.clusterNames$/);
  });

  it('applies CRD defaults before the rules: a Gracefully policy gets its 600 s grace period, not an error', () => {
    const [doc] = parseDocuments(
      'apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: default}\nspec:\n  propagateDeps: true\n  resourceSelectors: [{apiVersion: v1, kind: Pod, name: a}]\n  failover: {application: {decisionConditions: {}}}\n',
      'p.yaml',
    );
    expect(lintDocuments([doc!])[0]).toMatchObject({ status: 'valid', errors: [], warnings: [] });
  });

  it('does not compare selector namespaces when the file names no namespace (kubectl apply -n)', () => {
    const [doc] = parseDocuments('apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: Pod, namespace: prod}]\n', 'p.yaml');
    expect(lintDocuments([doc!])[0]!.status).toBe('valid');
  });

  it('turns on gated rules with --feature-gates, and refuses unknown gates', () => {
    const rb = 'apiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\nmetadata: {name: b, namespace: default}\nspec:\n  resource: {apiVersion: apps/v1, kind: Deployment, name: d}\n  components: [{name: c, replicas: 1}, {name: c, replicas: 1}]\n';
    expect(cli(['validate', '-f', '-'], rb).status).toBe(0);
    const on = cli(['validate', '--feature-gates', 'MultiplePodTemplatesScheduling=true', '-f', '-'], rb);
    expect(on.status).toBe(1);
    expect(on.stderr).toContain('spec.components[1].name: Invalid value: "c": component names must be unique');
    const bad = cli(['validate', '--feature-gates', 'Nope=true', '-f', '-'], rb);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('unrecognized feature gate: Nope');
  });
});
