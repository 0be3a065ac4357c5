// /v1/events: ingest, list, names, get (Polar wire).
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { FilterInput } from "../../../shared/meter-filter.js";
import type { BillingDeps } from "../deps.js";
import { jsonBody, LARGE_BODY_LIMIT, UnparsedJson } from "../../http/input-guard.js";
import { datetimeInput, metadataQuery, page, paginationQuery, parseWith, pathId, queryArray, queryInt } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { parseArraySliced } from "./ingest/sliced-parse.js";
import { sortingQuery } from "../listing.js";
import { meterSelection } from "../meters/service.js";
import { startEarlyInsert, type EarlyInsert } from "./ingest/early-insert.js";
import { startStagedInsert, type StagedInsert } from "./ingest/staged-insert.js";
import { ingestEvents } from "./ingest/ingest.js";
import { namedCustomers, type NamedCustomers } from "../meters/alerts/check.js";
import { checkAfterIngest } from "../meters/alerts/coalesce.js";
import * as service from "./service.js";
import { orgNow } from "../test-clock/clock.js";
import { documented, route, type V1App } from "../contract.js";

const uuid = z.uuid({ message: "Input should be a valid UUID" });
const source = z.enum(["user", "system"]);

/** `filter` is a meter filter sent as a JSON string. */
const filterQuery = z
  .string()
  .max(20_000)
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "Invalid JSON" });
      return z.NEVER;
    }
  })
  .pipe(FilterInput);

const customerFilters = {
  organization_id: queryArray(uuid).optional(),
  customer_id: queryArray(uuid).optional(),
  external_customer_id: queryArray(z.string().min(1).max(256)).optional(),
  source: queryArray(source).optional(),
  query: z.string().max(1000).optional(),
};

const ListQuery = z.object({
  ...customerFilters,
  filter: filterQuery.optional(),
  start_timestamp: datetimeInput.optional(),
  end_timestamp: datetimeInput.optional(),
  meter_id: uuid.optional(),
  name: queryArray(z.string().min(1).max(128)).optional(),
  parent_id: uuid.optional(),
  // 0 = root events only; deeper levels are not filtered (till has no closure table): every event is listed
  depth: queryInt(0, 5).optional(),
  metadata: metadataQuery.optional(),
  sorting: sortingQuery(["timestamp"], [{ key: "timestamp", desc: true }]),
  ...paginationQuery,
});

const NamesQuery = z.object({
  ...customerFilters,
  sorting: sortingQuery(["name", "occurrences", "first_seen", "last_seen"], [{ key: "last_seen", desc: true }]),
  ...paginationQuery,
});

const otherOrganization = (ids: string[] | undefined, organizationId: string) =>
  ids !== undefined && !ids.map((id) => id.toLowerCase()).includes(organizationId);

