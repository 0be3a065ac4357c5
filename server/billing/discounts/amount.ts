// What a discount takes off an amount: one rule for the checkout's total, a renewal's and the discount's own
// set-up check (minimum.ts).

/**
 * A discount's terms as far as its amount goes (a fixed discount's `amounts` per currency, a percentage's basis
 * points).
 */
export interface DiscountTerms {
  type: string;
}

/** What the discount takes off `amount` (never more than the amount). */
export function discountAmount(discount: DiscountTerms | null, amount: number, currency: string): number {
  if (!discount || amount <= 0) return 0;
  if (discount.type === "fixed") {
    const amounts = (discount as { amounts?: Record<string, number> | null }).amounts ?? {};
    return Math.min(amounts[currency] ?? 0, amount);
  }
  const bp = (discount as { basis_points?: number | null }).basis_points ?? 0;
  return Math.min(Math.round((amount * bp) / 10_000), amount);
}
