import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { parseDocuments, readDocuments } from '../../src/io/documents.js';
import { CLUSTER, is } from '../../src/core/kinds.js';
import type { KObject } from '../../src/core/object.js';
import { diffPlans } from '../../src/store/plan-diff.js';
import type { PlanResult } from '../../src/store/plan.js';
import { gunzipSync } from 'node:zlib';
import { fleetInputOfPlan, fleetModel, fleetReport, fleetRowDetail, type FleetModel, type FleetReport } from '../../src/report/model.js';
import { reportHtml } from '../../src/report/html.js';
import { DETAIL_ID_PREFIX, EVENTS_ID } from '../../src/report/page-ids.js';
import { deployment, fleet as fleetOf, planned, propagationPolicy } from '../store/plan-fixtures.js';

const examples = join(import.meta.dirname, '../../examples');
const clustersOf = (docs: ReturnType<typeof readDocuments>) => docs.map((d) => d.object as unknown as KObject).filter((o) => is(o, CLUSTER));
const cell = (m: FleetModel, row: string, cluster: string) => m.rows.find((r) => r.key === row)?.cells.find((c) => c.cluster === cluster);
const detail = (r: FleetReport, row: string) => r.details[r.model.rows.findIndex((x) => x.key === row)]!;
/** An embedded part of the page as the browser inflates it (base64 of gzipped JSON). */
const embedded = (html: string, id: string): unknown => {
  const m = new RegExp(`<script type="application/octet-stream" id="${id}">([^<]*)</script>`).exec(html);
  return m ? JSON.parse(gunzipSync(Buffer.from(m[1]!, 'base64')).toString('utf8')) : undefined;
};

describe('the fleet report model', () => {
  const docs = readDocuments([examples]);
  const result = planned(docs);
  const report = fleetReport(fleetInputOfPlan(result, clustersOf(docs)));
  const model = report.model;

  it("never carries a Secret's values: each key says only its size", () => {
    const d = detail(report, 'Secret/default/mysql-credentials');
    expect(d.works[0]!.manifest).toMatchObject({ kind: 'Secret', stringData: { password: '<redacted: 9 bytes>' } });
    expect(JSON.stringify(report)).not.toContain('change-me');
    const html = reportHtml(report);
    const all = report.model.rows.map((_, i) => embedded(html, `${DETAIL_ID_PREFIX}${i}`));
    expect(all).toEqual(report.details);
    expect(JSON.stringify(all)).not.toContain('change-me');
  });

  it('is the same model on its own as in the whole report, and one row\'s detail alone is that row\'s', () => {
    const input = fleetInputOfPlan(result, clustersOf(docs));
    expect(fleetModel(input)).toEqual(model);
    expect(fleetRowDetail(input, 'Deployment/default/web')).toEqual(detail(report, 'Deployment/default/web'));
    expect(fleetRowDetail(input, 'Deployment/default/nothing')).toBeUndefined();
  });

  it("shows the scheduler's reason in the cell of a cluster a template is not placed on, as the plan table says it", () => {
    const legacy = cell(model, 'Deployment/default/legacy-api', 'member3');
    expect(legacy).toMatchObject({ state: 'absent' });
    const absent = result.absent.find((a) => a.binding === 'default/legacy-api-deployment' && a.cluster === 'member3')!;
    expect(absent).toBeDefined();
    expect(model.reasons[legacy!.reason!]).toBe(`${absent.kind === 'filtered' ? 'filtered out' : 'not selected'}: ${absent.reason}`);
    // each text once, however many cells share it
    expect(new Set(model.reasons).size).toBe(model.reasons.length);
    expect(model.rows.flatMap((r) => r.cells).filter((c) => c.state === 'absent' && c.reason !== undefined)).toHaveLength(result.absent.length);
  });

  it('carries the events apart from the matrix: the model counts them, the page embeds them', () => {
    expect(result.events.length).toBeGreaterThan(0);
    expect(model.events).toBe(result.events.length);
    expect(embedded(reportHtml(report), EVENTS_ID)).toEqual(report.events);
    // newest first; events of one time in the reverse of their recorded order, so the order is total
    const last = result.events.at(-1)!;
    expect(result.events.every((e) => e.lastTimestamp === last.lastTimestamp)).toBe(true);
    expect(report.events[0]).toMatchObject({ time: last.lastTimestamp, reason: last.reason });
    expect(report.events.at(-1)).toMatchObject({ reason: result.events[0]!.reason });
  });

  it('has a cell per Work: replicas, dispatch state, Applied and health, for the examples', () => {
    expect(model.clusters).toEqual(['member1', 'member2', 'member3']);
    expect(cell(model, 'Deployment/default/frontend', 'member1')).toMatchObject({ state: 'dispatched', replicas: 3, applied: true, health: 'Healthy' });
    expect(cell(model, 'Deployment/default/frontend', 'member2')).toMatchObject({ state: 'suspended', replicas: 3, health: 'Unknown' });
    expect(cell(model, 'Deployment/default/frontend', 'member2')?.applied).toBeUndefined();
    expect(['member1', 'member2', 'member3'].map((c) => cell(model, 'Deployment/default/batch-worker', c)?.state)).toEqual(['suspended', 'suspended', 'suspended']);
    expect(cell(model, 'Deployment/default/web', 'member3')).toMatchObject({ state: 'dispatched', replicas: 1 });
  });

  it('groups rows by namespace and policy, and names the fields overrides changed against the pruned template', () => {
    const g = model.groups.find((x) => x.policy === 'default/web-ha');
    expect(g?.namespace).toBe('default');
    expect(g?.rows.map((i) => model.rows[i]!.key)).toEqual(['Deployment/default/web']);
    expect(model.groups.map((x) => `${x.namespace} ${x.policy}`)).toEqual([...model.groups.map((x) => `${x.namespace} ${x.policy}`)].sort());
    const web = detail(report, 'Deployment/default/web');
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
    const r = fleetReport(fleetInputOfPlan(after, fleet.map((d) => d.object as unknown as KObject), diff));
    const m = r.model;
    expect(m.changes).toBe(diff.length);
    expect(detail(r, 'Deployment/default/api').changes).toEqual(diff);
    expect(cell(m, 'Deployment/default/api', 'member1')).toMatchObject({ state: 'dispatched', changed: true });
    expect(cell(m, 'Deployment/default/api', 'member2')).toMatchObject({ state: 'absent', changed: true });
  });

  it('renders one self-contained page: the model inline, no network fetch, no early </script>', () => {
    const r: PlanResult = structuredClone(result);
    const evil = '</script><script>alert(1)</script>';
    // in the matrix (a policy name is a row's group) and in a row's detail (a manifest's annotation)
    r.bindings[0]!.metadata.annotations = { ...r.bindings[0]!.metadata.annotations, 'propagationpolicy.karmada.io/name': evil };
    const w = r.works.find((x) => x.manifest)!;
    w.manifest!.metadata.annotations = { ...w.manifest!.metadata.annotations, note: evil };
    const rep = fleetReport(fleetInputOfPlan(r, clustersOf(docs)));
    const html = reportHtml(rep);
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\//);
    // the model, the config, the script, a detail per row and the events
    expect(html.match(/<\/script>/g)).toHaveLength(3 + rep.details.length + 1);
    expect(html).not.toContain(evil);
    const inline = /<script type="application\/json" id="fleet-model">([^<]*)<\/script>/.exec(html)![1]!;
    expect((JSON.parse(inline) as FleetModel).policies.some((p) => p.endsWith(evil))).toBe(true);
    const row = rep.model.rows.findIndex((x) => x.binding === w.binding);
    expect(JSON.stringify(embedded(html, `${DETAIL_ID_PREFIX}${row}`))).toContain(JSON.stringify(evil));
    const live = reportHtml({ model }, { live: { streamUrl: 'events', detailUrl: 'detail', eventsUrl: 'timeline.json' } });
    expect(live).toContain('"streamUrl":"events"');
    // live: nothing embedded, the dashboard answers on demand
    expect(live).not.toContain(DETAIL_ID_PREFIX + '0"');
  });
});

