/**
 * Runs the YAML scenarios of conformance/scenarios/ on the embedded control plane. The format is
 * described in conformance/scenarios/README.md.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { ControlPlane } from '../../src/store/control-plane.js';
import type { KObject, ObjectRef } from '../../src/core/object.js';

export interface Scenario {
  name: string;
  description?: string;
  options?: { preemption?: boolean; statefulFailoverInjection?: boolean; simulateMembers?: boolean; start?: string; gracefulEvictionTimeoutSeconds?: number };
  clusters?: Array<string | { name: string; region?: string; zone?: string; provider?: string; labels?: Record<string, string>; ready?: boolean }>;
  objects?: KObject[];
  members?: Array<{ cluster: string; object: KObject }>;
  expect?: Expectations;
  steps?: Step[];
}

export interface Step {
  name?: string;
  apply?: KObject | KObject[];
  delete?: ObjectRef | ObjectRef[];
  memberApply?: { cluster: string; object: KObject } | Array<{ cluster: string; object: KObject }>;
  memberDelete?: MemberRef | MemberRef[];
  memberStatus?: MemberState | MemberState[];
  clusterReady?: { name: string; ready: boolean } | Array<{ name: string; ready: boolean }>;
  advance?: number | string;
  expect?: Expectations;
}

type MemberRef = ObjectRef & { cluster: string };
type MemberState = MemberRef & { status?: Record<string, unknown>; health?: 'Healthy' | 'Unhealthy' };

export interface Expectations {
  /** Control-plane objects, matched by apiVersion/kind/namespace/name then compared partially. */
  objects?: KObject[];
  bindings?: KObject[];
  works?: KObject[];
  /** Member objects per cluster. */
  members?: Record<string, KObject[]>;
  /** Objects that must not exist: control plane, or a member when `cluster` is set. */
  absent?: Array<ObjectRef & { cluster?: string }>;
  /** Events recorded during this step (partial match on reason, message, type, involvedObject). */
  events?: Array<Record<string, unknown>>;
  /** Event reasons that must not have been recorded during this step. */
  noEvents?: Array<Record<string, unknown>>;
  /** Number of Works in the control plane for a template, e.g. {Deployment/default/nginx: 2}. */
  workCount?: Record<string, number>;
}

const BINDING_VERSION = 'work.karmada.io/v1alpha2';

export function loadScenario(file: string): Scenario {
  return parse(readFileSync(file, 'utf8')) as Scenario;
}

function list<T>(v: T | T[] | undefined): T[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function seconds(v: number | string): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  if (!m) throw new Error(`advance: ${v} is not a duration like 30s, 5m, 1h`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n / 1000 : m[2] === 'm' ? n * 60 : m[2] === 'h' ? n * 3600 : n;
}

/** Partial match: every field of `want` must equal the one in `got`; null means absent; arrays match element-wise with equal length. */
export function partialMismatch(got: unknown, want: unknown, path = ''): string | undefined {
  if (want === null) return got === undefined || got === null ? undefined : `${path}: expected absent, got ${JSON.stringify(got)}`;
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return `${path}: expected a list, got ${JSON.stringify(got)}`;
    if (got.length !== want.length) return `${path}: expected ${want.length} items, got ${got.length}: ${JSON.stringify(got)}`;
    for (let i = 0; i < want.length; i++) {
      const m = partialMismatch(got[i], want[i], `${path}[${i}]`);
      if (m) return m;
    }
    return undefined;
  }
  if (want !== null && typeof want === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return `${path}: expected an object, got ${JSON.stringify(got)}`;
    for (const [k, v] of Object.entries(want as Record<string, unknown>)) {
      const m = partialMismatch((got as Record<string, unknown>)[k], v, path ? `${path}.${k}` : k);
      if (m) return m;
    }
    return undefined;
  }
  return got === want ? undefined : `${path}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`;
}

function clusterObject(c: NonNullable<Scenario['clusters']>[number]): KObject {
  const o = typeof c === 'string' ? { name: c } : c;
  const spec: Record<string, unknown> = { syncMode: 'Push' };
  if (o.region) spec.region = o.region;
  if (o.zone) spec.zone = o.zone;
  if (o.provider) spec.provider = o.provider;
  const obj: KObject = { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: o.name }, spec };
  if (o.labels) obj.metadata.labels = o.labels;
  if (o.ready === false) {
    obj.status = { conditions: [{ type: 'Ready', status: 'False', reason: 'ClusterNotReachable', message: 'cluster is not reachable', lastTransitionTime: '2024-01-01T00:00:00Z' }] };
  }
  return obj;
}

export class ScenarioRun {
  readonly cp: ControlPlane;
  constructor(readonly scenario: Scenario) {
    const o = scenario.options ?? {};
    this.cp = new ControlPlane({
      start: o.start ? new Date(o.start) : undefined,
      simulateMembers: o.simulateMembers,
      core: { policyPreemption: o.preemption ?? false, statefulFailoverInjection: o.statefulFailoverInjection, gracefulEvictionTimeoutSeconds: o.gracefulEvictionTimeoutSeconds },
    });
  }

