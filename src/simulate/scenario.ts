/**
 * Scenarios: a story of objects, member states and clock advances run on the embedded control plane
 * (the same core the controller runs), with expectations checked after every step. The conformance
 * scenarios (conformance/scenarios/) and `karmada-lite simulate` share this one runner; the format is
 * described in conformance/scenarios/README.md.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { ClusterConditionReady, ClusterReadyMessage, ClusterReadyReason } from '../api/constants.js';
import { CLUSTER, WORK } from '../core/kinds.js';
import { describeRef, rfc3339, type KObject, type ObjectRef } from '../core/object.js';
import type { CoreOptions } from '../core/ports.js';
import { compileSkippedNamespaces } from '../core/namespace.js';
import { InputError } from '../io/documents.js';
import { ControlPlane } from '../store/control-plane.js';

export interface ScenarioOptions {
  preemption?: boolean;
  statefulFailoverInjection?: boolean;
  simulateMembers?: boolean;
  start?: string;
  gracefulEvictionTimeoutSeconds?: number;
  clusterFailureThresholdSeconds?: number;
  /** Feature gate Failover (default on in karmada-lite). */
  failover?: boolean;
  /** `--enable-no-execute-taint-eviction` (default: not given, the v1.2-style eviction). */
  enableNoExecuteTaintEviction?: boolean;
  noExecuteTaintEvictionPurgeMode?: string;
  /** `--skipped-propagating-namespaces` entries, each anchored (default [kube-.*]). */
  skippedPropagatingNamespaces?: string[];
  /** Feature gate WorkloadAffinity (default off, like Karmada). */
  workloadAffinity?: boolean;
}

export type ScenarioCluster =
  | string
  | { name: string; region?: string; zone?: string; provider?: string; labels?: Record<string, string>; ready?: boolean; resourceSummary?: Record<string, unknown> };

export interface Scenario {
  name: string;
  description?: string;
  options?: ScenarioOptions;
  clusters?: ScenarioCluster[];
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
  /** `kubectl annotate`: annotations set on an existing object (null removes one), nothing else touched. */
  annotate?: AnnotateStep | AnnotateStep[];
  clusterReady?: { name: string; ready: boolean } | Array<{ name: string; ready: boolean }>;
  /** Fields merged into a Cluster's status, as its status controller would write them (e.g. a fuller resourceSummary). */
  clusterStatus?: ClusterStatusStep | ClusterStatusStep[];
  advance?: number | string;
  expect?: Expectations;
}

type MemberRef = ObjectRef & { cluster: string };
type ClusterStatusStep = { name: string; status: Record<string, unknown> };
type AnnotateStep = ObjectRef & { cluster?: string; annotations: Record<string, string | null> };
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

const SCENARIO_KEYS = ['name', 'description', 'options', 'clusters', 'objects', 'members', 'expect', 'steps'];
const OPTION_KEYS = ['preemption', 'statefulFailoverInjection', 'simulateMembers', 'start', 'gracefulEvictionTimeoutSeconds', 'clusterFailureThresholdSeconds', 'failover', 'enableNoExecuteTaintEviction', 'noExecuteTaintEvictionPurgeMode', 'skippedPropagatingNamespaces', 'workloadAffinity'];
const STEP_KEYS = ['name', 'apply', 'delete', 'memberApply', 'memberDelete', 'memberStatus', 'annotate', 'clusterReady', 'clusterStatus', 'advance', 'expect'];
const EXPECT_KEYS = ['objects', 'bindings', 'works', 'members', 'absent', 'events', 'noEvents', 'workCount'];

/** An expectation that did not hold, or a step that could not run: the scenario fails (exit 1). */
export class ScenarioFailure extends Error {
  constructor(
    readonly scenario: string,
    /** The step's name, `step N`, or `setup`. */
    readonly step: string,
    /** What differs, one line per fact (the first mismatch, then what was found). */
    readonly detail: string[],
  ) {
    super(`${scenario} / ${step}: ${detail.join(' ')}`);
    this.name = 'ScenarioFailure';
  }
}

