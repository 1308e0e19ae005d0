/**
 * Property tests (fast-check) for the invariants the scheduler must keep whatever the input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { schedule } from '../../src/scheduler/scheduler.js';
import { allocateWebsterSeats, fnv1a32, tieBreakerFor, type Party } from '../../src/scheduler/webster.js';
import { compareClusters, sortByRank, type ClusterDetail } from '../../src/scheduler/spread.js';
import { sortByReplicasDesc } from '../../src/scheduler/division.js';
import { parseSummary } from '../../src/scheduler/available.js';
import { parseQuantity } from '../../src/quantity/quantity.js';
import type { Placement, TargetCluster } from '../../src/scheduler/types.js';
import { binding, cluster, type CompactCluster } from './fixtures.js';

const NOW = new Date('2024-06-01T12:00:00Z');
const RUNS = { numRuns: 300 };

const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `c${i}`);

const strategies: Record<string, Placement['replicaScheduling']> = {
  duplicated: { replicaSchedulingType: 'Duplicated' },
  static: {
    replicaSchedulingType: 'Divided',
    replicaDivisionPreference: 'Weighted',
    weightPreference: {
      staticWeightList: [
        { targetCluster: { clusterNames: ['c0', 'c1'] }, weight: 3 },
        { targetCluster: { labelSelector: {} }, weight: 1 },
      ],
    },
  },
  even: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted' },
  dynamic: {
    replicaSchedulingType: 'Divided',
    replicaDivisionPreference: 'Weighted',
    weightPreference: { dynamicWeight: 'AvailableReplicas' },
  },
  aggregated: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
};

/** A random world: clusters with capacity, some excluded, tainted or under eviction, and a previous placement. */
const world = fc
  .record({
    n: fc.integer({ min: 1, max: 9 }),
    avail: fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 9, maxLength: 9 }),
    excluded: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
    tainted: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
    evicting: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
    history: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
    previous: fc.array(fc.integer({ min: -1, max: 6 }), { minLength: 9, maxLength: 9 }),
    replicas: fc.integer({ min: 1, max: 60 }),
    strategy: fc.constantFrom(...Object.keys(strategies)),
    spread: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    uid: fc.option(fc.uuid(), { nil: undefined }),
  })
  .map((w) => {
    const ns = names(w.n);
    const clusters: CompactCluster[] = ns.map((name, i) => ({
      name,
      available: w.avail[i]!,
      ...(w.tainted[i] ? { taints: [{ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' }] } : {}),
    }));
    const previous: TargetCluster[] = ns.flatMap((name, i) => (w.previous[i]! >= 0 ? [{ name, replicas: w.previous[i]! }] : []));
    const placement: Placement = {
      clusterAffinity: { exclude: ns.filter((_, i) => w.excluded[i]) },
      replicaScheduling: strategies[w.strategy],
      ...(w.spread ? { spreadConstraints: [{ spreadByField: 'cluster', minGroups: 1, maxGroups: w.spread }] } : {}),
    };
    return {
      ...w,
      ns,
      clusters,
      previous,
      placement,
      evictingNames: ns.filter((_, i) => w.evicting[i]),
      historyNames: ns.filter((_, i) => w.history[i]),
    };
  });

type World = typeof world extends fc.Arbitrary<infer T> ? T : never;

function run(w: World) {
  const b = binding({
    replicas: w.replicas,
    placement: w.placement,
    clusters: w.previous,
    uid: w.uid,
    gracefulEvictionTasks: w.evictingNames.map((c) => ({ fromCluster: c, producer: 'TaintManager', reason: 'TaintUntolerated' })),
    activeEvictionHistory: w.historyNames.map((c) => ({ clusterName: c, evictedAt: '2024-06-01T11:59:00Z' })),
  });
  return schedule(
    b,
    w.clusters.map((c) => cluster(c)),
    undefined,
    NOW,
  );
}

describe('scheduler properties', () => {
  it('assigns exactly the requested replicas, or fails with an error', () => {
    let scheduled = 0;
    fc.assert(
      fc.property(world, (w) => {
        const r = run(w);
        if (r.action === 'Failed') {
          expect(r.error?.message).toBeTruthy();
          expect(r.condition?.status).toBe('False');
          return;
        }
        expect(r.action).toBe('Scheduled');
        scheduled++;
        const got = r.clusters ?? [];
        if (w.strategy === 'duplicated') {
          expect(got.length).toBeGreaterThan(0);
          for (const t of got) expect(t.replicas).toBe(w.replicas);
        } else {
          expect(got.reduce((s, t) => s + (t.replicas ?? 0), 0)).toBe(w.replicas);
          for (const t of got) expect(t.replicas).toBeGreaterThan(0);
        }
        expect(new Set(got.map((t) => t.name)).size).toBe(got.length);
      }),
      RUNS,
    );
    // Guards against a generator that only ever produces failures.
    expect(scheduled).toBeGreaterThan(RUNS.numRuns / 4);
  });

  it('never gives replicas to excluded, newly tainted, evicting or recently evicted clusters', () => {
    fc.assert(
      fc.property(world, (w) => {
        const r = run(w);
        const got = new Set((r.clusters ?? []).map((t) => t.name));
        const previous = new Set(w.previous.map((t) => t.name));
        w.ns.forEach((name, i) => {
          if (w.excluded[i] || w.evicting[i] || w.history[i]) expect(got.has(name)).toBe(false);
          // Current targets bypass TaintToleration (Karmada keeps them where they are).
          if (w.tainted[i] && !previous.has(name)) expect(got.has(name)).toBe(false);
        });
      }),
      RUNS,
    );
  });

  it('gives the same static-weight result whatever the order of clusters and weight rules', () => {
    const arb = fc.record({
      weights: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 8 }),
      replicas: fc.integer({ min: 0, max: 100 }),
      uid: fc.option(fc.uuid(), { nil: undefined }),
      seed: fc.integer(),
    });
    fc.assert(
      fc.property(arb, ({ weights, replicas, uid, seed }) => {
        const ns = names(weights.length);
        const rules = ns.map((n, i) => ({ targetCluster: { clusterNames: [n] }, weight: weights[i]! })).filter((r) => r.weight > 0);
        const placement = (list: typeof rules): Placement => ({
          replicaScheduling: {
            replicaSchedulingType: 'Divided',
            replicaDivisionPreference: 'Weighted',
            weightPreference: { staticWeightList: list },
          },
        });
        const shuffle = <T>(xs: T[]): T[] => {
          const out = xs.slice();
          let s = seed >>> 0;
          for (let i = out.length - 1; i > 0; i--) {
            s = (Math.imul(s, 1103515245) + 12345) >>> 0;
            const j = s % (i + 1);
            [out[i], out[j]] = [out[j]!, out[i]!];
          }
          return out;
        };
        const req = { resourceRequest: { cpu: '1m' } };
        const a = schedule(
          binding({ replicas, uid, placement: placement(rules), resourceRequest: req.resourceRequest }),
          ns.map((n) => cluster(n)),
          undefined,
          NOW,
        );
        const b = schedule(
          binding({ replicas, uid, placement: placement(shuffle(rules)), resourceRequest: req.resourceRequest }),
          shuffle(ns).map((n) => cluster(n)),
          undefined,
          NOW,
        );
        expect(b.clusters).toEqual(a.clusters);
      }),
      RUNS,
    );
  });

  it('never moves an already placed replica when scaling up in steady mode', () => {
    let checked = 0;
    const arb = fc.record({
      n: fc.integer({ min: 1, max: 8 }),
      avail: fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 8, maxLength: 8 }),
      previous: fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 8, maxLength: 8 }),
      extra: fc.integer({ min: 1, max: 40 }),
      aggregated: fc.boolean(),
      uid: fc.option(fc.uuid(), { nil: undefined }),
    });
    fc.assert(
      fc.property(arb, ({ n, avail, previous, extra, aggregated, uid }) => {
        const ns = names(n);
        const prev = ns.map((name, i) => ({ name, replicas: previous[i]! })).filter((t) => t.replicas > 0);
        const sum = prev.reduce((s, t) => s + t.replicas, 0);
        const placement: Placement = { replicaScheduling: aggregated ? strategies.aggregated : strategies.dynamic };
        const b = binding({ replicas: sum + extra, placement, clusters: prev, uid, appliedPlacement: 'current' });
        const r = schedule(
          b,
          ns.map((name, i) => cluster({ name, available: avail[i]! })),
          undefined,
          NOW,
        );
        if (r.action === 'Failed') {
          expect(r.error?.kind).toBe('Unschedulable');
          return;
        }
        const got = new Map((r.clusters ?? []).map((t) => [t.name, t.replicas ?? 0]));
        for (const t of prev) expect(got.get(t.name) ?? 0).toBeGreaterThanOrEqual(t.replicas);
        if (prev.length > 0) checked++;
      }),
      RUNS,
    );
    expect(checked).toBeGreaterThan(RUNS.numRuns / 4);
  });

  it('Webster with a heap gives the sequential seat-by-seat result', () => {
    /** The textbook procedure, one seat at a time. */
    const sequential = (seats: number, parties: Party[], uid: string | undefined) => {
      const tie = tieBreakerFor(uid);
      const s = new Map(parties.map((p) => [p.name, 0]));
      for (let k = 0; k < seats; k++) {
        let best: Party | undefined;
        for (const p of parties) {
          if (!best) {
            best = p;
            continue;
          }
          const pp = p.votes / (2 * s.get(p.name)! + 1);
          const pb = best.votes / (2 * s.get(best.name)! + 1);
          if (
            pp > pb ||
            (pp === pb && (s.get(p.name)! < s.get(best.name)! || (s.get(p.name) === s.get(best.name) && tie(p.name, best.name))))
          )
            best = p;
        }
        if (best) s.set(best.name, s.get(best.name)! + 1);
      }
      return [...s].map(([name, seats]) => ({ name, seats })).sort((a, b) => (a.name < b.name ? -1 : 1));
    };
    const arb = fc.record({
      votes: fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 12 }),
      seats: fc.integer({ min: 0, max: 400 }),
      uid: fc.option(fc.uuid(), { nil: undefined }),
    });
    fc.assert(
      fc.property(arb, ({ votes, seats, uid }) => {
        const parties = votes.map((v, i) => ({ name: `p${String.fromCharCode(97 + ((i * 7) % 26))}${i}`, votes: v }));
        expect(allocateWebsterSeats(seats, parties, null, tieBreakerFor(uid))).toEqual(sequential(seats, parties, uid));
      }),
      { numRuns: 500 },
    );
  });

  it('orders clusters by rank keys exactly as the comparator does', () => {
    const arb = fc.array(
      fc.record({
        overflowOrder: fc.constantFrom(0, 1, 2, 1000),
        score: fc.constantFrom(0, 100, 37),
        available: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.constant(2147483647)),
      }),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(arb, fc.integer({ min: 0, max: 1000 }), (rows, seed) => {
        const ranks = rows.map((_, i) => i).sort((a, b) => ((a * 7919 + seed) % 101) - ((b * 7919 + seed) % 101) || a - b);
        const details: ClusterDetail[] = rows.map((r, i) => ({
          ...r,
          name: `c${String(ranks.indexOf(i)).padStart(3, '0')}`,
          allocatable: r.available,
          region: '',
          nameRank: ranks.indexOf(i),
        }));
        const a = details
          .slice()
          .sort(compareClusters)
          .map((d) => d.name);
        const b = sortByRank(details.slice(), details.length).map((d) => d.name);
        expect(b).toEqual(a);
      }),
      RUNS,
    );
  });

  it('sorts replicas descending and stably', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 40 }), (xs) => {
        const list = xs.map((r, i) => ({ name: `n${i}`, replicas: r }));
        const want = list.slice().sort((a, b) => b.replicas - a.replicas);
        expect(sortByReplicasDesc(list.slice())).toEqual(want);
      }),
      RUNS,
    );
  });

  it('hashes UIDs with FNV-1a over UTF-8 bytes', () => {
    const reference = (s: string): number => {
      let h = 0x811c9dc5;
      for (const b of new TextEncoder().encode(s)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
      return h >>> 0;
    };
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(fnv1a32(s)).toBe(reference(s));
      }),
      RUNS,
    );
  });

  it('leaves forms Go holds as inf.Dec to the Quantity parser, even when they are zero', () => {
    // 0Pi is an inf.Dec in Go, so 1 - 1500m - 0Pi rounds toward +inf (1), not away from zero (-1).
    const s = parseSummary({ allocatable: { cpu: '1' }, allocated: { cpu: '1500m' }, allocating: { cpu: '0Pi' } }, null);
    const want = parseQuantity('1').sub(parseQuantity('1500m')).sub(parseQuantity('0Pi'));
    expect(s.resource('cpu')!.availMilli).toBe(want.milliValue());
    expect(s.resource('cpu')!.availValue).toBe(want.value());
    expect(want.value()).toBe(1);
  });

  it('reads simple quantities on the fast path exactly as the Quantity parser does', () => {
    const quantity = fc.oneof(
      fc
        .tuple(fc.integer({ min: 0, max: 10 ** 6 }), fc.constantFrom('', 'm', 'k', 'M', 'G', 'Ki', 'Mi', 'Gi', 'Ti'))
        .map(([n, u]) => `${n}${u}`),
      // Near the edges of the fast path: long digit runs, leading zeros, and Pi / Ei (Go's inf.Dec path even for 0).
      fc
        .tuple(
          fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 16n }).map(String), fc.stringMatching(/^0{1,3}[0-9]{1,3}$/), fc.constant('0')),
          fc.constantFrom('', 'm', 'k', 'T', 'P', 'E', 'Ki', 'Ti', 'Pi', 'Ei'),
        )
        .map(([n, u]) => `${n}${u}`),
      fc
        .tuple(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 0, max: 99 }), fc.constantFrom('', 'Gi', 'k'))
        .map(([a, b, u]) => `${a}.${b}${u}`),
      fc.integer({ min: 0, max: 10 ** 9 }),
      fc.constant('1e3'),
    );
    fc.assert(
      fc.property(quantity, fc.option(quantity, { nil: undefined }), fc.option(quantity, { nil: undefined }), (a, u, p) => {
        const s = parseSummary(
          { allocatable: { cpu: a, pods: a }, allocated: u === undefined ? {} : { cpu: u }, allocating: p === undefined ? {} : { cpu: p } },
          null,
        );
        let want = parseQuantity(a);
        if (u !== undefined) want = want.sub(parseQuantity(u));
        if (p !== undefined) want = want.sub(parseQuantity(p));
        const got = s.resource('cpu')!;
        expect(got.availMilli).toBe(want.milliValue());
        expect(got.availValue).toBe(want.value());
        expect(got.avail().cmp(want)).toBe(0);
        expect(s.allocatablePods).toBe(parseQuantity(a).value());
      }),
      RUNS,
    );
  });
});

describe('available resources beyond 2^53 milli-units', () => {
  it('allocatable − allocated − allocating is exact when the fast milli path would lose precision', () => {
    // Each value alone is a safe integer in milli-units; the difference, −9,099,999,999,999,999, is odd and
    // beyond 2^53, so no double holds it.
    const s = parseSummary({ allocatable: { memory: '0' }, allocated: { memory: '999999999999999m' }, allocating: { memory: '8100000000000' } } as never, null);
    const r = s.resource('memory')!;
    const exact = parseQuantity('0').sub(parseQuantity('999999999999999m')).sub(parseQuantity('8100000000000'));
    expect(r.avail().toString()).toBe(exact.toString());
    expect(BigInt(r.avail().milliValueBig())).toBe(-9_099_999_999_999_999n);
  });
});
