// The add-ons the product offers (till's own `available_add_ons`): a checkbox each, and a quantity (seats for a
// seat-based price) once chosen. Every change sends the whole set (`add_ons`); the server prices it in the totals.
import { useState } from "react";
import { t } from "../i18n/intl.js";
import type { AddOnChoice, Checkout } from "../checkout-api.js";
import { CheckboxField, Stepper } from "../ui.js";
import { fieldId, priceText } from "./model.js";

export function AddOns({ checkout, onChange }: { checkout: Checkout; onChange: (addOns: AddOnChoice[]) => void }) {
  const offered = checkout.available_add_ons ?? [];
  const [chosen, setChosen] = useState<Map<string, number>>(() => new Map((checkout.add_ons ?? []).map((a) => [a.product_id, a.quantity])));
  if (offered.length === 0) return null;
  const send = (next: Map<string, number>) => {
    setChosen(next);
    onChange([...next].map(([product_id, quantity]) => ({ product_id, quantity })));
  };
  return (
    <fieldset className="field add-ons" data-testid="add-ons">
      <legend>{t("addOns.heading")}</legend>
      {offered.map((p) => {
        const price = p.prices.find((x) => !x.is_archived && x.price_currency === checkout.currency && x.amount_type !== "metered_unit") ?? null;
        const quantity = chosen.get(p.id);
        const id = fieldId(`add-on-${p.id}`);
        return (
          <div key={p.id} className="add-on">
            <CheckboxField
              id={fieldId(`add-on-check-${p.id}`)}
              label={p.name}
              hint={price ? priceText(price, p) : undefined}
              checked={quantity !== undefined}
              onChange={(e) => {
                const next = new Map(chosen);
                if (e.target.checked) next.set(p.id, 1);
                else next.delete(p.id);
                send(next);
              }}
            />
            {quantity !== undefined && price && price.amount_type !== "free" && (
              <Stepper
                id={id}
                value={quantity}
                onChange={(n) => send(new Map(chosen).set(p.id, n))}
                label={t(price.amount_type === "seat_based" ? "addOns.seats" : "addOns.quantity", { name: p.name })}
                less={t("addOns.less", { name: p.name })}
                more={t("addOns.more", { name: p.name })}
              />
            )}
          </div>
        );
      })}
    </fieldset>
  );
}