/** Reads a scenario file; unreadable or malformed input is an InputError (exit 2), naming the file and field. */
export function loadScenario(file: string): Scenario {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`${file}: cannot read: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parse(text, { uniqueKeys: true });
  } catch (e) {
    throw new InputError(`${file}: invalid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const problems = scenarioProblems(doc);
  if (problems.length) throw new InputError(problems.map((p) => `${file}: ${p}`).join('\n'));
  return doc as Scenario;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function unknownKeys(v: Record<string, unknown>, known: string[], where: string): string[] {
  return Object.keys(v)
    .filter((k) => !known.includes(k))
    .map((k) => `${where}${k}: unknown field (known: ${known.join(', ')})`);
}

/** The format's shape: a typo in a key would otherwise silently skip a check. */
export function scenarioProblems(doc: unknown): string[] {
  if (!isMap(doc)) return ['a scenario is a mapping with name, objects and steps (see `karmada-lite simulate --help`)'];
  const out = unknownKeys(doc, SCENARIO_KEYS, '');
  if (typeof doc.name !== 'string' || !doc.name) out.push('name: required, one sentence saying what the scenario shows');
  if (doc.options !== undefined) {
    if (!isMap(doc.options)) out.push('options: must be a mapping');
    else {
      out.push(...unknownKeys(doc.options, OPTION_KEYS, 'options.'));
      if (doc.options.start !== undefined && Number.isNaN(new Date(String(doc.options.start)).getTime())) out.push(`options.start: ${JSON.stringify(doc.options.start)} is not an RFC 3339 time`);
    }
  }
  for (const k of ['clusters', 'objects', 'members', 'steps'] as const) if (doc[k] !== undefined && !Array.isArray(doc[k])) out.push(`${k}: must be a list`);
  const checkExpect = (e: unknown, where: string) => {
    if (e === undefined) return;
    if (!isMap(e)) out.push(`${where}: must be a mapping`);
    else out.push(...unknownKeys(e, EXPECT_KEYS, `${where}.`));
  };
  checkExpect(doc.expect, 'expect');
  if (Array.isArray(doc.steps)) {
    doc.steps.forEach((s: unknown, i: number) => {
      const where = `steps[${i}]`;
      if (!isMap(s)) return out.push(`${where}: must be a mapping`);
      out.push(...unknownKeys(s, STEP_KEYS, `${where}.`));
      if (s.advance !== undefined) {
        try {
          seconds(s.advance as number | string);
        } catch (e) {
          out.push(`${where}.${(e as Error).message}`);
        }
      }
      checkExpect(s.expect, `${where}.expect`);
    });
  }
  return out;
}

function list<T>(v: T | T[] | undefined): T[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function seconds(v: number | string): number {
  if (typeof v === 'number' && v >= 0) return v;
  const m = typeof v === 'string' ? /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim()) : null;
  if (!m) throw new Error(`advance: ${JSON.stringify(v)} is not a duration like 30, 30s, 5m or 1h`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n / 1000 : m[2] === 'm' ? n * 60 : m[2] === 'h' ? n * 3600 : n;
}

/** The first difference between what was expected and what is there. */
export interface Mismatch {
  path: string;
  expected: string;
  got: string;
}

const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));

/**
 * Partial match: every field of `want` must equal the one in `got`; null means absent; arrays match
 * element-wise with equal length.
 */
export function findMismatch(got: unknown, want: unknown, path = ''): Mismatch | undefined {
  if (want === null) return got === undefined || got === null ? undefined : { path, expected: 'absent', got: show(got) };
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return { path, expected: `a list of ${want.length}`, got: show(got) };
    if (got.length !== want.length) return { path, expected: `${want.length} item(s)`, got: `${got.length}: ${show(got)}` };
    for (let i = 0; i < want.length; i++) {
      const m = findMismatch(got[i], want[i], `${path}[${i}]`);
      if (m) return m;
    }
    return undefined;
  }
  if (typeof want === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return { path, expected: 'an object', got: show(got) };
    for (const [k, v] of Object.entries(want as Record<string, unknown>)) {
      const m = findMismatch((got as Record<string, unknown>)[k], v, path ? `${path}.${k}` : k);
      if (m) return m;
    }
    return undefined;
  }
  return got === want ? undefined : { path, expected: show(want), got: show(got) };
}

