// End to end: two controllers without leader election (both reconcile everything) record each distinct
// event once: the Event is named after what it says, and the second replica counts on the first one's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './env.js';
import { get, prepareHost, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `events-e2e-${Date.now().toString(36)}`;
const NAMES = Array.from({ length: 6 }, (_, i) => `dup-${i}`);

describe('karmada-lite controller: two replicas without leader election', () => {
  const host = rest('host');
  let a: Proc | undefined;
  let b: Proc | undefined;

  beforeAll(async () => {
    await prepareHost(host, NS);
    // --leader-elect is off by default: both replicas act.
    [a, b] = await Promise.all([startController(), startController()]);
  }, scaled(180_000));

  afterAll(async () => {
    if (!a || a.child.exitCode !== null) a = await startController().catch(() => undefined);
    await removeDeployments(NS, NAMES);
    for (const p of [a, b]) {
      const code = await stopController(p);
      if (p && code !== 0 && code !== null) console.error(p.logs.slice(-30).join('\n'));
    }
  });

  it('each distinct event appears once, whichever replica wrote it (its count may be more than 1)', async () => {
    for (const name of NAMES) {
      await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
        body: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name, namespace: NS }, spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name }], placement: { clusterAffinity: { clusterNames: ['member1', 'member2'] } } } },
      });
      await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
        body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: NS }, spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } } },
      });
    }
    for (const m of ['member1', 'member2'] as const) {
      for (const name of NAMES) await waitFor(`${name} on ${m}`, () => get(rest(m), `/apis/apps/v1/namespaces/${NS}/deployments/${name}`));
    }
    // The end of the pipeline: each binding reports both Works applied. A graceful stop then writes the last events.
    for (const name of NAMES) {
      await waitFor(`${name}'s binding aggregated`, async () => {
        const rb = await get(host, `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${name}-deployment`);
        const agg = (rb?.status?.aggregatedStatus ?? []) as any[];
        return agg.length === 2 && agg.every((x) => x.applied) ? true : undefined;
      });
    }
    // This suite's Works (their events are in the execution namespaces, beside other suites' ones).
    const works = new Set<string>();
    for (const ns of ['karmada-es-member1', 'karmada-es-member2']) {
      for (const w of (await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/${ns}/works`)).items) {
        if (w.spec?.workload?.manifests?.some((m: any) => m.metadata?.namespace === NS)) works.add(`${ns}/${w.metadata.name}`);
      }
    }
    expect(works.size).toBe(NAMES.length * 2);
    await Promise.all([stopController(a), stopController(b)]);
    a = undefined;
    b = undefined;

    const events: any[] = [];
    for (const ns of [NS, 'karmada-es-member1', 'karmada-es-member2']) {
      const list = await host.request('GET', `/api/v1/namespaces/${ns}/events`);
      events.push(...list.items.filter((e: any) => e.source?.component === 'karmada-lite-controller' && (e.involvedObject?.namespace === NS || works.has(`${e.involvedObject?.namespace}/${e.involvedObject?.name}`))));
    }
    expect(events.length).toBeGreaterThan(NAMES.length);
    const byKey = new Map<string, any[]>();
    for (const e of events) {
      const io = e.involvedObject;
      const k = [io.kind, io.namespace, io.name, io.uid ?? '', e.type, e.reason, e.message].join(' | ');
      byKey.set(k, [...(byKey.get(k) ?? []), e]);
    }
    const duplicated = [...byKey].filter(([, es]) => es.length > 1).map(([k, es]) => `${es.length}x ${k}`);
    expect(duplicated, `${duplicated.length} of ${byKey.size} distinct events were written more than once`).toEqual([]);
  });
});
