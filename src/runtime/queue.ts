/**
 * A rate-limited work queue with client-go's semantics: a key is queued at most once, a key being
 * processed is not handed out again until done() (re-adds while processing are remembered), failed
 * keys come back with per-key exponential backoff, and keys can be scheduled for later.
 */
import { flat } from '../json/strings.js';

export interface QueueOptions {
  /** Milliseconds since an arbitrary origin; virtual in the embedded control plane. */
  now: () => number;
  /** First retry delay (client-go: 5 ms). */
  baseDelayMs?: number;
  /** Longest retry delay (client-go: 1000 s). */
  maxDelayMs?: number;
  /**
   * An overall token bucket on retries besides the per-key backoff (client-go's default controller rate
   * limiter: 10 qps, burst 100). Unset: per-key backoff only, as the embedded control plane wants.
   */
  bucket?: { qps: number; burst: number };
  /** Told what client-go's workqueue metrics provider is told (the controller's workqueue_* metrics). */
  observer?: QueueObserver;
}

/** A queue's metrics, as client-go reports them; durations in seconds of the queue's clock. */
export interface QueueObserver {
  /** A key became queued (a re-add of a key already waiting is not one). */
  added(): void;
  /** A key was handed out after waiting that long since it was added. */
  waited(seconds: number): void;
  /** A key's processing ended after that long. */
  worked(seconds: number): void;
  /** addAfter (a retry's back-off or a requeue-after). */
  retried(): void;
}

/** golang.org/x/time/rate's Reserve: the wait until a token is free, taking it. */
class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.last = now;
  }

  reserve(now: number): number {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.qps) / 1000);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }
}

/** A key waits to be processed (client-go's dirty set). */
const DIRTY = 1;
/** A key is being processed. */
const PROCESSING = 2;

export class RateLimitedQueue {
  private readonly ready: string[] = [];
  private head = 0;
  /**
   * key -> DIRTY and/or PROCESSING; absent when neither. One map instead of client-go's two sets: every
   * reconcile adds, gets and finishes a key, and each of those is one lookup and one write here.
   */
  private readonly state = new Map<string, number>();
  private readonly failures = new Map<string, number>();
  /** key -> when it becomes ready; the earliest time wins. */
  private readonly delayed = new Map<string, number>();
  /** No delayed key is due before this time (a lower bound, so promote() need not scan before then). */
  private earliestDelayed = Number.POSITIVE_INFINITY;
  private readonly now: () => number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly bucket?: TokenBucket;
  private readonly observer?: QueueObserver;
  /** With an observer: when each waiting key was added, and when each key in progress was handed out. */
  private readonly addedAt = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();

  constructor(opts: QueueOptions) {
    this.observer = opts.observer;
    this.now = opts.now;
    this.baseDelayMs = opts.baseDelayMs ?? 5;
    this.maxDelayMs = opts.maxDelayMs ?? 1_000_000;
    if (opts.bucket) this.bucket = new TokenBucket(opts.bucket.qps, opts.bucket.burst, opts.now());
  }

  add(key: string): void {
    flat(key);
    const s = this.state.get(key);
    if (this.observer && (s === undefined || !(s & DIRTY))) {
      this.observer.added();
      if (!this.addedAt.has(key)) this.addedAt.set(key, this.now());
    }
    if (s === undefined) {
      this.state.set(key, DIRTY);
      this.ready.push(key);
    } else if (!(s & DIRTY)) {
      this.state.set(key, s | DIRTY);
      if (!(s & PROCESSING)) this.ready.push(key);
    }
  }

  /** Adds the key once `delayMs` has passed; a sooner request replaces a later one. */
  addAfter(key: string, delayMs: number): void {
    this.observer?.retried();
    if (delayMs <= 0) return this.add(key);
    const at = this.now() + delayMs;
    const cur = this.delayed.get(key);
    if (cur === undefined || at < cur) this.delayed.set(key, at);
    if (at < this.earliestDelayed) this.earliestDelayed = at;
  }

  /** Adds the key after the backoff its failures so far earned. */
  addRateLimited(key: string): void {
    const perKey = this.backoff(key);
    this.addAfter(key, this.bucket ? Math.max(perKey, this.bucket.reserve(this.now())) : perKey);
  }

  /** The delay the next addRateLimited(key) would use, counting this failure. */
  backoff(key: string): number {
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    return Math.min(this.baseDelayMs * 2 ** (n - 1), this.maxDelayMs);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  forget(key: string): void {
    if (this.failures.size) this.failures.delete(key);
  }

  /** Moves delayed keys whose time has come into the ready list. */
  promote(): void {
    if (this.delayed.size === 0) return;
    const now = this.now();
    // get() promotes before every key: with many keys waiting (tolerations, grace periods), scanning
    // them all each time would cost more than the reconciles.
    if (now < this.earliestDelayed) return;
    const due: Array<[string, number]> = [];
    let earliest = Number.POSITIVE_INFINITY;
    for (const [k, at] of this.delayed) {
      if (at <= now) due.push([k, at]);
      else if (at < earliest) earliest = at;
    }
    this.earliestDelayed = earliest;
    due.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
    for (const [k] of due) {
      this.delayed.delete(k);
      this.add(k);
    }
  }

  /** The next ready key, marked as processing; undefined when nothing is ready. */
  get(): string | undefined {
    this.promote();
    while (this.head < this.ready.length) {
      const key = this.ready[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.ready.length) {
        this.ready.splice(0, this.head);
        this.head = 0;
      }
      // A key is listed once per add while not processing; stale entries (already handed out) are skipped.
      if (this.state.get(key) !== DIRTY) continue;
      this.state.set(key, PROCESSING);
      if (this.observer) this.observeStart(key);
      return key;
    }
    return undefined;
  }

  done(key: string): void {
    const s = this.state.get(key);
    if (s === undefined) return;
    const started = this.startedAt.get(key);
    if (started !== undefined) {
      this.startedAt.delete(key);
      this.observer?.worked((this.now() - started) / 1000);
    }
    if (s & DIRTY) {
      this.state.set(key, DIRTY);
      this.ready.push(key);
    } else this.state.delete(key);
  }

  private observeStart(key: string): void {
    const now = this.now();
    const added = this.addedAt.get(key);
    this.addedAt.delete(key);
    if (added !== undefined) this.observer!.waited((now - added) / 1000);
    this.startedAt.set(key, now);
  }

  /** With an observer: seconds of work in progress (summed), and of the longest one (client-go's unfinished work gauges). */
  inProgress(): { unfinishedSeconds: number; longestSeconds: number } {
    const now = this.now();
    let unfinishedSeconds = 0;
    let longestSeconds = 0;
    for (const at of this.startedAt.values()) {
      const s = (now - at) / 1000;
      unfinishedSeconds += s;
      if (s > longestSeconds) longestSeconds = s;
    }
    return { unfinishedSeconds, longestSeconds };
  }

  /** Keys ready now (after promotion). */
  readyLength(): number {
    this.promote();
    return this.ready.length - this.head;
  }

  /** When the earliest delayed key becomes ready, or undefined. */
  nextDelayedAt(): number | undefined {
    let min: number | undefined;
    for (const at of this.delayed.values()) if (min === undefined || at < min) min = at;
    return min;
  }

  delayedKeys(): string[] {
    return [...this.delayed.keys()];
  }

  /** Drops a pending delayed add (a rate-limited retry given up on). */
  cancelDelayed(key: string): void {
    this.delayed.delete(key);
  }

  get length(): number {
    return this.ready.length - this.head + this.delayed.size;
  }
}
