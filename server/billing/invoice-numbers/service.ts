// Invoice numbers: an organization's counter row (invoice_counter) holds its prefix and last number; orders
// number themselves from it (orders/repository.ts, a checkout's confirm statement). A leaf, so that the
// organization's sandbox twin gets its counter row from organizations/ without importing orders.
import type { Queryable } from "../../db/client.js";
import { invoiceCounter } from "../../db/schema/index.js";

// The wire's `invoice_number`, "{PREFIX}-0001": the counter row's columns make it in SQL (orders' own insert and
// a checkout's confirm statement), from a prefix made of the organization's slug.
/** An invoice number from the counter row's columns: "{prefix}-0001" (at least four digits). */
export const INVOICE_NUMBER = `prefix || '-' || lpad(last_number::text, greatest(4, length(last_number::text)), '0')`;

/** "{PREFIX}-0001": the prefix is the organization's slug (letters and digits, upper case) when first used. */
export function invoicePrefix(slug: string): string {
  return slug.replace(/[^a-z0-9]/gi, "").toUpperCase().slice(0, 12) || "INV";
}

/**
 * A sandbox's invoices read TEST…: its counter row is made with the twin (numbers from 0001), so a test invoice
 * never looks like a live one even where the slug-made prefixes would agree (long slugs are cut at 12).
 * Called when organizations/sandbox.ts makes the twin, in its transaction.
 */
export async function reserveSandboxInvoicePrefix(db: Queryable, sandboxId: string, liveSlug: string): Promise<void> {
  const prefix = `TEST${invoicePrefix(liveSlug)}`.slice(0, 12);
  await db.insert(invoiceCounter).values({ organizationId: sandboxId, prefix, lastNumber: 0 }).onConflictDoNothing();
}
