// The settings forms: legal details for invoices, dunning (retry days, the end state), customer emails and the
// customers' default language. Each
// PATCHes only its own part of the organization and shows the API's answer (or its error).
import { useState, type FormEvent, type ReactNode } from "react";
import { CheckboxField, Field, SelectField, Status, type Tone } from "../../ui.js";
import { v1 } from "../api.js";
import { useSeller } from "../context.js";
import { ReadOnly } from "../parts.js";
import { LOCALES } from "../../../../shared/i18n/locales.js";
import { SWITCHABLE_EMAIL_TYPES, type SwitchableEmailType } from "../../../../shared/customer-emails.js";

interface Address {
  line1: string | null;
  line2: string | null;
  postal_code: string | null;
  city: string | null;
  state: string | null;
  country: string;
}

export interface OrgSettings {
  id: string;
  name: string;
  invoice_details?: { name: string | null; address: Address | null; tax_id: string | null; email: string | null };
  tax_settings?: { registrations: Array<{ country: string; state?: string | null }>; prices_include_tax?: boolean };
  dunning_settings?: { retry_intervals_days: number[]; final_action: string };
  customer_email_settings?: Record<string, boolean>;
  default_locale?: string | null;
}

type Save = (o: OrgSettings) => void;

function useSave(org: OrgSettings, onSaved: Save) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  async function save(body: Record<string, unknown>) {
    setSaid({ tone: "info", text: "Saving…" });
    const r = await v1<OrgSettings>(scope, "PATCH", `/organizations/${org.id}`, { body });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: "Saved." });
    onSaved(r.data);
  }
  return { said, save, status: <Status tone={said?.tone}>{said?.text}</Status> };
}

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

const text = (form: FormData, name: string) => String(form.get(name) ?? "").trim() || null;

export function LegalDetails({ org, mayWrite, onSaved }: { org: OrgSettings; mayWrite: boolean; onSaved: Save }) {
  const { save, status } = useSave(org, onSaved);
  const d = org.invoice_details;
  const missing = [!d?.address ? "address" : null, !d?.tax_id ? "tax id" : null].filter(Boolean);
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const country = text(f, "country")?.toUpperCase() ?? null;
    const address = country ? { line1: text(f, "line1"), line2: text(f, "line2"), postal_code: text(f, "postal_code"), city: text(f, "city"), state: text(f, "state"), country } : null;
    void save({ invoice_details: { name: text(f, "legal_name"), address, tax_id: text(f, "tax_id"), email: text(f, "invoice_email") } });
  }
  return (
    <Section id="legal-h" title="Legal details on invoices">
      {missing.length > 0 && (
        <p className="warning" role="note">
          Your invoices lack your {missing.join(" and ")}: many customers need them. Fill them in below (or <code>till orgs billing set</code>).
        </p>
      )}
      {!mayWrite && <ReadOnly what="change the organization" />}
      <form onSubmit={onSubmit} aria-label="Legal details" className="stack">
        <fieldset disabled={!mayWrite}>
          <legend className="visually-hidden">Legal details</legend>
          <Field label="Legal name" name="legal_name" optional defaultValue={d?.name ?? ""} hint={`Empty: ${org.name}.`} />
          <Field label="Street" name="line1" optional defaultValue={d?.address?.line1 ?? ""} autoComplete="address-line1" />
          <Field label="Street, second line" name="line2" optional defaultValue={d?.address?.line2 ?? ""} autoComplete="address-line2" />
          <Field label="Postal code" name="postal_code" optional defaultValue={d?.address?.postal_code ?? ""} autoComplete="postal-code" />
          <Field label="City" name="city" optional defaultValue={d?.address?.city ?? ""} autoComplete="address-level2" />
          <Field label="State or region" name="state" optional defaultValue={d?.address?.state ?? ""} />
          <Field label="Country (two letters, e.g. FR)" name="country" optional maxLength={2} defaultValue={d?.address?.country ?? ""} autoComplete="country" />
          <Field label="Tax id (e.g. VAT number)" name="tax_id" optional defaultValue={d?.tax_id ?? ""} />
          <Field label="Email for invoice questions" name="invoice_email" type="email" optional defaultValue={d?.email ?? ""} />
          <button type="submit" className="primary">
            Save legal details
          </button>
        </fieldset>
      </form>
      {status}
    </Section>
  );
}

