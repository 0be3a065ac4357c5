// A subscription's add-ons in the portal: the ones it holds (and the set a next_period change writes at the period's
// end), and the form where the customer adds one, changes its quantity (units, or seats for a seat-based price) or
// removes one; the form's set is previewed and confirmed by PortalChange as a plan change is.
import { useState } from "react";
import { money, t } from "../i18n/intl.js";
import type { Price } from "../checkout-api.js";
import type { PortalSubscription } from "../portal-api.js";
import type { AddOnChoice } from "../portal-change-api.js";
import { CheckboxField, Stepper } from "../ui.js";
import { formatDate } from "./PortalCommon.js";

/** An add-on the form lists: one offered, or one held whose product is offered no more (it keeps its price). */
interface Choice {
  id: string;
  name: string;
  price: Price | null;
}

/** "$5.00 / month": an amount per period of the subscription. */
const perPeriod = (amount: number, s: PortalSubscription) =>
  t("subs.price", { amount: money(amount, s.currency), interval: s.recurring_interval, count: s.recurring_interval_count ?? 1 });

/** "Storage" for one, "Storage × 3" for more (the words the order's lines use). */
const itemLabel = (name: string, quantity: number) => (quantity === 1 ? name : t("addOns.times", { name, quantity }));

/** How an add-on's price reads: per unit, per seat (its first tier), or free. */
function priceText(price: Price | null, s: PortalSubscription): string | undefined {
  if (!price) return undefined;
  if (price.amount_type === "seat_based") {
    const first = price.seat_tiers?.tiers[0];
    return first ? t("addOns.perSeat", { price: perPeriod(first.price_per_seat, s) }) : undefined;
  }
  if (price.amount_type === "free" || !price.price_amount) return t("addOns.free");
  return t("addOns.each", { price: perPeriod(price.price_amount, s) });
}

/** The add-ons the form offers: the product's, then the held ones it offers no more. */
export function choicesOf(s: PortalSubscription): Choice[] {
  const offered: Choice[] = (s.available_add_ons ?? []).map((p) => ({
    id: p.id,
    name: p.name,
    price: p.prices.find((x) => !x.is_archived && x.price_currency === s.currency && x.amount_type !== "metered_unit" && x.amount_type !== "custom") ?? null,
  }));
  const held = (s.items ?? []).filter((i) => !offered.some((o) => o.id === i.product_id));
  return [...offered, ...held.map((i) => ({ id: i.product_id, name: i.product?.name ?? t("addOns.unnamed"), price: i.price }))];
}

/** The set the customer starts from: the one a pending change writes, else the one held now. */
export const startingItems = (s: PortalSubscription): AddOnChoice[] =>
  (s.pending_update?.items ?? s.items ?? []).map((i) => ({ product_id: i.product_id, quantity: i.quantity }));

/** Whether the customer may change the add-ons: the seller's plan setting, and something to add or remove. */
export const mayChangeAddOns = (s: PortalSubscription) =>
  s.product.organization.customer_portal_settings?.subscription?.update_plan !== false && ((s.available_add_ons ?? []).length > 0 || (s.items ?? []).length > 0);

/** An add-on set as a list: "Storage × 3: $15.00 / month" each, or that there is none. */
function AddOnList({ subscription: s, items, testId }: { subscription: PortalSubscription; items: Array<{ product_id: string; quantity: number; amount: number }>; testId: string }) {
  const names = new Map(choicesOf(s).map((c) => [c.id, c.name]));
  if (items.length === 0) return <span data-testid={testId}>{t("addOns.noneHeld")}</span>;
  return (
    <ul className="add-on-list" data-testid={testId}>
      {items.map((i) => (
        <li key={i.product_id}>{t("addOns.held", { label: itemLabel(names.get(i.product_id) ?? t("addOns.unnamed"), i.quantity), price: perPeriod(i.amount, s) })}</li>
      ))}
    </ul>
  );
}

/** The held add-ons: a row of the subscription's facts. */
export function AddOnFacts({ subscription: s }: { subscription: PortalSubscription }) {
  const items = s.items ?? [];
  if (items.length === 0) return null;
  return (
    <>
      <dt>{t("addOns.heading")}</dt>
      <dd>
        <AddOnList subscription={s} items={items} testId="add-ons-held" />
      </dd>
    </>
  );
}

/** The add-ons a next_period change writes at the period's end, under the facts (its sentence is too long for one). */
export function PendingAddOns({ subscription: s }: { subscription: PortalSubscription }) {
  const pending = s.pending_update;
  if (!pending?.items) return null;
  return (
    <div className="pending-add-ons">
      <p>{t("addOns.pending", { date: formatDate(pending.applies_at) })}</p>
      <AddOnList subscription={s} items={pending.items} testId="add-ons-pending" />
    </div>
  );
}

/** The add-ons as they should be: a checkbox each, and a quantity once chosen (not for a free one). */
export function AddOnsFields({ subscription: s, onChange }: { subscription: PortalSubscription; onChange: (items: AddOnChoice[]) => void }) {
  const [chosen, setChosen] = useState(() => new Map(startingItems(s).map((i) => [i.product_id, i.quantity])));
  const send = (next: Map<string, number>) => {
    setChosen(next);
    onChange([...next].map(([product_id, quantity]) => ({ product_id, quantity })));
  };
  return (
    <fieldset className="field add-ons">
      <legend>{t("addOns.heading")}</legend>
      {choicesOf(s).map((c) => {
        const quantity = chosen.get(c.id);
        const seats = c.price?.amount_type === "seat_based";
        return (
          <div key={c.id} className="add-on">
            <CheckboxField
              id={`add-on-${s.id}-${c.id}`}
              label={c.name}
              hint={priceText(c.price, s)}
              checked={quantity !== undefined}
              onChange={(e) => {
                const next = new Map(chosen);
                if (e.target.checked) next.set(c.id, 1);
                else next.delete(c.id);
                send(next);
              }}
            />
            {quantity !== undefined && (seats || Boolean(c.price?.price_amount)) && (
              <Stepper
                value={quantity}
                onChange={(n) => send(new Map(chosen).set(c.id, n))}
                label={t(seats ? "addOns.seats" : "addOns.quantity", { name: c.name })}
                less={t("addOns.less", { name: c.name })}
                more={t("addOns.more", { name: c.name })}
              />
            )}
          </div>
        );
      })}
    </fieldset>
  );
}
