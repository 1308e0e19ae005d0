import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { healthCheckFor, loadHealthChecks, mapArgoHealth } from '../../src/interpreter/argocd-health.js';
import { createInterpreter } from '../../src/interpreter/interpreter.js';
import { runTestTree } from '../../src/interpreter/test-tree.js';
import type { RIC } from '../../src/interpreter/types.js';

const TREE = join(import.meta.dirname, '../../conformance/argocd-health');
const BROKEN = join(import.meta.dirname, '../fixtures/interpreter-library-broken/health');

const obj = (apiVersion: string, kind: string, status?: Record<string, unknown>, spec?: Record<string, unknown>) => ({
  apiVersion,
  kind,
  metadata: { name: 'x', namespace: 'default' },
  ...(spec ? { spec } : {}),
  ...(status ? { status } : {}),
});

describe('conformance/argocd-health', () => {
  it('every case of the tree passes, as `interpret test` runs it', () => {
    const lines: string[] = [];
    const r = runTestTree(TREE, { log: (l) => lines.push(l), verbose: false });
    expect(lines.filter((l) => l.startsWith('FAIL'))).toEqual([]);
    expect(r.failed).toBe(0);
    expect(r.passed).toBeGreaterThanOrEqual(18);
    expect(lines.at(-1)).toBe(`${r.passed} passed, 0 failed`);
  });
});

describe('matching folders as Argo CD does', () => {
  const { checks, problems } = loadHealthChecks([TREE]);
  const keyFor = (apiVersion: string, kind: string) => healthCheckFor(checks, { apiVersion, kind })?.key;

  it('loads every folder', () => expect(problems).toEqual([]));
  it('an exact folder wins over a wildcard that also matches', () => expect(keyFor('db.example.com/v1', 'Database')).toBe('db.example.com/Database'));
  it('of two wildcards, the first in sorted order wins', () => expect(keyFor('memory.example.com/v1', 'Cache')).toBe('_.example.com/Cache'));
  it('a wildcard covers any kind of any sub-group', () => expect(keyFor('queue.example.com/v1alpha1', 'Queue')).toBe('_.example.com/_'));
  it('_ stays within a segment and needs the dot: example.com itself is not a sub-group', () => expect(keyFor('example.com/v1', 'Queue')).toBeUndefined());
  it('a core kind is matched by its Kind folder', () => expect(keyFor('v1', 'Widget')).toBe('Widget'));
  it('the version plays no part', () => expect(keyFor('db.example.com/v2beta1', 'Database')).toBe('db.example.com/Database'));
});

