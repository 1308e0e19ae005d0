import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocuments, readDocuments } from '../../src/io/documents.js';
import { formatPlanYaml, plan } from '../../src/store/plan.js';
import { formatPlanTable } from '../../src/store/plan-table.js';

const examples = join(import.meta.dirname, '../../examples');
// Plans run at the current time unless told: these pin it, for output that is the same on every run.
const at = new Date('2024-01-01T00:00:00Z');
const fleet = `
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: member1}
spec: {syncMode: Push}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: member2}
spec: {syncMode: Push}
`;
const app = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: nginx, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: nginx}}
  template: {metadata: {labels: {app: nginx}}, spec: {containers: [{name: nginx, image: "nginx:1.25"}]}}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement: {clusterAffinity: {clusterNames: [member1, member2]}}
  suspension: {dispatchingOnClusters: {clusterNames: [member2]}}
`;

describe('plan', () => {
  it('runs the shipped examples to a settled, failure-free plan', () => {
    const out = plan(readDocuments([examples]), { at });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.result.failures).toEqual([]);
    expect(out.result.bindings.length).toBeGreaterThanOrEqual(6);
    expect(out.result.works.some((w) => w.dispatch === 'suspended')).toBe(true);
    const table = formatPlanTable(out.result);
    expect(table.split('\n')[0]).toMatch(/^TEMPLATE\s+POLICY\s+CLUSTER\s+REPLICAS\s+DISPATCHING\s+APPLIED\s+HEALTH\s+IMAGE\s+OVERRIDES$/);
    expect(table).toMatch(/Deployment\/default\/nginx\s+default\/nginx-propagation\s+member1\s+2\s+dispatched\s+yes\s+Healthy/);
  });

  it('shows Works dispatched or suspended and the exact member manifests', () => {
    const out = plan([...parseDocuments(fleet, 'fleet.yaml'), ...parseDocuments(app, 'app.yaml')], { at });
    if (!out.ok) throw new Error(out.problems.join('\n'));
    const r = out.result;
    expect(r.works.map((w) => [w.cluster, w.name, w.dispatch])).toEqual([
      ['member1', 'nginx-687f7fb96f', 'dispatched'],
      ['member2', 'nginx-687f7fb96f', 'suspended'],
    ]);
    expect(r.members.member1!.map((o) => o.metadata.name)).toEqual(['nginx']);
    expect(r.members.member2).toEqual([]);
    expect(r.works[1]!.conditions).toMatchObject([{ type: 'Dispatching', status: 'False', reason: 'SuspendDispatching' }]);
    const yaml = formatPlanYaml(r);
    expect(yaml.split('\n')[0]).toBe('# karmada-lite plan at 2024-01-01T00:00:00Z: 1 binding(s), 2 Work(s) (1 suspended), 2 cluster(s)');
  });

  it('runs virtual time with simulated member health, so failover plays out', () => {
    const failover = app
      .replace('suspension: {dispatchingOnClusters: {clusterNames: [member2]}}', 'propagateDeps: true\n  failover: {application: {decisionConditions: {tolerationSeconds: 60}, purgeMode: Directly}}')
      .replace('placement: {clusterAffinity: {clusterNames: [member1, member2]}}', 'placement: {clusterAffinity: {clusterNames: [member1, member2]}, spreadConstraints: [{spreadByField: cluster, maxGroups: 1, minGroups: 1}]}');
    const status = parseDocuments('cluster: member1\napiVersion: apps/v1\nkind: Deployment\nnamespace: default\nname: nginx\nhealth: Unhealthy\n', 'status.yaml');
    const out = plan([...parseDocuments(fleet, 'fleet.yaml'), ...parseDocuments(failover, 'app.yaml')], { status, runForSeconds: 120, at });
    if (!out.ok) throw new Error(out.problems.join('\n'));
    expect(out.result.bindings[0]!.spec.clusters).toEqual([{ name: 'member2', replicas: 2 }]);
    expect(out.result.at).toBe('2024-01-01T00:02:00Z');
  });

  it('runs at the current time when not told', () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const out = plan([...parseDocuments(fleet, 'fleet.yaml'), ...parseDocuments(app, 'app.yaml')]);
    if (!out.ok) throw new Error(out.problems.join('\n'));
    const t = Date.parse(out.result.at);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Date.now());
  });

  it('plans a policy naming a cluster the fleet lacks as the controller would: NoClusterFit, and a warning', () => {
    const only7 = plan([...parseDocuments(fleet, 'fleet.yaml'), ...parseDocuments(app.replace('[member1, member2]}}', '[member7]}}'), 'app.yaml')], { at });
    if (!only7.ok) throw new Error(only7.problems.join('\n'));
    expect(only7.result.warnings).toEqual([
      'app.yaml[1] PropagationPolicy default/nginx: spec.placement.clusterAffinity.clusterNames[0]: cluster "member7" is unknown (the clusters are member1, member2); planned as the controller would, with no such cluster',
    ]);
    expect(only7.result.works).toEqual([]);
    expect(only7.result.bindings[0]!.status!.conditions).toMatchObject([
      { type: 'Scheduled', status: 'False', reason: 'NoClusterFit', message: '0/2 clusters are available: 2 cluster(s) did not match the placement cluster affinity constraint.' },
    ]);
    // Next to a known cluster, the unknown one is simply not there.
    const also7 = plan([...parseDocuments(fleet, 'fleet.yaml'), ...parseDocuments(app.replace('[member1, member2]}}', '[member1, member7]}}'), 'app.yaml')], { at });
    if (!also7.ok) throw new Error(also7.problems.join('\n'));
    expect(also7.result.bindings[0]!.spec.clusters).toEqual([{ name: 'member1', replicas: 2 }]);
    expect(also7.result.warnings).toHaveLength(1);
  });

  it('rejects unknown kinds (exit 2), invalid objects and dangling dependentOverrides (exit 1), naming file and document', () => {
    const unknown = plan(parseDocuments('apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: x}\n', 'bad.yaml'));
    expect(unknown).toMatchObject({ ok: false, exitCode: 2 });
    if (!unknown.ok) expect(unknown.problems[0]).toMatch(/^bad\.yaml\[0\] Deploymnet x: unknown apiVersion\/kind/);

    const invalid = plan([...parseDocuments(fleet, 'fleet.yaml'), ...parseDocuments('apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: default}\nspec: {resourceSelectors: []}\n', 'p.yaml')]);
    expect(invalid).toMatchObject({ ok: false, exitCode: 1 });

    const dangling = plan([...parseDocuments(fleet, 'fleet.yaml'), ...parseDocuments(app.replace('suspension:', 'dependentOverrides: [gone]\n  suspension:'), 'app.yaml')]);
    expect(dangling).toMatchObject({ ok: false, exitCode: 1 });
    if (!dangling.ok) expect(dangling.problems).toEqual(['app.yaml[1] PropagationPolicy default/nginx: spec.dependentOverrides[0]: OverridePolicy "gone" is not in the input; add it or drop the reference']);

    const noClusters = plan(parseDocuments(app, 'app.yaml'));
    expect(noClusters).toMatchObject({ ok: false, exitCode: 1 });
  });

  it('rejects malformed status entries with the file and index', () => {
    const out = plan([...parseDocuments(fleet, 'fleet.yaml'), ...parseDocuments(app, 'app.yaml')], { status: parseDocuments('cluster: member1\nkind: Deployment\nname: nginx\nhealth: Sick\n', 's.yaml') });
    expect(out).toMatchObject({ ok: false, exitCode: 1 });
    if (!out.ok) expect(out.problems[0]).toMatch(/^s\.yaml\[0\]: apiVersion required/);
  });
});
