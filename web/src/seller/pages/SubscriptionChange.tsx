// A subscription's plan, seats or add-ons changed in a dialog that first shows what the change bills — the order
// billed now (its lines, discount, tax, total and what the card is charged), the proration carried to the next
// renewal, and that renewal — from POST …/preview with the very body the change sends; confirming PATCHes that
// body with the preview's proration_date, so the order billed is the one shown, to the cent. Also the next renewal
// as it stands.
import * as Dialog from "@radix-ui/react-dialog";
import { useState, type FormEvent } from "react";
import { Field, SelectField, Status } from "../../ui.js";
import { v1 } from "../api.js";
import { addOnItemsOf, heldAddOns } from "../add-on-changes.js";
import { Chooser } from "../Chooser.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { day, Loading, money } from "../parts.js";
import { useToast } from "../Toasts.js";
import { priceLabel, type Product, type Subscription } from "../wire.js";
import "../sales.css";
import { AddOnFields, hasAddOns } from "./SubscriptionItems.js";

export interface DraftOrder {
  currency: string;
  subtotal_amount: number;
  discount_amount: number;
  tax_amount: number;
  total_amount: number;
  applied_balance_amount: number;
  due_amount: number;
  items: Array<{ label: string; amount: number; proration: boolean }>;
}

interface Upcoming extends DraftOrder {
  renews_at: string;
}

interface Preview {
  proration_date: string;
  proration_behavior: string | null;
  changes: boolean;
  subscription: Subscription;
  order: DraftOrder | null;
  carried_forward: Array<{ label: string; amount: number }>;
  next_renewal: Upcoming | null;
}