describe('the fleet report: column heads and the events timeline', () => {
  const empty = { at: '2024-01-01T00:00:00Z', bindings: [], works: [], templates: [], events: [] };
  const clusterObj = (name: string, spec: Record<string, unknown>, ready?: string): KObject => ({
    ...CLUSTER,
    metadata: { name },
    spec,
    ...(ready ? { status: { conditions: [{ type: 'Ready', status: ready, reason: 'r', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' }] } } : {}),
  });

  it('heads each column with the sync mode and the Ready status; a plan reads a Cluster without status as Ready, the controller as Unknown', () => {
    const clusters = [clusterObj('a', { syncMode: 'Pull' }, 'False'), clusterObj('b', {}), clusterObj('c', { syncMode: 'Push' }, 'True')];
    expect(fleetModel({ ...empty, clusters, source: 'plan' }).clusterHeads).toEqual([
      { name: 'a', syncMode: 'Pull', ready: 'False' },
      { name: 'b', syncMode: 'Push', ready: 'True' },
      { name: 'c', syncMode: 'Push', ready: 'True' },
    ]);
    expect(fleetModel({ ...empty, clusters, source: 'controller' }).clusterHeads[1]).toEqual({ name: 'b', syncMode: 'Push', ready: 'Unknown' });
  });

  it('lists events newest first, and those of one time the later recorded first', () => {
    const ev = (reason: string, lastTimestamp: string) => ({ reason, lastTimestamp, type: 'Normal', message: reason, count: 1, involvedObject: { kind: 'Deployment', namespace: 'd', name: 'x' } });
    const events = [ev('first', '2024-01-01T00:00:01Z'), ev('second', '2024-01-01T00:00:03Z'), ev('third', '2024-01-01T00:00:02Z'), ev('fourth', '2024-01-01T00:00:03Z')];
    const timeline = fleetReport({ ...empty, clusters: [], events: events as never, source: 'controller' }).events;
    expect(timeline.map((e) => e.reason)).toEqual(['fourth', 'second', 'third', 'first']);
  });
});
