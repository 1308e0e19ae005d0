// The binding-status controller's FullyApplied condition (src/core/status.ts).
import { describe, it } from 'vitest';
import { ScenarioRun } from '../../src/simulate/scenario.js';

const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx' } }, spec: { replicas: 2, selector: { matchLabels: { app: 'nginx' } }, template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } } } };
const policy = (spec: Record<string, unknown>) => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'nginx', namespace: 'default' },
  spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }], placement: { clusterAffinity: { clusterNames: ['member1', 'member2', 'member3'] }, replicaScheduling: { replicaSchedulingType: 'Duplicated' } }, ...spec },
});
const fullyApplied = (status: string, reason: string, message?: string) => ({
  bindings: [{ apiVersion: 'work.karmada.io/v1alpha2', kind: 'ResourceBinding', metadata: { name: 'nginx-deployment', namespace: 'default' }, status: { conditions: [{ type: 'Scheduled' }, { type: 'Rollout' }, { type: 'FullyApplied', status, reason, ...(message ? { message } : {}) }] } }],
});

describe('FullyApplied under a staged rollout (issue 33)', () => {
  it("a first revision's later stages are waiting, not failed: SuspendDispatching naming them, then FullyAppliedSuccess once the rollout reached every cluster", () => {
    new ScenarioRun({
      name: 'first revision, three stages',
      objects: [
        deployment,
        policy({ rolloutStrategy: { type: 'Staged', staged: { gate: { minHealthySeconds: 60 }, stages: [{ name: 'canary', clusterNames: ['member1'] }, { name: 'eu', clusterNames: ['member2'] }, { name: 'rest', clusterNames: ['member3'] }] } } }),
      ],
      expect: fullyApplied('False', 'SuspendDispatching', 'Work dispatching is in a suspended state on member2, member3 until the staged rollout reaches them; every other work has been applied'),
      steps: [
        { name: 'the second stage opens', advance: 61, expect: fullyApplied('False', 'SuspendDispatching', 'Work dispatching is in a suspended state on member3 until the staged rollout reaches it; every other work has been applied') },
        { name: 'the rollout completes', advance: 120, expect: fullyApplied('True', 'FullyAppliedSuccess') },
      ],
    }).run();
  });
});
