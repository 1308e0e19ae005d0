/**
 * Runs every table case in conformance/scheduler/*.yaml (format: conformance/scheduler/README.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { schedule, type PreviousSchedule, type ScheduleOptions } from '../../src/scheduler/scheduler.js';
import { allocateWebsterSeats, tieBreakerFor } from '../../src/scheduler/webster.js';
import {
  selectGroups,
  selectBestClusters,
  groupClusters,
  sortClusters,
  calcGroupScore,
  findConstraint,
  type ClusterDetail,
} from '../../src/scheduler/spread.js';
import { divideReplicas, type DynamicStrategy } from '../../src/scheduler/division.js';
import { calAvailableReplicas } from '../../src/scheduler/available.js';
import { clusterInfo } from '../../src/scheduler/snapshot.js';
import { deschedule, type UnschedulableEstimate } from '../../src/scheduler/descheduler.js';
import { APPLIED_PLACEMENT_ANNOTATION } from '../../src/scheduler/messages.js';
import type { Binding, Placement, TargetCluster } from '../../src/scheduler/types.js';
import { binding, cluster, target, targets, type CompactBinding, type CompactCluster } from './fixtures.js';

const DIR = join(import.meta.dirname, '../../conformance/scheduler');
const DEFAULT_NOW = '2024-06-01T12:00:00Z';

type Case = Record<string, any> & { name: string; kind?: string; expect: Record<string, any> };

const replicasList = (l: TargetCluster[] | null | undefined): string[] | null =>
  l == null ? null : l.map((t) => (t.replicas === undefined ? t.name : `${t.name}:${t.replicas}`));
const expected = (l: Array<string | TargetCluster> | null): string[] | null => (l === null ? null : replicasList(targets(l)));
const parseList = (l: Array<string | TargetCluster>): Array<{ name: string; replicas: number }> =>
  l.map(target).map((t) => ({ name: t.name, replicas: t.replicas ?? 0 }));

function runSchedule(c: Case): void {
  const b = binding(c.binding as CompactBinding);
  const clusters = (c.clusters as Array<CompactCluster | string>).map((x) => cluster(x, b.spec.resource));
  const previous = c.previous as PreviousSchedule | undefined;
  if (previous?.clusters) previous.clusters = targets(previous.clusters as Array<string | TargetCluster>);
  const now = new Date(c.now ?? DEFAULT_NOW);
  const r = schedule(b, clusters, previous, now, { explain: true, ...(c.options ?? {}) } as ScheduleOptions);
  // Without `explain` the scheduler skips ordering clusters where order cannot matter: same outcome.
  const quiet = schedule(b, clusters, previous, now, (c.options ?? {}) as ScheduleOptions);
  expect(quiet.clusters).toEqual(r.clusters);
  expect(quiet.error).toEqual(r.error);
  expect(quiet.events).toEqual(r.events);
  const e = c.expect;
  if ('action' in e) expect(r.action).toBe(e.action);
  if ('clusters' in e) expect(replicasList(r.clusters)).toEqual(expected(e.clusters));
  if ('clustersUntouched' in e) expect(r.clusters === undefined).toBe(e.clustersUntouched);
  if ('error' in e) expect(r.error?.message ?? null).toBe(e.error);
  if ('reason' in e) expect(r.condition?.reason).toBe(e.reason);
  if ('errorKind' in e) expect(r.error?.kind).toBe(e.errorKind);
  if ('trigger' in e) expect(r.trigger ?? null).toBe(e.trigger);
  if ('affinityName' in e) expect(r.affinityName ?? null).toBe(e.affinityName);
  if ('retry' in e) expect(r.retry).toBe(e.retry);
  if ('statusChanged' in e) expect(r.statusChanged).toBe(e.statusChanged);
  if ('observedGeneration' in e) expect(r.status.schedulerObservedGeneration).toBe(e.observedGeneration);
  if ('lastScheduledTime' in e) expect(r.status.lastScheduledTime ?? null).toBe(e.lastScheduledTime);
  if ('annotationWritten' in e) expect(r.appliedPlacement !== undefined).toBe(e.annotationWritten);
  if ('diagnosis' in e) expect(r.diagnosis).toEqual(e.diagnosis);
  if ('order' in e) expect(r.feasible?.map((f) => f.name)).toEqual(e.order);
  if ('conditionStatus' in e) expect(r.condition?.status).toBe(e.conditionStatus);
  if ('lastTransitionTime' in e) expect(r.condition?.lastTransitionTime).toBe(e.lastTransitionTime);
  if ('evictionBlockExpiresAt' in e) expect(r.evictionBlockExpiresAt ?? null).toBe(e.evictionBlockExpiresAt);
  if ('events' in e) {
    const got = r.events.filter((x) => x.object === 'binding').map((x) => `${x.type} ${x.reason} ${x.message}`);
    expect(got).toEqual(e.events);
  }
}

function runWebster(c: Case): void {
  const votes = Object.entries(c.votes as Record<string, number>).map(([name, v]) => ({ name, votes: v }));
  const initial = c.initial ? new Map(Object.entries(c.initial as Record<string, number>)) : null;
  const r = allocateWebsterSeats(c.seats, votes, initial, tieBreakerFor(c.uid));
  expect(Object.fromEntries(r.map((s) => [s.name, s.seats]))).toEqual(c.expect.seats);
}

function runSelectGroups(c: Case): void {
  const groups = (c.groups as Array<[string, number, number] | { name: string; value: number; weight: number }>).map((g) =>
    Array.isArray(g) ? { name: g[0], value: g[1], weight: g[2] } : g,
  );
  expect(selectGroups(groups, c.minGroups, c.maxGroups, c.target).map((g) => g.name)).toEqual(c.expect.groups);
}

function runSelectClusters(c: Case): void {
  const placement = c.placement as Placement;
  const details: ClusterDetail[] = (c.clusters as Array<{ name: string; score: number; available: number; region?: string }>).map((d) => ({
    name: d.name,
    score: d.score,
    allocatable: d.available,
    available: d.available,
    overflowOrder: 0,
    region: d.region ?? '',
  }));
  const info = groupClusters(details, placement, c.needReplicas ?? 0);
  if (c.regions && info.regions)
    for (const [name, score] of Object.entries(c.regions as Record<string, number>)) info.regions.get(name)!.score = score;
  let got: string[] | { error: string };
  try {
    got = selectBestClusters(placement, info, c.needReplicas ?? 0).map((d) => d.name);
  } catch (e) {
    got = { error: (e as Error).message };
  }
  if ('error' in c.expect) expect(got).toEqual({ error: c.expect.error });
  else expect(got).toEqual(c.expect.clusters);
}

function runGroupScore(c: Case): void {
  const details: ClusterDetail[] = (c.clusters as Array<{ name: string; score: number; available: number }>).map((d) => ({
    name: d.name,
    score: d.score,
    allocatable: d.available,
    available: d.available,
    overflowOrder: 0,
    region: 'r',
  }));
  sortClusters(details);
  const placement = c.placement as Placement;
  const cs = placement.spreadConstraints ?? [];
  const score = calcGroupScore(
    details,
    placement,
    c.replicas,
    findConstraint(cs, 'region')?.minGroups ?? 0,
    findConstraint(cs, 'cluster')?.minGroups ?? 0,
  );
  expect(score).toBe(c.expect.score);
}

function runDivide(c: Case): void {
  let got: string[] | { error: string };
  try {
    got = replicasList(
      divideReplicas(c.strategy as DynamicStrategy, c.target, parseList(c.availList), parseList(c.scheduled ?? []), c.uid),
    )!;
  } catch (e) {
    got = { error: (e as Error).message };
  }
  if ('error' in c.expect) expect(got).toEqual({ error: c.expect.error });
  else expect(got).toEqual(expected(c.expect.clusters));
}

function runAvailable(c: Case): void {
  const info = clusterInfo(cluster(c.cluster as CompactCluster));
  const spec = {
    replicas: c.replicas ?? 1,
    replicaRequirements: c.resourceRequest ? { resourceRequest: c.resourceRequest } : (c.requirements ?? null),
  };
  const assumed = ((c.assumed ?? []) as Array<{ replicas: number; resourceRequest?: Record<string, string> }>).map((a) => ({
    cluster: info.name,
    replicas: a.replicas,
    replicaRequirements: a.resourceRequest ? { resourceRequest: a.resourceRequest } : null,
  }));
  const [n] = calAvailableReplicas([info], spec, { ...(c.options ?? {}), assumedWorkloads: assumed });
  expect(n).toBe(c.expect.replicas);
}

interface Row {
  cluster: string;
  spec: number;
  ready?: number | null;
  unschedulable?: number;
  pendingSince?: string[];
}

function runDeschedule(c: Case): void {
  const rows = c.rows as Row[];
  const placement: Placement = c.placement ?? {
    replicaScheduling: {
      replicaSchedulingType: 'Divided',
      replicaDivisionPreference: 'Weighted',
      weightPreference: { dynamicWeight: 'AvailableReplicas' },
    },
  };
  const b: Binding = binding({
    ...(c.binding ?? {}),
    placement,
    clusters: rows.map((r) => `${r.cluster}:${r.spec}`),
    appliedPlacement: c.appliedPlacement ?? 'current',
  });
  b.status = {
    aggregatedStatus: rows.map((r) => ({
      clusterName: r.cluster,
      ...(r.ready === null || r.ready === undefined ? {} : { status: { readyReplicas: r.ready } }),
    })),
  };
  const estimates: UnschedulableEstimate[] = rows
    .filter((r) => r.unschedulable !== undefined || r.pendingSince !== undefined)
    .map((r) => ({
      namespace: b.metadata.namespace!,
      name: b.metadata.name!,
      cluster: r.cluster,
      ...(r.pendingSince ? { pendingSince: r.pendingSince } : { unschedulableReplicas: r.unschedulable }),
    }));
  const clusters = rows.map((r) => cluster(r.cluster));
  const res = deschedule([b], clusters, estimates, new Date(c.now ?? DEFAULT_NOW), c.options ?? {});
  const e = c.expect;
  if ('ran' in e) expect(res.ran).toBe(e.ran);
  if ('clusters' in e) {
    if (e.clusters === null) expect(res.bindings).toEqual([]);
    else expect(replicasList(res.bindings[0]?.clusters)).toEqual(expected(e.clusters));
  }
  if ('message' in e) expect(res.bindings[0]?.event.message).toBe(e.message);
  if ('nextRunAt' in e) expect(res.nextRunAt).toBe(e.nextRunAt);
}

const runners: Record<string, (c: Case) => void> = {
  schedule: runSchedule,
  webster: runWebster,
  selectGroups: runSelectGroups,
  selectClusters: runSelectClusters,
  groupScore: runGroupScore,
  divide: runDivide,
  available: runAvailable,
  deschedule: runDeschedule,
};

const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
let total = 0;
for (const file of files) {
  const doc = parse(readFileSync(join(DIR, file), 'utf8')) as { cases: Case[] };
  describe(file, () => {
    for (const c of doc.cases) {
      total++;
      it(c.name, () => {
        const run = runners[c.kind ?? 'schedule'];
        if (!run) throw new Error(`unknown case kind ${c.kind}`);
        run(structuredClone(c));
      });
    }
  });
}

describe('conformance/scheduler', () => {
  it('has at least 80 cases with unique names', () => {
    const names = files.flatMap((f) => (parse(readFileSync(join(DIR, f), 'utf8')) as { cases: Case[] }).cases.map((c) => c.name));
    expect(total).toBeGreaterThanOrEqual(80);
    expect(new Set(names).size).toBe(names.length);
  });
  it('keeps the annotation key Karmada uses', () => {
    expect(APPLIED_PLACEMENT_ANNOTATION).toBe('policy.karmada.io/applied-placement');
  });
});
