/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's semantics: a lease is taken over
 * only when its record has not changed for leaseDuration as measured on OUR clock (the holder's
 * renewTime is not trusted across machines), and a clean shutdown releases it at once.
 *
 * `decide` is the pure core; `LeaderElector` only reads and writes the Lease.
 */

export interface LeaseRecord {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** What we last saw of the lease, and when (our clock): the basis of expiry. */
export interface Observation {
  record: LeaseRecord;
  observedAt: number;
}

export type Decision =
  | { action: 'create'; record: LeaseRecord }
  | { action: 'update'; record: LeaseRecord }
  | { action: 'wait'; holder: string };

const sameRecord = (a: LeaseRecord, b: LeaseRecord) =>
  a.holderIdentity === b.holderIdentity && a.renewTime === b.renewTime && a.leaseTransitions === b.leaseTransitions && a.acquireTime === b.acquireTime;

/** Records what we saw: the observation time moves only when the record itself changed. */
export function observe(previous: Observation | undefined, current: LeaseRecord, now: number): Observation {
  if (previous && sameRecord(previous.record, current)) return previous;
  return { record: current, observedAt: now };
}

export function decide(current: LeaseRecord | undefined, observation: Observation | undefined, identity: string, now: number, leaseDurationSeconds: number): Decision {
  // Lease times are MicroTime: RFC 3339 with six fractional digits.
  const nowIso = new Date(now).toISOString().replace(/Z$/, '000Z');
  if (!current) {
    return { action: 'create', record: { holderIdentity: identity, leaseDurationSeconds, acquireTime: nowIso, renewTime: nowIso, leaseTransitions: 0 } };
  }
  const holder = current.holderIdentity ?? '';
  if (holder === identity) {
    return { action: 'update', record: { ...current, leaseDurationSeconds, renewTime: nowIso } };
  }
  const duration = (current.leaseDurationSeconds ?? leaseDurationSeconds) * 1000;
  const expired = holder === '' || !observation || observation.observedAt + duration <= now;
  if (!expired) return { action: 'wait', holder };
  return {
    action: 'update',
    record: { holderIdentity: identity, leaseDurationSeconds, acquireTime: nowIso, renewTime: nowIso, leaseTransitions: (current.leaseTransitions ?? 0) + 1 },
  };
}

/** The record a leader writes on a clean shutdown so that a standby takes over without waiting. */
export function released(current: LeaseRecord): LeaseRecord {
  return { ...current, holderIdentity: '', leaseDurationSeconds: 1 };
}

/** Reads and writes one Lease; `update` must fail (throw) on a resourceVersion conflict. */
export interface LeaseClient {
  get(): Promise<{ record: LeaseRecord; resourceVersion: string } | undefined>;
  create(record: LeaseRecord): Promise<void>;
  update(record: LeaseRecord, resourceVersion: string): Promise<void>;
}

export interface LeaderElectorOptions {
  identity: string;
  leaseDurationSeconds?: number;
  /** How often the leader renews and a standby retries. */
  retryPeriodMs?: number;
  /** A leader that could not renew for this long steps down (it must stop acting before another takes over). */
  renewDeadlineMs?: number;
  now?: () => number;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
  onError?: (err: unknown) => void;
}

export class LeaderElector {
  private observation: Observation | undefined;
  private leading = false;
  private lastRenew = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The attempt in progress: stop() waits for it, or a renewal landing after the release would take the lease back. */
  private inFlight: Promise<void> | undefined;
  private readonly opts: Required<Omit<LeaderElectorOptions, 'onError'>> & Pick<LeaderElectorOptions, 'onError'>;

  constructor(private readonly client: LeaseClient, options: LeaderElectorOptions) {
    const leaseDurationSeconds = options.leaseDurationSeconds ?? 15;
    this.opts = {
      leaseDurationSeconds,
      retryPeriodMs: options.retryPeriodMs ?? 2000,
      renewDeadlineMs: options.renewDeadlineMs ?? Math.floor(leaseDurationSeconds * 1000 * (2 / 3)),
      now: options.now ?? Date.now,
      ...options,
    } as LeaderElector['opts'];
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.stopped = false;
    void this.tick();
  }

  /** One attempt to acquire or renew; exposed for tests. */
  tick(): Promise<void> {
    const run = this.attempt().finally(() => {
      if (this.inFlight === run) this.inFlight = undefined;
    });
    this.inFlight = run;
    return run;
  }

  private async attempt(): Promise<void> {
    const now = this.opts.now();
    try {
      const got = await this.client.get();
      // Stopped while reading: writing now would undo the release.
      if (this.stopped) return;
      if (got) this.observation = observe(this.observation, got.record, now);
      const d = decide(got?.record, this.observation, this.opts.identity, now, this.opts.leaseDurationSeconds);
      if (d.action === 'create') await this.client.create(d.record);
      else if (d.action === 'update') await this.client.update(d.record, got!.resourceVersion);
      if (d.action === 'wait') {
        this.setLeading(false);
      } else {
        this.observation = { record: d.record, observedAt: now };
        this.lastRenew = now;
        this.setLeading(true);
      }
    } catch (err) {
      this.opts.onError?.(err);
      if (this.leading && now - this.lastRenew > this.opts.renewDeadlineMs) this.setLeading(false);
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), this.opts.retryPeriodMs);
  }

  /** Stops campaigning; a leader releases the lease so a standby need not wait for it to expire. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.inFlight;
    if (!this.leading) return;
    // A conflict means the record moved under us (e.g. a renewal answered late): read it again and retry.
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const got = await this.client.get();
        if (got && got.record.holderIdentity === this.opts.identity) await this.client.update(released(got.record), got.resourceVersion);
        break;
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
    this.setLeading(false);
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    if (leading) this.opts.onStartedLeading();
    else this.opts.onStoppedLeading();
  }
}
