// `karmada-lite register` without a cluster: usage errors (exit 2) and --dry-run's objects; and the
// controller's grace-period flags for Pull clusters.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });

describe('karmada-lite register', () => {
  it('--dry-run prints the host and member objects and writes nothing (no kubeconfig needed)', () => {
    const r = cli(['register', '--cluster-name', 'edge-7', '--cluster-id', 'u-1', '--cluster-region', 'eu', '--dry-run']);
    expect(r.status, r.stderr).toBe(0);
    const objects = parseAllDocuments(r.stdout).map((d) => d.toJS()).filter(Boolean);
    const names = objects.map((o) => `${o.kind}/${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`);
    expect(names).toContain('ServiceAccount/karmada-cluster/karmada-agent-edge-7');
    expect(names).toContain('Role/karmada-es-edge-7/system:karmada:edge-7:agent-work');
    expect(names).toContain('Lease/karmada-cluster/edge-7');
    expect(names).toContain('Deployment/karmada-system/karmada-agent');
    expect(names.some((n) => n.startsWith('Secret/'))).toBe(false);
    const cluster = objects.find((o) => o.kind === 'Cluster');
    expect(cluster.spec).toEqual({ syncMode: 'Pull', id: 'u-1', region: 'eu' });
  });

  it('refuses what it cannot do with exit code 2, saying what to give', () => {
    const cases: Array<[string[], string]> = [
      [['--dry-run'], '--cluster-name is required'],
      [['--cluster-name', 'Edge_1', '--dry-run'], '--cluster-name Edge_1: a lowercase RFC 1123 label'],
      [['--cluster-name', 'e1'], '--karmada-kubeconfig is required'],
      [['--cluster-name', 'e1', '--karmada-kubeconfig', '/nonexistent'], "give the member's --kubeconfig (the agent is installed there) or --kubeconfig-out FILE"],
      [['--cluster-name', 'e1', '--karmada-kubeconfig', '/nonexistent', '--kubeconfig-out', '/tmp/x'], "give the member's --kubeconfig, or --cluster-id"],
      [['--cluster-name', 'e1', '--karmada-kubeconfig', '/nonexistent', '--kubeconfig-out', '/tmp/x', '--cluster-id', 'i'], '--karmada-kubeconfig /nonexistent: no such file'],
      [['--cluster-name', 'e1', '--karmada-agent-replicas', 'two', '--dry-run'], '--karmada-agent-replicas must be a whole number of at least 0, got two'],
      [['not-a-url', '--cluster-name', 'e1', '--dry-run'], 'karmada-apiserver-endpoint must be a URL like https://karmada.example.com:6443, got not-a-url'],
    ];
    for (const [args, message] of cases) {
      const r = cli(['register', ...args]);
      expect(r.stderr, args.join(' ')).toContain(message);
      expect(r.status, args.join(' ')).toBe(2);
    }
  });
});

describe('controller --cluster-monitor-grace-period', () => {
  it('is refused below 1s with exit code 2, and documented with Pull clusters in --help', () => {
    const r = cli(['controller', '--kubeconfig', '/nonexistent', '--cluster-monitor-grace-period', '500ms']);
    expect(r.stderr).toContain('--cluster-monitor-grace-period must be at least 1s');
    expect(r.status).toBe(2);
    const help = cli(['controller', '--help']).stdout;
    expect(help).toContain('--cluster-startup-grace-period <duration>');
    expect(help).toContain('pull-cluster-health');
  });
});
