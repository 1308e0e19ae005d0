// The hostile RICs of issue 32 ("containment, round two") as the controller meets them, one target kind
// each (a RIC names one kind), with objects of that kind to propagate: shared by
// test/integration/controller-containment-output.test.ts and bench/containment.bench.ts.

/** A 999,999-byte string: under the per-string cap, as the reproductions built it. */
const MEGA = 'local s = string.format("%0999999d", 1)';

export interface HostileCase {
  id: string;
  /** The bullet of issue 32 it pins. */
  what: string;
  target: { apiVersion: string; kind: string };
  /** The collection path of the kind in the namespace. */
  path: string;
  /** An object of the kind, labelled hostile=<id> (the policy selects that label). */
  objects: (name: string) => Record<string, unknown>;
  /** Objects of the kind (two for the case that wants both workers at once). */
  names: string[];
  script: string;
  /**
   * The ScriptsHealthy=False reason expected, or undefined: the script answers (its status is reflected).
   * On a machine too loaded to finish the script within its 1 s budget, ScriptTimeout instead: the budget
   * held either way, and no test depends on the machine's speed.
   */
  reason?: 'ScriptError' | 'ScriptMemoryLimit';
  /** What the message says when the reason is `reason`. */
  message?: RegExp;
  /** Its calls keep costing workers (each leaves its worker far above its start): it ends up quarantined. */
  quarantined?: boolean;
}

export function hostileOutputCases(ns: string): HostileCase[] {
  return [
    {
      id: 'message',
      what: 'a ReflectStatus that raises a 6 MB error message (under the 32 MiB budget; 5 MB took the controller to 756 MB)',
      target: { apiVersion: 'v1', kind: 'ConfigMap' },
      path: `/api/v1/namespaces/${ns}/configmaps`,
      objects: (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels: { hostile: 'message' } }, data: { n: '0' } }),
      names: ['message-0'],
      script: `function ReflectStatus(obj) ${MEGA} local t = {} for i = 1, 6 do t[i] = s end error(table.concat(t)) end`,
      reason: 'ScriptError',
      message: /message cut/,
    },
    {
      id: 'message50',
      what: 'a ReflectStatus that raises a 50 MB error message (past the budget while it is built)',
      target: { apiVersion: 'v1', kind: 'Secret' },
      path: `/api/v1/namespaces/${ns}/secrets`,
      objects: (name) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns, labels: { hostile: 'message50' } }, stringData: { n: '0' } }),
      names: ['message50-0'],
      script: `function ReflectStatus(obj) ${MEGA} local t = {} for i = 1, 50 do t[i] = s end error(table.concat(t)) end`,
      reason: 'ScriptMemoryLimit',
    },
    {
      id: 'references',
      what: '`return {big = t}` with 3,000 references to one 1 MB string',
      target: { apiVersion: 'v1', kind: 'ServiceAccount' },
      path: `/api/v1/namespaces/${ns}/serviceaccounts`,
      objects: (name) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns, labels: { hostile: 'references' } } }),
      names: ['references-0'],
      script: `function ReflectStatus(obj) ${MEGA} local t = {} for i = 1, 3000 do t[i] = s end return {big = t} end`,
      reason: 'ScriptError',
      message: /result is larger than/,
    },
    {
      id: 'find',
      what: 'string.find plain with a 30 KB needle in a 1 MB haystack',
      target: { apiVersion: 'v1', kind: 'Service' },
      path: `/api/v1/namespaces/${ns}/services`,
      objects: (name) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, labels: { hostile: 'find' } }, spec: { ports: [{ port: 80 }] } }),
      names: ['find-0'],
      script: 'function ReflectStatus(obj) local hay = string.format("%0999999d", 0) local needle = string.format("%030000d", 1) return {found = string.find(hay, needle, 1, true) ~= nil} end',
    },
    {
      id: 'hoard',
      what: 'two workers each holding ~240 MB of strings',
      target: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
      path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`,
      objects: (name) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: ns, labels: { hostile: 'hoard' } }, rules: [] }),
      names: ['hoard-0', 'hoard-1'],
      script: `function ReflectStatus(obj) ${MEGA} local t = {} for i = 1, 240 do t[i] = s .. i end return {held = #t} end`,
      reason: 'ScriptMemoryLimit',
      quarantined: true,
    },
  ];
}

/** The RIC of a case; `round` names it and goes into a comment so that its script is one of its own. */
export function hostileOutputRic(c: HostileCase, name: string, round: string): Record<string, unknown> {
  return {
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterCustomization',
    metadata: { name },
    spec: { target: c.target, customizations: { statusReflection: { luaScript: `-- ${round}\n${c.script}` } } },
  };
}

/** The PropagationPolicy that sends a case's objects to member1. */
export function hostileOutputPolicy(c: HostileCase, ns: string): Record<string, unknown> {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: `hostile-${c.id}`, namespace: ns },
    spec: { resourceSelectors: [{ ...c.target, labelSelector: { matchLabels: { hostile: c.id } } }], placement: { clusterAffinity: { clusterNames: ['member1'] } } },
  };
}
