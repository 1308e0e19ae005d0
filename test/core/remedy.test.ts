// Remedy (src/core/remedy.ts): Karmada's remedy controller decides each Cluster's status.remedyActions.
import { describe, expect, it } from 'vitest';
import { coreControllers } from '../../src/core/controllers.js';
import { CLUSTER, REMEDY } from '../../src/core/kinds.js';
import { refKey, type KObject } from '../../src/core/object.js';
import { withCoreDefaults, type ReconcileContext } from '../../src/core/ports.js';
import { clustersOfRemedy, decisionMatches, reconcileRemedy, remedyActions, REMEDY_CONTROLLER } from '../../src/core/remedy.js';
import { EmbeddedStore } from '../../src/store/embedded.js';

const NOW = new Date('2024-01-01T00:10:00Z');
const cond = (type: string, status: 'True' | 'False' | 'Unknown') => ({ type, status, reason: 'r', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' });
const cluster = (name: string, conditions?: unknown[], remedyActions?: string[]): KObject => ({
  ...CLUSTER,
  metadata: { name, resourceVersion: '1' },
  spec: {},
  status: { ...(conditions ? { conditions } : {}), ...(remedyActions ? { remedyActions } : {}) },
});
const remedy = (name: string, spec: Record<string, unknown>): KObject => ({ ...REMEDY, metadata: { name }, spec });
const dnsIs = (operator: 'Equal' | 'NotEqual', conditionStatus: string) => [{ clusterConditionMatch: { conditionType: 'ServiceDomainNameResolutionReady', operator, conditionStatus } }];

function ctxOf(objects: KObject[]): ReconcileContext {
  const store = new EmbeddedStore();
  for (const o of objects) store.create(o);
  return { reader: store, now: NOW, interpreter: {} as never, schedule: (() => ({})) as never, options: withCoreDefaults({ skippedPropagatingNamespaces: [] }) };
}
const keyOf = (name: string) => refKey({ apiVersion: CLUSTER.apiVersion, kind: CLUSTER.kind, name });

describe('Remedy: decision matches (Karmada remedyDecisionMatchWithCluster)', () => {
  const conds = [cond('Ready', 'True'), cond('ServiceDomainNameResolutionReady', 'False')];
  it('none at all applies at once; otherwise any one match is enough', () => {
    expect(decisionMatches(undefined, undefined)).toBe(true);
    expect(decisionMatches(dnsIs('Equal', 'False'), conds)).toBe(true);
    expect(decisionMatches([...dnsIs('Equal', 'True'), { clusterConditionMatch: { conditionType: 'Ready', operator: 'Equal' as const, conditionStatus: 'True' } }], conds)).toBe(true);
    expect(decisionMatches(dnsIs('NotEqual', 'False'), conds)).toBe(false);
  });
  it('a cluster without conditions, or without that condition, matches neither Equal nor NotEqual; an empty list matches nothing', () => {
    expect(decisionMatches(dnsIs('NotEqual', 'True'), undefined)).toBe(false);
    expect(decisionMatches(dnsIs('NotEqual', 'True'), [cond('Ready', 'True')])).toBe(false);
    expect(decisionMatches([], conds)).toBe(false);
    expect(decisionMatches([{}], conds)).toBe(false);
  });
});

describe('Remedy: the actions of a cluster', () => {
  it('the sorted set of the actions of every Remedy that looks at the cluster and matches', () => {
    const c = cluster('m1', [cond('ServiceDomainNameResolutionReady', 'False')]);
    const rs = [
      remedy('a', { decisionMatches: dnsIs('Equal', 'False'), actions: ['TrafficControl'] }),
      remedy('b', { actions: ['Zeta', 'TrafficControl'] }),
      remedy('elsewhere', { clusterAffinity: { clusterNames: ['m2'] }, actions: ['Other'] }),
      remedy('healthy-only', { decisionMatches: dnsIs('Equal', 'True'), actions: ['Never'] }),
    ];
    expect(remedyActions(c, rs as never)).toEqual(['TrafficControl', 'Zeta']);
  });

  it('writes status.remedyActions only when they change, and removes them when nothing matches any more', () => {
    const r = remedy('a', { decisionMatches: dnsIs('Equal', 'False'), actions: ['TrafficControl'] });
    const sick = reconcileRemedy(ctxOf([cluster('m1', [cond('ServiceDomainNameResolutionReady', 'False')]), r]), keyOf('m1'));
    expect(sick.writes).toMatchObject([{ op: 'updateStatus', object: { metadata: { name: 'm1' }, status: { remedyActions: ['TrafficControl'] } } }]);
    expect(reconcileRemedy(ctxOf([cluster('m1', [cond('ServiceDomainNameResolutionReady', 'False')], ['TrafficControl']), r]), keyOf('m1')).writes).toEqual([]);
    const healed = reconcileRemedy(ctxOf([cluster('m1', [cond('ServiceDomainNameResolutionReady', 'True')], ['TrafficControl']), r]), keyOf('m1'));
    expect(healed.writes).toHaveLength(1);
    expect((healed.writes[0] as { object: KObject }).object.status).not.toHaveProperty('remedyActions');
  });

  it('a Remedy change wakes the clusters it names, or every cluster when either version has no affinity', () => {
    const ctx = ctxOf([cluster('m1'), cluster('m2'), cluster('m3')]);
    const named = remedy('a', { clusterAffinity: { clusterNames: ['m2'] } });
    expect(clustersOfRemedy(ctx.reader, [named as never])).toEqual([keyOf('m2')]);
    expect(clustersOfRemedy(ctx.reader, [named as never, remedy('a', {}) as never]).sort()).toEqual([keyOf('m1'), keyOf('m2'), keyOf('m3')]);
  });

  it('is one of the core controllers, named as Karmada names it in --controllers', () => {
    expect(coreControllers(withCoreDefaults({ skippedPropagatingNamespaces: [] })).map((c) => c.name)).toContain(REMEDY_CONTROLLER);
    expect(REMEDY_CONTROLLER).toBe('remedy');
  });
});
