// The Polar `Customer` shape (CustomerIndividual, the superset both SDK versions parse) and CustomerState.
import { createHash } from "node:crypto";
import type { InferSelectModel } from "drizzle-orm";
import type { customer } from "../../db/schema/index.js";
import { termsWire } from "../terms.js";

export type CustomerRow = InferSelectModel<typeof customer>;

export interface AddressWire {
  line1?: string | null;
  line2?: string | null;
  postal_code?: string | null;
  city?: string | null;
  state?: string | null;
  country: string;
}

/** Gravatar's identicon for the email, like Polar's; 404 lets a client fall back to initials. */
export function avatarUrl(email: string): string {
  const hash = createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
  return `https://www.gravatar.com/avatar/${hash}?d=404`;
}

export function toCustomerWire(row: CustomerRow) {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    metadata: row.metadata,
    external_id: row.externalId ?? null,
    email: row.email,
    email_verified: row.emailVerified,
    type: row.type === "team" ? ("team" as const) : ("individual" as const),
    name: row.name ?? null,
    // the name invoices are made out to when it is not the person's (a business buyer's company)
    billing_name: row.billingName ?? null,
    billing_address: (row.billingAddress as AddressWire | null) ?? null,
    tax_id: row.taxId ?? null,
    locale: row.locale ?? null,
    organization_id: row.organizationId,
    deleted_at: row.deletedAt?.toISOString() ?? null,
    avatar_url: avatarUrl(row.email),
    // till's own (the SDKs drop them): how renewals are collected
    ...termsWire(row),
  };
}

export type CustomerWire = ReturnType<typeof toCustomerWire>;
