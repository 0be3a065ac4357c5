// Turns for transactions that wait on another service while they hold a pooled connection (a charge or a refund
// at the payment processor, made under the row's lock). Stripe's client waits up to 20 s a try, three tries: while
// it is slow, enough such requests at once would hold every connection of the pool, and every other request —
// a product read, a sign-in, a webhook — would wait behind them. So such a transaction takes a turn before it
// opens: at most half the pool's connections are held by them at once, and the requests that call no one keep
// the other half. A turn is waited for without a connection, CALL_TURN_WAIT_MS at most; then the request answers
// 503 with Retry-After (CallTurnsBusy), having changed nothing, and a retry is safe (the writes are idempotent).
// Where no pool was given turns (PGlite, one connection for everything), `withCallTurn` just runs.

/** How long a request waits for a turn before it answers 503 (no connection is held meanwhile). */
export const CALL_TURN_WAIT_MS = 15_000;
/** What the 503 tells the client to wait, in seconds. */
export const CALL_TURN_RETRY_AFTER_SECONDS = 2;

/** No turn came within the wait: the processor is slow and half the pool is waiting on it. */
export class CallTurnsBusy extends Error {
  constructor() {
    super("Too many payments are waiting on the payment processor right now; retry shortly.");
  }
}

interface Waiter {
  resolve(): void;
  timer: NodeJS.Timeout;
}

/** `turns` holders at once; the others wait first come, first served, each up to its own bound. */
export class CallTurns {
  private held = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly turns: number,
    private readonly waitMs = CALL_TURN_WAIT_MS,
  ) {}

  /** Holders now, and how many wait (tests, metrics). */
  get state(): { held: number; waiting: number } {
    return { held: this.held, waiting: this.waiting.length };
  }

  /** Runs `fn` in a turn; CallTurnsBusy when none came within the wait (then `fn` is not run). */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.take();
    try {
      return await fn();
    } finally {
      this.give();
    }
  }

  private take(): Promise<void> {
    if (this.held < this.turns && this.waiting.length === 0) {
      this.held++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(new CallTurnsBusy());
        }, this.waitMs),
      };
      this.waiting.push(waiter);
    });
  }

  private give(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.held--;
      return;
    }
    // the turn passes to the next waiter as it is (held stays the same)
    clearTimeout(next.timer);
    next.resolve();
  }
}

const turnsOf = new WeakMap<object, CallTurns>();

/** Gives a database handle's transactions that call out `turns` turns (half its pool: db/client.ts). */
export function limitCallTurns(db: object, turns: number, waitMs?: number): CallTurns {
  const gate = new CallTurns(Math.max(1, Math.trunc(turns)), waitMs);
  turnsOf.set(db, gate);
  return gate;
}

/** The turns of a database handle, when it has them. */
export const callTurnsOf = (db: object): CallTurns | undefined => turnsOf.get(db);

/**
 * Runs `fn` — which opens a transaction on `db` and calls another service inside it — in one of `db`'s turns.
 * Never call it inside such a transaction (the turn would be waited for while a connection is held).
 */
export function withCallTurn<T>(db: object, fn: () => Promise<T>): Promise<T> {
  const gate = turnsOf.get(db);
  return gate ? gate.run(fn) : fn();
}
