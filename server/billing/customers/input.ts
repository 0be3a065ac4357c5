// Request bodies of /v1/customers (create, update by id or external id, a team's first owner) and the billing
// address as given (AddressInput: customers, checkouts, orders and the portal) and as stored. Shapes and bounds
// follow Polar's CustomerCreate / CustomerUpdate; rules that need the database live in the service.
import { z } from "zod";
import type { AddressValue } from "../../db/schema/index.js";
import { ADDRESS_INPUT_COUNTRY_CODES } from "../../../shared/countries.js";
import { emailInput, metadataInput } from "../http.js";
import { termsInput } from "../terms.js";

const optionalText = (max: number) => z.string().max(max).nullish();

export const AddressInput = z.object({
  line1: optionalText(255),
  line2: optionalText(255),
  postal_code: optionalText(32),
  city: optionalText(255),
  state: optionalText(255),
  country: z.enum(ADDRESS_INPUT_COUNTRY_CODES, { message: "Input should be an ISO 3166-1 alpha-2 country code" }),
});

const email = emailInput.transform((e) => e.toLowerCase());

const customerType = z.enum(["individual", "team"]);
/** MemberOwnerCreate: a team customer's first owner (billing/members makes the member). */
const OwnerInput = z.object({ email, name: optionalText(256), external_id: z.string().min(1).max(256).nullish() });
export type OwnerInput = z.output<typeof OwnerInput>;

const shared = {
  metadata: metadataInput.optional(),
  name: optionalText(256),
  billing_name: optionalText(256),
  billing_address: AddressInput.nullish(),
  tax_id: optionalText(64),
  locale: optionalText(35),
  // till's own: how renewals are collected (billing/terms.ts)
  ...termsInput,
};

export const CustomerCreateInput = z
  .object({
    ...shared,
    // a team's email may be its owner's (CustomerTeamCreate); an individual's is required
    email: email.nullish(),
    external_id: z.string().min(1).max(256).nullish(),
    type: customerType.default("individual"),
    owner: OwnerInput.nullish(),
    organization_id: z.uuid().nullish(),
  })
  .superRefine((v, ctx) => {
    if (!v.email && !(v.type === "team" && v.owner)) ctx.addIssue({ code: "custom", path: ["email"], message: "Field required" });
    if (v.owner && v.type !== "team") ctx.addIssue({ code: "custom", path: ["owner"], message: "Only a team customer has an owner." });
  })
  .transform(({ email: e, ...v }) => ({ ...v, email: e ?? v.owner?.email ?? "" }));
export type CustomerCreateInput = z.output<typeof CustomerCreateInput>;

export const CustomerUpdateExternalInput = z.object({ ...shared, email: email.nullish() });
export const CustomerUpdateInput = CustomerUpdateExternalInput.extend({
  external_id: z.string().min(1).max(256).nullish(),
  type: customerType.nullish(),
});
export type CustomerUpdateInput = z.output<typeof CustomerUpdateInput>;

/** A billing address as stored (customers and checkouts): every line present, null when not given. */
export function storedAddress(a: {
  line1?: string | null | undefined;
  line2?: string | null | undefined;
  postal_code?: string | null | undefined;
  city?: string | null | undefined;
  state?: string | null | undefined;
  country: string;
}): AddressValue {
  return {
    line1: a.line1 ?? null,
    line2: a.line2 ?? null,
    postal_code: a.postal_code ?? null,
    city: a.city ?? null,
    state: a.state ?? null,
    country: a.country,
  };
}

