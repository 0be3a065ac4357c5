// A customer's change of plan, of seats or of add-ons in the portal, as the seller's portal settings allow: they choose
// the new plan (the seller's public plans of the same interval), seat count or add-ons (PortalAddOns), the portal
// shows what the change bills now
// (its lines, discount, tax, total and amount due; what is carried to the renewal) and the next renewal, and only
// Confirm sends the change, with the preview's proration_date so it bills exactly what was shown.
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from "react";
import { money, t } from "../i18n/intl.js";
import type { PortalSubscription } from "../portal-api.js";
import { changeApi, type AddOnChoice, type CatalogProduct, type ChangePreview, type DraftOrder, type SubscriptionChange } from "../portal-change-api.js";
import { Field } from "../ui.js";
import { AddOnsFields, choicesOf, mayChangeAddOns, startingItems } from "./PortalAddOns.js";
import { formatDate, SelectField, type Message, type OnError } from "./PortalCommon.js";

type Mode = "plan" | "seats" | "addOns";

/** What Confirm says once done: the new plan, the add-ons changed, or the add-ons a next_period change writes. */
function doneText(change: SubscriptionChange, before: PortalSubscription, after: PortalSubscription): string {
  if (!("items" in change)) return t("change.changed", { name: after.product.name });
  const pending = after.pending_update;
  if (pending?.items) return t("addOns.scheduled", { name: before.product.name, date: formatDate(pending.applies_at) });
  return t("addOns.changed", { name: before.product.name });
}

export function PortalChange({
  subscription: s,
  token,
  onError,
  onChange,
  say,
}: {
  subscription: PortalSubscription;
  token: string;
  onError: OnError;
  onChange: (s: PortalSubscription) => void;
  say: (m: Message | undefined) => void;
}) {
  const allowed = s.product.organization.customer_portal_settings?.subscription;
  const seatBased = s.seats != null && allowed?.update_seats !== false;
  const addOns = mayChangeAddOns(s);
  const [plans, setPlans] = useState<CatalogProduct[]>([]);
  const [mode, setMode] = useState<Mode | null>(null);
  const [items, setItems] = useState<AddOnChoice[]>([]);
  // the subscription's own add-ons are no plan to move to: they are offered with it (PortalAddOns)
  const addOnIds = choicesOf(s)
    .map((c) => c.id)
    .join(",");
  const [preview, setPreview] = useState<{ change: SubscriptionChange; answer: ChangePreview } | null>(null);
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    if (allowed?.update_plan === false) return;
    void changeApi.catalog(s.product.organization.slug).then((r) => {
      if (!r.ok) return;
      const offered = new Set(addOnIds.split(","));
      setPlans(r.data.products.filter((p) => p.is_recurring && !p.is_archived && p.id !== s.product.id && p.recurring_interval === s.recurring_interval && !offered.has(p.id)));
    });
  }, [allowed?.update_plan, s.product.organization.slug, s.product.id, s.recurring_interval, addOnIds]);

  useEffect(() => {
    if (preview) heading.current?.focus();
  }, [preview]);

  const name = s.product.name;
  const close = () => {
    setMode(null);
    setPreview(null);
  };

  async function onReview(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const change: SubscriptionChange =
      mode === "addOns" ? { items } : mode === "plan" ? { product_id: String(form.get("product_id") ?? "") } : { seats: Number(form.get("seats")) };
    setBusy(true);
    say({ tone: "info", text: t("change.previewing") });
    const r = await changeApi.previewChange(token, s.id, change);
    setBusy(false);
    if (!r.ok) return say({ tone: "error", text: onError(r.error) });
    say(undefined);
    setPreview({ change, answer: r.data });
  }

  async function onConfirm() {
    if (!preview) return;
    setBusy(true);
    say({ tone: "info", text: t("change.changing", { name }) });
    const r = await changeApi.change(token, s.id, preview.change, preview.answer.proration_date);
    setBusy(false);
    if (!r.ok) return say({ tone: "error", text: onError(r.error) });
    close();
    onChange(r.data);
    say({ tone: "success", text: doneText(preview.change, s, r.data) });
  }

  if (plans.length === 0 && !seatBased && !addOns) return null;
  if (preview) {
    return (
      <section className="change-preview" aria-labelledby={`preview-${s.id}`}>
        <h4 id={`preview-${s.id}`} ref={heading} tabIndex={-1}>
          {t("change.previewTitle", { name })}
        </h4>
        <PreviewFacts preview={preview.answer} />
        <div className="actions">
          <button type="button" className="primary" disabled={busy} onClick={() => void onConfirm()}>
            {t("change.confirm")}
          </button>
          <button type="button" disabled={busy} onClick={() => (close(), say(undefined))}>
            {t("change.back")}
          </button>
        </div>
      </section>
    );
  }
  if (mode) {
    const back = () => (close(), say(undefined));
    const fields = mode === "addOns" ? <AddOnsFields subscription={s} onChange={setItems} /> : undefined;
    return <ChangeForm mode={mode} plans={plans} seats={s.seats ?? 1} name={name} busy={busy} onReview={(e) => void onReview(e)} onBack={back} fields={fields} />;
  }
  return (
    <div className="actions">
      {plans.length > 0 && (
        <button type="button" onClick={() => setMode("plan")}>
          {t("change.plan")}
        </button>
      )}
      {seatBased && (
        <button type="button" onClick={() => setMode("seats")}>
          {t("change.seats")}
        </button>
      )}
      {addOns && (
        <button type="button" onClick={() => (setItems(startingItems(s)), setMode("addOns"))}>
          {t("addOns.change")}
        </button>
      )}
    </div>
  );
}

