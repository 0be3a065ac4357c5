// What the customer buys (the left pane on a wide screen): the seller, the product's image and description,
// its price or the choice between prices, the usage prices billed with it, what the product includes (its
// benefits, so the buyer knows before paying), seats or a pay-what-you-want amount, a discount code, and the
// order summary.
import { useState } from "react";
import { money as formatMoney, t } from "../i18n/intl.js";
import type { AddOnChoice, Checkout, Price } from "../checkout-api.js";
import { Markdown } from "../markdown.js";
import { Field } from "../ui.js";
import { choicesOf, fieldId, meteredOf, meteredText, priceText } from "./model.js";
import { SeatStepper } from "./SeatStepper.js";
import { AddOns } from "./AddOns.js";
import { Totals } from "./Totals.js";

export interface SummaryProps {
  checkout: Checkout;
  amount: string;
  seats: number;
  discountCode: string;
  issues: Record<string, string>;
  updating: boolean;
  onChoose: (productId: string, price: Price) => void;
  onAmount: (typed: string) => void;
  onSeats: (seats: number) => void;
  onAddOns: (addOns: AddOnChoice[]) => void;
  onDiscountCode: (code: string) => void;
  onApplyDiscount: () => void;
}

export function Summary(props: SummaryProps) {
  const { checkout, issues } = props;
  const product = checkout.product;
  const price = checkout.product_price;
  const choices = choicesOf(checkout);
  const [chosen, setChosen] = useState<string | null>(null);
  const image = product?.medias?.find((m) => !m.mime_type || m.mime_type.startsWith("image/"));
  const metered = meteredOf(product, price);
  return (
    <section className="summary" aria-labelledby="summary-heading">
      <h2 id="summary-heading" className="visually-hidden">
        {t("summary.yourOrder")}
      </h2>
      <p className="seller">{checkout.organization.name}</p>
      {image && <img className="media" src={image.public_url} alt={product?.name ?? ""} />}
      {product?.description && <Markdown source={product.description} className="description" />}

      {choices.length > 1 ? (
        <fieldset>
          <legend>{t("summary.chooseOption")}</legend>
          {choices.map(({ product: p, price: pr }) => (
            <label key={pr.id} className="choice">
              <input
                type="radio"
                name="price"
                value={pr.id}
                checked={(chosen ?? price?.id) === pr.id}
                onChange={() => {
                  setChosen(pr.id);
                  props.onChoose(p.id, pr);
                }}
              />
              {checkout.products.length > 1 ? `${p.name} — ` : ""}
              {priceText(pr, p)}
            </label>
          ))}
        </fieldset>
      ) : (
        price && product && (
          <p className="price" data-testid="price">
            {priceText(price, product)}
          </p>
        )
      )}
      {metered.length > 0 && product && (
        <div className="usage">
          <p className="usage-title">{t("summary.plusUsage")}</p>
          <ul data-testid="metered-prices">
            {metered.map((m) => (
              <li key={m.id}>{meteredText(m, product)}</li>
            ))}
          </ul>
        </div>
      )}

      {product?.benefits && product.benefits.length > 0 && (
        <div className="usage">
          <p className="usage-title" id="includes-title">
            {t("summary.includes")}
          </p>
          <ul data-testid="product-benefits" aria-labelledby="includes-title">
            {product.benefits.map((b) => (
              <li key={b.id}>{b.description}</li>
            ))}
          </ul>
        </div>
      )}

      {price?.amount_type === "seat_based" && (
        <SeatStepper checkout={checkout} price={price} seats={props.seats} error={issues.seats} onChange={props.onSeats} />
      )}
      <AddOns checkout={checkout} onChange={props.onAddOns} />
      {price?.amount_type === "custom" && (
        <Field
          id={fieldId("amount")}
          label={t("summary.amount", { currency: checkout.currency.toUpperCase() })}
          required
          inputMode="decimal"
          value={props.amount}
          hint={amountHint(price, checkout.currency)}
          error={issues.amount}
          onChange={(e) => props.onAmount(e.target.value)}
        />
      )}

      {checkout.allow_discount_codes && checkout.is_discount_applicable && (
        <div className="discount">
          <Field
            id={fieldId("discount_code")}
            label={t("label.discountCode")}
            optional
            value={props.discountCode}
            error={issues.discount_code}
            onChange={(e) => props.onDiscountCode(e.target.value)}
          />
          <button type="button" disabled={!props.discountCode.trim() || props.updating} onClick={props.onApplyDiscount}>
            {t("summary.apply")}
          </button>
        </div>
      )}

      <Totals checkout={checkout} />
    </section>
  );
}

function amountHint(price: Price, currency: string): string | null {
  const min = price.minimum_amount ? formatMoney(price.minimum_amount, currency) : null;
  const max = price.maximum_amount ? formatMoney(price.maximum_amount, currency) : null;
  if (min && max) return t("summary.between", { min, max });
  if (min) return t("summary.atLeast", { amount: min });
  return max ? t("summary.atMost", { amount: max }) : null;
}
