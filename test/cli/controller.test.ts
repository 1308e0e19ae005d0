import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { coreGateOptions } from '../../src/api/feature-gates.js';
import { parseConcurrency, parseDuration } from '../../src/cli/commands/controller.js';

const root = join(import.meta.dirname, '..', '..');
const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });

/** A kubeconfig for a server that is never contacted: these runs must fail before any request. */
function offlineKubeconfig(): string {
  const f = join(mkdtempSync(join(tmpdir(), 'kl-cli-')), 'kubeconfig');
  writeFileSync(
    f,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
  );
  return f;
}

describe('controller flags', () => {
  it('parses --concurrent-syncs pairs', () => {
    expect(parseConcurrency('execution=5, work-status=3')).toEqual({ execution: 5, 'work-status': 3 });
    expect(parseConcurrency(undefined)).toEqual({});
    expect(() => parseConcurrency('execution=0')).toThrow('--concurrent-syncs takes name=n pairs with n at least 1 (e.g. execution=5), got execution=0');
    expect(() => parseConcurrency('execution')).toThrow(/got execution$/);
  });

  it('parses Go-style durations and names the flag on a bad one', () => {
    expect(parseDuration('--x', '1m30s')).toBe(90_000);
    expect(parseDuration('--x', '250ms')).toBe(250);
    expect(parseDuration('--x', '2')).toBe(2000);
    expect(() => parseDuration('--x', '5 minutes')).toThrow('--x must be a duration like 5ms, 10s or 1m, got 5 minutes');
  });

  it('refuses an unknown controller in --concurrent-syncs at start-up with exit code 2', () => {
    const r = cli(['controller', '--kubeconfig', offlineKubeconfig(), '--metrics-port', '0', '--concurrent-syncs', 'executon=4']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--concurrent-syncs: no running controller named executon; running: detector');
  });

  it('refuses a bad --interpreter-workers with exit code 2 and documents it in --help', () => {
    const r = cli(['controller', '--kubeconfig', offlineKubeconfig(), '--metrics-port', '0', '--interpreter-workers', '-1']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--interpreter-workers must be a whole number from 0 to 64, got -1');
    const help = cli(['controller', '--help']).stdout;
    expect(help).toContain('--interpreter-workers <n>');
    expect(help).toContain('interpreter-health');
  });
});

describe('core feature gates', () => {
  it('turn on PropagationPolicyPreemption and StatefulFailoverInjection; both are off by default', () => {
    expect(coreGateOptions(undefined)).toEqual({ policyPreemption: false, statefulFailoverInjection: false, federatedQuotaEnforcement: false, resourceQuotaEstimate: false, workloadAffinity: false, multiClusterService: false });
    expect(coreGateOptions('StatefulFailoverInjection, PropagationPolicyPreemption=true')).toEqual({ policyPreemption: true, statefulFailoverInjection: true, federatedQuotaEnforcement: false, resourceQuotaEstimate: false, workloadAffinity: false, multiClusterService: false });
    expect(() => coreGateOptions('StatefulFailoverInjection=yes')).toThrow('invalid value of StatefulFailoverInjection=yes, err: strconv.ParseBool: parsing "yes": invalid syntax');
  });

  it('a gate Karmada does not know either is refused by controller and plan with exit code 2, in pflag and component-base words', () => {
    const c = cli(['controller', '--kubeconfig', offlineKubeconfig(), '--metrics-port', '0', '--feature-gates', 'Preemption=true']);
    expect(c.status).toBe(2);
    expect(c.stderr).toContain('invalid argument "Preemption=true" for "--feature-gates" flag: unrecognized feature gate: Preemption');
    const p = cli(['plan', '-f', join(root, 'examples'), '--feature-gates', 'Preemption=true']);
    expect(p.status).toBe(2);
    expect(p.stderr).toContain('invalid argument "Preemption=true" for "--feature-gates" flag: unrecognized feature gate: Preemption');
  });
});
