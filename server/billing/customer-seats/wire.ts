// The Polar `CustomerSeat`, `SeatsList` and `SeatClaimInfo` shapes. `member_id` and `member`: the buyer's team
// member the seat was assigned to (billing/members), else null; every key 0.49.0 requires is always sent (0.47.1
// has them optional).
import type { InferSelectModel } from "drizzle-orm";
import type { customerSeat } from "../../db/schema/index.js";
import type { MemberWire } from "../members/wire.js";

export type CustomerSeatRow = InferSelectModel<typeof customerSeat>;

export const SEAT_STATUSES = ["pending", "claimed", "revoked"] as const;
export type SeatStatus = (typeof SEAT_STATUSES)[number];

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** `customerEmail`: the email of the seat holder's customer, when the seat has one. */
export function toCustomerSeatWire(row: CustomerSeatRow, customerEmail: string | null, member: MemberWire | null = null) {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: iso(row.modifiedAt),
    id: row.id,
    subscription_id: row.subscriptionId,
    order_id: row.orderId,
    status: row.status,
    customer_id: row.customerId,
    member_id: member ? row.memberId : null,
    member,
    email: row.email,
    customer_email: customerEmail,
    invitation_token_expires_at: row.status === "pending" ? iso(row.invitationTokenExpiresAt) : null,
    claimed_at: iso(row.claimedAt),
    revoked_at: iso(row.revokedAt),
    seat_metadata: row.seatMetadata,
  };
}
export type CustomerSeatWire = ReturnType<typeof toCustomerSeatWire>;

export interface SeatsListWire {
  seats: CustomerSeatWire[];
  available_seats: number;
  total_seats: number;
}

export interface SeatClaimInfoWire {
  product_name: string;
  product_id: string;
  organization_name: string;
  organization_slug: string;
  customer_email: string;
  can_claim: boolean;
}
