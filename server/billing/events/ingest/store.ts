// Storing a parsed batch of usage events: checked (customers of the organization, parents, time) and stored in one
// INSERT with its meters' upkeep, deduplicated by external_id; or committed as the early INSERT started it.
import type { Db } from "../../../db/client.js";
import { missingCustomerIds } from "../../customers/service.js";
import { validationError, type ValidationIssue } from "../../errors.js";
import { sql } from "drizzle-orm";
import { eventsSpan, type EarlyInsert } from "./early-insert.js";
import type { EventsIngestInput } from "./input.js";
import * as repo from "../repository.js";
import * as rollups from "../rollups.js";

/**
 * How the usual path's INSERTs read their batch in this process (tests read it): from the body's text with
 * patches, from the rows written out again, and how many of the former PostgreSQL refused (then the latter).
 */
const usualInsertCounts = { text: 0, rows: 0, textRefused: 0 };
/** A copy of the counts (index.ts, ingestCounters). */
export const usualCounts = (): typeof usualInsertCounts => ({ ...usualInsertCounts });

/** Events may carry a timestamp this far ahead of the server's clock (clients' clocks drift). */
export const INGEST_CLOCK_SKEW_MS = 5 * 60 * 1000;

const at = (i: number, field: string, msg: string, input?: unknown): ValidationIssue => ({
  loc: ["body", "events", i, field],
  msg,
  type: "value_error",
  ...(input === undefined ? {} : { input }),
});

/** What an ingest answers: how many events were stored, and how many were skipped as seen before. */
export interface IngestResult {
  inserted: number;
  duplicates: number;
}

/**
 * Stores a batch in one INSERT. Every event is checked first (customers of this organization, parents,
 * no future timestamps); one bad event refuses the whole batch with nothing stored. An external_id seen
 * before — earlier in the batch or stored — makes the event a duplicate, skipped and counted.
 *
 * `early`: the body's events, already being inserted as sent (early-insert.ts), committed if the batch passes
 * and needs nothing the body does not say; then the answer is null if that INSERT failed after all (the caller
 * stores the batch without it). Until it is decided this function reads nothing from the pool: a pool held by
 * transactions waiting on the early one's rows would never answer it.
 */
export function storeEvents(
  db: Db,
  organizationId: string,
  input: EventsIngestInput,
  now = Date.now(),
  early?: EarlyInsert,
  text?: string,
): Promise<IngestResult | null> {
  const events = input.events;
  if (!early) return ingestUsual(db, organizationId, events, now, text);
  const issues = eventIssues(events, organizationId, now);
  if (issues.length > 0) return Promise.reject(validationError(issues));
  // the early INSERT holds what the rows of the usual path would, bar their ids; the customer ids it names are
  // read in its transaction. Not awaited here: while the request waits on the database, nothing holds the
  // batch (its objects die young, not copied by each young-generation collection meanwhile) but the customer
  // id and parent of each event, for the answer should one be missing
  const named = events.map((e) => e.customer_id);
  const customerIds = [...new Set(named.filter((id): id is string => id !== undefined))];
  return commitEarly(early, events.length, customerIds.length > 0 ? named : [], customerIds, parentsOf(events));
}

async function commitEarly(
  early: EarlyInsert,
  total: number,
  named: Array<string | undefined>,
  customerIds: string[],
  parents: Array<string | null | undefined>,
): Promise<IngestResult | null> {
  const outcome = await early.commit(customerIds);
  if (outcome === null) return null;
  if ("missingCustomerIds" in outcome) {
    // what the usual path answers (its other checks passed already)
    const missing = new Set(outcome.missingCustomerIds);
    throw validationError(named.flatMap((id, i) => (id !== undefined && missing.has(id) ? [at(i, "customer_id", "Customer not found.", id)] : [])));
  }
  if ("missingParents" in outcome) throw parentsNotFound(parents, outcome.missingParents);
  return { inserted: outcome.inserted, duplicates: total - outcome.inserted };
}

/** Each event's parent as sent, for parentsNotFound (none when no event names one). */
const parentsOf = (events: EventsIngestInput["events"]): Array<string | null | undefined> =>
  events.some((e) => e.parent_id) ? events.map((e) => e.parent_id) : [];

/** The 422 of events whose parent was not found (`places`, 0-based; `parents`: each event's, as sent). */
const parentsNotFound = (parents: ReadonlyArray<string | null | undefined>, places: readonly number[]) =>
  validationError(places.map((i) => at(i, "parent_id", "Parent event not found.", parents[i] ?? undefined)));

