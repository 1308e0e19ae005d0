// Differential: for a set of fleets and steps, what the embedded control plane (plan, simulate) ends with
// equals what the real controller ends with on the real apiservers: bindings, Works and member objects,
// compared after normalising what depends on the store (ids, versions, times, write counts). The live
// side is given time to converge (waited on, never timed); the embedded side advances its virtual clock.
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { CLUSTER, RB, WORK } from '../../src/core/kinds.js';
import type { KObject } from '../../src/core/object.js';
import { ApiError } from '../../src/kube/rest.js';
import { findMismatch } from '../../src/simulate/scenario.js';
import { ControlPlane } from '../../src/store/control-plane.js';
import { waitFor } from './env.js';
import { diagnose, get, prepareHost, rest, startController, stopController, type Proc } from './harness.js';
import { FaultLabel, gatedPodSpec, itWithFleet, openGates, podsOf } from './fleet.js';

const NS = `diff-e2e-${Date.now().toString(36)}`;
const MEMBERS = ['member1', 'member2'] as const;
type Member = (typeof MEMBERS)[number];
const host = rest('host');

interface Step {
  name: string;
  /** Member workloads reported unhealthy from now on (the rest roll out healthy, as the simulated members do). */
  unhealthy?: Member[];
  /** A new template spec (replaces the old one). */
  templateSpec?: Record<string, unknown>;
  /** A new spec for the case's first policy. */
  policySpec?: Record<string, unknown>;
  /** Member copies deleted by hand. */
  deleteFrom?: Member[];
  /** Virtual seconds the embedded side lets pass; the live side waits until it shows the same. */
  advance: number;
  /** Text the snapshot must contain, so that a step cannot pass by both sides doing nothing. */
  shows?: string;
}

interface Case {
  name: string;
  /** Policies and overrides (created first). */
  policies: KObject[];
  template: KObject;
  steps: Step[];
}

const deployment = (name: string, replicas: number, image = 'nginx:1.25', podSpec: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: NS, labels: { app: name } },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }], ...podSpec } } },
});

const pp = (name: string, spec: Record<string, unknown>): KObject => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name, namespace: NS },
  spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name }], ...spec },
});

const seqPlacement = { clusterAffinity: { clusterNames: [...MEMBERS] } };

