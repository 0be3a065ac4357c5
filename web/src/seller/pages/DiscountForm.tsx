// A discount's form, new or changed. A new one says what it takes off (a percentage, or an amount in a
// currency), for how long on a subscription, its code, its limits; a made one changes its name, code, limits
// and dates (what it takes off is fixed once buyers may have it). Saving opens the discount's page.
import { useState, type FormEvent } from "react";
import { Field, SelectField, Status } from "../../ui.js";
import { v1 } from "../api.js";
import { useSeller } from "../context.js";
import { CurrencyList } from "../kit/currencies.js";
import { toMinor } from "../price-drafts.js";
import { href } from "../url.js";
import type { Discount } from "./Discounts.js";

const text = (f: FormData, name: string) => String(f.get(name) ?? "").trim();
const dayStart = (d: string) => (d ? `${d}T00:00:00Z` : null);
const dayEnd = (d: string) => (d ? `${d}T23:59:59Z` : null);

/** What a new discount takes off and for how long, or a sentence saying what is missing. */
function amountOf(f: FormData): Record<string, unknown> | string {
  const type = text(f, "type") === "fixed" ? "fixed" : "percentage";
  const value = text(f, "value");
  const duration = text(f, "duration") || "once";
  const body: Record<string, unknown> = { type, duration };
  if (duration === "repeating") body.duration_in_months = Number(text(f, "months") || 1);
  if (type === "percentage") {
    const percent = Number(value);
    if (!value || !Number.isFinite(percent) || percent <= 0 || percent > 100) return "Write the percentage off as a number from 0.01 to 100, e.g. 20.";
    body.basis_points = Math.round(percent * 100);
    return body;
  }
  const currency = (text(f, "currency") || "usd").toLowerCase();
  const amount = toMinor(value, currency);
  if (amount === null || amount <= 0) return "Write the amount off as a number, e.g. 5.00.";
  return { ...body, amount, currency };
}

export function DiscountForm({ discount }: { discount: Discount | null }) {
  const { scope } = useSeller();
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [type, setType] = useState("percentage");
  const [duration, setDuration] = useState("once");
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const max = text(f, "max_redemptions");
    const body: Record<string, unknown> = {
      name: text(f, "name"),
      code: text(f, "code") || null,
      max_redemptions: max ? Number(max) : null,
      starts_at: dayStart(text(f, "starts_at")),
      ends_at: dayEnd(text(f, "ends_at")),
    };
    if (!discount) {
      const amount = amountOf(f);
      if (typeof amount === "string") return setError(amount);
      Object.assign(body, amount);
    }
    setBusy(true);
    const r = discount ? await v1<Discount>(scope, "PATCH", `/discounts/${discount.id}`, { body }) : await v1<Discount>(scope, "POST", "/discounts/", { body });
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    window.location.assign(href(`/discounts/${r.data.id}`, discount ? { saved: 1 } : { created: 1 }));
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label={discount ? "Edit the discount" : "New discount"} className="form-page">
      <section className="form-section" aria-labelledby="discount-about-h">
        <h2 id="discount-about-h">About</h2>
        <Field label="Name" name="name" required maxLength={100} defaultValue={discount?.name ?? ""} hint="Buyers see it on the checkout and the receipt." />
        <Field label="Code" name="code" optional maxLength={32} defaultValue={discount?.code ?? ""} hint="What buyers type at checkout; empty: only links and the API apply it." />
      </section>
      {!discount && (
        <section className="form-section" aria-labelledby="discount-off-h">
          <h2 id="discount-off-h">What it takes off</h2>
          <SelectField label="Kind" name="type" value={type} onChange={(e) => setType(e.target.value)} placeholder="Percentage off" options={[{ value: "fixed", label: "Fixed amount off" }]} />
          <div className="row-fields">
            <Field label={type === "fixed" ? "Amount off" : "Percentage off"} name="value" required inputMode="decimal" hint={type === "fixed" ? "e.g. 5.00" : "e.g. 20 for 20 %"} />
            {type === "fixed" && (
              <>
                <Field label="Currency" name="currency" defaultValue="usd" list="discount-currencies" maxLength={3} minLength={3} autoComplete="off" />
                <CurrencyList id="discount-currencies" />
              </>
            )}
          </div>
          <div className="row-fields">
            <SelectField
              label="On a subscription, it applies"
              name="duration"
              value={duration}
              onChange={(e) => setDuration(e.target.value)}
              placeholder="Once, the first payment"
              options={[
                { value: "forever", label: "Forever" },
                { value: "repeating", label: "For some months" },
              ]}
            />
            {duration === "repeating" && <Field label="Months" name="months" required type="number" min={1} max={999} defaultValue="3" />}
          </div>
        </section>
      )}
      <section className="form-section" aria-labelledby="discount-limits-h">
        <h2 id="discount-limits-h">Limits</h2>
        <Field label="Most redemptions" name="max_redemptions" optional type="number" min={1} defaultValue={discount?.max_redemptions ?? ""} />
        <div className="row-fields">
          <Field label="First day it applies" name="starts_at" type="date" optional defaultValue={discount?.starts_at?.slice(0, 10) ?? ""} />
          <Field label="Last day it applies" name="ends_at" type="date" optional defaultValue={discount?.ends_at?.slice(0, 10) ?? ""} />
        </div>
      </section>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {discount ? "Save changes" : "Create discount"}
        </button>
        <a href={href(discount ? `/discounts/${discount.id}` : "/discounts")}>Cancel</a>
      </div>
      <Status tone={error ? "error" : "info"}>{error ?? (busy ? "Saving…" : null)}</Status>
    </form>
  );
}
