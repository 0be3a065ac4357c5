// The processor's own customer kept for each till customer (processor_customer, keyed by the processor's id): a
// processor that keeps customers, as Stripe does, attaches saved methods to them, so a till customer has one there.
import { and, eq } from "drizzle-orm";
import type { Queryable } from "../db/client.js";
import { processorCustomer } from "../db/schema/index.js";

/** The processor's customer kept for a till customer; null when none was made yet. */
export async function processorCustomerOf(db: Queryable, organizationId: string, customerId: string, processor: string): Promise<string | null> {
  const [row] = await db
    .select({ id: processorCustomer.processorCustomerId })
    .from(processorCustomer)
    .where(and(eq(processorCustomer.organizationId, organizationId), eq(processorCustomer.customerId, customerId), eq(processorCustomer.processor, processor)))
    .limit(1);
  return row?.id ?? null;
}

/** Keeps the processor's customer of a till customer (the first one made stays). */
export async function rememberProcessorCustomer(db: Queryable, organizationId: string, customerId: string, processor: string, processorCustomerId: string): Promise<void> {
  await db.insert(processorCustomer).values({ organizationId, customerId, processor, processorCustomerId }).onConflictDoNothing();
}
