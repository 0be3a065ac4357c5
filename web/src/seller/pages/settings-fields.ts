// Every setting of the organization (PATCH /v1/organizations/{id}) as a seller reads it: grouped in forms, each
// saved on its own, each field with a label and help in the seller's words and its path in the API's body. The
// test tests/unit/seller-settings-coverage.test.ts holds every key the API takes to a field here (or a reason).
import { COUNTRY_CODES } from "../../../../shared/countries.js";
import { SWITCHABLE_EMAIL_TYPES, type SwitchableEmailType } from "../../../../shared/customer-emails.js";
import { LOCALES } from "../../../../shared/i18n/locales.js";
import type { FieldSpec } from "../kit/fields.js";
import type { SettingsSlug } from "./settings-sections.js";

/** The organization as GET /v1/organizations/{id} answers it (the parts these pages read themselves). */
export interface OrgSettings {
  id: string;
  name: string;
  slug?: string;
  tax_settings?: { registrations: Array<{ country: string; state?: string | null }>; prices_include_tax?: boolean };
  subscription_settings?: Record<string, unknown>;
  invoice_details?: { address: unknown; tax_id: string | null } | null;
}

export interface SettingsFormSpec {
  title: string;
  intro?: string;
  save: string;
  fields: FieldSpec[];
  /** The body as the API wants it, where the fields' paths alone do not make it. */
  shape?: (body: Record<string, unknown>, org: unknown) => Record<string, unknown>;
}

const regionName = (code: string) => {
  try {
    return new Intl.DisplayNames(["en"], { type: "region" }).of(code) ?? code;
  } catch {
    return code;
  }
};
const countries = () => COUNTRY_CODES.map((c) => ({ value: c, label: `${regionName(c)} (${c})` })).sort((a, b) => a.label.localeCompare(b.label));

/** Each locale by its own name ("de — Deutsch"), as the buyer would look for it. */
const locales = () => LOCALES.map((l) => ({ value: l, label: `${l} — ${new Intl.DisplayNames([l], { type: "language" }).of(l) ?? l}` }));

/** Each email a switch turns on or off, as the seller knows it, and when it goes out. */
const EMAIL_SWITCHES: Record<SwitchableEmailType, { label: string; help: string }> = {
  order_confirmation: { label: "Order receipt", help: "After a one-time purchase is paid." },
  subscription_confirmation: { label: "New subscription", help: "When a subscription starts, with its first receipt." },
  subscription_cycled: { label: "Renewal receipt", help: "Each time a subscription renews and is paid." },
  subscription_cycled_after_trial: { label: "First charge after a trial", help: "When a trial ends and the first period is paid." },
  subscription_past_due: { label: "Renewal payment failed", help: "When a renewal's charge fails: the amount owed and where to update the card." },
  subscription_updated: { label: "Plan changed", help: "When a subscription moves to another product or price." },
  subscription_cancellation: { label: "Cancellation scheduled", help: "When a subscription is set to end at its period's end." },
  subscription_uncanceled: { label: "Cancellation undone", help: "When a scheduled cancellation is withdrawn." },
  subscription_revoked: { label: "Subscription ended", help: "When a subscription ends and its benefits stop." },
  order_refunded: { label: "Refund completed", help: "When a refund has gone through: how much and where the money went." },
};

/** Every zone the browser knows, by its IANA name (what the API takes). */
const zones = () => Intl.supportedValuesOf("timeZone").map((z) => ({ value: z, label: z.replace(/_/g, " ") }));

const upper = (v: unknown) => (typeof v === "string" ? v.toUpperCase() : v);

/** The invoice address goes as null until it has a country (the API's address needs one). */
function legalShape(body: Record<string, unknown>): Record<string, unknown> {
  const d = body.invoice_details as { address: Record<string, unknown> } & Record<string, unknown>;
  const address = d.address.country ? { ...d.address, country: upper(d.address.country) } : null;
  return { invoice_details: { ...d, address } };
}

/** Polar's subscription_settings takes its three main keys together: those this form does not show go as they are. */
function withSubscriptionSettings(body: Record<string, unknown>, org: unknown): Record<string, unknown> {
  const now = (org as { subscription_settings?: Record<string, unknown> }).subscription_settings ?? {};
  const { allow_multiple_subscriptions, allow_customer_updates, proration_behavior } = now;
  const asked = body.subscription_settings as Record<string, unknown>;
  return { ...body, subscription_settings: { allow_multiple_subscriptions, allow_customer_updates, proration_behavior, ...asked } };
}