/** The one-line form of findMismatch, for messages. */
export function partialMismatch(got: unknown, want: unknown, path = ''): string | undefined {
  const m = findMismatch(got, want, path);
  return m && `${m.path}: expected ${m.expected}, got ${m.got}`;
}

function clusterObject(c: ScenarioCluster, start: Date): KObject {
  const o = typeof c === 'string' ? { name: c } : c;
  const spec: Record<string, unknown> = { syncMode: 'Push' };
  if (o.region) spec.region = o.region;
  if (o.zone) spec.zone = o.zone;
  if (o.provider) spec.provider = o.provider;
  const obj: KObject = { apiVersion: CLUSTER.apiVersion, kind: CLUSTER.kind, metadata: { name: o.name }, spec };
  if (o.labels) obj.metadata.labels = o.labels;
  if (o.resourceSummary) obj.status = { resourceSummary: o.resourceSummary };
  if (o.ready === false) {
    obj.status = {
      ...(obj.status ?? {}), conditions: [{ type: ClusterConditionReady, status: 'False', reason: 'ClusterNotReachable', message: 'cluster is not reachable', lastTransitionTime: rfc3339(start) }] };
  }
  return obj;
}

export class ScenarioRun {
  readonly cp: ControlPlane;
  /** `core`: the decision flags of `simulate` (its defaults); the scenario's own options win over them. */
  constructor(
    readonly scenario: Scenario,
    core: Partial<CoreOptions> = {},
  ) {
    const o = scenario.options ?? {};
    const mine: Partial<CoreOptions> = {};
    if (o.preemption !== undefined) mine.policyPreemption = o.preemption;
    if (o.statefulFailoverInjection !== undefined) mine.statefulFailoverInjection = o.statefulFailoverInjection;
    if (o.gracefulEvictionTimeoutSeconds !== undefined) mine.gracefulEvictionTimeoutSeconds = o.gracefulEvictionTimeoutSeconds;
    if (o.clusterFailureThresholdSeconds !== undefined) mine.clusterFailureThresholdSeconds = o.clusterFailureThresholdSeconds;
    if (o.failover !== undefined) mine.failover = o.failover;
    if (o.enableNoExecuteTaintEviction !== undefined) mine.enableNoExecuteTaintEviction = o.enableNoExecuteTaintEviction;
    if (o.noExecuteTaintEvictionPurgeMode !== undefined) mine.noExecuteTaintEvictionPurgeMode = o.noExecuteTaintEvictionPurgeMode;
    if (o.workloadAffinity !== undefined) mine.workloadAffinity = o.workloadAffinity;
    if (o.skippedPropagatingNamespaces !== undefined) mine.skippedPropagatingNamespaces = compileSkippedNamespaces(o.skippedPropagatingNamespaces);
    this.cp = new ControlPlane({
      start: o.start ? new Date(o.start) : undefined,
      simulateMembers: o.simulateMembers,
      core: { policyPreemption: false, ...core, ...mine },
    });
  }

  /** Runs the setup and every step; throws a ScenarioFailure naming the step and the first mismatch. */
  run(): void {
    const s = this.scenario;
    const clusters = s.clusters ?? ['member1', 'member2', 'member3'];
    this.guard('setup', () => {
      for (const c of clusters) this.cp.apply(clusterObject(c, this.cp.now));
      for (const m of s.members ?? []) this.cp.apply(m.object, m.cluster);
      for (const o of s.objects ?? []) this.cp.apply(o);
    });
    this.cp.settle();
    if (s.expect) this.check(s.expect, 'setup');
    (s.steps ?? []).forEach((step, i) => this.step(step, step.name ? `step ${i + 1} "${step.name}"` : `step ${i + 1}`));
  }