export function Dunning({ org, mayWrite, onSaved }: { org: OrgSettings; mayWrite: boolean; onSaved: Save }) {
  const { save, status } = useSave(org, onSaved);
  const d = org.dunning_settings;
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const days = String(f.get("days") ?? "").split(/[\s,]+/).filter(Boolean).map(Number);
    void save({ dunning_settings: { retry_intervals_days: days, final_action: String(f.get("final_action") || "cancel") } });
  }
  return (
    <Section id="dunning-h" title="Failed renewals (dunning)">
      <form onSubmit={onSubmit} aria-label="Dunning" className="stack">
        <fieldset disabled={!mayWrite}>
          <legend className="visually-hidden">Dunning</legend>
          <Field label="Retry after (days, comma-separated)" name="days" defaultValue={(d?.retry_intervals_days ?? []).join(", ")} />
          <SelectField
            label="After the last retry" name="final_action" defaultValue={d?.final_action === "unpaid" ? "unpaid" : ""}
            placeholder="Cancel the subscription" options={[{ value: "unpaid", label: "Mark it unpaid" }]}
          />
          <button type="submit">Save dunning</button>
        </fieldset>
      </form>
      {status}
    </Section>
  );
}

/** Each email a switch turns on or off, as the seller knows it, and when it goes out. */
const EMAIL_SWITCHES: Record<SwitchableEmailType, { label: string; hint: string }> = {
  order_confirmation: { label: "Order receipt", hint: "After a one-time purchase is paid." },
  subscription_confirmation: { label: "New subscription", hint: "When a subscription starts, with its first receipt." },
  subscription_cycled: { label: "Renewal receipt", hint: "Each time a subscription renews and is paid." },
  subscription_cycled_after_trial: { label: "First charge after a trial", hint: "When a trial ends and the first period is paid." },
  subscription_past_due: { label: "Renewal payment failed", hint: "When a renewal's charge fails: the amount owed and where to update the card." },
  subscription_updated: { label: "Plan changed", hint: "When a subscription moves to another product or price." },
  subscription_cancellation: { label: "Cancellation scheduled", hint: "When a subscription is set to end at its period's end." },
  subscription_uncanceled: { label: "Cancellation undone", hint: "When a scheduled cancellation is withdrawn." },
  subscription_revoked: { label: "Subscription ended", hint: "When a subscription ends and its benefits stop." },
  order_refunded: { label: "Refund completed", hint: "When a refund has gone through: how much and where the money went." },
};

export function CustomerEmails({ org, mayWrite, onSaved }: { org: OrgSettings; mayWrite: boolean; onSaved: Save }) {
  const { save, status } = useSave(org, onSaved);
  const settings = org.customer_email_settings ?? {};
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    // only the switches shown: Polar's keys for emails till never sends stay as they are
    void save({ customer_email_settings: Object.fromEntries(SWITCHABLE_EMAIL_TYPES.map((k) => [k, f.get(k) === "on"])) });
  }
  return (
    <Section id="emails-h" title="Customer emails">
      <form onSubmit={onSubmit} aria-label="Customer emails" className="stack">
        <fieldset disabled={!mayWrite}>
          <legend>Emails sent to customers</legend>
          <p className="hint">Seat invitations and email-change links are always sent; a trial&apos;s reminder follows the plan settings.</p>
          {SWITCHABLE_EMAIL_TYPES.map((k) => (
            <CheckboxField key={k} label={EMAIL_SWITCHES[k].label} hint={EMAIL_SWITCHES[k].hint} name={k} defaultChecked={settings[k] ?? true} />
          ))}
          <button type="submit">Save customer emails</button>
        </fieldset>
      </form>
      {status}
    </Section>
  );
}

/** Each locale by its own name ("de — Deutsch"), as the buyer would look for it. */
const localeOptions = () =>
  LOCALES.map((l) => ({ value: l, label: `${l} — ${new Intl.DisplayNames([l], { type: "language" }).of(l) ?? l}` }));

export function CustomerLanguage({ org, mayWrite, onSaved }: { org: OrgSettings; mayWrite: boolean; onSaved: Save }) {
  const { save, status } = useSave(org, onSaved);
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    void save({ default_locale: text(new FormData(e.currentTarget), "default_locale") });
  }
  return (
    <Section id="locale-h" title="Customers' language">
      <p className="hint">
        The checkout, the portal, emails and invoices speak the checkout&apos;s locale, else the customer&apos;s, else their browser&apos;s
        language; this default comes last.
      </p>
      <form onSubmit={onSubmit} aria-label="Customers' language" className="stack">
        <fieldset disabled={!mayWrite}>
          <legend className="visually-hidden">Customers&apos; language</legend>
          <SelectField label="Default language" name="default_locale" defaultValue={org.default_locale ?? ""} placeholder="None (English)" options={localeOptions()} />
          <button type="submit">Save language</button>
        </fieldset>
      </form>
      {status}
    </Section>
  );
}
