// kubectl's conventions across the CLI: exit status 2 for every usage error, files as arguments beside -f,
// -n/--namespace as `kubectl apply -n`, --context beside --kubeconfig, -v N as verbosity, and the
// `npx karmada-lite` launcher choosing the build when it is current.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadKubeConfig } from '../../src/cli/kubeconfig.js';
import { applyNamespace } from '../../src/cli/input.js';
import { parseVerbosity, setVerbosity, verbosity } from '../../src/cli/verbosity.js';
import { parseDocuments } from '../../src/io/documents.js';
import { runCli } from './run-cli.js';

const root = join(import.meta.dirname, '..', '..');
const fx = (name: string) => join(root, 'test', 'fixtures', 'cli', name);

describe('usage errors exit 2 on every command', () => {
  it.each([
    ['an unknown command', ['no-such-command']],
    ['an unknown flag of validate', ['validate', '--no-such-flag', fx('deployment.yaml')]],
    ['an unknown flag of plan', ['plan', '--no-such-flag']],
    ['an unknown flag of crds', ['crds', '--no-such-flag']],
    ['an unknown flag of interpret', ['interpret', '--no-such-flag']],
    ['interpret test without its directory', ['interpret', 'test']],
    ['interpret --operation without a customization', ['interpret', '--operation', 'InterpretHealth']],
    ['interpret with an unknown operation', ['interpret', fx('health-ric.yaml'), '--operation', 'X']],
    ['an unknown flag of controller', ['controller', '--no-such-flag']],
    ['webhook without --cert-file', ['webhook', '--key-file', 'k.pem']],
    ['version with an unknown -o', ['version', '-o', 'wide']],
    ['completion without a shell', ['completion']],
    ['completion of an unknown shell', ['completion', 'tcsh']],
    ['crds with an unknown -o', ['crds', '-o', 'table']],
    ['plan with an -o it does not print', ['plan', fx('app-no-namespace.yaml'), '-o', 'text']],
    ['interpret with an -o it does not print', ['interpret', fx('health-ric.yaml'), '--operation', 'InterpretHealth', '--observed-file', fx('deployment.yaml'), '-o', 'wide']],
    ['validate without any input', ['validate']],
    ['plan without any input', ['plan']],
    ['-v that is not a number', ['-v', 'debug', 'version']],
    ['-n that is not a namespace name', ['validate', '-n', 'Not_A_Namespace', fx('deployment.yaml')]],
    ['a jsonpath template that does not parse', ['crds', '-o', 'jsonpath={.items[*']],
  ])('%s', async (_what, args) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error/);
    expect(r.stdout).toBe('');
  });

  it('--help and --version exit 0', async () => {
    expect((await runCli(['plan', '--help'])).code).toBe(0);
    expect((await runCli(['--version'])).code).toBe(0);
  });
});