  private guard(label: string, f: () => void): void {
    try {
      f();
    } catch (e) {
      if (e instanceof ScenarioFailure) throw e;
      this.fail(label, [`could not run: ${(e as Error).message}`]);
    }
  }

  private step(step: Step, label: string): void {
    this.cp.store.clearEvents();
    this.guard(label, () => {
      for (const o of list(step.apply)) this.cp.apply(o);
      for (const r of list(step.delete)) this.cp.delete(r);
      for (const m of list(step.memberApply)) this.cp.apply(m.object, m.cluster);
      for (const r of list(step.memberDelete)) this.cp.delete(r, r.cluster);
      for (const m of list(step.memberStatus)) {
        this.cp.setMemberState(m.cluster, m, m.status ? { status: m.status } : { health: m.health ?? 'Healthy' });
      }
      for (const a of list(step.annotate)) this.annotate(a);
      for (const c of list(step.clusterReady)) this.setReady(c.name, c.ready);
      for (const c of list(step.clusterStatus)) this.mergeClusterStatus(c.name, c.status);
    });
    if (step.advance !== undefined) this.cp.advance(seconds(step.advance));
    else this.cp.settle();
    if (step.expect) this.check(step.expect, label);
  }

  private annotate(a: AnnotateStep): void {
    const cur = this.cp.get(a, a.cluster);
    if (!cur) throw new Error(`annotate: ${describeRef(a)}${a.cluster ? ` in ${a.cluster}` : ''} not found`);
    const annotations = { ...(cur.metadata.annotations ?? {}) };
    for (const [k, v] of Object.entries(a.annotations ?? {})) {
      if (v === null) delete annotations[k];
      else annotations[k] = String(v);
    }
    this.cp.store.update({ ...cur, metadata: { ...cur.metadata, annotations } }, a.cluster);
  }

  private mergeClusterStatus(name: string, status: Record<string, unknown>): void {
    const cur = this.cluster(name, 'clusterStatus');
    this.cp.store.updateStatus({ ...cur, status: { ...(cur.status ?? {}), ...status } });
  }

  /** What the cluster status controller would write after a probe: the Ready condition, moved now. */
  private setReady(name: string, ready: boolean): void {
    const cur = this.cluster(name, 'clusterReady');
    const conds = ((cur.status?.conditions ?? []) as Array<Record<string, unknown>>).filter((x) => x.type !== ClusterConditionReady);
    conds.push({
      type: ClusterConditionReady,
      status: ready ? 'True' : 'False',
      reason: ready ? ClusterReadyReason : 'ClusterNotReachable',
      message: ready ? ClusterReadyMessage : 'cluster is not reachable',
      lastTransitionTime: rfc3339(this.cp.now),
    });
    this.cp.store.updateStatus({ ...cur, status: { ...(cur.status ?? {}), conditions: conds } });
  }

  /** The scenario's Cluster of that name; a step naming another one cannot run. */
  private cluster(name: string, field: string): KObject {
    const cur = this.cp.get({ apiVersion: CLUSTER.apiVersion, kind: CLUSTER.kind, name });
    if (!cur) throw new Error(`${field}: no cluster ${name} (the scenario's clusters are ${this.cp.store.list(CLUSTER).map((c) => c.metadata.name).join(', ')})`);
    return cur;
  }

  private fail(label: string, detail: string[]): never {
    throw new ScenarioFailure(this.scenario.name, label, detail);
  }

  private findObject(want: KObject, cluster?: string): KObject | undefined {
    const name = want.metadata?.name;
    if (!want.apiVersion || !want.kind || !name) throw new InputError(`an expected object needs apiVersion, kind and metadata.name: ${JSON.stringify(want)}`);
    return this.cp.store.get(want, want.metadata.namespace, name, cluster);
  }

