// The seller's side of an invoice: the legal name, address and tax id printed as "From". A till extension on
// the organization (`invoice_details`, read and written with GET/PATCH /v1/organizations/{id} over plain HTTP,
// like tax_settings), kept in billing_organization.details. Unset fields fall back to the organization's name
// and country.
import { z } from "zod";

const text = (max: number) => z.string().trim().max(max).nullish();

export const InvoiceDetailsInput = z.object({
  /** The legal name on invoices; the organization's name when unset. */
  name: text(256),
  address: z
    .object({
      line1: text(255),
      line2: text(255),
      postal_code: text(32),
      city: text(255),
      state: text(255),
      country: z.string().regex(/^[A-Z]{2}$/, "Input should be an ISO 3166-1 alpha-2 code"),
    })
    .nullish(),
  /** The seller's VAT or other tax id, printed as is. */
  tax_id: text(64),
  /** Where customers write about an invoice. */
  email: z.email().max(320).nullish(),
});
export type InvoiceDetailsInput = z.output<typeof InvoiceDetailsInput>;

export interface InvoiceDetails {
  name: string | null;
  address: Record<string, string | null> | null;
  tax_id: string | null;
  email: string | null;
}

export const DEFAULT_INVOICE_DETAILS: InvoiceDetails = { name: null, address: null, tax_id: null, email: null };

/** The stored details (billing_organization.details.invoice_details), whatever was stored. */
export function invoiceDetailsOf(details: Record<string, unknown> | null | undefined): InvoiceDetails {
  const v = details?.invoice_details;
  if (!v || typeof v !== "object") return { ...DEFAULT_INVOICE_DETAILS };
  const o = v as Record<string, unknown>;
  const str = (x: unknown) => (typeof x === "string" && x !== "" ? x : null);
  const address = o.address && typeof o.address === "object" ? (o.address as Record<string, string | null>) : null;
  return { name: str(o.name), address, tax_id: str(o.tax_id), email: str(o.email) };
}

export function normalizeInvoiceDetails(input: InvoiceDetailsInput): InvoiceDetails {
  const a = input.address;
  return {
    name: input.name || null,
    address: a
      ? { line1: a.line1 || null, line2: a.line2 || null, postal_code: a.postal_code || null, city: a.city || null, state: a.state || null, country: a.country }
      : null,
    tax_id: input.tax_id || null,
    email: input.email ?? null,
  };
}
