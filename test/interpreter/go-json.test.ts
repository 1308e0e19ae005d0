/**
 * The built-in interpreters' results follow the Go-JSON rule (src/interpreter/go-json.ts): for generated
 * objects of every built-in kind, with empty maps, empty lists, empty list elements and nulls where the
 * rule matters, every operation's result is checked against a model of encoding/json written here from
 * the field tags (go-types.ts), independently of the implementation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { builtinCustomizations } from '../../src/interpreter/builtin.js';
import { goJsonValue, goStruct } from '../../src/interpreter/go-json.js';
import { GO_TYPES } from '../../src/interpreter/go-types.js';
import { rootPos } from '../../src/lua/repair.js';
import { executeRule } from '../../src/interpreter/harness.js';
import { createInterpreter } from '../../src/interpreter/interpreter.js';
import { typedOutputOf } from '../../src/interpreter/ric.js';
import { OPERATIONS, type KubeObject, type Operation } from '../../src/interpreter/types.js';

type J = unknown;
const isObj = (v: J): v is Record<string, J> => v !== null && typeof v === 'object' && !Array.isArray(v);

function field(ref: string, key: string): readonly [string, 0 | 1] | undefined {
  return ref[0] === 'S' ? GO_TYPES[ref.slice(1)]?.[key] : undefined;
}

/** What Go's decode into the type and encode again give for a JSON value (null: absent). */
function goRoundTrip(v: J, ref: string): J {
  if (v === null || v === undefined) return undefined;
  if (ref === '' || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((el) => goRoundTrip(el, ref.slice(1)) ?? {});
  const out: Record<string, J> = {};
  for (const [k, val] of Object.entries(v)) {
    const f = ref[0] === 'M' ? ([ref.slice(1), 0] as const) : field(ref, k);
    const r = goRoundTrip(val, f ? f[0] : '');
    if (r === undefined) continue;
    if (f && f[1] === 1 && (f[0][0] === 'M' || f[0][0] === 'L') && (Array.isArray(r) ? r.length === 0 : isObj(r) && Object.keys(r).length === 0)) continue;
    out[k] = r;
  }
  return out;
}

/** JSON with sorted keys: Go marshals maps sorted, and member order is not part of the rule. */
function canon(v: J): string {
  const sort = (x: J): J => (Array.isArray(x) ? x.map(sort) : isObj(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sort(x[k])])) : x);
  return JSON.stringify(sort(v === undefined ? null : v));
}

/** A Lua round trip: null members gone (a Lua table cannot hold nil). */
function dropNulls(v: J): J {
  if (Array.isArray(v)) return v.filter((x) => x !== null).map(dropNulls);
  if (isObj(v)) return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)]));
  return v;
}

