import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { parseDocuments, readDocuments } from '../../src/io/documents.js';
import { CLUSTER, is } from '../../src/core/kinds.js';
import type { KObject } from '../../src/core/object.js';
import { diffPlans } from '../../src/store/plan-diff.js';
import type { PlanResult } from '../../src/store/plan.js';
import { fleetInputOfPlan, fleetModel, type FleetModel } from '../../src/report/model.js';
import { reportHtml } from '../../src/report/html.js';
import { deployment, fleet as fleetOf, planned, propagationPolicy } from '../store/plan-fixtures.js';

const examples = join(import.meta.dirname, '../../examples');
const clustersOf = (docs: ReturnType<typeof readDocuments>) => docs.map((d) => d.object as unknown as KObject).filter((o) => is(o, CLUSTER));
const cell = (m: FleetModel, row: string, cluster: string) => m.rows.find((r) => r.key === row)?.cells.find((c) => c.cluster === cluster);

describe('the fleet report model', () => {
  const docs = readDocuments([examples]);
  const result = planned(docs);
  const model = fleetModel(fleetInputOfPlan(result, clustersOf(docs)));

  it("never carries a Secret's values: each key says only its size", () => {
    const row = model.rows.find((r) => r.key === 'Secret/default/mysql-credentials')!;
    expect(row.works[0]!.manifest).toMatchObject({ kind: 'Secret', stringData: { password: '<redacted: 9 bytes>' } });
    expect(JSON.stringify(model)).not.toContain('change-me');
    expect(reportHtml(model)).not.toContain('change-me');
  });

  it('has a cell per Work: replicas, dispatch state, Applied and health, for the examples', () => {
    expect(model.clusters).toEqual(['member1', 'member2', 'member3']);
    expect(cell(model, 'Deployment/default/frontend', 'member1')).toMatchObject({ state: 'dispatched', replicas: 3, applied: true, health: 'Healthy' });
    expect(cell(model, 'Deployment/default/frontend', 'member2')).toMatchObject({ state: 'suspended', replicas: 3, health: 'Unknown' });
    expect(cell(model, 'Deployment/default/frontend', 'member2')?.applied).toBeUndefined();
    expect(['member1', 'member2', 'member3'].map((c) => cell(model, 'Deployment/default/batch-worker', c)?.state)).toEqual(['suspended', 'suspended', 'suspended']);
    expect(cell(model, 'Deployment/default/legacy-api', 'member3')).toBeUndefined();
    expect(cell(model, 'Deployment/default/web', 'member3')).toMatchObject({ state: 'dispatched', replicas: 1 });
  });

  it('groups rows by namespace and policy, and names the fields overrides changed against the pruned template', () => {
    const g = model.groups.find((x) => x.policy === 'default/web-ha');
    expect(g?.namespace).toBe('default');
    expect(g?.rows.map((i) => model.rows[i]!.key)).toEqual(['Deployment/default/web']);
    expect(model.groups.map((x) => `${x.namespace} ${x.policy}`)).toEqual([...model.groups.map((x) => `${x.namespace} ${x.policy}`)].sort());
    const web = model.rows.find((r) => r.key === 'Deployment/default/web')!;
    const m1 = web.works.find((w) => w.cluster === 'member1')!;
    expect(m1.overrides).toEqual(['eu-registry-mirror']); // a ClusterOverridePolicy
    expect(m1.changed).toEqual([
      { path: 'spec.replicas', before: 4, after: 3 },
      { path: 'spec.template.spec.containers[0].image', before: 'ghcr.io/example/web:2.3.0', after: 'mirror.eu-west.example.com/example/web:2.3.0' },
    ]);
    // member3 has no override: only the replicas the scheduler divided differ
    expect(web.works.find((w) => w.cluster === 'member3')!.changed.map((c) => c.path)).toEqual(['spec.replicas']);
  });

  it('marks a cell held by a rollout stage, and eviction and failover markers, from the binding', () => {
    const r: PlanResult = structuredClone(result);
    const b = r.bindings.find((x) => x.metadata.name === 'frontend-deployment')!;
    b.status = { ...b.status, rollout: { revision: 1, currentStage: 0, stages: [], clusters: [{ name: 'member1', stage: 0, state: 'Progressing' }, { name: 'member3', stage: 1, state: 'Waiting' }] } };
    b.spec = { ...b.spec, gracefulEvictionTasks: [{ fromCluster: 'member2', reason: 'TaintUntolerated', producer: 'taint-manager' }] };
    const m = fleetModel(fleetInputOfPlan(r, clustersOf(docs)));
    expect(cell(m, 'Deployment/default/frontend', 'member3')).toMatchObject({ state: 'held', stage: 1 });
    expect(cell(m, 'Deployment/default/frontend', 'member1')).toMatchObject({ state: 'dispatched' });
    expect(cell(m, 'Deployment/default/frontend', 'member2')?.evicting).toBe(true);
    expect(cell(m, 'Deployment/default/frontend', 'member1')?.evicting).toBeUndefined();
  });

  it('marks the cells a diff changes, and adds cells for clusters no longer placed', () => {
    const fleet = fleetOf(['member1', 'member2', 'member3']);
    const app = (replicas: number, clusters: string) =>
      parseDocuments([deployment('api', { replicas }), propagationPolicy('api', '[{apiVersion: apps/v1, kind: Deployment, name: api}]', `{clusterAffinity: {clusterNames: [${clusters}]}}`)].join('---\n'), 'app.yaml');
    const before = planned([...app(2, 'member1, member2'), ...fleet]);
    const after = planned([...app(3, 'member1'), ...fleet]);
    const diff = diffPlans(before, after);
    const m = fleetModel(fleetInputOfPlan(after, fleet.map((d) => d.object as unknown as KObject), diff));
    expect(m.diff).toEqual(diff);
    expect(cell(m, 'Deployment/default/api', 'member1')).toMatchObject({ state: 'dispatched', change: diff.findIndex((c) => c.cluster === 'member1') });
    expect(cell(m, 'Deployment/default/api', 'member2')).toMatchObject({ state: 'absent', change: diff.findIndex((c) => c.cluster === 'member2') });
  });

  it('renders one self-contained page: the model inline, no network fetch, no early </script>', () => {
    const r: PlanResult = structuredClone(result);
    r.templates[0]!.metadata.annotations = { note: '</script><script>alert(1)</script>' };
    const html = reportHtml(fleetModel(fleetInputOfPlan(r, clustersOf(docs))));
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!mirror\.eu-west|ghcr|docker)/);
    expect(html.match(/<\/script>/g)).toHaveLength(3);
    const live = reportHtml(model, { live: { streamUrl: 'events' } });
    expect(live).toContain('"streamUrl":"events"');
  });
});
