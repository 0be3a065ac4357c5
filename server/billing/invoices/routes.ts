// Invoices (Polar wire): the seller's POST/GET /v1/orders/{id}/invoice and GET …/receipt, the portal's same three
// under /v1/customer-portal/orders/{id}/…, and the signed URL they hand out (GET /v1/invoices/{id}/pdf).
import path from "node:path";
import type { BillingDeps } from "../deps.js";
import { pathId } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { localFileStorage } from "../files/storage.js";
import { portalAuth, portalOf } from "../customer-portal/routes.js";
import * as service from "./service.js";
import { documentDisposition } from "./filename.js";
import { route, type V1App } from "../contract.js";
import { z } from "zod";
import { generateInvoiceRefused, portalGenerateInvoiceRefused } from "./errors.js";
import { notFound, unauthorized, validationError } from "../errors.js";

/** A receipt's signed URL (202 while the worker renders it). */
const Receipt = z.object({ url: z.url() });

export function invoiceRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const storage = localFileStorage(path.join(config.dataDir, "files"));
  const urls = { baseURL: config.baseURL, secret };

  app.post("/orders/:id/invoice", route({ scope: "orders:write", operationId: "orders:generate_invoice", responses: { 202: null, 422: generateInvoiceRefused } }), async (req, reply) => {
    await service.generateInvoice(db, scopeOf(req).organizationId, pathId(req));
    return reply.status(202).send({});
  });
  app.get("/orders/:id/invoice", route({ scope: "orders:read", operationId: "orders:invoice", responses: { 200: "OrderInvoice", 404: notFound, 422: validationError } }), async (req) =>
    service.invoiceOf(db, urls, scopeOf(req).organizationId, pathId(req)),
  );
  app.get("/orders/:id/receipt", route({
    scope: "orders:read", operationId: "till:orders:receipt",
    responses: { 200: Receipt, 202: null, 404: notFound, 422: validationError },
  }), async (req, reply) => {
    const receipt = await service.receiptOf(db, urls, scopeOf(req).organizationId, pathId(req));
    return receipt ? receipt : reply.status(202).send();
  });

  const portal = { caller: "customer_session" as const, preHandler: portalAuth(db) };
  app.post("/customer-portal/orders/:id/invoice", route({
    ...portal, operationId: "customer_portal:orders:generate_invoice",
    responses: { 202: null, 422: portalGenerateInvoiceRefused },
  }), async (req, reply) => {
    const me = portalOf(req);
    await service.generateInvoice(db, me.organizationId, pathId(req), me.customer.id);
    return reply.status(202).send({});
  });
  app.get("/customer-portal/orders/:id/invoice", route({
    ...portal, operationId: "customer_portal:orders:invoice",
    responses: { 200: "CustomerOrderInvoice", 404: notFound, 422: validationError },
  }), async (req) => {
    const me = portalOf(req);
    return service.invoiceOf(db, urls, me.organizationId, pathId(req), me.customer.id);
  });
  app.get("/customer-portal/orders/:id/receipt", route({
    ...portal, operationId: "till:customer_portal:orders:receipt",
    responses: { 200: Receipt, 202: null, 401: unauthorized, 404: notFound, 422: validationError },
  }), async (req, reply) => {
    const me = portalOf(req);
    const receipt = await service.receiptOf(db, urls, me.organizationId, pathId(req), me.customer.id);
    return receipt ? receipt : reply.status(202).send();
  });

  // the signed URL: whoever holds it gets the PDF until it expires
  app.get("/invoices/:id/pdf", route({ caller: "client_secret", operationId: "till:invoices:pdf", responses: { 200: "application/pdf", 404: notFound } }), async (req, reply) => {
    const id = String((req.params as { id?: unknown }).id ?? "");
    const { row, size, stream } = await service.openSignedInvoice(db, storage, secret, id, req.query as Record<string, unknown>);
    // named in the document's language (the locale it was made in)
    const disposition = documentDisposition(row.kind === "credit_note" ? "credit_note" : "invoice", row.number, row.locale);
    return reply
      .header("content-type", "application/pdf")
      .header("content-length", size)
      .header("content-disposition", disposition)
      .header("cache-control", "private, no-store")
      .header("x-content-type-options", "nosniff")
      .send(stream);
  });
}
