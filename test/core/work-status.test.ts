import { describe, expect, it } from 'vitest';
import { ControlPlane } from '../../src/store/control-plane.js';
import type { KObject } from '../../src/core/object.js';
import { applied, nginxDeployment, nginxPolicy, workStates } from '../store/plan-fixtures.js';

const MEMBERS = ['member1', 'member2'];

const policy = nginxPolicy(MEMBERS);

function fleet(): ControlPlane {
  const cp = new ControlPlane({ start: new Date('2024-01-01T00:00:00Z') });
  for (const name of MEMBERS) cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: { syncMode: 'Push' } });
  return cp;
}

/** The fleet with default/nginx running nginx:1.25 on both members, settled. */
function propagated(): ControlPlane {
  const cp = fleet();
  cp.apply(policy);
  cp.apply(nginxDeployment('nginx:1.25'));
  cp.settle();
  return cp;
}

describe("a Work's reports", () => {
  it('the first is one status write (README differs 53): Applied=True comes with the manifest status, and work-status adds nothing', () => {
    const cp = fleet();
    const seen = workStates(cp.store);
    cp.apply(policy);
    cp.apply(nginxDeployment('nginx:1.25'));
    cp.settle();
    for (const member of MEMBERS) {
      const states = seen.filter((w) => w.metadata.namespace === `karmada-es-${member}`);
      // created, Dispatching (the execution controller's first look), Applied with manifestStatuses: no state in between
      const firstApplied = states.findIndex((w) => applied(w) === 'True');
      expect(firstApplied).toBeGreaterThan(0);
      const ms = states[firstApplied]!.status?.manifestStatuses as Array<{ identifier: { kind: string; name: string }; health: string }>;
      expect(ms).toHaveLength(1);
      expect(ms[0]!.identifier).toMatchObject({ kind: 'Deployment', name: 'nginx' });
      expect(ms[0]!.health).toBe('Healthy');
      // Nothing after it: the work-status controller found its list already written.
      expect(states.slice(firstApplied + 1)).toEqual([]);
    }
    const reasons = cp.store.events().map((e) => e.reason);
    expect(reasons.filter((r) => r === 'ReflectStatusSucceed')).toHaveLength(MEMBERS.length);
  });

  it('a member status change is one Work status write', () => {
    const cp = propagated();
    const seen = workStates(cp.store);
    const member = cp.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' }, 'member1')!;
    cp.store.updateStatus({ ...member, status: { replicas: 1, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 1, observedGeneration: member.metadata.generation } }, 'member1');
    cp.settle();
    const states = seen.filter((w) => w.metadata.namespace === 'karmada-es-member1');
    expect(states).toHaveLength(1);
    const ms = states[0]!.status?.manifestStatuses as Array<{ status?: Record<string, unknown> }>;
    expect(ms[0]!.status).toMatchObject({ readyReplicas: 1 });
  });

  it('an image change reports the new generation in one Work status write per member', () => {
    const cp = propagated();
    const seen = workStates(cp.store);
    cp.apply(nginxDeployment('nginx:1.26'));
    cp.settle();
    for (const member of MEMBERS) {
      const states = seen.filter((w) => w.metadata.namespace === `karmada-es-${member}`);
      // the manifest (binding controller), then its reflected status (work-status)
      expect(states).toHaveLength(2);
      const gen = cp.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' }, member)!.metadata.generation;
      const ms = states[1]!.status?.manifestStatuses as Array<{ status?: Record<string, unknown> }>;
      expect(ms[0]!.status?.generation).toBe(gen);
    }
  });
});
