/**
 * The door of one member cluster's writes: a member that has stopped answering costs its own Works only.
 *
 * A frozen apiserver (stopped process, dead link that still accepts connections) answers nothing, so a
 * write to it waits for its whole request timeout. One such write is let through, and the runner stops
 * waiting for it after a moment (RunnerOptions.parkAfterMs); the writes that come after it fail at once,
 * as long as the member has answered nothing since that write started. Any answer (an HTTP status,
 * even an error) opens the door again; so does the write ending without one, which lets the next write
 * through as the next attempt. At most `maxInFlight` writes are sent to one member at a time; more wait
 * their turn (a busy member is not a frozen one), and are refused if it stops answering meanwhile.
 */

/** A write refused because its member cluster is not answering; the reconcile fails and is retried. */
export class MemberUnresponsiveError extends Error {
  constructor(
    readonly cluster: string,
    message: string,
  ) {
    super(message);
    this.name = 'MemberUnresponsiveError';
  }
}

interface Entry {
  startedAt: number;
  seq: number;
}

export interface MemberGateOptions {
  cluster: string;
  /** A write with no answer from the member for this long makes the writes after it fail at once. */
  stallMs?: number;
  /** Writes sent to the member at once; more wait for one of them to end. */
  maxInFlight?: number;
  now?: () => number;
}

/** Whether a failure is an answer from the server (an HTTP status), rather than a timeout or a broken connection. */
export type IsAnswer = (err: unknown) => boolean;

export class MemberGate {
  /** The requests in flight: when each started, and its place in the order of starts and answers. */
  private readonly inFlight = new Set<Entry>();
  /** Counts starts and answers, so that "answered since this request started" needs no clock. */
  private seq = 0;
  /** `seq` of the member's last answer (0: none since the gate was made). */
  private lastAnswer = 0;
  /** The last request ended without an answer (timed out, connection reset): the member is presumed gone. */
  private silent = false;
  /** Writes waiting for a turn (maxInFlight), first come first served. */
  private readonly queued: Array<() => void> = [];
  /** Turns given to queued writes that have not started yet. */
  private reserved = 0;
  private readonly stallMs: number;
  private readonly maxInFlight: number;
  private readonly now: () => number;

  constructor(
    private readonly opts: MemberGateOptions,
    private readonly isAnswer: IsAnswer,
  ) {
    this.stallMs = opts.stallMs ?? 2_000;
    this.maxInFlight = opts.maxInFlight ?? 32;
    this.now = opts.now ?? Date.now;
  }

  /** Why a write now would be refused, or undefined when it may go (or wait for its turn). */
  refusal(): string | undefined {
    const now = this.now();
    for (const w of this.inFlight) {
      if (w.seq > this.lastAnswer && (this.silent || now - w.startedAt >= this.stallMs)) {
        return `cluster ${this.opts.cluster} has not answered a write for ${((now - w.startedAt) / 1000).toFixed(1)} s${this.silent ? ' and its last request ended without an answer' : ''}`;
      }
    }
    return undefined;
  }

  /** Runs a write through the door: refused at once when the member is not answering. */
  async write<T>(fn: () => Promise<T>): Promise<T> {
    this.admit();
    if (this.inFlight.size + this.reserved >= this.maxInFlight || this.queued.length) {
      await new Promise<void>((r) => this.queued.push(r));
      this.reserved--;
      this.admit();
    }
    return this.track(fn);
  }

  private admit(): void {
    const why = this.refusal();
    if (why) {
      this.next();
      throw new MemberUnresponsiveError(this.opts.cluster, `${why}; the write is retried once it answers`);
    }
  }

  /** Lets the first queued write go when there is room. */
  private next(): void {
    if (this.inFlight.size + this.reserved >= this.maxInFlight) return;
    const go = this.queued.shift();
    if (!go) return;
    this.reserved++;
    go();
  }

  /** Runs a request that is never refused (the readiness probe) but whose outcome counts. */
  track<T>(fn: () => Promise<T>): Promise<T> {
    const entry: Entry = { startedAt: this.now(), seq: ++this.seq };
    this.inFlight.add(entry);
    return fn().then(
      (out) => {
        this.answered(entry);
        return out;
      },
      (err: unknown) => {
        if (this.isAnswer(err)) this.answered(entry);
        else {
          this.inFlight.delete(entry);
          this.silent = true;
          this.next();
        }
        throw err;
      },
    );
  }

  /** Whether the member's last request ended without an answer and nothing has answered since. */
  get unresponsive(): boolean {
    return this.silent;
  }

  private answered(entry: Entry): void {
    this.inFlight.delete(entry);
    this.lastAnswer = ++this.seq;
    this.silent = false;
    this.next();
  }
}
