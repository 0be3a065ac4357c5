// The one door of event ingestion: `ingest` takes a request's body and stores its batch. On PostgreSQL, a body
// still unparsed (UnparsedJson) has its INSERT started from its text at once, while it is parsed and checked
// here (early-insert.ts); store.ts checks and stores the parsed batch (or commits the early INSERT).
import type { Database, Db } from "../../../db/client.js";
import { UnparsedJson } from "../../../http/input-guard.js";
import { parseWith } from "../../http.js";
import { orgNow } from "../../clock.js";
import { earlyCounts, startEarlyInsert, type EarlyInsert } from "./early-insert.js";
import { EventInput, EventsIngestEnvelope, eventInputFast } from "./input.js";
import { parseArraySliced } from "./sliced-parse.js";
import { storeEvents, usualCounts, type IngestResult } from "./store.js";
import { eventsIngested } from "../../../metrics/registry.js";

export { EventsIngestInput } from "./input.js";
export type { IngestResult } from "./store.js";

/** The customers a batch names (usage-alerts/check.ts's NamedCustomers): filled while the batch is parsed. */
export interface NamedCustomers {
  ids: Set<string>;
  externalIds: Set<string>;
  /** Each event's customer (`i:` and the lower-cased id, or `x:` and the external id) and metadata. */
  events: Array<{ customer: string; metadata: Record<string, unknown> | undefined }>;
}

/**
 * What became of the batches ingested in this process (tests read it): the early INSERTs, and how the usual
 * path's INSERTs read their batch (from the body's text with patches, from the rows, text refused).
 */
export function ingestCounters() {
  return { early: earlyCounts(), usual: usualCounts() };
}

/**
 * Parses, checks and stores an ingest body (`body`: the request's, UnparsedJson when the input guard left it
 * unparsed) for the organization: one bad event refuses the whole batch (422, nothing stored); an external_id
 * seen before is skipped and counted. `named` collects the customers the batch names.
 */
export async function ingest(
  deps: { db: Db; driver?: Database["driver"] | undefined },
  organizationId: string,
  body: unknown,
  named: NamedCustomers = { ids: new Set(), externalIds: new Set(), events: [] },
): Promise<IngestResult> {
  const { db } = deps;
  const wall = new Date();
  const text = deps.driver === "postgres" && body instanceof UnparsedJson ? body.text : undefined;
  // a batch that looks storable as sent starts its INSERT from the body's text now, while it is parsed and
  // checked here; PGlite runs on this thread, so there it would only come first
  const early = text !== undefined ? startEarlyInsert(db, organizationId, text, wall) : undefined;
  try {
    // null: the early INSERT failed after all (PostgreSQL read the text otherwise than JSON.parse, e.g. a
    // repeated key): the body is parsed again and stored the usual way
    const result = (await ingestBody(db, organizationId, body, wall, early, named)) ?? (await ingestBody(db, organizationId, body, wall, undefined, named))!;
    eventsIngested.inc(result.inserted);
    return result;
  } finally {
    early?.abandon();
  }
}

/**
 * Parses and checks the body, then stores it (or commits the early INSERT). Returns the promise of the store
 * without awaiting it, so that while the request waits on the database nothing holds the parsed batch.
 */
async function ingestBody(
  db: Db,
  organizationId: string,
  body: unknown,
  wall: Date,
  early: EarlyInsert | undefined,
  named: NamedCustomers,
) {
  // the envelope at once, the events in slices (1,000 events with metadata: tens of ms of zod in one go)
  const envelope = parseWith(EventsIngestEnvelope, (body instanceof UnparsedJson ? await body.parse() : body) ?? {}, "body");
  // timestamps may not be ahead of the organization's now (its test clock's, in a sandbox): read meanwhile
  // (by the early transaction when there is one: nothing is read from the pool until it is decided)
  const now = early ? early.now.catch(() => orgNow(db, organizationId, wall)) : orgNow(db, organizationId, wall);
  now.catch(() => {}); // a refused batch does not wait for it
  const counts = { notAsSent: 0, inSql: 0 };
  const events = await parseArraySliced(EventInput, envelope.events, ["events"], eventInputFast, counts);
  for (const e of events) {
    if (e.customer_id) {
      const id = e.customer_id.toLowerCase();
      named.ids.add(id);
      named.events.push({ customer: `i:${id}`, metadata: e.metadata });
    } else if (e.external_customer_id) {
      named.externalIds.add(e.external_customer_id);
      named.events.push({ customer: `x:${e.external_customer_id}`, metadata: e.metadata });
    }
  }
  // the early INSERT does not hold the batch when the check rewrote what it checked otherwise than its statement
  // does, or when that statement neither resolves parents nor rewrites `_cost` or `_llm` and the batch needs it (a
  // key its text hides behind an escape): it is rolled back first (the usual INSERT would wait for its rows)
  if (early && (counts.notAsSent > 0 || (!early.resolves && (counts.inSql > 0 || events.some((e) => e.parent_id))))) {
    early.abandon();
    early = undefined;
  }
  const text = body instanceof UnparsedJson ? body.text : undefined;
  return storeEvents(db, organizationId, { events }, (await now).getTime(), early, text);
}
