// A health check's verdict and message on the way through the core: the Work's manifest status, the
// binding's aggregated status (extension field healthMessage) and the InterpretHealthSucceed event,
// as `plan --health-checks` shows them.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocuments } from '../../src/io/documents.js';
import { loadHealthChecks } from '../../src/interpreter/argocd-health.js';
import { fleet, planned } from '../store/plan-fixtures.js';

const healthChecks = loadHealthChecks([join(import.meta.dirname, '../../conformance/argocd-health')]).checks;

const input = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: databases.db.example.com}
spec:
  group: db.example.com
  names: {kind: Database, plural: databases, singular: database, listKind: DatabaseList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: db.example.com/v1
kind: Database
metadata: {name: orders, namespace: default}
spec: {size: 1}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: orders, namespace: default}
spec:
  resourceSelectors: [{apiVersion: db.example.com/v1, kind: Database, name: orders}]
  placement: {clusterAffinity: {clusterNames: [member1, member2]}}
`;

const status = `
cluster: member1
apiVersion: db.example.com/v1
kind: Database
namespace: default
name: orders
status: {phase: Failed, reason: disk full}
---
cluster: member2
apiVersion: db.example.com/v1
kind: Database
namespace: default
name: orders
status: {phase: Running}
`;

describe('health checks through the core', () => {
  const run = (withChecks: boolean) =>
    planned([...fleet(['member1', 'member2']), ...parseDocuments(input, 'in.yaml')], {
      status: parseDocuments(status, 's.yaml'),
      interpreterLibraries: withChecks ? { healthChecks } : undefined,
    });

  it('the aggregated status items carry health and the check\'s message', () => {
    const r = run(true);
    const items = (r.bindings[0]!.status as { aggregatedStatus: Record<string, unknown>[] }).aggregatedStatus;
    expect(items.map((i) => [i.clusterName, i.health, i.healthMessage])).toEqual([
      ['member1', 'Unhealthy', 'disk full'],
      ['member2', 'Healthy', 'Database is running'],
    ]);
  });

  it('the InterpretHealthSucceed event names the message', () => {
    const messages = run(true)
      .events.filter((e) => e.reason === 'InterpretHealthSucceed')
      .map((e) => e.message);
    expect(messages).toContain('Interpret health of object(Database/default/orders) as Unhealthy. disk full');
    expect(messages).toContain('Interpret health of object(Database/default/orders) as Healthy. Database is running');
  });

  it('without the health checks the kind has no health hook: Healthy everywhere, no message', () => {
    const items = (run(false).bindings[0]!.status as { aggregatedStatus: Record<string, unknown>[] }).aggregatedStatus;
    expect(items.map((i) => [i.health, i.healthMessage])).toEqual([
      ['Healthy', undefined],
      ['Healthy', undefined],
    ]);
  });
});
