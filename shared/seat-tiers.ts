// The arithmetic of seat-based prices, once for the server (checkouts, plan changes, renewals) and the checkout
// page: `volume` tiers price every seat at the tier the count falls in; `graduated` tiers price each seat at its
// own tier's price.

/** One tier: seats min_seats … max_seats (null: no upper bound) at price_per_seat minor units each. */
export interface SeatTier {
  min_seats: number;
  max_seats: number | null;
  price_per_seat: number;
}

/** What the arithmetic reads of a seat-based price's `seat_tiers` (any other type than graduated is volume). */
export interface SeatTierTerms {
  seat_tier_type?: string | undefined;
  tiers: readonly SeatTier[];
}

/** What `seats` seats cost, the per-seat price of the tier they fall in, and that tier; null outside every tier. */
export function seatPrice(terms: SeatTierTerms, seats: number): { amount: number; perSeat: number; tier: SeatTier } | null {
  const { tiers } = terms;
  const tier = tiers.find((t) => seats >= t.min_seats && (t.max_seats === null || seats <= t.max_seats));
  if (!tier) return null;
  if (terms.seat_tier_type !== "graduated") return { amount: tier.price_per_seat * seats, perSeat: tier.price_per_seat, tier };
  let amount = 0;
  for (const t of tiers) {
    if (seats < t.min_seats) break;
    const upTo = t.max_seats === null ? seats : Math.min(seats, t.max_seats);
    amount += (upTo - t.min_seats + 1) * t.price_per_seat;
  }
  return { amount, perSeat: tier.price_per_seat, tier };
}