/** Problems with the rule in `v` of type `ref`: wrong shapes everywhere; for typed results, empty omitempty fields. */
function ruleProblems(v: J, ref: string, typed: boolean, path = ''): string[] {
  if (v === null || v === undefined || ref === '') return [];
  const kind = ref[0];
  if (kind === 'L') {
    if (!Array.isArray(v)) return [`${path}: a list in Go, got ${JSON.stringify(v)}`];
    return v.flatMap((el, i) => ruleProblems(el, ref.slice(1), typed, `${path}[${i}]`));
  }
  if (!isObj(v)) return [`${path}: an object in Go, got ${JSON.stringify(v)}`];
  const out: string[] = [];
  for (const [k, val] of Object.entries(v)) {
    const f = kind === 'M' ? ([ref.slice(1), 0] as const) : field(ref, k);
    if (!f) continue;
    const empty = Array.isArray(val) ? val.length === 0 : isObj(val) && Object.keys(val).length === 0;
    if (typed && f[1] === 1 && (f[0][0] === 'M' || f[0][0] === 'L') && empty) out.push(`${path}.${k}: empty and omitempty, Go omits it`);
    out.push(...ruleProblems(val, f[0], typed, `${path}.${k}`));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Generated objects: the fields the Go-JSON rule is about, with {}, [], empty elements and nulls.

const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const nodeSelector = fc.constantFrom(undefined, null, {}, { disk: 'ssd' });
const tolerations = fc.constantFrom(undefined, null, [], [{ key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' }]);
const affinity = fc.constantFrom(undefined, null, {}, { nodeAffinity: {} }, {
  nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } },
});
const volume = fc.constantFrom({ name: 'scratch', emptyDir: {} }, { name: 'cfg', configMap: { name: 'cfg' } }, { name: 'data', persistentVolumeClaim: { claimName: 'data' } });
const container = fc.record(
  { name: fc.constantFrom('app', 'side'), image: fc.constant('app:1'), resources: fc.constantFrom(undefined, {}, { requests: { cpu: '100m' } }), volumeMounts: fc.constantFrom(undefined, [], [{ name: 'scratch', mountPath: '/s' }]) },
  { requiredKeys: ['name', 'image'] },
);
const podSpec = fc.record(
  {
    nodeSelector,
    tolerations,
    affinity,
    volumes: fc.oneof(fc.constantFrom(undefined, null, []), fc.array(volume, { maxLength: 2 })),
    containers: fc.oneof(fc.constant([]), fc.uniqueArray(container, { maxLength: 2, selector: (c) => c.name })),
    initContainers: fc.constantFrom(undefined, []),
    imagePullSecrets: fc.constantFrom(undefined, null, [], [{ name: 'regcred' }, { name: 'regcred' }]),
    nodeName: maybe(fc.constantFrom('node-1', 'node-2')),
  },
  { requiredKeys: ['containers'] },
);
const template = fc.record({ metadata: fc.constantFrom(undefined, {}, { labels: { app: 'web' } }), spec: podSpec }, { requiredKeys: ['spec'] });
const lbEntry = fc.constantFrom({}, { hostname: '' }, { hostname: 'a.example.com' }, { ip: '192.0.2.1' }, { ip: '192.0.2.1', ports: [{ port: 80, protocol: 'TCP' }] });
const loadBalancer = fc.oneof(fc.constantFrom({}, { ingress: [] }, { ingress: null }), fc.record({ ingress: fc.array(lbEntry, { maxLength: 3 }) }));
const time = fc.constantFrom('2023-02-08T07:16:00Z', '2023-02-08T07:17:00Z');
const jobCondition = fc.record({ type: fc.constantFrom('Complete', 'Failed', 'SuccessCriteriaMet'), status: fc.constant('True'), lastProbeTime: time, lastTransitionTime: time });
const counters = (names: string[]) => fc.record(Object.fromEntries(names.map((n) => [n, fc.nat(3)])), { requiredKeys: [] });

const metadata = fc.record({ name: fc.constant('web'), namespace: fc.constant('default'), generation: fc.constant(1), labels: fc.constantFrom(undefined, {}, { app: 'web' }), annotations: fc.constant({ 'resourcetemplate.karmada.io/generation': '1' }) });

interface KindGen {
  apiVersion: string;
  kind: string;
  /** The kind's Go type (go-types.ts) and its status type; '' where the status has no type. */
  type: string;
  statusType: string;
  spec?: fc.Arbitrary<Record<string, unknown>>;
  status: fc.Arbitrary<Record<string, unknown>>;
  /** Where the pod spec sits, for kinds that have one. */
  podSpecPath?: string[];
  extra?: fc.Arbitrary<Record<string, unknown>>;
}

const workloadStatus = counters(['replicas', 'readyReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration']).map((s) => ({ ...s, conditions: [] }));
const KINDS: KindGen[] = [
  { apiVersion: 'apps/v1', kind: 'Deployment', type: 'apps/v1.Deployment', statusType: 'apps/v1.DeploymentStatus', spec: fc.record({ replicas: fc.nat(3), template }), status: workloadStatus, podSpecPath: ['spec', 'template', 'spec'] },
  { apiVersion: 'apps/v1', kind: 'ReplicaSet', type: 'apps/v1.ReplicaSet', statusType: 'apps/v1.ReplicaSetStatus', spec: fc.record({ replicas: fc.nat(3), template }), status: workloadStatus, podSpecPath: ['spec', 'template', 'spec'] },
  { apiVersion: 'apps/v1', kind: 'StatefulSet', type: 'apps/v1.StatefulSet', statusType: 'apps/v1.StatefulSetStatus', spec: fc.record({ replicas: fc.nat(3), template }), status: workloadStatus, podSpecPath: ['spec', 'template', 'spec'] },
  { apiVersion: 'apps/v1', kind: 'DaemonSet', type: 'apps/v1.DaemonSet', statusType: 'apps/v1.DaemonSetStatus', spec: fc.record({ template }), status: counters(['currentNumberScheduled', 'numberReady', 'desiredNumberScheduled']), podSpecPath: ['spec', 'template', 'spec'] },
  {
    apiVersion: 'batch/v1',
    kind: 'Job',
    type: 'batch/v1.Job',
    statusType: 'batch/v1.JobStatus',
    spec: fc.record({ parallelism: fc.nat(3), template }),
    status: fc.record({ succeeded: fc.nat(2), uncountedTerminatedPods: fc.constantFrom(undefined, {}), conditions: fc.oneof(fc.constant([]), fc.array(jobCondition, { maxLength: 2 })), startTime: time }, { requiredKeys: [] }),
    podSpecPath: ['spec', 'template', 'spec'],
  },
  { apiVersion: 'batch/v1', kind: 'CronJob', type: 'batch/v1.CronJob', statusType: 'batch/v1.CronJobStatus', spec: fc.record({ jobTemplate: fc.record({ spec: fc.record({ template }) }) }), status: fc.record({ active: fc.constantFrom(undefined, [], [{ name: 'j' }]), lastScheduleTime: maybe(time) }, { requiredKeys: [] }), podSpecPath: ['spec', 'jobTemplate', 'spec', 'template', 'spec'] },
  { apiVersion: 'v1', kind: 'Pod', type: 'core/v1.Pod', statusType: 'core/v1.PodStatus', spec: podSpec, status: fc.record({ phase: fc.constantFrom('Running', 'Pending'), conditions: fc.constantFrom([], [{ type: 'Ready', status: 'True' }]) }), podSpecPath: ['spec'] },
  { apiVersion: 'v1', kind: 'Service', type: 'core/v1.Service', statusType: 'core/v1.ServiceStatus', spec: fc.record({ type: fc.constantFrom('LoadBalancer', 'ClusterIP'), clusterIP: fc.constantFrom('10.0.0.1', '') }), status: fc.record({ loadBalancer }) },
  {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    type: 'core/v1.ServiceAccount',
    statusType: '',
    status: fc.constant({}),
    extra: fc.record({ secrets: fc.constantFrom(undefined, null, [], [{ name: 'tok' }]), imagePullSecrets: fc.constantFrom(undefined, [], [{ name: 'regcred' }, { name: 'regcred' }], [{ name: 'other' }]) }, { requiredKeys: [] }),
  },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', type: 'core/v1.PersistentVolumeClaim', statusType: '', spec: fc.record({ volumeName: fc.constantFrom('pv-1', ''), accessModes: fc.constantFrom([], ['ReadWriteOnce']) }), status: fc.record({ phase: fc.constantFrom('Bound', 'Pending', 'Lost'), capacity: fc.constantFrom({}, { storage: '1Gi' }) }) },
  { apiVersion: 'v1', kind: 'PersistentVolume', type: 'core/v1.PersistentVolume', statusType: '', spec: fc.record({ claimRef: fc.constantFrom(undefined, {}, { name: 'pvc-1' }), mountOptions: fc.constantFrom(undefined, []) }, { requiredKeys: [] }), status: fc.record({ phase: fc.constantFrom('Available', 'Bound', 'Released') }) },
  { apiVersion: 'v1', kind: 'Secret', type: 'core/v1.Secret', statusType: '', status: fc.constant({}), extra: fc.record({ type: fc.constantFrom('Opaque', 'kubernetes.io/service-account-token'), data: fc.constantFrom({}, { token: 'dG9r' }) }) },
  { apiVersion: 'v1', kind: 'ConfigMap', type: '', statusType: '', status: fc.constant({}), extra: fc.record({ data: fc.constantFrom({}, { k: 'v' }) }) },
  { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', type: 'networking/v1.Ingress', statusType: '', spec: fc.record({ tls: fc.constantFrom(undefined, [], [{ secretName: 'cert' }]), rules: fc.constantFrom(undefined, [], [{}]) }, { requiredKeys: [] }), status: fc.oneof(fc.constant({}), fc.record({ loadBalancer })) },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', type: 'policy/v1.PodDisruptionBudget', statusType: 'policy/v1.PodDisruptionBudgetStatus', spec: fc.constant({}), status: fc.record({ currentHealthy: fc.nat(2), desiredHealthy: fc.nat(2), disruptedPods: fc.constantFrom({}, { p: '2023-02-08T07:16:00Z' }), conditions: fc.constant([]) }) },
  {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    type: 'autoscaling/v2.HorizontalPodAutoscaler',
    statusType: 'autoscaling/v2.HorizontalPodAutoscalerStatus',
    spec: fc.constant({ maxReplicas: 3 }),
    status: fc.record({ currentReplicas: fc.nat(3), desiredReplicas: fc.nat(3), currentMetrics: fc.constantFrom(undefined, null, []), conditions: fc.constantFrom(undefined, []) }, { requiredKeys: [] }),
  },
  { apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceImport', type: '', statusType: '', spec: fc.constant({ type: 'ClusterSetIP' }), status: fc.constant({}) },
];

/** An object of the kind: undefined members removed (they are not JSON). */
function objectOf(k: KindGen): fc.Arbitrary<KubeObject> {
  return fc.record({ metadata, spec: k.spec ?? fc.constant(undefined), status: k.status, extra: k.extra ?? fc.constant({}) }).map(
    ({ metadata: md, spec, status, extra }) => JSON.parse(JSON.stringify({ apiVersion: k.apiVersion, kind: k.kind, metadata: md, ...(spec === undefined ? {} : { spec }), status, ...extra })) as KubeObject,
  );
}

const at = (v: J, path: string[]): J => path.reduce<J>((o, k) => (isObj(o) ? o[k] : undefined), v);
const STATUS_REF = (k: KindGen) => (k.statusType ? `S${k.statusType}` : '');

// ---------------------------------------------------------------------------------------------------

const interp = createInterpreter({ budgetMs: 5000 });

/** Checks one operation's result; returns the problems found. */
function check(k: KindGen, op: Operation, desired: KubeObject, observed: KubeObject, members: KubeObject[]): string[] {
  const args = op === 'Retain' ? { desired, observed } : op === 'InterpretStatus' || op === 'InterpretHealth' ? { observed } : { desired };
  const items = members.map((m, i) => ({ clusterName: `member${i + 1}`, status: m.status, applied: true }));
  let results: [string, unknown][];
  try {
    results = executeRule(interp, op, { ...args, statusItems: items, replicas: 2 });
  } catch (e) {
    return [`${op} failed: ${(e as Error).message}`];
  }
  const r = new Map(results);
  const problems: string[] = [];
  const ref = k.type ? `S${k.type}` : '';
  const podPath = k.podSpecPath;
  switch (op) {
    case 'InterpretReplica': {
      const req = r.get('requires');
      problems.push(...ruleProblems(req, 'Swork/v1alpha2.ReplicaRequirements', true, 'requires'));
      const spec = at(desired, podPath!) as Record<string, J>;
      const claim = isObj(req) ? req.nodeClaim : undefined;
      const required = at(spec, ['affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution']);
      const wantClaim = isObj(spec.nodeSelector) || (Array.isArray(spec.tolerations) && spec.tolerations.length > 0) || required !== undefined;
      if (wantClaim !== isObj(claim)) problems.push(`requires.nodeClaim: ${wantClaim ? 'missing' : 'unexpected'}: ${JSON.stringify(req)}`);
      break;
    }
    case 'InterpretStatus': {
      const status = r.get('status');
      if (interp.layerFor({ apiVersion: k.apiVersion, kind: k.kind }, 'InterpretStatus') === 'native') {
        // The fallback (and Karmada's reflectWholeStatus, Ingress included): the status exactly as it is.
        if (canon(status) !== canon(observed.status ?? null)) problems.push(`status: not the member's own: ${JSON.stringify(status)}`);
      } else problems.push(...ruleProblems(status, STATUS_REF(k), true, 'status'));
      if (k.kind === 'Service' && at(observed, ['spec', 'type']) === 'LoadBalancer') {
        const want = at(observed, ['status', 'loadBalancer', 'ingress']);
        const got = at(status, ['loadBalancer', 'ingress']);
        if ((Array.isArray(want) ? want.length : 0) !== (Array.isArray(got) ? got.length : 0)) problems.push(`status.loadBalancer.ingress: entries lost: ${JSON.stringify(got)}`);
      }
      break;
    }
    case 'AggregateStatus': {
      const out = r.get('aggregatedStatus') as KubeObject;
      problems.push(...ruleProblems(out, ref, true, 'aggregatedStatus'));
      if (podPath) {
        const want = goRoundTrip(at(desired, podPath), 'Score/v1.PodSpec');
        const got = at(out, podPath);
        if (canon(got) !== canon(want)) problems.push(`pod spec: got ${JSON.stringify(got)}, Go gives ${JSON.stringify(want)}`);
      }
      const lb = k.kind === 'Ingress' || (k.kind === 'Service' && at(desired, ['spec', 'type']) === 'LoadBalancer');
      if (lb) {
        const keys = new Set(members.flatMap((m) => (at(m, ['status', 'loadBalancer', 'ingress']) as J[] | undefined) ?? []).map((e) => JSON.stringify([at(e, ['hostname']) ?? '', at(e, ['ip']) ?? ''])));
        const got = at(out, ['status', 'loadBalancer', 'ingress']);
        if (!isObj(at(out, ['status', 'loadBalancer']))) problems.push(`status.loadBalancer: not an object: ${JSON.stringify(out.status)}`);
        if (keys.size !== (Array.isArray(got) ? got.length : 0)) problems.push(`status.loadBalancer.ingress: ${keys.size} addresses, got ${JSON.stringify(got)}`);
      }
      const finished = k.kind === 'Job' && ((at(desired, ['status', 'conditions']) as { type: string }[] | undefined) ?? []).some((c) => c.type === 'Complete' || c.type === 'Failed');
      if (finished && canon(out.status) !== canon(goRoundTrip(desired.status, 'Sbatch/v1.JobStatus'))) problems.push(`a finished Job's status changed: ${JSON.stringify(out.status)}`);
      // The controllers' path (status only) gives the same status.
      const status = interp.aggregatedStatus(desired, items);
      if (canon(status) !== canon(out.status)) problems.push(`aggregatedStatus: ${JSON.stringify(status)} is not the whole result's ${JSON.stringify(out.status)}`);
      break;
    }
    case 'Retain':
    case 'ReviseReplica': {
      const out = r.get(op === 'Retain' ? 'retained' : 'revised') as KubeObject;
      const typed = k.kind === 'Pod' && op === 'Retain';
      problems.push(...ruleProblems(out, ref, typed, op));
      if (podPath && k.kind !== 'Pod') {
        const want = dropNulls(at(desired, podPath));
        if (canon(at(out, podPath)) !== canon(want)) problems.push(`pod spec: got ${JSON.stringify(at(out, podPath))}, the template has ${JSON.stringify(want)}`);
      }
      if (k.kind === 'Pod') {
        const want = at(goRoundTrip({ ...(desired.spec as object), volumes: at(observed, ['spec', 'volumes']) }, 'Score/v1.PodSpec'), ['volumes']);
        if (canon(at(out, ['spec', 'volumes'])) !== canon(want)) problems.push(`spec.volumes: got ${JSON.stringify(at(out, ['spec', 'volumes']))}, the member's are ${JSON.stringify(want)}`);
        for (const f of ['affinity', 'nodeSelector', 'tolerations', 'imagePullSecrets']) {
          const w = goRoundTrip(desired.spec, 'Score/v1.PodSpec') as Record<string, J>;
          if (canon(at(out, ['spec', f])) !== canon(w[f])) problems.push(`spec.${f}: got ${JSON.stringify(at(out, ['spec', f]))}, Go gives ${JSON.stringify(w[f])}`);
        }
      }
      if (k.kind === 'ServiceAccount' && op === 'Retain') {
        const desiredList = (desired.imagePullSecrets as J[] | undefined) ?? [];
        const got = (out.imagePullSecrets as J[] | null) ?? [];
        if (canon(got.slice(0, desiredList.length)) !== canon(desiredList)) problems.push(`imagePullSecrets: the template's ${JSON.stringify(desiredList)} are not kept as they are: ${JSON.stringify(got)}`);
      }
      break;
    }
    case 'InterpretDependency': {
      const deps = r.get('dependencies');
      if (!(deps === null || (Array.isArray(deps) && deps.length > 0))) problems.push(`dependencies: none must be null (a nil slice), got ${JSON.stringify(deps)}`);
      break;
    }
    default:
      break;
  }
  return problems;
}

describe('the Go-JSON rule on every built-in result', () => {
  for (const k of KINDS) {
    it(`${k.apiVersion} ${k.kind}: every operation`, () => {
      const gvk = { apiVersion: k.apiVersion, kind: k.kind };
      const ops = OPERATIONS.filter((op) => op !== 'InterpretComponent' && interp.hookEnabled(gvk, op));
      expect(ops.length).toBeGreaterThan(0);
      fc.assert(
        fc.property(objectOf(k), objectOf(k), fc.array(objectOf(k), { maxLength: 2 }), (desired, observed, members) => {
          for (const op of ops) {
            const problems = check(k, op, structuredClone(desired), structuredClone(observed), members.map((m) => structuredClone(m)));
            if (problems.length > 0) throw new Error(`${op}:\n  ${problems.join('\n  ')}\ndesired: ${JSON.stringify(desired)}\nobserved: ${JSON.stringify(observed)}`);
          }
        }),
        { numRuns: 60 },
      );
    }, 120_000);
  }

  it('knows every Go type the built-ins name', () => {
    for (const ric of builtinCustomizations()) {
      for (const t of Object.values(typedOutputOf(ric))) expect(t.goType === undefined || Object.hasOwn(GO_TYPES, t.goType)).toBe(true);
      const raw = String((ric.metadata?.annotations as Record<string, unknown> | undefined)?.['interpreter.karmada-lite.io/typed-output'] ?? '');
      const named = [...raw.matchAll(/goType: ([^,}\s]+)/g)].map((m) => m[1]!);
      for (const n of named) expect(GO_TYPES, `${ric.metadata?.name}: goType ${n}`).toHaveProperty([n]);
    }
  });
});

describe('the goType option of the typed-output annotation', () => {
  const script = `function ReflectStatus(o)
    return { loadBalancer = { ingress = { { hostname = "a.example.com" }, {} } }, conditions = {} }
  end`;
  const ric = (typed: string | undefined) => ({
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterCustomization',
    metadata: { name: 'copy', ...(typed === undefined ? {} : { annotations: { 'interpreter.karmada-lite.io/typed-output': typed } }) },
    spec: { target: { apiVersion: 'example.io/v1', kind: 'Balancer' }, customizations: { statusReflection: { luaScript: script } } },
  });
  const obj = { apiVersion: 'example.io/v1', kind: 'Balancer', metadata: { name: 'b' }, status: {} };
  const reflect = (typed: string | undefined) => createInterpreter({ customizations: [ric(typed)], builtin: false }).reflectStatus(obj);

  it('applies to any RIC that carries it: struct elements stay, empty omitempty lists go', () => {
    expect(reflect('InterpretStatus: {goType: core/v1.ServiceStatus}')).toEqual({ loadBalancer: { ingress: [{ hostname: 'a.example.com' }, {}] } });
    // Without it, Karmada's empty-table repair (no references) deletes the empty entry.
    expect(reflect(undefined)).toEqual({ loadBalancer: { ingress: [{ hostname: 'a.example.com' }] } });
  });

  it('ignores a type it does not know, like any malformed part of the annotation', () => {
    expect(typedOutputOf(ric('InterpretStatus: {goType: core/v1.NoSuchStatus}') as never).InterpretStatus?.goType).toBeUndefined();
    expect(reflect('InterpretStatus: {goType: core/v1.NoSuchStatus}')).toEqual(reflect(undefined));
  });
});

describe('goJsonValue', () => {
  it('keeps struct {} and list elements, [] without omitempty, and drops empty omitempty maps and lists', () => {
    const input = { spec: { containers: [], nodeSelector: {}, tolerations: [], affinity: { nodeAffinity: {} }, volumes: [{ name: 'a', emptyDir: {} }, {}], hostname: null } };
    const before = structuredClone(input);
    expect(goJsonValue(input, goStruct('core/v1.Pod'), null, false)).toEqual({ spec: { containers: [], affinity: { nodeAffinity: {} }, volumes: [{ name: 'a', emptyDir: {} }, {}] } });
    expect(input).toEqual(before);
  });

  // The template's [] against the member's [{}] (Karmada's repair would make it {}); ports [], in no reference, goes.
  it('unstructured: keeps what a reference has, in the form the type says', () => {
    const desired = { kind: 'Service', status: { loadBalancer: { ingress: [] } } };
    const observed = { kind: 'Service', status: { loadBalancer: { ingress: [{}] } } };
    const result = { kind: 'Service', status: { loadBalancer: { ingress: [] } }, spec: { ports: [] } };
    expect(goJsonValue(result, goStruct('core/v1.Service'), rootPos([desired, observed]), true)).toEqual({ kind: 'Service', status: { loadBalancer: { ingress: [] } }, spec: {} });
  });

  it('leaves positions the types do not know to the reference repair', () => {
    const fieldsV1 = { 'f:metadata': { 'f:labels': { '.': {} } } };
    const obj = { metadata: { managedFields: [{ manager: 'm', fieldsV1 }] } };
    expect(goJsonValue(obj, goStruct('apps/v1.Deployment'), rootPos([obj]), false)).toEqual(obj);
    expect(goJsonValue(obj, goStruct('apps/v1.Deployment'), null, false)).toEqual({ metadata: { managedFields: [{ manager: 'm', fieldsV1: { 'f:metadata': { 'f:labels': {} } } }] } });
  });
});
