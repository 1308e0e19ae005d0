// Karmada's WorkloadAffinity / WorkloadAntiAffinity filter plugins (feature gate WorkloadAffinity): the pure
// pieces, and the gate through the embedded control plane. conformance/scenarios/workload-affinity-groups.yaml
// is the story with the gate on; test/integration/workload-affinity.test.ts the same on real apiservers.
import { describe, expect, it } from 'vitest';
import { compileWorkloadAffinity, groupPeers, type GroupedBinding, type WorkloadAffinityGroups } from '../../src/scheduler/workload-affinity.js';
import { ControlPlane } from '../../src/store/control-plane.js';

const rb = (name: string, groups: WorkloadAffinityGroups | null, clusters: string[] = [], namespace = 'default'): GroupedBinding => ({
  metadata: { name, namespace },
  spec: { clusters: clusters.map((c) => ({ name: c })), workloadAffinityGroups: groups },
});

describe('groupPeers', () => {
  it('takes the other bindings of the same groups in the same namespace only', () => {
    const me = rb('me', { affinityGroup: 'app=a', antiAffinityGroup: 'ha=x' });
    const peers = groupPeers(me, [
      me,
      rb('same-affinity', { affinityGroup: 'app=a' }, ['m1']),
      rb('other-affinity', { affinityGroup: 'app=b' }, ['m2']),
      rb('same-anti', { antiAffinityGroup: 'ha=x' }, ['m3']),
      rb('both', { affinityGroup: 'app=a', antiAffinityGroup: 'ha=x' }, ['m4']),
      rb('elsewhere', { affinityGroup: 'app=a', antiAffinityGroup: 'ha=x' }, ['m5'], 'other-ns'),
      rb('no-groups', null, ['m6']),
    ]);
    expect(peers).toEqual({ affinity: [['m1'], ['m4']], antiAffinity: [['m3'], ['m4']] });
  });

  it('is undefined for a binding in no group, so no plugin runs', () => {
    expect(groupPeers(rb('me', null), [rb('x', { affinityGroup: 'app=a' }, ['m1'])])).toBeUndefined();
    expect(groupPeers(rb('me', {}), [])).toBeUndefined();
  });
});

describe('compileWorkloadAffinity', () => {
  it('lets through only the clusters every scheduled affinity peer targets; an unscheduled peer does not bind (the first of a group goes anywhere)', () => {
    const f = compileWorkloadAffinity({ affinity: [['m1', 'm2'], [], ['m2', 'm3']], antiAffinity: [] })!;
    expect(f('m2', false)).toBeNull();
    expect(f('m1', false)).toEqual({ plugin: 'WorkloadAffinity', reason: 'ResourceBinding with the same affinity group does not target this cluster' });
    expect(f('m3', false)?.plugin).toBe('WorkloadAffinity');
    expect(compileWorkloadAffinity({ affinity: [[], []], antiAffinity: [] })).toBeNull();
  });

  it('keeps off every cluster an anti-affinity peer targets, and never rejects a cluster the binding already targets', () => {
    const f = compileWorkloadAffinity({ affinity: [], antiAffinity: [['m1'], ['m2']] })!;
    expect(f('m1', false)).toEqual({ plugin: 'WorkloadAntiAffinity', reason: 'cluster already has workload with the same anti-affinity group' });
    expect(f('m2', false)?.plugin).toBe('WorkloadAntiAffinity');
    expect(f('m3', false)).toBeNull();
    expect(f('m1', true)).toBeNull();
  });
});

describe('the WorkloadAffinity gate in the core', () => {
  const deployment = (name: string, labels: Record<string, string>) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default', labels },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  const policy = (name: string, selector: Record<string, unknown>, clusterNames: string[]) => ({
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name, namespace: 'default' },
    spec: {
      resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', ...selector }],
      placement: { clusterAffinity: { clusterNames }, spreadConstraints: [{ spreadByField: 'cluster', maxGroups: 1, minGroups: 1 }], workloadAffinity: { affinity: { groupByLabelKey: 'app.group' } } },
    },
  });
  const run = (workloadAffinity: boolean) => {
    const cp = new ControlPlane({ start: new Date('2024-01-01T00:00:00Z'), core: { workloadAffinity } });
    for (const name of ['member1', 'member2', 'member3']) cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: { syncMode: 'Push' } });
    cp.apply(deployment('front-a', { 'app.group': 'front' }));
    cp.apply(policy('front-a', { name: 'front-a' }, ['member2']));
    cp.settle();
    cp.apply(deployment('front-b', { 'app.group': 'front' }));
    cp.apply(policy('front-b', { name: 'front-b' }, ['member1', 'member2', 'member3']));
    cp.settle();
    return cp.get({ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', namespace: 'default', name: 'front-b-deployment' });
  };

  it('on: the binding records its group and follows it', () => {
    const b = run(true);
    expect(b?.spec?.workloadAffinityGroups).toEqual({ affinityGroup: 'app.group=front' });
    expect(b?.spec?.clusters?.map((c: { name: string }) => c.name)).toEqual(['member2']);
  });

  it('off (Karmada\'s default): no groups on the binding, and the placement alone decides', () => {
    const b = run(false);
    expect(b?.spec?.workloadAffinityGroups).toBeUndefined();
    expect(b?.spec?.clusters?.map((c: { name: string }) => c.name)).toEqual(['member1']);
  });
});
