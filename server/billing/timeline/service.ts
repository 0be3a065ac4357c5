// Rules for an object's timeline (an order's, a subscription's, a customer's): what happened to it, newest first —
// the events its changes recorded, each webhook event sent for them with how its delivery went, and each email its
// customer was sent. Read-only; another organization's object (or the other side's) is not found.
import type { Queryable } from "../../db/client.js";
import { notFound } from "../errors.js";
import * as repo from "./repository.js";
import type { TimelineObject } from "./repository.js";

export type { TimelineObject };

/** One thing that happened; `status` says how a webhook or an email went (null for an event). */
export interface TimelineEntryWire {
  id: string;
  at: string;
  source: "event" | "webhook" | "email";
  /** The event's type (order.paid, subscription.updated, …) or the email's (order_confirmation, …). */
  type: string;
  /** Where it went: the endpoint's URL, the email's recipient; null for an event. */
  target: string | null;
  status: "sent" | "failed" | "pending" | "skipped" | null;
  /** The delivery attempts made so far (webhooks and emails). */
  attempts: number | null;
  /** The endpoint's last HTTP answer (webhooks). */
  http_code: number | null;
  /** The webhook endpoint's id (its deliveries' page). */
  endpoint_id: string | null;
}

export interface TimelineWire {
  items: TimelineEntryWire[];
}

const NAMES: Record<TimelineObject, string> = { order: "Order", subscription: "Subscription", customer: "Customer" };

function webhookStatus(e: { succeeded: boolean | null; skipped: boolean }): TimelineEntryWire["status"] {
  if (e.skipped) return "skipped";
  return e.succeeded === null ? "pending" : e.succeeded ? "sent" : "failed";
}

export async function timelineOf(db: Queryable, organizationId: string, kind: TimelineObject, id: string): Promise<TimelineWire> {
  if (!(await repo.hasObject(db, organizationId, kind, id))) throw notFound(`${NAMES[kind]} not found`);
  const [events, hooks, emails] = await Promise.all([
    repo.outboxOf(db, organizationId, id),
    repo.webhookEventsOf(db, organizationId, id),
    repo.emailsOf(db, organizationId, id),
  ]);
  const none = { target: null, status: null, attempts: null, http_code: null, endpoint_id: null };
  const items: TimelineEntryWire[] = [
    ...events.map((e) => ({ ...none, id: e.id, at: e.createdAt.toISOString(), source: "event" as const, type: e.type })),
    ...hooks.map((h) => ({
      id: h.id,
      at: (h.modifiedAt ?? h.createdAt).toISOString(),
      source: "webhook" as const,
      type: h.type,
      target: h.url,
      status: webhookStatus(h),
      attempts: h.attempts,
      http_code: h.lastHttpCode,
      endpoint_id: h.endpointId,
    })),
    ...emails.map((m) => ({
      ...none,
      id: m.id,
      at: (m.sentAt ?? m.failedAt ?? m.createdAt).toISOString(),
      source: "email" as const,
      type: m.type,
      target: m.recipient,
      status: m.sentAt ? ("sent" as const) : m.failedAt ? ("failed" as const) : ("pending" as const),
      attempts: m.attempts,
    })),
  ];
  // newest first; at one instant an event before what it caused (its webhooks, its emails)
  const rank = { event: 0, webhook: 1, email: 2 };
  items.sort((a, b) => b.at.localeCompare(a.at) || rank[b.source] - rank[a.source]);
  return { items };
}
