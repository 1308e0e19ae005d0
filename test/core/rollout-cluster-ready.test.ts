// Staged rollout and a member that stops answering (issue 33): the gate of a stage does not pass on the status
// last collected from a cluster that is not Ready, its bake time starts again once the cluster answers, and a
// gate timeout still fails it. test/integration/fault-rollout.test.ts is the same on the real fleet.
import { describe, expect, it } from 'vitest';
import type { RolloutStatus } from '../../src/api/generated/types.js';
import type { KObject } from '../../src/core/object.js';
import { ControlPlane } from '../../src/store/control-plane.js';
import { nginxDeployment } from '../store/plan-fixtures.js';

const MEMBERS = ['member1', 'member2'];
const DEP = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' };
const RB_REF = { apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', namespace: 'default', name: 'nginx-deployment' };
const CLUSTER = (name: string) => ({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', name });

/** Two members, one stage each, nginx:1.25 rolled out under `gate`. */
function fleet(gate: Record<string, unknown>): ControlPlane {
  const cp = new ControlPlane({ start: new Date('2024-01-01T00:00:00Z') });
  for (const name of MEMBERS) cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: { syncMode: 'Push' } });
  cp.apply(nginxDeployment('nginx:1.25'));
  cp.apply({
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: 'nginx', namespace: 'default' },
    spec: {
      resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }],
      placement: { clusterAffinity: { clusterNames: MEMBERS }, replicaScheduling: { replicaSchedulingType: 'Duplicated' } },
      rolloutStrategy: { type: 'Staged', staged: { gate } },
    },
  });
  cp.settle();
  cp.advance(3600);
  expect(rollout(cp).phase).toBe('Completed');
  return cp;
}

function rollout(cp: ControlPlane): RolloutStatus {
  const r = cp.get(RB_REF)?.status?.rollout as RolloutStatus | undefined;
  if (!r) throw new Error('no status.rollout on the binding');
  return r;
}

const image = (cp: ControlPlane, cluster: string): string | undefined => cp.get(DEP, cluster)?.spec?.template?.spec?.containers?.[0]?.image;
const clusterState = (cp: ControlPlane, name: string) => rollout(cp).clusters.find((c) => c.name === name);

/** The Ready condition the cluster status controller would write. */
function setReady(cp: ControlPlane, name: string, status: 'True' | 'False' | 'Unknown'): void {
  const c = cp.get(CLUSTER(name)) as KObject;
  const reason = status === 'True' ? 'ClusterReady' : 'ClusterNotReachable';
  cp.store.updateStatus({ ...c, status: { ...(c.status ?? {}), conditions: [{ type: 'Ready', status, reason, message: reason, lastTransitionTime: '2024-01-01T00:00:00Z' }] } });
}

describe('staged rollout: a cluster of the open stage that is not Ready', () => {
  it('does not pass the gate on the status last seen; answering again, it bakes again from then', () => {
    const cp = fleet({ minHealthySeconds: 60 });
    for (const m of MEMBERS) setReady(cp, m, 'True');
    cp.apply(nginxDeployment('nginx:1.26'));
    cp.advance(30);
    expect(clusterState(cp, 'member1')).toMatchObject({ state: 'Healthy', healthySince: '2024-01-01T01:00:00Z' });
    setReady(cp, 'member1', 'False');
    cp.settle();
    expect(clusterState(cp, 'member1')).toMatchObject({ state: 'Progressing', reason: 'ClusterNotReady' });
    expect(clusterState(cp, 'member1')?.message).toContain('cluster member1 is not Ready (ClusterNotReachable)');
    cp.advance(600);
    expect(rollout(cp).currentStage).toBe(0);
    expect(image(cp, 'member2')).toBe('nginx:1.25');
    setReady(cp, 'member1', 'True');
    cp.settle();
    expect(clusterState(cp, 'member1')).toMatchObject({ state: 'Healthy', healthySince: '2024-01-01T01:10:30Z' });
    cp.advance(59);
    expect(image(cp, 'member2')).toBe('nginx:1.25');
    cp.advance(1);
    expect(image(cp, 'member2')).toBe('nginx:1.26');
  });

  it('fails the stage once timeoutSeconds passed without it answering (onFailure Pause)', () => {
    const cp = fleet({ timeoutSeconds: 120 });
    for (const m of MEMBERS) setReady(cp, m, 'True');
    setReady(cp, 'member1', 'Unknown');
    cp.apply(nginxDeployment('nginx:1.26'));
    cp.advance(119);
    expect(clusterState(cp, 'member1')).toMatchObject({ state: 'Progressing', reason: 'ClusterNotReady' });
    cp.advance(1);
    expect(clusterState(cp, 'member1')).toMatchObject({ state: 'Failed', reason: 'GateTimeout' });
    expect(clusterState(cp, 'member1')?.message).toContain('is not Ready');
    expect(image(cp, 'member2')).toBe('nginx:1.25');
  });
});
