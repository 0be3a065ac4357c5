// Turns for transactions that hold a pooled connection while they wait on something other than the database: a
// charge or a refund at the payment processor, made under the row's lock (Stripe's client waits up to 20 s a try,
// three tries), or an events batch's early INSERT, open while the request parses and checks its body
// (events/ingest/early-insert.ts). Enough of them at once would hold every connection of the pool, and every
// other request — a product read, a sign-in, a webhook — would wait behind them. So each takes a turn first: at
// most half the pool's connections are held by them at once, together, and the other requests keep the other
// half. A charge waits for its turn without a connection, CALL_TURN_WAIT_MS at most; then the request answers
// 503 with Retry-After (CallTurnsBusy), having changed nothing, and a retry is safe (the writes are idempotent).
// An early INSERT never waits: without a turn free (and no charge waiting) the batch is stored the usual way.
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

  /** A turn now if one is free and nobody waits (the caller gives it back with `give`); else false. */
  tryTake(): boolean {
    if (this.held >= this.turns || this.waiting.length > 0) return false;
    this.held++;
    return true;
  }

  private take(): Promise<void> {
    if (this.tryTake()) return Promise.resolve();
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

  /** Gives a turn back: to the first waiter, or free. */
  give(): void {
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

/** Gives a database handle's transactions that wait on something else `turns` turns (half its pool: db/client.ts). */
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