describe('health checks in the interpreter', () => {
  const { checks } = loadHealthChecks([TREE]);
  const interp = createInterpreter({ healthChecks: checks, memoize: true });

  it('maps Healthy -> Healthy, Degraded -> Unhealthy, the rest -> Unknown', () => {
    expect(['Healthy', 'Degraded', 'Progressing', 'Suspended', 'Missing', 'Unknown', ''].map(mapArgoHealth)).toEqual(['Healthy', 'Unhealthy', 'Unknown', 'Unknown', 'Unknown', 'Unknown', 'Unknown']);
    expect(interp.healthDetail(obj('db.example.com/v1', 'Database', { phase: 'Running' }))).toEqual({ health: 'Healthy', message: 'Database is running' });
    expect(interp.healthDetail(obj('db.example.com/v1', 'Database', { phase: 'Failed', reason: 'disk full' }))).toEqual({ health: 'Unhealthy', message: 'disk full' });
    expect(interp.healthDetail(obj('db.example.com/v1', 'Database', { phase: 'Paused' }))).toEqual({ health: 'Unknown', message: 'Database is paused' });
    expect(interp.health(obj('db.example.com/v1', 'Database'))).toBe('Unknown');
  });

  it('keeps the boolean form for Healthy and Degraded and fails it for the rest', () => {
    expect(interp.interpretHealth(obj('db.example.com/v1', 'Database', { phase: 'Running' }))).toBe(true);
    expect(interp.interpretHealth(obj('db.example.com/v1', 'Database', { phase: 'Failed' }))).toBe(false);
    expect(() => interp.interpretHealth(obj('db.example.com/v1', 'Database', { phase: 'Paused' }))).toThrow('health is Unknown: Database is paused');
  });

  it('a script error is Unknown with the error, naming the file', () => {
    const d = interp.healthDetail(obj('errors.example.com/v1', 'Broken'));
    expect(d.health).toBe('Unknown');
    expect(d.error).toBe('errors.example.com/Broken/health.lua: <string>:2: status is missing');
  });

  it('a script that loops is stopped by the time budget', () => {
    const fast = createInterpreter({ healthChecks: checks, budgetMs: 50 });
    const d = fast.healthDetail(obj('loops.example.com/v1', 'Spin'));
    expect(d.health).toBe('Unknown');
    expect(d.error).toMatch(/loops\.example\.com\/Spin\/health\.lua: .*budget/);
  });

  it('a check that reads the clock counts as impure on the interpreter\'s sandbox (what the pool\'s cache asks)', () => {
    const script = 'function ArgoCDHealth(obj) return { status = "Healthy", message = tostring(os.time() > 0) }\nend';
    const clocked = createInterpreter({ healthChecks: { exact: { T: { key: 'T', file: 'T/health.lua', source: '', script } }, wildcards: [] } });
    const before = clocked.sandbox.impureCalls;
    expect(clocked.healthDetail({ apiVersion: 'v1', kind: 'T', metadata: { name: 't' } })).toEqual({ health: 'Healthy', message: 'true' });
    expect(clocked.sandbox.impureCalls).toBeGreaterThan(before);
  });

  it('answers after the user RICs and the library, before the built-ins', () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment' };
    const { checks: withDeployment } = loadHealthChecks([TREE]);
    withDeployment.exact['apps/Deployment'] = { ...withDeployment.exact['Widget']!, key: 'apps/Deployment' };
    const ric = (name: string): RIC =>
      ({
        apiVersion: 'config.karmada.io/v1alpha1',
        kind: 'ResourceInterpreterCustomization',
        metadata: { name },
        spec: { target: deployment, customizations: { healthInterpretation: { luaScript: 'function InterpretHealth(o) return true end' } } },
      }) as RIC;
    expect(createInterpreter({}).layerFor(deployment, 'InterpretHealth')).toBe('builtin');
    expect(createInterpreter({ healthChecks: withDeployment }).layerFor(deployment, 'InterpretHealth')).toBe('health-check');
    expect(createInterpreter({ healthChecks: withDeployment, library: [ric('lib')] }).layerFor(deployment, 'InterpretHealth')).toBe('library');
    expect(createInterpreter({ healthChecks: withDeployment, library: [ric('lib')], customizations: [ric('user')] }).layerFor(deployment, 'InterpretHealth')).toBe('customization');
    // Health checks answer InterpretHealth only.
    expect(createInterpreter({ healthChecks: withDeployment }).layerFor(deployment, 'InterpretReplica')).toBe('builtin');
  });
});

