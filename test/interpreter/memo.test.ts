import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocuments } from '../../src/io/documents.js';
import { toTestCase } from '../../src/interpreter/harness.js';
import { createInterpreter } from '../../src/interpreter/interpreter.js';
import { OperationMemo } from '../../src/interpreter/memo.js';
import type { KubeObject, RIC } from '../../src/interpreter/types.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A memo around a JS "script"; `runs` counts the times the script really ran. */
function memoOf<T>(script: (o: Obj) => T, opts: { trialMisses?: number; maxResults?: number } = {}) {
  const memo = new OperationMemo<T>(opts);
  const counter = { runs: 0, pure: true };
  const call = (o: unknown) =>
    memo.call(o, (arg) => {
      counter.runs++;
      return { value: script(arg as Obj), pure: counter.pure };
    });
  return { memo, call, counter };
}

describe('OperationMemo', () => {
  it('answers from memory when the fields the script read are the same, whatever else differs', () => {
    const { call, counter, memo } = memoOf((o) => ({ ready: o.status.ready, of: o.status.replicas }));
    expect(call({ metadata: { name: 'a' }, status: { ready: 1, replicas: 2, conditions: [{ t: 'x' }] } })).toEqual({ ready: 1, of: 2 });
    expect(call({ metadata: { name: 'b' }, status: { ready: 1, replicas: 2, conditions: [] } })).toEqual({ ready: 1, of: 2 });
    expect(counter.runs).toBe(1);
    expect(call({ metadata: { name: 'c' }, status: { ready: 2, replicas: 2 } })).toEqual({ ready: 2, of: 2 });
    expect(counter.runs).toBe(2);
    expect(memo.stats).toMatchObject({ hits: 1, misses: 2, results: 2 });
  });

  it('follows the reads a script makes after a branch, and tells 1 from "1", null from absent, and objects from arrays', () => {
    const script = (o: Obj) => (o.kind === 'A' ? `a:${o.a}` : `b:${Array.isArray(o.b) ? 'list' : typeof o.b}:${o.b === null ? 'null' : 'set'}`);
    const { call, counter } = memoOf(script);
    const inputs: Obj[] = [{ kind: 'A', a: 1 }, { kind: 'A', a: '1' }, { kind: 'B', a: 1, b: null }, { kind: 'B' }, { kind: 'B', b: [] }, { kind: 'B', b: {} }, { kind: 'A', a: 1, b: 7 }];
    const fresh = inputs.map(script);
    expect(inputs.map(call)).toEqual(fresh);
    expect(inputs.map(call)).toEqual(fresh);
    // Every input but the last needed a run of its own; the second round came from memory.
    expect(counter.runs).toBe(6);
  });

  it('depends on the whole key list of an object the script iterated', () => {
    const { call, counter } = memoOf((o) => Object.keys(o.labels).length);
    expect(call({ labels: { a: '1' } })).toBe(1);
    expect(call({ labels: { a: '2' } })).toBe(1);
    expect(call({ labels: { a: '1', b: '2' } })).toBe(2);
    expect(counter.runs).toBe(2);
  });

  it('reads through arrays element by element', () => {
    const { call, counter } = memoOf((o) => o.items.map((i: Obj) => i.n).join(','));
    expect(call({ items: [{ n: 1, x: 'a' }, { n: 2 }] })).toBe('1,2');
    expect(call({ items: [{ n: 1, x: 'b' }, { n: 2, y: 3 }] })).toBe('1,2');
    expect(call({ items: [{ n: 1 }, { n: 2 }, { n: 3 }] })).toBe('1,2,3');
    expect(counter.runs).toBe(2);
  });

  it('records reads of frozen objects (the store freezes what it holds)', () => {
    const { call, counter } = memoOf((o) => ({ n: o.spec.n, keys: Object.keys(o.spec), list: o.list.map((x: Obj) => x.v), has: 'n' in o.spec, own: Object.prototype.hasOwnProperty.call(o.spec, 'm') }));
    const frozen = (n: number) => {
      const list = Object.freeze([Object.freeze({ v: 1 }), Object.freeze({ v: 2 })]);
      return Object.freeze({ spec: Object.freeze({ n }), list, name: `x${n}` });
    };
    expect(call(frozen(1))).toEqual({ n: 1, keys: ['n'], list: [1, 2], has: true, own: false });
    expect(call(frozen(1))).toEqual({ n: 1, keys: ['n'], list: [1, 2], has: true, own: false });
    expect(call(frozen(2))).toEqual({ n: 2, keys: ['n'], list: [1, 2], has: true, own: false });
    expect(counter.runs).toBe(2);
  });

  it('gives every caller its own copy of a remembered result', () => {
    const { call } = memoOf((o) => ({ n: o.n, list: [o.n] }));
    const first = call({ n: 1 });
    first.list.push(99);
    const second = call({ n: 1 });
    expect(second).toEqual({ n: 1, list: [1] });
    expect(call({ n: 1 })).not.toBe(second);
  });

  it('does not remember impure calls, calls that wrote to their argument, or failures', () => {
    const impure = memoOf((o) => o.n);
    impure.counter.pure = false;
    impure.call({ n: 1 });
    impure.call({ n: 1 });
    expect(impure.counter.runs).toBe(2);
    expect(impure.memo.stats.unremembered).toBe(2);

    const writer = memoOf((o) => {
      o.seen = true;
      return o.n;
    });
    writer.call({ n: 1 });
    writer.call({ n: 1 });
    expect(writer.counter.runs).toBe(2);

    let fail = true;
    const failing = memoOf((o) => {
      if (fail) throw new Error(`bad ${o.n}`);
      return o.n;
    });
    expect(() => failing.call({ n: 1 })).toThrow('bad 1');
    fail = false;
    expect(failing.call({ n: 1 })).toBe(1);
    expect(failing.counter.runs).toBe(2);
  });

  it('turns itself off when it misses more than it hits, and starts over when full', () => {
    const perObject = memoOf((o) => o.name, { trialMisses: 10 });
    for (let i = 0; i < 30; i++) expect(perObject.call({ name: `n${i % 15}` })).toBe(`n${i % 15}`);
    expect(perObject.memo.active).toBe(false);
    expect(perObject.memo.stats.misses).toBe(10);
    expect(perObject.memo.stats.results).toBe(0);
    expect(perObject.counter.runs).toBe(30);

    const small = memoOf((o) => o.n, { maxResults: 3, trialMisses: 1000 });
    for (const n of [1, 2, 3, 4]) small.call({ n });
    expect(small.memo.stats.results).toBe(1);
    small.call({ n: 4 });
    expect(small.counter.runs).toBe(4);
  });
});

