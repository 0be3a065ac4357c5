// The Polar `Discount` shapes (fixed/percentage × once-forever/repeating), built from discount rows and the
// products they are restricted to. Emits the superset of SDK 0.47.1 and 0.49.0 (`amounts` on fixed discounts).
import type { InferSelectModel } from "drizzle-orm";
import type { discount } from "../../db/schema/index.js";
import type { ProductSummaryWire } from "../products/wire.js";

export type DiscountRow = InferSelectModel<typeof discount>;

/** The amounts of a fixed discount row; rows written before `amounts` existed have only amount/currency. */
export function rowAmounts(row: DiscountRow): { amounts: Record<string, number>; currency: string; amount: number } {
  const currency = row.currency ?? "usd";
  const amount = row.amount ?? 0;
  return { amounts: { ...row.amounts, [currency]: amount }, currency, amount };
}

/** What orders, subscriptions and checkouts embed (`Discount*Base`, no products). */
export function toDiscountBaseWire(row: DiscountRow) {
  return {
    duration: row.duration,
    ...(row.duration === "repeating" ? { duration_in_months: row.durationInMonths ?? 1 } : {}),
    type: row.type,
    ...(row.type === "fixed" ? rowAmounts(row) : { basis_points: row.basisPoints ?? 0 }),
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    metadata: row.metadata,
    name: row.name,
    code: row.code ?? null,
    starts_at: row.startsAt?.toISOString() ?? null,
    ends_at: row.endsAt?.toISOString() ?? null,
    max_redemptions: row.maxRedemptions ?? null,
    redemptions_count: row.redemptionsCount,
    organization_id: row.organizationId,
  };
}

export function toDiscountWire(row: DiscountRow, products: ProductSummaryWire[]) {
  return { ...toDiscountBaseWire(row), products };
}
export type DiscountWire = ReturnType<typeof toDiscountWire>;