export function eventRoutes(app: V1App, { db, driver }: BillingDeps): void {
  app.post("/events/ingest", route({ scope: "events:write", parsesOwnJson: true, bodyLimit: LARGE_BODY_LIMIT, operationId: "events:ingest", body: documented(service.EventsIngestInput), responses: { 200: "EventsIngestResponse", 422: "HTTPValidationError" } }), async (req) => {
    const { organizationId } = scopeOf(req);
    const wall = new Date();
    // a batch that looks storable as sent starts its INSERT from the body's text now, while it is parsed and
    // checked here (early-insert.ts); PGlite runs on this thread, so there it would only come first
    const early = driver === "postgres" && req.body instanceof UnparsedJson ? startEarlyInsert(db, organizationId, req.body.text, wall) : undefined;
    // one the usual path stores (parents, _cost) has its events staged meanwhile instead (staged-insert.ts)
    const staged = !early && driver === "postgres" && req.body instanceof UnparsedJson ? startStagedInsert(db, organizationId, req.body.text, wall) : undefined;
    try {
      // null: the early INSERT failed after all (PostgreSQL read the text otherwise than JSON.parse, e.g. a
      // repeated key): the body is parsed again and stored the usual way
      const named = namedCustomers();
      const result = (await ingestBody(req, organizationId, wall, early, staged, named)) ?? (await ingestBody(req, organizationId, wall, undefined, undefined, named))!;
      // usage alerts are found now, on what this batch stored (meters/alerts/check.ts; no query without alerts)
      if (result.inserted > 0) await checkAfterIngest(db, organizationId, named, (err) => req.log.error(err, "usage alerts: the check failed"));
      return result;
    } finally {
      early?.abandon();
      staged?.abandon();
    }
  });

  /**
   * Parses and checks the body, then stores it (or commits the early INSERT). Returns the promise of the store
   * without awaiting it, so that while the request waits on the database nothing holds the parsed batch.
   */
  async function ingestBody(
    req: FastifyRequest,
    organizationId: string,
    wall: Date,
    early: EarlyInsert | undefined,
    staged: StagedInsert | undefined,
    named: NamedCustomers,
  ) {
    // the envelope at once, the events in slices (1,000 events with metadata: tens of ms of zod in one go)
    const envelope = parseWith(service.EventsIngestEnvelope, (await jsonBody(req)) ?? {}, "body");
    // timestamps may not be ahead of the organization's now (its test clock's, in a sandbox): read meanwhile
    // (by the early transaction when there is one: nothing is read from the pool until it is decided)
    const ahead = early ?? staged;
    const now = ahead ? ahead.now.catch(() => orgNow(db, organizationId, wall)) : orgNow(db, organizationId, wall);
    now.catch(() => {}); // a refused batch does not wait for it
    const counts = { notAsSent: 0 };
    const events = await parseArraySliced(service.EventInput, envelope.events, ["events"], service.eventInputFast, counts);
    for (const e of events) {
      if (e.customer_id) named.ids.add(e.customer_id.toLowerCase());
      else if (e.external_customer_id) named.externalIds.add(e.external_customer_id);
    }
    // the check rewrote what it checked (`_cost` amounts), so the early INSERT does not hold the batch: it is
    // rolled back first (the usual INSERT would wait for its rows)
    if (counts.notAsSent > 0) early?.abandon();
    const text = req.body instanceof UnparsedJson ? req.body.text : undefined;
    return ingestEvents(db, organizationId, { events }, (await now).getTime(), counts.notAsSent === 0 ? early : undefined, text, staged);
  }

  app.get("/events/", route({ scope: "events:read", operationId: "events:list", query: ListQuery, responses: { 200: "EventsListResponseEventsList", 422: "HTTPValidationError" } }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (otherOrganization(q.organization_id, organizationId)) return page([], 0, q.limit);
    const meter = q.meter_id ? await meterSelection(db, organizationId, q.meter_id) : undefined;
    const { items, total } = await service.listEvents(
      db,
      organizationId,
      {
        customerIds: q.customer_id,
        externalCustomerIds: q.external_customer_id,
        names: q.name,
        sources: q.source,
        start: q.start_timestamp,
        end: q.end_timestamp,
        metadata: q.metadata,
        filter: q.filter,
        meter,
        query: q.query,
        parentId: q.parent_id,
        depth: q.depth,
      },
      q.sorting[0]?.desc === false ? "asc" : "desc",
      q.page,
      q.limit,
    );
    return page(items, total, q.limit);
  });

  app.get("/events/names", route({ scope: "events:read", operationId: "events:list_names", query: NamesQuery, responses: { 200: "ListResourceEventName", 422: "HTTPValidationError" } }), async (req) => {
    const q = req.query;
    const { organizationId } = scopeOf(req);
    if (otherOrganization(q.organization_id, organizationId)) return page([], 0, q.limit);
    const { items, total } = await service.listEventNames(
      db,
      organizationId,
      { customerIds: q.customer_id, externalCustomerIds: q.external_customer_id, sources: q.source, query: q.query },
      q.sorting,
      q.page,
      q.limit,
    );
    return page(items, total, q.limit);
  });

  app.get("/events/:id", route({ scope: "events:read", operationId: "events:get", responses: { 200: "Event", 404: "ResourceNotFound", 422: "HTTPValidationError" } }), async (req) =>
    service.getEvent(db, scopeOf(req).organizationId, pathId(req)),
  );
}
