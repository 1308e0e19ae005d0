import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createInterpreter } from '../../src/interpreter/interpreter.js';
import { loadInterpreterLibraries, loadLibrary } from '../../src/interpreter/library.js';
import { ricName } from '../../src/interpreter/ric.js';
import { runTestTree } from '../../src/interpreter/test-tree.js';
import type { RIC } from '../../src/interpreter/types.js';

const TREE = join(import.meta.dirname, '../../conformance/interpreter-library');
const BROKEN = join(import.meta.dirname, '../fixtures/interpreter-library-broken');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', env: { ...process.env, KARMADA_LITE_MAIN: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const deployment = (annotations?: Record<string, string>) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', namespace: 'default', ...(annotations ? { annotations } : {}) },
  spec: { replicas: 1 },
  status: { replicas: 1, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 1, observedGeneration: 1 },
});

describe('conformance/interpreter-library', () => {
  it('loads without problems', () => {
    const lib = loadLibrary([TREE]);
    expect(lib.problems).toEqual([]);
    expect(lib.rics.map(ricName).sort()).toEqual(['library-deployment', 'library-gadget', 'library-sprocket']);
  });

  it('every case passes, gsub and rep refused in RIC scripts included', () => {
    const lines: string[] = [];
    const r = runTestTree(TREE, { log: (l) => lines.push(l), verbose: false });
    expect(lines.filter((l) => l.startsWith('FAIL'))).toEqual([]);
    expect(r).toEqual({ passed: 8, failed: 0 });
  });

  it('is the third-party layer: after the user RICs, before the built-ins', () => {
    const { rics } = loadLibrary([TREE]);
    const withLib = createInterpreter({ library: rics });
    const type = { apiVersion: 'apps/v1', kind: 'Deployment' };
    expect(createInterpreter({}).layerFor(type, 'InterpretHealth')).toBe('builtin');
    expect(withLib.layerFor(type, 'InterpretHealth')).toBe('library');
    // The library defines InterpretHealth only: the built-in still answers the rest.
    expect(withLib.layerFor(type, 'InterpretReplica')).toBe('builtin');
    expect(withLib.interpretHealth(deployment())).toBe(false);
    expect(withLib.interpretHealth(deployment({ 'example.com/healthy': 'yes' }))).toBe(true);
    const user: RIC = {
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterCustomization',
      metadata: { name: 'user' },
      spec: { target: type, customizations: { healthInterpretation: { luaScript: 'function InterpretHealth(o) return true end' } } },
    } as RIC;
    const both = createInterpreter({ library: rics, customizations: [user] });
    expect(both.layerFor(type, 'InterpretHealth')).toBe('customization');
    expect(both.interpretHealth(deployment())).toBe(true);
  });
});

describe('a broken library', () => {
  it('reports each bad file with its name and loads the rest', () => {
    const lib = loadLibrary([BROKEN]);
    expect(lib.rics.map(ricName).sort()).toEqual(['good', 'twice-a', 'twice-b']);
    const byFile = lib.problems.map((p) => [p.file.slice(BROKEN.length + 1), p.message]);
    expect(byFile).toEqual([
      ['lua.example.com/v1/BadLua/customizations.yaml', expect.stringMatching(/^bad-lua: InterpretHealth: .*syntax error/)],
      ['yaml.example.com/v1/BadYaml/customizations.yaml', expect.stringContaining('invalid YAML')],
      ['conflict.example.com/v1/Twice/customizations.yaml', expect.stringContaining('twice-b: InterpretHealth of conflict.example.com/v1, Kind=Twice is already defined by twice-a')],
    ]);
  });

  it('reports a broken health check tree beside it in one list', () => {
    const loaded = loadInterpreterLibraries([BROKEN], [join(BROKEN, 'health')]);
    expect(loaded.problems).toHaveLength(4);
    expect(loaded.problems.at(-1)).toMatch(/health\/bad\.example\.com\/Bad\/health\.lua: .*syntax error/);
    expect(Object.keys(loaded.healthChecks.exact)).toEqual(['good.example.com/Good']);
  });

  it('interpret test: a bad file is a failed case with its path and the parser\'s message; the run reaches the summary and exits 1', () => {
    const r = cli('interpret', 'test', BROKEN);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('PASS good.example.com/v1/Good [good/InterpretHealth]: healthy');
    expect(r.stdout).toMatch(/FAIL good\.example\.com\/v1\/Good: .*testdata\/unparsable\.yaml\n\s+.*unparsable\.yaml\[0\]: invalid YAML: /);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 4 failed');
  });

  it('--interpreters: problems are warnings naming the files, what loads is used', () => {
    const observed = join(BROKEN, '../../../conformance/argocd-health/Widget/testdata/fine.yaml');
    const r = cli('interpret', '--interpreters', BROKEN, '--operation', 'InterpretHealth', '--observed-file', observed);
    expect(r.stderr).toContain(`warning: ${join(BROKEN, 'lua.example.com/v1/BadLua/customizations.yaml')}: bad-lua: InterpretHealth:`);
    expect(r.stderr).toContain('yaml.example.com/v1/BadYaml/customizations.yaml');
    expect(cli('interpret', '--interpreters', join(BROKEN, 'nowhere'), '--operation', 'InterpretHealth', '--observed-file', observed)).toMatchObject({ code: 2, stderr: expect.stringContaining('--interpreters') });
  });
});