describe('the Argo CD string library', () => {
  // One health check whose script is `local s, n = <expr>`: its message shows both results.
  const gsubOf = (expr: string) => {
    const script = `function ArgoCDHealth(obj) local s, n = ${expr}\nreturn { status = "Healthy", message = s .. "|" .. tostring(n) }\nend`;
    const interp = createInterpreter({ healthChecks: { exact: { T: { key: 'T', file: 'T/health.lua', source: '', script } }, wildcards: [] } });
    return interp.healthDetail({ apiVersion: 'v1', kind: 'T', metadata: { name: 't' } });
  };

  it('gsub follows Lua 5.1: patterns, %0-%9 and %%, tables, functions, a limit, anchors, empty matches', () => {
    expect(gsubOf('string.gsub("hello world", "o", "0")').message).toBe('hell0 w0rld|2');
    expect(gsubOf('("abc"):gsub("%w", "%0%0")').message).toBe('aabbcc|3');
    expect(gsubOf('("k=v"):gsub("(%w)=(%w)", "%2=%1 100%%")').message).toBe('v=k 100%|1');
    expect(gsubOf('("abc"):gsub("", "-")').message).toBe('-a-b-c-|4');
    expect(gsubOf('("aaa"):gsub("a", "b", 2)').message).toBe('bba|2');
    expect(gsubOf('("aaa"):gsub("^a", "b")').message).toBe('baa|1');
    expect(gsubOf('("$x and $y"):gsub("%$(%w)", { x = "1" })').message).toBe('1 and $y|2');
    expect(gsubOf('("a b"):gsub("%w", function(c) if c == "a" then return "A" end end)').message).toBe('A b|2');
    expect(gsubOf('("ab"):gsub("(a)(b)", "%3")')).toEqual({ health: 'Unknown', error: expect.stringContaining('invalid capture index') });
  });

  it('rep repeats, and a huge one fails on the byte budget before it is built', () => {
    expect(gsubOf('string.rep("ab", 3), 0').message).toBe('ababab|0');
    expect(gsubOf('string.rep("x", 0), 0').message).toBe('|0');
    expect(gsubOf('string.rep("x", 1e12), 0')).toEqual({ health: 'Unknown', error: expect.stringMatching(/bytes|limit/) });
  });

  it('RIC scripts keep Karmada\'s refusal of both, even beside health checks', () => {
    const ric: RIC = {
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterCustomization',
      metadata: { name: 'r' },
      spec: { target: { apiVersion: 'v1', kind: 'R' }, customizations: { healthInterpretation: { luaScript: 'function InterpretHealth(o) return string.rep("x", 2) == "xx" end' } } },
    } as RIC;
    const interp = createInterpreter({ customizations: [ric], healthChecks: loadHealthChecks([TREE]).checks });
    expect(() => interp.interpretHealth({ apiVersion: 'v1', kind: 'R', metadata: { name: 'r' } })).toThrow(/string\.rep is not supported by Karmada/);
  });
});

describe('a broken health check tree', () => {
  it('reports each bad file with its path and loads the others', () => {
    const { checks, problems } = loadHealthChecks([BROKEN]);
    expect(Object.keys(checks.exact)).toEqual(['good.example.com/Good']);
    expect(problems).toEqual([{ file: join(BROKEN, 'bad.example.com/Bad/health.lua'), message: expect.stringContaining('syntax error') }]);
  });

  it('is failed cases with paths and parser messages, and the run reaches its summary', () => {
    const lines: string[] = [];
    const r = runTestTree(BROKEN, { log: (l) => lines.push(l) });
    expect(r).toEqual({ passed: 0, failed: 3 });
    const text = lines.join('\n');
    expect(text).toContain(`FAIL ${join(BROKEN, 'bad.example.com/Bad/health.lua')}`);
    expect(text).toMatch(/FAIL bad.example.com\/Bad: health_test.yaml\n.*health_test.yaml\[0\]: invalid YAML: /);
    expect(text).toMatch(/FAIL good.example.com\/Good \[health\]: testdata\/missing.yaml\n.*ENOENT/);
    expect(lines.at(-1)).toBe('0 passed, 3 failed');
  });
});

describe('interpret with health checks (CLI)', () => {
  const cli = (...args: string[]) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', env: { ...process.env, KARMADA_LITE_MAIN: '1' } });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const db = join(TREE, 'db.example.com/Database');

  it('-f health.lua --observed-file runs one check and prints status, message and health', () => {
    const r = cli('interpret', '-f', join(db, 'health.lua'), '--observed-file', join(db, 'testdata/failed.yaml'), '-o', 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ health: 'Unhealthy', status: 'Degraded', message: 'disk full on node-1' });
    const broken = join(TREE, 'errors.example.com/Broken');
    const e = cli('interpret', '-f', join(broken, 'health.lua'), '--observed-file', join(broken, 'testdata/no-status.yaml'));
    expect(e.code).toBe(1);
    expect(e.stderr).toMatch(/^Execute InterpretHealth error: .*health\.lua: <string>:2: status is missing/);
  });
});
