// Polar's Member (the seller's view: MemberRead, webhook payloads) and CustomerPortalMember (the team's view in
// the customer portal: no customer id, no external id).
import type { customerMember } from "../../db/schema/index.js";

export type MemberRow = typeof customerMember.$inferSelect;

export const MEMBER_ROLES = ["owner", "billing_manager", "member"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export function toMemberWire(row: MemberRow) {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    customer_id: row.customerId,
    email: row.email,
    name: row.name ?? null,
    external_id: row.externalId ?? null,
    role: row.role as MemberRole,
  };
}
export type MemberWire = ReturnType<typeof toMemberWire>;

export function toPortalMemberWire(row: MemberRow) {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    email: row.email,
    name: row.name ?? null,
    role: row.role as MemberRole,
  };
}
export type PortalMemberWire = ReturnType<typeof toPortalMemberWire>;
