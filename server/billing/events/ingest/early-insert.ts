// A batch's INSERT started from the request body's text, before the server has parsed and checked the batch,
// and committed only once it has (docs/decisions.md, "Event storage and the early INSERT"). A 1,000-event
// batch of 1 MiB costs PostgreSQL 35–55 ms (the jsonb parse, the heap and its indexes) and the server about
// 10 (scan, parse, checks); one after the other the answer took 65–70 ms, side by side 8–10 ms less.
//
// Only a batch the statement can store as the service would takes this path: a body `{"events": [...]}` whose
// first event passes the check without zod (every field a string in its bounds, scalar metadata, `_cost`,
// `_llm`). A body naming parents, `_cost` or `_llm` anywhere has its statement resolve the parents and rewrite
// `_cost` and `_llm` as the check does (rollups.ts). The service commits it when every event passed the check
// without zod, changed by it only as the statement changes it, the customer ids it names are live customers of
// the organization (read in the same transaction, behind the INSERT) and every parent was found; anything else
// (a refusal, metadata zod rewrote) rolls it back and is answered or stored the usual way. Refused bodies
// answer without waiting for the rollback.
import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { ReservedSql, Sql } from "postgres";
import { callTurnsOf } from "../../../db/call-turns.js";
import type { Db } from "../../../db/client.js";
import { isSpace } from "../../../http/json-sliced.js";
import { orgNowSql } from "../../clock.js";
import { eventInputFast } from "./input.js";
import { liveCustomerIdsSql } from "../../customers/service.js";
import { batchInserted, insertWithUpkeep, keptMetersSql, sharedIngestLock, type BatchRows, type InsertedRow, type RollupMeter } from "../rollups.js";

/**
 * What became of a batch the caller let commit: the rows inserted; or the customer ids it names that are not
 * live customers of the organization, or the places (0-based) of events whose parent was not found (rolled
 * back: the batch is refused); or null when nothing was stored (the INSERT failed: the caller stores the batch
 * itself).
 */
export type EarlyOutcome = { inserted: number } | EarlyRefusal | null;
type EarlyRefusal = { missingCustomerIds: string[] } | { missingParents: number[] };

/** A batch's INSERT under way in its own transaction. */
export interface EarlyInsert {
  /**
   * The batch was checked and may be stored as sent, once `customerIds` (UUIDs, the ones its events name) are
   * found to be live customers of the organization, which the early transaction reads behind the INSERT: commits
   * then. Throws when the COMMIT itself failed.
   */
  commit(customerIds?: readonly string[]): Promise<EarlyOutcome>;
  /** The batch is refused or stored another way: rolls back (not waited for). No-op after commit. */
  abandon(): void;
  /**
   * Whether the statement resolves parents and rewrites `_cost` and `_llm` (the body names them): otherwise a
   * batch needing any of it is not the caller's to commit.
   */
  resolves: boolean;
  /**
   * The organization's now at `wall`, read in the early transaction (the caller reads nothing from the pool
   * until it decides); rejects if that transaction failed first.
   */
  now: Promise<Date>;
}

/** How long an early transaction waits for commit() or abandon() before it rolls back by itself. */
const DECIDE_WITHIN_MS = 30_000;

/**
 * What became of the early INSERTs started in this process (tests read it); `metersChanged`: how many were sent
 * with an organization's remembered kept meters that the transaction then read otherwise (and sent again).
 */
const earlyInsertCounts = { started: 0, committed: 0, rolledBack: 0, failed: 0, metersChanged: 0 };
/** A copy of the counts (index.ts, ingestCounters). */
export const earlyCounts = (): typeof earlyInsertCounts => ({ ...earlyInsertCounts });

/**
 * The kept meters last read per organization, per database client: the INSERT, whose statement carries their
 * upkeep, is sent with them at once, behind BEGIN, the lock and the meters' read, instead of a round trip later
 * (the reply would wait for this thread, busy parsing the body). The read is still made, under the lock, and
 * decides: when it differs, the INSERT is rolled back to a savepoint before it and sent again with what was read.
 * Under the shared ingest lock a meter can become ready only by a rebuild, which takes the lock exclusively.
 */
