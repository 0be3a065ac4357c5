// /v1/events: ingest, list, names, get (Polar wire).
import { z } from "zod";
import { FilterInput } from "../../../shared/meter-filter.js";
import type { BillingDeps } from "../deps.js";
import { LARGE_BODY_LIMIT } from "../../http/input-guard.js";
import { datetimeInput, metadataQuery, page, paginationQuery, pathId, queryArray, queryInt } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { sortingQuery } from "../listing.js";
import { meterSelection } from "../meters/service.js";
import { EventsIngestInput, ingest } from "./ingest/index.js";
import { namedCustomers } from "../usage-alerts/check.js";
import { debitUsageAfterIngest } from "../wallets/service.js";
import { checkAfterIngest } from "../usage-alerts/coalesce.js";
import * as service from "./service.js";
import { documented, route, type V1App } from "../contract.js";
import { notFound, validationError } from "../errors.js";

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
  app.post("/events/ingest", route({
    scope: "events:write", parsesOwnJson: true, bodyLimit: LARGE_BODY_LIMIT, operationId: "events:ingest",
    body: documented(EventsIngestInput), responses: { 200: "EventsIngestResponse", 422: validationError },
  }), async (req) => {
    const { organizationId } = scopeOf(req);
    const named = namedCustomers();
    const result = await ingest({ db, driver }, organizationId, req.body, named);
    // usage alerts are found now, on what this batch stored (usage-alerts/check.ts; no query without alerts)
    if (result.inserted > 0) {
      // prepaid plans: the usage is paid from the wallet now (wallets/usage.ts; no query without such products)
      await debitUsageAfterIngest(db, organizationId, named, (err) => req.log.error(err, "wallets: debiting usage failed"));
      await checkAfterIngest(db, organizationId, named, (err) => req.log.error(err, "usage alerts: the check failed"));
    }
    return result;
  });

  app.get("/events/", route({ scope: "events:read", operationId: "events:list", query: ListQuery, responses: { 200: "EventsListResponseEventsList", 422: validationError } }), async (req) => {
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

  app.get("/events/names", route({ scope: "events:read", operationId: "events:list_names", query: NamesQuery, responses: { 200: "ListResourceEventName", 422: validationError } }), async (req) => {
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

  app.get("/events/:id", route({ scope: "events:read", operationId: "events:get", responses: { 200: "Event", 404: notFound, 422: validationError } }), async (req) =>
    service.getEvent(db, scopeOf(req).organizationId, pathId(req)),
  );
}
