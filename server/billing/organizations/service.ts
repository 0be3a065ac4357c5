// Rules for the billing side of organizations: who may see which, and how settings are updated.
import { z } from "zod";
import { CURRENCY_MESSAGE, isCurrencyCode } from "../../../shared/currencies.js";
import type { Db, Queryable } from "../../db/client.js";
import type { Caller } from "../../auth/caller.js";
import { invalid, notFound } from "../errors.js";
import { timezoneInput } from "../http.js";
import { enqueue } from "../../db/outbox.js";
import * as repo from "./repository.js";
import { sandboxesOfMember } from "./sandbox.js";
import { normalizeTaxSettings, TaxSettingsInput, taxSettingsOf, DEFAULT_TAX_SETTINGS } from "../tax/settings.js";
import { InvoiceDetailsInput, normalizeInvoiceDetails } from "../settings/invoices.js";
import { DEFAULT_DUNNING_SETTINGS, DunningSettingsInput, dunningSettingsOf, normalizeDunningSettings } from "../settings/dunning.js";
import { nextPlanSettings, PlanSettingsInput, planSettingsOf } from "../settings/subscriptions.js";
import { storedDetails, toOrganizationWire, type BillingOrganizationRow, type OrganizationWire } from "./wire.js";
import { settleStatus, storedStatus, type StatusPolicy } from "./status.js";
import { LOCALES, matchLocale } from "../../../shared/i18n/locales.js";

const SOCIAL_PLATFORMS = [
  "x", "github", "facebook", "instagram", "youtube", "tiktok", "linkedin", "threads", "discord", "other",
] as const;

const boolSettings = <K extends string>(keys: readonly K[]) =>
  z.object(Object.fromEntries(keys.map((k) => [k, z.boolean().optional()])) as Record<K, z.ZodOptional<z.ZodBoolean>>);

const detailText = (max: number) => z.string().trim().min(1, "Input should not be empty").max(max);

/** Polar's OrganizationDetails: what a platform admin reads to review an organization. */
export const OrganizationDetailsInput = z
  .object({
    about: detailText(3000),
    product_description: detailText(3000),
    intended_use: detailText(3000),
    selling_categories: z.array(z.string().max(100)).max(20).optional(),
    pricing_models: z.array(z.string().max(100)).max(20).optional(),
    customer_acquisition: z.array(z.string().max(100)).max(20).optional(),
    future_annual_revenue: z.number().int().min(0).nullish(),
    switching: z.boolean().optional(),
    switching_from: z.enum(["paddle", "lemon_squeezy", "gumroad", "stripe", "other"]).nullish(),
    previous_annual_revenue: z.number().int().min(0).nullish(),
  })
  .strict();

