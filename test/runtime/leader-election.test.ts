import { describe, expect, it } from 'vitest';
import { decide, observe, released, LeaderElector, type LeaseClient, type LeaseRecord } from '../../src/runtime/leader-election.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

describe('decide (pure)', () => {
  it('creates the lease when there is none', () => {
    const d = decide(undefined, undefined, 'a', T0, 15);
    expect(d).toEqual({ action: 'create', record: { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:00.000000Z', leaseTransitions: 0 } });
  });

  it('renews its own lease without counting a transition', () => {
    const rec: LeaseRecord = { holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 3, renewTime: 'x' };
    const d = decide(rec, observe(undefined, rec, T0), 'a', T0 + 5000, 15);
    expect(d.action).toBe('update');
    expect(d.action === 'update' && d.record.leaseTransitions).toBe(3);
  });

  it("waits while another holder's record keeps changing, and takes over once it stops for a lease duration", () => {
    const rec: LeaseRecord = { holderIdentity: 'b', leaseDurationSeconds: 15, renewTime: 'r1', leaseTransitions: 0 };
    let obs = observe(undefined, rec, T0);
    expect(decide(rec, obs, 'a', T0 + 14_999, 15)).toEqual({ action: 'wait', holder: 'b' });
    // b renewed: our observation clock restarts
    const renewed = { ...rec, renewTime: 'r2' };
    obs = observe(obs, renewed, T0 + 14_000);
    expect(decide(renewed, obs, 'a', T0 + 20_000, 15).action).toBe('wait');
    const d = decide(renewed, obs, 'a', T0 + 29_000, 15);
    expect(d.action).toBe('update');
    expect(d.action === 'update' && d.record).toMatchObject({ holderIdentity: 'a', leaseTransitions: 1 });
  });

  it('does not trust the holder clock: an old renewTime alone does not expire a lease we just saw', () => {
    const rec: LeaseRecord = { holderIdentity: 'b', leaseDurationSeconds: 15, renewTime: '2000-01-01T00:00:00.000000Z' };
    expect(decide(rec, observe(undefined, rec, T0), 'a', T0 + 1000, 15).action).toBe('wait');
  });

  it('takes a released lease at once', () => {
    const rec = released({ holderIdentity: 'b', leaseDurationSeconds: 15, leaseTransitions: 2 });
    const d = decide(rec, observe(undefined, rec, T0), 'a', T0, 15);
    expect(d.action === 'update' && d.record).toMatchObject({ holderIdentity: 'a', leaseTransitions: 3 });
  });
});

/** An in-memory Lease with resourceVersion conflicts, standing in for the apiserver in these unit tests. */
function memoryLease(): LeaseClient & { rv: number; record?: LeaseRecord } {
  const s: LeaseClient & { rv: number; record?: LeaseRecord } = {
    rv: 0,
    async get() {
      return s.record ? { record: { ...s.record }, resourceVersion: String(s.rv) } : undefined;
    },
    async create(record) {
      if (s.record) throw new Error('AlreadyExists');
      s.record = record;
      s.rv++;
    },
    async update(record, rv) {
      if (rv !== String(s.rv)) throw new Error('Conflict');
      s.record = record;
      s.rv++;
    },
  };
  return s;
}

describe('LeaderElector', () => {
  it('elects one of two candidates; the other takes over after the leader releases', async () => {
    const lease = memoryLease();
    let now = T0;
    const events: string[] = [];
    const mk = (id: string) =>
      new LeaderElector(lease, { identity: id, leaseDurationSeconds: 15, retryPeriodMs: 1e9, now: () => now, onStartedLeading: () => events.push(`${id}+`), onStoppedLeading: () => events.push(`${id}-`) });
    const a = mk('a');
    const b = mk('b');
    await a.tick();
    await b.tick();
    expect(a.isLeader).toBe(true);
    expect(b.isLeader).toBe(false);
    now += 5000;
    await a.tick();
    await b.tick();
    expect(b.isLeader).toBe(false);
    await a.stop();
    await b.tick();
    expect(b.isLeader).toBe(true);
    expect(events).toEqual(['a+', 'a-', 'b+']);
    await b.stop();
  });

  it('takes over from a leader that died without releasing, only after the lease duration', async () => {
    const lease = memoryLease();
    let now = T0;
    const a = new LeaderElector(lease, { identity: 'a', leaseDurationSeconds: 10, retryPeriodMs: 1e9, now: () => now, onStartedLeading() {}, onStoppedLeading() {} });
    const b = new LeaderElector(lease, { identity: 'b', leaseDurationSeconds: 10, retryPeriodMs: 1e9, now: () => now, onStartedLeading() {}, onStoppedLeading() {} });
    await a.tick();
    await b.tick(); // b observes a's record at T0
    now += 9_000;
    await b.tick();
    expect(b.isLeader).toBe(false);
    now += 1_000;
    await b.tick();
    expect(b.isLeader).toBe(true);
    expect(lease.record).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    await b.stop();
  });

  it('steps down when it cannot renew within the renew deadline', async () => {
    const lease = memoryLease();
    let now = T0;
    let down = 0;
    const a = new LeaderElector(lease, { identity: 'a', leaseDurationSeconds: 15, renewDeadlineMs: 10_000, retryPeriodMs: 1e9, now: () => now, onStartedLeading() {}, onStoppedLeading: () => down++ });
    await a.tick();
    lease.get = async () => {
      throw new Error('apiserver down');
    };
    now += 5_000;
    await a.tick();
    expect(a.isLeader).toBe(true);
    now += 6_000;
    await a.tick();
    expect(a.isLeader).toBe(false);
    expect(down).toBe(1);
    await a.stop();
  });

  it('a renewal in flight when stop() is called cannot take the released lease back', async () => {
    const lease = memoryLease();
    const a = new LeaderElector(lease, { identity: 'a', leaseDurationSeconds: 15, retryPeriodMs: 1e9, onStartedLeading() {}, onStoppedLeading() {} });
    await a.tick();
    // Hold the next read until stop() has begun, as a slow apiserver answer would.
    const realGet = lease.get.bind(lease);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    lease.get = async () => {
      const got = await realGet();
      await gate;
      return got;
    };
    const renewing = a.tick();
    const stopping = a.stop();
    lease.get = realGet;
    release();
    await Promise.all([renewing, stopping]);
    expect(a.isLeader).toBe(false);
    expect(lease.record?.holderIdentity).toBe('');
  });
});
