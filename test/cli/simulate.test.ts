import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const fixtures = 'test/fixtures/simulate';
const simulate = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), 'simulate', ...args], { cwd: root, encoding: 'utf8' });

describe('karmada-lite simulate', () => {
  it('exits 0 when every expectation holds, one line per scenario', () => {
    const r = simulate(`${fixtures}/passes.yaml`);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`ok    ${fixtures}/passes.yaml: nginx moves to member2 once it has been unhealthy on member1 past the toleration (1 step(s))\n1 scenario(s) passed\n`);
    expect(r.status).toBe(0);
  });
  it('exits 1 when one fails, naming the step and showing expected against got', () => {
    const r = simulate(`${fixtures}/passes.yaml`, `${fixtures}/fails.yaml`);
    expect(r.stdout.split('\n')).toEqual([
      `ok    ${fixtures}/passes.yaml: nginx moves to member2 once it has been unhealthy on member1 past the toleration (1 step(s))`,
      `FAIL  ${fixtures}/fails.yaml: the same story, expecting the workload to stay on member1 (it does not)`,
      '      at step 1 "member1 turns unhealthy":',
      '        ResourceBinding default/nginx-deployment: spec.clusters[0].name',
      '          expected: "member1"',
      '          got:      "member2"',
      '1 of 2 scenario(s) failed',
      '',
    ]);
    expect(r.status).toBe(1);
  });
  it('passes the decision flags to the core; a scenario\'s own options win over them', () => {
    expect(simulate(`${fixtures}/threshold.yaml`).status).toBe(0);
    const longer = simulate(`${fixtures}/threshold.yaml`, '--cluster-failure-threshold', '10m');
    expect(longer.stdout).toMatch(/FAIL .*threshold\.yaml/);
    expect(longer.status).toBe(1);
    // clusterFailureThresholdSeconds: 120 in the file.
    expect(simulate('conformance/scenarios/plan-cluster-failure-threshold.yaml', '--cluster-failure-threshold', '10s').status).toBe(0);
  });
  it.each([
    ['a file that does not exist', 'nope.yaml', /nope\.yaml: no such file or directory/],
    ['a file that is not YAML', `${fixtures}/broken.yaml`, /broken\.yaml: invalid YAML/],
    ['a misspelt key, which would silently skip a check', `${fixtures}/typo.yaml`, /typo\.yaml: steps\[0\]\.advnace: unknown field/],
  ])('exits 2 for %s, before running anything', (_what, file, message) => {
    const r = simulate(`${fixtures}/passes.yaml`, file);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.status).toBe(2);
  });
  it('exits 2 for a bad flag value, naming the flag', () => {
    const r = simulate(`${fixtures}/passes.yaml`, '--graceful-eviction-timeout', 'soon');
    expect(r.stderr).toMatch(/--graceful-eviction-timeout must be a duration/);
    expect(r.status).toBe(2);
  });
  it('teaches the format in --help', () => {
    const r = simulate('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/memberStatus/);
    expect(r.stdout).toMatch(/Exit status: 0 every expectation held, 1 one failed/);
    expect(r.stdout).toMatch(/--cluster-failure-threshold/);
  });
});
