import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'kl-interpret-'));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, KARMADA_LITE_MAIN: '1' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const ricFile = write(
  'ric.yaml',
  `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: demo
spec:
  target:
    apiVersion: example.io/v1
    kind: Widget
  customizations:
    healthInterpretation:
      luaScript: >
        function InterpretHealth(observedObj)
          return observedObj.status.ready == true
        end
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          return obj.spec.replicas, nil
        end
    replicaRevision:
      luaScript: |
        function ReviseReplica(obj, n)
          obj.spec.replicas = n
          return obj
        end
    dependencyInterpretation:
      luaScript: |
        function GetDependencies(obj
          return {}
        end
`,
);
const widget = write('widget.yaml', 'apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w}\nspec: {replicas: 2}\nstatus: {ready: true}\n');

describe('karmada-lite interpret', () => {
  it('--check prints one line per rule and fails on a compile error', () => {
    const r = cli('interpret', '--check', '-f', ricFile);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('SOURCE: demo\nTARGET: example.io/v1 Widget\nRULERS:\n');
    expect(r.stdout).toMatch(/ {4}InterpretHealth: +PASS\n/);
    expect(r.stdout).toMatch(/ {4}Retain: +UNSET\n/);
    expect(r.stdout).toMatch(/ {4}InterpretDependency: +ERROR: <string> line:2\(column:8\) near 'return': {3}syntax error\n/);
  });

  it('runs a rule and prints its results as YAML', () => {
    const r = cli('interpret', '-f', ricFile, '--operation', 'interpretreplica', '--desired-file', widget);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('---\n# [1/2] replica:\n2\n---\n# [2/2] requires:\nnull\n');
    const h = cli('interpret', '-f', ricFile, '--operation', 'InterpretHealth', '--observed-file', widget);
    expect(h.stdout).toBe('---\n# [1/1] healthy:\ntrue\n');
    const v = cli('interpret', '-f', ricFile, '--operation', 'ReviseReplica', '--desired-file', widget, '--desired-replica', '5');
    expect(v.stdout).toContain('  replicas: 5\n');
  });

  it('prints rule errors to stderr and exits 1', () => {
    const r = cli('interpret', '-f', ricFile, '--operation', 'InterpretDependency', '--desired-file', widget);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("Execute InterpretDependency error: <string> line:2(column:8) near 'return':   syntax error\n");
    const both = cli('interpret', '-f', ricFile, '--operation', 'InterpretHealth', '--desired-file', widget, '--observed-file', widget);
    expect(both.stderr).toBe('Execute InterpretHealth error: you can not specify both desired-file and observed-file options\n');
    const off = cli('interpret', '-f', ricFile, '--operation', 'Retain', '--desired-file', widget, '--observed-file', widget);
    expect(off.stderr).toBe('Execute Retain error: rule is not enabled\n');
  });

  it('rejects usage errors with exit 2', () => {
    expect(cli('interpret', '-f', ricFile, '--operation', 'Nope', '--desired-file', widget).code).toBe(2);
    expect(cli('interpret', '-f', ricFile).code).toBe(2);
    expect(cli('interpret', '-f', join(dir, 'missing.yaml'), '--check').code).toBe(2);
    expect(cli('interpret', 'test', join(dir, 'missing')).code).toBe(2);
  });

  it('interpret test reports each case and a summary line', () => {
    const root = mkdtempSync(join(tmpdir(), 'kl-tree-'));
    const kindDir = join(root, 'example.io', 'v1', 'Widget');
    spawnSync('mkdir', ['-p', join(kindDir, 'testdata')]);
    writeFileSync(join(kindDir, 'customizations.yaml'), `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: widget}
spec:
  target: {apiVersion: example.io/v1, kind: Widget}
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(o) return o.status.ready end
    statusAggregation:
      luaScript: |
        function AggregateStatus(d, items) d.status = {n = #items, at = os.date("!%Y")} return d end
`);
    writeFileSync(join(kindDir, 'testdata', 'cases.yaml'), `name: ready
operation: InterpretHealth
observedObj: {apiVersion: example.io/v1, kind: Widget, status: {ready: true}}
output: {healthy: true}
---
name: wrong on purpose
operation: InterpretHealth
observedObj: {apiVersion: example.io/v1, kind: Widget, status: {ready: false}}
output: {healthy: true}
---
name: excluded timestamp
operation: AggregateStatus
desiredObj: {apiVersion: example.io/v1, kind: Widget}
statusItems: [{clusterName: a}, {clusterName: b}]
output:
  aggregatedStatus: {apiVersion: example.io/v1, kind: Widget, status: {n: 2, at: "{{EXCLUDE}}"}}
`);
    const r = cli('interpret', 'test', root);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('PASS example.io/v1/Widget [widget/InterpretHealth]: ready');
    expect(r.stdout).toContain('FAIL example.io/v1/Widget [widget/InterpretHealth]: wrong on purpose');
    expect(r.stdout).toContain('    - true');
    expect(r.stdout).toContain('    + false');
    expect(r.stdout).toContain('PASS example.io/v1/Widget [widget/AggregateStatus]: excluded timestamp');
    expect(r.stdout.trimEnd().split('\n').pop()).toBe('2 passed, 1 failed');
  });
});
