import { afterAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { Metrics } from '../../src/runtime/metrics.js';
import { startProbeServer } from '../../src/runtime/http.js';

describe('metrics and probes', () => {
  const metrics = new Metrics();
  let ready = false;
  const serverP = startProbeServer({ port: 0, bindAddress: '127.0.0.1', metrics, healthy: () => true, ready: () => ready });
  afterAll(async () => (await serverP).close());
  const get = async (path: string) => {
    const port = ((await serverP).address() as AddressInfo).port;
    const r = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: r.status, text: await r.text() };
  };

  it('counts reconciles and errors per controller, with latency', async () => {
    await metrics.observeReconcile('binding', () => 1);
    await expect(metrics.observeReconcile('binding', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const { text } = await get('/metrics');
    expect(text).toContain('controller_runtime_reconcile_total{controller="binding",result="success"} 1');
    expect(text).toContain('controller_runtime_reconcile_total{controller="binding",result="error"} 1');
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="binding"} 1');
    expect(text).toMatch(/controller_runtime_reconcile_time_seconds_count\{controller="binding"\} 2/);
  });

  it('reports cluster readiness and interpreter calls', async () => {
    metrics.setClusterReadiness({ member1: true, member2: false });
    metrics.observeInterpreter('InterpretHealth', 0.0001, true);
    const { text } = await get('/metrics');
    expect(text).toContain('karmada_lite_clusters{ready="true"} 1');
    expect(text).toContain('karmada_lite_clusters{ready="false"} 1');
    expect(text).toContain('karmada_lite_cluster_ready{cluster="member2"} 0');
    expect(text).toContain('karmada_lite_interpreter_calls_total{operation="InterpretHealth",result="success"} 1');
  });

  it('answers readiness from the callback', async () => {
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/readyz')).status).toBe(503);
    ready = true;
    expect((await get('/readyz')).status).toBe(200);
    expect((await get('/nope')).status).toBe(404);
  });
});
