// The status lane of the host client's bucket (README differs 87), through the controller's store against the
// real host apiserver: a write of a status reporter that queues before the propagation's writes reaches the
// server behind them, but for its share of the tokens; the order is read off the resourceVersions the server gave.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KObject } from '../../src/core/object.js';
import { STATUS_SHARE } from '../../src/kube/rate-limiter.js';
import { KubeStore } from '../../src/kube/store.js';
import { createLogger } from '../../src/runtime/log.js';
import { kubeConfig } from './env.js';
import { rest } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `status-lane-${Date.now().toString(36)}`;
const host = rest('host');
let store: KubeStore | undefined;

const configMap = (name: string): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { name } });

describe('the status lane of the host bucket', () => {
  beforeAll(async () => {
    // 5 a second and a bucket of one: the writes below are sent 200 ms apart, in the order the bucket hands out
    // tokens. The store is not started: no informer or probe of its own takes a token meanwhile.
    store = new KubeStore({ host: kubeConfig('host'), log: createLogger({ level: 'error' }), clientLimits: { host: { qps: 5, burst: 1 } }, statusReporters: new Set(['work-status']) });
    await store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, undefined, 'test');
    // The ConfigMaps' path is discovered once here: every create below takes the same steps to its token.
    await store.create(configMap('warm-up'), undefined, 'test');
  }, scaled(120_000));

  afterAll(async () => {
    await host.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
  });

  it("sends a status reporter's write behind the propagation's queued after it, one token in STATUS_SHARE", async () => {
    expect(STATUS_SHARE).toBe(4);
    const s = store!;
    const names = ['b0', 's1', 'n1', 'n2', 'n3', 'n4', 'n5'];
    const written = await Promise.all(names.map((n) => s.create(configMap(n), undefined, n === 's1' ? 'work-status' : 'detector')));
    const rv = Object.fromEntries(names.map((n, i) => [n, Number(written[i]!.metadata.resourceVersion)]));
    // The normal writes keep their order.
    const normal = names.filter((n) => n !== 's1');
    expect([...normal].sort((a, b) => rv[a]! - rv[b]!)).toEqual(normal);
    // b0 may have found the token there; either way s1 waits out three normal grants (n2 is always among them,
    // and with b0 queued, n3 is not), then gets the fourth token, ahead of the last ones queued.
    expect(rv.s1).toBeGreaterThan(rv.n2!);
    expect(rv.s1).toBeLessThan(rv.n4!);
  }, scaled(60_000));
});
