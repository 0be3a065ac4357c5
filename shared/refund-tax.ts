// The tax a refund gives back, shared by the server (which refunds it) and the CLI (which says, before and
// after, what goes back to the card): one rule, so the prompt's figure is the refund's.

/** n / d rounded half away from zero (d > 0), in integers. */
export function divRound(n: bigint, d: bigint): bigint {
  const negative = n < 0n;
  const abs = negative ? -n : n;
  const q = (2n * abs + d) / (2n * d);
  return negative ? -q : q;
}

/**
 * The tax a refund gives back: the cumulative refunded tax is always the order's tax in proportion to the
 * cumulative refunded amount (rounded half up), so refunds in parts add up to exactly the order's tax and a
 * refund of 1 minor unit works (its tax may round to 0). The refund that empties the order takes all that is left.
 */
export function refundTax(order: { netAmount: number; taxAmount: number; refundedAmount: number; refundedTaxAmount: number }, amount: number, refundable: number): number {
  const left = Math.max(0, order.taxAmount - order.refundedTaxAmount);
  if (amount >= refundable || order.netAmount <= 0) return left;
  const cumulative = Number(divRound(BigInt(order.refundedAmount + amount) * BigInt(order.taxAmount), BigInt(order.netAmount)));
  return Math.min(left, Math.max(0, cumulative - order.refundedTaxAmount));
}