  check(e: Expectations, label: string): void {
    const expectObjects = (wants: KObject[] | undefined, cluster: string | undefined, defaults: Partial<KObject>) => {
      for (const w0 of wants ?? []) {
        const w = { ...defaults, ...w0 } as KObject;
        const got = this.findObject(w, cluster);
        const where = `${w.kind} ${w.metadata.namespace ? `${w.metadata.namespace}/` : ''}${w.metadata.name}${cluster ? ` in ${cluster}` : ''}`;
        if (!got) this.fail(label, [`${where} does not exist`]);
        const m = findMismatch(got, w);
        if (m) this.fail(label, [`${where}: ${m.path}`, `  expected: ${m.expected}`, `  got:      ${m.got}`]);
      }
    };
    expectObjects(e.objects, undefined, {});
    expectObjects(e.bindings, undefined, { apiVersion: BINDING_VERSION, kind: 'ResourceBinding' });
    expectObjects(e.works, undefined, { apiVersion: WORK.apiVersion, kind: WORK.kind });
    for (const [cluster, wants] of Object.entries(e.members ?? {})) expectObjects(wants, cluster, {});
    for (const a of e.absent ?? []) {
      const got = this.cp.store.get(a, a.namespace, a.name, a.cluster);
      if (got) this.fail(label, [`${a.kind} ${a.namespace ? `${a.namespace}/` : ''}${a.name}${a.cluster ? ` in ${a.cluster}` : ''} should not exist, but does: ${JSON.stringify(got).slice(0, 400)}`]);
    }
    const events = this.cp.events();
    const recorded = () => events.map((x) => `  ${x.involvedObject.kind}/${x.involvedObject.name} ${x.reason}: ${x.message}`);
    for (const want of e.events ?? []) {
      if (!events.some((ev) => findMismatch(ev, want) === undefined)) this.fail(label, [`no event matches ${JSON.stringify(want)}; recorded during this step:`, ...recorded()]);
    }
    for (const want of e.noEvents ?? []) {
      const hit = events.find((ev) => findMismatch(ev, want) === undefined);
      if (hit) this.fail(label, [`unexpected event ${hit.reason}: ${hit.message}`]);
    }
    for (const [tpl, n] of Object.entries(e.workCount ?? {})) {
      const [kind, ns, name] = tpl.split('/');
      const works = this.cp.store.list(WORK).filter((w) => {
        const m = (w.spec?.workload?.manifests ?? [])[0] as KObject | undefined;
        return m?.kind === kind && m.metadata?.namespace === (name ? ns : undefined) && m.metadata?.name === (name ?? ns);
      });
      if (works.length !== n) this.fail(label, [`expected ${n} Work(s) for ${tpl}, found ${works.length}: ${works.map((w) => w.metadata.namespace).join(', ')}`]);
    }
  }
}

/** The outcome of one scenario file. */
export interface SimulationResult {
  file: string;
  name: string;
  steps: number;
  failure?: ScenarioFailure;
}

/** Runs one loaded scenario; a failed expectation is returned, anything else thrown. */
export function simulate(file: string, s: Scenario, core: Partial<CoreOptions> = {}): SimulationResult {
  const result: SimulationResult = { file, name: s.name, steps: s.steps?.length ?? 0 };
  try {
    new ScenarioRun(s, core).run();
  } catch (e) {
    if (!(e instanceof ScenarioFailure)) throw e;
    result.failure = e;
  }
  return result;
}

/** `ok`/`FAIL` per file, the failed step and what differs, then a count. */
export function formatSimulation(results: SimulationResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    if (!r.failure) {
      lines.push(`ok    ${r.file}: ${r.name} (${r.steps} step(s))`);
      continue;
    }
    lines.push(`FAIL  ${r.file}: ${r.name}`, `      at ${r.failure.step}:`, ...r.failure.detail.map((d) => `        ${d}`));
  }
  const failed = results.filter((r) => r.failure).length;
  lines.push(failed ? `${failed} of ${results.length} scenario(s) failed` : `${results.length} scenario(s) passed`);
  return lines.join('\n') + '\n';
}