  /** Runs the setup and every step; throws with the step name and the first mismatch. */
  run(): void {
    const s = this.scenario;
    const clusters = s.clusters ?? ['member1', 'member2', 'member3'];
    for (const c of clusters) this.cp.apply(clusterObject(c));
    for (const m of s.members ?? []) this.cp.apply(m.object, m.cluster);
    for (const o of s.objects ?? []) this.cp.apply(o);
    this.cp.settle();
    if (s.expect) this.check(s.expect, 'setup');
    (s.steps ?? []).forEach((step, i) => this.step(step, step.name ?? `step ${i + 1}`));
  }

  private step(step: Step, label: string): void {
    this.cp.store.clearEvents();
    try {
      for (const o of list(step.apply)) this.cp.apply(o);
      for (const r of list(step.delete)) this.cp.delete(r);
      for (const m of list(step.memberApply)) this.cp.apply(m.object, m.cluster);
      for (const r of list(step.memberDelete)) this.cp.delete(r, r.cluster);
      for (const m of list(step.memberStatus)) {
        this.cp.setMemberState(m.cluster, m, m.status ? { status: m.status } : { health: m.health ?? 'Healthy' });
      }
      for (const c of list(step.clusterReady)) {
        const cur = this.cp.get({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', name: c.name });
        if (!cur) throw new Error(`clusterReady: no cluster ${c.name}`);
        const conds = ((cur.status?.conditions ?? []) as Array<Record<string, unknown>>).filter((x) => x.type !== 'Ready');
        conds.push({ type: 'Ready', status: c.ready ? 'True' : 'False', reason: c.ready ? 'ClusterReady' : 'ClusterNotReachable', message: '', lastTransitionTime: this.cp.now.toISOString() });
        this.cp.store.updateStatus({ ...cur, status: { ...(cur.status ?? {}), conditions: conds } });
      }
    } catch (e) {
      throw new Error(`${this.scenario.name} / ${label}: ${(e as Error).message}`);
    }
    if (step.advance !== undefined) this.cp.advance(seconds(step.advance));
    else this.cp.settle();
    if (step.expect) this.check(step.expect, label);
  }

  private fail(label: string, msg: string): never {
    throw new Error(`${this.scenario.name} / ${label}: ${msg}`);
  }

  private findObject(want: KObject, cluster?: string): KObject | undefined {
    const name = want.metadata?.name;
    if (!want.apiVersion || !want.kind || !name) throw new Error(`an expected object needs apiVersion, kind and metadata.name: ${JSON.stringify(want)}`);
    return this.cp.store.get(want, want.metadata.namespace, name, cluster);
  }

  check(e: Expectations, label: string): void {
    const expectObjects = (wants: KObject[] | undefined, cluster: string | undefined, defaults: Partial<KObject>) => {
      for (const w0 of wants ?? []) {
        const w = { ...defaults, ...w0 } as KObject;
        const got = this.findObject(w, cluster);
        const where = `${w.kind} ${w.metadata.namespace ? `${w.metadata.namespace}/` : ''}${w.metadata.name}${cluster ? ` in ${cluster}` : ''}`;
        if (!got) this.fail(label, `${where} does not exist`);
        const m = partialMismatch(got, w);
        if (m) this.fail(label, `${where}: ${m}`);
      }
    };
    expectObjects(e.objects, undefined, {});
    expectObjects(e.bindings, undefined, { apiVersion: BINDING_VERSION, kind: 'ResourceBinding' });
    expectObjects(e.works, undefined, { apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work' });
    for (const [cluster, wants] of Object.entries(e.members ?? {})) expectObjects(wants, cluster, {});
    for (const a of e.absent ?? []) {
      const got = this.cp.store.get(a, a.namespace, a.name, a.cluster);
      if (got) this.fail(label, `${a.kind} ${a.namespace ? `${a.namespace}/` : ''}${a.name}${a.cluster ? ` in ${a.cluster}` : ''} should not exist, but does: ${JSON.stringify(got).slice(0, 400)}`);
    }
    const events = this.cp.events();
    for (const want of e.events ?? []) {
      if (!events.some((ev) => partialMismatch(ev, want) === undefined)) {
        this.fail(label, `no event matches ${JSON.stringify(want)}; recorded: ${events.map((x) => `${x.involvedObject.kind}/${x.involvedObject.name} ${x.reason}: ${x.message}`).join(' | ')}`);
      }
    }
    for (const want of e.noEvents ?? []) {
      const hit = events.find((ev) => partialMismatch(ev, want) === undefined);
      if (hit) this.fail(label, `unexpected event ${hit.reason}: ${hit.message}`);
    }
    for (const [tpl, n] of Object.entries(e.workCount ?? {})) {
      const [kind, ns, name] = tpl.split('/');
      const works = this.cp.store.list({ apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work' }).filter((w) => {
        const m = (w.spec?.workload?.manifests ?? [])[0] as KObject | undefined;
        return m?.kind === kind && m.metadata?.namespace === (name ? ns : undefined) && m.metadata?.name === (name ?? ns);
      });
      if (works.length !== n) this.fail(label, `expected ${n} Work(s) for ${tpl}, found ${works.length}: ${works.map((w) => w.metadata.namespace).join(', ')}`);
    }
  }
}
