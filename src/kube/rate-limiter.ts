/**
 * A client's request rate limit, as client-go's flowcontrol token bucket: `qps` tokens a second refill a
 * bucket of `burst`; each request takes one token, waiting for it when the bucket is empty. Waiters are
 * served in arrival order (client-go's limiter reserves in order too). RestClient takes one (`RestClientOptions.limiter`);
 * the controller makes one per host and member client from --kube-api-qps/-burst and --cluster-api-qps/-burst.
 */

export interface RateLimiterClock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Calls fn after ms; returns a cancel function. */
  after(ms: number, fn: () => void): () => void;
}

export const wallClock: RateLimiterClock = {
  now: () => performance.now(),
  after: (ms, fn) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

export interface RateLimiterOptions {
  qps: number;
  burst: number;
  clock?: RateLimiterClock;
}

export interface TokenWait {
  /** Whether the request found the bucket empty (or others before it) and waits its turn. */
  queued: boolean;
  /** Resolves with the milliseconds waited once the token is taken (0 when not queued). */
  ready: Promise<number>;
}

export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly clock: RateLimiterClock;
  private readonly waiters: Array<() => void> = [];
  private cancelTimer?: () => void;

  constructor(private readonly opts: RateLimiterOptions) {
    if (!(opts.qps > 0)) throw new Error(`qps: ${opts.qps} must be above 0 (a negative qps means no limiter: do not make one)`);
    if (!Number.isInteger(opts.burst) || opts.burst < 1) throw new Error(`burst: ${opts.burst} must be a whole number of at least 1`);
    this.clock = opts.clock ?? wallClock;
    this.tokens = opts.burst;
    this.last = this.clock.now();
  }

  /** Requests waiting for a token now. */
  get waiting(): number {
    return this.waiters.length;
  }

  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.opts.burst, this.tokens + ((now - this.last) * this.opts.qps) / 1000);
    this.last = now;
  }

  /**
   * Takes a token: at once when one is there and nobody waits (`queued` false, `ready` already resolved with 0),
   * else in turn (`queued` true, `ready` resolves with the milliseconds waited). The caller learns whether it
   * waits from this call itself, so that it can count waiting requests without looking at the queue afterwards.
   */
  wait(): TokenWait {
    const started = this.clock.now();
    this.refill();
    if (this.waiters.length === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      return { queued: false, ready: Promise.resolve(0) };
    }
    const ready = new Promise<number>((resolve) => {
      this.waiters.push(() => resolve(this.clock.now() - started));
    });
    this.schedule();
    return { queued: true, ready };
  }

  private schedule(): void {
    if (this.cancelTimer || this.waiters.length === 0) return;
    const ms = Math.max(0, ((1 - this.tokens) * 1000) / this.opts.qps);
    this.cancelTimer = this.clock.after(ms, () => {
      this.cancelTimer = undefined;
      this.refill();
      while (this.waiters.length && this.tokens >= 1) {
        this.tokens -= 1;
        this.waiters.shift()!();
      }
      this.schedule();
    });
  }
}

/** client-go's rule: qps above 0 makes a limiter, a negative one none (unlimited); 0 is refused here instead of meaning client-go's default of 5. */
export function rateLimiterFor(qps: number, burst: number, clock?: RateLimiterClock): TokenBucket | undefined {
  if (qps < 0) return undefined;
  if (qps === 0) throw new Error('qps 0 would stop every request; give a positive qps, or a negative one for no limit');
  return new TokenBucket({ qps, burst, clock });
}

/** A RestClient's options for a `{ qps, burst }` limit (none: no limiter); one new bucket per call, as one per client. */
export function limiterOptions(limit: { qps: number; burst: number } | undefined, clock?: RateLimiterClock): { limiter?: TokenBucket } {
  const limiter = limit ? rateLimiterFor(limit.qps, limit.burst, clock) : undefined;
  return limiter ? { limiter } : {};
}