const CASES: Case[] = [
  {
    name: 'a sequence: suspended, the member1 copy deleted (not recreated), the template changed, suspension lifted',
    policies: [pp('seq', { placement: seqPlacement })],
    template: deployment('seq', 1),
    steps: [
      { name: 'propagated', advance: 0 },
      { name: 'dispatching suspended', policySpec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'seq' }], placement: seqPlacement, suspension: { dispatching: true } }, advance: 0, shows: '"suspendDispatching":true' },
      { name: 'the member1 copy deleted by hand', deleteFrom: ['member1'], advance: 0 },
      { name: 'the template changed', templateSpec: deployment('seq', 1, 'nginx:1.27').spec, advance: 0, shows: '"image":"nginx:1.27"' },
      { name: 'suspension lifted', policySpec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'seq' }], placement: seqPlacement }, advance: 0, shows: '"member member1/seq"' },
    ],
  },
  {
    name: 'duplicated to both members with an image override on member2, then scaled',
    policies: [
      pp('dup', { placement: { clusterAffinity: { clusterNames: [...MEMBERS] } } }),
      {
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'OverridePolicy',
        metadata: { name: 'dup', namespace: NS },
        spec: {
          resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'dup' }],
          overrideRules: [{ targetCluster: { clusterNames: ['member2'] }, overriders: { imageOverrider: [{ component: 'Tag', operator: 'replace', value: '1.26' }] } }],
        },
      },
    ],
    template: deployment('dup', 2),
    steps: [
      { name: 'propagated', advance: 0 },
      { name: 'scaled to 3', templateSpec: deployment('dup', 3).spec, advance: 0, shows: '"image":"nginx:1.26"' },
    ],
  },
  {
    name: 'divided by static weights 1:3',
    policies: [
      pp('div', {
        placement: {
          clusterAffinity: { clusterNames: [...MEMBERS] },
          replicaScheduling: {
            replicaSchedulingType: 'Divided',
            replicaDivisionPreference: 'Weighted',
            weightPreference: {
              staticWeightList: [
                { targetCluster: { clusterNames: ['member1'] }, weight: 1 },
                { targetCluster: { clusterNames: ['member2'] }, weight: 3 },
              ],
            },
          },
        },
      }),
    ],
    template: deployment('div', 4),
    steps: [{ name: 'propagated', advance: 0 }],
  },
  {
    name: 'application failover with every cluster unhealthy: moved once, then FailoverExhausted on the last placement',
    policies: [
      pp('fo', {
        propagateDeps: true,
        placement: { clusterAffinity: { clusterNames: [...MEMBERS] }, spreadConstraints: [{ spreadByField: 'cluster', maxGroups: 1, minGroups: 1 }] },
        failover: { application: { decisionConditions: { tolerationSeconds: 3 }, purgeMode: 'Directly' } },
      }),
    ],
    // Gated: a copy is healthy only once the test opens its Pods' readiness gate, so the copy the failover sends
    // to an unhealthy member is never healthy there, not even before its Pods are labelled unready.
    template: deployment('fo', 2, 'nginx:bad-tag', gatedPodSpec),
    steps: [
      { name: 'healthy on member1', advance: 0 },
      { name: 'unhealthy everywhere', unhealthy: ['member1', 'member2'], advance: 10, shows: '{"type":"FailoverExhausted","status":"True","reason":"NoClusterLeft"}' },
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// Normalising

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** Keys whose values depend on the store or on how many writes it took, not on the decisions. */
const DROP = new Set(['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'observedGeneration', 'schedulerObservedGeneration', 'managedFields', 'lastTransitionTime', 'lastScheduledTime', 'timeAdded', 'message']);
// deployment.kubernetes.io/revision: a member's own deployment controller numbers its rollouts on the copy
// (the kwok fleet runs one); the embedded control plane's simulated members do not.
const DROP_ANNOTATIONS = new Set(['resourcetemplate.karmada.io/uid', 'resourcetemplate.karmada.io/generation', 'failover.karmada-lite.io/clocks', 'failover.karmada-lite.io/exhausted-for', 'deployment.kubernetes.io/revision']);

function walk(v: unknown, key?: string): unknown {
  if (Array.isArray(v)) return v.map((x) => walk(x));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (DROP.has(k) || DROP_ANNOTATIONS.has(k)) continue;
      out[k] = /permanent-id$/.test(k) ? '<id>' : walk(x, k);
    }
    return out;
  }
  return typeof v === 'string' && TIME.test(v) && key !== 'name' ? '<time>' : v;
}

const byName = <T extends { name: string }>(xs: T[]): T[] => [...xs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

function normalise(o: KObject, withStatus: boolean): Record<string, unknown> {
  const m = o.metadata;
  const out: Record<string, unknown> = {
    metadata: walk({ name: m.name, namespace: m.namespace, labels: m.labels, annotations: m.annotations, finalizers: m.finalizers, deleting: !!m.deletionTimestamp }),
    spec: walk(o.spec),
  };
  // A binding's clusters are listed by their available replicas at the instant it was scheduled, which the
  // embedded side only approximates (it reads the live Clusters a moment before the controller does, and a
  // member's summary moves as Pods come and go). The order decides nothing (each cluster keeps its replicas),
  // so both sides are compared by name.
  const spec = out.spec as Record<string, unknown> | undefined;
  if (o.kind === RB.kind && Array.isArray(spec?.clusters)) spec.clusters = byName(spec.clusters as { name: string }[]);
  if (withStatus) {
    const s = (o.status ?? {}) as Record<string, any>;
    out.status = {
      conditions: ((s.conditions ?? []) as any[]).map((c) => ({ type: c.type, status: c.status, reason: c.reason })).sort((a, b) => (a.type < b.type ? -1 : 1)),
      aggregatedStatus: ((s.aggregatedStatus ?? []) as any[]).map((i) => ({ clusterName: i.clusterName, applied: i.applied, health: i.health })).sort((a, b) => (a.clusterName < b.clusterName ? -1 : 1)),
    };
  }
  return JSON.parse(JSON.stringify(out));
}

type Snapshot = Record<string, Record<string, unknown>>;

/** What one case's Deployment `name` led to: its binding, its Works, its member copies (the cases share a namespace). */
const ofCase = (name: string) => ({
  binding: (b: KObject) => b.spec?.resource?.name === name,
  work: (w: KObject) => w.metadata.annotations?.['resourcebinding.karmada.io/namespace'] === NS && w.metadata.annotations?.['resourcebinding.karmada.io/name'] === `${name}-deployment`,
  member: (d: KObject) => d.metadata.name === name,
});

async function liveSnapshot(name: string): Promise<Snapshot> {
  const is = ofCase(name);
  const out: Snapshot = {};
  for (const b of (await host.request('GET', `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings`)).items as KObject[]) if (is.binding(b)) out[`binding ${b.metadata.name}`] = normalise(b, true);
  for (const m of MEMBERS) {
    for (const w of (await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${m}/works`)).items as KObject[]) if (is.work(w)) out[`work ${m}/${w.metadata.name}`] = normalise(w, false);
    for (const d of (await rest(m).request('GET', `/apis/apps/v1/namespaces/${NS}/deployments`)).items as KObject[]) if (is.member(d)) out[`member ${m}/${d.metadata.name}`] = normalise(d, false);
  }
  return out;
}

function embeddedSnapshot(cp: ControlPlane, name: string): Snapshot {
  const is = ofCase(name);
  const out: Snapshot = {};
  for (const b of cp.store.list(RB, { namespace: NS }).filter(is.binding)) out[`binding ${b.metadata.name}`] = normalise(b, true);
  for (const w of cp.store.list(WORK).filter(is.work)) out[`work ${w.metadata.namespace!.replace('karmada-es-', '')}/${w.metadata.name}`] = normalise(w, false);
  for (const m of MEMBERS) for (const d of cp.store.list({ apiVersion: 'apps/v1', kind: 'Deployment' }, { namespace: NS }, m).filter(is.member)) out[`member ${m}/${d.metadata.name}`] = normalise(d, false);
  return out;
}

/** The first difference, both ways, or undefined when the snapshots are equal. */
function difference(live: Snapshot, embedded: Snapshot): string | undefined {
  const keys = [...new Set([...Object.keys(live), ...Object.keys(embedded)])].sort();
  for (const k of keys) {
    if (!(k in live)) return `${k}: only in the embedded control plane`;
    if (!(k in embedded)) return `${k}: only on the real apiservers`;
    const a = findMismatch(live[k], embedded[k]);
    if (a) return `${k}: ${a.path}: embedded ${a.expected}, live ${a.got}`;
    const b = findMismatch(embedded[k], live[k]);
    if (b) return `${k}: ${b.path}: live ${b.expected}, embedded ${b.got}`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Driving both sides

const pathOf = (o: KObject, name = o.metadata.name) => {
  if (o.kind === 'Deployment') return `/apis/apps/v1/namespaces/${NS}/deployments${name ? `/${name}` : ''}`;
  const plural = o.kind === 'PropagationPolicy' ? 'propagationpolicies' : 'overridepolicies';
  return `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/${plural}${name ? `/${name}` : ''}`;
};

/**
 * Keeps the member copies at the health the step wants: on an unhealthy member every Pod of the copy labelled
 * unready (kwok reports it running and never Ready, Pods made later included); on the others the readiness
 * gate of a gated copy opened. Each member's deployment controller reports what it sees.
 */
async function holdHealth(name: string, unhealthy: ReadonlySet<Member>): Promise<void> {
  for (const m of MEMBERS) {
    const c = rest(m);
    if (!(await get(c, `/apis/apps/v1/namespaces/${NS}/deployments/${name}`))) continue;
    if (!unhealthy.has(m)) {
      await openGates(c, NS, name);
      continue;
    }
    for (const p of await podsOf(c, NS, name)) {
      if (p.metadata.labels?.[FaultLabel.unready] === 'true') continue;
      await c.request('PATCH', `/api/v1/namespaces/${NS}/pods/${p.metadata.name}`, { body: { metadata: { labels: { [FaultLabel.unready]: 'true' } } }, contentType: 'application/merge-patch+json' }).catch((e) => {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      });
    }
  }
}

describe('differential: embedded control plane = controller on the real apiservers', () => {
  let ctrl: Proc | undefined;

  beforeAll(async () => {
    await prepareHost(host, NS);
    ctrl = await startController();
    for (const m of MEMBERS) {
      await waitFor(`${m} Ready`, async () => {
        const c = await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${m}`);
        return c?.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? true : undefined;
      });
    }
  });

  afterAll(async () => {
    for (const c of CASES) {
      await host.request('DELETE', pathOf(c.template)).catch(() => undefined);
    }
    await waitFor('the member copies removed', async () => {
      for (const m of MEMBERS) if (((await rest(m).request('GET', `/apis/apps/v1/namespaces/${NS}/deployments`)).items as unknown[]).length) return undefined;
      return true;
    }).catch((e) => console.warn(`cleanup: ${(e as Error).message}`));
    for (const c of CASES) for (const p of c.policies) await host.request('DELETE', pathOf(p)).catch(() => undefined);
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
  });

  // The members' health is their deployment controllers' (the kwok fleet runs the Pods).
  for (const c of CASES) {
    itWithFleet(c.name, async () => {
      const cp = new ControlPlane({ start: new Date() });
      // The members' capacity is an input too: the scheduler ranks clusters by their available replicas (which
      // one a maxGroups 1 spread takes), and a placed binding is not placed again as Pods come and go.
      // The embedded members get the live Clusters' summaries as they stand before each write the scheduler acts on.
      const syncCapacity = async () => {
        for (const m of MEMBERS) {
          const live = await get(host, `/apis/cluster.karmada.io/v1alpha1/clusters/${m}`);
          const status = { ...(live?.status?.resourceSummary ? { resourceSummary: live.status.resourceSummary } : {}), ...(live?.status?.nodeSummary ? { nodeSummary: live.status.nodeSummary } : {}) };
          cp.apply({ apiVersion: CLUSTER.apiVersion, kind: CLUSTER.kind, metadata: { name: m }, spec: { syncMode: 'Push' }, ...(Object.keys(status).length ? { status } : {}) });
        }
      };
      await syncCapacity();
      // Both sides get every object as the apiserver stored it (CRD defaults such as conflictResolution
      // Abort applied), as `plan` does with live exports: the same inputs, so only the decisions can differ.
      for (const p of c.policies) {
        const stored = await host.request('POST', pathOf(p, ''), { body: p });
        cp.apply({ apiVersion: p.apiVersion, kind: p.kind, metadata: p.metadata, spec: stored.spec });
      }
      await host.request('POST', pathOf(c.template, ''), { body: c.template });
      // The embedded side gets the template as the apiserver stored (defaulted) it, as `plan` would from a live export.
      const stored = await get(host, pathOf(c.template));
      const asStored = (spec: Record<string, unknown>): KObject => ({ apiVersion: c.template.apiVersion, kind: c.template.kind, metadata: c.template.metadata, spec });
      cp.apply(asStored(stored.spec));
      const unhealthy = new Set<Member>();
      for (const step of c.steps) {
        for (const m of step.unhealthy ?? []) {
          unhealthy.add(m);
          cp.setMemberState(m, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NS, name: c.template.metadata.name! }, { health: 'Unhealthy' });
        }
        if (step.policySpec || step.templateSpec) await syncCapacity();
        if (step.policySpec) {
          const p = c.policies[0]!;
          const cur = await get(host, pathOf(p));
          const updated = await host.request('PUT', pathOf(p), { body: { ...cur, spec: step.policySpec } });
          cp.apply({ apiVersion: p.apiVersion, kind: p.kind, metadata: p.metadata, spec: updated.spec });
        }
        for (const m of step.deleteFrom ?? []) {
          await rest(m).request('DELETE', pathOf(c.template));
          cp.delete({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: NS, name: c.template.metadata.name! }, m);
        }
        if (step.templateSpec) {
          const cur = await get(host, pathOf(c.template));
          const updated = await host.request('PUT', pathOf(c.template), { body: { ...cur, spec: step.templateSpec } });
          cp.apply(asStored(updated.spec));
        }
        cp.advance(step.advance);
        const want = embeddedSnapshot(cp, c.template.metadata.name!);
        if (step.shows) expect(JSON.stringify(want)).toContain(step.shows);
        let last: string | undefined = 'not compared yet';
        try {
          await waitFor(`the controller to end where the embedded control plane did (${step.name})`, async () => {
            await holdHealth(c.template.metadata.name!, unhealthy);
            last = difference(await liveSnapshot(c.template.metadata.name!), want);
            return last === undefined ? true : undefined;
          }, 60_000, 500);
        } catch (e) {
          throw new Error(`${c.name} / ${step.name}: ${last}\n${await diagnose(ctrl)}`, { cause: e });
        }
        expect(last).toBeUndefined();
      }
    });
  }
});
