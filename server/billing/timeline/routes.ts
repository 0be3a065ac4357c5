// till's own read-only timelines (the seller app's detail pages): what happened to an order, a subscription or a
// customer — the events recorded, the webhooks sent for them and the emails to the customer (timeline/service.ts).
// Each is read with the object's own read scope; another organization's object answers 404.
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { pathId } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { route, type V1App } from "../contract.js";
import { notFound, validationError } from "../errors.js";
import { timelineOf, type TimelineObject } from "./service.js";

const Entry = z.object({
  id: z.uuid(),
  at: z.iso.datetime(),
  source: z.enum(["event", "webhook", "email"]),
  type: z.string(),
  target: z.string().nullable(),
  status: z.enum(["sent", "failed", "pending", "skipped"]).nullable(),
  attempts: z.int().nullable(),
  http_code: z.int().nullable(),
  endpoint_id: z.uuid().nullable(),
});
const Timeline = z.object({ items: z.array(Entry) });

const OBJECTS: Array<{ kind: TimelineObject; segment: string; scope: "orders:read" | "subscriptions:read" | "customers:read" }> = [
  { kind: "order", segment: "orders", scope: "orders:read" },
  { kind: "subscription", segment: "subscriptions", scope: "subscriptions:read" },
  { kind: "customer", segment: "customers", scope: "customers:read" },
];

export function timelineRoutes(app: V1App, { db }: BillingDeps): void {
  for (const o of OBJECTS) {
    app.get(`/${o.segment}/:id/timeline`, route({
      scope: o.scope, operationId: `till:${o.segment}:timeline`,
      responses: { 200: Timeline, 404: notFound, 422: validationError },
    }), async (req) => timelineOf(db, scopeOf(req).organizationId, o.kind, pathId(req)));
  }
}
