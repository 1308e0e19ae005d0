import { describe, expect, it } from 'vitest';
import { actionLogger, actionsOf } from '../../src/runtime/action-log.js';
import { createLogger } from '../../src/runtime/log.js';
import { Runner } from '../../src/runtime/runner.js';
import { EmbeddedStore } from '../../src/store/embedded.js';
import type { ControllerSpec } from '../../src/core/ports.js';
import { refKey, refOf, parseRefKey, type KObject } from '../../src/core/object.js';

const ctx = () => ({ interpreter: {} as never, schedule: (() => ({})) as never, options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [] } });

const deployment = (labels: Record<string, string> = { 'work.karmada.io/permanent-id': 'w1' }): KObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'nginx', namespace: 'default', labels },
});

const work = (suspend: boolean): KObject => ({
  apiVersion: 'work.karmada.io/v1alpha1',
  kind: 'Work',
  metadata: { name: 'nginx-687f7fb96f', namespace: 'karmada-es-member1' },
  spec: { suspendDispatching: suspend, workload: { manifests: [deployment()] } },
});

const binding = (spec: Record<string, unknown>): KObject => ({
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name: 'nginx-deployment', namespace: 'default' },
  spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' }, ...spec },
});

describe('the action log', () => {
  it('tells a member object applied (propagated), left behind without Karmada marks (preserved) and deleted (removed)', () => {
    expect(actionsOf('execution', { op: 'create', object: deployment(), cluster: 'member1' }, undefined)).toEqual([
      { action: 'propagated', template: 'Deployment default/nginx', cluster: 'member1', controller: 'execution' },
    ]);
    expect(actionsOf('execution', { op: 'update', object: deployment({ app: 'nginx' }), cluster: 'member1' }, deployment())[0]!.action).toBe('preserved');
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' };
    expect(actionsOf('execution', { op: 'delete', ref, cluster: 'member2' }, deployment())).toEqual([{ action: 'removed', template: 'Deployment default/nginx', cluster: 'member2', controller: 'execution' }]);
    // A delete of what was not there changed nothing; a member status write is bookkeeping.
    expect(actionsOf('execution', { op: 'delete', ref, cluster: 'member2' }, undefined)).toEqual([]);
    expect(actionsOf('execution', { op: 'updateStatus', object: deployment(), cluster: 'member1' }, deployment())).toEqual([]);
  });

  it('tells dispatching to a cluster suspended and resumed, from the Work', () => {
    expect(actionsOf('binding', { op: 'update', object: work(true) }, work(false))).toEqual([{ action: 'suspended', template: 'Deployment default/nginx', cluster: 'member1', controller: 'binding' }]);
    expect(actionsOf('binding', { op: 'update', object: work(false) }, work(true))[0]!.action).toBe('resumed');
    expect(actionsOf('binding', { op: 'update', object: work(false) }, work(false))).toEqual([]);
    expect(actionsOf('binding', { op: 'create', object: work(false) }, undefined)).toEqual([]);
    expect(actionsOf('binding', { op: 'create', object: work(true) }, undefined)[0]!.action).toBe('suspended');
  });

  it('tells evictions and failovers from new eviction tasks, and placements from the binding', () => {
    const before = binding({ clusters: [{ name: 'member1', replicas: 2 }] });
    const failedOver = binding({
      clusters: [{ name: 'member2', replicas: 2 }],
      gracefulEvictionTasks: [{ fromCluster: 'member1', reason: 'ApplicationFailure', producer: 'resource-binding-application-failover-controller', preservedLabelState: { 'app.example/leader': 'a' } }],
    });
    expect(actionsOf('application-failover', { op: 'update', object: failedOver }, before)).toEqual([
      { action: 'failed over', template: 'Deployment default/nginx', cluster: 'member1', controller: 'application-failover', reason: 'ApplicationFailure', preserved: ['app.example/leader'] },
      { action: 'scheduled', template: 'Deployment default/nginx', cluster: 'member2', controller: 'application-failover' },
    ]);
    const evicted = binding({ gracefulEvictionTasks: [{ fromCluster: 'member1', reason: 'TaintUntolerated' }] });
    expect(actionsOf('taint-manager', { op: 'update', object: evicted }, before)).toEqual([
      { action: 'evicted', template: 'Deployment default/nginx', cluster: 'member1', controller: 'taint-manager', reason: 'TaintUntolerated' },
    ]);
    // An eviction task already there is not told again.
    expect(actionsOf('taint-manager', { op: 'update', object: evicted }, evicted)).toEqual([]);
    expect(actionsOf('binding-status', { op: 'updateStatus', object: evicted }, evicted)).toEqual([]);
  });

  it('is one info line per action, from what the runner applied and what it replaced', () => {
    const now = new Date(0);
    const store = new EmbeddedStore({ clock: () => now });
    // Suspends every Work it sees: the runner reads the Work as it was before the write for the log.
    const suspender: ControllerSpec = {
      name: 'binding',
      keysFor: (c) => (c.object.kind === 'Work' && c.type !== 'DELETED' ? [refKey(refOf(c.object))] : []),
      reconcile: (cx, key) => {
        const r = parseRefKey(key);
        const w = cx.reader.get(r, r.namespace, r.name)!;
        if (w.spec?.suspendDispatching === true) return { writes: [], events: [] };
        return { writes: [{ op: 'update', object: { ...w, spec: { ...w.spec, suspendDispatching: true } } }], events: [] };
      },
    };
    const lines: Array<Record<string, unknown>> = [];
    const log = createLogger({ write: (l) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
    const runner = new Runner(store, [suspender], { clock: () => now, context: ctx, onWrite: actionLogger(log) });
    runner.start();
    store.create(work(false));
    runner.runUntilIdle();
    expect(lines).toEqual([expect.objectContaining({ level: 'info', msg: 'suspended', template: 'Deployment default/nginx', cluster: 'member1', controller: 'binding' })]);
  });
});
