// ClusterTaintPolicy (src/core/cluster-taint-policy.ts) and the switches of NoExecute taint eviction: the
// Failover gate and --enable-no-execute-taint-eviction in the taint manager and the cluster controller.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addCoreFlags, coreOptionsFromFlags, type CoreFlags } from '../../src/cli/core-flags.js';
import { CLUSTER_TAINT_POLICY, conditionsMatch, policyTaints, reconcileClusterTaintPolicy } from '../../src/core/cluster-taint-policy.js';
import { coreControllers } from '../../src/core/controllers.js';
import { CLUSTER, CTP } from '../../src/core/kinds.js';
import { refKey, type KObject } from '../../src/core/object.js';
import { withCoreDefaults, type CoreOptions, type ReconcileContext } from '../../src/core/ports.js';
import { desiredClusterTaints } from '../../src/core/taint.js';
import { noExecuteEvictionMode, reconcileTaintManager } from '../../src/core/taint-manager.js';
import { EmbeddedStore } from '../../src/store/embedded.js';

const NOW = new Date('2024-01-01T00:10:00Z');
const cond = (type: string, status: 'True' | 'False' | 'Unknown') => ({ type, status, reason: 'r', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' });
const cluster = (name: string, conditions: unknown[], taints?: unknown[], labels?: Record<string, string>): KObject => ({
  ...CLUSTER,
  metadata: { name, resourceVersion: '1', ...(labels ? { labels } : {}) },
  spec: taints ? { taints } : {},
  status: { conditions },
});
const policy = (name: string, spec: Record<string, unknown>, created = '2024-01-01T00:00:00Z'): KObject => ({ ...CTP, metadata: { name, creationTimestamp: created }, spec });
const readyIn = (...statusValues: string[]) => [{ conditionType: 'Ready', operator: 'In', statusValues }];

function ctxOf(objects: KObject[], options: Partial<CoreOptions> = {}): ReconcileContext {
  const store = new EmbeddedStore();
  for (const o of objects) store.create(o);
  return { reader: store, now: NOW, interpreter: {} as never, schedule: (() => ({})) as never, options: withCoreDefaults({ skippedPropagatingNamespaces: [], ...options }) };
}

describe('ClusterTaintPolicy: condition matching (Karmada conditionMatches)', () => {
  const conds = [cond('Ready', 'False'), cond('Custom', 'True')];
  it('In and NotIn against the condition status; all must hold; none means no match', () => {
    expect(conditionsMatch(conds, readyIn('False', 'Unknown'))).toBe(true);
    expect(conditionsMatch(conds, [{ conditionType: 'Ready', operator: 'NotIn', statusValues: ['True'] }])).toBe(true);
    expect(conditionsMatch(conds, [...readyIn('False'), { conditionType: 'Custom', operator: 'In', statusValues: ['False'] }])).toBe(false);
    expect(conditionsMatch(conds, [])).toBe(false);
    expect(conditionsMatch(conds, undefined)).toBe(false);
  });
  it('a missing condition type matches neither In nor NotIn; an unknown operator matches nothing', () => {
    expect(conditionsMatch(conds, [{ conditionType: 'Absent', operator: 'NotIn', statusValues: ['True'] }])).toBe(false);
    expect(conditionsMatch(conds, [{ conditionType: 'Ready', operator: 'Exists', statusValues: [] }])).toBe(false);
  });
});

describe('ClusterTaintPolicy: taints', () => {
  const down = cluster('m1', [cond('Ready', 'False')], [{ key: 'user', effect: 'NoSchedule' }]);
  it('adds the taints (matched by key and effect) with timeAdded after the existing ones, and keeps those already there', () => {
    const p = policy('p', { addOnConditions: readyIn('False'), taints: [{ key: 'k', value: 'v', effect: 'NoExecute' }, { key: 'user', value: 'other', effect: 'NoSchedule' }] });
    expect(policyTaints(down, [p], NOW)).toEqual([
      { key: 'user', effect: 'NoSchedule' },
      { key: 'k', value: 'v', effect: 'NoExecute', timeAdded: '2024-01-01T00:10:00Z' },
    ]);
  });
  it('removes them when removeOnConditions match; a cluster outside targetClusters is left as it is', () => {
    const p = policy('p', { removeOnConditions: readyIn('False'), taints: [{ key: 'user', effect: 'NoSchedule' }] });
    expect(policyTaints(down, [p], NOW)).toEqual([]);
    const elsewhere = policy('p', { targetClusters: { clusterNames: ['m2'] }, removeOnConditions: readyIn('False'), taints: [{ key: 'user', effect: 'NoSchedule' }] });
    expect(policyTaints(down, [elsewhere], NOW)).toEqual([{ key: 'user', effect: 'NoSchedule' }]);
    const byLabel = policy('p', { targetClusters: { labelSelector: { matchLabels: { tier: 'gold' } } }, addOnConditions: readyIn('False'), taints: [{ key: 'k', effect: 'NoSchedule' }] });
    expect(policyTaints(cluster('m1', [cond('Ready', 'False')], undefined, { tier: 'gold' }), [byLabel], NOW)).toMatchObject([{ key: 'k' }]);
  });
  it('conflicting policies apply oldest first, so the youngest decides, the same way every time', () => {
    const add = policy('add', { addOnConditions: readyIn('False'), taints: [{ key: 'k', effect: 'NoSchedule' }] }, '2024-01-01T00:00:01Z');
    const remove = policy('remove', { removeOnConditions: readyIn('False'), taints: [{ key: 'k', effect: 'NoSchedule' }] }, '2024-01-01T00:00:02Z');
    const c = cluster('m1', [cond('Ready', 'False')]);
    expect(policyTaints(c, [remove, add], NOW)).toEqual([]);
    expect(policyTaints(c, [{ ...remove, metadata: { ...remove.metadata, creationTimestamp: '2024-01-01T00:00:00Z' } }, add], NOW)).toMatchObject([{ key: 'k' }]);
  });
  it('the reconcile updates the Cluster with Karmada event texts, and writes nothing when the taints are right', () => {
    const p = policy('p', { addOnConditions: readyIn('False'), taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] });
    const ctx = ctxOf([down, p]);
    const key = refKey({ ...CLUSTER, name: 'm1' });
    const r = reconcileClusterTaintPolicy(ctx, key);
    const w = r.writes[0] as { op: string; object: KObject; then: (o: KObject) => { events: unknown[] }; failureEvents: unknown[] };
    expect(w.op).toBe('update');
    expect(w.object.spec.taints).toEqual([{ key: 'user', effect: 'NoSchedule' }, { key: 'k', value: 'v', effect: 'NoSchedule', timeAdded: '2024-01-01T00:10:00Z' }]);
    expect(w.then(w.object).events).toMatchObject([
      { type: 'Normal', reason: 'TaintClusterSucceed', source: 'cluster-taint-policy-controller', message: 'Update Cluster(m1) with taints({Key:user,Effect:NoSchedule},{Key:k,Value:v,Effect:NoSchedule}) succeed' },
    ]);
    expect(w.failureEvents).toMatchObject([{ type: 'Warning', reason: 'TaintClusterFailed' }]);
    const tainted = ctxOf([{ ...down, spec: { taints: w.object.spec.taints } }, p]);
    expect(reconcileClusterTaintPolicy(tainted, key).writes).toEqual([]);
  });
  it('wakes on a Cluster whose conditions changed and on the clusters a policy targets when its spec changed', () => {
    const ctx = ctxOf([cluster('m1', []), cluster('m2', [])]);
    const spec = coreControllers({ skippedPropagatingNamespaces: [] }).find((c) => c.name === CLUSTER_TAINT_POLICY)!;
    const c = cluster('m1', [cond('Ready', 'True')]);
    expect(spec.keysFor({ type: 'MODIFIED', object: { ...c, spec: { taints: [] } }, old: c }, ctx.reader)).toEqual([]);
    expect(spec.keysFor({ type: 'MODIFIED', object: cluster('m1', [cond('Ready', 'False')]), old: c }, ctx.reader)).toEqual([refKey({ ...CLUSTER, name: 'm1' })]);
    const p = policy('p', { targetClusters: { clusterNames: ['m2'] }, taints: [{ key: 'k', effect: 'NoSchedule' }] });
    expect(spec.keysFor({ type: 'ADDED', object: p }, ctx.reader)).toEqual([refKey({ ...CLUSTER, name: 'm2' })]);
    expect(spec.keysFor({ type: 'MODIFIED', object: { ...p, metadata: { ...p.metadata, labels: { a: 'b' } } }, old: p }, ctx.reader)).toEqual([]);
    expect(spec.keysFor({ type: 'DELETED', object: p }, ctx.reader)).toEqual([]);
  });
});

describe('NoExecute eviction: Failover gate and --enable-no-execute-taint-eviction', () => {
  const notReady = { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: '2024-01-01T00:09:00Z' };
  const binding = (failover?: unknown): KObject => ({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: 'web-deployment', namespace: 'default' },
    spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' }, clusters: [{ name: 'm1', replicas: 1 }, { name: 'm2', replicas: 2 }], ...(failover ? { failover } : {}) },
  });
  const evict = (b: KObject, options: Partial<CoreOptions>) => {
    const ctx = ctxOf([cluster('m1', []), cluster('m2', [], [notReady]), b], options);
    return (reconcileTaintManager(ctx, 'work.karmada.io/v1alpha2|ResourceBinding|default|web-deployment').writes[0] as { object: KObject } | undefined)?.object.spec.gracefulEvictionTasks;
  };

  it('the modes: v1.2-style by default, all with the flag, none with the flag false or the gate off', () => {
    expect(noExecuteEvictionMode({})).toBe('failover-policy');
    expect(noExecuteEvictionMode({ enableNoExecuteTaintEviction: true })).toBe('all');
    expect(noExecuteEvictionMode({ enableNoExecuteTaintEviction: false })).toBe('off');
    expect(noExecuteEvictionMode({ failover: false, enableNoExecuteTaintEviction: true })).toBe('off');
  });
  it('by default only a binding with failover.cluster is evicted', () => {
    expect(evict(binding(), {})).toBeUndefined();
    expect(evict(binding({ cluster: {} }), {})).toMatchObject([{ fromCluster: 'm2', purgeMode: 'Gracefully' }]);
  });
  it('with the flag every binding is; without failover.cluster the purge mode is --no-execute-taint-eviction-purge-mode', () => {
    expect(evict(binding(), { enableNoExecuteTaintEviction: true })).toMatchObject([{ fromCluster: 'm2', purgeMode: 'Gracefully', reason: 'TaintUntolerated' }]);
    expect(evict(binding(), { enableNoExecuteTaintEviction: true, noExecuteTaintEvictionPurgeMode: 'Directly' })).toMatchObject([{ purgeMode: 'Directly' }]);
    expect(evict(binding({ cluster: { purgeMode: 'Gracefully' } }), { enableNoExecuteTaintEviction: true, noExecuteTaintEvictionPurgeMode: 'Directly' })).toMatchObject([{ purgeMode: 'Gracefully' }]);
  });
  it('the flag false or the gate off: nothing is evicted', () => {
    expect(evict(binding({ cluster: {} }), { enableNoExecuteTaintEviction: false })).toBeUndefined();
    expect(evict(binding({ cluster: {} }), { failover: false })).toBeUndefined();
  });
  it('outside the v1.2-style mode the cluster controller neither adds nor removes NoExecute taints', () => {
    const down = { ...cluster('m1', [{ ...cond('Ready', 'False'), lastTransitionTime: '2024-01-01T00:00:00Z' }]) };
    expect(desiredClusterTaints(down, NOW, 30).taints.map((t) => t.effect)).toEqual(['NoSchedule', 'NoExecute']);
    expect(desiredClusterTaints(down, NOW, 30, false).taints.map((t) => t.effect)).toEqual(['NoSchedule']);
    const back = cluster('m1', [cond('Ready', 'True')], [{ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' }, notReady]);
    expect(desiredClusterTaints(back, NOW, 30).taints).toEqual([]);
    expect(desiredClusterTaints(back, NOW, 30, false).taints).toEqual([notReady]);
  });
  it('the flags parse as Karmada spells them, and name themselves when wrong', () => {
    const parse = (...argv: string[]) => {
      const cmd = addCoreFlags(new Command()).exitOverride();
      cmd.parse(argv, { from: 'user' });
      return coreOptionsFromFlags(cmd.opts() as CoreFlags);
    };
    const defaults = parse();
    expect([defaults.failover, defaults.enableNoExecuteTaintEviction, defaults.noExecuteTaintEvictionPurgeMode]).toEqual([undefined, undefined, 'Gracefully']);
    expect(defaults.skippedPropagatingNamespaces!.map((r) => r.source)).toEqual(['^(?:kube-.*)$']);
    expect(parse('--enable-no-execute-taint-eviction', '--feature-gates', 'Failover=false')).toMatchObject({ enableNoExecuteTaintEviction: true, failover: false });
    expect(parse('--enable-no-execute-taint-eviction=false')).toMatchObject({ enableNoExecuteTaintEviction: false });
    expect(() => parse('--enable-no-execute-taint-eviction=yes')).toThrow('--enable-no-execute-taint-eviction must be true or false, got yes');
    expect(() => parse('--no-execute-taint-eviction-purge-mode', 'Never')).toThrow('--no-execute-taint-eviction-purge-mode must be Gracefully or Directly, got Never');
    const skipped = parse('--skipped-propagating-namespaces', 'kube-.*, team-a').skippedPropagatingNamespaces!;
    expect(skipped.map((r) => r.source)).toEqual(['^(?:kube-.*)$', '^(?:team-a)$']);
    expect(() => parse('--skipped-propagating-namespaces', 'a,(')).toThrow('--skipped-propagating-namespaces: "(" is not a regular expression');
  });
});