describe('files as arguments, beside -f', () => {
  it('validate FILE... reads them as -f does, and the two add up', async () => {
    const both = await runCli(['validate', fx('pp-in-prod.yaml'), '-f', fx('deployment.yaml')]);
    expect(both.code).toBe(0);
    expect(both.stdout).toBe('2 document(s) in 2 file(s): 2 valid, 0 invalid\n');
  });

  it('interpret FILE --check checks the customization of the argument', async () => {
    const r = await runCli(['interpret', fx('health-ric.yaml'), '--check']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('SOURCE: health-by-namespace');
  });

  it('names how to give input when there is none', async () => {
    expect((await runCli(['validate'])).stderr).toContain('as arguments or with -f');
  });
});

describe('-n/--namespace as kubectl apply -n', () => {
  it('validate -n checks a policy without a namespace in that namespace', async () => {
    expect((await runCli(['validate', fx('pp-selects-other.yaml')])).code).toBe(0);
    const r = await runCli(['validate', fx('pp-selects-other.yaml'), '-n', 'prod']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PropagationPolicy prod/web: spec.resourceSelectors[0].namespace');
    expect((await runCli(['validate', fx('pp-selects-other.yaml'), '--namespace', 'other'])).code).toBe(0);
  });

  it('refuses an object that names another namespace (exit 2), naming the file and both namespaces', async () => {
    const r = await runCli(['validate', fx('pp-in-prod.yaml'), '-n', 'staging']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('pp-in-prod.yaml[0]: the namespace from the provided object "prod" does not match the namespace "staging"');
  });

  it('plan -n puts templates and policies without a namespace there, so the policy claims the template', async () => {
    const path = '{.bindings[*].metadata.namespace}/{.bindings[*].metadata.name}';
    const without = await runCli(['plan', fx('app-no-namespace.yaml'), '--at', '2024-01-01T00:00:00Z', '-o', `jsonpath=${path}`]);
    expect(without.stdout).toBe('/');
    const r = await runCli(['plan', fx('app-no-namespace.yaml'), '-n', 'staging', '--at', '2024-01-01T00:00:00Z', '-o', `jsonpath=${path}`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('staging/web-deployment');
  });

  it('interpret -n gives the observed object that namespace', async () => {
    const args = ['interpret', fx('health-ric.yaml'), '--operation', 'InterpretHealth', '--observed-file', fx('deployment.yaml'), '-o', 'jsonpath={.healthy}'];
    expect((await runCli(args)).stdout).toBe('false');
    expect((await runCli([...args, '-n', 'prod'])).stdout).toBe('true');
  });

  it('leaves cluster-scoped kinds and kinds it cannot know offline alone', () => {
    const docs = parseDocuments(
      'apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: m1}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n',
      'x.yaml',
    );
    const out = applyNamespace(docs, 'team-a').map((d) => (d.object.metadata as { namespace?: string }).namespace);
    expect(out).toEqual([undefined, undefined, 'team-a']);
  });
});

describe('--context beside --kubeconfig', () => {
  it('picks the named context of the kubeconfig instead of its current-context', async () => {
    expect((await loadKubeConfig(fx('kubeconfig.yaml'), undefined)).getCurrentCluster()?.server).toBe('https://127.0.0.1:1');
    expect((await loadKubeConfig(fx('kubeconfig.yaml'), 'other')).getCurrentCluster()?.server).toBe('https://127.0.0.1:2');
  });

  it('names the contexts there are when the one asked for is missing', async () => {
    await expect(loadKubeConfig(fx('kubeconfig.yaml'), 'prod')).rejects.toThrow('--context: no context "prod" in ' + fx('kubeconfig.yaml') + '; it has host, other');
  });

  it('controller and webhook both take it', async () => {
    for (const cmd of ['controller', 'webhook']) expect((await runCli([cmd, '--help'])).stdout).toContain('--context <name>');
  });
});

describe('-v N as kubectl means it', () => {
  it('accepts -v 4, -v=4, --v=4 and -v4 on any command, before or after it', async () => {
    expect(parseVerbosity('4')).toBe(4);
    expect(parseVerbosity('=4')).toBe(4);
    for (const args of [['-v', '6', 'version'], ['version', '--v=6'], ['version', '-v6']]) {
      setVerbosity(0);
      const r = await runCli(args);
      expect(r.code).toBe(0);
      expect(verbosity()).toBe(6);
    }
    setVerbosity(0);
  });

  it('writes klog-style lines to standard error from -v 4, never to standard output', async () => {
    const quiet = await runCli(['validate', fx('deployment.yaml'), '-n', 'prod']);
    expect(quiet.stderr).toBe('');
    expect(quiet.code).toBe(0);
    const r = await runCli(['validate', fx('deployment.yaml'), '-n', 'prod', '-v', '4']);
    expect(r.stderr).toMatch(/^I\d{4} \d\d:\d\d:\d\d\.\d{6} \d+ namespace prod/m);
    expect(r.stdout).toBe(quiet.stdout);
    setVerbosity(0);
  });
});

describe('npx karmada-lite: the build when it is current, the sources otherwise', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kl-launcher-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // A checkout in miniature: the real launcher, an entry point and a bundle that say which one ran.
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'src', 'cli'), { recursive: true });
  mkdirSync(join(dir, 'dist'));
  cpSync(join(root, 'bin', 'karmada-lite.mjs'), join(dir, 'bin', 'karmada-lite.mjs'));
  mkdirSync(join(dir, 'scripts'));
  cpSync(join(root, 'scripts', 'bundle-inputs.mjs'), join(dir, 'scripts', 'bundle-inputs.mjs'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{"type": "module"}\n');
  writeFileSync(join(dir, 'src', 'cli', 'entry.ts'), "const ran: string = 'sources';\nconsole.log(ran);\n");
  writeFileSync(join(dir, 'dist', 'karmada-lite.mjs'), "console.log('bundle');\n");
  const launch = (env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [join(dir, 'bin', 'karmada-lite.mjs')], { encoding: 'utf8', env: { ...process.env, KARMADA_LITE_USE_BUNDLE: '', ...env } });
    return r.stdout.trim();
  };
  const age = (path: string, secondsAgo: number) => {
    const t = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(path, t, t);
  };

  it('runs dist/ when it was built after the last change to the sources', () => {
    age(join(dir, 'src', 'cli', 'entry.ts'), 100);
    age(join(dir, 'src', 'cli'), 100);
    age(join(dir, 'src'), 100);
    age(join(dir, 'dist', 'karmada-lite.mjs'), 10);
    expect(launch()).toBe('bundle');
  });

  it('runs the sources through tsx when one is newer than the build', () => {
    age(join(dir, 'dist', 'karmada-lite.mjs'), 200);
    expect(launch()).toBe('sources');
    expect(launch({ KARMADA_LITE_USE_BUNDLE: '1' })).toBe('bundle');
  });
});
