// /v1/stripe/imports (till's own, not Polar's): import the organization's Stripe Billing business — a dry run that
// plans, or an import that applies the plan and hands subscriptions over to till — read a run and its plan, undo one.
import { z } from "zod";
import { IMPORT_ACTIONS, IMPORT_KINDS } from "../../../shared/stripe-import.js";
import type { BillingDeps } from "../deps.js";
import { paginationQuery, pathId, queryArray } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { route, type V1App } from "../contract.js";
import { notFound, validationError } from "../errors.js";
import { importInProgress, importNotUndoable } from "./errors.js";
import * as service from "./service.js";
import { serverProcessorAccounts } from "../../payments/index.js";

const ImportWire = z.looseObject({ id: z.string(), object: z.literal("stripe_import"), status: z.string() });
const ListWire = z.looseObject({ items: z.array(ImportWire), pagination: z.looseObject({ total_count: z.number() }) });
const ItemsWire = z.looseObject({ items: z.array(z.looseObject({ kind: z.string(), stripe_id: z.string() })), pagination: z.looseObject({ total_count: z.number() }) });

const ImportCreate = z.object({
  /** Plan only (the default): nothing is written to till or to Stripe. */
  dry_run: z.boolean().default(true),
});

const ItemsQuery = z.object({
  kind: queryArray(z.enum(IMPORT_KINDS)).optional(),
  action: queryArray(z.enum(IMPORT_ACTIONS)).optional(),
  ...paginationQuery,
});

export function importRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const accounts = serverProcessorAccounts(config, secret);
  app.post("/stripe/imports", route({
    scope: "organizations:write", operationId: "till:stripe:import", body: ImportCreate,
    responses: { 201: ImportWire, 404: notFound, 409: importInProgress, 422: validationError },
  }), async (req, reply) => {
    const { organizationId } = scopeOf(req);
    // refused now rather than failed by the worker: there is nothing to read
    if (!(await accounts.status(db, organizationId))) throw notFound(accounts.notConnected);
    return reply.status(201).send(await service.startImport(db, organizationId, accounts.processor, req.body.dry_run));
  });

  app.get("/stripe/imports", route({
    scope: "organizations:read", operationId: "till:stripe:list_imports", query: z.object({ ...paginationQuery }), responses: { 200: ListWire, 422: validationError },
  }), async (req) => service.listImports(db, scopeOf(req).organizationId, req.query.page, req.query.limit));

  app.get("/stripe/imports/:id", route({
    scope: "organizations:read", operationId: "till:stripe:get_import", responses: { 200: ImportWire, 404: notFound, 422: validationError },
  }), async (req) => service.getImport(db, scopeOf(req).organizationId, pathId(req)));

  app.get("/stripe/imports/:id/items", route({
    scope: "organizations:read", operationId: "till:stripe:list_import_items", query: ItemsQuery,
    responses: { 200: ItemsWire, 404: notFound, 422: validationError },
  }), async (req) => {
    const q = req.query;
    return service.listImportItems(db, scopeOf(req).organizationId, pathId(req), { kinds: q.kind ?? [], actions: q.action ?? [] }, q.page, q.limit);
  });

  app.post("/stripe/imports/:id/undo", route({
    scope: "organizations:write", operationId: "till:stripe:undo_import", responses: { 200: ImportWire, 404: notFound, 409: importNotUndoable, 422: validationError },
  }), async (req) => service.undoImport(db, scopeOf(req).organizationId, pathId(req), config.baseURL));
}