const FORM_LABEL = { plan: "change.planForm", seats: "change.seatsForm", addOns: "addOns.form" } as const;

/** The new plan (the seller's other plans of the interval), seat count or add-ons, to review before any change. */
function ChangeForm({
  mode,
  plans,
  seats,
  name,
  busy,
  onReview,
  onBack,
  fields,
}: {
  mode: Mode;
  plans: CatalogProduct[];
  seats: number;
  name: string;
  busy: boolean;
  onReview: (e: FormEvent<HTMLFormElement>) => void;
  onBack: () => void;
  /** The add-ons' fields (their state is the page's). */
  fields?: ReactNode;
}) {
  return (
    <form onSubmit={onReview} aria-label={t(FORM_LABEL[mode], { name })} className="change">
      {fields ?? (mode === "plan" ? (
        <SelectField label={t("change.newPlan")} name="product_id" required>
          {plans.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </SelectField>
      ) : (
        <Field label={t("change.seatCount")} name="seats" type="number" min={1} step={1} required defaultValue={seats} />
      ))}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {t("change.review")}
        </button>
        <button type="button" disabled={busy} onClick={onBack}>
          {t("change.back")}
        </button>
      </div>
    </form>
  );
}

/** The order billed now (or that nothing is), what is carried to the renewal, and the next renewal's total. */
function PreviewFacts({ preview: p }: { preview: ChangePreview }) {
  const currency = p.order?.currency ?? p.next_renewal?.currency ?? "usd";
  return (
    <>
      {p.order ? <OrderFacts title={t("change.billedNow")} order={p.order} /> : <p>{t("change.nothingNow")}</p>}
      {p.carried_forward.length > 0 && (
        <>
          <p>{t("change.carried")}</p>
          <dl className="facts">
            {p.carried_forward.map((l, i) => (
              <Line key={i} label={l.label} amount={money(l.amount, currency)} />
            ))}
          </dl>
        </>
      )}
      {p.next_renewal && (
        <dl className="facts">
          <Line label={t("change.nextRenewal", { date: formatDate(p.next_renewal.renews_at) })} amount={money(p.next_renewal.total_amount, p.next_renewal.currency)} />
        </dl>
      )}
    </>
  );
}

function OrderFacts({ title, order: o }: { title: string; order: DraftOrder }) {
  const m = (n: number) => money(n, o.currency);
  return (
    <>
      <p>{title}</p>
      <dl className="facts" data-testid="billed-now">
        {o.items.map((i, n) => (
          <Line key={n} label={i.label} amount={m(i.amount)} />
        ))}
        <Line label={t("change.subtotal")} amount={m(o.subtotal_amount)} />
        {o.discount_amount !== 0 && <Line label={t("change.discount")} amount={m(-o.discount_amount)} />}
        {o.tax_amount !== 0 && <Line label={t("change.tax")} amount={m(o.tax_amount)} />}
        <Line label={t("change.total")} amount={m(o.total_amount)} />
        {o.applied_balance_amount !== 0 && <Line label={t("change.balance")} amount={m(o.applied_balance_amount)} />}
        <Line label={t("change.due")} amount={m(o.due_amount)} />
      </dl>
    </>
  );
}

const Line = ({ label, amount }: { label: string; amount: string }) => (
  <>
    <dt>{label}</dt>
    <dd>{amount}</dd>
  </>
);
