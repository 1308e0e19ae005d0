// Health checks (--health-checks) and library RICs (--interpreters) are user code: in the controller they
// run in the interpreter worker pool, as the cluster's RICs do (src/interpreter/pool*.ts).
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadHealthChecks } from '../../src/interpreter/argocd-health.js';
import { createInterpreter } from '../../src/interpreter/interpreter.js';
import { loadLibrary } from '../../src/interpreter/library.js';
import { createPooledInterpreter, InterpreterPendingError, type PooledInterpreter } from '../../src/interpreter/pool-interpreter.js';
import { InterpreterPool } from '../../src/interpreter/pool.js';
import { interpreterPort } from '../../src/store/control-plane.js';
import type { KObject } from '../../src/core/object.js';

const pools: InterpreterPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

/** Calls `f` until it stops throwing InterpreterPendingError, waiting for the pool between tries. */
async function settled<T>(p: PooledInterpreter, f: () => T): Promise<{ value: T; pending: number }> {
  for (let pending = 0; ; pending++) {
    p.begin();
    try {
      return { value: f(), pending };
    } catch (e) {
      if (!(e instanceof InterpreterPendingError)) throw e;
    } finally {
      const wait = p.end();
      if (wait) await wait;
    }
  }
}

function setup(budgetMs?: number) {
  const healthChecks = loadHealthChecks([join(import.meta.dirname, '../../conformance/argocd-health')]).checks;
  const library = loadLibrary([join(import.meta.dirname, '../../conformance/interpreter-library')]).rics;
  const real = createInterpreter({ healthChecks, library, memoize: true });
  const pool = new InterpreterPool({ size: 1, budgetMs, libraries: { healthChecks, library } });
  pools.push(pool);
  return createPooledInterpreter({ real, local: interpreterPort(real), pool, library });
}

const o = (apiVersion: string, kind: string, extra: Record<string, unknown> = {}): KObject => ({ apiVersion, kind, metadata: { name: 'x', namespace: 'default' }, ...extra });

describe('health checks in the worker pool', () => {
  it('runs a health check in a worker and answers with its status and message', async () => {
    const p = setup();
    const r = await settled(p, () => p.healthDetail!(o('db.example.com/v1', 'Database', { status: { phase: 'Failed', reason: 'disk full' } })));
    expect(r.pending).toBe(1);
    expect(r.value).toEqual({ health: 'Unhealthy', message: 'disk full' });
    // Remembered: the next reconcile has its answer at once.
    expect(p.healthDetail!(o('db.example.com/v1', 'Database', { status: { phase: 'Failed', reason: 'disk full' } }))).toEqual({ health: 'Unhealthy', message: 'disk full' });
  });

  it('a looping health check fails on the budget in the worker, not on this thread', async () => {
    const p = setup(50);
    const r = await settled(p, () => p.healthDetail!(o('loops.example.com/v1', 'Spin')));
    expect(r.pending).toBe(1);
    expect(r.value).toEqual({ health: 'Unknown', error: expect.stringMatching(/loops\.example\.com\/Spin\/health\.lua: .*budget/) });
  });

  it('library RICs run in the workers too; built-in layers stay in-process', async () => {
    const p = setup();
    const gadget = o('example.com/v1', 'Gadget', { spec: { size: 5 } });
    const r = await settled(p, () => p.getReplicas(gadget));
    expect(r).toEqual({ value: { replicas: 5, replicaRequirements: null }, pending: 1 });
    const d = o('apps/v1', 'Deployment', { spec: { replicas: 3, template: { spec: { containers: [] } } } });
    expect(p.getReplicas(d).replicas).toBe(3);
  });

  it('kinds the health checks do not cover leave healthDetail to interpretHealth', () => {
    const p = setup();
    expect(p.healthDetail!(o('example.com/v1', 'Gadget'))).toBeUndefined();
  });
});
