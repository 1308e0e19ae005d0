// `version` (with -o json|yaml) and `--version`: the number package.json ships; -v is verbosity, not the version.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { VERSION } from '../../src/version.js';
import { runCli } from './run-cli.js';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };

describe('version', () => {
  it('--version prints the number alone', async () => {
    const r = await runCli(['--version']);
    expect(r).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('version prints the version with the Node.js runtime and platform', async () => {
    const r = await runCli(['version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`karmada-lite version v${VERSION} (Node.js ${process.version}, ${process.platform}/${process.arch})\n`);
  });

  it('version -o json and -o yaml give the same fields, under clientVersion as kubectl version -o json', async () => {
    const json = JSON.parse((await runCli(['version', '-o', 'json'])).stdout) as { clientVersion: Record<string, string> };
    expect(json.clientVersion).toEqual({ gitVersion: `v${pkg.version}`, nodeVersion: process.version, platform: `${process.platform}/${process.arch}` });
    expect(parse((await runCli(['version', '--output', 'yaml'])).stdout)).toEqual(json);
  });

  it('-v is kubectl verbosity: -v alone lacks its level (exit 2), -v 2 version prints the version', async () => {
    expect((await runCli(['-v'])).code).toBe(2);
    const r = await runCli(['-v', '2', 'version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`v${VERSION}`);
  });
});