export const OrganizationUpdateInput = z.object({
  name: z.string().trim().min(3).max(100).nullish(),
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/, "Slug must be lower-case letters, digits and dashes").nullish(),
  avatar_url: z.url().max(2048).nullish(),
  email: z.email().max(320).nullish(),
  website: z.url().max(2048).nullish(),
  socials: z.array(z.object({ platform: z.enum(SOCIAL_PLATFORMS), url: z.url().max(2048) })).max(20).nullish(),
  /** Polar's business details: submitting them (about, product description, intended use) moves the status. */
  details: OrganizationDetailsInput.nullish(),
  country: z.string().regex(/^[A-Z]{2}$/, "Input should be an ISO 3166-1 alpha-2 code").nullish(),
  default_presentment_currency: z.string().refine(isCurrencyCode, CURRENCY_MESSAGE).nullish(),
  default_tax_behavior: z.enum(["location", "inclusive", "exclusive"]).nullish(),
  feature_settings: boolSettings(["issue_funding_enabled", "seat_based_pricing_enabled"]).nullish(),
  subscription_settings: z
    .object({
      allow_multiple_subscriptions: z.boolean(),
      allow_customer_updates: z.boolean(),
      proration_behavior: z.enum(["invoice", "prorate"]),
      benefit_revocation_grace_period: z.number().int().min(0).max(365).optional(),
      prevent_trial_abuse: z.boolean().optional(),
    })
    .nullish(),
  notification_settings: z.object({ new_order: z.boolean(), new_subscription: z.boolean() }).nullish(),
  customer_email_settings: boolSettings([
    "order_confirmation",
    "order_refunded",
    "subscription_cancellation",
    "subscription_confirmation",
    "subscription_cycled",
    "subscription_cycled_after_trial",
    "subscription_past_due",
    "subscription_paused",
    "subscription_renewal_reminder",
    "subscription_resumed",
    "subscription_revoked",
    "subscription_trial_conversion_reminder",
    "subscription_uncanceled",
    "subscription_updated",
  ]).nullish(),
  customer_portal_settings: z.record(z.string(), z.unknown()).nullish(),
  /** till's extension (billing/tax): replaces the registrations; null clears them. */
  tax_settings: TaxSettingsInput.nullish(),
  /** till's extension (billing/invoices): the seller's legal name, address and tax id on invoices; null clears them. */
  invoice_details: InvoiceDetailsInput.nullish(),
  /** till's extension (billing/dunning): failed renewal retries and the end state; null resets the defaults. */
  dunning_settings: DunningSettingsInput.nullish(),
  /**
   * till's extension (billing/settings/subscriptions.ts): downgrades at the period's end, trials without a card; null
   * resets.
   */
  plan_settings: PlanSettingsInput.nullish(),
  /** till's extension: the buyer's language when nothing else names one (shared/i18n/locales.ts); null: English. */
  default_locale: z
    .string()
    .max(35)
    .refine((v) => matchLocale(v) !== null, `Input should be one of ${LOCALES.join(", ")}`)
    .transform((v) => matchLocale(v))
    .nullish(),
  /** till's extension: the zone the seller's home reads days and months in (an IANA name); null: the browser's. */
  default_timezone: timezoneInput.nullish(),
});
export type OrganizationUpdateInput = z.output<typeof OrganizationUpdateInput>;

/** OrganizationCreate: a name and a slug, and any of the update's settings. */
export const OrganizationCreateInput = OrganizationUpdateInput.extend({
  name: z.string().trim().min(3).max(100),
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/, "Slug must be lower-case letters, digits and dashes"),
});
export type OrganizationCreateInput = z.output<typeof OrganizationCreateInput>;

/**
 * The organizations a caller can read: an API key its own, a user every one they belong to — in the sandbox,
 * their twins (never both: a sandbox is not listed live, nor a live organization in the sandbox).
 */
export async function visibleOrganizationIds(db: Db, caller: Caller): Promise<string[]> {
  if (caller.kind === "api_key") return caller.organizationId ? [caller.organizationId] : [];
  if (!caller.user) return [];
  return caller.sandbox ? sandboxesOfMember(db, caller.user.id) : repo.memberOrganizationIds(db, caller.user.id);
}

/** The organization; `view` (the routes', statusPolicy) shows every one active under TILL_TEST_PAYMENTS=live. */
export async function getOrganization(db: Queryable, organizationId: string, view?: { testInLive: boolean }): Promise<OrganizationWire> {
  const found = await repo.findOrganization(db, organizationId);
  if (!found) throw notFound("Organization not found");
  return toOrganizationWire(found.org, found.billing, view);
}

export async function listOrganizations(
  db: Db,
  caller: Caller,
  filter: { slug?: string | undefined },
  pageNo: number,
  limit: number,
  view?: { testInLive: boolean },
) {
  // the same organizations as visibleOrganizationIds, read with them in one statement
  const owner: repo.OrganizationOwner | null =
    caller.kind === "api_key"
      ? caller.organizationId
        ? { organizationId: caller.organizationId }
        : null
      : caller.user
        ? caller.sandbox
          ? { organizationIds: await sandboxesOfMember(db, caller.user.id) }
          : { userId: caller.user.id }
        : null;
  if (!owner) return { items: [], total: 0 };
  const { rows, total } = await repo.listOrganizations(db, owner, filter, pageNo, limit);
  return { items: rows.map((r) => toOrganizationWire(r.org, r.billing, view)), total };
}

