// A batch the usual path stores (its events carry `_llm`, which the check rewrites, or name parents or `_cost` when
// the early INSERT did not start: the service decides rewritten metadata before the INSERT) has its `events` text
// staged while the server parses and checks it: a transaction of its own begins and copies the events with their
// places into a temporary table (the jsonb read and the rows' extraction, about half of the INSERT's work); once
// the service has its patches, the ingest lock is taken, the kept meters read, the INSERT reads the staged rows
// joined to the patches (resolving parents) and the transaction commits, or rolls back when a parent was not
// found. The usual path did all of it after the parse, one after the other (docs/decisions.md, "Event storage and
// the early INSERT").
//
// The staging holds no event rows and no lock (the ingest lock is taken with the INSERT): the service reads
// customers from the pool meanwhile. A staging PostgreSQL refuses (the text is not the batch JSON.parse read)
// answers store() with null, and the caller stores the batch from its rows.
import { sql, type SQL } from "drizzle-orm";
import type { ReservedSql } from "postgres";
import type { Db } from "../../../db/client.js";
import { orgNowSql } from "../../test-clock/clock.js";
import { DECIDE_WITHIN_MS, dialect, eventsSpan, inFlight, postgresClient, preparable, RESOLVED_IN_SQL, USUAL_ONLY } from "./early-insert.js";
import { batchInserted, createStagedTable, insertWithUpkeep, keptMetersSql, sharedIngestLock, stageBatch, type BatchInserted, type InsertedRow, type RollupMeter } from "../rollups.js";

/** A batch's events staged in a transaction of its own, waiting for their patches. */
export interface StagedInsert {
  /**
   * Inserts the staged events joined to `patches` (JSON of BatchPatch), missing timestamps at `now`, and commits
   * what it did, or rolls back when an event's parent was not found (the answer names them); null when the
   * staging failed (nothing stored: the caller stores the batch itself). Throws when the INSERT or the COMMIT
   * failed.
   */
  store(patches: string, now: SQL): Promise<BatchInserted | null>;
  /** The batch is refused or stored another way: rolls back (not waited for). No-op once stored. */
  abandon(): void;
  /** The organization's now at `wall`, read in the staging transaction. */
  now: Promise<Date>;
}

/** What became of the stagings started in this process (tests read it). */
const stagedInsertCounts = { started: 0, committed: 0, rolledBack: 0, failed: 0 };
/** A copy of the counts (index.ts, ingestCounters). */
export const stagedCounts = (): typeof stagedInsertCounts => ({ ...stagedInsertCounts });

/**
 * Stages the body's events (`text`: the whole body) for the organization when the body is a batch the usual path
 * may store (it names `_llm`, a parent or a `_cost`; the caller tries the early INSERT first); undefined
 * otherwise, when enough early transactions are under way, or the database is not PostgreSQL.
 */
export function startStagedInsert(db: Db, organizationId: string, text: string, wall: Date): StagedInsert | undefined {
  const client = postgresClient(db);
  if (!client) return undefined;
  const running = inFlight.get(client) ?? 0;
  if (running >= Math.floor(client.options.max / 2)) return undefined;
  const span = eventsSpan(text);
  if (!span || !(RESOLVED_IN_SQL.test(text) || USUAL_ONLY.test(text))) return undefined;
  inFlight.set(client, running + 1);
  stagedInsertCounts.started++;
  let readNow!: { resolve: (now: Date) => void; reject: (err: unknown) => void };
  const now = new Promise<Date>((resolve, reject) => (readNow = { resolve, reject }));
  now.catch(() => {});
  let decide!: (store: false | { patches: string; now: SQL }) => void;
  const decided = new Promise<false | { patches: string; now: SQL }>((resolve) => (decide = resolve));
  const giveUp = setTimeout(() => decide(false), DECIDE_WITHIN_MS);
  giveUp.unref();
  const orgNow = orgNowSql(sql`${organizationId}::uuid`, wall);
  const batchText = text.slice(span.start, span.end);
  const abandoned = new Error("staged insert abandoned");
  const stagingFailed = new Error("staging failed");
  let committing = false;
  const done = (async (): Promise<BatchInserted> => {
    let conn: ReservedSql | undefined;
    try {
      const reserved = (conn = await client.reserve());
      const send = <T extends object>(query: SQL) => {
        const { sql: statement, params } = dialect.sqlToQuery(query);
        return reserved.unsafe<T[]>(statement, params as never[], { prepare: preparable(client, statement) }).execute();
      };
      // in one write (prepared, early-insert.ts): BEGIN, the organization's now, the table, the staging. No lock
      // yet: while the service reads customers and parents from the pool, this transaction holds nothing another
      // waits for (a meter's rebuild, and the batches queued behind it, would otherwise wait on it while it waits
      // on them for a connection)
      const ahead = Promise.all([
        reserved.unsafe("BEGIN").execute(),
        send<{ ms: number }>(sql`SELECT floor(extract(epoch FROM ${orgNow}) * 1000)::float8 AS ms`).then(([row]) => readNow.resolve(new Date(row!.ms))),
        reserved.unsafe(createStagedTable).execute(),
      ]);
      ahead.catch(() => {});
      const staged = send(stageBatch(batchText));
      staged.catch(() => {});
      await ahead;
      try {
        await staged;
      } catch {
        throw stagingFailed;
      }
      const decision = await decided;
      if (!decision) throw abandoned;
      committing = true;
      // then the lock and the kept meters read under it, which the INSERT's statement keeps up
      const [, meters] = await Promise.all([send(sharedIngestLock(organizationId)), send<RollupMeter>(keptMetersSql(organizationId))]);
      const [row] = await send<InsertedRow>(insertWithUpkeep(organizationId, { staged: decision.patches, now: decision.now }, meters));
      const result = batchInserted(row);
      // a parent not found: the caller refuses the batch
      if (result.missingParents.length > 0) {
        await reserved.unsafe("ROLLBACK").execute();
        stagedInsertCounts.rolledBack++;
        return result;
      }
      await reserved.unsafe("COMMIT").execute();
      stagedInsertCounts.committed++;
      return result;
    } catch (err) {
      readNow.reject(err);
      if (conn) await conn.unsafe("ROLLBACK").catch(() => {});
      if (err === abandoned) stagedInsertCounts.rolledBack++;
      else stagedInsertCounts.failed++;
      throw err;
    } finally {
      conn?.release();
      inFlight.set(client, (inFlight.get(client) ?? 1) - 1);
      clearTimeout(giveUp);
    }
  })();
  done.catch(() => {});
  return {
    async store(patches, at) {
      decide({ patches, now: at });
      try {
        return await done;
      } catch (err) {
        // nothing stored before the INSERT was sent: the caller stores the batch itself
        if (!committing) return null;
        throw err;
      }
    },
    abandon() {
      decide(false);
    },
    now,
  };
}
