// The seat count of a seat-based price: − and + within the tiers' bounds (and the checkout's), the price per
// seat and the tier the count falls in, updated as the count changes.
import { money as formatMoney, t } from "../i18n/intl.js";
import type { Checkout, Price } from "../checkout-api.js";
import { Stepper } from "../ui.js";
import { fieldId, seatBounds, seatQuote } from "./model.js";

export function SeatStepper(props: { checkout: Checkout; price: Price; seats: number; error?: string | undefined; onChange: (seats: number) => void }) {
  const { checkout, price, seats } = props;
  const { min, max } = seatBounds(price, checkout);
  const quote = seatQuote(price, seats);
  const id = fieldId("seats");
  return (
    <div className="field seats">
      <label htmlFor={id}>{t("label.seats")}</label>
      <Stepper
        id={id}
        value={seats}
        min={min}
        max={max}
        onChange={props.onChange}
        less={t("seats.remove")}
        more={t("seats.add")}
        describedBy={`${id}-quote${props.error ? ` ${id}-error` : ""}`}
        invalid={Boolean(props.error)}
      />
      <p className="hint" id={`${id}-quote`} aria-live="polite" data-testid="seat-quote">
        {quote
          ? t("seats.quote", { perSeat: formatMoney(quote.perSeat, checkout.currency), tier: quote.tierText, amount: formatMoney(quote.amount, checkout.currency) })
          : t("seats.noPrice")}
        {max !== null ? t("seats.bounds", { min, max }) : t("seats.atLeast", { min })}
      </p>
      {props.error && (
        <p className="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}