export async function updateOrganization(
  db: Db,
  organizationId: string,
  input: OrganizationUpdateInput,
  policy: StatusPolicy,
): Promise<OrganizationWire> {
  return db.transaction(async (tx) => {
    const found = await repo.findOrganization(tx, organizationId);
    if (!found) throw notFound("Organization not found");
    if (input.slug && input.slug !== found.org.slug && (await repo.slugTaken(tx, input.slug, organizationId))) {
      throw invalid(["body", "slug"], "An organization with this slug already exists.");
    }
    await repo.updateOrganizationRow(tx, organizationId, {
      ...(input.name ? { name: input.name } : {}),
      ...(input.slug ? { slug: input.slug } : {}),
      ...(input.avatar_url !== undefined ? { logo: input.avatar_url } : {}),
    });
    const prev = found.billing;
    const details = storedDetails(prev);
    const nextDetails = {
      ...details,
      ...(input.country !== undefined ? { country: input.country } : {}),
      ...(input.default_presentment_currency ? { default_presentment_currency: input.default_presentment_currency } : {}),
      ...(input.default_tax_behavior ? { default_tax_behavior: input.default_tax_behavior } : {}),
      ...(input.customer_portal_settings ? { customer_portal_settings: input.customer_portal_settings } : {}),
      ...(input.details ? { submitted: input.details } : {}),
      ...(input.invoice_details !== undefined ? { invoice_details: input.invoice_details ? normalizeInvoiceDetails(input.invoice_details) : null } : {}),
      ...(input.default_locale !== undefined ? { default_locale: input.default_locale } : {}),
      ...(input.default_timezone !== undefined ? { default_timezone: input.default_timezone } : {}),
      ...(input.plan_settings !== undefined ? { plan_settings: nextPlanSettings(input.plan_settings, planSettingsOf(prev?.details)) } : {}),
    };
    const now = new Date();
    await repo.upsertBillingSettings(tx, organizationId, {
      ...(input.email !== undefined ? { email: input.email } : {}),
      ...(input.website !== undefined ? { website: input.website } : {}),
      ...(input.socials ? { socials: input.socials } : {}),
      ...(input.feature_settings ? { featureSettings: { ...prev?.featureSettings, ...stripUndefined(input.feature_settings) } } : {}),
      ...(input.subscription_settings ? { subscriptionSettings: { ...prev?.subscriptionSettings, ...stripUndefined(input.subscription_settings) } } : {}),
      ...(input.notification_settings ? { notificationSettings: input.notification_settings } : {}),
      ...(input.customer_email_settings
        ? { customerEmailSettings: { ...prev?.customerEmailSettings, ...stripUndefined(input.customer_email_settings) } }
        : {}),
      ...(input.details ? { detailsSubmittedAt: now, ...reviewOnSubmit(prev, policy) } : {}),
      ...(input.tax_settings !== undefined
        ? { taxSettings: { ...(input.tax_settings ? normalizeTaxSettings(input.tax_settings, taxSettingsOf(prev?.taxSettings)) : DEFAULT_TAX_SETTINGS) } }
        : {}),
      ...(input.dunning_settings !== undefined
        ? {
            dunningSettings: {
              ...(input.dunning_settings ? normalizeDunningSettings(input.dunning_settings, dunningSettingsOf(prev?.dunningSettings)) : DEFAULT_DUNNING_SETTINGS),
            },
          }
        : {}),
      details: nextDetails,
      modifiedAt: now,
    });
    // submitted details, legal details begun: the status moves in the same transaction as its cause
    const settled = await settleStatus(tx, organizationId, policy);
    if (!settled) throw notFound("Organization not found");
    const wire = settled.wire;
    await enqueue(tx, { type: "organization.updated", organizationId, data: { ...wire } });
    return wire;
  });
}

/**
 * Submitted details wait for a platform admin where the instance requires a review (again after a denial), unless
 * they were approved already or the organization was live before reviews were required.
 */
function reviewOnSubmit(prev: BillingOrganizationRow | undefined, policy: StatusPolicy) {
  if (!policy.reviewRequired || prev?.reviewStatus === "approved") return {};
  if (storedStatus(prev) === "active" && prev?.reviewStatus == null) return {};
  return { reviewStatus: "pending", reviewReason: null, reviewedAt: null };
}

function stripUndefined<T extends Record<string, unknown>>(o: T): Record<string, Exclude<T[keyof T], undefined>> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Record<
    string,
    Exclude<T[keyof T], undefined>
  >;
}

/** The emails of the organization's owners, told of what needs a person (a sandbox twin's: its live organization's). */
export const ownerEmails = (db: Queryable, organizationId: string) => repo.ownerEmails(db, organizationId);
