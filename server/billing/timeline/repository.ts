// The rows a timeline is read from: the outbox (what happened: the events the object's changes wrote), the webhook
// events fanned out of them (what was sent to each endpoint, and how it went) and the customer emails they asked
// for. A row is the object's when its resource names the object's id as its own id or as its order, subscription or
// customer; ids are UUIDs, so one comparison per key never names another object.
import { and, desc, eq, or, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { customer, customerEmail, order, outbox, subscription, webhookEndpoint, webhookEvent } from "../../db/schema/index.js";

/** How many rows of each source a timeline reads, newest first. */
export const TIMELINE_LIMIT = 100;

export type TimelineObject = "order" | "subscription" | "customer";

const KEYS = ["id", "order_id", "subscription_id", "customer_id"];
const names = (resource: SQL, id: string) => or(...KEYS.map((k) => sql`(${resource} ->> ${k}) = ${id}`));

/** Whether the organization has the object (another organization's is not there). */
export async function hasObject(db: Queryable, organizationId: string, kind: TimelineObject, id: string): Promise<boolean> {
  const table = kind === "order" ? order : kind === "subscription" ? subscription : customer;
  const rows = await db.select({ id: table.id }).from(table).where(and(eq(table.organizationId, organizationId), eq(table.id, id))).limit(1);
  return rows.length > 0;
}

export function outboxOf(db: Queryable, organizationId: string, id: string) {
  return db
    .select({ id: outbox.id, type: outbox.type, createdAt: outbox.createdAt, processedAt: outbox.processedAt })
    .from(outbox)
    .where(and(eq(outbox.organizationId, organizationId), names(sql`${outbox.payload}`, id)))
    .orderBy(desc(outbox.createdAt))
    .limit(TIMELINE_LIMIT);
}

export function webhookEventsOf(db: Queryable, organizationId: string, id: string) {
  return db
    .select({
      id: webhookEvent.id,
      type: webhookEvent.type,
      createdAt: webhookEvent.createdAt,
      modifiedAt: webhookEvent.modifiedAt,
      succeeded: webhookEvent.succeeded,
      skipped: webhookEvent.skipped,
      attempts: webhookEvent.attempts,
      lastHttpCode: webhookEvent.lastHttpCode,
      endpointId: webhookEvent.endpointId,
      url: webhookEndpoint.url,
    })
    .from(webhookEvent)
    .innerJoin(webhookEndpoint, eq(webhookEndpoint.id, webhookEvent.endpointId))
    .where(and(eq(webhookEvent.organizationId, organizationId), names(sql`((${webhookEvent.payload})::jsonb -> 'data')`, id)))
    .orderBy(desc(webhookEvent.createdAt))
    .limit(TIMELINE_LIMIT);
}

export function emailsOf(db: Queryable, organizationId: string, id: string) {
  return db
    .select({
      id: customerEmail.id,
      type: customerEmail.type,
      recipient: customerEmail.recipient,
      createdAt: customerEmail.createdAt,
      sentAt: customerEmail.sentAt,
      failedAt: customerEmail.failedAt,
      attempts: customerEmail.attempts,
    })
    .from(customerEmail)
    .where(and(eq(customerEmail.organizationId, organizationId), names(sql`${customerEmail.data}`, id)))
    .orderBy(desc(customerEmail.createdAt))
    .limit(TIMELINE_LIMIT);
}
