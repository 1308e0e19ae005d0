// The image: the Dockerfile's rules (scripts/image.mjs) and one tag shared by the build, deploy/ and the chart.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { dockerfileProblems, imageRef, version } from '../../scripts/image.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dockerfile = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
const made: string[] = [];
afterEach(() => made.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A copy of what scripts/image.mjs and scripts/chart.mjs read, to break on purpose. */
function copy(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'karmada-lite-image-'));
  made.push(d);
  for (const p of ['package.json', 'Dockerfile', 'scripts', 'deploy', 'crds']) cpSync(path.join(repoRoot, p), path.join(d, p), { recursive: true });
  // the copy's scripts resolve packages from the checkout's node_modules
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(d, 'node_modules'));
  return d;
}
const run = (dir: string, script: string, ...args: string[]) => spawnSync(process.execPath, [path.join(dir, 'scripts', script), ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, IMAGE: undefined, DOCKER_HOST: 'unix:///nonexistent.sock' } as NodeJS.ProcessEnv });

describe('Dockerfile', () => {
  it('has no problems: lint clean, distroless :nonroot final stage, numeric non-root USER, the binary as ENTRYPOINT', () => {
    expect(dockerfileProblems(dockerfile)).toEqual([]);
    expect(imageRef).toBe(`karmada-lite:${version}`);
  });

  it.each([
    ['a root user', dockerfile.replace('USER 65532:65532', 'USER 0'), /numeric non-root uid/],
    ['a named user', dockerfile.replace('USER 65532:65532', 'USER nonroot'), /numeric non-root uid/],
    ['a base with a shell', dockerfile.replace('gcr.io/distroless/cc-debian12:nonroot', 'debian:bookworm'), /distroless :nonroot base/],
    ['another entrypoint', dockerfile.replace('ENTRYPOINT ["/karmada-lite"]', 'ENTRYPOINT ["/bin/sh"]'), /ENTRYPOINT must be/],
    ['a stale version', dockerfile.replace(`ARG VERSION=${version}`, 'ARG VERSION=0.0.1'), /package.json says/],
    ['an instruction the linter refuses', dockerfile.replace('WORKDIR /src', 'WORKDIR /src\nEXPOSE eighty'), /Dockerfile:\d+: /],
  ])('flags %s', (_what, text, problem) => {
    expect(dockerfileProblems(text).join('\n')).toMatch(problem);
  });
});

describe('one image tag for the build, deploy/ and the chart', () => {
  it('image.mjs check passes on the checkout (lint only, with no Docker daemon)', () => {
    const r = run(repoRoot, 'image.mjs', 'check');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`deploy/ and the chart run karmada-lite:${version}`);
  });

  it('fails when deploy/ runs a tag the build does not produce', () => {
    const d = copy();
    const manifest = path.join(d, 'deploy/controller/controller.yaml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(`image: karmada-lite:${version}`, 'image: karmada-lite:latest'));
    const r = run(d, 'image.mjs', 'check');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`runs karmada-lite:latest, but the build produces karmada-lite:${version}`);
  });
});

describe('the Helm chart is generated from deploy/', () => {
  it('is current', () => {
    const r = run(repoRoot, 'chart.mjs', '--check');
    expect(r.status, r.stderr).toBe(0);
  });

  it('a manifest change makes it stale, and regenerating carries the change into the chart', () => {
    const d = copy();
    const manifest = path.join(d, 'deploy/controller/controller.yaml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('terminationGracePeriodSeconds: 30', 'terminationGracePeriodSeconds: 45'));
    const stale = run(d, 'chart.mjs', '--check');
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain('templates/controller.yaml');
    expect(run(d, 'chart.mjs').status).toBe(0);
    expect(readFileSync(path.join(d, 'deploy/chart/karmada-lite/templates/controller.yaml'), 'utf8')).toContain('terminationGracePeriodSeconds: 45');
    expect(run(d, 'chart.mjs', '--check').status).toBe(0);
  });

  it('refuses to generate when a templated field moved, instead of silently not templating it', () => {
    const d = copy();
    const manifest = path.join(d, 'deploy/controller/controller.yaml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('  replicas: 2\n', '  replicas: 3\n'));
    const r = run(d, 'chart.mjs');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('expected exactly one "  replicas: 2\\n" to template, found 0');
  });
});