const yesNo = (help: string) => ({ kind: "bool" as const, help });

export const SETTINGS_FORMS: Partial<Record<SettingsSlug, SettingsFormSpec[]>> = {
  organization: [
    {
      title: "Profile",
      save: "Save profile",
      fields: [
        { path: "name", label: "Name", kind: "text", maxLength: 100, help: "Shown to your customers at checkout, in the portal and in emails." },
        { path: "slug", label: "Short name in links", kind: "text", maxLength: 63, help: "Lower-case letters, digits and dashes; the CLI's --org takes it too." },
        { path: "email", label: "Support email", kind: "email", autoComplete: "email", help: "Where your customers can write to you." },
        { path: "website", label: "Website", kind: "url", autoComplete: "url", help: "Starts with https://" },
        { path: "avatar_url", label: "Logo (link to an image)", kind: "url", help: "Shown at the top of the checkout and the portal." },
        { path: "socials", label: "Social profiles", kind: "links", help: "One link per line (GitHub, X, LinkedIn, …)." },
        { path: "country", label: "Country of the business", kind: "select", options: countries(), placeholder: "Not said" },
        {
          path: "default_timezone",
          label: "Time zone",
          kind: "select",
          options: zones(),
          placeholder: "Your browser's",
          help: "The home's days and months start at midnight here.",
        },
      ],
    },
  ],
  legal: [
    {
      title: "Legal details on invoices",
      intro: "Many customers need your legal name, address and tax id on their invoices.",
      save: "Save legal details",
      shape: legalShape,
      fields: [
        { path: "invoice_details.name", label: "Legal name", kind: "text", help: "Empty: your organization's name." },
        { path: "invoice_details.address.line1", label: "Street", kind: "text", autoComplete: "address-line1" },
        { path: "invoice_details.address.line2", label: "Street, second line", kind: "text", autoComplete: "address-line2" },
        { path: "invoice_details.address.postal_code", label: "Postal code", kind: "text", autoComplete: "postal-code" },
        { path: "invoice_details.address.city", label: "City", kind: "text", autoComplete: "address-level2" },
        { path: "invoice_details.address.state", label: "State or region", kind: "text", autoComplete: "address-level1" },
        { path: "invoice_details.address.country", label: "Country", kind: "select", options: countries(), placeholder: "Choose a country (the address needs one)" },
        { path: "invoice_details.tax_id", label: "Tax id (e.g. VAT number)", kind: "text" },
        { path: "invoice_details.email", label: "Email for invoice questions", kind: "email" },
      ],
    },
  ],
  payments: [
    {
      title: "Currency",
      save: "Save currency",
      fields: [
        {
          path: "default_presentment_currency", label: "Default currency", kind: "text", maxLength: 3,
          help: "Three lower-case letters (usd, eur, gbp): the currency a new product's first price is in.",
        },
      ],
    },
  ],
  tax: [
    {
      title: "How tax is worked out",
      save: "Save tax behavior",
      fields: [
        {
          path: "default_tax_behavior", label: "Tax on prices", kind: "select", placeholder: "Keep as it is",
          options: [
            { value: "location", label: "By the buyer's location" },
            { value: "inclusive", label: "Included in the price" },
            { value: "exclusive", label: "Added on top of the price" },
          ],
        },
      ],
    },
  ],
  dunning: [
    {
      title: "Failed renewals",
      intro: "A renewal whose charge fails is retried; after the last retry the subscription ends or stays unpaid.",
      save: "Save dunning",
      fields: [
        { path: "dunning_settings.retry_intervals_days", label: "Retry after (days, comma-separated)", kind: "days", help: "e.g. 3, 5, 7: days between tries, up to 10 tries." },
        {
          path: "dunning_settings.final_action", label: "After the last retry", kind: "select",
          options: [{ value: "cancel", label: "Cancel the subscription" }, { value: "unpaid", label: "Mark it unpaid" }],
        },
      ],
    },
    {
      title: "Access while a payment is owed",
      save: "Save access",
      fields: [{ path: "plan_settings.access_while_past_due", label: "Customers keep their benefits while retries go on", ...yesNo("Off: benefits stop at the first failed renewal.") }],
    },
  ],
  plans: [
    {
      title: "Plan changes",
      save: "Save plan changes",
      fields: [
        { path: "subscription_settings.allow_multiple_subscriptions", label: "A customer may hold several subscriptions", ...yesNo("Off: a second checkout of a plan is refused.") },
        { path: "subscription_settings.allow_customer_updates", label: "Customers may change their plan in the portal", ...yesNo("Upgrades and downgrades among your products.") },
        {
          path: "subscription_settings.proration_behavior", label: "When a plan changes mid-period", kind: "select",
          options: [{ value: "prorate", label: "Charge or credit the difference on the next invoice" }, { value: "invoice", label: "Invoice the difference now" }],
        },
        { path: "plan_settings.downgrades_at_period_end", label: "Downgrades wait for the period's end", ...yesNo("A move to a cheaper plan applies at renewal.") },
        {
          path: "subscription_settings.benefit_revocation_grace_period", label: "Days benefits last after a subscription ends", kind: "number", min: 0, max: 365,
          help: "0: they stop when it ends.",
        },
      ],
    },
    {
      title: "Trials",
      save: "Save trials",
      shape: withSubscriptionSettings,
      fields: [
        { path: "plan_settings.trials_without_card", label: "A trial may start without a card", ...yesNo("The checkout asks for no payment method.") },
        { path: "plan_settings.trial_reminder_days", label: "Remind the customer this many days before a trial ends", kind: "number", min: 0, max: 30, help: "0: no reminder." },
        {
          path: "plan_settings.trial_end_without_card", label: "When a trial ends without a card", kind: "select",
          options: [{ value: "cancel", label: "End the subscription" }, { value: "past_due", label: "Bill it, and retry as a failed renewal" }],
        },
        { path: "subscription_settings.prevent_trial_abuse", label: "One trial per customer", ...yesNo("A customer who had a trial of a product gets no second one.") },
      ],
    },
    {
      title: "Features (Polar compatibility)",
      intro: "Kept for apps written for Polar that read them; till's own behavior does not depend on them.",
      save: "Save features",
      fields: [
        { path: "feature_settings.seat_based_pricing_enabled", label: "Seat-based pricing", kind: "bool" },
        { path: "feature_settings.issue_funding_enabled", label: "Issue funding", kind: "bool" },
      ],
    },
  ],
  portal: [
    {
      title: "What customers may do",
      save: "Save portal",
      fields: [
        { path: "customer_portal_settings.usage.show", label: "See their usage", kind: "bool" },
        { path: "customer_portal_settings.subscription.update_seats", label: "Change their number of seats", kind: "bool" },
        { path: "customer_portal_settings.subscription.update_plan", label: "Change their plan", kind: "bool" },
        { path: "customer_portal_settings.customer.allow_email_change", label: "Change their email", kind: "bool" },
      ],
    },
  ],
  emails: [
    {
      title: "Customer emails",
      intro: "Seat invitations and email-change links are always sent; a trial's reminder follows Plans and trials.",
      save: "Save customer emails",
      fields: SWITCHABLE_EMAIL_TYPES.map((k) => ({ path: `customer_email_settings.${k}`, kind: "bool" as const, ...EMAIL_SWITCHES[k] })),
    },
    {
      title: "Customers' language",
      intro: "The checkout, the portal, emails and invoices speak the checkout's locale, else the customer's, else their browser's; this default comes last.",
      save: "Save language",
      fields: [{ path: "default_locale", label: "Default language", kind: "select", options: locales(), placeholder: "None (English)" }],
    },
    {
      title: "Emails to you",
      intro: "Kept for apps written for Polar; till sends no such email to you yet.",
      save: "Save notifications",
      fields: [
        { path: "notification_settings.new_order", label: "A new order", kind: "bool" },
        { path: "notification_settings.new_subscription", label: "A new subscription", kind: "bool" },
      ],
    },
  ],
  developers: [],
};

/** Every body path a settings field sends (for the coverage test and the pages' own checks). */
export const settingsPaths = (): string[] => Object.values(SETTINGS_FORMS).flatMap((forms) => forms.flatMap((f) => f.fields.map((x) => x.path)));