/** A draft order's lines and amounts as a ledger; `testId` names it for the tests. */
export function Ledger({ draft, testId }: { draft: DraftOrder; testId?: string }) {
  const c = draft.currency;
  const rows: Array<[string, number, string?]> = [
    ...draft.items.map((i): [string, number] => [i.label, i.amount]),
    ["Subtotal", draft.subtotal_amount],
    ...(draft.discount_amount ? [["Discount", -draft.discount_amount] as [string, number]] : []),
    ["Tax", draft.tax_amount],
    ["Total", draft.total_amount, "total"],
    ...(draft.applied_balance_amount ? [["Customer balance", draft.applied_balance_amount] as [string, number]] : []),
    ...(draft.due_amount !== draft.total_amount ? [["Charged to the card", draft.due_amount] as [string, number]] : []),
  ];
  return (
    <dl className="ledger" data-testid={testId}>
      {rows.map(([label, amount, cls], i) => (
        <div key={i} style={{ display: "contents" }}>
          <dt className={cls}>{label}</dt>
          <dd className={cls}>{money(amount, c)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The next renewal as it stands (none when the subscription ends, is set to end, or is past due). */
export function UpcomingRenewal({ sub }: { sub: Subscription }) {
  const { scope } = useSeller();
  // a scheduled change (an add-on's next_period) changes the renewal without changing the amount yet
  const key = `${sub.id}|${sub.product_id}|${sub.cancel_at_period_end}|${sub.status}|${sub.amount}|${JSON.stringify(sub.pending_update ?? null)}`;
  const up = useLoad<Upcoming | null>(async () => {
    const r = await v1<Upcoming>(scope, "GET", `/subscriptions/${sub.id}/upcoming`);
    // no renewal coming is an answer, not an error
    return !r.ok && r.error.status === 404 ? { ok: true, data: null } : r;
  }, key);
  return (
    <section aria-labelledby="upcoming-h">
      <h2 id="upcoming-h">Upcoming renewal</h2>
      <Loading loading={up.loading} error={up.error} />
      {up.data === null && <p className="hint">No renewal is coming: the subscription has ended, ends at the period's end, or is past due.</p>}
      {up.data && (
        <>
          <p>Renews on {day(up.data.renews_at)}, billing:</p>
          <Ledger draft={up.data} testId="upcoming" />
        </>
      )}
    </section>
  );
}

const BEHAVIORS = [
  { value: "invoice", label: "Bill the difference now" },
  { value: "prorate", label: "Carry the difference to the next renewal" },
  { value: "next_period", label: "From the next period (nothing billed now)" },
];

/** The body of the change the form asks for: a plan, the seats or the add-ons, one at a time as the API takes them. */
function bodyOf(form: FormData, sub: Subscription, name: (productId: string) => string): Record<string, unknown> | string {
  const product = String(form.get("product_id") ?? "");
  const seatsText = String(form.get("seats") ?? "").trim();
  const behavior = String(form.get("proration") ?? "") || undefined;
  const items = addOnItemsOf(heldAddOns(sub), form, name);
  if (typeof items === "string") return items;
  if (items && (product || seatsText)) return "Change the plan, the seats or the add-ons, one at a time.";
  if (items) return { items, proration_behavior: behavior };
  if (product && seatsText) return "Change the product or the seats, one at a time.";
  if (product) return { product_id: product, proration_behavior: behavior };
  if (seatsText) {
    const seats = Number(seatsText);
    if (!Number.isInteger(seats) || seats < 1) return "Write the number of seats as a whole number, at least 1.";
    return { seats, proration_behavior: behavior };
  }
  return hasAddOns(sub) ? "Choose the new plan, the number of seats or a change of add-ons." : "Choose the new product or the number of seats.";
}

/** The toast once a change is made: what it is, and what it billed now or when it applies. */
function changedSaid(s: Subscription, body: Record<string, unknown>, preview: Preview): string {
  const billed = preview.order;
  const now = billed ? `; billed ${money(billed.total_amount, billed.currency)} now` : "";
  if (!body.items) return `Changed: ${s.product.name}${s.seats ? `, ${s.seats} seats` : ""}${now}.`;
  if (s.pending_update?.items) return `The add-ons change on ${day(s.pending_update.applies_at)}.`;
  return `Changed the add-ons of ${s.product.name}${now || (preview.carried_forward.length ? "; the difference is carried to the next renewal" : "")}.`;
}

function PreviewView({ preview }: { preview: Preview }) {
  return (
    <div className="stack" role="region" aria-label="What the change bills">
      <h3>Billed now</h3>
      {preview.order ? <Ledger draft={preview.order} testId="billed-now" /> : <p className="hint">Nothing is billed now.</p>}
      {preview.carried_forward.length > 0 && (
        <>
          <h3>Carried to the next renewal</h3>
          <ul>
            {preview.carried_forward.map((l, i) => (
              <li key={i}>
                {l.label} <span className="amount">{money(l.amount, preview.subscription.currency)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Next renewal</h3>
      {preview.next_renewal ? (
        <>
          <p>On {day(preview.next_renewal.renews_at)}:</p>
          <Ledger draft={preview.next_renewal} testId="next-renewal" />
        </>
      ) : (
        <p className="hint">No renewal follows.</p>
      )}
    </div>
  );
}

export function ChangeDialog({ sub, onSaved }: { sub: Subscription; onSaved: (s: Subscription) => void }) {
  const { scope } = useSeller();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [asked, setAsked] = useState<{ body: Record<string, unknown>; preview: Preview } | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const addOns = hasAddOns(sub);
  const reset = (o: boolean) => {
    setOpen(o);
    setAsked(null);
    setError(undefined);
  };
  async function review(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const body = bodyOf(new FormData(e.currentTarget), sub, (id) => sub.items?.find((i) => i.product_id === id)?.product?.name ?? "the add-on");
    if (typeof body === "string") return setError(body);
    setBusy(true);
    const r = await v1<Preview>(scope, "POST", `/subscriptions/${sub.id}/preview`, { body });
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    setError(undefined);
    setAsked({ body, preview: r.data });
  }
  async function confirm() {
    if (!asked) return;
    setBusy(true);
    const r = await v1<Subscription>(scope, "PATCH", `/subscriptions/${sub.id}`, { body: { ...asked.body, proration_date: asked.preview.proration_date } });
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    toast(changedSaid(r.data, asked.body, asked.preview));
    reset(false);
    onSaved(r.data);
  }
  return (
    <Dialog.Root open={open} onOpenChange={reset}>
      <Dialog.Trigger asChild>
        <button type="button" className="primary">
          {addOns ? "Change plan, seats or add-ons…" : "Change plan or seats…"}
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog wide">
          <Dialog.Title className="dialog-title">Change {sub.product.name}</Dialog.Title>
          <Dialog.Description className="dialog-body">
            {asked
              ? "Check what the change bills, then confirm it."
              : `Choose the new plan${addOns ? ", number of seats or add-ons" : " or number of seats"}; you see what it bills before anything changes.`}
          </Dialog.Description>
          {asked ? (
            <>
              <PreviewView preview={asked.preview} />
              <Status tone="error">{error}</Status>
              <div className="dialog-actions">
                <button type="button" onClick={() => setAsked(null)}>
                  Back
                </button>
                <button type="button" className="primary" disabled={busy} onClick={() => void confirm()}>
                  Confirm the change
                </button>
              </div>
            </>
          ) : (
            <form onSubmit={(e) => void review(e)} aria-label="The change" className="stack">
              <Chooser<Product>
                label="New plan" name="product_id" path="/products/" placeholder="Keep the plan"
                filters={{ is_recurring: true, is_archived: false }} exclude={[sub.product_id]}
                describe={(p) => `${p.name} (${priceLabel(p.prices.find((x) => !x.is_archived), p.recurring_interval, money)})`}
              />
              {sub.seats !== null && sub.seats !== undefined && (
                <Field label="Seats" name="seats" inputMode="numeric" optional hint={`Now ${sub.seats}.`} />
              )}
              {addOns && <AddOnFields sub={sub} />}
              <SelectField label="Proration" name="proration" placeholder="The organization's setting" options={BEHAVIORS} />
              <Status tone="error">{error}</Status>
              <div className="dialog-actions">
                <Dialog.Close asChild>
                  <button type="button">Cancel</button>
                </Dialog.Close>
                <button type="submit" className="primary" disabled={busy}>
                  Review the change
                </button>
              </div>
            </form>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
