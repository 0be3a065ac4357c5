// The seat count of a seat-based price: − and + within the tiers' bounds (and the checkout's), the price per
// seat and the tier the count falls in, updated as the count changes.
import { money as formatMoney, t } from "../i18n/intl.js";
import type { Checkout, Price } from "../checkout-api.js";
import { fieldId, seatBounds, seatQuote } from "./model.js";

export function SeatStepper(props: { checkout: Checkout; price: Price; seats: number; error?: string | undefined; onChange: (seats: number) => void }) {
  const { checkout, price, seats } = props;
  const { min, max } = seatBounds(price, checkout);
  const quote = seatQuote(price, seats);
  const id = fieldId("seats");
  const set = (n: number) => props.onChange(Math.max(min, max === null ? n : Math.min(max, n)));
  return (
    <div className="field seats">
      <label htmlFor={id}>{t("label.seats")}</label>
      <div className="stepper">
        <button type="button" aria-label={t("seats.remove")} disabled={seats <= min} onClick={() => set(seats - 1)}>
          −
        </button>
        <input
          id={id}
          type="number"
          inputMode="numeric"
          min={min}
          max={max ?? undefined}
          value={seats}
          aria-describedby={`${id}-quote${props.error ? ` ${id}-error` : ""}`}
          aria-invalid={props.error ? true : undefined}
          onChange={(e) => {
            const n = Number(e.target.value);
            if (Number.isInteger(n) && n > 0) set(n);
          }}
        />
        <button type="button" aria-label={t("seats.add")} disabled={max !== null && seats >= max} onClick={() => set(seats + 1)}>
          +
        </button>
      </div>
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
