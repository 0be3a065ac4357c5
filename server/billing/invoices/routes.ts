// Invoices (Polar wire): the seller's POST/GET /v1/orders/{id}/invoice and GET …/receipt, the portal's same three
// under /v1/customer-portal/orders/{id}/…, and the signed URL they hand out (GET /v1/invoices/{id}/pdf).
import path from "node:path";
import type { FastifyInstance } from "fastify";
import type { BillingDeps } from "../deps.js";
import { pathId } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { localFileStorage } from "../files/storage.js";
import { portalAuth, portalOf } from "../customer-portal/routes.js";
import * as service from "./service.js";

export function invoiceRoutes(app: FastifyInstance, { db, config, secret }: BillingDeps): void {
  const storage = localFileStorage(path.join(config.dataDir, "files"));
  const urls = { baseURL: config.baseURL, secret };

  app.post("/orders/:id/invoice", { config: { scope: "orders:write" } }, async (req, reply) => {
    await service.generateInvoice(db, scopeOf(req).organizationId, pathId(req));
    return reply.status(202).send({});
  });
  app.get("/orders/:id/invoice", { config: { scope: "orders:read" } }, async (req) =>
    service.invoiceOf(db, urls, scopeOf(req).organizationId, pathId(req)),
  );
  app.get("/orders/:id/receipt", { config: { scope: "orders:read" } }, async (req, reply) => {
    const receipt = await service.receiptOf(db, urls, scopeOf(req).organizationId, pathId(req));
    return receipt ? receipt : reply.status(202).send();
  });

  const portal = { config: { public: true }, preHandler: portalAuth(db) };
  app.post("/customer-portal/orders/:id/invoice", portal, async (req, reply) => {
    const me = portalOf(req);
    await service.generateInvoice(db, me.organizationId, pathId(req), me.customer.id);
    return reply.status(202).send({});
  });
  app.get("/customer-portal/orders/:id/invoice", portal, async (req) => {
    const me = portalOf(req);
    return service.invoiceOf(db, urls, me.organizationId, pathId(req), me.customer.id);
  });
  app.get("/customer-portal/orders/:id/receipt", portal, async (req, reply) => {
    const me = portalOf(req);
    const receipt = await service.receiptOf(db, urls, me.organizationId, pathId(req), me.customer.id);
    return receipt ? receipt : reply.status(202).send();
  });

  // the signed URL: whoever holds it gets the PDF until it expires
  app.get("/invoices/:id/pdf", { config: { public: true } }, async (req, reply) => {
    const id = String((req.params as { id?: unknown }).id ?? "");
    const { row, size, stream } = await service.openSignedInvoice(db, storage, secret, id, req.query as Record<string, unknown>);
    const name = `${row.kind === "credit_note" ? "credit-note" : "invoice"}-${row.number}.pdf`.replace(/[^\w.-]/g, "_");
    return reply
      .header("content-type", "application/pdf")
      .header("content-length", size)
      .header("content-disposition", `inline; filename="${name}"`)
      .header("cache-control", "private, no-store")
      .header("x-content-type-options", "nosniff")
      .send(stream);
  });
}