/** What is wrong with the events that the organization's customers and events need not be read for. */
function eventIssues(events: EventsIngestInput["events"], organizationId: string, now: number, missing?: Set<string>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const latest = now + INGEST_CLOCK_SKEW_MS;
  events.forEach((e, i) => {
    if (e.organization_id && e.organization_id.toLowerCase() !== organizationId) {
      issues.push(at(i, "organization_id", "Organization not found.", e.organization_id));
    }
    if (e.customer_id && missing?.has(e.customer_id)) issues.push(at(i, "customer_id", "Customer not found.", e.customer_id));
    if (e.timestamp && Date.parse(e.timestamp) > latest) {
      issues.push(at(i, "timestamp", "Timestamp must be in the past.", e.timestamp));
    }
  });
  return issues;
}

/**
 * `text`: the request body the events were parsed from, when there is one. Then the INSERT reads the events
 * from its `events` array as sent, with the `_cost` and `_llm` the check rewrote for some of them (patches),
 * instead of from the rows written out again: a megabyte less to write, send and read. Parents are resolved and
 * repeated external_ids skipped by the INSERT's statement (rollups.ts).
 */
async function ingestUsual(
  db: Db,
  organizationId: string,
  events: EventsIngestInput["events"],
  now: number,
  text?: string,
): Promise<IngestResult> {
  const customerIds = events.flatMap((e) => (e.customer_id ? [e.customer_id] : []));
  const missing = new Set(customerIds.length > 0 ? await missingCustomerIds(db, organizationId, customerIds) : []);
  const issues = eventIssues(events, organizationId, now, missing);
  if (issues.length > 0) throw validationError(issues);
  const nowIso = new Date(now).toISOString();
  const rows: repo.EventInsert[] = events.map((e, i) => ({
    n: i + 1,
    name: e.name,
    timestamp: e.timestamp ?? nowIso,
    customer_id: e.customer_id?.toLowerCase() ?? null,
    external_customer_id: e.external_customer_id ?? null,
    external_id: e.external_id ?? null,
    parent_id: e.parent_id ?? null,
    metadata: e.metadata ?? {},
  }));
  const parents = parentsOf(events);
  const inserted = (stored: rollups.BatchInserted): number => {
    if (stored.missingParents.length > 0) throw parentsNotFound(parents, stored.missingParents);
    return stored.inserted;
  };

  // the batch and the rollups of the meters it feeds, in one statement under the organization's ingest lock (a
  // parent not found is thrown inside the transaction: rolled back)
  const store = (batch: rollups.BatchRows) =>
    db.transaction(async (tx) => inserted(await rollups.insertEventsWithRollups(tx, organizationId, batch)));
  const span = text === undefined ? undefined : eventsSpan(text);
  let count: number | undefined;
  if (span && text !== undefined) {
    const batch = { text: text.slice(span.start, span.end), now: sql`${nowIso}::timestamptz`, patches: JSON.stringify(patchesOf(rows)) };
    // PostgreSQL reads the text otherwise than JSON.parse read the body (a repeated `events` key, a \u0000):
    // a data exception, and the rows are sent instead
    usualInsertCounts.text++;
    count = await store(batch).catch((err: unknown) => {
      if (!sqlState(err)?.startsWith("22")) throw err;
      usualInsertCounts.textRefused++;
      return undefined;
    });
  }
  if (count === undefined) {
    usualInsertCounts.rows++;
    count = await store({ rows });
  }
  return { inserted: count, duplicates: events.length - count };
}

const RESERVED_METADATA = ["_cost", "_llm"] as const;

/** What the INSERT must take from `rows` rather than from the body's text (rollups.ts, BatchPatch). */
function patchesOf(rows: repo.EventInsert[]): rollups.BatchPatch[] {
  const patches: rollups.BatchPatch[] = [];
  for (const row of rows) {
    let reserved: Record<string, unknown> | undefined;
    for (const key of RESERVED_METADATA) if (row.metadata[key] !== undefined) (reserved ??= {})[key] = row.metadata[key];
    if (reserved) patches.push({ n: row.n, reserved });
  }
  return patches;
}

/** The SQLSTATE of a database error, through the query builder's wrappers (`cause`), if any. */
function sqlState(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}
