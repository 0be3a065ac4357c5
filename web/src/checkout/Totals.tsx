// The order summary's lines: the subtotal (seats × price per seat), the discount, the server's taxes, the
// total due now, what a subscription then costs each period (the full price once a discount is spent, usage
// billed after each period), and a trial's terms.
import { Fragment } from "react";
import { longDate, money as formatMoney, t } from "../i18n/intl.js";
import type { Checkout } from "../checkout-api.js";
import { everyText, renewalText } from "./model.js";


export function Totals({ checkout }: { checkout: Checkout }) {
  const c = checkout.currency;
  const product = checkout.product;
  const recurring = product?.is_recurring ?? false;
  const every = everyText(product?.recurring_interval, product?.recurring_interval_count);
  const trialing = checkout.active_trial_interval !== null && checkout.trial_end !== null;
  const seats = checkout.seats !== null && checkout.price_per_seat !== null ? checkout : null;
  const discount = checkout.discount;
  return (
    <section aria-labelledby="totals-heading" className="totals">
      <h2 id="totals-heading" className="visually-hidden">
        {t("totals.heading")}
      </h2>
      <dl aria-live="polite" aria-atomic="true" data-testid="totals">
        <dt>{seats ? t("totals.subtotalSeats", { seats: seats.seats ?? 0, price: formatMoney(seats.price_per_seat ?? 0, c) }) : t("totals.subtotal")}</dt>
        <dd>{formatMoney(checkout.amount, c)}</dd>
        {checkout.add_ons?.map((a) => (
          <Fragment key={a.product_id}>
            <dt data-testid="add-on-line">{a.quantity > 1 ? `${a.name ?? ""} × ${a.quantity}` : a.name}</dt>
            <dd>{formatMoney(a.amount, c)}</dd>
          </Fragment>
        ))}
        {checkout.discount_amount > 0 && (
          <>
            <dt>{discount ? t("totals.discountNamed", { name: discount.code ?? discount.name }) : t("totals.discount")}</dt>
            <dd>−{formatMoney(checkout.discount_amount, c)}</dd>
          </>
        )}
        {checkout.tax_amount !== null && (
          <>
            <dt>{checkout.reverse_charge ? t("totals.reverseCharge") : t("totals.taxes")}</dt>
            <dd>{formatMoney(checkout.tax_amount, c)}</dd>
          </>
        )}
        <dt className="total">{trialing ? t("totals.dueToday") : t("totals.total")}</dt>
        <dd className="total">{formatMoney(trialing ? 0 : checkout.total_amount, c)}</dd>
      </dl>
      {discount && discount.duration !== "forever" && recurring && checkout.discount_amount > 0 && (
        <p className="hint" data-testid="discount-terms">
          {discount.duration === "once" ? t("totals.discountOnce") : t("totals.discountMonths", { months: discount.duration_in_months ?? 1 })}
        </p>
      )}
      {trialing && checkout.trial_end ? (
        <p className="terms" data-testid="trial-terms">
          {t("totals.trial", {
            count: checkout.active_trial_interval_count ?? 1,
            interval: checkout.active_trial_interval ?? "day",
            price: `${formatMoney(checkout.total_amount, c)}${every}`,
            date: longDate(checkout.trial_end),
          })}
        </p>
      ) : (
        recurring && (
          <p className="terms" data-testid="recurring-terms">
            {renewalText(checkout, every)}
          </p>
        )
      )}
    </section>
  );
}
