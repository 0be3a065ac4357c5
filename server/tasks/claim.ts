// The loop of a schedule that works off due rows (dunning retries, checkout expiries): claim a batch with
// SKIP LOCKED in a transaction, handle each row in a savepoint at its organization's now, repeat until a batch
// comes back short. The renewals' loop (billing/renewal/run.ts) does the same with batch-wide reads and writes of
// its own. It knows nothing of billing: an organization's now is the caller's `nowOf` (its test clock).
import type { Db, Queryable } from "../db/client.js";

/**
 * What a schedule's pass over due rows is given (renewals, dunning retries, checkout expiries): a test clock's
 * advance passes its organization and a wall clock.
 */
export interface ScheduledPass {
  db: Db;
  log?: { error(err: unknown, msg: string): void };
  /** Rows claimed per transaction. */
  batch?: number;
  /** The wall clock (default: now); each organization's rows are handled at its own now (its test clock, if any). */
  now?: Date;
  /** Only this organization's rows (a test clock's advance). */
  organizationId?: string;
}

export interface ClaimedRow {
  organizationId: string;
}

export interface ClaimLoop<R extends ClaimedRow> {
  db: Db;
  /** Rows claimed per transaction. */
  batch: number;
  /** The wall clock (default: now); each row is handled at its organization's now (its test clock, if any). */
  now?: Date | undefined;
  /** The organization's now at the wall clock `wall` (billing/test-clock's orgNow: a test clock's, if any). */
  nowOf(tx: Queryable, organizationId: string, wall: Date): Promise<Date>;
  /**
   * Claims up to `batch` due rows at `wall`, locked until the transaction ends; none whose id is in `failed`
   * (a row that failed in this run is left for a later one).
   */
  claim(tx: Queryable, wall: Date, batch: number, failed: string[]): Promise<R[]>;
  /** The row's id, as `failed` lists it. */
  idOf(row: R): string;
  /** Handles one row, in a savepoint of the claiming transaction: what it wrote is rolled back if it throws. */
  handle(sp: Queryable, row: R, now: Date): Promise<void>;
  /** After a row's savepoint failed (it is left out of later claims of this run). */
  failed(row: R, err: unknown): void;
  /** After each batch's commit, with the rows handled (what must wait for the commit). */
  committed?(rows: R[]): void;
}

/** Runs the loop until a claim comes back short; returns how many rows were handled. */
export async function runClaimLoop<R extends ClaimedRow>(loop: ClaimLoop<R>): Promise<number> {
  const failed: string[] = [];
  let handled = 0;
  for (;;) {
    const wall = loop.now ?? new Date();
    const done: R[] = [];
    const claimed = await loop.db.transaction(async (tx) => {
      const due = await loop.claim(tx, wall, loop.batch, failed);
      const nows = new Map<string, Date>();
      for (const row of due) {
        try {
          const now = nows.get(row.organizationId) ?? (await loop.nowOf(tx, row.organizationId, wall));
          nows.set(row.organizationId, now);
          await tx.transaction((sp) => loop.handle(sp, row, now));
          done.push(row);
        } catch (err) {
          failed.push(loop.idOf(row));
          loop.failed(row, err);
        }
      }
      return due.length;
    });
    loop.committed?.(done);
    handled += done.length;
    if (claimed < loop.batch) return handled;
  }
}