describe('the interpreter with memoize', () => {
  const deployment = (i: number, status: Obj | undefined, extra: Obj = {}): KubeObject =>
    ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: `d${i}`, namespace: 'ns', generation: extra.generation ?? 2, labels: { app: `d${i}` }, annotations: { 'resourcetemplate.karmada.io/generation': extra.tg ?? '2' } },
      spec: { replicas: extra.replicas ?? 3, template: { metadata: { labels: { app: `d${i}` } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m' } } }] } } },
      ...(status ? { status } : {}),
    }) as KubeObject;

  it('answers the built-in Deployment interpreter exactly as without it, errors included, on varied objects', () => {
    const plain = createInterpreter();
    const memo = createInterpreter({ memoize: true });
    const pick = <T>(xs: readonly T[], i: number) => xs[i % xs.length]!;
    const outcome = (f: () => unknown) => {
      try {
        return { ok: f() };
      } catch (e) {
        return { error: (e as Error).message };
      }
    };
    for (let i = 0; i < 600; i++) {
      const status =
        i % 37 === 0
          ? undefined
          : {
              // Twelve kinds of status, all but the counters differing per object.
              observedGeneration: pick([2, 1, 2, 2], i % 12),
              replicas: pick([3, 3, 2, 0], i % 12),
              updatedReplicas: pick([3, 1, 3], i % 12),
              readyReplicas: pick([3, 2, 3, 3, 'x', 3], i % 12),
              availableReplicas: pick([3, 3, 1], i % 12),
              ...(i % 12 === 5 ? { unavailableReplicas: 1 } : {}),
              conditions: [{ type: 'Available', status: 'True', lastUpdateTime: `2024-01-01T00:00:${String(i % 60).padStart(2, '0')}Z` }],
            };
      const obj = deployment(i, status, { generation: pick([2, 2, 3], i % 4), tg: pick(['2', '2', '7', 'bad'], i % 4), replicas: pick([3, 2], i % 4) });
      expect(outcome(() => memo.reflectStatus(obj)), `reflectStatus #${i}`).toEqual(outcome(() => plain.reflectStatus(obj)));
      expect(outcome(() => memo.interpretHealth(obj)), `interpretHealth #${i}`).toEqual(outcome(() => plain.interpretHealth(obj)));
      expect(outcome(() => memo.getReplicas(obj)), `getReplicas #${i}`).toEqual(outcome(() => plain.getReplicas(obj)));
    }
    const stats = memo.memoStats();
    // Twelve kinds of status: every answer but the first of each kind and the failures (not remembered) came from memory.
    expect(stats.InterpretStatus.hits).toBeGreaterThan(300);
    expect(stats.InterpretHealth.hits).toBeGreaterThan(500);
    expect(plain.memoStats().InterpretStatus.hits).toBe(0);
  });

  it('never remembers a script that reads the clock', () => {
    let now = 1_700_000_000_000;
    const ric: RIC = {
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterCustomization',
      metadata: { name: 'clock' },
      spec: {
        target: { apiVersion: 'example.io/v1', kind: 'Widget' },
        customizations: { statusReflection: { luaScript: 'function ReflectStatus(o) return {at = os.time(), n = o.status.n} end' } },
      },
    };
    const interp = createInterpreter({ customizations: [ric], builtin: false, memoize: true, nowMs: () => now });
    const widget = { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' }, status: { n: 1 } } as KubeObject;
    expect(interp.reflectStatus(widget)).toEqual({ at: 1_700_000_000, n: 1 });
    now += 5000;
    expect(interp.reflectStatus(widget)).toEqual({ at: 1_700_000_005, n: 1 });
    expect(interp.memoStats().InterpretStatus).toMatchObject({ hits: 0, unremembered: 2 });
  });

  it('starts with an empty memo when a RIC replaces the script', () => {
    const ric = (n: number): RIC => ({
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterCustomization',
      metadata: { name: 'health' },
      spec: { target: { apiVersion: 'example.io/v1', kind: 'Widget' }, customizations: { healthInterpretation: { luaScript: `function InterpretHealth(o) return o.status.n == ${n} end` } } },
    });
    const interp = createInterpreter({ customizations: [ric(1)], builtin: false, memoize: true });
    const widget = { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' }, status: { n: 1 } } as KubeObject;
    expect(interp.interpretHealth(widget)).toBe(true);
    expect(interp.interpretHealth(widget)).toBe(true);
    interp.setCustomizations([ric(2)]);
    expect(interp.interpretHealth(widget)).toBe(false);
  });
});

describe('aggregatedStatus (the status alone, as the controllers use AggregateStatus)', () => {
  /** Every AggregateStatus case of the built-in interpreter fixtures. */
  function aggregateCases(): Array<{ title: string; obj: KubeObject; items: unknown }> {
    const out: Array<{ title: string; obj: KubeObject; items: unknown }> = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const full = join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else if (dir.endsWith('testdata') && /\.ya?ml$/.test(e.name)) {
          for (const doc of parseDocuments(readFileSync(full, 'utf8'), full)) {
            const tc = toTestCase(doc.object);
            if (String(tc.operation) !== 'AggregateStatus' || !tc.desiredObj) continue;
            out.push({ title: `${full}: ${tc.name}`, obj: tc.desiredObj, items: tc.statusItems ?? null });
          }
        }
      }
    };
    walk('conformance/interpreters');
    return out;
  }

  it('is the status of the whole result, error for error, on every built-in fixture, with and without the memo', () => {
    const cases = aggregateCases();
    expect(cases.length).toBeGreaterThan(10);
    // One instant for every call: the Job script stamps conditions with the clock, and two calls may straddle a second.
    const nowMs = () => Date.parse('2026-01-01T00:00:00Z');
    const whole = createInterpreter({ nowMs });
    const memo = createInterpreter({ memoize: true, nowMs });
    const outcome = (f: () => unknown) => {
      try {
        return { ok: f() };
      } catch (e) {
        return { error: (e as Error).message };
      }
    };
    for (let round = 0; round < 2; round++) {
      for (const c of cases) {
        const expected = outcome(() => (whole.aggregateStatus(c.obj, c.items as never) as Obj).status);
        expect(outcome(() => whole.aggregatedStatus(c.obj, c.items as never)), c.title).toEqual(expected);
        expect(outcome(() => memo.aggregatedStatus(c.obj, c.items as never)), c.title).toEqual(expected);
      }
    }
    expect(memo.memoStats().AggregateStatus.hits).toBeGreaterThan(0);
  });

  it('answers templates that differ only outside what the script reads from memory', () => {
    const memo = createInterpreter({ memoize: true });
    const items = Array.from({ length: 3 }, (_, c) => ({ clusterName: `m${c}`, applied: true, health: 'Healthy' as const, status: { replicas: 1, readyReplicas: 1, updatedReplicas: 1, availableReplicas: 1, observedGeneration: 1, generation: 1, resourceTemplateGeneration: 1 } }));
    const tpl = (i: number) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: `d${i}`, namespace: 'ns', generation: 1, labels: { app: `d${i}` } }, spec: { replicas: 3 } }) as KubeObject;
    const first = memo.aggregatedStatus(tpl(0), items);
    expect(first).toMatchObject({ replicas: 3, readyReplicas: 3, observedGeneration: 1 });
    for (let i = 1; i < 20; i++) expect(memo.aggregatedStatus(tpl(i), items)).toEqual(first);
    expect(memo.memoStats().AggregateStatus).toMatchObject({ hits: 19, misses: 1 });
  });
});
