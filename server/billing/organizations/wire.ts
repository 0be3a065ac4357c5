// The Polar `Organization` shape, built from better-auth's organization row and till's billing settings.
import type { InferSelectModel } from "drizzle-orm";
import type { billingOrganization, organization } from "../../db/schema/index.js";
import { taxSettingsOf } from "../tax/settings.js";
import { invoiceDetailsOf } from "../settings/invoices.js";
import { dunningSettingsOf } from "../settings/dunning.js";
import { planSettingsOf } from "../settings/subscriptions.js";
import { matchLocale } from "../../../shared/i18n/locales.js";

export type OrganizationRow = InferSelectModel<typeof organization>;
export type BillingOrganizationRow = InferSelectModel<typeof billingOrganization>;

export const DEFAULT_FEATURE_SETTINGS = { issue_funding_enabled: false, seat_based_pricing_enabled: false };
export const DEFAULT_SUBSCRIPTION_SETTINGS = {
  allow_multiple_subscriptions: false,
  allow_customer_updates: true,
  proration_behavior: "prorate",
  benefit_revocation_grace_period: 0,
  prevent_trial_abuse: false,
};
export const DEFAULT_NOTIFICATION_SETTINGS = { new_order: true, new_subscription: true };
export const DEFAULT_CUSTOMER_EMAIL_SETTINGS = {
  order_confirmation: true,
  // till's own: the buyer's notice of a completed refund (Polar has no refund email)
  order_refunded: true,
  subscription_cancellation: true,
  subscription_confirmation: true,
  subscription_cycled: true,
  subscription_cycled_after_trial: true,
  subscription_past_due: true,
  subscription_paused: true,
  subscription_renewal_reminder: true,
  subscription_resumed: true,
  subscription_revoked: true,
  subscription_trial_conversion_reminder: true,
  subscription_uncanceled: true,
  subscription_updated: true,
};
export const DEFAULT_CUSTOMER_PORTAL_SETTINGS = {
  usage: { show: true },
  subscription: { update_seats: true, update_plan: true },
  customer: { allow_email_change: true },
};

/** Stored under billing_organization.details next to what the seller submitted. */
interface StoredDetails {
  country?: string | null;
  default_presentment_currency?: string;
  default_tax_behavior?: string;
  customer_portal_settings?: Record<string, unknown>;
  submitted?: Record<string, unknown> | null;
  default_locale?: string | null;
  default_timezone?: string | null;
}

export function storedDetails(billing: BillingOrganizationRow | undefined): StoredDetails {
  return (billing?.details ?? {}) as StoredDetails;
}

/**
 * The organization as Polar's wire shows it. `view.testInLive` (TILL_TEST_PAYMENTS=live): every organization
 * answers `active`, as the test card pays its checkouts; without a view, the stored status (organizations/status.ts).
 */
export function toOrganizationWire(org: OrganizationRow, billing: BillingOrganizationRow | undefined, view?: { testInLive: boolean }) {
  const details = storedDetails(billing);
  const subscription = { ...DEFAULT_SUBSCRIPTION_SETTINGS, ...billing?.subscriptionSettings };
  const status = view?.testInLive ? "active" : (billing?.status ?? "created");
  return {
    id: org.id,
    created_at: org.createdAt.toISOString(),
    modified_at: billing?.modifiedAt?.toISOString() ?? null,
    name: org.name,
    slug: org.slug,
    avatar_url: org.logo ?? null,
    email: billing?.email ?? null,
    website: billing?.website ?? null,
    socials: billing?.socials ?? [],
    status,
    details_submitted_at: billing?.detailsSubmittedAt?.toISOString() ?? null,
    country: details.country ?? null,
    default_presentment_currency: details.default_presentment_currency ?? "usd",
    default_tax_behavior: details.default_tax_behavior ?? "location",
    feature_settings: { ...DEFAULT_FEATURE_SETTINGS, ...billing?.featureSettings },
    subscription_settings: subscription,
    // older SDKs read these two at the top level
    proration_behavior: subscription.proration_behavior,
    allow_customer_updates: subscription.allow_customer_updates,
    notification_settings: { ...DEFAULT_NOTIFICATION_SETTINGS, ...billing?.notificationSettings },
    customer_email_settings: { ...DEFAULT_CUSTOMER_EMAIL_SETTINGS, ...billing?.customerEmailSettings },
    customer_portal_settings: { ...DEFAULT_CUSTOMER_PORTAL_SETTINGS, ...details.customer_portal_settings },
    // till's extension: where the organization collects tax (the SDKs ignore the field)
    tax_settings: taxSettingsOf(billing?.taxSettings),
    // till's extension: the seller's details printed on invoices (billing/invoices)
    invoice_details: invoiceDetailsOf(billing?.details),
    // till's extension: how failed renewal charges are retried, and how the subscription ends
    dunning_settings: dunningSettingsOf(billing?.dunningSettings),
    // till's extension: downgrades at the period's end, trials without a card (billing/settings/subscriptions.ts)
    plan_settings: planSettingsOf(billing?.details),
    // till's extension: the buyer's language when the checkout, the customer and the browser name none
    default_locale: matchLocale(details.default_locale),
    // till's extension: the zone the seller's home reads its ranges in
    default_timezone: details.default_timezone ?? null,
    sso_enforced: false,
    account_id: null,
    payout_account_id: null,
    capabilities: {
      checkout_payments: true,
      subscription_renewals: true,
      payouts: false,
      refunds: true,
      api_access: true,
      dashboard_access: true,
    },
  };
}

export type OrganizationWire = ReturnType<typeof toOrganizationWire>;

/** The organization as embedded in others' shapes (`CheckoutOrganization`, `BenefitSubscriberOrganization`). */
export const toOrganizationSummaryWire = (o: OrganizationWire) => ({
  created_at: o.created_at,
  modified_at: o.modified_at,
  id: o.id,
  name: o.name,
  slug: o.slug,
  avatar_url: o.avatar_url,
  proration_behavior: o.proration_behavior,
  allow_customer_updates: o.allow_customer_updates,
});
