// Ingestion of usage events: a batch checked (customers of the organization, parents, time) and stored in one
// INSERT with its meters' upkeep, deduplicated by external_id; or committed as the early INSERT started it.
import { v7 as uuidV7 } from "uuid";
import type { Db, Queryable } from "../../db/client.js";
import { missingCustomerIds } from "../customers/service.js";
import { isUuid, validationError, type ValidationIssue } from "../http.js";
import type { EarlyInsert } from "./early-insert.js";
import type { EventsIngestInput } from "./ingest-input.js";
import * as repo from "./repository.js";
import * as rollups from "./rollups.js";

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
export function ingestEvents(
  db: Db,
  organizationId: string,
  input: EventsIngestInput,
  now = Date.now(),
  early?: EarlyInsert,
): Promise<IngestResult | null> {
  const events = input.events;
  // parents are resolved to ids the usual way
  if (early && events.some((e) => e.parent_id)) {
    early.abandon();
    early = undefined;
  }
  if (!early) return ingestUsual(db, organizationId, events, now);
  const issues = eventIssues(events, organizationId, now);
  if (issues.length > 0) return Promise.reject(validationError(issues));
  // the early INSERT holds what the rows of the usual path would, bar their ids; the customer ids it names are
  // read in its transaction. Not awaited here: while the request waits on the database, nothing holds the
  // batch (its objects die young, not copied by each young-generation collection meanwhile) but the customer
  // id of each event, for the answer should one be missing
  const named = events.map((e) => e.customer_id);
  const customerIds = [...new Set(named.filter((id): id is string => id !== undefined))];
  return commitEarly(early, events.length, customerIds.length > 0 ? named : [], customerIds);
}

async function commitEarly(early: EarlyInsert, total: number, named: Array<string | undefined>, customerIds: string[]): Promise<IngestResult | null> {
  const outcome = await early.commit(customerIds);
  if (outcome === null) return null;
  if ("missingCustomerIds" in outcome) {
    // what the usual path answers (its other checks passed already)
    const missing = new Set(outcome.missingCustomerIds);
    throw validationError(named.flatMap((id, i) => (id !== undefined && missing.has(id) ? [at(i, "customer_id", "Customer not found.", id)] : [])));
  }
  return { inserted: outcome.inserted, duplicates: total - outcome.inserted };
}

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

async function ingestUsual(db: Db, organizationId: string, events: EventsIngestInput["events"], now: number): Promise<IngestResult> {
  const customerIds = events.flatMap((e) => (e.customer_id ? [e.customer_id] : []));
  const missing = new Set(customerIds.length > 0 ? await missingCustomerIds(db, organizationId, customerIds) : []);
  const issues = eventIssues(events, organizationId, now, missing);
  if (issues.length > 0) throw validationError(issues);
  const nowIso = new Date(now).toISOString();

  // ids are assigned here for events that others in the batch may name as their parent
  const seen = new Set<string>();
  const batchIds = new Map<string, string>();
  const rows: repo.EventInsert[] = [];
  const rowIndex: number[] = [];
  events.forEach((e, i) => {
    if (e.external_id) {
      if (seen.has(e.external_id)) return;
      seen.add(e.external_id);
    }
    const id = e.external_id ? uuidV7() : null;
    if (e.external_id && id) batchIds.set(e.external_id, id);
    rowIndex.push(i);
    rows.push({
      id,
      name: e.name,
      timestamp: e.timestamp ?? nowIso,
      customer_id: e.customer_id?.toLowerCase() ?? null,
      external_customer_id: e.external_customer_id ?? null,
      external_id: e.external_id ?? null,
      parent_id: e.parent_id ?? null,
      metadata: e.metadata ?? {},
    });
  });
  await resolveParents(db, organizationId, rows, rowIndex, batchIds, issues);
  if (issues.length > 0) throw validationError(issues);

  // the batch and the rollups of the meters it feeds, in one statement under the organization's ingest lock
  const inserted = await db.transaction((tx) => rollups.insertEventsWithRollups(tx, organizationId, { rows }));
  return { inserted, duplicates: events.length - inserted };
}

/**
 * parent_id names an event by its id or its external_id: a stored event of this organization first (a
 * duplicate in the batch is not stored again), else one in the same batch.
 */
async function resolveParents(
  db: Queryable,
  organizationId: string,
  rows: repo.EventInsert[],
  rowIndex: number[],
  batchIds: Map<string, string>,
  issues: ValidationIssue[],
): Promise<void> {
  const refs = [...new Set(rows.flatMap((r) => (r.parent_id ? [r.parent_id] : [])))];
  if (refs.length === 0) return;
  const uuidRefs = refs.filter(isUuid).map((r) => r.toLowerCase());
  const byRef = new Map<string, string>();
  for (const s of await repo.findEventRefs(db, organizationId, uuidRefs, refs)) {
    byRef.set(s.id, s.id);
    if (s.externalId) byRef.set(s.externalId, s.id);
  }
  rows.forEach((row, n) => {
    const ref = row.parent_id;
    if (!ref) return;
    const resolved = byRef.get(ref) ?? byRef.get(ref.toLowerCase()) ?? batchIds.get(ref);
    if (resolved && resolved !== row.id) row.parent_id = resolved;
    else issues.push(at(rowIndex[n] ?? n, "parent_id", "Parent event not found.", ref));
  });
}
