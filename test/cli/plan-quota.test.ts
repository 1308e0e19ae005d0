// `plan` with a FederatedResourceQuota of cpu 2 and two templates, `small` (1 cpu) and `big` (4): under
// FederatedQuotaEnforcement `big` is shown unscheduled with Karmada's refusal (the sum it would make: 1 + 4), and
// the quota, in the plan's output, says what is charged; without the gate nothing is refused (Karmada's default).
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const args = ['plan', '-f', 'test/fixtures/plan-quota/team.yaml', '--clusters', 'examples/fleet', '--at', '2024-01-01T00:00:00Z'];
const REFUSAL = 'FederatedResourceQuota(default/team) exceeded for resource cpu: requested sum 5, limit 2.';

describe('plan and FederatedResourceQuota', () => {
  it('shows what the quota would refuse, in the table and as the binding\'s condition, under the gate', async () => {
    const table = await runCli([...args, '-o', 'table', '--feature-gates', 'FederatedQuotaEnforcement=true']);
    expect(table.code).toBe(0);
    const row = (name: string) => table.stdout.split('\n').find((l) => l.startsWith(`Deployment/default/${name} `) && !l.includes('filtered out'))!;
    expect(row('big')).toMatch(/\s-\s+unscheduled: QuotaExceeded: admission webhook "resourcebinding.karmada.io" denied the request: /);
    expect(row('big')).toContain(REFUSAL);
    expect(row('small')).toMatch(/\smember1\s+1\s+dispatched/);
    const json = await runCli([...args, '-o', 'json', '--feature-gates', 'FederatedQuotaEnforcement=true']);
    const plan = JSON.parse(json.stdout);
    const scheduled = plan.bindings[0].status.conditions.find((c: any) => c.type === 'Scheduled');
    expect(scheduled).toMatchObject({ status: 'False', reason: 'QuotaExceeded' });
    expect(scheduled.message).toContain(REFUSAL);
    expect(plan.quotas.map((q: any) => [q.metadata.name, q.status])).toEqual([['team', { overall: { cpu: '2' }, overallUsed: { cpu: '1' } }]]);
  });

  it('refuses nothing without the gate, as Karmada', async () => {
    const table = await runCli([...args, '-o', 'table']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/Deployment\/default\/big\s+default\/big\s+member1\s+4\s+dispatched/);
    expect(table.stdout).not.toContain('QuotaExceeded');
  });
});
