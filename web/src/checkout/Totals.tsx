// The order summary's lines: the subtotal (seats × price per seat), the discount, the server's taxes, the
// total due now, what a subscription then costs each period (the full price once a discount is spent, usage
// billed after each period), and a trial's terms.
import { formatMoney } from "../../../shared/money.js";
import type { Checkout } from "../checkout-api.js";
import { everyText, renewalText } from "./model.js";

const dateText = (iso: string) => new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "long", day: "numeric" });

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
        Order summary
      </h2>
      <dl aria-live="polite" aria-atomic="true" data-testid="totals">
        <dt>{seats ? `Subtotal (${seats.seats} seats × ${formatMoney(seats.price_per_seat ?? 0, c)})` : "Subtotal"}</dt>
        <dd>{formatMoney(checkout.amount, c)}</dd>
        {checkout.discount_amount > 0 && (
          <>
            <dt>Discount{discount ? ` (${discount.code ?? discount.name})` : ""}</dt>
            <dd>−{formatMoney(checkout.discount_amount, c)}</dd>
          </>
        )}
        {checkout.tax_amount !== null && (
          <>
            <dt>{checkout.reverse_charge ?? "Taxes"}</dt>
            <dd>{formatMoney(checkout.tax_amount, c)}</dd>
          </>
        )}
        <dt className="total">{trialing ? "Total due today" : "Total"}</dt>
        <dd className="total">{formatMoney(trialing ? 0 : checkout.total_amount, c)}</dd>
      </dl>
      {discount && discount.duration !== "forever" && recurring && checkout.discount_amount > 0 && (
        <p className="hint" data-testid="discount-terms">
          {discount.duration === "once" ? "The discount applies to the first payment." : `The discount applies for ${discount.duration_in_months ?? 1} months.`}
        </p>
      )}
      {trialing && checkout.trial_end ? (
        <p className="terms" data-testid="trial-terms">
          {checkout.active_trial_interval_count}-{checkout.active_trial_interval} free trial. Then {formatMoney(checkout.total_amount, c)}
          {every}, first charged on {dateText(checkout.trial_end)}. Cancel before then and you pay nothing.
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
