// The customer's billing details in the portal: name, address and tax id in one form, used on the next invoices
// and receipts; a 422's messages stand next to their fields and focus goes to the first one to fix.
import { useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { portalApi, type Address, type PortalCustomer } from "../portal-api.js";
import { addressFields, countryOptions } from "../regions.js";
import { t, type MessageId } from "../i18n/intl.js";
import { Field, Status } from "../ui.js";
import { SelectField, type Message, type OnError } from "./PortalCommon.js";

type AddressKey = "line1" | "line2" | "city" | "postal_code" | "state";
const ADDRESS_FIELDS: { key: AddressKey; label: MessageId; autoComplete: string; maxLength: number }[] = [
  { key: "line1", label: "billing.line1", autoComplete: "address-line1", maxLength: 255 },
  { key: "line2", label: "billing.line2", autoComplete: "address-line2", maxLength: 255 },
  { key: "city", label: "billing.city", autoComplete: "address-level2", maxLength: 255 },
  { key: "postal_code", label: "billing.postalCode", autoComplete: "postal-code", maxLength: 32 },
  { key: "state", label: "billing.state", autoComplete: "address-level1", maxLength: 255 },
];

interface BillingForm {
  name: string;
  country: string;
  line1: string;
  line2: string;
  city: string;
  postal_code: string;
  state: string;
  taxId: string;
}

function formOf(me: PortalCustomer): BillingForm {
  return { name: me.billing_name ?? "", ...addressFields(me.billing_address), taxId: me.tax_id?.[0] ?? "" };
}

/** The 422's field paths ("billing_address.country", "tax_id") to the form's fields. */
function fieldErrors(fields: Record<string, string>): Partial<Record<keyof BillingForm, string>> {
  const out: Partial<Record<keyof BillingForm, string>> = {};
  for (const [path, msg] of Object.entries(fields)) {
    const key: keyof BillingForm | undefined =
      path === "billing_name"
        ? "name"
        : path === "tax_id"
          ? "taxId"
          : path === "billing_address" || path === "billing_address.country"
            ? "country"
            : path.startsWith("billing_address.")
              ? (ADDRESS_FIELDS.find((f) => `billing_address.${f.key}` === path)?.key ?? "country")
              : undefined;
    if (key && !out[key]) out[key] = msg;
  }
  return out;
}

export function Billing({ me, token, onError, onSaved }: { me: PortalCustomer; token: string; onError: OnError; onSaved: (me: PortalCustomer) => void }) {
  const countries = useMemo(countryOptions, []);
  const [form, setForm] = useState<BillingForm>(() => formOf(me));
  const [errors, setErrors] = useState<Partial<Record<keyof BillingForm, string>>>({});
  const [message, setMessage] = useState<Message | undefined>();
  const [busy, setBusy] = useState(false);
  const [rejected, setRejected] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const set = (key: keyof BillingForm) => (value: string) => setForm((f) => ({ ...f, [key]: value }));
  const hadAddress = me.billing_address !== null;

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const text = (v: string) => v.trim() || null;
    const address: Address | undefined = form.country
      ? {
          country: form.country,
          line1: text(form.line1),
          line2: text(form.line2),
          city: text(form.city),
          postal_code: text(form.postal_code),
          state: text(form.state),
        }
      : undefined;
    setBusy(true);
    setErrors({});
    setMessage({ tone: "info", text: t("billing.saving") });
    const r = await portalApi.updateMe(token, { billing_name: text(form.name), billing_address: address, tax_id: text(form.taxId) });
    setBusy(false);
    if (r.ok) {
      onSaved(r.data);
      setForm(formOf(r.data));
      setMessage({ tone: "success", text: t("billing.saved") });
      return;
    }
    const text422 = onError(r.error);
    const byField = fieldErrors(r.error.fields);
    setErrors(byField);
    const fieldCount = Object.keys(byField).length;
    setMessage({ tone: "error", text: fieldCount > 0 ? t("billing.notSaved") : text422 });
    if (fieldCount > 0) setRejected((n) => n + 1);
  }

  // after a 422, focus moves to the first field to fix (once React has marked it)
  useEffect(() => {
    if (rejected > 0) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [rejected]);

  return (
    <section aria-labelledby="billing-heading">
      <h2 id="billing-heading">{t("billing.title")}</h2>
      <p className="hint">{t("billing.hint")}</p>
      <form ref={formRef} onSubmit={(e) => void onSubmit(e)} aria-labelledby="billing-heading" noValidate>
        <Field label={t("billing.name")} name="billing_name" autoComplete="name" maxLength={256} value={form.name} error={errors.name} onChange={(e) => set("name")(e.target.value)} />
        <SelectField label={t("billing.country")} name="country" autoComplete="country" value={form.country} error={errors.country} onChange={set("country")}>
          {!hadAddress && <option value="">{t("billing.noAddress")}</option>}
          {form.country && !countries.some((c) => c.code === form.country) && <option value={form.country}>{form.country}</option>}
          {countries.map((c) => (
            <option key={c.code} value={c.code}>
              {c.name}
            </option>
          ))}
        </SelectField>
        {ADDRESS_FIELDS.map((f) => (
          <Field
            key={f.key}
            label={t(f.label)}
            name={f.key}
            autoComplete={f.autoComplete}
            maxLength={f.maxLength}
            value={form[f.key]}
            error={errors[f.key]}
            disabled={!form.country}
            onChange={(e) => set(f.key)(e.target.value)}
          />
        ))}
        <Field
          label={t("billing.taxId")}
          name="tax_id"
          maxLength={64}
          value={form.taxId}
          error={errors.taxId}
          hint={t("billing.taxIdHint")}
          onChange={(e) => set("taxId")(e.target.value)}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {t("billing.save")}
          </button>
        </div>
      </form>
      <Status tone={message?.tone}>{message?.text}</Status>
    </section>
  );
}
