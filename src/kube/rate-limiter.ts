/**
 * A client's request rate limit, as client-go's flowcontrol token bucket: `qps` tokens a second refill a
 * bucket of `burst`; each request takes one token, waiting for it when the bucket is empty. Waiters are
 * served in arrival order (client-go's limiter reserves in order too). RestClient takes one (`RestClientOptions.limiter`);
 * the controller makes one per host and member client from --kube-api-qps/-burst and --cluster-api-qps/-burst.
 *
 * Unlike client-go, a waiter may ask for the low lane (`priority: 'low'`, the Event recorder's writes): it gets a
 * token only when no normal waiter is queued, so best-effort writes never delay one the propagation needs, while
 * the bucket's rate stays the limit of both together. Each lane is FIFO.
 */

export interface RateLimiterClock {
  /** Milliseconds, monotonic. */
  now(): number;
  /**
   * Calls fn after ms; returns a cancel function. A `weak` timer does not keep the process alive: only
   * low-lane waiters (Events) wait for it, and they must not hold a stopping process's exit.
   */
  after(ms: number, fn: () => void, weak?: boolean): () => void;
}

export const wallClock: RateLimiterClock = {
  now: () => performance.now(),
  after: (ms, fn, weak) => {
    const t = setTimeout(fn, ms);
    if (weak) t.unref();
    return () => clearTimeout(t);
  },
};

export type TokenPriority = 'normal' | 'low';

export interface TokenWaitOptions {
  /** 'low': served only while no normal waiter is queued (best-effort writes such as Events). */
  priority?: TokenPriority;
  /** Aborting it takes a queued waiter out of its lane without a token; `ready` rejects with the abort reason. */
  signal?: AbortSignal;
}

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
  private readonly lanes: Record<TokenPriority, Array<() => void>> = { normal: [], low: [] };
  private cancelTimer?: () => void;
  private timerWeak = false;

  constructor(private readonly opts: RateLimiterOptions) {
    if (!(opts.qps > 0)) throw new Error(`qps: ${opts.qps} must be above 0 (a negative qps means no limiter: do not make one)`);
    if (!Number.isInteger(opts.burst) || opts.burst < 1) throw new Error(`burst: ${opts.burst} must be a whole number of at least 1`);
    this.clock = opts.clock ?? wallClock;
    this.tokens = opts.burst;
    this.last = this.clock.now();
  }

  /** Requests waiting for a token now, both lanes. */
  get waiting(): number {
    return this.lanes.normal.length + this.lanes.low.length;
  }

  /** Low-lane requests waiting for a token now. */
  get waitingLow(): number {
    return this.lanes.low.length;
  }

  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.opts.burst, this.tokens + ((now - this.last) * this.opts.qps) / 1000);
    this.last = now;
  }

  /**
   * Takes a token: at once when one is there and nobody waits ahead in the lane (`queued` false, `ready` already
   * resolved with 0), else in turn (`queued` true, `ready` resolves with the milliseconds waited). The caller
   * learns whether it waits from this call itself, so that it can count waiting requests without looking at the
   * queue afterwards. A normal request is not held back by queued low ones; a low one waits behind both lanes.
   */
  wait(opts: TokenWaitOptions = {}): TokenWait {
    const lane = opts.priority ?? 'normal';
    const started = this.clock.now();
    this.refill();
    const ahead = lane === 'low' ? this.waiting : this.lanes.normal.length;
    if (ahead === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      return { queued: false, ready: Promise.resolve(0) };
    }
    const signal = opts.signal;
    const ready = new Promise<number>((resolve, reject) => {
      const waiters = this.lanes[lane];
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.clock.now() - started);
      };
      const onAbort = () => {
        const i = waiters.indexOf(grant);
        if (i >= 0) waiters.splice(i, 1);
        reject(signal?.reason ?? new Error('aborted while waiting for a rate limiter token'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      waiters.push(grant);
    });
    this.schedule();
    return { queued: true, ready };
  }

  private schedule(): void {
    const weak = this.lanes.normal.length === 0;
    // A normal waiter arrived while only low ones waited: the timer must keep the process alive now.
    if (this.cancelTimer && this.timerWeak && !weak) {
      this.cancelTimer();
      this.cancelTimer = undefined;
    }
    if (this.cancelTimer || this.waiting === 0) return;
    const ms = Math.max(0, ((1 - this.tokens) * 1000) / this.opts.qps);
    this.timerWeak = weak;
    this.cancelTimer = this.clock.after(
      ms,
      () => {
        this.cancelTimer = undefined;
        this.refill();
        for (const lane of [this.lanes.normal, this.lanes.low]) {
          while (lane.length && this.tokens >= 1) {
            this.tokens -= 1;
            lane.shift()!();
          }
        }
        this.schedule();
      },
      weak,
    );
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
