// The interpreter-health reconciler (src/core/interpreter-health.ts): a RIC's ScriptsHealthy condition and
// Events from the interpreter's failure records.
import { describe, expect, it } from 'vitest';
import { INTERPRETER_HEALTH, reconcileInterpreterHealth } from '../../src/core/interpreter-health.js';
import { coreControllers } from '../../src/core/controllers.js';
import { RIC } from '../../src/core/kinds.js';
import { refKey, type KObject } from '../../src/core/object.js';
import { narrow } from '../typed-reader.js';
import type { Interpreter, ReconcileContext, ScriptHealth } from '../../src/core/ports.js';

const NOW = new Date('2026-12-01T10:00:00Z');
const KEY = refKey({ ...RIC, name: 'hostile' });
const TIMEOUT: ScriptHealth = {
  failures: [{ operation: 'InterpretHealth', apiVersion: 'apps/v1', kind: 'Deployment', failure: 'timeout', message: 'InterpretHealth: script exceeded its 1s budget', failures: 2 }],
  succeeded: false,
};

function ric(conditions?: unknown[]): KObject {
  return { ...RIC, metadata: { name: 'hostile', generation: 3, resourceVersion: '7' }, spec: { target: { apiVersion: 'apps/v1', kind: 'Deployment' } }, ...(conditions ? { status: { conditions } } : {}) };
}

function ctx(obj: KObject | undefined, health: ScriptHealth | undefined): ReconcileContext {
  const interpreter = { scriptHealth: health ? () => health : undefined } as unknown as Interpreter;
  return { reader: { get: (t) => narrow(t, obj), list: () => [], types: () => [] }, now: NOW, interpreter, schedule: undefined as never, options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [] } };
}

describe('interpreter-health', () => {
  it('sets ScriptsHealthy=False with the failing operation, kind and error, and a Warning Event on the RIC', () => {
    const r = reconcileInterpreterHealth(ctx(ric(), TIMEOUT), KEY);
    const message = 'InterpretHealth for apps/v1, Kind=Deployment failed: InterpretHealth: script exceeded its 1s budget';
    expect(r.writes).toEqual([
      {
        op: 'updateStatus',
        object: { ...ric(), status: { conditions: [{ type: 'ScriptsHealthy', status: 'False', reason: 'ScriptTimeout', message, observedGeneration: 3, lastTransitionTime: '2026-12-01T10:00:00Z' }] } },
      },
    ]);
    expect(r.events).toMatchObject([{ involvedObject: { ...RIC, name: 'hostile' }, type: 'Warning', reason: 'ScriptTimeout', message, source: 'interpreter-health-controller' }]);
  });

  it('writes nothing when the condition already says so', () => {
    const first = reconcileInterpreterHealth(ctx(ric(), TIMEOUT), KEY);
    const stored = first.writes[0]!.op === 'updateStatus' ? (first.writes[0] as { object: KObject }).object : undefined;
    expect(reconcileInterpreterHealth(ctx(stored, TIMEOUT), KEY)).toEqual({ writes: [], events: [] });
  });

  it('names the costliest failure as the reason when several operations fail', () => {
    const h: ScriptHealth = { failures: [{ ...TIMEOUT.failures[0]!, operation: 'InterpretReplica', failure: 'error', message: 'boom' }, TIMEOUT.failures[0]!], succeeded: false };
    const r = reconcileInterpreterHealth(ctx(ric(), h), KEY);
    const cond = ((r.writes[0] as { object: KObject }).object.status!.conditions as Array<Record<string, unknown>>)[0]!;
    expect(cond.reason).toBe('ScriptTimeout');
    expect(cond.message).toContain('InterpretReplica for apps/v1, Kind=Deployment failed: boom; InterpretHealth');
  });

  it('keeps the beginning and the end of a long error (where a cut message notes its whole size), the whole message within the bound', () => {
    const huge = `<string>:2: ${'0'.repeat(4096)}... [message cut to its first 4096 of 12000000 bytes]`;
    const failures = (['InterpretStatus', 'InterpretHealth', 'InterpretReplica', 'Retain', 'AggregateStatus'] as const).map((operation) => ({ ...TIMEOUT.failures[0]!, operation, failure: 'error' as const, message: huge }));
    const r = reconcileInterpreterHealth(ctx(ric(), { failures, succeeded: false }), KEY);
    const cond = ((r.writes[0] as { object: KObject }).object.status!.conditions as Array<Record<string, unknown>>)[0]!;
    const message = String(cond.message);
    expect(message.startsWith(`InterpretStatus for apps/v1, Kind=Deployment failed: <string>:2: ${'0'.repeat(1000)}`)).toBe(true);
    expect(message).toContain('... [message cut to its first 4096 of 12000000 bytes]; InterpretHealth for');
    expect(message.length).toBeLessThanOrEqual(4096 + 3);
    expect(r.events[0]!.message).toBe(message);
  });

  it('turns the condition True with a Normal Event once a script of the RIC has run again, and leaves it while nothing ran', () => {
    const failing = [{ type: 'ScriptsHealthy', status: 'False', reason: 'ScriptTimeout', message: 'x', lastTransitionTime: '2026-12-01T09:00:00Z', observedGeneration: 3 }];
    expect(reconcileInterpreterHealth(ctx(ric(failing), { failures: [], succeeded: false }), KEY)).toEqual({ writes: [], events: [] });
    const r = reconcileInterpreterHealth(ctx(ric(failing), { failures: [], succeeded: true }), KEY);
    const cond = ((r.writes[0] as { object: KObject }).object.status!.conditions as Array<Record<string, unknown>>)[0]!;
    expect(cond).toMatchObject({ status: 'True', reason: 'ScriptsSucceeded', lastTransitionTime: '2026-12-01T10:00:00Z' });
    expect(r.events).toMatchObject([{ type: 'Normal', reason: 'ScriptsSucceeded' }]);
  });

  it('writes nothing for a healthy RIC without the condition, a missing RIC, or an interpreter that keeps no records', () => {
    expect(reconcileInterpreterHealth(ctx(ric(), { failures: [], succeeded: true }), KEY).writes).toEqual([]);
    expect(reconcileInterpreterHealth(ctx(undefined, TIMEOUT), KEY).writes).toEqual([]);
    expect(reconcileInterpreterHealth(ctx(ric(), undefined), KEY).writes).toEqual([]);
  });

  it('is registered in coreControllers, woken by a RIC added or edited', () => {
    const spec = coreControllers({ skippedPropagatingNamespaces: [] }).find((c) => c.name === INTERPRETER_HEALTH)!;
    const reader = { get: () => undefined, list: () => [], types: () => [] };
    expect(spec.keysFor({ type: 'ADDED', object: ric() }, reader)).toEqual([KEY]);
    expect(spec.keysFor({ type: 'MODIFIED', object: ric(), old: ric() }, reader)).toEqual([]);
    expect(spec.keysFor({ type: 'MODIFIED', object: ric(), old: { ...ric(), metadata: { ...ric().metadata, generation: 2 } } }, reader)).toEqual([KEY]);
  });
});
