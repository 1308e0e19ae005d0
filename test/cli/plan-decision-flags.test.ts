// `plan` honours the decision flags it shares with `controller` (src/cli/core-flags.ts), end to end.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const fx = 'test/fixtures/plan-flags';

const run = (...args: string[]) =>
  spawnSync(
    process.execPath,
    ['--import', 'tsx', join(root, 'src/cli/main.ts'), 'plan', '-f', `${fx}/app.yaml`, '--clusters', `${fx}/fleet.yaml`, '--at', '2024-01-01T00:00:00Z', '-o', 'json', ...args],
    { cwd: root, encoding: 'utf8' },
  );

/** plan -o json of the fixture app on the fleet (member2 not ready since 23:59:00), at 2024-01-01T00:00:00Z. */
function plan(...args: string[]) {
  const r = run(...args);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as { bindings: Array<{ spec: { clusters?: Array<{ name: string }>; gracefulEvictionTasks?: Array<{ fromCluster: string }> } }>; events: Array<{ reason: string; message: string }> };
}

const noExecuteAdded = (r: ReturnType<typeof plan>) => r.events.filter((e) => e.reason === 'TaintClusterSucceed' && e.message.includes('added cluster.karmada.io/not-ready:NoExecute'));

describe('plan and the decision flags', () => {
  it('never schedules onto a cluster the fleet file says is not ready', () => {
    const r = plan();
    expect(r.bindings[0]!.spec.clusters).toEqual([{ name: 'member1', replicas: 2 }]);
  });
  it('--cluster-failure-threshold: with the default 30 s the not-ready cluster is loaded already NoExecute-tainted; with 2m it gets the taint a minute in', () => {
    expect(noExecuteAdded(plan('--run-for', '90s'))).toEqual([]);
    expect(noExecuteAdded(plan('--run-for', '90s', '--cluster-failure-threshold', '2m'))).toHaveLength(1);
  });
  it('--graceful-eviction-timeout: a task with no grace period of its own ends after it, when the new placement never turns healthy', () => {
    const status = ['--status', `${fx}/unhealthy.yaml`, '--run-for', '3m'];
    const byDefault = plan(...status);
    expect(byDefault.bindings[0]!.spec.gracefulEvictionTasks?.map((t) => t.fromCluster)).toEqual(['member1']);
    expect(plan(...status, '--graceful-eviction-timeout', '1m').bindings[0]!.spec.gracefulEvictionTasks).toBeUndefined();
  });
  it('--controllers: a controller left out makes no decision (no application failover without it)', () => {
    const r = plan('--status', `${fx}/unhealthy.yaml`, '--run-for', '3m', '--controllers', '*,-application-failover');
    expect(r.bindings[0]!.spec.clusters).toEqual([{ name: 'member1', replicas: 2 }]);
    expect(r.bindings[0]!.spec.gracefulEvictionTasks).toBeUndefined();
    const bad = run('--controllers', '*,-nope');
    expect(bad.stderr).toMatch(/--controllers: unknown controller nope; known: detector, /);
    expect(bad.status).toBe(2);
  });
});