const metersSeen = new WeakMap<Sql, Map<string, RollupMeter[]>>();
/** Organizations remembered per client; the oldest is forgotten past it. */
const METERS_SEEN_MAX = 1024;

function rememberMeters(client: Sql, organizationId: string, meters: RollupMeter[]): void {
  let seen = metersSeen.get(client);
  if (!seen) metersSeen.set(client, (seen = new Map()));
  seen.delete(organizationId);
  seen.set(organizationId, meters);
  if (seen.size > METERS_SEEN_MAX) seen.delete(seen.keys().next().value as string);
}

/** Same meters, same definitions, same order (the read orders them by id). */
const sameMeters = (a: readonly RollupMeter[], b: readonly RollupMeter[]): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Where a body's `events` array starts and ends ([start, end) of `text`), for a body `{"events": [...]}` only. */
export function eventsSpan(text: string): { start: number; end: number } | undefined {
  const head = /^\s*\{\s*"events"\s*:\s*\[/.exec(text.slice(0, 64));
  if (!head) return undefined;
  let end = text.length;
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
  if (text.charCodeAt(end - 1) !== 0x7d) return undefined; // }
  end--;
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
  if (text.charCodeAt(end - 1) !== 0x5d) return undefined; // ]
  return { start: head[0].length - 1, end };
}

/**
 * A parent named, or a `_cost` or `_llm` (which the check rewrites), anywhere in the body (about 0.1 ms for
 * 1 MiB): the early statement then resolves parents and rewrites those in SQL (a plain batch's does neither). A
 * metadata value that merely looks so costs that work, no more.
 */
export const RESOLVED_IN_SQL = /"parent_id"\s*:\s*"|"_cost"\s*:|"_llm"\s*:/;

/** The longest first event looked at: a plain event is a few KiB at most (500-character metadata strings). */
const FIRST_EVENT_MAX = 64 * 1024;

/**
 * Whether the array's first element is an event the early statement stores as the service would (and not an
 * empty array): `resolve`, whether that statement resolves parents and rewrites `_cost` and `_llm`.
 */
function firstEventFits(text: string, start: number, resolve: boolean): boolean {
  let i = start + 1;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 0x7b) return false; // {
  let depth = 0;
  const limit = Math.min(text.length, i + FIRST_EVENT_MAX);
  for (let j = i; j < limit; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x22) {
      for (j++; j < limit; j++) {
        const d = text.charCodeAt(j);
        if (d === 0x5c) j++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) {
      let first: unknown;
      try {
        first = JSON.parse(text.slice(i, j + 1));
      } catch {
        return false;
      }
      const checked = eventInputFast(first, ["body", "events", 0]);
      if (checked === undefined || !("value" in checked)) return false;
      return resolve ? checked.changed !== true : !checked.changed && !checked.value.parent_id;
    }
  }
  return false;
}

/** The postgres.js client under a drizzle handle (the early transaction sends its statements itself, in a row). */
function postgresClient(db: Db): Sql | undefined {
  const client = (db as unknown as { $client?: unknown }).$client;
  return typeof client === "function" && "begin" in client ? (client as Sql) : undefined;
}

const dialect = new PgDialect();

/**
 * The statements of the early flight are prepared (postgres.js keeps them per connection): an unprepared query
 * with parameters is sent as Parse and Describe, and its Bind and Execute — and every query queued behind it —
 * only once the description has come back and this thread, busy parsing the same body, has read it. Five such
 * round trips put the INSERT on the wire 8–12 ms after BEGIN; prepared, the flight goes in one write. The
 * INSERT's text carries the kept meters' upkeep, so it differs per set of meters: the first
 * PREPARED_TEXTS_MAX distinct texts of a process are prepared (a statement each on every connection, for the
 * connection's life), later ones are sent unprepared, so no seller's meters can grow the server's memory.
 */
const preparedTexts = new WeakMap<Sql, Set<string>>();
export const PREPARED_TEXTS_MAX = 64;

/** Whether the early flight sends `statement` prepared on this client's connections (see above). */
export function preparable(client: Sql, statement: string): boolean {
  let texts = preparedTexts.get(client);
  if (!texts) preparedTexts.set(client, (texts = new Set()));
  if (texts.has(statement)) return true;
  if (texts.size >= PREPARED_TEXTS_MAX) return false;
  texts.add(statement);
  return true;
}

/** A query of the early flight on its reserved connection, prepared while the texts are few (see preparable). */
function sender(client: Sql, reserved: ReservedSql) {
  return <T extends object>(query: SQL) => {
    const { sql: statement, params } = dialect.sqlToQuery(query);
    return reserved.unsafe<T[]>(statement, params as never[], { prepare: preparable(client, statement) }).execute();
  };
}

/**
 * Sends the early flight on the reserved connection; answers once the kept meters are read, with the INSERT still
 * on its way (wrapped, so that waiting for it stays the caller's). `readNow` gets the organization's now.
 */
async function sendFlight(
  send: ReturnType<typeof sender>,
  reserved: ReservedSql,
  client: Sql,
  organizationId: string,
  orgNow: SQL,
  batch: BatchRows,
  readNow: (now: Date) => void,
): Promise<{ insert: Promise<InsertedRow[]> }> {
  // sent together, in this order, without waiting for this thread (busy parsing the same body meanwhile):
  // BEGIN, the organization's now, the lock, the kept meters (read under it); then the INSERT with their
  // upkeep in its statement, as the usual path sends it (rollups.ts: the order rows are locked in). With
  // the organization's meters remembered, the INSERT goes in the same flight, behind a savepoint
  const remembered = metersSeen.get(client)?.get(organizationId);
  const ahead = Promise.all([
    reserved.unsafe("BEGIN").execute(),
    send<{ ms: number }>(sql`SELECT floor(extract(epoch FROM ${orgNow}) * 1000)::float8 AS ms`).then(([row]) => readNow(new Date(row!.ms))),
    send(sharedIngestLock(organizationId)),
    send<RollupMeter>(keptMetersSql(organizationId)),
  ]);
  let insert: Promise<InsertedRow[]>;
  if (remembered) {
    const guess = reserved.unsafe("SAVEPOINT early").execute();
    const guessed = send<InsertedRow>(insertWithUpkeep(organizationId, batch, remembered));
    guessed.catch(() => {});
    guess.catch(() => {});
    const [, , , meters] = await ahead;
    if (sameMeters(meters, remembered)) insert = guessed;
    else {
      earlyInsertCounts.metersChanged++;
      rememberMeters(client, organizationId, meters);
      await guessed.catch(() => {});
      await reserved.unsafe("ROLLBACK TO SAVEPOINT early").execute();
      insert = send<InsertedRow>(insertWithUpkeep(organizationId, batch, meters));
    }
  } else {
    const [, , , meters] = await ahead;
    rememberMeters(client, organizationId, meters);
    insert = send<InsertedRow>(insertWithUpkeep(organizationId, batch, meters));
  }
  return { insert };
}

/**
 * Starts the INSERT of the body's events (`text`: the whole body) for the organization, in a transaction of its
 * own that waits for commit() or abandon(); undefined when the body does not look like a batch stored as sent,
 * no turn of the pool is free (db/call-turns.ts), or the database is not PostgreSQL. `wall`: the wall clock the
 * service reads the organization's now at (the timestamp of an event sent without one).
 */
export function startEarlyInsert(db: Db, organizationId: string, text: string, wall: Date): EarlyInsert | undefined {
  const client = postgresClient(db);
  // a pool of one connection has no half to spare (its turns are there for the charges)
  if (!client || client.options.max < 2) return undefined;
  const span = eventsSpan(text);
  if (!span) return undefined;
  const resolve = RESOLVED_IN_SQL.test(text);
  if (!firstEventFits(text, span.start, resolve)) return undefined;
  // an early transaction holds a connection until its batch is decided (the request deciding reads nothing from
  // the pool meanwhile; the rest of the server does): it takes one of the pool's turns (db/call-turns.ts), which
  // it shares with charges at the processor, and without one free the batch is stored the usual way
  const turns = callTurnsOf(db);
  if (!turns?.tryTake()) return undefined;
  earlyInsertCounts.started++;
  let readNow!: { resolve: (now: Date) => void; reject: (err: unknown) => void };
  const now = new Promise<Date>((resolve, reject) => (readNow = { resolve, reject }));
  now.catch(() => {});
  // false: roll back; else commit once these customer ids are found
  let decide!: (commit: false | { customerIds: readonly string[] }) => void;
  const decided = new Promise<false | { customerIds: readonly string[] }>((resolve) => (decide = resolve));
  // the caller decides within milliseconds; should it never, the connection is not held for good
  const giveUp = setTimeout(() => decide(false), DECIDE_WITHIN_MS);
  giveUp.unref();
  const orgNow = orgNowSql(sql`${organizationId}::uuid`, wall);
  const batch: BatchRows = { text: text.slice(span.start, span.end), now: orgNow, ...(resolve ? { resolve: true as const } : {}) };
  const abandoned = new Error("early insert abandoned");
  // once the INSERT succeeded and the COMMIT was sent, a failure may have stored the batch: not the caller's to redo
  let inserted = false;
  let commitSent = false;
  const done = (async () => {
    let conn: ReservedSql | undefined;
    try {
      const reserved = (conn = await client.reserve());
      const send = sender(client, reserved);
      const { insert } = await sendFlight(send, reserved, client, organizationId, orgNow, batch, readNow.resolve);
      // the decision usually comes while PostgreSQL is still at the INSERT: the COMMIT is sent at once, to run
      // right after it (after a failed statement, PostgreSQL ends the transaction with a ROLLBACK instead); with
      // customer ids to find, their read is sent at once and the COMMIT once it answered; with parents to
      // resolve, the COMMIT waits for the INSERT's answer (every parent found)
      const commit = decided.then(async (ok): Promise<EarlyRefusal | undefined> => {
        if (!ok) return undefined;
        if (ok.customerIds.length > 0) {
          const found = new Set((await send<{ id: string }>(liveCustomerIdsSql(organizationId, ok.customerIds))).map((r) => r.id));
          const missing = ok.customerIds.filter((id) => !found.has(id.toLowerCase()));
          if (missing.length > 0) return { missingCustomerIds: missing };
        }
        if (resolve) {
          const { missingParents } = batchInserted((await insert)[0]);
          if (missingParents.length > 0) return { missingParents };
        }
        commitSent = true;
        await reserved.unsafe("COMMIT").execute();
        return undefined;
      });
      commit.catch(() => {});
      const [row] = await insert;
      inserted = true;
      if (!(await decided)) throw abandoned;
      const refused = await commit;
      if (refused) {
        await reserved.unsafe("ROLLBACK").execute();
        earlyInsertCounts.rolledBack++;
        return refused;
      }
      earlyInsertCounts.committed++;
      return { inserted: row?.n ?? 0 };
    } catch (err) {
      readNow.reject(err);
      if (conn && !commitSent) await conn.unsafe("ROLLBACK").catch(() => {});
      if (err === abandoned) earlyInsertCounts.rolledBack++;
      else earlyInsertCounts.failed++;
      throw err;
    } finally {
      conn?.release();
      turns.give();
      clearTimeout(giveUp);
    }
  })();
  // a refusal does not wait for the rollback; a failed INSERT is the caller's to redo (commit() answers null)
  done.catch(() => {});
  return {
    async commit(customerIds = []) {
      decide({ customerIds });
      try {
        return await done;
      } catch (err) {
        if (inserted && commitSent) throw err;
        return null;
      }
    },
    abandon() {
      decide(false);
    },
    resolves: resolve,
    now,
  };
}
